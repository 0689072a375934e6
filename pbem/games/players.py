"""Players: whoever writes from an address is one; the first mail registers them."""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

import pbem_bots
from pbem.core.config import Settings
from pbem.core.models import Player
from pbem.core.rows import attach, read, selecting
from pbem.text import lookalikes

NAME_MAX = 40
_NAME_SIGNS = " -.'"

_ADDRESS = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")


def is_address(text: str) -> bool:
    return bool(_ADDRESS.match(text))


def reserved_names(settings: Settings) -> tuple[str, ...]:
    """Our own names, which no player's name may look like: a subject "a message from pbem
    server" must never come from a player."""
    return ("pbem", settings.name, settings.local_part)


def looks_reserved(name: str, reserved: Collection[str]) -> bool:
    """Whether `name` reads as one of `reserved`: some run of its words, look-alike letters
    and all, spells one of them (`pbem server`, `Ｐｂｅｍ`, `p.b.e.m`, `рbem` with a Cyrillic р)."""
    words = lookalikes.words(name)
    spelt = {"".join(lookalikes.words(r)) for r in reserved} - {""}
    return any("".join(words[i:j]) in spelt for i in range(len(words)) for j in range(i + 1, len(words) + 1))


def name_fault(name: str, reserved: Collection[str]) -> str | None:
    """Why `name` cannot be a player's name ("shape": too long or a sign other than letters,
    digits, spaces and - . '; "reserved": it reads as ours; "bot": it reads as a bot's), or
    None. The one rule for every source of a name: the `name` command and a From display name alike."""
    if not name or len(name) > NAME_MAX or not all(c.isalnum() or c in _NAME_SIGNS for c in name):
        return "shape"
    if looks_reserved(name, reserved):
        return "reserved"
    return "bot" if looks_reserved(name, pbem_bots.NAMES) else None  # a mail that shows one shows a bot


def default_name(address: str, display: str = "", reserved: Collection[str] = ("pbem",)) -> str:
    """A readable name: the display name if the name rule takes it, else the address's local
    part (or "player" when that reads as one of our names or a bot's)."""
    name = " ".join(display.split())
    if name and name_fault(name, reserved) is None:
        return name
    local = address.split("@", 1)[0].split("+", 1)[0][:NAME_MAX]
    return local if local and not looks_reserved(local, (*reserved, *pbem_bots.NAMES)) else "player"


def find(session: Session, address: str) -> Player | None:
    """The player of `address`, or None when it has never written nor been invited."""
    return session.exec(select(Player).where(Player.address == address.strip().lower())).first()


def get_or_register(session: Session, address: str, now: datetime, display: str = "") -> Player:
    """The player writing from `address`, created with a fresh secret on first contact."""
    address = address.strip().lower()
    player = session.exec(select(Player).where(Player.address == address)).first()
    if player is None:
        player = Player(
            address=address,
            name=default_name(address, display),
            secret=secrets.token_hex(8),
            created_at=now,
        )
        session.add(player)
        session.flush()
    return player


def get_or_register_with(
    session: Session, address: str, now: datetime, column: Any, params: Mapping[str, Any],
) -> tuple[Player, Any]:
    """`get_or_register`, reading one more value about the sender (a scalar subquery, with its
    `params`) in the same statement; the value is None for a player registered here."""
    address = address.strip().lower()
    row = read(session, _with(column), {**params, "address": address}).first()
    if row is not None:
        return attach(session, Player, row), row[-1]
    return get_or_register(session, address, now), None


@functools.lru_cache(maxsize=16)
def _with(column: Any) -> Any:
    """The statement of `get_or_register_with`, built once per column (a statement's building
    cost more than running it)."""
    return selecting(Player, column).where(col(Player.address) == bindparam("address"))


def proven(player: Player, display: str, now: datetime, reserved: Collection[str]) -> None:
    """The player's mail proved that they receive ours: note when that first happened, and let
    someone registered by another's challenge take the display name of their own mail (a
    forged From must not rename anyone), if the name rule takes it; else, silently, none."""
    if player.proven_at is None:
        player.proven_at = now
    if display and player.name == default_name(player.address):
        player.name = default_name(player.address, display, reserved)
