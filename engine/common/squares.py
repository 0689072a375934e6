"""Squares as players write them, for every game: a column letter (or letters) and a row number.

`c4` is column c, row 4, with `a1` at the bottom left. Columns run a, b, ..., z, then aa, ab, ...
for boards wider than the alphabet. Go writes its columns without the letter i (`skip_i=True`):
a b c d e f g h j k ... so that i and j are never confused. Points are (column, row), both from 0.
"""

from __future__ import annotations

import re
from functools import cache

LETTERS = "abcdefghijklmnopqrstuvwxyz"
GO_LETTERS = LETTERS.replace("i", "")
#: a square's shape in a pattern: letters then digits (a regex fragment, no groups)
SQUARE = r"[a-z]{1,2}\d{1,3}"
_SPLIT = re.compile(r"([a-z]+)(\d+)")
#: a move whose squares are written number first (`5c`, `5c-3e`)
_TURNED = re.compile(r"^(\d{1,2})([a-z])(?:-(\d{1,2})([a-z]))?$", re.IGNORECASE)


def _alphabet(skip_i: bool) -> str:
    return GO_LETTERS if skip_i else LETTERS


@cache
def column_name(col: int, skip_i: bool = False) -> str:
    """The letters of a 0-based column: 0 -> "a", 25 -> "z", 26 -> "aa" (Go: 8 -> "j")."""
    alphabet = _alphabet(skip_i)
    base = len(alphabet)
    name = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, base)
        name = alphabet[rest] + name
    return name


def column_index(name: str, skip_i: bool = False) -> int | None:
    """The 0-based column of its letters, or None if they are no column ("i" in Go)."""
    alphabet = _alphabet(skip_i)
    col = 0
    for letter in name.lower():
        place = alphabet.find(letter)
        if place < 0:
            return None
        col = col * len(alphabet) + place + 1
    return col - 1 if name else None


def columns(size: int, skip_i: bool = False) -> list[str]:
    """The names of the first `size` columns, for a board's coordinate line."""
    return [column_name(col, skip_i) for col in range(size)]


def square_name(col: int, row: int, skip_i: bool = False) -> str:
    """The canonical text of a point: "c4" for (2, 3)."""
    return f"{column_name(col, skip_i)}{row + 1}"


def split(text: str) -> tuple[str, int] | None:
    """A square's text as (letters, row number), or None if it has not that shape ("c4" -> ("c", 4))."""
    found = _SPLIT.fullmatch(text.strip().lower())
    return (found.group(1), int(found.group(2))) if found else None


def point(text: str, width: int, height: int | None = None, skip_i: bool = False) -> tuple[int, int] | None:
    """The (column, row) a square names on a width x height board, or None if it is not on it."""
    parts = split(text)
    if parts is None:
        return None
    col = column_index(parts[0], skip_i)
    row = parts[1] - 1
    if col is None or not (0 <= col < width and 0 <= row < (height or width)):
        return None
    return col, row


def columns_text(size: int, skip_i: bool = False) -> str:
    """The columns of a board in words: "a-g", and for Go "a-h, j" or "a-h, j-t" (no i)."""
    names = columns(size, skip_i)
    if skip_i and size >= 9:
        return "a-h, j" if size == 9 else f"a-h, j-{names[-1]}"
    return f"a-{names[-1]}"


def turned(text: str) -> tuple[str, str] | None:
    """A move written with its squares number first, as (its first square, the move) the right
    way round: `5c` -> ("c5", "c5"), `5c-3e` -> ("c5", "c5-e3"); None for any other text."""
    found = _TURNED.match(text)
    if found is None:
        return None
    square = f"{found[2]}{found[1]}".lower()
    return square, square + (f"-{found[4]}{found[3]}".lower() if found[3] else "")
