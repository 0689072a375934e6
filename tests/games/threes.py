"""Three in a Row, a game that exists only in the test suite: the proof that a fifth game
costs one engine module and one registry line (plus, here, its rules as its docstring).

It uses nothing of the service: only `pbem_engine.common.base`, as a game of `engine/` would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem_engine import IllegalMove, InvalidMove, Outcome, Rules, Termination

_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
_COLUMNS = "abc"


@dataclass(frozen=True)
class Position:
    cells: tuple[int, ...]  # 9 cells, a1 b1 c1 a2 ...: -1 empty, else the side
    moves: int = 0
    last: int | None = None


def _square(cell: int) -> str:
    return f"{_COLUMNS[cell % 3]}{cell // 3 + 1}"


class Threes(Rules[Position, int]):
    """Three in a Row. Two players, x and o, take turns to put a piece on an empty square of
    a 3x3 board; x moves first. Whoever first has three pieces in a row, a column or a
    diagonal wins. When the board is full without one, the game is a draw.
    """

    name = "threes"
    aliases = ("three-in-a-row",)
    title = "Three in a Row"
    family = "threes"
    sides = ("x", "o")
    score_unit = "pieces"

    def start(self) -> Position:
        return Position(cells=(-1,) * 9)

    def turn(self, pos: Position) -> int:
        return pos.moves % 2

    def ply(self, pos: Position) -> int:
        return pos.moves

    def last_move(self, pos: Position) -> int | None:
        return pos.last

    def parse(self, pos: Position, text: str) -> int:
        word = text.strip().lower()
        if len(word) != 2 or word[0] not in _COLUMNS or word[1] not in "123":
            raise InvalidMove(f'"{text[:20]}" is not a square of this board.', code="threes.not_a_square", hint="Write e.g. b2.")
        cell = _COLUMNS.index(word[0]) + 3 * (int(word[1]) - 1)
        if self.outcome(pos).over:
            raise IllegalMove("The game is over.", code="move.game_over")
        if pos.cells[cell] != -1:
            raise IllegalMove(f"{word} is taken.", code="move.occupied", hint=f"Write e.g. {self.examples(pos)[0]}.")
        return cell

    def format(self, pos: Position, move: int) -> str:
        return _square(move)

    def legal_moves(self, pos: Position) -> Sequence[int]:
        return [] if self.outcome(pos).over else [i for i, c in enumerate(pos.cells) if c == -1]

    def examples(self, pos: Position) -> list[str]:
        return [_square(i) for i in self.legal_moves(pos)][:3]

    def notation(self) -> str:
        return "Name an empty square, column then row (b2)."

    def apply(self, pos: Position, move: int) -> Position:
        cells = list(pos.cells)
        cells[move] = self.turn(pos)
        return Position(tuple(cells), pos.moves + 1, move)

    def outcome(self, pos: Position) -> Outcome:
        scores = (pos.cells.count(0), pos.cells.count(1))
        for a, b, c in _LINES:
            if pos.cells[a] != -1 and pos.cells[a] == pos.cells[b] == pos.cells[c]:
                side = pos.cells[a]
                words = f"{self.sides[side]} has three in a row"  # an ending of its own: its own words
                return Outcome(True, side, "three_in_a_row", scores, details={"side": side, "words": words})
        if -1 not in pos.cells:
            return Outcome(True, None, Termination.BOARD_FULL, scores)
        return Outcome(False, None, None, scores)

    def render(self, pos: Position, names: tuple[str, str] | None = None, finished: bool = False) -> str:
        marks = {-1: ".", 0: "x", 1: "o"}
        rows = [f"  {r + 1} | " + " ".join(marks[pos.cells[3 * r + c]] for c in range(3)) + " |" for r in range(3)]
        return "\n".join(["      a b c", *reversed(rows), "      a b c"])

    def dump(self, pos: Position) -> dict[str, Any]:
        return {"cells": list(pos.cells), "moves": pos.moves, "last": pos.last}

    def load(self, data: Mapping[str, Any]) -> Position:
        return Position(tuple(data["cells"]), data["moves"], data["last"])
