"""Which of our languages a mail is written in: from its Content-Language header, else from
the script and words of its text.

Only our languages are ever answered (`CODES`, the same as `pbem.text.i18n.LANGUAGES`), and only
when the mail says enough: a bare move (`c4`), a word or two of Latin letters or anything in
doubt gives None, and the caller keeps the default. The script decides what it can (Hangul
is Korean, Chinese characters Chinese, Cyrillic with і ї є ґ Ukrainian); a statistical
model (py3langid, restricted to our languages) weighs the words of a longer text.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Collection
from functools import cache
from typing import Any

CODES = ("en", "it", "ru", "uk", "ko", "zh")
#: letters of a Latin text it takes before the model's guess counts
MIN_LETTERS = 24
#: the model's confidence (normalised over our languages) it takes
MIN_CONFIDENCE = 0.9

_UKRAINIAN = set("іїєґ")
_RUSSIAN = set("ыэъё")
_TAG = re.compile(r"[A-Za-z]{2,3}")


def from_header(value: str | None) -> str | None:
    """The first of our languages a Content-Language header names (`it`, `zh-Hans`, `en-US, it`)."""
    for part in (value or "").split(","):
        tag = part.strip().split(";")[0].replace("_", "-").split("-")[0].lower()
        if _TAG.fullmatch(tag) and tag in CODES:
            return tag
    return None


def _script(char: str) -> str | None:
    if "\uac00" <= char <= "\ud7a3" or "\u1100" <= char <= "\u11ff" or "\u3130" <= char <= "\u318f":
        return "hangul"
    if "\u3040" <= char <= "\u30ff":
        return "kana"
    if "\u4e00" <= char <= "\u9fff" or "\u3400" <= char <= "\u4dbf" or "\uf900" <= char <= "\ufaff":
        return "han"
    if "\u0400" <= char <= "\u04ff":
        return "cyrillic"
    if char.isalpha() and unicodedata.name(char, "").startswith("LATIN"):
        return "latin"
    return None


def from_text(text: str, among: Collection[str] = CODES) -> str | None:
    """The language of a text, among `among`, or None when the text does not say."""
    letters = [c for c in text.casefold() if c.isalpha()]
    scripts: dict[str, int] = {}
    for char in letters:
        script = _script(char)
        if script is not None:
            scripts[script] = scripts.get(script, 0) + 1
    if not scripts:
        return None
    main = max(scripts, key=lambda s: scripts[s])
    if scripts.get("hangul"):
        return _only("ko", among)
    if scripts.get("kana"):
        return None  # Japanese: not ours
    if main == "han":
        return _only("zh", among)
    if main == "cyrillic":
        cyrillic = set(letters)
        if cyrillic & _UKRAINIAN and not cyrillic & _RUSSIAN:
            return _only("uk", among)
        if cyrillic & _RUSSIAN and not cyrillic & _UKRAINIAN:
            return _only("ru", among)
        guess = _model(text, [c for c in ("ru", "uk") if c in among]) if len(letters) >= MIN_LETTERS else None
        return guess or _only("ru", among)
    latin = [c for c in ("en", "it") if c in among]
    if len(letters) < MIN_LETTERS or not latin:
        return None
    return _model(text, latin)


def detect(text: str, content_language: str | None = None, among: Collection[str] = CODES) -> str | None:
    """A mail's language: its Content-Language header, else its text; None when neither says."""
    header = from_header(content_language)
    if header is not None and header in among:
        return header
    return from_text(text, among)


def _only(code: str, among: Collection[str]) -> str | None:
    return code if code in among else None


def _model(text: str, among: list[str]) -> str | None:
    if len(among) == 1:
        return among[0]
    if not among:
        return None
    identifier = _identifier()
    with _LOCK:  # one model, restricted to the languages asked about for each text
        if _RESTRICTED.get("among") != among:
            identifier.set_languages(sorted(among))
            _RESTRICTED["among"] = among
        code, confidence = identifier.classify(text[:4000])
    return code if confidence >= MIN_CONFIDENCE else None


_LOCK = threading.Lock()
_RESTRICTED: dict[str, list[str]] = {}  # the languages the model is restricted to now


@cache
def _identifier() -> Any:
    """py3langid's model, loaded once (it takes a moment), and cut to our languages for good: the
    other ninety columns of its table are a quarter of its memory and never asked."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(CODES))
    identifier._full_model = (identifier.nb_ptc, identifier.nb_pc, identifier.nb_classes)  # the rest freed
    return identifier


def warm() -> None:
    """Load the model now (a daemon's start), not inside the first new player's transaction."""
    _identifier()
