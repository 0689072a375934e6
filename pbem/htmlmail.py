"""The HTML part of a mail: the text part's own words, with the boards drawn as tables.

Nothing is worded twice. Each section's text template is rendered once more for the
HTML part, unwrapped, with two things swapped in its data: every game's `board` becomes
a marker line and every example move a marked word. The text that comes out is cut
into blocks (paragraphs, indented lines, the separator, the footer), the marker line
becomes the game's board (`pbem.boards.grid`, drawn by `templates/html/_board.html`),
and example moves and the commands a mail tells to write become `<code>`. The frame
(`_mail.txt`) is rendered the same way with a marker per section, so its words too are
the text part's. `templates/html/_mail.html` lays the blocks out; Jinja2 escapes every
word (autoescape), and css-inline moves the stylesheet into style attributes, keeping
the `@media (prefers-color-scheme: dark)` rules in the head for the clients that read it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import css_inline
from markupsafe import Markup

from pbem.templates import Templates

BOARD = "\ue010board {}\ue010"  # a line of its own where a text template prints a board
SECTION = "\ue010section {}\ue010"  # where the frame prints a section
MOVE_OPEN, MOVE_CLOSE = "\ue011", "\ue012"  # around an example move
# (pbem.templates keeps U+E000 and U+E001 for the example commands it never breaks)
_MARKER = re.compile("^\ue010(board|section) (\\d+)\ue010$")
_INLINER = css_inline.CSSInliner(keep_at_rules=True, minify_css=True, load_remote_stylesheets=False)

_CODE = re.compile(
    "\ue011(?P<move>[^\ue012]*)\ue012"  # an example move
    '|"(?P<quoted>[^"\\s][^"]{0,58})"'  # a command in quotes: write "draw"
    r"|(?P<eg>\be\.g\.\s{2,})(?P<egs>.+)$"  # e.g.  c4   or   a7-c6
    r"|(?P<wr>\b[Ww]rite: )(?P<wrs>[^.]+)"  # write: board, history, help.
)
_SPLIT = re.compile(r"\s{2,}(?:or\s{2,})?")
_DRAWN: dict[int, tuple[dict[str, Any], str, Markup]] = {}  # id(grid) -> (grid, kind, its table)
_DRAWN_MAX = 64


def _drawn(templates: Templates, game: dict[str, Any]) -> Markup:
    """The board of a game view as HTML, drawn once per grid: the views of one version of a
    game share their grid (`pbem.present`), so the mover's mail and the opponent's draw it once.
    The entry keeps the grid itself, so its id is not reused while cached."""
    grid, kind = game["grid"], game.get("kind")
    found = _DRAWN.get(id(grid))
    if found is not None and found[0] is grid and found[1] == kind:
        return found[2]
    html = templates.html_env.get_template("_board.html").module.board(game)
    if len(_DRAWN) >= _DRAWN_MAX:
        _DRAWN.clear()
    _DRAWN[id(grid)] = (grid, kind, html)
    return html


def _boarded(value: Any, boards: list[dict[str, Any]]) -> Any:
    """`value` with every game view's board swapped for a marker line (and examples marked)."""
    if isinstance(value, dict) and "board" in value and "grid" in value:
        boards.append(value)
        examples = [f"{MOVE_OPEN}{e}{MOVE_CLOSE}" for e in value.get("examples", [])]
        return {**value, "board": BOARD.format(len(boards) - 1), "examples": examples}
    if isinstance(value, list):
        return [_boarded(v, boards) for v in value]
    return value


def tokens(line: str) -> list[tuple[str, str]]:
    """A line of prose as (text, kind) pieces: kind "" for words, "move" for an example move
    (shown boldly: a legal move one can copy), "code" for a command the mail tells to write."""
    pieces: list[tuple[str, str]] = []
    at = 0
    for found in _CODE.finditer(line):
        pieces.append((line[at : found.start()], ""))
        if found["move"] is not None:
            pieces.append((found["move"], "move"))
        elif found["quoted"] is not None:
            pieces.append((found["quoted"], "code"))
        else:
            lead, listed = (found["eg"], found["egs"]) if found["eg"] else (found["wr"], found["wrs"])
            moves = MOVE_OPEN in listed
            pieces.append((lead.rstrip() + " ", ""))
            words = _SPLIT.split(listed.replace(MOVE_OPEN, "").replace(MOVE_CLOSE, "")) if found["eg"] else [
                w.strip() for w in listed.split(",")
            ]
            for n, word in enumerate(w for w in words if w):
                if n:
                    pieces.append((" or " if found["eg"] else ", ", ""))
                pieces.append((word, "move" if moves else "code"))
        at = found.end()
    pieces.append((line[at:], ""))
    return [(text, code) for text, code in pieces if text]


def blocks(text: str, boards: Sequence[dict[str, Any]], sections: Sequence[list] = ()) -> list[dict[str, Any]]:
    """The text cut into blocks for `_mail.html`: `p` (lines of tokens), `pre` (indented
    lines, kept as they are), `rule` (the separator of sections), `board`, `section`, `footer`."""
    out: list[dict[str, Any]] = []
    footer = False

    def add(kind: str, line: Any) -> None:
        if out and out[-1]["kind"] == kind and kind in ("p", "pre", "footer"):
            out[-1]["lines"].append(line)
        else:
            out.append({"kind": kind, "lines": [line]})

    for line in text.splitlines():
        marker = _MARKER.match(line.strip())
        if marker:
            n = int(marker[2])
            if marker[1] == "board":
                out.append({"kind": "board", "game": boards[n]})
            else:
                out.append({"kind": "section", "blocks": sections[n]})
        elif line.rstrip() == "--":
            footer = True
        elif footer:
            add("footer", tokens(line))
        elif not line.strip():
            out.append({"kind": "gap"})
        elif line.strip() == "* * *":
            out.append({"kind": "rule"})
        elif line.startswith("  "):
            add("pre", line)
        else:
            add("p", tokens(line))
    return [b for b in out if b["kind"] != "gap"]


def render(
    templates: Templates,
    sections: Sequence[tuple[str, dict[str, Any]]],
    frame: dict[str, Any],
    subject: str,
    language: str = "en",
) -> str:
    """The HTML part of a mail of `sections` ((template, data) each) in the frame `_mail.txt`
    (rendered with `frame` as its data), titled `subject`: styles inlined, ready to send."""
    parts = []
    for name, data in sections:
        boards: list[dict[str, Any]] = []
        shown = {key: _boarded(value, boards) for key, value in data.items()}
        body = templates.render(name, wrap=False, language=language, **shown).body
        parts.append(blocks(body, boards))
    marks = [SECTION.format(n) for n in range(len(parts))]
    framed = templates.render("_mail.txt", wrap=False, language=language, **{**frame, "sections": marks}).body
    for part in parts:
        for block in part:
            if block["kind"] == "board":
                block["html"] = _drawn(templates, block["game"])
    page = templates.html("_mail.html", language=language, blocks=blocks(framed, [], parts), subject=subject)
    # ASCII, other letters as character references, so the part can travel as 7bit, unencoded
    return _INLINER.inline(page).encode("ascii", "xmlcharrefreplace").decode("ascii")
