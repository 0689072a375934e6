"""Ataxx's board: bitboards, moves, the blocks option, the community FEN and perft.

The board is a 49-bit integer per side, bit `rank * 7 + file` (a1 = bit 0), so that move generation
is a few shifts and masks; `perft` uses it directly. Positions use the Ataxx community's FEN
(`x5o/7/7/7/7/7/o5x x 0 1`), so that move counts (perft), positions and exported moves
(`format_uai`) agree with libataxx and the UAI engines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from pbem_engine.common import squares
from pbem_engine.common.errors import BadOption, EngineError
from pbem_engine.common.phrases import nphrase, phrase

if TYPE_CHECKING:
    from pbem_engine.ataxx.game import Ataxx

SIZE = 7
FILES = "".join(squares.columns(SIZE))
FULL = (1 << SIZE * SIZE) - 1
_FILE_A = sum(1 << (rank * SIZE) for rank in range(SIZE))
_NOT_A = FULL ^ _FILE_A
_NOT_G = FULL ^ (_FILE_A << (SIZE - 1))

SQUARE_NAMES = tuple(squares.square_name(sq % SIZE, sq // SIZE) for sq in range(SIZE * SIZE))
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
    raise EngineError(phrase("'{text}' is not an Ataxx move.", text=text), code="position.bad_move")


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
    layouts = [name for name in LAYOUTS if name != "centre"]
    squares = set()
    for token in tokens:
        if token not in _SQUARE_INDEX:
            if len(tokens) == 1 and not re.fullmatch(r"[a-z]\d+", token):
                raise BadOption(
                    phrase(
                        "blocks={value} is neither a layout nor a list of squares. The layouts are: {layouts}; "
                        'or list the squares, e.g. blocks="c3 e3 c5 e5".',
                        value=token, layouts=layouts,
                    ),
                    code="option.blocks.unknown_layout",
                )
            raise BadOption(
                phrase('blocks: "{square}" is not a square of the 7x7 board; squares run from a1 to g7.', square=token),
                code="option.blocks.off_board",
            )
        sq = _SQUARE_INDEX[token]
        if (_START_X | _START_O) >> sq & 1:
            raise BadOption(
                phrase("blocks: {square} is a start square and must stay free (a1, a7, g1, g7).", square=token),
                code="option.blocks.start_square",
            )
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
        raise BadOption(
            phrase('"{fen}" is not an Ataxx FEN; the start is written x5o/7/7/7/7/7/o5x x 0 1.', fen=fen),
            code="fen.fields",
        )
    rows = fields[0].split("/")
    if len(rows) != SIZE:
        raise BadOption(
            nphrase(
                '"{fen}" has {n} rank; an Ataxx FEN has 7, separated by "/".',
                '"{fen}" has {n} ranks; an Ataxx FEN has 7, separated by "/".',
                len(rows), fen=fen,
            ),
            code="fen.ranks",
            params={"fen": fen, "ranks": len(rows)},
        )
    x = o = gaps = 0
    for index, row in enumerate(rows):
        rank = SIZE - 1 - index
        file = 0
        for char in row:
            if char in "1234567":
                file += int(char)
                continue
            if char not in "xo-" or file >= SIZE:
                if char not in "xo-":
                    problem = phrase(
                        '"{fen}": rank {rank} ("{row}") is wrong: "{char}" is not x, o, - or a digit from 1 to 7.',
                        fen=fen, rank=rank + 1, row=row, char=char,
                    )
                else:
                    problem = phrase(
                        '"{fen}": rank {rank} ("{row}") is wrong: it is too long.', fen=fen, rank=rank + 1, row=row
                    )
                raise BadOption(
                    problem,
                    code="fen.bad_char" if char not in "xo-" else "fen.rank_too_long",
                    params={"fen": fen, "rank": rank + 1, "row": row, "char": char},
                )
            bit = 1 << (rank * SIZE + file)
            if char == "x":
                x |= bit
            elif char == "o":
                o |= bit
            else:
                gaps |= bit
            file += 1
        if file != SIZE:
            raise BadOption(
                nphrase(
                    '"{fen}": rank {rank} ("{row}") covers {n} square instead of 7.',
                    '"{fen}": rank {rank} ("{row}") covers {n} squares instead of 7.',
                    file, fen=fen, rank=rank + 1, row=row,
                ),
                code="fen.rank_short",
                params={"fen": fen, "rank": rank + 1, "row": row, "squares": file},
            )
    side = fields[1] if len(fields) > 1 else "x"
    if side not in ("x", "o"):
        raise BadOption(
            phrase('"{fen}": the side to move must be x or o, not "{side}".', fen=fen, side=side),
            code="fen.side",
        )
    counters = fields[2:] + ["0", "1"][len(fields[2:]) :]
    if not all(c.isdigit() for c in counters) or int(counters[1]) < 1:
        raise BadOption(
            phrase(
                '"{fen}": the halfmove counter and the move number must be whole numbers, '
                "the move number at least 1 (e.g. 0 1).",
                fen=fen,
            ),
            code="fen.counters",
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


