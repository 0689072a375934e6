"""Myriades' pieces and notation: moves, positions, board geometry and reading a written turn.

Reading is lenient (any case, commas, extra spaces, `c3e5` or `c3 e5`, `x j10`, the words `move`,
`replace` and `place`) and checks only the form. A token the notation has no place for ("looks",
"2nd") makes the text `InvalidMove`: not a turn at all, likely conversation. A text made only of
the notation's tokens but not a complete turn (a lone square, two placements, a number with no
square, a square off the board) is an `IllegalMove`: a turn written wrongly, worth an answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from pbem_engine.common import squares
from pbem_engine.common.errors import IllegalMove, InvalidMove
from pbem_engine.common.phrases import Phrase, nphrase, phrase

WHITE, BLACK = 0, 1
#: a cell is None (empty), (side, value) for a stone, or NEUTRAL
NEUTRAL: tuple[int, int] = (-1, -1)
Cell = tuple[int, int] | None
MAX_DIGITS = 9  # the input cap on a value: absurd numbers are refused, not stored
SIDE_NAMES = ("White", "Black")
LETTERS = ("W", "b")  # different shapes, not only different case, in any fixed-width font
WIDTH = 72
ROW_BUDGET = WIDTH - 10  # a row is "rrr |" + cells + "| rr": the cells get the rest
INFINITO_SAMPLE = 6  # `sample` in Infinito draws from this many lowest free values
GAME_OVER = phrase("The game is over: the board is full.")


@dataclass(frozen=True)
class Move:
    """One turn. Squares are indices ``rank * size + file`` (a1 is 0).

    `neutralised` is a frozenset: the order in which a player names the stones does not matter.
    """

    value: int
    square: int
    step: tuple[int, int] | None = None
    neutralised: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Position:
    """The board (index ``rank * size + file``), how many turns were played, and the last one."""

    size: int
    cells: tuple[Cell, ...]
    ply: int = 0
    last: Move | None = None

    @property
    def turn(self) -> int:
        return self.ply % 2

    @property
    def full(self) -> bool:
        return None not in self.cells


@dataclass
class _Draft:
    """A turn as written, before the rules judge it (names may repeat, parts may be missing)."""

    step: tuple[int, int] | None = None
    neutralised: list[int] = field(default_factory=list)
    value: int | None = None
    square: int | None = None


# -- geometry -----------------------------------------------------------------------------
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


@cache
def _neighbours(size: int) -> tuple[frozenset[int], ...]:
    """The 8-neighbourhood of every square."""
    result = []
    for index in range(size * size):
        rank, file = divmod(index, size)
        result.append(
            frozenset(
                (rank + dr) * size + file + df
                for df, dr in DIRECTIONS
                if 0 <= file + df < size and 0 <= rank + dr < size
            )
        )
    return tuple(result)


@cache
def _rays(size: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For every square, the squares along each of the 8 queen lines, nearest first."""
    result = []
    for index in range(size * size):
        rank, file = divmod(index, size)
        lines = []
        for df, dr in DIRECTIONS:
            line = []
            f, r = file + df, rank + dr
            while 0 <= f < size and 0 <= r < size:
                line.append(r * size + f)
                f, r = f + df, r + dr
            lines.append(tuple(line))
        result.append(tuple(lines))
    return tuple(result)


def square_name(index: int, size: int) -> str:
    """``c3`` for an index: file letter, then rank from 1."""
    rank, file = divmod(index, size)
    return squares.square_name(file, rank)


def _square_index(text: str, size: int) -> int:
    found = squares.point(text, size)
    if found is None:
        last = square_name(size * size - 1, size)
        raise IllegalMove(
            phrase('"{square}" is not on the {size}x{size} board; squares run from a1 to {last}.',
                   square=text, size=size, last=last),
            code="move.off_board", params={"square": text, "size": size},
        )
    return found[1] * size + found[0]


def _file_rank(index: int, size: int) -> tuple[int, int]:
    rank, file = divmod(index, size)
    return file, rank


def _triggers(cells: Sequence[Cell], size: int, origin: int, target: int) -> list[int]:
    """The enemy stones that the stone now on `target` (come from `origin`) makes you neutralise for:
    next to the target, strictly lower, and not already next to the origin. Highest value first."""
    stone = cells[target]
    assert stone is not None
    near = _neighbours(size)
    found = [
        j for j in near[target]
        if (c := cells[j]) is not None and c[0] == 1 - stone[0] and c[1] < stone[1] and j not in near[origin]
    ]
    return sorted(found, key=lambda j: (-cells[j][1], j))  # type: ignore[index]


def _queen_targets(cells: Sequence[Cell], size: int, origin: int) -> list[int]:
    targets = []
    for line in _rays(size)[origin]:
        for square in line:
            if cells[square] is not None:
                break
            targets.append(square)
    return targets


# -- reading ------------------------------------------------------------------------------
_SQ = r"[a-z]\d{1,2}"
_TOKEN = re.compile(
    rf"(?P<move>(?P<a>{_SQ})-?(?P<b>{_SQ}))|x(?P<neutral>{_SQ})|(?P<place>\d+)@(?P<at>{_SQ})"
    rf"|(?P<square>{_SQ})|(?P<number>\d+)|(?P<word>move|replace|neutralise|neutralize|place)"
)

_KINDS = ("move", "neutral", "place", "square", "number", "word")


def _normalise(text: str) -> str:
    text = text.lower().replace("\u2013", "-").replace("\u2014", "-")
    text = re.sub(r"[,;.]", " ", text)
    text = re.sub(r"\s+at\s+", "@", text)
    text = re.sub(r"\s*([-@])\s*", r"\1", text)
    return re.sub(r"\bx\s+(?=[a-z]\d)", "x", text).strip()


def _value(digits: str) -> int:
    if len(digits.lstrip("0")) > MAX_DIGITS:
        raise IllegalMove(
            phrase('"{value}" is too big: a stone value has at most {digits} digits.', value=digits, digits=MAX_DIGITS),
            code="move.value_too_long",
        )
    return int(digits)


def _read(text: str, size: int) -> _Draft:
    """The parts of a turn as written; only the form is checked here, not the rules."""
    draft = _Draft()
    move_squares: list[int] = []
    context = ""
    tokens = [(token, _TOKEN.fullmatch(token)) for token in _normalise(text).split()]
    for token, found in tokens:  # first the form alone: a word of no notation makes it no turn at all
        if found is None:
            raise InvalidMove(
                phrase('I cannot read "{token}" in "{text}".', token=token, text=text.strip()),
                code="move.not_notation",
            )
    for token, found in tokens:
        assert found is not None
        kind = next(k for k in _KINDS if found.group(k) is not None)
        if kind == "word":
            context = {"neutralise": "replace", "neutralize": "replace"}.get(token, token)
        elif kind == "move":
            if move_squares:
                raise IllegalMove(
                    phrase('"{text}" has two moves; a turn moves at most one stone.', text=text.strip()),
                    code="move.two_moves",
                )
            move_squares = [_square_index(found.group("a"), size), _square_index(found.group("b"), size)]
            context = ""
        elif kind == "neutral":
            draft.neutralised.append(_square_index(found.group("neutral"), size))
            context = "replace"
        elif kind in ("place", "number"):
            if draft.value is not None:
                raise IllegalMove(
                    phrase('"{text}" places two stones; a turn places exactly one.', text=text.strip()),
                    code="move.two_placements",
                )
            draft.value = _value(found.group(kind))
            if kind == "place":
                draft.square = _square_index(found.group("at"), size)
                context = ""
            else:
                context = "place"
        elif context == "replace":
            draft.neutralised.append(_square_index(token, size))
        elif context == "place":
            if draft.value is None:
                raise IllegalMove(
                    phrase('"{square}": say which value to place there, e.g. 17@{square}.', square=token),
                    code="move.no_value",
                )
            if draft.square is not None:
                raise IllegalMove(
                    phrase('"{text}" places two stones; a turn places exactly one.', text=text.strip()),
                    code="move.two_placements",
                )
            draft.square = _square_index(token, size)
        else:
            if len(move_squares) == 2:
                a, b = (square_name(i, size) for i in move_squares)
                raise IllegalMove(
                    phrase(
                        '"{text}": after the move {a}-{b}, what is "{square}"? Write x{square} to '
                        "neutralise it or 17@{square} to place a stone there.",
                        text=text.strip(), a=a, b=b, square=token,
                    ),
                    code="move.stray_square", params={"text": text.strip(), "step": [a, b], "square": token},
                )
            move_squares.append(_square_index(token, size))
    if len(move_squares) == 1:
        name = square_name(move_squares[0], size)
        other = name[0] + ("2" if name[1:] == "1" else "1")
        if draft.value is None and draft.square is None:  # a square alone: most likely a placement meant
            raise IllegalMove(
                phrase('"{square}" alone is no turn: a turn places a stone of your supply, e.g. 17@{square}, '
                       "after moving one of yours first if you wish, e.g. {example} 17@{square}.",
                       square=name, example=f"{name}-{other}"),
                code="move.one_square",
            )
        raise IllegalMove(
            phrase('"{square}": a move needs a start and an end square, e.g. {example}.',
                   square=name, example=f"{name}-{other}"),
            code="move.one_square",
        )
    if move_squares:
        draft.step = (move_squares[0], move_squares[1])
    if draft.value is None and draft.square is None:
        if not text.strip():
            raise InvalidMove(
                phrase("The turn is empty: every turn ends by placing a stone, e.g. 17@d4."), code="move.empty"
            )
        raise IllegalMove(
            phrase('"{text}" has no placement: every turn ends by placing a stone, e.g. 17@d4.', text=text.strip()),
            code="move.no_placement",
        )
    if draft.square is None:
        raise IllegalMove(
            phrase('"{value}": say where to place it, e.g. {example}.', value=str(draft.value),
                   example=f"{draft.value}@d4"),
            code="move.no_square", params={"value": draft.value},
        )
    return draft


# -- small text helpers -------------------------------------------------------------------
def _and_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _stones(count: int) -> str:
    return f"{count} stone" if count == 1 else f"{count} stones"


def stones(count: int) -> Phrase:
    """"1 stone", "3 stones": a count of stones as its own phrase, for a field of a sentence."""
    return nphrase("{n} stone", "{n} stones", count)


def _runs(values: Iterable[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for v in sorted(values):
        if runs and runs[-1][1] == v - 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    return runs


def _spans(runs: Iterable[tuple[int, int]]) -> str:
    return ", ".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in runs)


def free_values(taken: Iterable[int], max_value: int | None, count: int | None = None) -> list[int]:
    """The lowest values not in `taken`: all up to `max_value`, or `count` of them (Infinito)."""
    taken = set(taken)
    top = max_value if max_value is not None else len(taken) + (count or 1) - 1
    free = [v for v in range(top + 1) if v not in taken]
    return free if count is None else free[:count]


def supply_text(on_board: Iterable[int], max_value: int | None) -> Phrase | str:
    """A side's supply in words, given the values it has on the board (see `Myriades.supply_text`):
    a phrase, or the bare spans ("0-2, 4, 6-49"), which are notation, not words."""
    on_board = list(on_board)
    taken = _runs(on_board)
    if max_value is not None:
        free = _runs(free_values(on_board, max_value))
        if taken and len(taken) < len(free):
            return phrase("0-{max} except {values}", max=str(max_value), values=_spans(taken))
        return _spans(free) or phrase("none")
    if not taken:
        return phrase("every value from 0 up")
    gaps = [(hi + 1, lo - 1) for (_, hi), (lo, _) in zip(taken, taken[1:], strict=False)]
    if taken[0][0] > 0:
        gaps.insert(0, (0, taken[0][0] - 1))
    if len(taken) <= len(gaps):
        return phrase("every value except {values}", values=_spans(taken))
    low = str(taken[-1][1] + 1)  # written like the spans around it, as notation
    if gaps:
        return phrase("{values}, from {low} up", values=_spans(gaps), low=low)
    return phrase("from {low} up", low=low)
