"""The reader's language, and the page templates (`templates/web/`) speaking it.

`?lang=CODE` (a link on every page) wins; else the Accept-Language header, negotiated by
Babel against the six languages; else English. The templates are Jinja2 with the i18n
extension over pbem's catalogs (`pbem.text.i18n`), autoescaped, one environment per language.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from babel.core import negotiate_locale
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from pbem.text.i18n import DEFAULT, LANGUAGES, Speaker, speaker
from pbem.text.templates import packaged
from pbem_engine.common.phrases import Phrase

#: the `lang` of a page where the code alone says too little (as the HTML mails have it)
HTML_LANG = {"zh": "zh-Hans"}


def accepted(header: str | None) -> list[str]:
    """The languages of an Accept-Language header, most wanted first (q=0 left out)."""
    wanted: list[tuple[float, int, str]] = []
    for n, part in enumerate((header or "").split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and quality > 0:
            wanted.append((-quality, n, tag.replace("_", "-").lower()))
    return [tag for _, _, tag in sorted(wanted)]


def choose(query_lang: str | None, header: str | None) -> tuple[str, bool]:
    """The page's language and whether a link chose it (then every link of the page keeps it)."""
    if query_lang in LANGUAGES:
        return query_lang, True
    tags = [t.split("-")[0] if t.startswith("zh") else t for t in accepted(header)]
    found = negotiate_locale(tags, list(LANGUAGES), sep="-")
    return (found if found in LANGUAGES else DEFAULT), False


def _speak(talk: Speaker, value: Any) -> Any:
    if isinstance(value, Phrase):
        return talk.say(value)
    return value


@cache
def environment(code: str) -> Environment:
    """The page templates in language `code` (made once)."""
    talk = speaker(code)
    env = Environment(
        loader=FileSystemLoader(str(packaged() / "web")),
        undefined=StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
        finalize=lambda value: _speak(talk, value),
    )
    env.policies["ext.i18n.trimmed"] = True
    env.newstyle_gettext = True  # type: ignore[attr-defined]
    env.globals.update(
        gettext=talk.gettext, _=talk.gettext, ngettext=talk.ngettext, pgettext=talk.pgettext,
        npgettext=talk.npgettext, say=talk.say, language=talk.code, speaker=talk,
        html_lang=HTML_LANG.get(talk.code, talk.code), languages=LANGUAGES,
    )
    env.filters["moment"] = talk.moment
    env.filters["day"] = talk.date
    env.filters["number"] = talk.number
    return env


class Linker:
    """The page's links: each keeps the language when a link chose it (`?lang=`)."""

    def __init__(self, code: str, chosen: bool) -> None:
        self.code, self.chosen = code, chosen

    def __call__(self, path: str, **params: Any) -> str:
        query = {k: v for k, v in params.items() if v is not None}
        if self.chosen:
            query["lang"] = self.code
        return path + ("?" + urlencode(query) if query else "")

    def other(self, path: str, code: str, **params: Any) -> str:
        query = {k: v for k, v in params.items() if v is not None}
        query["lang"] = code
        return path + "?" + urlencode(query)


def page(code: str, chosen: bool, name: str, nonce: str, **context: Any) -> str:
    """A page: template `name` in language `code`, its links keeping the language if chosen."""
    template = environment(code).get_template(name)
    return template.render(url=Linker(code, chosen), nonce=nonce, **context)


def markup(svg: str) -> Markup:
    """An SVG drawn by `pbem.web.drawing` (every text in it escaped there)."""
    return Markup(svg)


def templates_root() -> Path:
    return packaged() / "web"
