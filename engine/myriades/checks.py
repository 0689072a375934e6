"""The checks of a Myriades turn, in the order it is played: the queen move, the stones it makes
you neutralise, their count, then the placement. Each refusal is an `IllegalMove` whose message
quotes the part of the turn at fault and says what is wrong in the player's terms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pbem_engine.common.errors import IllegalMove
from pbem_engine.common.phrases import Phrase, phrase
from pbem_engine.myriades.notation import (
    NEUTRAL,
    WHITE,
    Cell,
    Position,
    _and_list,
    _file_rank,
    square_name,
    stones,
)

if TYPE_CHECKING:
    from collections.abc import Iterable


class _Values(list):  # type: ignore[type-arg]
    """Stone values in a sentence: "9, 5 and 3" in English; a speaker joins a list its own way."""

    def __str__(self) -> str:
        return _and_list(self)


class TurnChecks:
    """A mixin of Myriades: the rule checks `_resolve` runs on a written turn."""

    title: ClassVar[str]
    max_value: ClassVar[int | None]

    def _free(self, taken: Iterable[int], count: int | None = None) -> list[int]:
        raise NotImplementedError

    @staticmethod
    def _owned(pos: Position, cell: Cell, neutral: Phrase, yours: Phrase, white: Phrase, black: Phrase) -> Phrase:
        """The sentence for whose stone `cell` is: one whole sentence per owner."""
        assert cell is not None
        if cell == NEUTRAL:
            return neutral
        if cell[0] == pos.turn:
            return yours
        return white if cell[0] == WHITE else black

    def _check_step(self, pos: Position, origin: int, target: int) -> None:
        n, side = pos.size, pos.turn
        a, b = square_name(origin, n), square_name(target, n)
        step = {"step": [a, b]}
        if not any(c is not None and c[0] == side for c in pos.cells):
            raise IllegalMove(
                phrase(
                    '"{a}-{b}": you have no stones on the board yet, so there is nothing to move; '
                    "this turn is a placement only.", a=a, b=b,
                ),
                code="move.nothing_to_move", params=step,
            )
        stone = pos.cells[origin]
        if stone is None:
            raise IllegalMove(
                phrase('"{a}-{b}": there is no stone on {a}.', a=a, b=b), code="move.source_empty", params=step
            )
        if stone == NEUTRAL:
            raise IllegalMove(
                phrase('"{a}-{b}": {a} holds a neutral stone, and neutral stones never move.', a=a, b=b),
                code="move.source_neutral", params=step,
            )
        if stone[0] != side:
            value = str(stone[1])
            said = (
                phrase("\"{a}-{b}\": {a} holds White's {value}, not one of your stones.", a=a, b=b, value=value)
                if stone[0] == WHITE else
                phrase("\"{a}-{b}\": {a} holds Black's {value}, not one of your stones.", a=a, b=b, value=value)
            )
            raise IllegalMove(
                said, code="move.source_theirs", params={"step": [a, b], "owner": stone[0], "value": stone[1]},
            )
        if origin == target:
            raise IllegalMove(
                phrase('"{a}-{b}": a move must go somewhere; leave the move out to only place.', a=a, b=b),
                code="move.same_square", params=step,
            )
        (f0, r0), (f1, r1) = _file_rank(origin, n), _file_rank(target, n)
        df, dr = f1 - f0, r1 - r0
        if df and dr and abs(df) != abs(dr):
            raise IllegalMove(
                phrase(
                    '"{a}-{b}": {b} is not on a line from {a}; a stone moves like a chess queen, along a '
                    "rank, file or diagonal.", a=a, b=b,
                ),
                code="move.not_a_line", params=step,
            )
        steps = max(abs(df), abs(dr))
        sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
        for k in range(1, steps):
            between = (r0 + k * sr) * n + f0 + k * sf
            if pos.cells[between] is not None:
                block = square_name(between, n)
                raise IllegalMove(
                    phrase('"{a}-{b}": the path from {a} to {b} is blocked at {square}.', a=a, b=b, square=block),
                    code="move.path_blocked", params={"step": [a, b], "square": block},
                )
        there = pos.cells[target]
        if there is not None:
            value = "" if there == NEUTRAL else str(there[1])
            said = self._owned(
                pos, there,
                phrase('"{a}-{b}": {b} is occupied by a neutral stone.', a=a, b=b),
                phrase('"{a}-{b}": {b} is occupied by your {value}.', a=a, b=b, value=value),
                phrase("\"{a}-{b}\": {b} is occupied by White's {value}.", a=a, b=b, value=value),
                phrase("\"{a}-{b}\": {b} is occupied by Black's {value}.", a=a, b=b, value=value),
            )
            raise IllegalMove(said, code="move.occupied", params={"step": [a, b], "square": b})

    def _check_neutralise(
        self, pos: Position, cells: list[Cell], square: int, seen: set[int], origin: int | None, moved: int | None
    ) -> None:
        name = square_name(square, pos.size)
        cell = cells[square]
        if square in seen:
            raise IllegalMove(
                phrase('"x{square}": you named {square} twice; each neutralised stone is a different one.', square=name),
                code="move.neutralise_twice",
            )
        if square == moved:
            raise IllegalMove(
                phrase('"x{square}": {square} is the stone you just moved; neutralise another of yours.', square=name),
                code="move.neutralise_moved",
            )
        if cell is None:
            said = (
                phrase('"x{square}": {square} is empty once your stone has left it.', square=name)
                if square == origin else
                phrase('"x{square}": {square} is empty so there is nothing to neutralise.', square=name)
            )
            raise IllegalMove(said, code="move.neutralise_empty")
        if cell == NEUTRAL:
            raise IllegalMove(
                phrase('"x{square}": {square} is already neutral; neutralise one of your own stones.', square=name),
                code="move.neutralise_neutral",
            )
        if cell[0] != pos.turn:
            value = str(cell[1])
            said = (
                phrase("\"x{square}\": {square} holds White's {value}; you neutralise your own stones only.",
                       square=name, value=value)
                if cell[0] == WHITE else
                phrase("\"x{square}\": {square} holds Black's {value}; you neutralise your own stones only.",
                       square=name, value=value)
            )
            raise IllegalMove(said, code="move.neutralise_theirs", params={"square": name})

    def _check_count(
        self, pos: Position, step: tuple[int, int], triggers: list[int], others: int, named: int
    ) -> None:
        """The count rule: one stone per trigger, or every other stone you have when that is fewer."""
        n = pos.size
        a, b = square_name(step[0], n), square_name(step[1], n)
        required = min(len(triggers), others)
        if named == required:
            return
        counted = {"step": [a, b], "required": required if triggers else 0, "named": named}
        if not triggers:
            raise IllegalMove(
                phrase(
                    "moving {a}-{b} lands next to no lower enemy stone that was not already next to {a}, "
                    "so there is nothing to neutralise; you named {named}.", a=a, b=b, named=named,
                ),
                code="move.neutralise_count", params=counted,
            )
        values = [str(pos.cells[t][1]) for t in triggers]  # type: ignore[index]
        must = stones(len(triggers))
        if required < len(triggers):
            if others == 1:
                said = phrase(
                    "moving {a}-{b} next to {values} means you must neutralise {stones}; you have only "
                    "1 stone besides the one you moved, so name it; you named {named}.",
                    a=a, b=b, values=_Values(values), stones=must, named=named,
                )
            else:
                said = phrase(
                    "moving {a}-{b} next to {values} means you must neutralise {stones}; you have only "
                    "{others} stones besides the one you moved, so name all {others}; you named {named}.",
                    a=a, b=b, values=_Values(values), stones=must, others=others, named=named,
                )
            raise IllegalMove(said, code="move.neutralise_count", params=counted)
        raise IllegalMove(
            phrase(
                "moving {a}-{b} next to {values} means you must neutralise {stones} but named {named}.",
                a=a, b=b, values=_Values(values), stones=must, named=named,
            ),
            code="move.neutralise_count", params=counted,
        )

    def _check_placement(self, pos: Position, cells: list[Cell], value: int, square: int, moved: int | None) -> None:
        name = square_name(square, pos.size)
        shown = str(value)  # as the player wrote it: notation, not a number to format
        if self.max_value is not None and value > self.max_value:
            raise IllegalMove(
                phrase('"{value}@{square}": {title} stones are valued 0 to {max}.',
                       value=shown, square=name, title=self.title, max=self.max_value),
                code="move.value_too_high", params={"value": value, "max": self.max_value},
            )
        for index, cell in enumerate(cells):
            if cell is not None and cell[0] == pos.turn and cell[1] == value:
                where = square_name(index, pos.size)
                spare = self._free(c[1] for c in cells if c is not None and c[0] == pos.turn)[:1]
                if spare:
                    said = phrase(
                        '"{value}@{square}": you already have {value} on the board, on {where}; place a value '
                        "from your supply, e.g. {spare}.", value=shown, square=name, where=where, spare=str(spare[0]),
                    )
                else:
                    said = phrase(
                        '"{value}@{square}": you already have {value} on the board, on {where}; place a value '
                        "from your supply.", value=shown, square=name, where=where,
                    )
                raise IllegalMove(said, code="move.value_on_board", params={"value": value, "square": where})
        cell = cells[square]
        if cell is not None:
            if square == moved:
                raise IllegalMove(
                    phrase('"{value}@{square}": {square} is occupied by the stone you just moved there.',
                           value=shown, square=name),
                    code="move.occupied", params={"square": name},
                )
            held = "" if cell == NEUTRAL else str(cell[1])
            said = self._owned(
                pos, cell,
                phrase('"{value}@{square}": {square} is occupied by a neutral stone.', value=shown, square=name),
                phrase('"{value}@{square}": {square} is occupied by your {held}.', value=shown, square=name, held=held),
                phrase("\"{value}@{square}\": {square} is occupied by White's {held}.",
                       value=shown, square=name, held=held),
                phrase("\"{value}@{square}\": {square} is occupied by Black's {held}.",
                       value=shown, square=name, held=held),
            )
            raise IllegalMove(said, code="move.occupied", params={"square": name})
