"""The checks of a Myriades turn, in the order it is played: the queen move, the stones it makes
you neutralise, their count, then the placement. Each refusal is an `IllegalMove` whose message
quotes the part of the turn at fault and says what is wrong in the player's terms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from engine.errors import IllegalMove
from engine.myriades_notation import (
    NEUTRAL,
    SIDE_NAMES,
    Cell,
    Position,
    _and_list,
    _file_rank,
    _stones,
    square_name,
)

if TYPE_CHECKING:
    from collections.abc import Iterable


class TurnChecks:
    """A mixin of Myriades: the rule checks `_resolve` runs on a written turn."""

    title: ClassVar[str]
    max_value: ClassVar[int | None]

    def _free(self, taken: Iterable[int], count: int | None = None) -> list[int]:
        raise NotImplementedError

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
                "this turn is a placement only.",
                code="move.nothing_to_move", params={"step": [a, b]},
            )
        stone = pos.cells[origin]
        if stone is None:
            raise IllegalMove(
                f"{quote}: there is no stone on {a}.",
                code="move.source_empty", params={"step": [a, b]},
            )
        if stone == NEUTRAL:
            raise IllegalMove(
                f"{quote}: {a} holds a neutral stone, and neutral stones never move.",
                code="move.source_neutral", params={"step": [a, b]},
            )
        if stone[0] != side:
            raise IllegalMove(
                f"{quote}: {a} holds {self._owner_text(pos, stone)}, not one of your stones.",
                code="move.source_theirs", params={"step": [a, b], "owner": stone[0], "value": stone[1]},
            )
        if origin == target:
            raise IllegalMove(
                f"{quote}: a move must go somewhere; leave the move out to only place.",
                code="move.same_square", params={"step": [a, b]},
            )
        (f0, r0), (f1, r1) = _file_rank(origin, n), _file_rank(target, n)
        df, dr = f1 - f0, r1 - r0
        if df and dr and abs(df) != abs(dr):
            raise IllegalMove(
                f"{quote}: {b} is not on a line from {a}; a stone moves like a chess queen, along a "
                "rank, file or diagonal.",
                code="move.not_a_line", params={"step": [a, b]},
            )
        steps = max(abs(df), abs(dr))
        sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
        for k in range(1, steps):
            between = (r0 + k * sr) * n + f0 + k * sf
            if pos.cells[between] is not None:
                block = square_name(between, n)
                raise IllegalMove(
                    f"{quote}: the path from {a} to {b} is blocked at {block}.",
                    code="move.path_blocked", params={"step": [a, b], "square": block},
                )
        if pos.cells[target] is not None:
            raise IllegalMove(
                f"{quote}: {b} is occupied by {self._owner_text(pos, pos.cells[target])}.",
                code="move.occupied", params={"step": [a, b], "square": b},
            )

    def _check_neutralise(
        self, pos: Position, cells: list[Cell], square: int, seen: set[int], origin: int | None, moved: int | None
    ) -> None:
        name = square_name(square, pos.size)
        quote = f'"x{name}"'
        cell = cells[square]
        if square in seen:
            raise IllegalMove(
                f"{quote}: you named {name} twice; each neutralised stone is a different one.",
                code="move.neutralise_twice", params={"square": name},
            )
        if square == moved:
            raise IllegalMove(
                f"{quote}: {name} is the stone you just moved; neutralise another of yours.",
                code="move.neutralise_moved", params={"square": name},
            )
        if cell is None:
            why = "once your stone has left it" if square == origin else "so there is nothing to neutralise"
            raise IllegalMove(
                f"{quote}: {name} is empty {why}.",
                code="move.neutralise_empty", params={"square": name},
            )
        if cell == NEUTRAL:
            raise IllegalMove(
                f"{quote}: {name} is already neutral; neutralise one of your own stones.",
                code="move.neutralise_neutral", params={"square": name},
            )
        if cell[0] != pos.turn:
            raise IllegalMove(
                f"{quote}: {name} holds {self._owner_text(pos, cell)}; you neutralise your own stones only.",
                code="move.neutralise_theirs", params={"square": name},
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
                f"so there is nothing to neutralise; you named {named}.",
                code="move.neutralise_count", params={"step": [a, b], "required": 0, "named": named},
            )
        values = _and_list([str(pos.cells[t][1]) for t in triggers])  # type: ignore[index]
        must = f"moving {a}-{b} next to {values} means you must neutralise {_stones(len(triggers))}"
        if required < len(triggers):
            raise IllegalMove(
                f"{must}; you have only {_stones(others)} besides the one you moved, so name "
                f"{'it' if others == 1 else 'all ' + str(others)}; you named {named}.",
                code="move.neutralise_count", params={"step": [a, b], "required": required, "named": named},
            )
        raise IllegalMove(
            f"{must} but named {named}.",
            code="move.neutralise_count", params={"step": [a, b], "required": required, "named": named},
        )

    def _check_placement(self, pos: Position, cells: list[Cell], value: int, square: int, moved: int | None) -> None:
        name = square_name(square, pos.size)
        quote = f'"{value}@{name}"'
        if self.max_value is not None and value > self.max_value:
            raise IllegalMove(
                f"{quote}: {self.title} stones are valued 0 to {self.max_value}.",
                code="move.value_too_high", params={"value": value, "max": self.max_value},
            )
        for index, cell in enumerate(cells):
            if cell is not None and cell[0] == pos.turn and cell[1] == value:
                where = square_name(index, pos.size)
                spare = self._free(c[1] for c in cells if c is not None and c[0] == pos.turn)[:1]
                instead = f", e.g. {spare[0]}" if spare else ""
                raise IllegalMove(
                    f"{quote}: you already have {value} on the board, on {where}; place a value from "
                    f"your supply{instead}.",
                    code="move.value_on_board", params={"value": value, "square": where},
                )
        cell = cells[square]
        if cell is not None:
            if square == moved:
                raise IllegalMove(
                    f"{quote}: {name} is occupied by the stone you just moved there.",
                    code="move.occupied", params={"square": name},
                )
            raise IllegalMove(
                f"{quote}: {name} is occupied by {self._owner_text(pos, cell)}.",
                code="move.occupied", params={"square": name},
            )
