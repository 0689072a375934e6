"""The languages pbem speaks, and a `Speaker` that says things in one of them.

Catalogs are gettext files made with Babel: `pbem/text/locale/<code>/LC_MESSAGES/messages.po`,
compiled beside them to `messages.mo` (`python -m pbem.text.catalogs` extracts, updates,
compiles and checks them). English is the source language: its words are the msgids, so
English needs no catalog.

Two kinds of template meet here: Jinja's `{% trans %}` blocks (`%(name)s` fields, the
new-style gettext Jinja calls with the variables as keywords) and the `Phrase`s of the
engine and the service (`{name}` fields). Both have their numbers written as the
reader's locale writes them, except identifiers, which a player types back.
"""

from __future__ import annotations

import gettext as _gettext
from collections.abc import Mapping
from datetime import date, datetime, tzinfo
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.dates import format_date, format_datetime, format_skeleton
from babel.numbers import format_decimal, format_percent
from babel.support import Translations

import pbem_bots
from pbem_engine.common.phrases import Phrase

DEFAULT = "en"
#: code -> the language's own name, as a player looks for it
LANGUAGES: dict[str, str] = {
    "en": "English",
    "it": "italiano",
    "ru": "русский",
    "uk": "українська",
    "ko": "한국어",
    "zh": "中文",
}
LOCALES = Path(__file__).resolve().parent / "locale"
DOMAIN = "messages"


def N_(text: str) -> str:
    """Marks a msgid for the catalogs where it is written; translated where it is shown."""
    return text


def NP_(context: str, text: str) -> str:
    """Marks a msgid with a context (`NP_("side", "black")`): the same English word may need
    different words elsewhere."""
    return text


def known(code: str | None) -> str:
    """A language we speak: `code` itself, or the default."""
    return code if code in LANGUAGES else DEFAULT


@cache
def translations(code: str) -> _gettext.NullTranslations:
    """The compiled catalog of a language (English: none, its msgids are its words)."""
    if code == DEFAULT:
        return _gettext.NullTranslations()
    return Translations.load(str(LOCALES), [code], DOMAIN)


#: where a language honours a person after their name, and what it writes after a bot's
#: instead: the Korean catalog writes `%(name)s님` ("bob님이 d4 수를 뒀어요"), and a program
#: is no 님 but a 봇 ("bot-ataxx-2 봇이 d4 수를 뒀어요"); both end in a consonant, so the
#: particles the catalog wrote after them stay right
HONORIFICS: dict[str, tuple[str, str]] = {"ko": ("님", " 봇")}


def _is_identifier(key: str) -> bool:
    return key in ("id", "game", "challenge", "year") or key.endswith("_id")


class Speaker:
    """Words, numbers and dates in one language; one per language is enough (`speaker`)."""

    def __init__(self, code: str) -> None:
        self.code = known(code)
        self.locale = Locale.parse(self.code)
        self._catalog = translations(self.code)
        self._honorific = HONORIFICS.get(self.code)
        self._numbers: dict[tuple[type, float], str] = {}  # what Babel wrote, kept: it writes slowly
        self._moments: dict[tuple[datetime, tzinfo | None, tzinfo | None], str] = {}
        self._dates: dict[tuple[type, date, tzinfo | None], str] = {}

    def __repr__(self) -> str:
        return f"Speaker({self.code!r})"

    # -- values --------------------------------------------------------------------------
    def number(self, value: float) -> str:
        key = (type(value), value)
        said = self._numbers.get(key)
        if said is None:  # Babel's formatting is slow; the same few numbers recur in every mail
            if len(self._numbers) >= 4096:
                self._numbers.clear()
            said = self._numbers[key] = format_decimal(value, locale=self.locale)
        return said

    def percent(self, fraction: float, digits: int = 2) -> str:
        pattern = "#,##0." + "0" * digits + " %" if digits else "#,##0 %"
        return format_percent(fraction, pattern, locale=self.locale)

    def listing(self, items: list[str]) -> str:
        """Items of a list (moves, games, options) as the language separates them: a list of
        alternatives, so no "and" before the last (which Babel's lists would add)."""
        return ("、" if self.code == "zh" else ", ").join(str(i) for i in items)

    def moment(self, moment: datetime, zone: tzinfo | None = None) -> str:
        """A moment as the locale writes it, with its zone's name: "Tue 8 Dec 2026, 14:00
        Europe/Rome". An aware `moment` is shown in its own zone unless `zone` is given."""
        zone = zone or moment.tzinfo
        key = (moment, moment.tzinfo, zone)  # aware moments equal at one instant: their zones tell them apart
        said = self._moments.get(key)
        if said is not None:  # a mail's two parts (and both players' mails) say the same deadline
            return said
        if self.code == DEFAULT:  # the form English mails have always had
            day = format_datetime(moment, "EEE d MMM y, HH:mm", tzinfo=zone, locale=self.locale)
        else:
            day = (f"{format_skeleton('yMMMEd', moment, tzinfo=zone, locale=self.locale)} "
                   f"{format_skeleton('Hm', moment, tzinfo=zone, locale=self.locale)}")
        if len(self._moments) >= 4096:
            self._moments.clear()
        said = self._moments[key] = f"{day} {getattr(zone, 'key', 'UTC')}"
        return said

    def date(self, day: date | datetime) -> str:
        key = (type(day), day, getattr(day, "tzinfo", None))
        said = self._dates.get(key)
        if said is None:
            if len(self._dates) >= 4096:
                self._dates.clear()
            said = self._dates[key] = format_date(day, "medium", locale=self.locale)
        return said

    def value(self, key: str, value: Any) -> Any:
        """A parameter as this language shows it."""
        if type(value) is str:  # the most common parameter, shown as it is
            return value
        if isinstance(value, Phrase):
            return self.say(value)
        if isinstance(value, datetime):
            return self.moment(value)
        spoken = getattr(value, "spoken", None)  # a view's board, day, ... says itself
        if callable(spoken):
            return spoken(self)
        if isinstance(value, bool) or _is_identifier(key):
            return value
        if isinstance(value, int | float):
            return self.number(value)
        if isinstance(value, list | tuple) and all(isinstance(v, str | Phrase) for v in value):
            return self.listing([self.value(key, v) for v in value])
        return value

    def _values(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {key: self.value(key, value) for key, value in params.items()}

    def _named(self, template: str, params: Mapping[str, Any], field: str = "%({})s") -> str:
        """`template` with the honorific after a bot's name (`HONORIFICS`) made the word for a
        bot; `field` is how the template writes a parameter."""
        if self._honorific is None or self._honorific[0] not in template:
            return template
        honorific, plain = self._honorific
        for key, value in params.items():
            if type(value) is str and pbem_bots.is_name(value):
                named = field.format(key)
                template = template.replace(named + honorific, named + plain)
        return template

    # -- words ---------------------------------------------------------------------------
    def say(self, said: Phrase | str) -> str:
        """A phrase (or a msgid marked with `N_`) in this language."""
        if not isinstance(said, Phrase):
            return self._catalog.gettext(said) if said else said
        if said.plural is not None:
            template = self._catalog.ngettext(said.text, said.plural, said.count or 0)
        else:
            template = self._catalog.gettext(said.text)
        return self._named(template, said.params, "{{{}}}").format_map(self._values(said.params))

    def side(self, name: str) -> str:
        """A side's name ("black", "x") as this language calls it (`NP_("side", ...)`)."""
        return self._catalog.pgettext("side", name)

    def gettext(self, message: str, **variables: Any) -> str:
        """Jinja's new-style gettext: the translation with its `%(name)s` fields filled."""
        if isinstance(message, Phrase):  # `_(game.title)` of a value that is a phrase already
            return self.say(message)
        return self._named(self._catalog.gettext(message), variables) % self._values(variables)

    def ngettext(self, singular: str, plural: str, num: int, **variables: Any) -> str:
        variables.setdefault("num", num)
        return self._named(self._catalog.ngettext(singular, plural, num), variables) % self._values(variables)

    def pgettext(self, context: str, message: str, **variables: Any) -> str:
        return self._named(self._catalog.pgettext(context, message), variables) % self._values(variables)

    def npgettext(self, context: str, singular: str, plural: str, num: int, **variables: Any) -> str:
        variables.setdefault("num", num)
        template = self._catalog.npgettext(context, singular, plural, num)
        return self._named(template, variables) % self._values(variables)


@cache
def speaker(code: str | None) -> Speaker:
    return Speaker(known(code))
