"""The audit log: every change made through `pbem admin`, written in the change's transaction."""

from __future__ import annotations

import getpass
from datetime import datetime

from sqlmodel import Session, select

from pbem.core.models import AdminAction, Game, Player


def default_actor() -> str:
    """Who runs the CLI, when `--by` does not say."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (containers)
        return "admin"


def record(
    session: Session,
    actor: str,
    action: str,
    now: datetime,
    *,
    detail: str = "",
    reason: str = "",
    game: Game | None = None,
    player: Player | None = None,
) -> AdminAction:
    """Add one entry; it commits or rolls back with the change it describes."""
    entry = AdminAction(
        actor=actor[:80],
        action=action[:40],
        detail=detail[:400],
        reason=reason[:400],
        game_id=game.id if game is not None else None,
        player_id=player.id if player is not None else None,
        created_at=now,
    )
    session.add(entry)
    return entry


def for_game(session: Session, game_id: int) -> list[AdminAction]:
    return list(session.exec(select(AdminAction).where(AdminAction.game_id == game_id).order_by(AdminAction.id)))


def for_player(session: Session, player_id: int) -> list[AdminAction]:
    return list(
        session.exec(select(AdminAction).where(AdminAction.player_id == player_id).order_by(AdminAction.id))
    )
