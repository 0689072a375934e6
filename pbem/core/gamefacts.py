"""A game read with what a mail's next steps ask of it: its two players, whether anyone
watches it, and whether either player has a vacation that is not over.

A move mail's own read of the boards it answers (`pbem.trust.proof`) already joins the games;
the mails that follow the move then asked three more questions of the database, one statement
each: who the opponent is (`store.players`), who watches the game (`watchers.watchers`) and
whether the player on move is away (`vacations.pausing`). Most games have no watcher and
most players no vacation, so here the same read brings the players and two yes-or-no answers,
and what it found saves those three statements: the players are in the session, and a game no
one watches or a player with no vacation ahead needs no read at all. What it found is only as
true as the transaction (`pbem.core.work`): a new watcher or vacation forgets it at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, bindparam, exists
from sqlmodel import col

from pbem.core.models import Game, Player, Vacation, Watcher
from pbem.core.rows import attach, table
from pbem.core.wallclock import aware
from pbem.core.work import work_of

_PLAYER0 = table(Player).alias("player0")
_PLAYER1 = table(Player).alias("player1")
_WIDTH = len(table(Player).columns)
#: the models whose pending changes a read through `joined` must flush first (`rows.read`); a
#: player the session holds wins over the row read, so a change to one need not be written
READS = (Watcher, Vacation)


def _away(player_id: Any) -> Any:
    """Whether the player has a vacation that ends after the mail's time (`at`)."""
    return exists().where(col(Vacation.player_id) == player_id, col(Vacation.ends_at) > bindparam("at"))


def joined(statement: Select[Any]) -> Select[Any]:
    """`statement` (which selects a `game`, maybe through an outer join) with the game's
    players and the three answers after its columns, in the order `take` reads them; a run
    takes the mail's time as the parameter `at`."""
    return (
        statement.add_columns(
            _PLAYER0, _PLAYER1, exists().where(col(Watcher.game_id) == col(Game.id)),
            _away(col(Game.player0_id)), _away(col(Game.player1_id)),
        )
        .outerjoin(_PLAYER0, _PLAYER0.c.id == col(Game.player0_id))
        .outerjoin(_PLAYER1, _PLAYER1.c.id == col(Game.player1_id))
    )


def take(session: Any, game: Game, row: Sequence[Any], start: int, at: datetime) -> None:
    """Keep what a row of `joined` (from column `start`) says about `game`, as the database
    was at `at`: both players in the session (an object it holds already wins), and the
    answers for `watchers.watchers` and `vacations.pausing`."""
    work = work_of(session)
    players = [attach(session, Player, row, start + n * _WIDTH) for n in (0, 1) if row[start + n * _WIDTH] is not None]
    work.kept.extend(players)  # the identity map holds them only weakly
    watched, *away = row[start + 2 * _WIDTH : start + 2 * _WIDTH + 3]
    if not watched:
        work.unwatched.add(game.id)
    for player_id, vacation in zip((game.player0_id, game.player1_id), away, strict=True):
        if not vacation:
            work.free_after[player_id] = aware(at)
