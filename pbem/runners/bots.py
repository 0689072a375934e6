"""The bot runner: answers a person's offer to a bot and plays the move of every game where a
bot is on move, by the normal paths.

A game where a bot has something to do carries `Game.bot_due_at` (set where the turn changes,
by `clock.reschedule`, and where an offer is made, by `pbem.play.offers`). For each such game the
runner, in order: answers a pending draw offer or take-back request (`pbem_bots.accepts_draw`, a
small search; `pbem_bots.accepts_takeback`, by level) through the functions of a person's `draw`,
`nodraw` and `takeback accept|refuse` (`pbem.play.offers`), the answer and its mails in one
transaction after the same version check as a move; then plays the move if the bot is on move;
else clears `bot_due_at`. For a move the runner reads the position in a short read-only
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

import pbem_bots
from pbem.commands.lines.reader import guarded_templates
from pbem.core import faults
from pbem.core.config import Settings
from pbem.core.db import transaction
from pbem.core.models import Game, Player
from pbem.core.wallclock import now
from pbem.games import bots as bots_players
from pbem.games import store as G
from pbem.letters import post
from pbem.letters.notify import Letter
from pbem.play import moves, offers
from pbem.text.templates import Templates

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


@dataclass(frozen=True)
class Answer:
    """A bot's answer to its opponent's offer (`offer`: "draw" or "takeback") in one version of a game."""

    game_id: int
    version: int
    side: int  # the bot's
    offer: str
    accept: bool


def due(engine: Engine, settings: Settings, at: datetime | None = None) -> list[int]:
    """The games where a bot has something to do, longest waiting first (through ix_game_status_bot_due_at);
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
    None when no bot is on move in it any more (or it has an offer to answer first)."""
    with Session(engine) as session:
        game = session.get(Game, game_id)
        if game is None or game.status != "active" or game.bot_due_at is None:
            return None
        bot = session.get(Player, game.player_id(game.turn))
        if bot is None or bot.bot_level is None or bots_players.offer_to(game, game.turn) is not None:
            return None  # no bot on move, or it answers the offer first (`consider`)
        rules, pos = G.rules_of(game), G.position(game)
        version, ply, level = game.version, game.ply, bot.bot_level
    log.info("bot %s thinking: game #%d, move %d", bot.name, game_id, ply + 1)
    until = time.monotonic() + settings.bot_seconds
    spent = pbem_bots.deadline(time.thread_time)  # the search's own CPU: a busy machine still answers in time

    def late() -> bool:
        faults.crash_point("bot-thinking")  # a test hook: a kill in the middle of a search
        return spent() or time.monotonic() >= until

    move, stats = pbem_bots.choose(rules, pos, level, seed(game_id, ply), pbem_bots.budget_for(rules, level, late))
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


def consider(engine: Engine, settings: Settings, game_id: int) -> Answer | None:
    """The bot's answer to its opponent's pending offer, judged with no transaction open (a
    pure function of the position and the level: after a crash the same answer); None when
    no offer waits for a bot."""
    with Session(engine) as session:
        game = session.get(Game, game_id)
        if game is None or game.status != "active" or game.bot_due_at is None:
            return None
        for side in (0, 1):
            bot = session.get(Player, game.player_id(side))
            offer = bots_players.offer_to(game, side)
            if bots_players.is_bot(bot) and offer is not None:
                break
        else:
            return None
        rules, pos, version, level = G.rules_of(game), G.position(game), game.version, bot.bot_level
    accept = pbem_bots.accepts_draw(rules, pos, side, level) if offer == "draw" else pbem_bots.accepts_takeback(level)
    return Answer(game_id, version, side, offer, accept)


def reply(engine: Engine, settings: Settings, templates: Templates, answer: Answer) -> bool:
    """Store the bot's answer and its mails in one transaction, if the game is still as it was
    read: True when it was stored, False when it was dropped as stale."""
    with transaction(engine) as session:
        game = G.lock(session, answer.game_id)
        if (game is None or game.status != "active" or game.version != answer.version
                or bots_players.offer_to(game, answer.side) != answer.offer):
            log.info("bot answer dropped: game #%d changed while the bot was thinking", answer.game_id)
            return False
        bot = session.get(Player, game.player_id(answer.side))
        at = now()
        if answer.offer == "draw":
            letters = (offers.agree_draw if answer.accept else offers.refuse_draw)(session, game, bot, at)
        elif answer.accept:
            letters = offers.accept_takeback(session, game, bot, at, settings.reminders)
        else:
            letters = offers.refuse_takeback(session, game, bot, at)
        post.post(session, settings, templates, letters)
    log.info("bot %s %s the %s in game #%d", bot.name, "accepted" if answer.accept else "refused",
             "draw offer" if answer.offer == "draw" else "take-back request", answer.game_id)
    return True


def play_one(engine: Engine, settings: Settings, templates: Templates, game_id: int) -> bool:
    """Answer a pending offer, then play the bot's move if it is on move; with neither to do,
    the game is no longer due. True when something was stored. A failure puts the game off
    for a while, so that one broken game does not hold up the others."""
    try:
        answer = consider(engine, settings, game_id)
        stored = answer is not None and reply(engine, settings, templates, answer)
        thought = think(engine, settings, game_id)
        if thought is not None:
            return commit(engine, settings, templates, thought) or stored
        if answer is None:
            _settle(engine, game_id)
        return stored
    except Exception:
        log.exception("bot: game #%s failed", game_id)
        _retry_later(engine, game_id)
        return False


def round_(engine: Engine, settings: Settings, templates: Templates | None = None) -> int:
    """Every game due, in this thread, one after the other: in how many something was stored."""
    ids = due(engine, settings)
    if ids and templates is None:
        templates = guarded_templates(settings)
    return sum(play_one(engine, settings, templates, game_id) for game_id in ids)


def _settle(engine: Engine, game_id: int) -> None:
    """A due game where no bot has anything to do: its `bot_due_at` is worked out again, under
    the game's lock (cleared, unless an offer or a move came meanwhile)."""
    with transaction(engine) as session:
        game = G.lock(session, game_id)
        if game is not None and game.bot_due_at is not None:
            bots_players.mark(session, game, now())


def _retry_later(engine: Engine, game_id: int) -> None:
    try:
        with transaction(engine) as session:
            session.exec(
                update(Game).where(Game.id == game_id, Game.status == "active", Game.bot_due_at.is_not(None))
                .values(bot_due_at=now() + RETRY)
            )
    except Exception:
        log.exception("bot: game #%s could not be put off", game_id)
