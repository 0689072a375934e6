"""The one registry of games: names and aliases to `Rules` classes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pbem_engine.common.base import Rules
from pbem_engine.common.errors import BadOption, EngineError
from pbem_engine.common.phrases import phrase

_GAMES: dict[str, type[Rules[Any, Any]]] = {}
_NAMES: dict[str, str] = {}


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name.strip().lower())


def register(cls: type[Rules[Any, Any]]) -> type[Rules[Any, Any]]:
    """Add a game under its name and aliases; usable as a class decorator."""
    for spelling in (cls.name, *cls.aliases):
        key = _key(spelling)
        if key in _NAMES and _NAMES[key] != cls.name:
            raise EngineError(
                phrase("The game name '{name}' is taken by '{game}'.", name=spelling, game=_NAMES[key]),
                code="registry.name_taken",
                params={"name": spelling, "game": _NAMES[key]},
            )
        _NAMES[key] = cls.name
    _GAMES[cls.name] = cls
    return cls


def names() -> list[str]:
    """The registered games' canonical names, in registration order."""
    return list(_GAMES)


def lookup(name: str) -> type[Rules[Any, Any]]:
    """The game class for a name or alias (case, spaces, '-' and '_' ignored)."""
    key = _key(name)
    if key not in _NAMES:
        raise BadOption(
            phrase("I do not know a game called '{name}'. The games are: {games}.", name=name, games=list(_GAMES)),
            code="game.unknown",
            params={"name": name, "games": list(_GAMES)},
        )
    return _GAMES[_NAMES[key]]


def create(name: str, options: Mapping[str, Any] | None = None) -> Rules[Any, Any]:
    """A game bound to validated options: `create("capturego", {"size": 13})`."""
    return lookup(name)(options)
