"""Rendering the mails: the code passes data, the templates in `templates/` choose the words.

A template starts with `{% set subject %}...{% endset %}`; the rest is the body.

`templates/` sits at the top of the source tree; the wheel carries it as the data of the
package `pbem_templates` (see pyproject.toml), found through `importlib.resources`. Run from a
checkout, the checkout's own folder wins, so an edited template shows at once; the
`templates_dir` setting overrides both.

`templates/html/` holds the HTML part's layout only (`Templates.html`, autoescaped): the
page, the blocks' macros and the one board macro. Its words are the text templates' own, so nothing is worded
twice, and each template is rendered once for both parts: a `Sketch` prints marks where the
parts differ (a game's board, an example move, an example command, a section of the frame),
`Templates.text` turns the marks into the text part's words and wraps the lines, and
`pbem.text.htmlmail` cuts the same sketch, unwrapped, into the HTML part's blocks.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from jinja2 import BaseLoader, Environment, FileSystemLoader, StrictUndefined, Undefined, pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from pbem.mail.message.body import SOFT_BREAK
from pbem.mail.message.reply import MARKERS
from pbem.text import textwidth
from pbem.text.i18n import DEFAULT, Speaker, speaker
from pbem_engine.common.phrases import Phrase

PACKAGE = "pbem_templates"  # the installed name of `templates/`


def packaged() -> Path:
    """The folder of the templates that came with pbem: the checkout's, else the installed package's."""
    checkout = Path(__file__).resolve().parents[2]  # pbem/text/templates.py in a checkout
    if (checkout / "pyproject.toml").is_file() and (checkout / "templates" / "help.txt").is_file():
        return checkout / "templates"
    # A namespace package (the folder has no __init__.py): its one file path names the folder.
    return Path(str(importlib.resources.files(PACKAGE).joinpath("help.txt"))).parent


TEMPLATES = packaged()
WIDTH = 72  # every line of every mail fits a narrow client without reflowing


@dataclass(frozen=True)
class Rendered:
    subject: str
    body: str
    #: the body with `SOFT_BREAK` where the wrapper broke a paragraph's line: what the text
    #: part is written from (`pbem.mail.message.body.format_flowed`), and a frame's sections
    flowed: str = ""


# The marks a sketch prints where the two parts of a mail differ (private-use letters, which
# no template or player writes):
BOARD = "\ue010board {}\ue010"  # a game's board: the text board, or the HTML part's table
SECTION = "\ue010section {}\ue010"  # where the frame (`_mail.txt`) prints a section
MOVE_OPEN, MOVE_CLOSE = "\ue011", "\ue012"  # around an example move
CODE_OPEN, CODE_CLOSE = "\ue013", "\ue014"  # around an example command (`keep` in a template)
MARKS = "\ue010-\ue014"  # every mark's letter, as a range for a regex's [...]
_PLACE = "\ue010(board|section) (\\d+)\ue010"  # a board's or a section's mark: which, and its number
MARK_LINE = re.compile(f"^{_PLACE}$")  # a line that is such a mark alone
_MARKED = re.compile(
    f"{_PLACE}"
    f"|{CODE_OPEN}([^{CODE_CLOSE}]*){CODE_CLOSE}"
    f"|[{MOVE_OPEN}{MOVE_CLOSE}]"
)


def mark(*words: object) -> str:
    """`keep` as a sketch prints it: the example command between marks, which the text part
    turns into `keep`'s unbreakable words and the HTML part into `<code>`."""
    return CODE_OPEN + " ".join(" ".join(str(w) for w in words).split()) + CODE_CLOSE


def _boarded(value: Any, boards: list[dict[str, Any]]) -> Any:
    """`value` with every game view's board swapped for a mark (and its examples marked)."""
    if isinstance(value, dict) and "board" in value and "grid" in value:
        boards.append(value)
        examples = [f"{MOVE_OPEN}{e}{MOVE_CLOSE}" for e in value.get("examples", [])]
        return {**value, "board": BOARD.format(len(boards) - 1), "examples": examples}
    if isinstance(value, list):
        return [_boarded(v, boards) for v in value]
    return value


@dataclass(frozen=True)
class _Reader:
    """What the frame reads of a mail's reader: whether their address is proven (`proven_at`
    None when not)."""

    proven_at: bool | None


@dataclass(frozen=True)
class Sketch:
    """A template rendered once for both parts of a mail, with marks where they differ."""

    language: str
    subject: str  # as the template printed it, marks and all
    body: str
    boards: tuple[dict[str, Any], ...]  # the game views whose boards the marks stand for


_KEEP = "\ue000"  # a space the wrapper must not break at (inside an example command)
_GLUE = "\ue001"  # an example command starts here: glued to the word before it
_GLUED = re.compile(r"(?<=\S)(\s+)(\S*)" + _GLUE)


def keep(*words: object) -> str:
    """An example command for the player to type (`{{ keep("accept", c.id) }}`): never broken
    across lines, and kept on one line with the word before it, so no wrapped line starts
    with it (a line of ours must not read as a command when a client quotes without `>`).
    Wide letters (a Korean or Chinese command word) are joined so no break falls between."""
    said = " ".join(str(w) for w in words)
    kept = _KEEP.join(said.split())
    if not said.isascii():  # the letters, not the marks: `_KEEP` itself is not ASCII
        kept = textwidth.JOIN.join(kept)
    return _GLUE + kept


def _unkept(text: str) -> str:
    return text.replace(_KEEP, " ").replace(_GLUE, "").replace(textwidth.JOIN, "")


MAX_EXAMPLE = 40  # the longest example command kept whole when a template did not mark it
_QUOTED = re.compile(r'"([^"\n\ue001]{1,80})"')
_AFTER_LEAD = re.compile(
    r"(\b(?:(?:[Ww]rite|with|or):?\s+(?:e\.g\.:?\s+)?|e\.g\.:?\s+))"  # "write", "write e.g.", "e.g.", "or"
    r'([^\s"\ue001][^"\ue001]*?)(?=\s+or\s|[,;:]\s|\.\s|\.?$|\s\s)'  # up to " or ", a stop, a gap
)


def _examples(line: str, guard: Callable[[str], bool]) -> str:
    """Example commands a template did not mark, as a command's hint writes them ("Write e.g.
    challenge ataxx bob@example.org, or ..."), marked as `keep` would: after "write" or
    "e.g.", or in quotes, whatever reads as a command (`guard`) stays whole."""

    def command(text: str) -> bool:
        return len(text) <= MAX_EXAMPLE and guard(text)  # a longer run is a sentence, not a command

    def quoted(m: re.Match[str]) -> str:
        return f'"{keep(m.group(1))}"' if command(m.group(1)) else m.group(0)

    def after(m: re.Match[str]) -> str:
        return m.group(1) + keep(m.group(2)) if command(m.group(2)) else m.group(0)

    return _AFTER_LEAD.sub(after, _QUOTED.sub(quoted, line))


_ITEM = re.compile(r"(?:-|\d{1,2}\.) (?=\S)")


def _wrap(line: str, guard: Callable[[str], bool], width: int = WIDTH) -> list[str]:
    """Prose lines wrapped to `width`, keeping indents; boards are narrower and pass untouched.

    An example command (`keep`) is never broken: its line may be wider than `width` rather
    than break what a player copies. A wrapped line must not start like a command (`guard`),
    or a client that quotes without `>` would make us read our own words back: try a little
    narrower until none does."""
    unkept = _unkept(line) if _KEEP in line or _GLUE in line else line
    if textwidth.width(unkept) <= width:
        return [unkept]
    line = _examples(line, guard)
    if _GLUE in line:
        line = _GLUED.sub(lambda m: _KEEP * len(m.group(1)) + m.group(2), line)
    indent = line[: len(line) - len(line.lstrip())]
    item = _ITEM.match(line, len(indent))
    if item:  # a list item ("- ...", "1. ..."): its later lines stand under its text
        indent += " " * len(item.group(0))
    for narrower in range(width, width - 16, -1):
        lines = textwidth.wrap(line, narrower, indent)
        if not any(guard(_unkept(part).strip()) for part in lines[1:]):
            break
    parts = [_unkept(part) for part in lines]
    if indent:  # a list item or an indented line: flowed text has no hanging indent, it stays as is
        return parts
    return [part + SOFT_BREAK for part in parts[:-1]] + parts[-1:]  # a paragraph: its breaks are soft


_CJK_GAP = re.compile("(?<=[。！？]) (?=\\S)")  # one space after a full-width full stop
SIGNATURE = "-- "  # the signature separator: its trailing space is what clients look for


#: a move's coordinates joined by a hyphen ("a10-e6"): a line may not break inside it
_JOINED = re.compile(r"(?<![\w-])[a-z]\d{1,2}(?:-[a-z]\d{1,2})+(?![\w-])")


def unbroken(text: str) -> Markup:
    """`text` escaped for HTML, each move of hyphen-joined coordinates kept on one line (a
    phone would break "a10-e6" after its hyphen). The hyphen stays the ASCII one, so the move
    copied from the mail is the move the server reads."""
    return _unbroken(str(text))


@functools.lru_cache(maxsize=4096)
def _unbroken(text: str) -> Markup:
    """`unbroken` of a text, made once: a mail's hints and footers recur in mail after mail."""
    out, at = [], 0
    for found in _JOINED.finditer(text):
        out.append(escape(text[at:found.start()]))
        out.append(Markup('<span class="nw">%s</span>') % found.group())
        at = found.end()
    out.append(escape(text[at:]))
    return Markup("").join(out)


#: seconds between two looks at a template file for an edit: Jinja looks at every use, and a
#: mail uses a dozen templates (the look was 2-3 % of the daemon's CPU per move)
RECHECK = 1.0


class _Loader(FileSystemLoader):
    """Jinja's loader of template files, which looks whether a file was edited at most once per
    `RECHECK` seconds per template, not at every use: an edited template still shows within
    a second, without a restart."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        looked = [time.monotonic()]

        def unchanged() -> bool:
            now = time.monotonic()
            if now - looked[0] < RECHECK:
                return True
            looked[0] = now
            return uptodate()

        return source, filename, unchanged


class Templates:
    """The Jinja2 environments over `templates/` (or `root`), strict about missing variables:
    one per language, each with Jinja's i18n extension speaking that language."""

    def __init__(
        self, root: Path | None = None, guard: Callable[[str], bool] = lambda line: False
    ) -> None:
        self.root = Path(root) if root is not None else TEMPLATES
        self.guard = guard
        self._wrapped: dict[tuple[str, int], tuple[str, ...]] = {}
        self._frames: dict[tuple, tuple[Any, Sketch]] = {}  # (id(_mail.txt), language, facts) -> its sketch
        self._frames_lock = threading.Lock()
        self._envs: dict[str, Environment] = {}
        self._html_envs: dict[str, Environment] = {}
        self.env = self.environment(DEFAULT)

    def _made(self, loader: BaseLoader, talk: Speaker, html: bool) -> Environment:
        env = Environment(
            loader=loader,
            undefined=StrictUndefined,
            keep_trailing_newline=not html,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=html,
            extensions=["jinja2.ext.i18n"],
            finalize=pass_context(lambda context, value: value if type(value) is str else _spoken(talk, value, context)),
        )
        env.policies["ext.i18n.trimmed"] = True  # a {% trans %} block's line breaks are not words
        env.newstyle_gettext = True  # type: ignore[attr-defined]
        # the new-style callables themselves: they fill in the fields, with numbers as the
        # language writes them (Jinja's own wrappers would format a second time)
        env.globals.update(
            gettext=talk.gettext, _=talk.gettext, ngettext=talk.ngettext,
            pgettext=talk.pgettext, npgettext=talk.npgettext, say=talk.say,
            language=talk.code, speaker=talk,
        )
        return env

    def environment(self, language: str = DEFAULT) -> Environment:
        """The text templates' environment in `language` (made once, on first use)."""
        talk = speaker(language)
        env = self._envs.get(talk.code)
        if env is None:
            env = self._made(_Loader(str(self.root)), talk, html=False)
            env.globals["marker"] = MARKERS.get(talk.code, MARKERS[DEFAULT])
            env.globals["keep"] = mark  # a sketch's mark: `text` makes it `keep`'s words
            env.filters["keep"] = mark
            env.filters["pad"] = lambda text, columns: textwidth.ljust(str(_spoken(talk, text)), columns)
            env.filters["side"] = lambda name: talk.side(name)
            env.filters["aside"] = textwidth.aside
            self._envs[talk.code] = env
        return env

    def html_environment(self, language: str = DEFAULT) -> Environment:
        talk = speaker(language)
        env = self._html_envs.get(talk.code)
        if env is None:
            # a templates_dir of the operator's own may leave out html/: the packaged layout serves
            loader = _Loader([str(self.root / "html"), str(TEMPLATES / "html")])
            env = self._html_envs[talk.code] = self._made(loader, talk, html=True)
            env.filters["unbroken"] = unbroken
        return env

    @property
    def html_env(self) -> Environment:
        return self.html_environment(DEFAULT)

    def names(self) -> list[str]:
        """Every template the server can send (partials start with `_`)."""
        return sorted(
            str(p.relative_to(self.root)) for p in self.root.rglob("*.txt") if not p.name.startswith("_")
        )

    def exists(self, name: str) -> bool:
        return (self.root / name).is_file()

    def sketch(self, name: str, language: str = DEFAULT, **context: Any) -> Sketch:
        """A text template in `language`, rendered once for both parts of a mail."""
        boards: list[dict[str, Any]] = []
        shown = {key: _boarded(value, boards) for key, value in context.items()}
        module = self.environment(language).get_template(name).make_module(shown)
        return Sketch(speaker(language).code, str(getattr(module, "subject", "")), str(module), tuple(boards))

    def frame(self, count: int, language: str = DEFAULT, **facts: Any) -> Sketch:
        """The frame of a mail (`_mail.txt`) with a mark where each of its `count` sections goes.

        The usual frame (no headings, no ignored lines) says the same in every mail with the
        same count of sections, reader's proof of address and game page: sketched once per
        version of `_mail.txt` and language, and kept. It is sketched from those facts alone
        (the reader only as proven or not), so a frame that came to read more of them would fail
        loudly rather than be kept wrong."""
        sections = [SECTION.format(n) for n in range(count)]
        if facts.get("ignored") or any(facts.get("heads") or ()) or self.root != TEMPLATES:
            return self.sketch("_mail.txt", language, sections=sections, **facts)
        template = self.environment(language).get_template("_mail.txt")
        player = facts.get("player")
        reader = None if player is None else _Reader(proven_at=player.proven_at is not None or None)
        key = (id(template), speaker(language).code, count, reader, facts.get("game_url"))
        with self._frames_lock:
            found = self._frames.get(key)
        if found is not None and found[0] is template:  # the entry keeps its template: its id is not reused
            return found[1]
        kept = {"heads": [None] * count, "ignored": [], "player": reader}
        if "game_url" in facts:
            kept["game_url"] = facts["game_url"]
        sketch = self.sketch("_mail.txt", language, sections=sections, **kept)
        with self._frames_lock:
            if len(self._frames) >= 1024:
                self._frames.clear()
            self._frames[key] = (template, sketch)
        return sketch

    def render(self, name: str, language: str = DEFAULT, **context: Any) -> Rendered:
        """The subject and body of a text template in `language`, wrapped: the text part."""
        return self.text(self.sketch(name, language, **context))

    def text(self, sketch: Sketch, sections: Sequence[str] = ()) -> Rendered:
        """The text part of a sketch: its boards as text, its examples as plain words, its
        example commands as `keep` makes them (a frame's `sections` where it marked them),
        every line wrapped."""
        talk = speaker(sketch.language)

        def plain(found: re.Match[str]) -> str:
            if found[1] == "board":
                return str(_spoken(talk, sketch.boards[int(found[2])]["board"]))
            if found[1] == "section":
                return sections[int(found[2])]
            if found[3] is not None:
                return keep(found[3].replace(MOVE_OPEN, "").replace(MOVE_CLOSE, ""))
            return ""

        return self._finished(_MARKED.sub(plain, sketch.subject), _MARKED.sub(plain, sketch.body), WIDTH)

    def unwrapped(self, sketch: Sketch) -> Rendered:
        """A sketch's lines whole and its marks kept: what `pbem.text.htmlmail` cuts into blocks."""
        return self._finished(sketch.subject, sketch.body, 1 << 20)

    def _finished(self, subject: str, body: str, width: int) -> Rendered:
        subject = " ".join(_unkept(subject).split())
        lines: list[str] = []
        append, extend, wrapped = lines.append, lines.extend, self._wrapped_line
        chinese = "。" in body or "！" in body or "？" in body  # asked once per body, not per line
        for line in body.strip("\n").splitlines():
            # no trailing blanks, but the signature separator keeps its one space, so clients
            # know the footer and leave it out of the quote
            line = line.rstrip()
            if line == "--":
                line = SIGNATURE
            if chinese and ("。" in line or "！" in line or "？" in line):
                line = _CJK_GAP.sub("", line)  # sentences joined by a space: Chinese puts none after 。
            if len(line) <= width and line.isascii():  # ASCII: neither `_KEEP` nor `_GLUE` is in it
                append(line)  # what `_wrap` makes of a line that fits, without the call
            else:
                extend(wrapped(line, width))
        collapsed: list[str] = []
        for line in lines:  # templates may leave runs of blank lines where blocks are empty
            if line or (collapsed and collapsed[-1]):
                collapsed.append(line)
        flowed = "\n".join(collapsed).strip("\n") + "\n"
        return Rendered(subject=subject, body=flowed.replace(SOFT_BREAK, ""), flowed=flowed)

    def _wrapped_line(self, line: str, width: int) -> tuple[str, ...]:
        """`_wrap` of a line, wrapped once: the same lines (a footer, a hint, a board's
        legend) recur in mail after mail."""
        key = (line, width)
        found = self._wrapped.get(key)
        if found is None:
            if len(self._wrapped) >= 8192:
                self._wrapped.clear()
            found = self._wrapped[key] = tuple(_wrap(line, self.guard, width))
        return found

    def html(self, name: str, language: str = DEFAULT, **context: Any) -> str:
        """An HTML template of `templates/html/`, every value escaped."""
        return self.html_environment(language).get_template(name).render(context)


#: the fields of a phrase that hold words a player types back (`Write {command} to see yours.`)
TYPED = ("example", "command", "jumps")


def _spoken(talk: Speaker, value: Any, context: Context | None = None) -> Any:
    """What `{{ value }}` prints: a phrase, a moment or a view that speaks, in the language.

    A phrase's typed fields go through the template's `keep` (looked up in `context`), as an
    example command written in the template itself would: never broken, and code in the HTML part."""
    if isinstance(value, str | int | Undefined) or value is None:
        return value
    if isinstance(value, Phrase):
        kept = context.resolve("keep") if context is not None else None
        if callable(kept) and any(key in value.params for key in TYPED):
            params = {
                key: ([kept(v) for v in item] if isinstance(item, list | tuple) else kept(item))
                if key in TYPED else item
                for key, item in value.params.items()
            }
            value = Phrase(value.text, params, value.plural, value.count)
        return talk.say(value)
    if isinstance(value, datetime):
        return talk.moment(value)
    spoken = getattr(value, "spoken", None)
    if spoken is not None and callable(spoken):
        return spoken(talk)
    return value
