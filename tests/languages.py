"""What a mail in a language other than English must not hold: English left untranslated,
or a line too wide for a narrow client.

English words are those of the catalog's msgids. A word of a mail counts as English left
over when it is one of them and none of what a mail may rightly hold in English in every
language: the words players type (commands, game and option names, the notation), names
and addresses. For Italian, whose words can look English, the words its own translations
use are allowed too (`accetta`, `non`, `come` are Italian).
"""

from __future__ import annotations

import re
from functools import cache

import pbem_engine
from pbem.commands.lines import base
from pbem.games import timecontrol
from pbem.text import catalogs
from pbem.text.textwidth import width
from pbem_engine.ataxx.game import LAYOUTS

WORD = re.compile(r"[A-Za-z]{3,}")
_TOKEN = re.compile(r"\[k:[^\]]*\]")
_FIELD = re.compile(r"%\(\w+\)[sd]|\{\w+\}")
#: written as they are in every language: the server's name, the SGF format, words of the
#: notation and of the options, the test players' names and addresses, the time zones
TYPED = {
    "pbem", "sgf", "html", "text", "utc", "europe", "rome", "asia", "seoul", "kyiv", "moscow", "shanghai",
    "alice", "bob", "carol", "liddell", "example", "org", "games", "test", "client", "pass", "random",
    "first", "second", "size", "target", "colour", "days", "weekends", "blocks", "variant", "layout",
    "black", "white", "all", "off", "each", "digest", "full", "yes", "true", "false", "min", "max",
    "bot", "level",  # `challenge ataxx bot level=2`, and the bots' names (`bot-ataxx-2`)
}


#: written so in every language: header names, which clients show in English ("anyone can put
#: your address in From"), English's own name in the list of languages, the rating system's name
HEADERS = {"From", "To", "Reply-To", "Subject", "English", "Glicko"}


@cache
def _typed_words() -> set[str]:
    words = set(TYPED) | set(LAYOUTS)  # `blocks=cross`
    words.update(("clock", *timecontrol.KINDS))  # `clock=fischer:3d+1d/7d`, `clock=none`
    for command in base.commands():
        words.update(w.lower() for w in (command.name, *command.aliases))
        words.update(w.lower() for w in WORD.findall(str(command.syntax)) if not w.isupper())
    for name in pbem_engine.names():
        rules = pbem_engine.lookup(name)
        words.update(w.lower() for w in WORD.findall(name))
        words.update(w.lower() for w in WORD.findall(str(rules.title)))
        words.update(option.name.lower() for option in getattr(rules, "options", ()))
    return words


@cache
def english_words() -> frozenset[str]:
    """The words of every msgid, but those a mail holds in English in every language."""
    words: set[str] = set()
    for message in catalogs.read(catalogs.POT):
        if not message.id:
            continue
        for text in (message.id,) if isinstance(message.id, str) else message.id:
            words.update(w.lower() for w in WORD.findall(_FIELD.sub(" ", text)))
    return frozenset(words - _typed_words())


@cache
def _own_words(language: str) -> frozenset[str]:
    words: set[str] = set()
    for message in catalogs.read(catalogs.po_path(language), language):
        strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
        for text in strings:
            words.update(w.lower() for w in WORD.findall(_FIELD.sub(" ", text or "")))
    return frozenset(words)


_ADDRESS = re.compile(r"[^\s<>()\"']+@[^\s<>()\"']+")


def english_left(text: str, language: str) -> list[str]:
    """The English words of `text` that a mail in `language` should not hold."""
    # quoted lines of the player's own mail (" | ...") and the words an opponent relayed with
    # `say` ("> ...") are theirs, not ours
    ours = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("|", ">")))
    ours = _TOKEN.sub(" ", ours)  # a subject's token is random hex: "0df7126877add8b9" holds no word
    ours = _ADDRESS.sub(" ", ours)  # an address ("game+bob.<secret>@...") is a name, not a word
    allowed = _own_words(language) if language == "it" else frozenset()
    return sorted({w for w in WORD.findall(ours)
                   if w.lower() in english_words() and w.lower() not in allowed and w not in HEADERS})


_QUOTE = re.compile(r"<blockquote\b.*?</blockquote>", re.S | re.I)


def without_quotes(html: str) -> str:
    """An HTML part without its quotations: what an opponent relayed is in their words."""
    return _QUOTE.sub("", html)


def too_wide(text: str, columns: int = 72) -> list[str]:
    """The lines of `text` wider than `columns` display columns (a Korean letter takes two)."""
    return [line for line in text.splitlines() if width(line) > columns]
