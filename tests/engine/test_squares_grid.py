"""The shared board machinery: squares as players write them, and the one grid renderer."""

from __future__ import annotations

import pytest

import pbem_engine
from pbem_engine.common import grid, squares


@pytest.mark.parametrize(
    ("col", "skip_i", "name"),
    [(0, False, "a"), (8, False, "i"), (25, False, "z"), (26, False, "aa"), (27, False, "ab"),
     (8, True, "j"), (18, True, "t"), (24, True, "z"), (25, True, "aa")],
)
def test_column_names_round_trip(col: int, skip_i: bool, name: str) -> None:
    assert squares.column_name(col, skip_i) == name
    assert squares.column_index(name, skip_i) == col


@pytest.mark.parametrize(
    ("text", "size", "skip_i", "point"),
    [("c4", 7, False, (2, 3)), ("C4", 7, False, (2, 3)), ("g7", 7, False, (6, 6)), ("h1", 7, False, None),
     ("a0", 9, False, None), ("a10", 9, False, None), ("z26", 26, False, (25, 25)), ("aa12", 30, False, (26, 11)),
     ("j9", 9, True, (8, 8)), ("i5", 9, True, None), ("t19", 19, True, (18, 18)), ("c 4", 9, False, None),
     ("4c", 9, False, None), ("", 9, False, None)],
)
def test_points_on_a_board(text: str, size: int, skip_i: bool, point) -> None:
    assert squares.point(text, size, skip_i=skip_i) == point
    if point is not None:
        assert squares.square_name(*point, skip_i=skip_i) == text.lower()


def test_columns_text() -> None:
    assert squares.columns_text(7) == "a-g"
    assert [squares.columns_text(n, skip_i=True) for n in (5, 8, 9, 13, 19)] == [
        "a-e", "a-h", "a-h, j", "a-h, j-n", "a-h, j-t",
    ]


def test_render_grid_frames_the_cells_with_coordinates_on_four_sides() -> None:
    lines = grid.render_grid(["a", "b", "c"], 2, lambda col, row: "xo."[(col + row) % 3], label_width=2,
                             between=lambda col, row: "(" if (col, row) == (1, 0) else ")" if (col, row) == (2, 0) else " ")
    assert lines == [
        "     a b c",
        "   +-------+",
        " 2 | o . x | 2",
        " 1 | x(o). | 1",
        "   +-------+",
        "     a b c",
    ]
    assert grid.beside(lines, ["legend"], 2, 3)[2] == " 2 | o . x | 2   legend"


@pytest.mark.parametrize("name", pbem_engine.names())
def test_every_game_draws_through_the_grid_within_72_columns(name: str) -> None:
    rules = pbem_engine.create(name)
    board = rules.render(rules.start(), names=("A very long player name indeed", "Bob"))
    assert max(len(line) for line in board.splitlines()) <= grid.WIDTH
    assert board.splitlines()[0].split() == squares.columns(len(board.splitlines()[0].split()), name == "capturego")


def test_a_move_written_number_first_is_read_the_right_way_round() -> None:
    assert squares.turned("5c") == ("c5", "c5")
    assert squares.turned("5C-3e") == ("c5", "c5-e3")
    assert squares.turned("c5") is None and squares.turned("5") is None and squares.turned("hello") is None
