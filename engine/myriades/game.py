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

from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Any, ClassVar

from pbem_engine.common import squares
from pbem_engine.common.base import Effects, Option, Outcome, Rules, Termination, int_option
from pbem_engine.common.errors import EngineError, IllegalMove, MoveError
from pbem_engine.common.grid import render_grid, wrap
from pbem_engine.common.phrases import Phrase, phrase
from pbem_engine.myriades.checks import TurnChecks
from pbem_engine.myriades.notation import (
    BLACK,
    GAME_OVER,
    INFINITO_SAMPLE,
    LETTERS,
    NEUTRAL,
    ROW_BUDGET,
    WHITE,
    WIDTH,
    Cell,
    Move,
    Position,
    _Draft,
    _file_rank,
    _queen_targets,
    _read,
    _square_index,
    _triggers,
    free_values,
    square_name,
    stones,
    supply_text,
)

__all__ = ["NEUTRAL", "Infinito", "Move", "Myriades", "Position", "square_name"]


class Myriades(TurnChecks, Rules[Position, Move]):
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

    def describe(self) -> Phrase:
        return phrase("{game} {size}x{size}", game=self.name, size=self.size)

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
        return free_values(taken, self.max_value, count)

    def supply_text(self, pos: Position, side: int) -> Phrase | str:
        """The supply in ranges, "0-2, 4, 6-49", or by its exceptions when they are fewer:
        "0-49 except 3, 7", "every value except 3, 7"; Infinito's open end is "from 12 up"."""
        return supply_text(self.on_board(pos, side), self.max_value)

    # -- moves -------------------------------------------------------------------------
    def parse(self, pos: Position, text: str) -> Move:
        if pos.full:
            raise IllegalMove(GAME_OVER, code="move.game_over")
        try:
            return self._resolve(pos, _read(text, pos.size))[0]
        except MoveError as error:
            if error.hint:
                raise
            raise type(error)(error.message, code=error.code, params=error.params, hint=self._hint(pos)) from None

    def format(self, pos: Position, move: Move) -> str:
        n = pos.size
        parts = []
        if move.step:
            parts.append(f"{square_name(move.step[0], n)}-{square_name(move.step[1], n)}")
        for square in sorted(move.neutralised, key=lambda i: _file_rank(i, n)):
            parts.append(f"x{square_name(square, n)}")
        parts.append(f"{move.value}@{square_name(move.square, n)}")
        return " ".join(parts)

    def notation(self) -> Phrase:
        return phrase(
            "An optional queen move of one of your stones, the stones it makes you neutralise, then "
            "the placement of a value from your supply: c3-e5 xj10 xj9 17@d4, or just 17@d4."
        )

    def apply(self, pos: Position, move: Move) -> Position:
        if pos.full:
            raise IllegalMove(GAME_OVER, code="move.game_over")
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
                phrase(
                    '"x{square}": only a move next to lower enemy stones makes you '
                    "neutralise; this turn has no move.",
                    square=square_name(names[0], n),
                ),
                code="move.neutralise_without_move",
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
            raise IllegalMove(
                phrase("White has no stone left in the supply to place.") if pos.turn == WHITE
                else phrase("Black has no stone left in the supply to place."),
                code="move.supply_empty", params={"side": pos.turn},
            )
        return pick(free), pick([i for i, c in enumerate(cells) if c is None])

    def sample(self, pos: Position, pick: Callable[[Sequence[Any]], Any]) -> Move:
        if pos.full:
            raise IllegalMove(GAME_OVER, code="move.game_over")
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

    def _hint(self, pos: Position) -> Phrase | str:
        examples = self.examples(pos)
        if len(examples) > 1:
            return phrase("For example: {first} or {second}.", first=examples[0], second=examples[1])
        return phrase("For example: {first}.", first=examples[0]) if examples else ""

    # -- results -----------------------------------------------------------------------
    def outcome(self, pos: Position) -> Outcome:
        sums = [0, 0]
        for cell in pos.cells:
            if cell is not None and cell != NEUTRAL:
                sums[cell[0]] += cell[1]
        scores = (sums[0], sums[1])
        if not pos.full:
            return Outcome(False, None, None, scores)
        winner = None if sums[0] == sums[1] else (0 if sums[0] < sums[1] else 1)
        return Outcome(True, winner, Termination.BOARD_FULL, scores)

    def effects(self, before: Position, after: Position) -> Effects:
        """Nothing of the opponent's is taken here; the mover's own stones may be neutralised."""
        made = [i for i, (a, b) in enumerate(zip(before.cells, after.cells, strict=True)) if b == NEUTRAL != a]
        return Effects(neutralised=len(made), squares=tuple(square_name(i, after.size) for i in made))

    # -- presentation and storage ------------------------------------------------------
    def marked(self, pos: Position) -> set[int]:
        """The cells the last move touched (placed, stepped over, neutralised): drawn marked."""
        last = pos.last
        if last is None:
            return set()
        return {last.square, *(last.step or ()), *last.neutralised}

    def render(
        self,
        pos: Position,
        names: tuple[str, str] | None = None,
        finished: bool = False,
        *,
        say: Callable[[Phrase], str] = str,
    ) -> str:
        n = pos.size
        marked = self.marked(pos)
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

        def between(file: int, rank: int) -> str:
            index = rank * n + file
            return gap(file > 0 and index - 1 in marked, file < n and index in marked)

        def cell(file: int, rank: int) -> str:
            return show(pos.cells[rank * n + file])

        lines = render_grid(squares.columns(n), n, cell, label_width=3, cell_width=w, between=between)
        lines.append("")
        lines += self._legend(pos, names, neutral, compact, finished, say)
        return "\n".join(lines)

    def _legend(
        self,
        pos: Position,
        names: tuple[str, str] | None,
        neutral: str,
        compact: bool,
        finished: bool,
        say: Callable[[Phrase], str] = str,
    ) -> list[str]:
        """The legend below the board, every line within `WIDTH` display columns."""
        outcome = self.outcome(pos)

        def wrapped(text: str) -> list[str]:
            return wrap(text, WIDTH, "  ", "      ")

        lines = []
        for side in (WHITE, BLACK):
            count = sum(1 for c in pos.cells if c is not None and c[0] == side)
            facts = {"sum": outcome.scores[side], "stones": stones(count)}
            if names:
                name = names[side][:24]
                who = (
                    phrase("White ({name}): sum {sum}, {stones} on the board", name=name, **facts) if side == WHITE
                    else phrase("Black ({name}): sum {sum}, {stones} on the board", name=name, **facts)
                )
            else:
                who = (
                    phrase("White: sum {sum}, {stones} on the board", **facts) if side == WHITE
                    else phrase("Black: sum {sum}, {stones} on the board", **facts)
                )
            lines += wrapped(f"{LETTERS[side]:<3} {say(who)}")
        neutrals = sum(1 for c in pos.cells if c == NEUTRAL)
        told = say(phrase("neutral: {stones}", stones=stones(neutrals)))
        lines.append(f"  {neutral:<3} " + told)
        if pos.last is not None:
            turn = self.format(pos, pos.last)
            last = (
                phrase("White's last turn: {turn}", turn=turn) if pos.turn == BLACK
                else phrase("Black's last turn: {turn}", turn=turn)
            )
            lines.append(f"  [ ] {say(last)}")
        if pos.full:
            lines.append("  " + say(phrase("The board is full.")))
        elif not finished:
            facts = {"turn": pos.ply + 1, "total": pos.size * pos.size}
            on_move = (
                phrase("White to move, turn {turn} of {total}.", **facts) if pos.turn == WHITE
                else phrase("Black to move, turn {turn} of {total}.", **facts)
            )
            lines += wrapped(say(on_move))
        for side in (WHITE, BLACK):
            supply = self.supply_text(pos, side)
            said = (
                phrase("White's supply: {supply}", supply=supply) if side == WHITE
                else phrase("Black's supply: {supply}", supply=supply)
            )
            lines += wrapped(say(said))
        if compact:
            lines += wrapped(say(phrase("Stones by value (value@square):")))
            for side in (WHITE, BLACK):
                board = sorted(self.on_board(pos, side).items())
                listed = " ".join(f"{v}@{square_name(i, pos.size)}" for v, i in board) or say(phrase("none"))
                lines += wrapped(f"{LETTERS[side]}: {listed}")
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
            raise EngineError(
                phrase("A {size}x{size} position does not fit {game}.", size=n, game=self.describe()),
                code="position.size", params={"size": n, "expected": self.size},
            )
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
    option_specs = (Option("size", 10, phrase("board size, from 10 to 26"), int_option("size", 10, 26)),)

    @property
    def size(self) -> int:
        return int(self.options["size"])
