"""Observers: players who follow a game they do not play and get each of its new boards."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from pbem.core.models import Game, Player, Watcher
from pbem.core.rows import load, selecting
from pbem.core.work import work_of


def watchers(session: Session, game: Game) -> list[Player]:
    """Who watches `game` (banned players are left out): no one, with no query, when the read
    of a mail's boards found no one watching it (`work.take_game_facts`)."""
    if game.id in work_of(session).unwatched:
        return []
    return [p for p in load(session, Player, _WATCHERS, {"game": game.id}, (Watcher,)) if not p.banned]


_WATCHERS = (  # built once: every game that ends asks
    selecting(Player)
    .join(Watcher, col(Watcher.player_id) == col(Player.id))
    .where(col(Watcher.game_id) == bindparam("game"))
)


def watch(session: Session, game: Game, player: Player, now: datetime) -> bool:
    """Start watching; False if `player` already watches."""
    if _row(session, game, player) is not None:
        return False
    session.add(Watcher(game_id=game.id, player_id=player.id, created_at=now))
    work_of(session).unwatched.discard(game.id)
    return True


def unwatch(session: Session, game: Game, player: Player) -> bool:
    """Stop watching; False if `player` was not watching."""
    row = _row(session, game, player)
    if row is None:
        return False
    session.delete(row)
    return True


def _row(session: Session, game: Game, player: Player) -> Watcher | None:
    return session.exec(
        select(Watcher).where(Watcher.game_id == game.id, Watcher.player_id == player.id)
    ).first()
