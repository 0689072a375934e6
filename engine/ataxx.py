"""Ataxx on a 7x7 board, in three variants that differ only in how the game ends.

Notation: squares are a file letter a-g and a rank 1-7, `a1` at the bottom left. A **clone** is
written as its destination alone (`c4`): the empty square next to one of your pieces where a new
piece appears. A **jump** is written source then destination (`a7-c5`), the destination exactly two
squares away (king distance, knight-shaped offsets included). In `ataxx` a side with no move writes
`pass`. Input is lenient and case-insensitive: `C4`, `a7c5` (the UAI form), `a7 c5`, `a7,c5` and
`0000` (UAI's pass) are read too; the canonical texts are `c4`, `a7-c5` and `pass`.

Positions use the Ataxx community's FEN (`x5o/7/7/7/7/7/o5x x 0 1`), so that move counts (perft),
positions and exported moves (`format_uai`) agree with libataxx and the UAI engines.

The board is a 49-bit integer per side, bit `rank * 7 + file` (a1 = bit 0), so that move generation
is a few shifts and masks; `perft` uses it directly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from engine.base import BadOption, EngineError, IllegalMove, Option, Outcome, Rules

SIZE = 7
FILES = "abcdefg"
FULL = (1 << SIZE * SIZE) - 1
_FILE_A = sum(1 << (rank * SIZE) for rank in range(SIZE))
_NOT_A = FULL ^ _FILE_A
_NOT_G = FULL ^ (_FILE_A << (SIZE - 1))

SQUARE_NAMES = tuple(f"{FILES[sq % SIZE]}{sq // SIZE + 1}" for sq in range(SIZE * SIZE))
_SQUARE_INDEX = {name: sq for sq, name in enumerate(SQUARE_NAMES)}


def _grow(bb: int) -> int:
    """The squares at king distance <= 1 of any square in `bb` (itself included)."""
    row = bb | ((bb << 1) & _NOT_A) | ((bb >> 1) & _NOT_G)
    return (row | (row << SIZE) | (row >> SIZE)) & FULL


#: per square: the 8 (or fewer) squares at distance 1, where a clone lands and pieces convert
NEIGHBOURS = tuple(_grow(1 << sq) ^ (1 << sq) for sq in range(SIZE * SIZE))
#: per square: the 16 (or fewer) squares at distance exactly 2, where a jump lands
JUMPS = tuple(_grow(_grow(1 << sq)) ^ _grow(1 << sq) for sq in range(SIZE * SIZE))

_START_X = (1 << _SQUARE_INDEX["a7"]) | (1 << _SQUARE_INDEX["g1"])
_START_O = (1 << _SQUARE_INDEX["a1"]) | (1 << _SQUARE_INDEX["g7"])


def _squares(bb: int) -> list[int]:
    """The square indices set in `bb`, lowest first."""
    found = []
    while bb:
        low = bb & -bb
        found.append(low.bit_length() - 1)
        bb ^= low
    return found


def _distance(a: int, b: int) -> int:
    return max(abs(a % SIZE - b % SIZE), abs(a // SIZE - b // SIZE))


class Move(NamedTuple):
    """A clone (`src` None), a jump (`src` and `dst`), or the pass (both None); squares are indices."""

    src: int | None
    dst: int | None

    @property
    def is_pass(self) -> bool:
        return self.dst is None

    @property
    def is_clone(self) -> bool:
        return self.src is None and self.dst is not None

    def __str__(self) -> str:
        if self.dst is None:
            return "pass"
        if self.src is None:
            return SQUARE_NAMES[self.dst]
        return f"{SQUARE_NAMES[self.src]}-{SQUARE_NAMES[self.dst]}"


PASS = Move(None, None)


def format_uai(move: Move) -> str:
    """The move as UAI engines and libataxx write it: `c4`, `a7c5`, `0000`."""
    if move.dst is None:
        return "0000"
    if move.src is None:
        return SQUARE_NAMES[move.dst]
    return SQUARE_NAMES[move.src] + SQUARE_NAMES[move.dst]


def _move_from_text(text: str) -> Move:
    """A canonical or UAI move text back to a Move, without any legality check (for `load`)."""
    text = text.strip().lower()
    if text in ("pass", "0000"):
        return PASS
    names = re.findall(r"[a-g][1-7]", text)
    if len(names) == 1:
        return Move(None, _SQUARE_INDEX[names[0]])
    if len(names) == 2:
        return Move(_SQUARE_INDEX[names[0]], _SQUARE_INDEX[names[1]])
    raise EngineError(f"{text!r} is not an Ataxx move.")


@dataclass(frozen=True, slots=True)
class Position:
    """An Ataxx position: both sides' pieces and the gaps as bitboards, the FEN counters, the last move."""

    x: int
    o: int
    gaps: int = 0
    turn: int = 0  # 0: x to move, 1: o to move
    halfmove: int = 0  # plies since the last clone
    fullmove: int = 1  # FEN move number, +1 after o's move
    last: Move | None = None

    @property
    def empty(self) -> int:
        return FULL & ~(self.x | self.o | self.gaps)

    def sides(self) -> tuple[int, int]:
        """(pieces of the side to move, pieces of the other side)."""
        return (self.x, self.o) if self.turn == 0 else (self.o, self.x)


# -- the blocks option ---------------------------------------------------------------------------

#: named gap layouts; square, diamond and quincunx are the three libataxx perft positions with gaps
LAYOUTS: dict[str, str] = {
    "none": "",
    "center": "d4",
    "centre": "d4",
    "cross": "d3 c4 d4 e4 d5",
    "square": "c3 e3 c5 e5",
    "diamond": "d3 c4 e4 d5",
    "quincunx": "c3 e3 d4 c5 e5",
}


def _blocks_option(value: Any) -> str:
    """Read the `blocks` option into its canonical text: squares in board order ("c3 e3 c5 e5")."""
    if value is None:
        return ""
    if isinstance(value, list | tuple | set | frozenset):
        tokens = [str(v).strip().lower() for v in value]
    else:
        text = str(value).strip().lower()
        if text in LAYOUTS:
            text = LAYOUTS[text]
        tokens = [t for t in re.split(r"[\s,;]+", text) if t]
    layouts = ", ".join(name for name in LAYOUTS if name != "centre")
    squares = set()
    for token in tokens:
        if token not in _SQUARE_INDEX:
            if len(tokens) == 1 and not re.fullmatch(r"[a-z]\d+", token):
                raise BadOption(
                    f"blocks={token} is neither a layout nor a list of squares. The layouts are: {layouts}; "
                    'or list the squares, e.g. blocks="c3 e3 c5 e5".'
                )
            raise BadOption(f'blocks: "{token}" is not a square of the 7x7 board; squares run from a1 to g7.')
        sq = _SQUARE_INDEX[token]
        if (_START_X | _START_O) >> sq & 1:
            raise BadOption(f"blocks: {token} is a start square and must stay free (a1, a7, g1, g7).")
        squares.add(sq)
    return " ".join(SQUARE_NAMES[sq] for sq in sorted(squares))


def _mask(names: str) -> int:
    return sum(1 << _SQUARE_INDEX[name] for name in names.split())


# -- FEN -----------------------------------------------------------------------------------------


def to_fen(pos: Position) -> str:
    """The community FEN of a position: `x5o/7/7/7/7/7/o5x x 0 1`."""
    ranks = []
    for rank in range(SIZE - 1, -1, -1):
        text, run = "", 0
        for file in range(SIZE):
            bit = 1 << (rank * SIZE + file)
            char = "x" if pos.x & bit else "o" if pos.o & bit else "-" if pos.gaps & bit else ""
            if not char:
                run += 1
                continue
            if run:
                text, run = text + str(run), 0
            text += char
        ranks.append(text + (str(run) if run else ""))
    return f"{'/'.join(ranks)} {'xo'[pos.turn]} {pos.halfmove} {pos.fullmove}"


def from_fen(fen: str) -> Position:
    """A position from the community FEN; the halfmove and move numbers may be left out."""
    fields = fen.strip().lower().split()
    if not 1 <= len(fields) <= 4:
        raise BadOption(f'"{fen}" is not an Ataxx FEN; the start is written x5o/7/7/7/7/7/o5x x 0 1.')
    rows = fields[0].split("/")
    if len(rows) != SIZE:
        raise BadOption(f'"{fen}" has {len(rows)} ranks; an Ataxx FEN has 7, separated by "/".')
    x = o = gaps = 0
    for index, row in enumerate(rows):
        rank = SIZE - 1 - index
        file = 0
        for char in row:
            if char in "1234567":
                file += int(char)
                continue
            if char not in "xo-" or file >= SIZE:
                problem = (
                    f'"{char}" is not x, o, - or a digit from 1 to 7'
                    if char not in "xo-"
                    else "it is too long"
                )
                raise BadOption(f'"{fen}": rank {rank + 1} ("{row}") is wrong: {problem}.')
            bit = 1 << (rank * SIZE + file)
            if char == "x":
                x |= bit
            elif char == "o":
                o |= bit
            else:
                gaps |= bit
            file += 1
        if file != SIZE:
            raise BadOption(f'"{fen}": rank {rank + 1} ("{row}") covers {file} squares instead of 7.')
    side = fields[1] if len(fields) > 1 else "x"
    if side not in ("x", "o"):
        raise BadOption(f'"{fen}": the side to move must be x or o, not "{side}".')
    counters = fields[2:] + ["0", "1"][len(fields[2:]) :]
    if not all(c.isdigit() for c in counters) or int(counters[1]) < 1:
        raise BadOption(
            f'"{fen}": the halfmove counter and the move number must be whole numbers, '
            "the move number at least 1 (e.g. 0 1)."
        )
    return Position(x, o, gaps, "xo".index(side), int(counters[0]), int(counters[1]))


# -- perft ---------------------------------------------------------------------------------------


def perft(rules: Ataxx, pos: Position, depth: int, bulk: bool = True) -> int:
    """The number of move sequences of length `depth` from `pos`, the community's move-count check.

    With `bulk`, the last ply is counted without being played. Game-over positions have no moves;
    in `ataxx` a side without a move in a running game has exactly one (the pass).
    """
    if depth <= 0:
        return 1
    me, them = pos.sides()
    limit = rules.quiet_limit if rules.quiet_limit is not None else 1 << 62
    return _perft(me, them, pos.empty, depth, pos.halfmove, rules.can_pass, limit, bulk)


def _perft(
    me: int, them: int, empty: int, depth: int, halfmove: int, passes: bool, limit: int, bulk: bool
) -> int:
    if not depth:
        return 1
    if passes and (not me or not them or halfmove >= limit):
        return 0
    clones = _grow(me) & empty
    if depth == 1 and bulk:
        count = clones.bit_count()
        sources = me
        while sources:
            low = sources & -sources
            count += (JUMPS[low.bit_length() - 1] & empty).bit_count()
            sources ^= low
        if count == 0 and passes and _grow(_grow(them)) & empty:
            return 1
        return count
    depth -= 1
    total = 0
    moved = bool(clones)
    while clones:
        low = clones & -clones
        clones ^= low
        captured = NEIGHBOURS[low.bit_length() - 1] & them
        total += _perft(them ^ captured, me | low | captured, empty ^ low, depth, 0, passes, limit, bulk)
    sources = me
    while sources:
        src = sources & -sources
        sources ^= src
        targets = JUMPS[src.bit_length() - 1] & empty
        moved = moved or bool(targets)
        while targets:
            low = targets & -targets
            targets ^= low
            captured = NEIGHBOURS[low.bit_length() - 1] & them
            total += _perft(
                them ^ captured,
                me ^ src ^ low | captured,
                empty ^ src ^ low,
                depth,
                halfmove + 1,
                passes,
                limit,
                bulk,
            )
    if not moved and passes and _grow(_grow(them)) & empty:
        return _perft(them, me, empty, depth, halfmove + 1, passes, limit, bulk)
    return total


# -- the rules -----------------------------------------------------------------------------------


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
            raise IllegalMove(f'"{said}" cannot be played: the game is over.')
        clean = re.sub(r"^(?:clone|jump|move)\s+", "", said.lower()).rstrip(".!")
        if clean in ("pass", "0000"):
            return self._parse_pass(pos, said)
        found = re.fullmatch(
            r"([a-z])\s*(\d{1,2})(?:\s*(?:[-\u2013\u2014,]|to)?\s*([a-z])\s*(\d{1,2}))?", clean
        )
        if not found:
            raise IllegalMove(
                f'"{said}" is not a move: write the square to clone to, like c4, or a jump from one '
                "square to another, like a7-c5.",
                self._hint(pos),
            )
        names = [f + r for f, r in (found.group(1, 2), found.group(3, 4)) if f]
        for name in names:
            if name not in _SQUARE_INDEX:
                raise IllegalMove(
                    f'"{said}": {name} is off the board; files run from a to g and ranks from 1 to 7.',
                    self._hint(pos),
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
                self._hint(pos),
            )
        count = len(self._moves(pos))
        if count:
            raise IllegalMove(
                f'"{said}": you may pass only when you have no move, and you have {count}.', self._hint(pos)
            )
        return PASS

    def _check_destination(self, pos: Position, said: str, dst: int) -> None:
        bit = 1 << dst
        if pos.gaps & bit:
            raise IllegalMove(f'"{said}": {SQUARE_NAMES[dst]} is a blocked square.', self._hint(pos))
        if (pos.x | pos.o) & bit:
            raise IllegalMove(f'"{said}": {SQUARE_NAMES[dst]} is occupied.', self._hint(pos))

    def _parse_clone(self, pos: Position, said: str, dst: int) -> Move:
        self._check_destination(pos, said, dst)
        me, _ = pos.sides()
        if not NEIGHBOURS[dst] & me:
            into = [Move(src, dst) for src in _squares(JUMPS[dst] & me)]
            hint = f"A jump can reach it: {', '.join(map(str, into))}." if into else self._hint(pos)
            raise IllegalMove(
                f'"{said}": no piece of yours ({self.sides[pos.turn]}) is next to {SQUARE_NAMES[dst]}, '
                "so you cannot clone there.",
                hint,
            )
        return Move(None, dst)

    def _parse_jump(self, pos: Position, said: str, src: int, dst: int) -> Move:
        me, them = pos.sides()
        name = SQUARE_NAMES[src]
        side = self.sides[pos.turn]
        if src == dst:
            raise IllegalMove(f'"{said}" names the same square twice.', self._hint(pos))
        if not me >> src & 1:
            if them >> src & 1:
                problem = f"{name} holds an {self.sides[1 - pos.turn]} piece, not one of yours ({side})"
            elif pos.gaps >> src & 1:
                problem = f"{name} is a blocked square"
            else:
                problem = f"there is no piece on {name}"
            raise IllegalMove(f'"{said}": {problem}.', self._hint(pos))
        jumps = [Move(src, d) for d in _squares(JUMPS[src] & pos.empty)]
        from_here = f"Jumps from {name} that work now: {', '.join(map(str, jumps))}." if jumps else ""
        distance = _distance(src, dst)
        if distance > 2:
            raise IllegalMove(
                f'"{said}" is {distance} squares away; a jump goes exactly 2.', from_here or self._hint(pos)
            )
        self._check_destination(pos, said, dst)
        return Move(None, dst) if distance == 1 else Move(src, dst)

    def apply(self, pos: Position, move: Move) -> Position:
        me, them = pos.sides()
        fullmove = pos.fullmove + pos.turn
        if move.dst is None:
            if not self.can_pass:
                raise IllegalMove(f"There is no passing in {self.name}.")
            after_me, after_them, halfmove = me, them, pos.halfmove + 1
        else:
            bit = 1 << move.dst
            if not pos.empty & bit:
                raise IllegalMove(f"{SQUARE_NAMES[move.dst]} is not empty.")
            if move.src is not None and not me >> move.src & 1:
                raise IllegalMove(f"There is no piece of yours on {SQUARE_NAMES[move.src]}.")
            captured = NEIGHBOURS[move.dst] & them
            after_them = them ^ captured
            if move.src is None:
                after_me, halfmove = me | bit | captured, 0
            else:
                after_me, halfmove = me ^ (1 << move.src) ^ bit | captured, pos.halfmove + 1
        x, o = (after_me, after_them) if pos.turn == 0 else (after_them, after_me)
        return Position(x, o, pos.gaps, 1 - pos.turn, halfmove, fullmove, move)

    # -- results -------------------------------------------------------------------------------
    def _decided(self, reason: str, scores: tuple[int, int], credited: tuple[int, int] = (0, 0)) -> Outcome:
        """A finished game won by the larger total of pieces and credited squares."""
        totals = (scores[0] + credited[0], scores[1] + credited[1])
        winner = None if totals[0] == totals[1] else int(totals[1] > totals[0])
        return Outcome(True, winner, reason, scores, credited)

    def _ending(self, pos: Position, scores: tuple[int, int]) -> Outcome | None:
        """The community rule: no pieces, the 100-ply draw, or nobody can ever move again."""
        for side in (0, 1):
            if not scores[side]:
                return self._decided(f"{self.sides[side]} has no pieces left", scores)
        if self.quiet_limit is not None and pos.halfmove >= self.quiet_limit:
            return Outcome(True, None, f"{self.quiet_limit} plies passed without a clone", scores)
        empty = pos.empty
        if not empty:
            return self._decided("the board is full", scores)
        if not _grow(_grow(pos.x | pos.o)) & empty:
            return self._decided("no empty square is within reach of any piece", scores)
        return None

    def outcome(self, pos: Position) -> Outcome:
        scores = (pos.x.bit_count(), pos.o.bit_count())
        return self._ending(pos, scores) or Outcome(False, None, "", scores)

    # -- presentation and storage --------------------------------------------------------------
    def render(self, pos: Position, names: tuple[str, str] | None = None) -> str:
        last = pos.last
        marked = last.dst if last is not None else None
        letters = "      " + " ".join(FILES)
        border = "    +" + "-" * (2 * SIZE + 1) + "+"
        rows = []
        for rank in range(SIZE - 1, -1, -1):
            cells = []
            for file in range(SIZE):
                sq = rank * SIZE + file
                bit = 1 << sq
                char = "x" if pos.x & bit else "o" if pos.o & bit else "#" if pos.gaps & bit else "."
                cells.append(char.upper() if sq == marked else char)
            rows.append(f"  {rank + 1} | {' '.join(cells)} | {rank + 1}")
        legend = self._legend(pos, names)
        first = min(3, SIZE - len(legend))
        for i, line in enumerate(legend):
            rows[first + i] += "      " + line
        return "\n".join([letters, border, *rows, border, letters])

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
        return rules._decided("the board is full", scores)
    me, _ = pos.sides()
    if _grow(_grow(me)) & empty:
        return None
    side, other = rules.sides[pos.turn], rules.sides[1 - pos.turn]
    reason = f"{side} has no pieces left" if not me else f"{side} cannot move"
    if not credit:
        return rules._decided(reason, scores)
    count = empty.bit_count()
    credited = (0, count) if pos.turn == 0 else (count, 0)
    squares = f"{count} empty square{'s go' if count != 1 else ' goes'}"
    return rules._decided(f"{reason}; {squares} to {other}", scores, credited)


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
