"""A board and a rating history as SVG, drawn on the server: no script, no image file.

The board comes from `pbem.text.boards.grid` (the cells the HTML mail draws too): a square
picture of (n + 2) x (n + 2) units with the coordinates on all four sides, so it scales to
any width and stays square. Go is drawn on the lines, the others in squares. The last move
is ringed (class `last`). Every text is XML-escaped here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from xml.sax.saxutils import escape, quoteattr

U = 10  # the side of one cell, in the picture's own units


def board(grid: dict[str, Any], label: str, go: bool = False) -> str:
    """The board of a `boards.grid` as an SVG element; `label` names it for a screen reader."""
    columns, rows = grid["columns"], grid["rows"]
    n = len(columns)
    side = (n + 2) * U
    out = [f'<svg class="board" viewBox="0 0 {side} {side}" role="img" aria-label={quoteattr(label)} '
           f'xmlns="http://www.w3.org/2000/svg" data-size="{n}">']
    out.append(f'<rect class="frame" x="0" y="0" width="{side}" height="{side}"/>')
    out.append(f'<rect class="wood" x="{U}" y="{U}" width="{n * U}" height="{n * U}"/>')
    font = 4.2 if n <= 13 else 3.6
    for i, name in enumerate(columns):
        x = (i + 1.5) * U
        for y in (U * 0.62, side - U * 0.38):
            out.append(f'<text class="co" x="{x}" y="{y}" font-size="{font}">{escape(name)}</text>')
    for r, row in enumerate(rows):
        y = (r + 1.5) * U + font * 0.35
        for x in (U * 0.5, side - U * 0.5):
            out.append(f'<text class="co" x="{x}" y="{y}" font-size="{font}">{escape(row["label"])}</text>')
    if go:
        lo, hi = 1.5 * U, (n + 0.5) * U
        path = "".join(f"M{lo} {(k + 1.5) * U}H{hi}M{(k + 1.5) * U} {lo}V{hi}" for k in range(n))
        out.append(f'<path class="line" d="{path}"/>')
    else:
        path = "".join(f"M{U} {(k + 1) * U}H{(n + 1) * U}M{(k + 1) * U} {U}V{(n + 1) * U}" for k in range(n + 1))
        out.append(f'<path class="line" d="{path}"/>')
    for r, row in enumerate(rows):
        for c, cell in enumerate(row["cells"]):
            x, y = (c + 1) * U, (r + 1) * U
            cx, cy = x + U / 2, y + U / 2
            kind = cell["kind"]
            if kind == "blocked":
                out.append(f'<rect class="blocked" x="{x}" y="{y}" width="{U}" height="{U}"/>')
            elif kind == "star":
                out.append(f'<circle class="star" cx="{cx}" cy="{cy}" r="0.9"/>')
            elif kind in ("dark", "light", "neutral"):
                out.append(f'<circle class="st {kind}" cx="{cx}" cy="{cy}" r="{U * 0.43}"/>')
                text = cell.get("text") or ""
                if text and text not in ("x", "o"):
                    size = 4.4 if len(text) < 3 else 3.4
                    out.append(f'<text class="v {kind}" x="{cx}" y="{cy + size * 0.36}" font-size="{size}">'
                               f"{escape(text)}</text>")
            if cell.get("last"):
                out.append(f'<rect class="last" x="{x + 0.6}" y="{y + 0.6}" width="{U - 1.2}" height="{U - 1.2}" '
                           f'data-col="{escape(columns[c])}" data-row="{escape(row["label"])}"/>')
    out.append("</svg>")
    return "".join(out)


def plot(points: Sequence[tuple[datetime, float]], label: str, width: int = 600, height: int = 220) -> str:
    """A rating history as a line over time (one point per rated game), with its range written."""
    out = [f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(label)} '
           'xmlns="http://www.w3.org/2000/svg">']
    left, right, top, bottom = 48, 10, 10, 24
    out.append(f'<rect class="area" x="{left}" y="{top}" width="{width - left - right}" '
               f'height="{height - top - bottom}"/>')
    if points:
        values = [v for _, v in points]
        lo, hi = min(values) - 20, max(values) + 20
        w, h = width - left - right, height - top - bottom
        count = len(points)

        def xy(i: int, v: float) -> tuple[float, float]:
            x = left + (w * i / (count - 1) if count > 1 else w / 2)
            return round(x, 1), round(top + h * (hi - v) / (hi - lo), 1)

        coords = [xy(i, v) for i, (_, v) in enumerate(points)]
        out.append('<polyline class="rating" points="' + " ".join(f"{x},{y}" for x, y in coords) + '"/>')
        for x, y in coords[-60:]:
            out.append(f'<circle class="dot" cx="{x}" cy="{y}" r="2.5"/>')
        out.append(f'<text class="ax" x="{left - 4}" y="{top + 10}">{round(hi)}</text>')
        out.append(f'<text class="ax" x="{left - 4}" y="{height - bottom}">{round(lo)}</text>')
        first, last = points[0][0], points[-1][0]
        out.append(f'<text class="ax start" x="{left}" y="{height - 6}">{first:%Y-%m-%d}</text>')
        out.append(f'<text class="ax" x="{width - right}" y="{height - 6}">{last:%Y-%m-%d}</text>')
    out.append("</svg>")
    return "".join(out)
