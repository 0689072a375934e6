"""Myriades and Infinito (RULES.md sections 3 and 4): numbered stones, lowest sum wins.

Notation of a turn: the optional queen move, the stones it neutralises, then the placement:
``c3-e5 xj10 xj9 17@d4`` (move c3 to e5, neutralise j10 and j9, place 17 on d4) or just ``17@d4``.
The canonical form lists neutralised squares sorted by file, then rank. Input is read leniently:
any case, commas, extra spaces, ``c3e5`` or ``c3 e5`` for the move, ``x j10`` for ``xj10``, and
the words ``move``, ``replace`` and ``place`` (``move c3 e5 replace j10 j9 place 17 d4``).

Supply: a player can never run out of stones in Myriades. Every turn fills exactly one square
(moves keep the count, neutral stones stay), so a 10x10 game lasts exactly 100 turns and each side
places 50 stones. Before a side's k-th placement it has placed k - 1 <= 49 stones, so at most 49
of its values are on the board and at least one of 0..49 is free. Only a hand-made position can
break this; then `sample` and `examples` refuse it explicitly instead of inventing a stone.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from operator import itemgetter
from typing import Any, ClassVar

from engine.base import IllegalMove, Option, Outcome, Rules, int_option

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
GAME_OVER = "The game is over: the board is full."


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
    return f"{chr(ord('a') + file)}{rank + 1}"


def _square_index(text: str, size: int) -> int:
    file, rank = ord(text[0]) - ord("a"), int(text[1:])
    if not (0 <= file < size and 1 <= rank <= size):
        last = square_name(size * size - 1, size)
        raise IllegalMove(f'"{text}" is not on the {size}x{size} board; squares run from a1 to {last}.')
    return (rank - 1) * size + file


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
        raise IllegalMove(f'"{digits}" is too big: a stone value has at most {MAX_DIGITS} digits.')
    return int(digits)


def _read(text: str, size: int) -> _Draft:
    """The parts of a turn as written; only the form is checked here, not the rules."""
    draft = _Draft()
    move_squares: list[int] = []
    context = ""
    for token in _normalise(text).split():
        found = _TOKEN.fullmatch(token)
        if not found:
            raise IllegalMove(f'I cannot read "{token}" in "{text.strip()}".')
        kind = next(k for k in _KINDS if found.group(k) is not None)
        if kind == "word":
            context = {"neutralise": "replace", "neutralize": "replace"}.get(token, token)
        elif kind == "move":
            if move_squares:
                raise IllegalMove(f'"{text.strip()}" has two moves; a turn moves at most one stone.')
            move_squares = [_square_index(found.group("a"), size), _square_index(found.group("b"), size)]
            context = ""
        elif kind == "neutral":
            draft.neutralised.append(_square_index(found.group("neutral"), size))
            context = "replace"
        elif kind in ("place", "number"):
            if draft.value is not None:
                raise IllegalMove(f'"{text.strip()}" places two stones; a turn places exactly one.')
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
                raise IllegalMove(f'"{token}": say which value to place there, e.g. 17@{token}.')
            if draft.square is not None:
                raise IllegalMove(f'"{text.strip()}" places two stones; a turn places exactly one.')
            draft.square = _square_index(token, size)
        else:
            if len(move_squares) == 2:
                a, b = (square_name(i, size) for i in move_squares)
                raise IllegalMove(
                    f'"{text.strip()}": after the move {a}-{b}, what is "{token}"? Write x{token} to '
                    f"neutralise it or 17@{token} to place a stone there."
                )
            move_squares.append(_square_index(token, size))
    if len(move_squares) == 1:
        name = square_name(move_squares[0], size)
        other = name[0] + ("2" if name[1:] == "1" else "1")
        raise IllegalMove(f'"{name}": a move needs a start and an end square, e.g. {name}-{other}.')
    if move_squares:
        draft.step = (move_squares[0], move_squares[1])
    if draft.value is None and draft.square is None:
        where = f'"{text.strip()}" has no placement' if text.strip() else "The turn is empty"
        raise IllegalMove(f"{where}: every turn ends by placing a stone, e.g. 17@d4.")
    if draft.square is None:
        raise IllegalMove(f'"{draft.value}": say where to place it, e.g. {draft.value}@d4.')
    return draft


# -- small text helpers -------------------------------------------------------------------
def _and_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _stones(count: int) -> str:
    return f"{count} stone" if count == 1 else f"{count} stones"


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


class Myriades(Rules[Position, Move]):
    """Myriades: 10x10, stones 0..49 for each side; White moves first; the lower sum wins."""

    name = "myriades"
    title = "Myriades"
    family = "myriades"
    sides = ("white", "black")
    score_unit = "sum"
    lower_wins = True
    #: the highest stone value, or None for every natural number (Infinito)
    max_value: ClassVar[int | None] = 49

    @property
    def size(self) -> int:
        return 10

    def describe(self) -> str:
        return f"{self.name} {self.size}x{self.size}"

    # -- positions ---------------------------------------------------------------------
    def start(self) -> Position:
        return Position(self.size, (None,) * (self.size * self.size))

    def turn(self, pos: Position) -> int:
        return pos.turn

    def ply(self, pos: Position) -> int:
        return pos.ply

    def last_move(self, pos: Position) -> Move | None:
        return pos.last

    # -- the supply --------------------------------------------------------------------
    def on_board(self, pos: Position, side: int) -> dict[int, int]:
        """Value -> square of `side`'s stones on the board."""
        return {c[1]: i for i, c in enumerate(pos.cells) if c is not None and c[0] == side}

    def _free(self, taken: Iterable[int], count: int | None = None) -> list[int]:
        """The lowest free values (all of them in Myriades when `count` is None)."""
        taken = set(taken)
        top = self.max_value if self.max_value is not None else len(taken) + (count or 1) - 1
        free = [v for v in range(top + 1) if v not in taken]
        return free if count is None else free[:count]

    def supply_text(self, pos: Position, side: int) -> str:
        """The supply in ranges, "0-2, 4, 6-49", or by its exceptions when they are fewer:
        "0-49 except 3, 7", "every value except 3, 7"; Infinito's open end is "from 12 up"."""
        taken = _runs(self.on_board(pos, side))
        if self.max_value is not None:
            free = _runs(self._free(self.on_board(pos, side)))
            if taken and len(taken) < len(free):
                return f"0-{self.max_value} except {_spans(taken)}"
            return _spans(free) or "none"
        if not taken:
            return "every value from 0 up"
        gaps = [(hi + 1, lo - 1) for (_, hi), (lo, _) in zip(taken, taken[1:], strict=False)]
        if taken[0][0] > 0:
            gaps.insert(0, (0, taken[0][0] - 1))
        if len(taken) <= len(gaps):
            return f"every value except {_spans(taken)}"
        return ", ".join(filter(None, (_spans(gaps), f"from {taken[-1][1] + 1} up")))

    # -- moves -------------------------------------------------------------------------
    def parse(self, pos: Position, text: str) -> Move:
        try:
            if pos.full:
                raise IllegalMove(GAME_OVER)
            return self._resolve(pos, _read(text, pos.size))[0]
        except IllegalMove as error:
            if error.hint or pos.full:
                raise
            raise IllegalMove(error.message, self._hint(pos)) from None

    def format(self, pos: Position, move: Move) -> str:
        n = pos.size
        parts = []
        if move.step:
            parts.append(f"{square_name(move.step[0], n)}-{square_name(move.step[1], n)}")
        for square in sorted(move.neutralised, key=lambda i: _file_rank(i, n)):
            parts.append(f"x{square_name(square, n)}")
        parts.append(f"{move.value}@{square_name(move.square, n)}")
        return " ".join(parts)

    def notation(self) -> str:
        return (
            "An optional queen move of one of your stones, the stones it makes you neutralise, then "
            "the placement of a value from your supply: c3-e5 xj10 xj9 17@d4, or just 17@d4."
        )

    def apply(self, pos: Position, move: Move) -> Position:
        if pos.full:
            raise IllegalMove(GAME_OVER)
        draft = _Draft(move.step, sorted(move.neutralised), move.value, move.square)
        checked, cells = self._resolve(pos, draft)
        return Position(pos.size, cells, pos.ply + 1, checked)

    def _resolve(self, pos: Position, draft: _Draft) -> tuple[Move, tuple[Cell, ...]]:
        """Judge a written turn in the order it is played; the legal move and the board after it."""
        n, side = pos.size, pos.turn
        cells = list(pos.cells)
        names = draft.neutralised
        triggers: list[int] = []
        moved = origin = None
        if draft.step:
            origin, moved = draft.step
            self._check_step(pos, origin, moved)
            stone = cells[origin]
            assert stone is not None
            cells[origin], cells[moved] = None, stone
            triggers = _triggers(cells, n, origin, moved)
        elif names:
            raise IllegalMove(
                f'"x{square_name(names[0], n)}": only a move next to lower enemy stones makes you '
                "neutralise; this turn has no move."
            )
        others = sum(1 for c in cells if c is not None and c[0] == side) - (1 if moved is not None else 0)
        seen: set[int] = set()
        for square in names:
            self._check_neutralise(pos, cells, square, seen, origin, moved)
            seen.add(square)
            cells[square] = NEUTRAL
        if draft.step:
            self._check_count(pos, draft.step, triggers, others, len(names))
        assert draft.value is not None and draft.square is not None
        self._check_placement(pos, cells, draft.value, draft.square, moved)
        cells[draft.square] = (side, draft.value)
        move = Move(draft.value, draft.square, draft.step, frozenset(names))
        return move, tuple(cells)

    def _owner_text(self, pos: Position, cell: Cell) -> str:
        assert cell is not None
        if cell == NEUTRAL:
            return "a neutral stone"
        return f"your {cell[1]}" if cell[0] == pos.turn else f"{SIDE_NAMES[cell[0]]}'s {cell[1]}"

    def _check_step(self, pos: Position, origin: int, target: int) -> None:
        n, side = pos.size, pos.turn
        a, b = square_name(origin, n), square_name(target, n)
        quote = f'"{a}-{b}"'
        if not any(c is not None and c[0] == side for c in pos.cells):
            raise IllegalMove(
                f"{quote}: you have no stones on the board yet, so there is nothing to move; "
                "this turn is a placement only."
            )
        stone = pos.cells[origin]
        if stone is None:
            raise IllegalMove(f"{quote}: there is no stone on {a}.")
        if stone == NEUTRAL:
            raise IllegalMove(f"{quote}: {a} holds a neutral stone, and neutral stones never move.")
        if stone[0] != side:
            raise IllegalMove(f"{quote}: {a} holds {self._owner_text(pos, stone)}, not one of your stones.")
        if origin == target:
            raise IllegalMove(f"{quote}: a move must go somewhere; leave the move out to only place.")
        (f0, r0), (f1, r1) = _file_rank(origin, n), _file_rank(target, n)
        df, dr = f1 - f0, r1 - r0
        if df and dr and abs(df) != abs(dr):
            raise IllegalMove(
                f"{quote}: {b} is not on a line from {a}; a stone moves like a chess queen, along a "
                "rank, file or diagonal."
            )
        steps = max(abs(df), abs(dr))
        sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
        for k in range(1, steps):
            between = (r0 + k * sr) * n + f0 + k * sf
            if pos.cells[between] is not None:
                block = square_name(between, n)
                raise IllegalMove(f"{quote}: the path from {a} to {b} is blocked at {block}.")
        if pos.cells[target] is not None:
            raise IllegalMove(f"{quote}: {b} is occupied by {self._owner_text(pos, pos.cells[target])}.")

    def _check_neutralise(
        self, pos: Position, cells: list[Cell], square: int, seen: set[int], origin: int | None, moved: int | None
    ) -> None:
        name = square_name(square, pos.size)
        quote = f'"x{name}"'
        cell = cells[square]
        if square in seen:
            raise IllegalMove(f"{quote}: you named {name} twice; each neutralised stone is a different one.")
        if square == moved:
            raise IllegalMove(f"{quote}: {name} is the stone you just moved; neutralise another of yours.")
        if cell is None:
            why = "once your stone has left it" if square == origin else "so there is nothing to neutralise"
            raise IllegalMove(f"{quote}: {name} is empty {why}.")
        if cell == NEUTRAL:
            raise IllegalMove(f"{quote}: {name} is already neutral; neutralise one of your own stones.")
        if cell[0] != pos.turn:
            raise IllegalMove(
                f"{quote}: {name} holds {self._owner_text(pos, cell)}; you neutralise your own stones only."
            )

    def _check_count(
        self, pos: Position, step: tuple[int, int], triggers: list[int], others: int, named: int
    ) -> None:
        """The count rule: one stone per trigger, or every other stone you have when that is fewer."""
        n = pos.size
        a, b = square_name(step[0], n), square_name(step[1], n)
        required = min(len(triggers), others)
        if named == required:
            return
        if not triggers:
            raise IllegalMove(
                f"moving {a}-{b} lands next to no lower enemy stone that was not already next to {a}, "
                f"so there is nothing to neutralise; you named {named}."
            )
        values = _and_list([str(pos.cells[t][1]) for t in triggers])  # type: ignore[index]
        must = f"moving {a}-{b} next to {values} means you must neutralise {_stones(len(triggers))}"
        if required < len(triggers):
            raise IllegalMove(
                f"{must}; you have only {_stones(others)} besides the one you moved, so name "
                f"{'it' if others == 1 else 'all ' + str(others)}; you named {named}."
            )
        raise IllegalMove(f"{must} but named {named}.")

    def _check_placement(self, pos: Position, cells: list[Cell], value: int, square: int, moved: int | None) -> None:
        name = square_name(square, pos.size)
        quote = f'"{value}@{name}"'
        if self.max_value is not None and value > self.max_value:
            raise IllegalMove(f"{quote}: {self.title} stones are valued 0 to {self.max_value}.")
        for index, cell in enumerate(cells):
            if cell is not None and cell[0] == pos.turn and cell[1] == value:
                where = square_name(index, pos.size)
                spare = self._free(c[1] for c in cells if c is not None and c[0] == pos.turn)[:1]
                instead = f", e.g. {spare[0]}" if spare else ""
                raise IllegalMove(
                    f"{quote}: you already have {value} on the board, on {where}; place a value from "
                    f"your supply{instead}."
                )
        cell = cells[square]
        if cell is not None:
            if square == moved:
                raise IllegalMove(f"{quote}: {name} is occupied by the stone you just moved there.")
            raise IllegalMove(f"{quote}: {name} is occupied by {self._owner_text(pos, cell)}.")

    # -- choosing moves ----------------------------------------------------------------
    def _steps(self, pos: Position) -> list[tuple[int, int]]:
        side = pos.turn
        return [
            (origin, target)
            for origin, c in enumerate(pos.cells)
            if c is not None and c[0] == side
            for target in _queen_targets(pos.cells, pos.size, origin)
        ]

    def _after_step(self, pos: Position, step: tuple[int, int]) -> tuple[list[Cell], int, list[int]]:
        """The board after a queen step, how many stones it makes you neutralise, and the candidates."""
        origin, target = step
        cells = list(pos.cells)
        stone = cells[origin]
        assert stone is not None
        cells[origin], cells[target] = None, stone
        triggers = _triggers(cells, pos.size, origin, target)
        candidates = [i for i, c in enumerate(cells) if c is not None and c[0] == stone[0] and i != target]
        return cells, min(len(triggers), len(candidates)), candidates

    def _finish(
        self, pos: Position, cells: list[Cell], pick: Callable[[Sequence[Any]], Any]
    ) -> tuple[int, int]:
        """A value from the supply and an empty square, chosen by `pick`."""
        taken = [c[1] for c in cells if c is not None and c[0] == pos.turn]
        free = self._free(taken, None if self.max_value is not None else INFINITO_SAMPLE)
        if not free:
            raise IllegalMove(f"{SIDE_NAMES[pos.turn]} has no stone left in the supply to place.")
        return pick(free), pick([i for i, c in enumerate(cells) if c is None])

    def sample(self, pos: Position, pick: Callable[[Sequence[Any]], Any]) -> Move:
        if pos.full:
            raise IllegalMove(GAME_OVER)
        cells, step, neutralised = list(pos.cells), None, []
        steps = self._steps(pos)
        if steps and pick((False, True)):
            step = pick(steps)
            cells, required, candidates = self._after_step(pos, step)
            for _ in range(required):
                square = pick(candidates)
                candidates.remove(square)
                neutralised.append(square)
                cells[square] = NEUTRAL
        value, square = self._finish(pos, cells, pick)
        return Move(value, square, step, frozenset(neutralised))

    def examples(self, pos: Position) -> list[str]:
        """A placement, and a move (one that makes you neutralise, where there is one)."""
        if pos.full:
            return []
        first = itemgetter(0)  # the deterministic `pick`
        try:
            result = [self.format(pos, Move(*self._finish(pos, list(pos.cells), first)))]
        except IllegalMove:
            return []
        steps = self._steps(pos)
        if steps:
            chosen = next((s for s in steps if self._after_step(pos, s)[1]), steps[0])
            cells, required, candidates = self._after_step(pos, chosen)
            for square in candidates[:required]:
                cells[square] = NEUTRAL
            value, square = self._finish(pos, cells, first)
            result.append(self.format(pos, Move(value, square, chosen, frozenset(candidates[:required]))))
        return result

    def _hint(self, pos: Position) -> str:
        examples = self.examples(pos)
        return f"For example: {' or '.join(examples)}." if examples else ""

    # -- results -----------------------------------------------------------------------
    def outcome(self, pos: Position) -> Outcome:
        sums = [0, 0]
        for cell in pos.cells:
            if cell is not None and cell != NEUTRAL:
                sums[cell[0]] += cell[1]
        scores = (sums[0], sums[1])
        if not pos.full:
            return Outcome(False, None, "", scores)
        winner = None if sums[0] == sums[1] else (0 if sums[0] < sums[1] else 1)
        return Outcome(True, winner, "the board is full", scores)

    # -- presentation and storage ------------------------------------------------------
    def _marked(self, pos: Position) -> set[int]:
        last = pos.last
        if last is None:
            return set()
        return {last.square, *(last.step or ()), *last.neutralised}

    def render(self, pos: Position, names: tuple[str, str] | None = None) -> str:
        n = pos.size
        marked = self._marked(pos)
        stones = [c for c in pos.cells if c is not None and c != NEUTRAL]
        need = max((len(str(c[1])) for c in stones), default=1)
        widest = ROW_BUDGET // n - 1  # the field width that keeps a row within 72 columns
        digits = max(need, 2) if widest >= 3 else need
        compact = digits + 1 > widest
        w = 1 if compact else digits + 1
        neutral = "#" if w == 1 else "::"

        def show(cell: Cell) -> str:
            if cell is None:
                return ".".rjust(w // 2 + 1).ljust(w)
            if cell == NEUTRAL:
                return neutral.rjust(min(w, w // 2 + 2)).ljust(w)
            letter = LETTERS[cell[0]]
            return letter if compact else letter + str(cell[1]).zfill(digits)

        def gap(left: bool, right: bool) -> str:
            return "|" if left and right else "]" if left else "[" if right else " "

        letters = "".join(" " + chr(ord("a") + f).rjust(w // 2 + 1).ljust(w) for f in range(n))
        header = "     " + letters
        border = "    +" + "-" * (n * (w + 1) + 1) + "+"
        lines = [header.rstrip(), border]
        for rank in range(n - 1, -1, -1):
            row = []
            for file in range(n):
                index = rank * n + file
                row.append(gap(file > 0 and index - 1 in marked, index in marked))
                row.append(show(pos.cells[index]))
            row.append(gap(rank * n + n - 1 in marked, False))
            lines.append(f"{rank + 1:>3} |{''.join(row)}| {rank + 1}")
        lines += [border, header.rstrip(), ""]
        lines += self._legend(pos, names, neutral, compact)
        return "\n".join(lines)

    def _legend(self, pos: Position, names: tuple[str, str] | None, neutral: str, compact: bool) -> list[str]:
        outcome = self.outcome(pos)
        wrap = textwrap.TextWrapper(WIDTH, initial_indent="  ", subsequent_indent="      ")
        lines = []
        for side in (WHITE, BLACK):
            who = SIDE_NAMES[side] + (f" ({names[side][:24]})" if names else "")
            count = sum(1 for c in pos.cells if c is not None and c[0] == side)
            lines += wrap.wrap(
                f"{LETTERS[side]:<3} {who}: sum {outcome.scores[side]}, {_stones(count)} on the board"
            )
        neutrals = sum(1 for c in pos.cells if c == NEUTRAL)
        lines.append(f"  {neutral:<3} neutral: {_stones(neutrals)}")
        if pos.last is not None:
            mover = SIDE_NAMES[1 - pos.turn]
            lines.append(f"  [ ] {mover}'s last turn: {self.format(pos, pos.last)}")
        if pos.full:
            lines.append("  The board is full.")
        else:
            total = pos.size * pos.size
            lines.append(f"  {SIDE_NAMES[pos.turn]} to move, turn {pos.ply + 1} of {total}.")
        for side in (WHITE, BLACK):
            lines += wrap.wrap(f"{SIDE_NAMES[side]}'s supply: {self.supply_text(pos, side)}")
        if compact:
            lines.append("  Stones by value (value@square):")
            for side in (WHITE, BLACK):
                board = sorted(self.on_board(pos, side).items())
                listed = " ".join(f"{v}@{square_name(i, pos.size)}" for v, i in board) or "none"
                lines += wrap.wrap(f"{LETTERS[side]}: {listed}")
        return lines

    def dump(self, pos: Position) -> dict[str, Any]:
        n = pos.size
        stones: list[dict[str, int]] = [{}, {}]
        for index, cell in enumerate(pos.cells):
            if cell is not None and cell != NEUTRAL:
                stones[cell[0]][square_name(index, n)] = cell[1]
        return {
            "size": n,
            "ply": pos.ply,
            "white": stones[WHITE],
            "black": stones[BLACK],
            "neutral": [square_name(i, n) for i, c in enumerate(pos.cells) if c == NEUTRAL],
            "last": self.format(pos, pos.last) if pos.last else None,
        }

    def load(self, data: Mapping[str, Any]) -> Position:
        n = int(data["size"])
        if n != self.size:
            raise ValueError(f"a {n}x{n} position does not fit {self.describe()}")
        cells: list[Cell] = [None] * (n * n)
        for side, key in ((WHITE, "white"), (BLACK, "black")):
            for square, value in data[key].items():
                cells[_square_index(square, n)] = (side, int(value))
        for square in data["neutral"]:
            cells[_square_index(square, n)] = NEUTRAL
        last = None
        if data.get("last"):
            draft = _read(data["last"], n)
            assert draft.value is not None and draft.square is not None
            last = Move(draft.value, draft.square, draft.step, frozenset(draft.neutralised))
        return Position(n, tuple(cells), int(data["ply"]), last)


class Infinito(Myriades):
    """Infinito: Myriades on N x N (10..26) with a stone of every natural number per side."""

    name = "infinito"
    title = "Infinito"
    max_value = None
    option_specs = (Option("size", 10, "board size, from 10 to 26", int_option("size", 10, 26)),)

    @property
    def size(self) -> int:
        return int(self.options["size"])
