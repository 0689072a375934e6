"""Words for a player as data: an English template, its parameters, and its plural.

The engine speaks English by default and knows nothing of translation. A `Phrase` keeps
the English template (a gettext msgid, `{name}` fields) apart from the facts it is built
from, so the service can say the same thing in the reader's language: it looks the
template up in its catalogs and fills in the same parameters. `str(phrase)` is English.

`phrase` and `nphrase` are also the keywords the catalog extractor looks for, so every
template written through them is in the catalogs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Phrase:
    """`text` (or `plural` when `count` is not 1) with `{name}` fields filled from `params`."""

    text: str
    params: Mapping[str, Any] = field(default_factory=dict)
    plural: str | None = None
    count: int | None = None

    def template(self) -> str:
        """The English template this phrase uses (English has two plural forms)."""
        if self.plural is not None and self.count != 1:
            return self.plural
        return self.text

    def __eq__(self, other: object) -> bool:
        """A phrase equals another with the same template and facts, and a text equal to its
        English (so code and tests that compare an engine text with a string keep working)."""
        if isinstance(other, str):
            return str(self) == other
        if isinstance(other, Phrase):
            return (self.text, dict(self.params), self.plural, self.count) == (
                other.text, dict(other.params), other.plural, other.count)
        return NotImplemented

    def __str__(self) -> str:
        return self.template().format_map({key: _english(value) for key, value in self.params.items()})


def _english(value: Any) -> str:
    """A parameter as the engine's English writes it: a list of words joined by commas
    (a speaker joins them its own language's way)."""
    if type(value) in (list, tuple) and all(isinstance(v, str | Phrase) for v in value):
        return ", ".join(str(v) for v in value)
    return str(value)


def phrase(text: str, /, **params: Any) -> Phrase:
    """A phrase without a plural: `phrase("{square} is occupied.", square="c4")`."""
    return Phrase(text, params)


def nphrase(singular: str, plural: str, count: int, /, **params: Any) -> Phrase:
    """A phrase with a count: `nphrase("{n} piece", "{n} pieces", 3)`; `{n}` is the count."""
    return Phrase(singular, {"n": count, **params}, plural=plural, count=count)


def english(value: object) -> str:
    """A phrase, or anything else, as English text (the engine's own rendering)."""
    return str(value)
