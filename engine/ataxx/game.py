"""Ataxx on a 7x7 board, in three variants that differ only in how the game ends.

Notation: squares are a file letter a-g and a rank 1-7, `a1` at the bottom left. A **clone** is
written as its destination alone (`c4`): the empty square next to one of your pieces where a new
piece appears. A **jump** is written source then destination (`a7-c5`), the destination exactly two
squares away (king distance, knight-shaped offsets included). In `ataxx` a side with no move writes
`pass`. Input is lenient and case-insensitive: `C4`, `a7c5` (the UAI form), `a7 c5`, `a7,c5` and
`0000` (UAI's pass) are read too; the canonical texts are `c4`, `a7-c5` and `pass`.

Text that is not in this notation at all ("g2 looks good") raises `InvalidMove`; squares off the
board, occupied, blocked or out of reach, and a pass while a move exists, raise `IllegalMove`.
The board, FEN and perft live in `pbem_engine.ataxx.board`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from pbem_engine.ataxx.board import (
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
from pbem_engine.common.base import Effects, IllegalMove, InvalidMove, Option, Outcome, Rules, Termination
from pbem_engine.common.grid import below, beside, fits_beside, ljust, render_grid, width
from pbem_engine.common.phrases import Phrase, nphrase, phrase

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
            phrase(
                "blocked squares: a layout (none, center, cross, square, diamond, quincunx) "
                'or a list of squares such as "c3 e3 c5 e5"'
            ),
            _blocks_option,
        ),
    )

    #: whether a side without a move passes (otherwise the game is over)
    can_pass: ClassVar[bool] = True
    #: plies without a clone after which the game is drawn (None: never)
    quiet_limit: ClassVar[int | None] = 100

    # -- description ---------------------------------------------------------------------------
    def describe(self) -> Phrase:
        count = len(self.options["blocks"].split())
        if not count:
            return phrase("{game} 7x7", game=self.name)
        return nphrase("{game} 7x7, {n} blocked square", "{game} 7x7, {n} blocked squares", count, game=self.name)

    def notation(self) -> Phrase:
        if self.can_pass:
            return phrase(
                "Clone by naming an empty square next to one of your pieces (c4); jump by naming one of "
                "your pieces and an empty square exactly two away (a7-c5). When you have no move, write pass."
            )
        return phrase(
            "Clone by naming an empty square next to one of your pieces (c4); jump by naming one of "
            "your pieces and an empty square exactly two away (a7-c5)."
        )

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

    def _hint(self, pos: Position) -> Phrase | str:
        moves = self._example_moves(pos)
        if moves == [PASS]:
            return phrase("You have no move now: write pass.")
        clone = next((str(m) for m in moves if m.is_clone), None)
        jump = next((str(m) for m in moves if not m.is_clone), None)
        if clone and jump:
            return phrase("Legal now, e.g. {clone} (clone) or {jump} (jump).", clone=clone, jump=jump)
        if clone:
            return phrase("Legal now, e.g. {clone} (clone).", clone=clone)
        if jump:
            return phrase("Legal now, e.g. {jump} (jump).", jump=jump)
        return ""

    def format(self, pos: Position, move: Move) -> str:
        return str(move)

    def parse(self, pos: Position, text: str) -> Move:
        said = text.strip() if len(text.strip()) <= 40 else text.strip()[:37] + "..."
        if self.outcome(pos).over:
            raise IllegalMove(
                phrase('"{text}" cannot be played: the game is over.', text=said), code="move.game_over"
            )
        clean = re.sub(r"^(?:clone|jump|move)\s+", "", said.lower()).rstrip(".!")
        if clean in ("pass", "0000"):
            return self._parse_pass(pos, said)
        found = re.fullmatch(
            r"([a-z])\s*(\d{1,2})(?:\s*(?:[-\u2013\u2014,]|to)?\s*([a-z])\s*(\d{1,2}))?", clean
        )
        if not found:
            raise InvalidMove(
                phrase(
                    '"{text}" is not a move: write the square to clone to, like c4, or a jump from one '
                    "square to another, like a7-c5.",
                    text=said,
                ),
                code="move.not_notation",
                hint=self._hint(pos),
            )
        names = [f + r for f, r in (found.group(1, 2), found.group(3, 4)) if f]
        for name in names:
            if name not in _SQUARE_INDEX:
                raise IllegalMove(
                    phrase(
                        '"{text}": {square} is off the board; files run from a to g and ranks from 1 to 7.',
                        text=said, square=name,
                    ),
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
                phrase(
                    '"{text}": there is no passing in {game}; you must move while you can, '
                    "and the game ends when you cannot.",
                    text=said, game=self.name,
                ),
                code="move.no_passing",
                hint=self._hint(pos),
            )
        count = len(self._moves(pos))
        if count:
            raise IllegalMove(
                nphrase(
                    '"{text}": you may pass only when you have no move, and you have {n}.',
                    '"{text}": you may pass only when you have no move, and you have {n}.',
                    count, text=said,
                ),
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
                phrase('"{text}": {square} is a blocked square.', **params),
                code="move.blocked", hint=self._hint(pos),
            )
        if (pos.x | pos.o) & bit:
            raise IllegalMove(
                phrase('"{text}": {square} is occupied.', **params), code="move.occupied", hint=self._hint(pos)
            )

    def _parse_clone(self, pos: Position, said: str, dst: int) -> Move:
        self._check_destination(pos, said, dst)
        me, _ = pos.sides()
        if not NEIGHBOURS[dst] & me:
            into = [Move(src, dst) for src in _squares(JUMPS[dst] & me)]
            hint = phrase("A jump can reach it: {jumps}.", jumps=[str(m) for m in into]) if into else self._hint(pos)
            raise IllegalMove(
                phrase(
                    '"{text}": no piece of yours ({mark}) is next to {square}, so you cannot clone there.',
                    text=said, mark=self.sides[pos.turn], square=SQUARE_NAMES[dst],
                ),
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
                phrase('"{text}" names the same square twice.', text=said),
                code="move.same_square", params={"text": said, "square": name}, hint=self._hint(pos),
            )
        if not me >> src & 1:
            if them >> src & 1:
                code = "move.source_theirs"
                problem = phrase(
                    '"{text}": {square} holds an {other} piece, not one of yours ({mark}).',
                    text=said, square=name, other=self.sides[1 - pos.turn], mark=side,
                )
            elif pos.gaps >> src & 1:
                code = "move.source_blocked"
                problem = phrase('"{text}": {square} is a blocked square.', text=said, square=name)
            else:
                code = "move.source_empty"
                problem = phrase('"{text}": there is no piece on {square}.', text=said, square=name)
            raise IllegalMove(
                problem, code=code, params={"text": said, "square": name, "side": pos.turn}, hint=self._hint(pos),
            )
        jumps = [Move(src, d) for d in _squares(JUMPS[src] & pos.empty)]
        from_here = (
            phrase("Jumps from {square} that work now: {jumps}.", square=name, jumps=[str(m) for m in jumps])
            if jumps else ""
        )
        distance = _distance(src, dst)
        if distance > 2:
            raise IllegalMove(
                phrase('"{text}" is {distance} squares away; a jump goes exactly 2.', text=said, distance=distance),
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
                raise IllegalMove(phrase("There is no passing in {game}.", game=self.name), code="move.no_passing")
            after_me, after_them, halfmove = me, them, pos.halfmove + 1
        else:
            bit = 1 << move.dst
            if not pos.empty & bit:
                raise IllegalMove(
                    phrase("{square} is not empty.", square=SQUARE_NAMES[move.dst]), code="move.occupied"
                )
            if move.src is not None and not me >> move.src & 1:
                raise IllegalMove(
                    phrase("There is no piece of yours on {square}.", square=SQUARE_NAMES[move.src]),
                    code="move.source_empty",
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
    def render(
        self,
        pos: Position,
        names: tuple[str, str] | None = None,
        finished: bool = False,
        *,
        say: Callable[[Phrase], str] = str,
    ) -> str:
        last = pos.last
        marked = last.dst if last is not None else None

        def cell(file: int, rank: int) -> str:
            sq = rank * SIZE + file
            bit = 1 << sq
            char = "x" if pos.x & bit else "o" if pos.o & bit else "#" if pos.gaps & bit else "."
            return char.upper() if sq == marked else char

        lines = render_grid(list(FILES), SIZE, cell, label_width=3)
        legend = self._legend(pos, names, say)
        if not fits_beside(lines, legend, 6):  # a translated legend too wide to stand beside
            return "\n".join(below(lines, legend))
        return "\n".join(beside(lines, legend, 2 + min(3, SIZE - len(legend)), 6))

    def _legend(self, pos: Position, names: tuple[str, str] | None, say: Callable[[Phrase], str] = str) -> list[str]:
        shown = [n.strip()[:16] for n in names] if names else ["", ""]
        widest = max(width(n) for n in shown)
        result = self.outcome(pos)
        lines = []
        for side in (0, 1):
            count = result.scores[side]
            label = f"{ljust(shown[side], widest)}  " if widest else ""
            if result.credited[side]:
                pieces = nphrase(
                    "{n} piece + {credited} credited", "{n} pieces + {credited} credited", count,
                    credited=result.credited[side],
                )
            else:
                pieces = nphrase("{n} piece", "{n} pieces", count)
            lines.append(f"{self.sides[side]}  {label}{say(pieces)}")
        last = pos.last
        if last is not None:
            mover = 1 - pos.turn
            mark = self.sides[mover]
            if last.is_pass:
                said = (
                    phrase("{name} ({mark}) passed", name=shown[mover] or mark, mark=mark)
                    if names else phrase("{mark} passed", mark=mark)
                )
                lines.append(f"   {say(said)}")
            else:
                said = (
                    phrase("{name}'s last move: {move}", name=shown[mover] or mark, move=str(last))
                    if names else phrase("last move: {move}", move=str(last))
                )
                lines.append(f"{mark.upper()}  {say(said)}")
        if pos.gaps:
            lines.append("#  " + say(phrase("blocked")))
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
