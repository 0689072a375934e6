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

import re
import textwrap
import unicodedata
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
    widest = max(len(line) for line in lines)  # the grid is ASCII
    joined = list(lines)
    for i, text in enumerate(legend):
        joined[first + i] = joined[first + i].ljust(widest) + " " * gap + text
    return joined


def fits_beside(lines: list[str], legend: Sequence[str], gap: int) -> bool:
    """Whether `legend` to the right of the board, `gap` spaces apart, keeps every line within
    `WIDTH` display columns."""
    widest = max(len(line) for line in lines)
    return widest + gap + max((width(text) for text in legend), default=0) <= WIDTH


def below(lines: list[str], legend: Sequence[str], indent: int = 2) -> list[str]:
    """The board's lines, a blank line, then the legend, each line indented by `indent`."""
    return [*(line.rstrip() for line in lines), "", *(" " * indent + text for text in legend)]


def width(text: str) -> int:
    """The columns `text` takes in a fixed-width font: 2 for a wide (Chinese, Korean,
    Japanese) letter, 0 for a combining mark, 1 for the rest."""
    total = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        total += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return total


def ljust(text: str, columns: int) -> str:
    """`text` padded with spaces to `columns` display columns (never cut)."""
    return text + " " * max(0, columns - width(text))


def cut(text: str, columns: int) -> str:
    """The longest start of `text` that fits `columns` display columns."""
    kept, used = [], 0
    for char in text:
        used += width(char)
        if used > columns:
            break
        kept.append(char)
    return "".join(kept)


def wrap(text: str, columns: int, first: str = "", rest: str = "") -> list[str]:
    """`text` in lines of at most `columns` display columns, the first indented by `first`,
    the others by `rest`. ASCII text wraps exactly as `textwrap` wraps it; other text breaks
    at spaces, and between letters where a word alone is too wide (Chinese has no spaces)."""
    if text.isascii() and first.isascii() and rest.isascii():
        return textwrap.wrap(text, columns, initial_indent=first, subsequent_indent=rest)
    lines: list[str] = []
    line, fresh, space = first, True, ""  # `fresh`: nothing but the indent on this line yet
    for token in re.findall(r"\s+|\S+", text):
        if token.isspace():
            space = "" if fresh else token  # spaces inside a line are kept, at a break dropped
            continue
        word = token
        if width(line) + width(space) + width(word) <= columns:
            line, fresh, space = line + space + word, False, ""
            continue
        space = ""
        if not fresh:
            lines.append(line)
            line, fresh = rest, True
        while width(line) + width(word) > columns:  # a word wider than a line: break it
            piece = cut(word, columns - width(line)) or word[:1]
            lines.append(line + piece)
            word = word[len(piece):]
            line = rest
        line += word
        fresh = not word
    if not fresh:
        lines.append(line)
    return lines
