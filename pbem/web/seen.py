"""What a stranger may see: a game is listed (on player pages, feeds and tournament pages)
only when both its players agree (`public yes`, or a bot: `pbem.letters.weblinks.agrees`); a player
has a page only when they agree. A game's own page is reached by its secret link alone. No
address ever leaves this module: the pages get names.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, or_
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from pbem.core.models import Game, Player


def agreeing(player: Any) -> Any:
    """SQL: the player (a Player or an alias of it) agrees to be listed."""
    return or_(col(player.public).is_(True), col(player.bot_level).is_not(None))


def listed_games(session: Session, player_id: int | None = None, limit: int = 200) -> list[tuple[Game, Player, Player]]:
    """The listed games, newest change first (of one player, when given), with both players."""
    first, second = aliased(Player), aliased(Player)
    query = (
        select(Game, first, second)
        .join(first, col(first.id) == col(Game.player0_id))
        .join(second, col(second.id) == col(Game.player1_id))
        .where(agreeing(first), agreeing(second), Game.status != "cancelled")
    )
    if player_id is not None:
        query = query.where(or_(col(Game.player0_id) == player_id, col(Game.player1_id) == player_id))
    query = query.order_by(col(Game.updated_at).desc(), col(Game.id).desc()).limit(limit)
    return [(g, a, b) for g, a, b in session.exec(query).all()]


def is_listed(session: Session, game: Game) -> bool:
    first, second = aliased(Player), aliased(Player)
    query = (
        select(Game.id).join(first, col(first.id) == col(Game.player0_id)).join(second, col(second.id) == col(Game.player1_id))
        .where(Game.id == game.id, agreeing(first), agreeing(second))
    )
    return session.exec(query).first() is not None


def visible_player(session: Session, player_id: int) -> Player | None:
    """A player whose page may be shown: they agreed (or a bot), and are not banned."""
    player = session.get(Player, player_id)
    if player is None or player.banned or not (player.public or player.bot_level is not None):
        return None
    return player


def listed_ids(session: Session, game_ids: list[int]) -> set[int]:
    """Which of these games are listed."""
    if not game_ids:
        return set()
    first, second = aliased(Player), aliased(Player)
    query = (
        select(Game.id).join(first, col(first.id) == col(Game.player0_id)).join(second, col(second.id) == col(Game.player1_id))
        .where(col(Game.id).in_(game_ids), and_(agreeing(first), agreeing(second)))
    )
    return {gid for gid in session.exec(query).all() if gid is not None}
