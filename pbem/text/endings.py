"""English words for what is stored and logged: how a game ended, from the engine's code.

The mails say it through the templates' own macros, in the reader's language; the records
(`game.reason`, the admin's listings, an SGF's Termination) keep one English sentence, made
by the very same macro, so the words are written once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from pbem.text.templates import Templates


@lru_cache(maxsize=1)
def _macros() -> Any:
    return Templates().env.get_template("_termination.txt").module


def termination(code: str, details: Mapping[str, Any], sides: Sequence[str]) -> str:
    """'the board is full', 'Black reached 5 captures': why a game ended by its rules."""
    return str(_macros().termination(code, dict(details), list(sides))).strip()
