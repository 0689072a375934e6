"""Ataxx on a 7x7 board, in three variants that differ only in how the game ends.

Notation: squares are a file letter a-g and a rank 1-7, `a1` at the bottom left. A **clone** is
written as its destination alone (`c4`): the empty square next to one of your pieces where a new
piece appears. A **jump** is written source then destination (`a7-c5`), the destination exactly two
squares away (king distance, knight-shaped offsets included). In `ataxx` a side with no move writes
`pass`. Input is lenient and case-insensitive: `C4`, `a7c5` (the UAI form), `a7 c5`, `a7,c5` and
`0000` (UAI's pass) are read too; the canonical texts are `c4`, `a7-c5` and `pass`.

Text that is not in this notation at all ("g2 looks good") raises `InvalidMove`; squares off the
board, occupied, blocked or out of reach, and a pass while a move exists, raise `IllegalMove`.
The board, FEN and perft live in `engine.ataxx_board`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.ataxx_board import (
    _SQUARE_INDEX,
    _START_O,
    _START_X,
    FILES,
    JUMPS,
    LAYOUTS,
    NEIGHBOURS,
    PASS,
    SIZE,
    SQUARE_NAMES,
    Move,
    Position,
    _blocks_option,
    _distance,
    _grow,
    _mask,
    _move_from_text,
    _squares,
    format_uai,
    from_fen,
    perft,
    to_fen,
)
from engine.base import Effects, IllegalMove, InvalidMove, Option, Outcome, Rules, Termination
from engine.grid import beside, render_grid

__all__ = [
    "LAYOUTS", "PASS", "SIZE", "SQUARE_NAMES", "Assimilation", "Ataxx", "Infection", "Move",
    "Position", "format_uai", "from_fen", "perft", "to_fen",
]



class Ataxx(Rules[Position, Move]):
    """Ataxx as the computer-Ataxx community plays it: pass when stuck, draw after 100 clone-less plies.

    Infection and Assimilation subclass it and change only `can_pass`, `quiet_limit` and `_ending`.
    """

    name = "ataxx"
    aliases = ("uai-ataxx",)
    title = "Ataxx"
    family = "ataxx"
    sides = ("x", "o")
    score_unit = "pieces"
    option_specs = (
        Option(
            "blocks",
            "",
            "blocked squares: a layout (none, center, cross, square, diamond, quincunx) "
            'or a list of squares such as "c3 e3 c5 e5"',
            _blocks_option,
        ),
    )

    #: whether a side without a move passes (otherwise the game is over)
    can_pass: ClassVar[bool] = True
    #: plies without a clone after which the game is drawn (None: never)
    quiet_limit: ClassVar[int | None] = 100

    # -- description ---------------------------------------------------------------------------
    def describe(self) -> str:
        count = len(self.options["blocks"].split())
        if not count:
            return f"{self.name} 7x7"
        return f"{self.name} 7x7, {count} blocked square{'s' if count != 1 else ''}"

    def notation(self) -> str:
        text = (
            "Clone by naming an empty square next to one of your pieces (c4); jump by naming one of "
            "your pieces and an empty square exactly two away (a7-c5)."
        )
        if self.can_pass:
            text += " When you have no move, write pass."
        return text

    # -- positions -----------------------------------------------------------------------------
    def start(self) -> Position:
        return Position(_START_X, _START_O, _mask(self.options["blocks"]))

    def turn(self, pos: Position) -> int:
        return pos.turn

    def ply(self, pos: Position) -> int:
        return 2 * (pos.fullmove - 1) + pos.turn

    def last_move(self, pos: Position) -> Move | None:
        return pos.last

    fen = staticmethod(to_fen)

    @staticmethod
    def from_fen(fen: str) -> Position:
        """A position from the community FEN (gaps included); raises BadOption for a bad FEN."""
        return from_fen(fen)

    # -- moves ---------------------------------------------------------------------------------
    def _moves(self, pos: Position) -> list[Move]:
        """The clones and jumps of the side to move, ignoring whether the game is over."""
        me, _ = pos.sides()
        empty = pos.empty
        moves = [Move(None, dst) for dst in _squares(_grow(me) & empty)]
        for src in _squares(me):
            moves.extend(Move(src, dst) for dst in _squares(JUMPS[src] & empty))
        return moves

    def legal_moves(self, pos: Position) -> list[Move]:
        if self.outcome(pos).over:
            return []
        return self._moves(pos) or [PASS]

    def _example_moves(self, pos: Position) -> list[Move]:
        """The first clone and the first jump in board order (or the pass): plain, not advice."""
        moves = self.legal_moves(pos)
        clone = next((m for m in moves if m.is_clone), None)
        jump = next((m for m in moves if m.src is not None), None)
        return [m for m in (clone, jump) if m is not None] or moves[:1]

    def examples(self, pos: Position) -> list[str]:
        return [str(m) for m in self._example_moves(pos)]

    def _hint(self, pos: Position) -> str:
        moves = self._example_moves(pos)
        if moves == [PASS]:
            return "You have no move now: write pass."
        shown = [f"{m} ({'clone' if m.is_clone else 'jump'})" for m in moves]
        return f"Legal now, e.g. {' or '.join(shown)}." if shown else ""

    def format(self, pos: Position, move: Move) -> str:
        return str(move)

    def parse(self, pos: Position, text: str) -> Move:
        said = text.strip() if len(text.strip()) <= 40 else text.strip()[:37] + "..."
        if self.outcome(pos).over:
            raise IllegalMove(
                f'"{said}" cannot be played: the game is over.', code="move.game_over", params={"text": said}
            )
        clean = re.sub(r"^(?:clone|jump|move)\s+", "", said.lower()).rstrip(".!")
        if clean in ("pass", "0000"):
            return self._parse_pass(pos, said)
        found = re.fullmatch(
            r"([a-z])\s*(\d{1,2})(?:\s*(?:[-\u2013\u2014,]|to)?\s*([a-z])\s*(\d{1,2}))?", clean
        )
        if not found:
            raise InvalidMove(
                f'"{said}" is not a move: write the square to clone to, like c4, or a jump from one '
                "square to another, like a7-c5.",
                code="move.not_notation",
                params={"text": said},
                hint=self._hint(pos),
            )
        names = [f + r for f, r in (found.group(1, 2), found.group(3, 4)) if f]
        for name in names:
            if name not in _SQUARE_INDEX:
                raise IllegalMove(
                    f'"{said}": {name} is off the board; files run from a to g and ranks from 1 to 7.',
                    code="move.off_board",
                    params={"text": said, "square": name, "size": SIZE},
                    hint=self._hint(pos),
                )
        squares = [_SQUARE_INDEX[name] for name in names]
        if len(squares) == 1:
            return self._parse_clone(pos, said, squares[0])
        return self._parse_jump(pos, said, squares[0], squares[1])

    def _parse_pass(self, pos: Position, said: str) -> Move:
        if not self.can_pass:
            raise IllegalMove(
                f'"{said}": there is no passing in {self.name}; you must move while you can, '
                "and the game ends when you cannot.",
                code="move.no_passing",
                params={"text": said, "game": self.name},
                hint=self._hint(pos),
            )
        count = len(self._moves(pos))
        if count:
            raise IllegalMove(
                f'"{said}": you may pass only when you have no move, and you have {count}.',
                code="move.pass_with_moves",
                params={"text": said, "moves": count},
                hint=self._hint(pos),
            )
        return PASS

    def _check_destination(self, pos: Position, said: str, dst: int) -> None:
        bit = 1 << dst
        params = {"text": said, "square": SQUARE_NAMES[dst]}
        if pos.gaps & bit:
            raise IllegalMove(
                f'"{said}": {SQUARE_NAMES[dst]} is a blocked square.',
                code="move.blocked", params=params, hint=self._hint(pos),
            )
        if (pos.x | pos.o) & bit:
            raise IllegalMove(
                f'"{said}": {SQUARE_NAMES[dst]} is occupied.', code="move.occupied", params=params, hint=self._hint(pos)
            )

    def _parse_clone(self, pos: Position, said: str, dst: int) -> Move:
        self._check_destination(pos, said, dst)
        me, _ = pos.sides()
        if not NEIGHBOURS[dst] & me:
            into = [Move(src, dst) for src in _squares(JUMPS[dst] & me)]
            hint = f"A jump can reach it: {', '.join(map(str, into))}." if into else self._hint(pos)
            raise IllegalMove(
                f'"{said}": no piece of yours ({self.sides[pos.turn]}) is next to {SQUARE_NAMES[dst]}, '
                "so you cannot clone there.",
                code="move.clone_too_far",
                params={"text": said, "side": pos.turn, "square": SQUARE_NAMES[dst], "jumps": [str(m) for m in into]},
                hint=hint,
            )
        return Move(None, dst)

    def _parse_jump(self, pos: Position, said: str, src: int, dst: int) -> Move:
        me, them = pos.sides()
        name = SQUARE_NAMES[src]
        side = self.sides[pos.turn]
        if src == dst:
            raise IllegalMove(
                f'"{said}" names the same square twice.',
                code="move.same_square", params={"text": said, "square": name}, hint=self._hint(pos),
            )
        if not me >> src & 1:
            if them >> src & 1:
                code = "move.source_theirs"
                problem = f"{name} holds an {self.sides[1 - pos.turn]} piece, not one of yours ({side})"
            elif pos.gaps >> src & 1:
                code, problem = "move.source_blocked", f"{name} is a blocked square"
            else:
                code, problem = "move.source_empty", f"there is no piece on {name}"
            raise IllegalMove(
                f'"{said}": {problem}.',
                code=code, params={"text": said, "square": name, "side": pos.turn}, hint=self._hint(pos),
            )
        jumps = [Move(src, d) for d in _squares(JUMPS[src] & pos.empty)]
        from_here = f"Jumps from {name} that work now: {', '.join(map(str, jumps))}." if jumps else ""
        distance = _distance(src, dst)
        if distance > 2:
            raise IllegalMove(
                f'"{said}" is {distance} squares away; a jump goes exactly 2.',
                code="move.jump_too_far",
                params={"text": said, "distance": distance, "jumps": [str(m) for m in jumps]},
                hint=from_here or self._hint(pos),
            )
        self._check_destination(pos, said, dst)
        return Move(None, dst) if distance == 1 else Move(src, dst)

    def apply(self, pos: Position, move: Move) -> Position:
        me, them = pos.sides()
        fullmove = pos.fullmove + pos.turn
        if move.dst is None:
            if not self.can_pass:
                raise IllegalMove(f"There is no passing in {self.name}.", code="move.no_passing", params={"game": self.name})
            after_me, after_them, halfmove = me, them, pos.halfmove + 1
        else:
            bit = 1 << move.dst
            if not pos.empty & bit:
                raise IllegalMove(
                    f"{SQUARE_NAMES[move.dst]} is not empty.",
                    code="move.occupied", params={"square": SQUARE_NAMES[move.dst]},
                )
            if move.src is not None and not me >> move.src & 1:
                raise IllegalMove(
                    f"There is no piece of yours on {SQUARE_NAMES[move.src]}.",
                    code="move.source_empty", params={"square": SQUARE_NAMES[move.src]},
                )
            captured = NEIGHBOURS[move.dst] & them
            after_them = them ^ captured
            if move.src is None:
                after_me, halfmove = me | bit | captured, 0
            else:
                after_me, halfmove = me ^ (1 << move.src) ^ bit | captured, pos.halfmove + 1
        x, o = (after_me, after_them) if pos.turn == 0 else (after_them, after_me)
        return Position(x, o, pos.gaps, 1 - pos.turn, halfmove, fullmove, move)

    # -- results -------------------------------------------------------------------------------
    def _decided(
        self,
        why: Termination,
        scores: tuple[int, int],
        credited: tuple[int, int] = (0, 0),
        details: Mapping[str, Any] | None = None,
    ) -> Outcome:
        """A finished game won by the larger total of pieces and credited squares."""
        totals = (scores[0] + credited[0], scores[1] + credited[1])
        winner = None if totals[0] == totals[1] else int(totals[1] > totals[0])
        return Outcome(True, winner, why, scores, credited, dict(details or {}))

    def _ending(self, pos: Position, scores: tuple[int, int]) -> Outcome | None:
        """The community rule: no pieces, the 100-ply draw, or nobody can ever move again."""
        for side in (0, 1):
            if not scores[side]:
                return self._decided(Termination.NO_PIECES, scores, details={"side": side})
        if self.quiet_limit is not None and pos.halfmove >= self.quiet_limit:
            return Outcome(True, None, Termination.QUIET_PLIES, scores, details={"plies": self.quiet_limit})
        empty = pos.empty
        if not empty:
            return self._decided(Termination.BOARD_FULL, scores)
        if not _grow(_grow(pos.x | pos.o)) & empty:
            return self._decided(Termination.OUT_OF_REACH, scores)
        return None

    def outcome(self, pos: Position) -> Outcome:
        scores = (pos.x.bit_count(), pos.o.bit_count())
        return self._ending(pos, scores) or Outcome(False, None, None, scores)

    def effects(self, before: Position, after: Position) -> Effects:
        """The opponent's pieces the move turned, and where they were."""
        them = before.o if before.turn == 0 else before.x
        still = after.o if before.turn == 0 else after.x
        turned = them & ~still
        return Effects(turned.bit_count(), tuple(SQUARE_NAMES[sq] for sq in _squares(turned)))

    # -- records -------------------------------------------------------------------------------
    def record_tags(self) -> list[tuple[str, str]]:
        """The start FEN (with its gaps), as the Ataxx community writes positions."""
        return [("FEN", to_fen(self.start()))]

    # -- presentation and storage --------------------------------------------------------------
    def render(self, pos: Position, names: tuple[str, str] | None = None, finished: bool = False) -> str:
        last = pos.last
        marked = last.dst if last is not None else None

        def cell(file: int, rank: int) -> str:
            sq = rank * SIZE + file
            bit = 1 << sq
            char = "x" if pos.x & bit else "o" if pos.o & bit else "#" if pos.gaps & bit else "."
            return char.upper() if sq == marked else char

        lines = render_grid(list(FILES), SIZE, cell, label_width=3)
        legend = self._legend(pos, names)
        return "\n".join(beside(lines, legend, 2 + min(3, SIZE - len(legend)), 6))

    def _legend(self, pos: Position, names: tuple[str, str] | None) -> list[str]:
        shown = [n.strip()[:16] for n in names] if names else ["", ""]
        width = max(len(n) for n in shown)
        result = self.outcome(pos)
        lines = []
        for side in (0, 1):
            count = result.scores[side]
            label = f"{shown[side]:<{width}}  " if width else ""
            line = f"{self.sides[side]}  {label}{count} piece{'s' if count != 1 else ''}"
            if result.credited[side]:
                line += f" + {result.credited[side]} credited"
            lines.append(line)
        last = pos.last
        if last is not None:
            mover = 1 - pos.turn
            who = shown[mover] or self.sides[mover]
            if last.is_pass:
                lines.append(f"   {who} ({self.sides[mover]}) passed" if names else f"   {who} passed")
            else:
                owner = f"{who}'s last move" if names else "last move"
                lines.append(f"{self.sides[mover].upper()}  {owner}: {last}")
        if pos.gaps:
            lines.append("#  blocked")
        return lines

    def dump(self, pos: Position) -> dict[str, Any]:
        return {"fen": to_fen(pos), "last": None if pos.last is None else str(pos.last)}

    def load(self, data: Mapping[str, Any]) -> Position:
        pos = from_fen(data["fen"])
        last = data.get("last")
        if last is None:
            return pos
        return Position(pos.x, pos.o, pos.gaps, pos.turn, pos.halfmove, pos.fullmove, _move_from_text(last))


def _seed_ending(rules: Ataxx, pos: Position, scores: tuple[int, int], credit: bool) -> Outcome | None:
    """The source texts' rule: over when the board is full or the side to move cannot move."""
    empty = pos.empty
    if not empty:
        return rules._decided(Termination.BOARD_FULL, scores)
    me, _ = pos.sides()
    if _grow(_grow(me)) & empty:
        return None
    why = Termination.NO_PIECES if not me else Termination.NO_MOVES
    if not credit:
        return rules._decided(why, scores, details={"side": pos.turn})
    count = empty.bit_count()
    credited = (0, count) if pos.turn == 0 else (count, 0)
    return rules._decided(why, scores, credited, {"side": pos.turn, "squares": count, "to": 1 - pos.turn})


class Infection(Ataxx):
    """The source game: no pass; when the side to move cannot, the empty squares go to the other."""

    name = "infection"
    aliases = ("ataxx-infection",)
    title = "Infection"
    can_pass = False
    quiet_limit = None

    def _ending(self, pos: Position, scores: tuple[int, int]) -> Outcome | None:
        return _seed_ending(self, pos, scores, credit=True)


class Assimilation(Ataxx):
    """Like Infection, but the empty squares are awarded to nobody."""

    name = "assimilation"
    aliases = ("ataxx-assimilation",)
    title = "Assimilation"
    can_pass = False
    quiet_limit = None

    def _ending(self, pos: Position, scores: tuple[int, int]) -> Outcome | None:
        return _seed_ending(self, pos, scores, credit=False)
