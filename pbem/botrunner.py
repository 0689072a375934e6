"""The bot runner: plays the move of every game where a bot is on move, by the normal path.

A game with a bot on move carries `Game.bot_due_at` (set where the turn changes, by
`clock.reschedule`). For each such game the runner reads the position in a short read-only
transaction, searches outside any transaction (the daemon runs it in a worker thread, so
mail handling never waits for a search), then in one transaction locks the game, checks that
its version is the one it read (else the result is dropped: someone resigned, an admin undid),
plays the move through `games.play` with the usual mails, conditional answers and clock, and
commits. A kill before the commit leaves the game "bot on move", and the search is run again
with the same seed (derived from the game and the ply), so it plays the same move; the version
check and the transaction make sure it is stored once.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, update
from sqlmodel import Session, select

import bots
from pbem import bots_players, faults, moves, post
from pbem import games as G
from pbem.commands.reader import guarded_templates
from pbem.config import Settings
from pbem.db import transaction
from pbem.models import Game, Player
from pbem.notify import Letter
from pbem.templates import Templates
from pbem.wallclock import now

log = logging.getLogger(__name__)

BATCH = 50  # games read per round
RETRY = timedelta(seconds=60)  # a game whose bot move failed waits this long before the next try


@dataclass(frozen=True)
class Thought:
    """A bot's move for one version of a game, found outside any transaction."""

    game_id: int
    version: int
    ply: int
    notation: str
    nodes: int
    depth: int


def seed(game_id: int, ply: int) -> int:
    """The bot's seed for a move: the same game and ply give the same move, after a crash too."""
    return game_id * 1_000_003 + ply


def due(engine: Engine, settings: Settings, at: datetime | None = None) -> list[int]:
    """The games where a bot is on move, longest waiting first (through ix_game_status_bot_due_at);
    none while the bots are switched off (`bots_players.enabled`)."""
    query = (
        select(Game.id)
        .where(Game.status == "active", Game.bot_due_at <= (at or now()))
        .order_by(Game.bot_due_at, Game.id)
        .limit(BATCH)
    )
    with Session(engine) as session:
        if not bots_players.enabled(session, settings):
            return []  # switched off: the games wait
        return list(session.exec(query))


def think(engine: Engine, settings: Settings, game_id: int) -> Thought | None:
    """Read the game in a short read-only transaction, then search with no transaction open;
    None when no bot is on move in it any more."""
    with Session(engine) as session:
        game = session.get(Game, game_id)
        if game is None or game.status != "active" or game.bot_due_at is None:
            return None
        bot = session.get(Player, game.player_id(game.turn))
        if bot is None or bot.bot_level is None:
            return None
        rules, pos = G.rules_of(game), G.position(game)
        version, ply, level = game.version, game.ply, bot.bot_level
    log.info("bot %s thinking: game #%d, move %d", bot.name, game_id, ply + 1)
    until = time.monotonic() + settings.bot_seconds

    def late() -> bool:
        faults.crash_point("bot-thinking")  # a test hook: a kill in the middle of a search
        return time.monotonic() >= until

    budget = bots.budget_for(rules, level)
    move, stats = bots.choose(rules, pos, level, seed(game_id, ply), bots.Budget(budget.nodes, late, budget.max_depth))
    faults.crash_point("bot-searched")
    return Thought(game_id, version, ply, rules.format(pos, move), stats.nodes, stats.depth)


def commit(engine: Engine, settings: Settings, templates: Templates, thought: Thought) -> bool:
    """Play the thought's move in one transaction, if the game is still as it was read: True
    when it was played, False when the result was dropped as stale."""
    with transaction(engine) as session:
        game = G.lock(session, thought.game_id)
        if game is None or game.status != "active" or game.version != thought.version or game.bot_due_at is None:
            log.info("bot move dropped: game #%d changed while the bot was thinking", thought.game_id)
            return False
        bot = session.get(Player, game.player_id(game.turn))
        at = now()
        letters: list[Letter] = []
        record = moves.play(session, game, bot, thought.notation, message_id=None,
                            reminders=settings.reminders, letters=letters, sender=None, at=at)
        post.post(session, settings, templates, letters)
    log.info("bot %s played %s in game #%d (move %d, %d nodes, depth %d)",
             bot.name, record.notation, thought.game_id, record.ply, thought.nodes, thought.depth)
    return True


def play_one(engine: Engine, settings: Settings, templates: Templates, game_id: int) -> bool:
    """Think about one game and play the move; True when a move was stored. A failure puts the
    game off for a while, so that one broken game does not hold up the others."""
    try:
        thought = think(engine, settings, game_id)
        return thought is not None and commit(engine, settings, templates, thought)
    except Exception:
        log.exception("bot: game #%s failed", game_id)
        _retry_later(engine, game_id)
        return False


def round_(engine: Engine, settings: Settings, templates: Templates | None = None) -> int:
    """Play every game due (in this thread, one after the other): how many moves were stored."""
    ids = due(engine, settings)
    if ids and templates is None:
        templates = guarded_templates(settings)
    return sum(play_one(engine, settings, templates, game_id) for game_id in ids)


def _retry_later(engine: Engine, game_id: int) -> None:
    try:
        with transaction(engine) as session:
            session.exec(
                update(Game).where(Game.id == game_id, Game.status == "active", Game.bot_due_at.is_not(None))
                .values(bot_due_at=now() + RETRY)
            )
    except Exception:
        log.exception("bot: game #%s could not be put off", game_id)
