"""`pbem admin tournament create|list|show|start|pair|adjourn|withdraw|close|cancel`: running tournaments.

Each change is one transaction: the tournament row locked (FOR UPDATE on PostgreSQL,
BEGIN IMMEDIATE on SQLite), the change through `pbem.tournaments.tournament`, its audit entry, and
the mails to those concerned; the line is printed after the commit. `show` prints the
standings with their tie-breaks, the crosstable and the current round's boards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
from sqlmodel import Session, select

from pbem.cli.admin.common import (
    admin,
    by_option,
    database,
    echo,
    echo_json,
    fail,
    player_or_fail,
    settings,
    table,
    templates,
)
from pbem.core import audit
from pbem.core.db import transaction
from pbem.core.errors import CommandError
from pbem.core.models import Tournament
from pbem.core.wallclock import now
from pbem.letters import post
from pbem.letters.notify import Letter
from pbem.tournaments import tournament as T
from pbem.tournaments.table import view
from pbem_engine import EngineError, lookup


@admin.group("tournament")
def tournament_group() -> None:
    """Tournaments and ladders: create, list, show, start, pair, adjourn, withdraw a player, close, cancel."""


def _change(ctx: click.Context, tournament_id: int, change: Callable[[Session, Tournament], tuple[str, list[Letter]]],
            as_json: bool = False) -> None:
    """Run `change` on the locked tournament, post its letters, commit, then print its line."""
    try:
        with transaction(database(ctx)) as session:
            tournament = T.get(session, tournament_id, lock=True)
            line, letters = change(session, tournament)
            post.post(session, settings(ctx), templates(ctx), letters)
            result = {"id": tournament.id, "status": tournament.status, "round": tournament.round}
    except CommandError as exc:
        raise fail(str(exc.message)) from None
    except ValueError as exc:
        raise fail(str(exc)) from None
    if as_json:
        echo_json({**result, "done": line})
    else:
        echo(line)


def _options(pairs: tuple[str, ...]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise click.UsageError(f"--option takes KEY=VALUE, not {pair!r}")
        found[key.strip()] = int(value) if value.strip().isdigit() else value.strip()
    return found


@tournament_group.command("create")
@click.argument("name")
@click.option("--format", "fmt", type=click.Choice(T.FORMATS), required=True, help="roundrobin, double, swiss or ladder.")
@click.option("--game", "kind", required=True, help="The game type, e.g. ataxx.")
@click.option("--option", "options", multiple=True, help="A game option KEY=VALUE (e.g. size=9); repeatable.")
@click.option("--days", type=click.IntRange(1, 60), default=7, show_default=True, help="Days per move.")
@click.option("--weekends-off", is_flag=True, help="The clocks stop at weekends.")
@click.option("--clock", "clock_notation", help="Another clock than days per move for every game, as a challenge's "
              "clock= writes it: fischer:3d+1d/7d, bank:2d+10d, iccf:10/50d, delay:10d+1d or none.")
@click.option("--rounds", type=click.IntRange(min=1), help="Swiss: the number of rounds.")
@click.option("--reach", type=click.IntRange(1, 20), help=f"Ladder: how many places above one may challenge "
              f"(default {T.REACH}).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@by_option
@click.pass_context
def tournament_create(ctx: click.Context, name: str, fmt: str, kind: str, options: tuple[str, ...], days: int,
                      weekends_off: bool, clock_notation: str | None, rounds: int | None, reach: int | None,
                      as_json: bool, by: str) -> None:
    """Open a tournament for sign-up (players write `join ID`)."""
    try:
        kind = lookup(kind).name
    except EngineError as exc:
        raise fail(str(exc)) from None
    try:
        with transaction(database(ctx)) as session:
            tournament = T.create(session, name, fmt, kind, now(), options=_options(options), days=days,
                                  weekends_off=weekends_off, rounds=rounds, reach=reach,
                                  clock_notation=clock_notation)
            audit.record(session, by, "tournament.create", now(), detail=f"#{tournament.id} {fmt} {kind} {name}")
            created = tournament.id
    except (ValueError, EngineError) as exc:
        raise fail(str(exc)) from None
    if as_json:
        echo_json({"id": created, "status": "open"})
    else:
        echo(f"tournament #{created} ({fmt}, {kind}) is open for sign-up: players write `join {created}`")


@tournament_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def tournament_list(ctx: click.Context, as_json: bool) -> None:
    """Every tournament, newest last."""
    with Session(database(ctx)) as session:
        rows = [{"id": t.id, "name": t.name, "format": t.format, "kind": t.kind, "status": t.status,
                 "round": t.round} for t in session.exec(select(Tournament).order_by(Tournament.id))]
    if as_json:
        echo_json(rows)
    elif rows:
        table(rows, [("id", "id"), ("name", "name"), ("format", "format"), ("kind", "game"), ("status", "status"),
                     ("round", "round")])
    else:
        echo("no tournaments yet")


@tournament_group.command("show")
@click.argument("tournament_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def tournament_show(ctx: click.Context, tournament_id: int, as_json: bool) -> None:
    """The standings (with tie-breaks), the crosstable and the current round's boards."""
    with Session(database(ctx)) as session:
        try:
            shown = view(session, T.get(session, tournament_id))
        except CommandError as exc:
            raise fail(str(exc.message)) from None
    if as_json:
        echo_json(shown)
        return
    if shown["format"] == "ladder":
        _show_ladder(shown)
        return
    rounds = f"/{shown['rounds']}" if shown["rounds"] else ""
    echo(f"#{shown['id']} {shown['name']}: {shown['format']} {shown['kind']}, {shown['status']}"
         f"{' (adjourned)' * shown['adjourned']}, round {shown['round']}{rounds}, {shown['players']} players")
    rows = [{"rank": r["rank"], "name": r["name"], "address": r["address"], "points": r["points"],
             **dict(zip(shown["tiebreaks"], r["tiebreaks"], strict=True)),
             "rating": f"{r['rating_change']:+d}" if r["rating_change"] is not None else "",
             "out": r["reason"] or "" if r["withdrawn"] else ""} for r in shown["table"]]
    columns = [("rank", "rank"), ("name", "name"), ("address", "address"), ("points", "points")]
    columns += [(t, t) for t in shown["tiebreaks"]] + [("rating", "rating"), ("out", "withdrawn")]
    echo()
    table(rows, columns)
    if shown["table"]:
        echo()
        echo("crosstable:")
        width = len(shown["table"])
        echo("     " + "".join(f"{n:>4}" for n in range(1, width + 1)) + ("  bye" if shown["byes"] else ""))
        for r in shown["table"]:
            byes = f"  {r['byes']}" if shown["byes"] else ""
            echo(f"  {r['number']:>3}" + "".join(f"{c:>4}" for c in r["cells"]) + byes)
    if shown["current"]:
        echo()
        echo(f"round {shown['round']}:")
        for b in shown["current"]:
            second = b["second"] or "(bye)"
            where = f"game #{b['game']}" if b["game"] else ("forfeit" if b["forfeit"] else "bye")
            state = "in progress" if b["on"] else (b["result"] or b["score"] or "")
            echo(f"  {b['board']:>2}. {b['first']} - {second}: {where}, {state}")


def _show_ladder(shown: dict[str, Any]) -> None:
    echo(f"#{shown['id']} {shown['name']}: ladder {shown['kind']}, {shown['status']}, reach {shown['reach']}, "
         f"{shown['round']} challenges, {shown['players']} players")
    echo()
    table([{**p, "playing": f"#{p['playing']}" if p["playing"] else ""} for p in shown["places"]],
          [("place", "place"), ("name", "name"), ("address", "address"), ("rating", "rating"), ("won", "won"),
           ("drawn", "drawn"), ("lost", "lost"), ("playing", "playing")])
    if shown["challenges"]:
        echo()
        echo("challenges being played:")
        for c in shown["challenges"]:
            echo(f"  game #{c['game']}: {c['challenger']} ({c['challenger_place']}) - "
                 f"{c['defender']} ({c['defender_place']})")


@tournament_group.command("start")
@click.argument("tournament_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@by_option
@click.pass_context
def tournament_start(ctx: click.Context, tournament_id: int, as_json: bool, by: str) -> None:
    """Close the sign-up, seed the field by rating and pair round 1; every player gets their game.
    A ladder: the places by rating, and every player is told whom they may challenge."""
    def change(session: Session, tournament: Tournament) -> tuple[str, list[Letter]]:
        letters = T.start(session, tournament, settings(ctx).reminders, now())
        audit.record(session, by, "tournament.start", now(), detail=f"#{tournament.id}")
        if tournament.format == "ladder":
            return f"ladder #{tournament.id} started: {len(letters)} players placed by rating", letters
        return f"tournament #{tournament.id} started: round 1 paired, {len(letters)} mails", letters

    _change(ctx, tournament_id, change, as_json)


@tournament_group.command("pair")
@click.argument("tournament_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@by_option
@click.pass_context
def tournament_pair(ctx: click.Context, tournament_id: int, as_json: bool, by: str) -> None:
    """Pair the next round now (or finish) if every game of the round is over: the daemon does it too."""
    def change(session: Session, tournament: Tournament) -> tuple[str, list[Letter]]:
        if tournament.status != "running":
            raise ValueError(f"tournament #{tournament.id} is {tournament.status}")
        if tournament.format == "ladder":
            raise ValueError(f"tournament #{tournament.id} is a ladder: its players challenge each other by mail")
        if tournament.adjourned_at is not None:
            raise ValueError(f"tournament #{tournament.id} is adjourned: `adjourn --resume` first")
        if not T.round_over(session, tournament):
            raise ValueError(f"round {tournament.round} of tournament #{tournament.id} still has games in progress")
        letters = T.advance(session, tournament, settings(ctx).reminders, now())
        audit.record(session, by, "tournament.pair", now(), detail=f"#{tournament.id} round {tournament.round}")
        if tournament.status == "finished":
            return f"tournament #{tournament.id} is over: the final table went to every player", letters
        return f"tournament #{tournament.id}: round {tournament.round} paired", letters

    _change(ctx, tournament_id, change, as_json)


@tournament_group.command("adjourn")
@click.argument("tournament_id", type=int)
@click.option("--resume", is_flag=True, help="Go on: the clocks run again, with the time they were stopped.")
@click.option("--reason", default="", help="Kept in the audit log.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@by_option
@click.pass_context
def tournament_adjourn(ctx: click.Context, tournament_id: int, resume: bool, reason: str, as_json: bool,
                       by: str) -> None:
    """Stop the clocks of the current round and hold the next pairing (or --resume)."""
    def change(session: Session, tournament: Tournament) -> tuple[str, list[Letter]]:
        if resume:
            T.resume(session, tournament, settings(ctx).reminders, now())
            audit.record(session, by, "tournament.resume", now(), detail=f"#{tournament.id}", reason=reason)
            return f"tournament #{tournament.id} resumed: the clocks run again", []
        T.adjourn(session, tournament, now())
        audit.record(session, by, "tournament.adjourn", now(), detail=f"#{tournament.id}", reason=reason)
        return f"tournament #{tournament.id} adjourned: clocks stopped, no pairing until --resume", []

    _change(ctx, tournament_id, change, as_json)


@tournament_group.command("withdraw")
@click.argument("tournament_id", type=int)
@click.argument("address")
@click.option("--reason", required=True, help="Why; the opponent of a game in progress is told.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@by_option
@click.pass_context
def tournament_withdraw(ctx: click.Context, tournament_id: int, address: str, reason: str, as_json: bool,
                        by: str) -> None:
    """Withdraw a player: their game in progress goes to the opponent, their later games are forfeits."""
    def change(session: Session, tournament: Tournament) -> tuple[str, list[Letter]]:
        player = player_or_fail(session, address)
        letters = T.withdraw(session, tournament, player, reason, now())
        audit.record(session, by, "tournament.withdraw", now(), detail=f"#{tournament.id}", reason=reason,
                     player=player)
        return f"{player.address} withdrawn from tournament #{tournament.id}", letters

    _change(ctx, tournament_id, change, as_json)


@tournament_group.command("close")
@click.argument("tournament_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@by_option
@click.pass_context
def tournament_close(ctx: click.Context, tournament_id: int, as_json: bool, by: str) -> None:
    """End a ladder: its places are the final table, mailed to every player (games in progress play on)."""
    def change(session: Session, tournament: Tournament) -> tuple[str, list[Letter]]:
        letters = T.close(session, tournament, now())
        audit.record(session, by, "tournament.close", now(), detail=f"#{tournament.id}")
        return f"ladder #{tournament.id} closed: the final places went to {len(letters)} players", letters

    _change(ctx, tournament_id, change, as_json)


@tournament_group.command("cancel")
@click.argument("tournament_id", type=int)
@click.option("--reason", required=True, help="Why; the players of the games in progress are told.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@by_option
@click.pass_context
def tournament_cancel(ctx: click.Context, tournament_id: int, reason: str, as_json: bool, by: str) -> None:
    """Call the tournament off: its games in progress are cancelled (no result, no rating)."""
    def change(session: Session, tournament: Tournament) -> tuple[str, list[Letter]]:
        letters = T.cancel(session, tournament, reason, now())
        audit.record(session, by, "tournament.cancel", now(), detail=f"#{tournament.id}", reason=reason)
        return f"tournament #{tournament.id} cancelled; {len(letters)} players told", letters

    _change(ctx, tournament_id, change, as_json)
