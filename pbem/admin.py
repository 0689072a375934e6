"""`pbem admin`: the operator's commands. Each works while the daemon runs."""

from __future__ import annotations

import json

import click
from sqlmodel import Session, select

from pbem import config as config_mod
from pbem import games as G
from pbem.db import make_engine, migrate
from pbem.models import Game, Player


def settings(ctx: click.Context) -> config_mod.Settings:
    """The settings of the `--config` given to `pbem` (shared by every subcommand)."""
    try:
        return config_mod.load(ctx.obj["config"])
    except config_mod.ConfigError as exc:
        raise click.ClickException(str(exc)) from None


@click.group()
def admin() -> None:
    """Inspect the records (the daemon may keep running)."""


@admin.command("migrate")
@click.pass_context
def admin_migrate(ctx: click.Context) -> None:
    """Create the database or bring its schema up to date."""
    url = settings(ctx).db_url
    migrate(make_engine(url))
    click.echo(f"database is up to date: {url}")


def _session(ctx: click.Context) -> Session:
    engine = make_engine(settings(ctx).db_url)
    migrate(engine)
    return Session(engine)


@admin.command("games")
@click.option("--status", type=click.Choice(["active", "finished", "cancelled"]), help="Only these.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def admin_games(ctx: click.Context, status: str | None, as_json: bool) -> None:
    """List the games."""
    with _session(ctx) as session:
        query = select(Game).order_by(Game.id)
        if status:
            query = query.where(Game.status == status)
        rows = []
        for game in session.exec(query):
            p0, p1 = G.players(session, game)
            rows.append(
                {"id": game.id, "kind": game.kind, "status": game.status, "ply": game.ply,
                 "players": [p0.address, p1.address], "turn": game.turn, "result": game.result}
            )
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    for r in rows:
        click.echo(
            f"#{r['id']:<5} {r['kind']:<13} {r['status']:<9} ply {r['ply']:<4} "
            f"{r['players'][0]} vs {r['players'][1]}  {r['result'] or ''}"
        )


@admin.command("game")
@click.argument("game_id", type=int)
@click.pass_context
def admin_game(ctx: click.Context, game_id: int) -> None:
    """Show one game: players, board and moves."""
    with _session(ctx) as session:
        game = session.get(Game, game_id)
        if game is None:
            raise click.ClickException(f"there is no game #{game_id}")
        p0, p1 = G.players(session, game)
        rules = G.rules_of(game)
        click.echo(f"Game #{game.id}: {rules.describe()}, {game.status} {game.result or ''} {game.reason or ''}")
        click.echo(f"  {rules.sides[0]}: {p0.name} <{p0.address}>\n  {rules.sides[1]}: {p1.name} <{p1.address}>")
        click.echo(rules.render(rules.load(game.state), names=(p0.name, p1.name)))
        for move in G.moves(session, game):
            who = session.get(Player, move.player_id)
            click.echo(f"  {move.ply:>4}. {move.notation:<24} {who.name:<16} {move.created_at:%Y-%m-%d %H:%M}")
