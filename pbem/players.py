"""Players: whoever writes from an address is one; the first mail registers them."""

from __future__ import annotations

import re
import secrets
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from pbem.models import Player

_ADDRESS = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")


def is_address(text: str) -> bool:
    return bool(_ADDRESS.match(text))


def default_name(address: str, display: str = "") -> str:
    """A readable name: the display name if sane, else the address's local part."""
    name = " ".join(display.split())[:40]
    if name and "@" not in name:
        return name
    local = address.split("@", 1)[0].split("+", 1)[0]
    return local[:40] or "player"


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


def get_or_register_with(session: Session, address: str, now: datetime, column: Any) -> tuple[Player, Any]:
    """`get_or_register`, reading one more value about the sender (a scalar subquery) in the
    same statement; the value is None for a player registered here."""
    address = address.strip().lower()
    row = session.exec(select(Player, column).where(Player.address == address)).first()
    if row is not None:
        return row[0], row[1]
    return get_or_register(session, address, now), None


def proven(player: Player, display: str, now: datetime) -> None:
    """The player's mail proved that they receive ours: note when that first happened, and let
    someone registered by another's challenge take the display name of their own mail (a
    forged From must not rename anyone)."""
    if player.proven_at is None:
        player.proven_at = now
    if display and player.name == default_name(player.address):
        player.name = default_name(player.address, display)
