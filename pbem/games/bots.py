"""Bots as players: one player record per game family and level, created on demand.

A bot is a `Player` with a `bot_level`; its address is on the reserved `.invalid` domain,
so no mail can ever reach it, and `pbem.letters.post` drops every letter to it. While a bot has
something to do in a game (it is on move, or its opponent offered a draw or asked to take back
a move) the game carries `bot_due_at`, which the bot runner (`pbem.runners.bots`) looks for.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

import pbem_bots
import pbem_engine
from pbem.core.config import Settings
from pbem.core.models import Game, Player, Switch
from pbem.games import players

#: the domain of every bot's address: reserved, never delivered (RFC 2606)
DOMAIN = "pbem_bots.invalid"
#: the level of `challenge GAME bot` without `level=`
DEFAULT_LEVEL = 2
#: the `Switch` row of `pbem admin bots off|on`
SWITCH = "bots"


def family(kind: str) -> str:
    """The bot's game: one bot per family (every Ataxx variant is played by `bot-ataxx-N`)."""
    return pbem_engine.lookup(kind).family


def address(kind: str, level: int) -> str:
    return f"{pbem_bots.name(family(kind), level)}@{DOMAIN}"


def plays(rules: pbem_engine.Rules) -> bool:
    """Whether a bot plays the game of `rules`."""
    try:
        pbem_bots.budget_for(rules, 1)
    except KeyError:
        return False
    return True


def is_bot(player: Player | None) -> bool:
    return player is not None and player.bot_level is not None


def is_bot_address(text: str) -> bool:
    """Whether a recipient is a bot: every address on the bots' domain (never mailed)."""
    return text.strip().lower().rsplit("@", 1)[-1] == DOMAIN


def enabled(session: Session, settings: Settings) -> bool:
    """Whether bots play now: the `bots` setting, unless the operator switched them off
    (`pbem admin bots off`, a `Switch` row read at each use, so no restart is needed)."""
    if not settings.bots:
        return False
    switch = session.get(Switch, SWITCH)
    return switch is None or switch.on


def switch(session: Session, on: bool, now: datetime) -> None:
    """Switch the bots on or off for every daemon (the caller audits it)."""
    row = session.get(Switch, SWITCH) or Switch(name=SWITCH, changed_at=now)
    row.on, row.changed_at = on, now
    session.add(row)


def bot_player(session: Session, kind: str, level: int, now: datetime) -> Player:
    """The bot of `kind`'s family at `level`, registered the first time it is asked for."""
    player = players.get_or_register(session, address(kind, level), now)
    if player.bot_level != level or player.name != pbem_bots.name(family(kind), level):
        player.bot_level = level
        player.name = pbem_bots.name(family(kind), level)
        player.proven_at = player.proven_at or now
        session.add(player)
        session.flush()
    return player


def offer_to(game: Game, side: int) -> str | None:
    """What `side` is asked to answer: "draw" (its opponent offers a draw), "takeback" (its
    opponent asks to take back their last move, or on their own move that move and the bot's
    answer: `offers.plies`) or None."""
    if game.draw_offer == 1 - side:
        return "draw"
    if game.takeback_offer == 1 - side:
        return "takeback"
    return None


def mark_turn(game: Game, mover: Player | None, other: Player | None, now: datetime) -> None:
    """Note whether a bot has something to do now (`mover` is on move, `other` is not): set
    when a bot is on move or has an offer of its opponent to answer, cleared otherwise."""
    answering = is_bot(other) and offer_to(game, 1 - game.turn) is not None
    if game.status == "active" and (is_bot(mover) or answering):
        game.bot_due_at = game.bot_due_at or now
    else:
        game.bot_due_at = None


def mark(session: Session, game: Game, now: datetime) -> None:
    """`mark_turn` with the game's players read here: after an offer or its answer."""
    with session.no_autoflush:
        mover = session.get(Player, game.player_id(game.turn))
        other = session.get(Player, game.player_id(1 - game.turn))
    mark_turn(game, mover, other, now)
    session.add(game)
