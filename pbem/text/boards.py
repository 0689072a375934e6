"""A game's board as data for the HTML mail: coordinates, and what stands on every cell.

The text board (`Rules.render`) is a fixed-width picture; the HTML part draws the same
position as a table, and needs the cells themselves. `grid` reads them from the engine's
position, one small reader per family of games, into one shape that the one board macro
(`templates/html/_board.html`) draws for every game:

    {"columns": ["a", ...], "rows": [{"label": "7", "cells": [cell, ...]}, ...] (top row first),
     "legend": [{"key": cell or None, "text": "..."}, ...]}

A cell is `{"kind": k, "text": t, "last": bool}`, `k` one of `empty`, `star` (a Go star
point), `blocked` (an Ataxx gap), `neutral` (a Myriades neutral stone), `dark`, `light`
(the two sides' stones); `text` is what a stone shows (a Myriades value, an Ataxx letter).
The legend is the text board's own legend, word for word, each line with the cell its
leading symbol stands for, so the HTML says what the text says.

A view holds its board as a `Board`: `str()` is the English text board, `spoken(speaker)`
the same board with its legend in the speaker's language (what `{{ game.board }}` prints
in a template of that language), and `grid(speaker)` the cells with that legend, for the
HTML part of a mail in that language (`grid_for(view, language)` from a view). Each is
drawn once per language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pbem_engine
from pbem.text.i18n import DEFAULT, Speaker, speaker
from pbem_engine.ataxx.board import FILES, SIZE
from pbem_engine.ataxx.game import Ataxx
from pbem_engine.common import squares
from pbem_engine.go.board import Move
from pbem_engine.go.game import CaptureGo
from pbem_engine.myriades.game import Myriades
from pbem_engine.myriades.notation import LETTERS, NEUTRAL, WHITE

Cell = dict[str, Any]


def _cell(kind: str, text: str = "", last: bool = False) -> Cell:
    return {"kind": kind, "text": text, "last": last}


def _ataxx(rules: Ataxx, pos: Any) -> tuple[list[str], Callable[[int, int], Cell], dict[str, Cell]]:
    marked = pos.last.dst if pos.last is not None else None

    def cell(col: int, row: int) -> Cell:
        sq = row * SIZE + col
        bit = 1 << sq
        if pos.gaps & bit:
            return _cell("blocked")
        if pos.x & bit:
            return _cell("dark", "x", sq == marked)
        if pos.o & bit:
            return _cell("light", "o", sq == marked)
        return _cell("empty")

    keys = {
        "x": _cell("dark", "x"), "o": _cell("light", "o"), "#": _cell("blocked"),
        "X": _cell("dark", "x", True), "O": _cell("light", "o", True),
    }
    return list(FILES), cell, keys


def _go(rules: CaptureGo, pos: Any) -> tuple[list[str], Callable[[int, int], Cell], dict[str, Cell]]:
    stars = rules.star_points()
    last = pos.last if pos.last is not None and not pos.last.is_pass else None

    def cell(col: int, row: int) -> Cell:
        move = Move(col, row)
        side = rules.stone(pos, move)
        here = last is not None and last.col == col and last.row == row
        if side is None:
            return _cell("star" if move in stars else "empty")
        return _cell("dark" if side == 0 else "light", "", here)

    keys = {
        "X": _cell("dark"), "O": _cell("light"),
        "(X)": _cell("dark", "", True), "(O)": _cell("light", "", True),
    }
    return squares.columns(rules.size, skip_i=True), cell, keys


def _myriades(rules: Myriades, pos: Any) -> tuple[list[str], Callable[[int, int], Cell], dict[str, Cell]]:
    n = pos.size
    marked = rules.marked(pos)

    def cell(col: int, row: int) -> Cell:
        index = row * n + col
        value = pos.cells[index]
        if value is None:
            return _cell("empty", "", index in marked)
        if value == NEUTRAL:
            return _cell("neutral", "", index in marked)
        return _cell("light" if value[0] == WHITE else "dark", str(value[1]), index in marked)

    keys = {
        LETTERS[0]: _cell("light", LETTERS[0]), LETTERS[1]: _cell("dark", LETTERS[1]),
        "::": _cell("neutral"), "#": _cell("neutral"), "[": _cell("empty", "", True),
    }
    return squares.columns(n), cell, keys


def grid(rules: pbem_engine.Rules, pos: Any, text_board: str) -> dict[str, Any]:
    """The board of `pos` as rows of cells, with the legend of its text board `text_board`."""
    if isinstance(rules, Ataxx):
        columns, cell, keys = _ataxx(rules, pos)
    elif isinstance(rules, CaptureGo):
        columns, cell, keys = _go(rules, pos)
    elif isinstance(rules, Myriades):
        columns, cell, keys = _myriades(rules, pos)
    else:  # a game this module does not know yet: the HTML mail shows its text board
        return {"columns": [], "rows": [], "legend": [], "text": text_board}
    count = len(columns)
    rows = [
        {"label": str(row + 1), "cells": [cell(col, row) for col in range(count)]}
        for row in range(count - 1, -1, -1)
    ]
    return {"columns": columns, "rows": rows, "legend": legend(text_board, keys), "text": None}


def legend(text_board: str, keys: dict[str, Cell]) -> list[dict[str, Any]]:
    """The legend lines of a text board (what stands right of its rows and below its frame),
    each with the cell its leading symbol stands for (None when it starts with a word)."""
    lines = text_board.splitlines()
    borders = [i for i, line in enumerate(lines) if line.strip().startswith("+-")]
    if len(borders) < 2:
        return []
    top, bottom = borders[0], borders[-1]
    right = len(lines[top].rstrip())  # the column of the frame's right edge
    texts = []
    for i, line in enumerate(lines):
        if top < i < bottom:
            texts.append(line[right:].lstrip(" 0123456789").strip())  # past "| 7"
        elif i > bottom + 1:  # below the frame and its column names
            texts.append(line.strip())
    found = []
    for text in filter(None, texts):
        symbol, _, rest = text.partition(" ")
        key = keys.get(symbol) or (keys.get("[") if symbol == "[" else None)
        if key is not None and symbol == "[":
            rest = rest.removeprefix("]").strip()
        found.append({"key": key, "text": rest.strip() if key is not None else text})
    return found


class Board:
    """A position's text board, said in any language and drawn once per language.

    `str()` is the engine's English board; `spoken(speaker)` the board with the legend in the
    speaker's words (the grid itself is ASCII and never changes); `grid(speaker)` the cells
    and that legend for the HTML part. A template's `{{ game.board }}` speaks it."""

    def __init__(
        self, rules: pbem_engine.Rules, pos: Any, names: tuple[str, str] | None = None, finished: bool = False
    ) -> None:
        self.rules, self.pos, self.names, self.finished = rules, pos, names, finished
        self._texts: dict[str, str] = {}
        self._grids: dict[str, dict[str, Any]] = {}

    def text(self, talk: Speaker | None = None) -> str:
        code = talk.code if talk is not None else DEFAULT
        if code not in self._texts:
            if code == DEFAULT:  # the engine's own English, exactly as it has always been
                self._texts[code] = self.rules.render(self.pos, names=self.names, finished=self.finished)
            else:
                say = (talk or speaker(code)).say
                self._texts[code] = self.rules.render(self.pos, names=self.names, finished=self.finished, say=say)
        return self._texts[code]

    def spoken(self, talk: Speaker) -> str:
        return self.text(talk)

    def grid(self, talk: Speaker | None = None) -> dict[str, Any]:
        """The cells of the board, with the legend in `talk`'s language (English by default)."""
        code = talk.code if talk is not None else DEFAULT
        if code not in self._grids:
            self._grids[code] = grid(self.rules, self.pos, self.text(talk))
        return self._grids[code]

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Board({self.rules!r}, ply={self.rules.ply(self.pos)})"

    # what code that took the board for its English text may still ask of it
    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return self.text() == other
        return self is other

    __hash__ = object.__hash__

    def __contains__(self, part: str) -> bool:
        return part in self.text()

    def __add__(self, other: str) -> str:
        return self.text() + other

    def __radd__(self, other: str) -> str:
        return other + self.text()

    def splitlines(self) -> list[str]:
        return self.text().splitlines()


def grid_for(view: Mapping[str, Any], language: str | None = None) -> dict[str, Any]:
    """The grid of a game view (`pbem.letters.views`) with its legend in `language`: what the HTML
    part of a mail in that language draws."""
    board = view.get("board")
    if isinstance(board, Board):
        return board.grid(speaker(language))
    return view["grid"]
