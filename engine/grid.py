"""The one board renderer, modelled on sgfmill's `render_grid`: the games pass a cell function.

A board is drawn with column names above and below, row numbers left and right, and a frame:

         a b c
       +-------+
     3 | x . o | 3
     2 | . X . | 2
     1 | o . x | 1
       +-------+
         a b c

Every cell has the same width; the character between two cells (and the frame's inner edges)
comes from `between`, so a game can bracket its last move: `(X)` or `[17]`. The games keep their
legends; `beside` puts one to the right of the board.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

WIDTH = 72  # the widest line a board may have in a mail


def render_grid(
    columns: Sequence[str],
    rows: int,
    cell: Callable[[int, int], str],
    *,
    label_width: int = 2,
    cell_width: int = 1,
    between: Callable[[int, int], str] | None = None,
) -> list[str]:
    """The board's lines, top row first: `cell(col, row)` gives each cell (row 0 at the bottom,
    `cell_width` characters); `between(col, row)` the character left of column `col`
    (`col == len(columns)`: right of the last), " " when `between` is None."""
    w = cell_width
    names = "".join(" " + name.rjust(w // 2 + 1).ljust(w) for name in columns)
    header = (" " * (label_width + 2) + names).rstrip()
    border = " " * (label_width + 1) + "+" + "-" * (len(columns) * (w + 1) + 1) + "+"
    lines = [header, border]
    count = len(columns)
    for row in range(rows - 1, -1, -1):
        parts = []
        for col in range(count):
            parts.append(between(col, row) if between else " ")
            parts.append(cell(col, row))
        parts.append(between(count, row) if between else " ")
        lines.append(f"{row + 1:>{label_width}} |{''.join(parts)}| {row + 1}")
    lines += [border, header]
    return lines


def beside(lines: list[str], legend: Sequence[str], first: int, gap: int) -> list[str]:
    """The board's lines with the legend to their right from line `first`, `gap` spaces apart."""
    width = max(len(line) for line in lines)
    joined = list(lines)
    for i, text in enumerate(legend):
        joined[first + i] = joined[first + i].ljust(width) + " " * gap + text
    return joined
