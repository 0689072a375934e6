"""`pbem admin extend|adjudicate|undo|cancel|resend|ban|unban|bots`: the operator's changes.

Each change goes through `change_game` (the game row locked and re-checked) or locks the
player row it changes, writes its audit entry in the same transaction, and prints its
line only after the commit.
"""

from __future__ import annotations

import click
from sqlmodel import Session

from pbem.cli.admin.common import (
    admin,
    by_option,
    change_game,
    database,
    echo,
    fail,
    plural,
    settings,
    templates,
)
from pbem.core import audit
from pbem.core.db import transaction
from pbem.core.errors import CommandError
from pbem.core.models import Game, Player
from pbem.core.wallclock import now
from pbem.games import bots as bots_players
from pbem.games import clock, players
from pbem.games import store as G
from pbem.letters import notify, post
from pbem.play import conditionals
from pbem.runners import clock as timekeeper


def _tell(session: Session, ctx: click.Context, event: str, game: Game, **data: object) -> None:
    """Everyone concerned hears of the operator's change (`pbem.letters.notify` decides who)."""
    post.post(session, settings(ctx), templates(ctx), notify.tell(session, event, game, **data))


@admin.command("extend")
@click.argument("game_id", type=int)
@click.option("--days", type=float, required=True, help="Days to add to the current deadline.")
@click.option("--reason", default="", help="Told to both players.")
@by_option
@click.pass_context
def admin_extend(ctx: click.Context, game_id: int, days: float, reason: str, by: str) -> None:
    """Give the player on move more time; both players get the new deadline by mail."""
    def change(session: Session, game: Game) -> str:
        timekeeper.extend(session, settings(ctx), templates(ctx), game, days, reason)
        audit.record(session, by, "extend", now(), detail=f"{plural(days, 'day')} at ply {game.ply}", reason=reason,
                     game=game)
        until = clock.game_deadline(session, game)
        return f"game #{game_id}: the deadline is now {until:%Y-%m-%d %H:%M} UTC; both players are told"

    change_game(ctx, game_id, change)


@admin.command("adjudicate")
@click.argument("game_id", type=int)
@click.option("--winner", help="The winning side (e.g. white, black, x, o) or the winner's address.")
@click.option("--draw", is_flag=True, help="Declare a draw instead.")
@click.option("--reason", required=True, help="Why; both players are told.")
@by_option
@click.pass_context
def admin_adjudicate(ctx: click.Context, game_id: int, winner: str | None, draw: bool, reason: str, by: str) -> None:
    """End a game in progress with a result; both players get the result, the reason and the record."""
    if draw == (winner is not None):
        raise click.UsageError("give either --winner SIDE or --draw")

    def change(session: Session, game: Game) -> str:
        rules = G.rules_of(game)
        side = None
        if winner is not None:
            addresses = [p.address for p in G.players(session, game)]
            names = [s.lower() for s in rules.sides]
            if winner.lower() in names:
                side = names.index(winner.lower())
            elif winner.lower() in addresses:
                side = addresses.index(winner.lower())
            else:
                raise CommandError(f"--winner must be one of {', '.join(rules.sides)} or a player's address")
        G.adjudicate(session, game, side, reason, now())
        audit.record(session, by, "adjudicate", now(), detail=f"{game.result}", reason=reason, game=game)
        _tell(session, ctx, "adjudicated", game, why=reason)
        return f"game #{game.id} adjudicated: {game.result} ({reason}); both players are told"

    change_game(ctx, game_id, change)


@admin.command("undo")
@click.argument("game_id", type=int)
@click.argument("plies", type=click.IntRange(min=1), default=1)
@click.option("--reason", required=True, help="Why; both players are told.")
@click.option("--at-ply", type=int, help="Refuse unless the game is at this ply (the one you looked at).")
@by_option
@click.pass_context
def admin_undo(ctx: click.Context, game_id: int, plies: int, reason: str, at_ply: int | None, by: str) -> None:
    """Take back the last PLIES moves (default 1) of a game in progress; both players get the new board."""

    def change(session: Session, game: Game) -> str:
        if at_ply is not None and game.ply != at_ply:
            raise CommandError(f"Game #{game.id} is at ply {game.ply}, not {at_ply}; nothing was taken back.")
        dropped = G.undo(session, game, plies, now())
        clock.reschedule(session, game, settings(ctx).reminders)
        taken = [m.notation for m in dropped]
        audit.record(session, by, "undo", now(), detail=f"took back {', '.join(taken)}", reason=reason, game=game)
        letters = notify.tell(session, "undone", game, why=reason, taken=taken)
        post.post(session, settings(ctx), templates(ctx), letters + conditionals.drop_all(session, game))
        return f"game #{game.id}: took back {', '.join(taken)}; both players have the new board"

    change_game(ctx, game_id, change)


@admin.command("cancel")
@click.argument("game_id", type=int)
@click.option("--reason", required=True, help="Why; both players are told.")
@by_option
@click.pass_context
def admin_cancel(ctx: click.Context, game_id: int, reason: str, by: str) -> None:
    """Call off a game in progress: no result, no rating change; both players are told."""

    def change(session: Session, game: Game) -> str:
        G.cancel(session, game, reason, now())
        audit.record(session, by, "cancel", now(), reason=reason, game=game)
        _tell(session, ctx, "cancelled", game, why=reason)
        return f"game #{game.id} cancelled"

    change_game(ctx, game_id, change)


@admin.command("resend")
@click.argument("game_id", type=int)
@click.option("--reason", default="", help="Why (kept in the log).")
@by_option
@click.pass_context
def admin_resend(ctx: click.Context, game_id: int, reason: str, by: str) -> None:
    """Send the current board of a game to both players again (after a lost mail, say)."""

    def change(session: Session, game: Game) -> str:
        audit.record(session, by, "resend", now(), detail=f"board at ply {game.ply}", reason=reason, game=game)
        _tell(session, ctx, "resent", game)
        return f"game #{game.id}: the board is on its way to both players"

    change_game(ctx, game_id, change)


def _set_banned(ctx: click.Context, address: str, banned: bool, reason: str, by: str) -> None:
    from sqlmodel import select

    with transaction(database(ctx)) as session:
        query = select(Player).where(Player.address == address.strip().lower()).with_for_update()
        player = session.exec(query).first()
        if player is None and banned:  # ban before first contact: the address never gets a reply
            player = players.get_or_register(session, address, now())
        if player is None:
            raise fail(f"there is no player {address}")
        player.banned = banned
        session.add(player)
        audit.record(session, by, "ban" if banned else "unban", now(), detail=player.address, reason=reason,
                     player=player)
    echo(f"{player.address} is {'banned: no replies, no play' if banned else 'no longer banned'}")


@admin.command("ban")
@click.argument("address")
@click.option("--reason", required=True, help="Why (kept in the log).")
@by_option
@click.pass_context
def admin_ban(ctx: click.Context, address: str, reason: str, by: str) -> None:
    """Ban an address: its mails get no reply and its commands are not run."""
    _set_banned(ctx, address, True, reason, by)


@admin.command("unban")
@click.argument("address")
@click.option("--reason", default="", help="Why (kept in the log).")
@by_option
@click.pass_context
def admin_unban(ctx: click.Context, address: str, reason: str, by: str) -> None:
    """Lift a ban."""
    _set_banned(ctx, address, False, reason, by)


@admin.command("bots")
@click.argument("state", type=click.Choice(["on", "off"]))
@click.option("--reason", default="", help="Why (kept in the log).")
@by_option
@click.pass_context
def admin_bots(ctx: click.Context, state: str, reason: str, by: str) -> None:
    """Switch the bots off (challenges to a bot are refused, games with one wait) or on again."""
    with transaction(database(ctx)) as session:
        bots_players.switch(session, state == "on", now())
        audit.record(session, by, f"bots {state}", now(), reason=reason)
        playing = bots_players.enabled(session, settings(ctx))
    if state == "on" and not playing:
        echo("bots switched on here, but the setting bots = false keeps them off")
    else:
        echo("bots are on: they accept challenges and play" if playing
             else "bots are off: challenges to a bot are refused, games with one wait")
