"""The HTML part of a mail: the text part's own words, with the boards drawn as tables.

Nothing is worded twice, and nothing is rendered twice: each section's sketch
(`pbem.text.templates.Sketch`), the one rendering that also gives the text part, is taken
unwrapped, with its marks: every game's board a mark line, every example move and every
example command (`keep` in a template) between marks. That text is cut into blocks
(paragraphs, indented lines, the separator, the footer), the mark line becomes the game's
board (`pbem.text.boards.grid`, drawn by `templates/html/_board.html`), and example moves and the
commands the templates marked become `<code>`: no English word tells where a command is, so
any language works. The frame (`_mail.txt`) is sketched once too, with a mark per section,
so its words are the text part's. `templates/html/_blocks.html` lays the blocks out and
`templates/html/_mail.html` is the page around them; Jinja2 escapes every word (autoescape),
and css-inline moves the stylesheet into style attributes, keeping the `@media
(prefers-color-scheme: dark)` rules in the head for the clients that read it.

What is the same from mail to mail is made once and kept: the page around the blocks per
language (`_shell`), a board's table per version of a game and language (`_drawn`) and that
table with its styles inlined (`_INLINED`, shared by the mover's and the opponent's mails),
a line's pieces (`tokens`). css-inline then reads a page without the boards it has seen.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import css_inline
from jinja2 import Template, UndefinedError
from markupsafe import Markup, escape

from pbem.text import boards
from pbem.text.i18n import DEFAULT, known
from pbem.text.templates import (
    CODE_CLOSE,
    CODE_OPEN,
    MARK_LINE,
    MARKS,
    MOVE_CLOSE,
    MOVE_OPEN,
    Sketch,
    Templates,
)

# (pbem.text.templates keeps U+E000 and U+E001 for the example commands it never breaks)
_INLINER = css_inline.CSSInliner(keep_at_rules=True, minify_css=True, load_remote_stylesheets=False)
#: the quotation marks around a command, opening -> closing: they go, the command is `<code>`
QUOTES = {'"': '"', "\u201c": "\u201d", "\u201e": "\u201c", "\u00ab": "\u00bb", "\u300c": "\u300d", "\u300e": "\u300f"}
_CODE = re.compile(
    f"(?P<open>[{re.escape(''.join(QUOTES))}]?)"  # a quote before a command, dropped with its pair
    f"{CODE_OPEN}(?P<code>[^{CODE_CLOSE}]*){CODE_CLOSE}"  # an example command (`keep`)
    f"(?P<close>[{re.escape(''.join(sorted(set(QUOTES.values()))))}]?)"
    f"|{MOVE_OPEN}(?P<move>[^{MOVE_CLOSE}]*){MOVE_CLOSE}"  # an example move
    # what a mail quotes of the player's own words ("I could not do "move z9""), in plain
    # quotes as a template writes a field: not a guess at a command from the words around it
    f'|"(?P<quoted>[^"\\s{MARKS}][^"{MARKS}]{{0,58}})"'
)
_SPACES = re.compile(r"\s{2,}")  # the text part's gaps around examples: one space in HTML
_DRAWN: dict[tuple[int, str], tuple[dict[str, Any], str, Markup]] = {}  # (id(grid), language) -> (grid, kind, table)
_DRAWN_MAX = 64
_DRAWN_LOCK = threading.Lock()
#: the `lang` of the page, where the code alone says too little
HTML_LANG = {"zh": "zh-Hans"}


#: an example command that is one example move and nothing else (`keep(game.examples[0])`):
#: shown as the move, its quotes kept
_KEPT_MOVE = re.compile(f"{CODE_OPEN}({MOVE_OPEN}[^{MOVE_OPEN}{CODE_CLOSE}]*{MOVE_CLOSE}){CODE_CLOSE}")


def _drawn(templates: Templates, game: dict[str, Any], language: str = DEFAULT) -> Markup:
    """The board of a game view as HTML, drawn once per grid and language: the views of one
    version of a game share their grid (`pbem.letters.views`), so the mover's mail and the
    opponent's draw it once. The entry keeps the grid itself, so its id is not reused while
    cached."""
    grid, kind = boards.grid_for(game, language), game.get("kind")  # its legend in the language
    with _DRAWN_LOCK:  # the inbound runner, the clock round and the bot runner render at once
        found = _DRAWN.get((id(grid), language))
    if found is not None and found[0] is grid and found[1] == kind:
        return found[2]
    html = templates.html_environment(language).get_template("_board.html").module.board({**game, "grid": grid})
    with _DRAWN_LOCK:
        if len(_DRAWN) >= _DRAWN_MAX:
            _DRAWN.clear()
        _DRAWN[(id(grid), language)] = (grid, kind, html)
    return html


#: the widest board the mail draws in full: a wider one is drawn compact (`_board.html`)
FULL_COLUMNS = 19


def compact(game: dict[str, Any], language: str = DEFAULT) -> bool:
    """Whether the board of a game view is too wide for a phone, drawn compact."""
    return len(boards.grid_for(game, language)["columns"]) > FULL_COLUMNS


def _unmarked(text: str) -> str:
    return re.sub(f"[{MARKS}]", "", text)


#: the address of a game's page (pbem.letters.weblinks): a link in the HTML part
_PAGE = re.compile(r"https?://[^\s\"<>]+/g/\d+-[0-9a-f]+\b")


def _linked(pieces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for text, kind in pieces:
        if kind:
            out.append((text, kind))
            continue
        at = 0
        for found in _PAGE.finditer(text):
            if found.start() > at:
                out.append((text[at:found.start()], ""))
            out.append((found.group(), "link"))
            at = found.end()
        if at < len(text):
            out.append((text[at:], ""))
    return out


def tokens(line: str) -> list[tuple[str, str]]:
    """A line of prose as (text, kind) pieces: kind "" for words, "move" for an example move
    (shown boldly: a legal move one can copy), "code" for a command the template marked with
    `keep` (its quotes left out) or the player's own words in plain quotes, "link" for the
    address of a game's web page."""
    return list(_tokens(line))


@functools.lru_cache(maxsize=4096)
def _tokens(line: str) -> tuple[tuple[str, str], ...]:
    """`tokens` of a line, cut once: a mail's hints and footers recur in mail after mail."""
    pieces: list[tuple[str, str]] = []
    at = 0
    for found in _CODE.finditer(line):
        before = line[at : found.start()]
        if found["code"] is not None:
            opened, closed = found["open"], found["close"]
            paired = bool(opened) and QUOTES[opened] == closed
            pieces.append((before + ("" if paired else opened), ""))
            code = found["code"]
            pieces.append((_unmarked(code), "move" if MOVE_OPEN in code else "code"))
            if not paired and closed:
                pieces.append((closed, ""))
        elif found["move"] is not None:
            pieces.append((before, ""))
            pieces.append((found["move"], "move"))
        else:
            pieces.append((before, ""))
            pieces.append((found["quoted"], "code"))
        at = found.end()
    pieces.append((line[at:], ""))
    joined: list[tuple[str, str]] = []
    for text, kind in pieces:
        if not kind:
            text = _SPACES.sub(" ", _unmarked(text))
        if not text:
            continue
        if joined and not kind and not joined[-1][1]:
            joined[-1] = (joined[-1][0] + text, "")
        else:
            joined.append((text, kind))
    return tuple(_linked(joined))


def blocks(text: str, boards: Sequence[dict[str, Any]], sections: Sequence[list] = ()) -> list[dict[str, Any]]:
    """The text cut into blocks for `_mail.html`: `p` (lines of tokens), `pre` (indented
    lines, kept as they are; `columns` when they are a table), `list` (a list of commands,
    `rows` of (command, what it does)), `quote` (lines quoted with ">", a player's relayed words), `rule` (the separator of sections), `board`, `section`, `footer`."""
    out: list[dict[str, Any]] = []
    footer = False

    def add(kind: str, line: Any) -> None:
        if out and out[-1]["kind"] == kind and kind in ("p", "pre", "quote", "footer"):
            out[-1]["lines"].append(line)
        else:
            out.append({"kind": kind, "lines": [line]})

    for line in text.splitlines():
        marker = MARK_LINE.match(line.strip())
        if marker:
            n = int(marker[2])
            if marker[1] == "board":
                out.append({"kind": "board", "game": boards[n]})
            else:
                out.append({"kind": "section", "blocks": sections[n]})
        elif line.rstrip() == "--":
            footer = True
        elif footer:
            add("footer", _tokens(line))
        elif not line.strip():
            out.append({"kind": "gap"})
        elif line.strip() == "* * *":
            out.append({"kind": "rule"})
        elif line.startswith(">"):  # a player's own words, relayed: a quotation, never code
            add("quote", _unmarked(line[1:].removeprefix(" ")))
        elif line.startswith("  "):
            add("pre", _unmarked(line))  # kept as it is, without the marks of its examples
        else:
            add("p", _tokens(line))
    return [_listed(b) for b in out if b["kind"] != "gap"]


#: an item of an indented list of commands: "  - challenge GAME ADDRESS   invite someone"
_ITEM = re.compile(r"^\s+- (\S.*?)\s{2,}(\S.*)$")


def _listed(block: dict[str, Any]) -> dict[str, Any]:
    """An indented list of commands (a `pre` block whose lines are "- command  what it does",
    with notes of one column between them) as a `list`: a table of two columns whose second
    wraps, so a phone shows it whole rather than cut at the width of its longest line."""
    if block["kind"] != "pre":
        return block
    # columns (a table of figures) scroll in their box; other indented lines wrap
    block["columns"] = any(re.search(r"\S\s{2,}\S", line) for line in block["lines"])
    rows: list[tuple[str | None, str]] = []
    for line in block["lines"]:
        item = _ITEM.match(line)
        if item is not None:
            rows.append((item[1], item[2]))
        elif re.search(r"\S\s{2,}\S", line) or not line.strip():
            return block  # columns of another kind (a table of figures): kept as it is
        else:
            rows.append((None, line.strip()))
    return {"kind": "list", "rows": rows} if sum(term is not None for term, _ in rows) >= 2 else block


def render(
    templates: Templates,
    sections: Sequence[tuple[str, dict[str, Any]]],
    frame: dict[str, Any],
    subject: str,
    *,
    language: str = DEFAULT,
) -> str:
    """The HTML part of a mail of `sections` ((template, data) each) in the frame `_mail.txt`
    (with `frame` as its data), titled `subject`, in `language` (`page`, sketching them here)."""
    sketches = [templates.sketch(name, language, **data) for name, data in sections]
    return page(templates, sketches, templates.frame(len(sketches), language, **frame), subject, language=language)


def page(
    templates: Templates,
    sections: Sequence[Sketch],
    frame: Sketch,
    subject: str,
    *,
    language: str = DEFAULT,
    game_url: str | None = None,
) -> str:
    """The HTML part of a mail of the sketched `sections` in the sketched `frame` (which
    marks where each goes), titled `subject`, in `language`: styles inlined, ready to send.
    `game_url`, the page of the game the mail is about, follows each board too wide for a
    phone, which the mail draws compact."""
    language = known(language)
    parts = [blocks(_html_marks(templates.unwrapped(sketch).body), sketch.boards) for sketch in sections]
    framed = _html_marks(templates.unwrapped(frame).body)
    shell = _shell(templates, language)  # None: an operator's own `_mail.html`, which shows its blocks itself
    drawn: list[tuple[Markup, str | None]] = []  # the boards the page shows, and each inlined before
    for part in parts:
        for block in part:
            if block["kind"] == "board":
                block["html"] = _drawn(templates, block["game"], language)
                if shell is not None:
                    drawn.append((block["html"], _inlined(shell, block["html"])))
                    block["html"] = _board_mark(len(drawn) - 1, *drawn[-1])
                if game_url is not None and compact(block["game"], language):
                    block["link"] = game_url
    framed_blocks = blocks(framed, [], parts)
    if shell is None:
        html = templates.html("_mail.html", language=language, blocks=framed_blocks, subject=subject,
                              lang=HTML_LANG.get(language, language))
        html = _INLINER.inline(html)
    else:
        macros = templates.html_environment(language).get_template("_blocks.html")
        show = macros.module.show  # type: ignore[attr-defined]
        _shown_lines(macros, framed_blocks)
        html = _with_boards(shell, _INLINER.inline(shell.head + str(escape(subject)) + shell.middle
                                                   + str(show(framed_blocks)) + shell.tail), drawn)
    # ASCII, other letters as character references, so the part can travel as 7bit, unencoded
    return html.encode("ascii", "xmlcharrefreplace").decode("ascii")


#: where a mark stands in a page while its styles are inlined (private-use letters, which no
#: mail writes): the title and the blocks in `_Shell`; a board inlined before (its number in
#: the mail), and around a board inlined with the page, which is kept for the next mail
_TITLE_MARK, _BODY_MARK, _BOARD_MARK = "\ue020title\ue020", "\ue020body\ue020", "\ue020board {}\ue020"
_BOARD_START, _BOARD_END = "\ue021{}\ue021", "\ue022{}\ue022"


@dataclass(frozen=True)
class _Shell:
    """The page of `_mail.html` around its title and its blocks: the same for every mail in a
    language, so rendered once (the head's stylesheet and its rules for every board size)."""

    template: Template  # the `_mail.html` it was rendered from: an edited file is a new one
    language: str
    head: str
    middle: str
    tail: str


_SHELLS: dict[tuple[int, str], tuple[Template, _Shell | None]] = {}  # (id(template), language) -> ...
_SHELLS_MAX = 64
_SHELLS_LOCK = threading.Lock()


def _shell(templates: Templates, language: str) -> _Shell | None:
    """The page around a mail's title and blocks in `language`, rendered once per version of
    `_mail.html`; None for a `_mail.html` that shows its blocks itself (an operator's own)."""
    template = templates.html_environment(language).get_template("_mail.html")
    key = (id(template), language)
    with _SHELLS_LOCK:
        found = _SHELLS.get(key)
    if found is not None and found[0] is template:  # the entry keeps its template: its id is not reused
        return found[1]
    shell = None
    try:
        page = template.render(subject=Markup(_TITLE_MARK), body=Markup(_BODY_MARK),
                               lang=HTML_LANG.get(language, language))
    except UndefinedError:  # no `body`: it shows `blocks` itself
        page = ""
    head, _, rest = page.partition(_TITLE_MARK)
    middle, _, tail = rest.partition(_BODY_MARK)
    if page.count(_TITLE_MARK) == 1 and page.count(_BODY_MARK) == 1 and _TITLE_MARK not in tail:
        shell = _Shell(template, language, head, middle, tail)
    with _SHELLS_LOCK:
        if len(_SHELLS) >= _SHELLS_MAX:
            _SHELLS.clear()
        _SHELLS[key] = (template, shell)
    return shell


_INLINED: dict[str, tuple[_Shell, str]] = {}  # a board's HTML -> (its page, the board with styles inlined)
_INLINED_MAX = 64
_INLINED_LOCK = threading.Lock()


def _inlined(shell: _Shell, board: Markup) -> str | None:
    """The board with the styles of the page inlined, when a mail inlined it before (the
    mover's and the opponent's mails show the same board)."""
    with _INLINED_LOCK:
        found = _INLINED.get(str(board))
    return found[1] if found is not None and found[0] is shell else None


def _board_mark(n: int, board: Markup, inlined: str | None) -> Markup:
    """What the page shows of its `n`th board while css-inline reads it: a mark for a board
    inlined before, else the board between marks, so that its inlined HTML is kept. A board's
    styles come from its own classes alone: inlined in one page, it is what any page makes of it."""
    if inlined is not None:
        return Markup(_BOARD_MARK.format(n))
    return Markup(_BOARD_START.format(n)) + board + Markup(_BOARD_END.format(n))


def _with_boards(shell: _Shell, html: str, boards: Sequence[tuple[Markup, str | None]]) -> str:
    """The inlined page with its boards: those inlined before in place of their marks, those
    inlined with it kept for the next mail, their marks gone."""
    for n, (board, inlined) in enumerate(boards):
        if inlined is not None:
            html = html.replace(_BOARD_MARK.format(n), inlined, 1)
            continue
        start, end = _BOARD_START.format(n), _BOARD_END.format(n)
        inlined = html[html.index(start) + len(start) : html.index(end)]
        html = html.replace(start, "", 1).replace(end, "", 1)
        with _INLINED_LOCK:
            if len(_INLINED) >= _INLINED_MAX:
                _INLINED.clear()
            _INLINED[str(board)] = (shell, inlined)
    return html


_LINES: dict[tuple[int, tuple[tuple[str, str], ...]], tuple[Template, Markup]] = {}  # (id(_blocks.html), pieces)
_LINES_MAX = 4096
_LINES_LOCK = threading.Lock()


def _shown_lines(macros: Template, shown: list[dict[str, Any]]) -> None:
    """The lines of the paragraphs and footers of `shown` (and of its sections) as
    `_blocks.html`'s `line` shows them, each line shown once: a mail's hints and footers recur
    in mail after mail."""
    line = macros.module.line  # type: ignore[attr-defined]
    for block in shown:
        if block["kind"] == "section":
            _shown_lines(macros, block["blocks"])
        elif block["kind"] in ("p", "footer"):
            lines = []
            for pieces in block["lines"]:
                key = (id(macros), pieces)
                with _LINES_LOCK:
                    found = _LINES.get(key)
                if found is None or found[0] is not macros:  # the entry keeps its template: its id is not reused
                    found = (macros, line(pieces))
                    with _LINES_LOCK:
                        if len(_LINES) >= _LINES_MAX:
                            _LINES.clear()
                        _LINES[key] = found
                lines.append(found[1])
            block["lines"] = lines


def _html_marks(text: str) -> str:
    """A sketch's marks as the HTML part reads them: a kept example move is the move."""
    return _KEPT_MOVE.sub(r"\1", text) if CODE_OPEN in text else text
