"""Rendering the mails: the code passes data, the templates in `templates/` choose the words.

A template starts with `{% set subject %}...{% endset %}`; the rest is the body.

`templates/` sits at the top of the source tree; the wheel carries it as the data of the
package `pbem_templates` (see pyproject.toml), found through `importlib.resources`. Run from a
checkout, the checkout's own folder wins, so an edited template shows at once; the
`templates_dir` setting overrides both.

`templates/html/` holds the HTML part's layout only (`Templates.html`, autoescaped): the
frame and the one board macro. Its words are the text templates' own, rendered unwrapped
and cut into blocks by `pbem.htmlmail`, so nothing is worded twice.
"""

from __future__ import annotations

import importlib.resources
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from pbem.mail.reply import MARKER

PACKAGE = "pbem_templates"  # the installed name of `templates/`


def packaged() -> Path:
    """The folder of the templates that came with pbem: the checkout's, else the installed package's."""
    checkout = Path(__file__).resolve().parent.parent
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


_KEEP = "\ue000"  # a space the wrapper must not break at (inside an example command)
_GLUE = "\ue001"  # an example command starts here: glued to the word before it
_GLUED = re.compile(r"(?<=\S)(\s+)(\S*)" + _GLUE)


def keep(*words: object) -> str:
    """An example command for the player to type (`{{ keep("accept", c.id) }}`): never broken
    across lines, and kept on one line with the word before it, so no wrapped line starts
    with it (a line of ours must not read as a command when a client quotes without `>`)."""
    return _GLUE + _KEEP.join(" ".join(str(w) for w in words).split())


def _unkept(text: str) -> str:
    return text.replace(_KEEP, " ").replace(_GLUE, "")


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


def _wrap(line: str, guard: Callable[[str], bool], width: int = WIDTH) -> list[str]:
    """Prose lines wrapped to `width`, keeping indents; boards are narrower and pass untouched.

    An example command (`keep`) is never broken: its line may be wider than `width` rather
    than break what a player copies. A wrapped line must not start like a command (`guard`),
    or a client that quotes without `>` would make us read our own words back: try a little
    narrower until none does."""
    unkept = _unkept(line) if _KEEP in line or _GLUE in line else line
    if len(unkept) <= width:
        return [unkept]
    line = _examples(line, guard)
    if _GLUE in line:
        line = _GLUED.sub(lambda m: _KEEP * len(m.group(1)) + m.group(2), line)
    indent = line[: len(line) - len(line.lstrip())]
    for narrower in range(width, width - 16, -1):
        lines = textwrap.wrap(
            line, narrower, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
        ) or [line]
        if not any(guard(_unkept(part).strip()) for part in lines[1:]):
            break
    return [_unkept(part) for part in lines]


SIGNATURE = "-- "  # the signature separator: its trailing space is what clients look for


def _trimmed(line: str) -> str:
    """A line without trailing blanks, but the signature separator keeps its one space, so
    clients know the footer and leave it out of the quote."""
    trimmed = line.rstrip()
    return SIGNATURE if trimmed == SIGNATURE.strip() else trimmed


class Templates:
    """The Jinja2 environment over `templates/` (or `root`), strict about missing variables."""

    def __init__(
        self, root: Path | None = None, guard: Callable[[str], bool] = lambda line: False
    ) -> None:
        self.root = Path(root) if root is not None else TEMPLATES
        self.guard = guard
        self.env = Environment(
            loader=FileSystemLoader(str(self.root)),
            undefined=StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=False,
        )
        self.env.globals["marker"] = MARKER
        self.html_env = Environment(
            # a templates_dir of the operator's own may leave out html/: the packaged layout serves
            loader=FileSystemLoader([str(self.root / "html"), str(TEMPLATES / "html")]),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=True,
        )
        self.env.globals["keep"] = keep
        self.env.filters["keep"] = keep

    def names(self) -> list[str]:
        """Every template the server can send (partials start with `_`)."""
        return sorted(
            str(p.relative_to(self.root)) for p in self.root.rglob("*.txt") if not p.name.startswith("_")
        )

    def exists(self, name: str) -> bool:
        return (self.root / name).is_file()

    def render(self, name: str, wrap: bool = True, **context: Any) -> Rendered:
        """The subject and body of a text template; `wrap=False` leaves each line whole (for the
        HTML part, where the mail program wraps)."""
        module = self.env.get_template(name).make_module(context)
        subject = " ".join(_unkept(str(getattr(module, "subject", ""))).split())
        body = str(module).strip("\n")
        width = WIDTH if wrap else 1 << 20
        lines: list[str] = []
        for line in body.splitlines():
            line = _trimmed(line)
            if len(line) <= width and _KEEP not in line and _GLUE not in line:
                lines.append(line)  # what `_wrap` makes of a line that fits, without the call
            else:
                lines.extend(_wrap(line, self.guard, width))
        collapsed: list[str] = []
        for line in lines:  # templates may leave runs of blank lines where blocks are empty
            if line or (collapsed and collapsed[-1]):
                collapsed.append(line)
        return Rendered(subject=subject, body="\n".join(collapsed).strip("\n") + "\n")

    def html(self, name: str, **context: Any) -> str:
        """An HTML template of `templates/html/`, every value escaped."""
        return self.html_env.get_template(name).render(context)
