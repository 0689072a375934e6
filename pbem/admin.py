"""`pbem admin`: the operator's commands. Each works while the daemon runs."""

from __future__ import annotations

import json

import click
from sqlalchemy import Engine
from sqlmodel import Session, func, or_, select

from engine import EngineError, lookup
from pbem import audit, outbox, players, ratings, records
from pbem import config as config_mod
from pbem import games as G
from pbem import watchers as W
from pbem.audit import default_actor
from pbem.clock import now
from pbem.commands import reader
from pbem.commands.base import CommandError
from pbem.db import make_engine, migrate, transaction
from pbem.models import AdminAction, Game, InboundMessage, Outbox, Player, Rating
from pbem.present import game_view
from pbem.templates import Templates


def settings(ctx: click.Context) -> config_mod.Settings:
    """The settings of the `--config` given to `pbem` (shared by every subcommand)."""
    try:
        return config_mod.load(ctx.obj["config"])
    except config_mod.ConfigError as exc:
        raise click.ClickException(str(exc)) from None


@click.group()
def admin() -> None:
    """Inspect and fix the records (the daemon may keep running)."""


@admin.command("migrate")
@click.pass_context
def admin_migrate(ctx: click.Context) -> None:
    """Create the database or bring its schema up to date."""
    url = settings(ctx).db_url
    migrate(make_engine(url))
    click.echo(f"database is up to date: {url}")


def database(ctx: click.Context) -> Engine:
    """The database of the `--config` given, migrated to the newest schema."""
    engine = make_engine(settings(ctx).db_url)
    migrate(engine)
    return engine


def _session(ctx: click.Context) -> Session:
    return Session(database(ctx))


def _echo_json(data: object) -> None:
    click.echo(json.dumps(data, indent=1, default=str))


def _table(rows: list[dict], columns: list[tuple[str, str]]) -> None:
    """A plain text table: (key, heading) columns, widths from the data."""
    cells = [[heading for _, heading in columns]]
    cells += [["" if r.get(key) is None else str(r.get(key)) for key, _ in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    for row in cells:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def _game_or_fail(session: Session, game_id: int) -> Game:
    game = session.get(Game, game_id)
    if game is None:
        raise click.ClickException(f"there is no game #{game_id}; `pbem admin games` lists them")
    return game


def _player_or_fail(session: Session, address: str) -> Player:
    player = session.exec(select(Player).where(Player.address == address.strip().lower())).first()
    if player is None:
        raise click.ClickException(f"there is no player {address}; `pbem admin players` lists them")
    return player


def _game_row(session: Session, game: Game) -> dict:
    p0, p1 = G.players(session, game)
    return {"id": game.id, "kind": game.kind, "status": game.status, "ply": game.ply,
            "players": [p0.address, p1.address], "turn": game.turn, "result": game.result,
            "reason": game.reason, "updated": game.updated_at.strftime("%Y-%m-%d %H:%M")}


by_option = click.option("--by", default=default_actor, show_default="the OS user", help="Who makes the change.")


@admin.command("extend")
@click.argument("game_id", type=int)
@click.option("--days", type=float, required=True, help="Days to add to the current deadline.")
@click.option("--reason", default="", help="Told to both players.")
@click.pass_context
def admin_extend(ctx: click.Context, game_id: int, days: float, reason: str) -> None:
    """Give the player on move more time; both players get the new deadline by mail."""
    from pbem import clock

    conf = settings(ctx)
    templates = Templates(guard=lambda line: reader.classify(line) is not None)
    with transaction(database(ctx)) as session:
        game = _game_or_fail(session, game_id)
        try:
            clock.extend(session, conf, templates, game, days, reason)
        except clock.ClockError as exc:
            raise click.ClickException(exc.message) from None
        until = clock.game_deadline(session, game)
    click.echo(f"game #{game_id}: the deadline is now {until:%Y-%m-%d %H:%M} UTC; both players are told")


@admin.command("games")
@click.option("--status", type=click.Choice(["active", "finished", "cancelled"]), help="Only these.")
@click.option("--player", "address", help="Only the games of this address.")
@click.option("--kind", "--game", "kind", help="Only this game type (e.g. ataxx).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def admin_games(ctx: click.Context, status: str | None, address: str | None, kind: str | None,
                as_json: bool) -> None:
    """List the games, newest last."""
    with _session(ctx) as session:
        query = select(Game).order_by(Game.id)
        if status:
            query = query.where(Game.status == status)
        if kind:
            query = query.where(Game.kind == kind.lower())
        if address:
            player = _player_or_fail(session, address)
            query = query.where(or_(Game.player0_id == player.id, Game.player1_id == player.id))
        rows = [_game_row(session, game) for game in session.exec(query)]
    if as_json:
        _echo_json(rows)
        return
    for r in rows:
        r["who"] = f"{r['players'][0]} vs {r['players'][1]}"
    _table(rows, [("id", "#"), ("kind", "game"), ("status", "status"), ("ply", "ply"), ("who", "players"),
                  ("result", "result"), ("updated", "updated")])


def _game_detail(session: Session, game: Game) -> dict:
    rules = G.rules_of(game)
    p0, p1 = G.players(session, game)
    people = (p0, p1)
    extra = {k: v for k, v in game.model_dump().items() if any(w in k for w in ("deadline", "due", "clock"))}
    return {
        **_game_row(session, game),
        "describe": rules.describe(),
        "sides": [{"side": rules.sides[i], "name": p.name, "address": p.address} for i, p in enumerate(people)],
        "on_move": rules.sides[game.turn] if game.status == "active" else None,
        "draw_offer": rules.sides[game.draw_offer] if game.draw_offer is not None else None,
        "version": game.version,
        "timing": extra,
        "board": rules.render(rules.load(game.state), names=(p0.name, p1.name)),
        "moves": [
            {"ply": m.ply, "side": rules.sides[m.side], "notation": m.notation, "raw": m.raw,
             "at": m.created_at.strftime("%Y-%m-%d %H:%M")}
            for m in G.moves(session, game)
        ],
        "watchers": [p.address for p in W.watchers(session, game)],
        "mails_in": [
            {"at": m.received_at.strftime("%Y-%m-%d %H:%M"), "from": m.sender, "subject": m.subject,
             "status": m.status, "note": m.note}
            for m in session.exec(select(InboundMessage).where(InboundMessage.game_id == game.id)
                                  .order_by(InboundMessage.id))
        ],
        "mails_out": [
            {"at": m.created_at.strftime("%Y-%m-%d %H:%M"), "to": m.recipient, "kind": m.kind,
             "status": m.status, "attempts": m.attempts, "error": m.last_error}
            for m in session.exec(select(Outbox).where(Outbox.game_id == game.id).order_by(Outbox.id))
        ],
        "audit": [_audit_row(a) for a in audit.for_game(session, game.id)],
    }


def _audit_row(entry: AdminAction) -> dict:
    return {"at": entry.created_at.strftime("%Y-%m-%d %H:%M"), "by": entry.actor, "action": entry.action,
            "detail": entry.detail, "reason": entry.reason, "game": entry.game_id}


@admin.command("game")
@click.argument("game_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def admin_game(ctx: click.Context, game_id: int, as_json: bool) -> None:
    """Show one game: players, board, moves, offers, mails in and out, and admin changes."""
    with _session(ctx) as session:
        d = _game_detail(session, _game_or_fail(session, game_id))
    if as_json:
        _echo_json(d)
        return
    click.echo(f"Game #{d['id']}: {d['describe']}, {d['status']} {d['result'] or ''} {d['reason'] or ''}".rstrip())
    for s in d["sides"]:
        click.echo(f"  {s['side']}: {s['name']} <{s['address']}>")
    if d["on_move"]:
        click.echo(f"  on move: {d['on_move']}   ply {d['ply']}   version {d['version']}")
    click.echo(f"  draw offer: {d['draw_offer'] or 'none'}")
    for key, value in d["timing"].items():
        click.echo(f"  {key}: {value if value is not None else '-'}")
    if d["watchers"]:
        click.echo(f"  watchers: {', '.join(d['watchers'])}")
    click.echo("\n" + d["board"] + "\n\nMoves:")
    _table(d["moves"], [("ply", "ply"), ("side", "side"), ("notation", "move"), ("at", "at (UTC)")])
    click.echo("\nMails in:")
    _table(d["mails_in"], [("at", "at"), ("from", "from"), ("status", "status"), ("subject", "subject")])
    click.echo("\nMails out:")
    _table(d["mails_out"], [("at", "at"), ("to", "to"), ("kind", "kind"), ("status", "status"),
                            ("attempts", "tries")])
    click.echo("\nAdmin changes:")
    _table(d["audit"], [("at", "at"), ("by", "by"), ("action", "action"), ("detail", "detail"),
                        ("reason", "why")])


def _player_row(session: Session, player: Player) -> dict:
    games = session.exec(
        select(Game).where(or_(Game.player0_id == player.id, Game.player1_id == player.id))
    ).all()
    return {"id": player.id, "address": player.address, "name": player.name, "banned": player.banned,
            "games": len(games), "active": sum(g.status == "active" for g in games),
            "since": player.created_at.strftime("%Y-%m-%d")}


@admin.command("players")
@click.option("--banned", is_flag=True, help="Only banned addresses.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def admin_players(ctx: click.Context, banned: bool, as_json: bool) -> None:
    """List the players."""
    with _session(ctx) as session:
        query = select(Player).order_by(Player.id)
        if banned:
            query = query.where(Player.banned == True)  # noqa: E712  (SQL, not Python)
        rows = [_player_row(session, p) for p in session.exec(query)]
    if as_json:
        _echo_json(rows)
        return
    _table(rows, [("id", "id"), ("address", "address"), ("name", "name"), ("games", "games"),
                  ("active", "active"), ("banned", "banned"), ("since", "since")])


@admin.command("player")
@click.argument("address")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def admin_player(ctx: click.Context, address: str, as_json: bool) -> None:
    """Show one player: games, ratings, recent mails and admin changes."""
    with _session(ctx) as session:
        player = _player_or_fail(session, address)
        d = _player_row(session, player)
        query = select(Game).where(or_(Game.player0_id == player.id, Game.player1_id == player.id))
        d["game_list"] = [_game_row(session, g) for g in session.exec(query.order_by(Game.id))]
        d["ratings"] = [
            {"kind": r.kind, "rating": round(r.rating), "deviation": round(r.deviation), "games": r.games}
            for r in session.exec(select(Rating).where(Rating.player_id == player.id).order_by(Rating.kind))
        ]
        d["mails_in"] = [
            {"at": m.received_at.strftime("%Y-%m-%d %H:%M"), "status": m.status, "subject": m.subject}
            for m in session.exec(select(InboundMessage).where(InboundMessage.sender == player.address)
                                  .order_by(InboundMessage.id.desc()).limit(20))
        ]
        d["audit"] = [_audit_row(a) for a in audit.for_player(session, player.id)]
    if as_json:
        _echo_json(d)
        return
    click.echo(f"{d['name']} <{d['address']}>, player {d['id']} since {d['since']}"
               f"{', BANNED' if d['banned'] else ''}")
    click.echo("\nGames:")
    for r in d["game_list"]:
        r["who"] = " vs ".join(r["players"])
    _table(d["game_list"], [("id", "#"), ("kind", "game"), ("status", "status"), ("who", "players"),
                            ("result", "result")])
    click.echo("\nRatings:")
    _table(d["ratings"], [("kind", "game"), ("rating", "rating"), ("deviation", "+/-"), ("games", "games")])
    click.echo("\nRecent mails in:")
    _table(d["mails_in"], [("at", "at"), ("status", "status"), ("subject", "subject")])
    click.echo("\nAdmin changes:")
    _table(d["audit"], [("at", "at"), ("by", "by"), ("action", "action"), ("reason", "why")])


def _mail_both(session: Session, ctx: click.Context, game: Game, template: str, **data: object) -> None:
    """One mail to each player of `game`, each seeing the game from their side."""
    templates = Templates(guard=lambda line: reader.classify(line) is not None)
    for player in G.players(session, game):
        if player.banned:
            continue
        view = game_view(session, game, player)
        outbox.queue(session, settings(ctx), templates, player, [(template, {"game": view, **data})], game=game)


def _change(ctx: click.Context, game_id: int, change) -> None:  # noqa: ANN001
    """Run `change(session, game)` in one transaction; a refused change leaves nothing behind."""
    try:
        with transaction(database(ctx)) as session:
            change(session, _game_or_fail(session, game_id))
    except CommandError as exc:
        raise click.ClickException(exc.message) from None


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

    def change(session: Session, game: Game) -> None:
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
        _mail_both(session, ctx, game, "adjudicated.txt", why=reason, attach_record=game.id)
        click.echo(f"game #{game.id} adjudicated: {game.result} ({reason}); both players are told")

    _change(ctx, game_id, change)


@admin.command("undo")
@click.argument("game_id", type=int)
@click.argument("plies", type=click.IntRange(min=1), default=1)
@click.option("--reason", required=True, help="Why; both players are told.")
@by_option
@click.pass_context
def admin_undo(ctx: click.Context, game_id: int, plies: int, reason: str, by: str) -> None:
    """Take back the last PLIES moves (default 1) of a game in progress; both players get the new board."""

    def change(session: Session, game: Game) -> None:
        dropped = G.undo(session, game, plies, now())
        taken = [m.notation for m in dropped]
        audit.record(session, by, "undo", now(), detail=f"took back {', '.join(taken)}", reason=reason, game=game)
        _mail_both(session, ctx, game, "undone.txt", why=reason, taken=taken)
        click.echo(f"game #{game.id}: took back {', '.join(taken)}; both players have the new board")

    _change(ctx, game_id, change)


@admin.command("cancel")
@click.argument("game_id", type=int)
@click.option("--reason", required=True, help="Why; both players are told.")
@by_option
@click.pass_context
def admin_cancel(ctx: click.Context, game_id: int, reason: str, by: str) -> None:
    """Call off a game in progress: no result, no rating change; both players are told."""

    def change(session: Session, game: Game) -> None:
        G.cancel(session, game, reason, now())
        audit.record(session, by, "cancel", now(), reason=reason, game=game)
        _mail_both(session, ctx, game, "cancelled.txt", why=reason)
        click.echo(f"game #{game.id} cancelled")

    _change(ctx, game_id, change)


@admin.command("resend")
@click.argument("game_id", type=int)
@click.option("--reason", default="", help="Why (kept in the log).")
@by_option
@click.pass_context
def admin_resend(ctx: click.Context, game_id: int, reason: str, by: str) -> None:
    """Send the current board of a game to both players again (e.g. after a lost mail)."""

    def change(session: Session, game: Game) -> None:
        audit.record(session, by, "resend", now(), detail=f"board at ply {game.ply}", reason=reason, game=game)
        _mail_both(session, ctx, game, "board.txt")
        click.echo(f"game #{game.id}: the board is on its way to both players")

    _change(ctx, game_id, change)


def _set_banned(ctx: click.Context, address: str, banned: bool, reason: str, by: str) -> None:
    with transaction(database(ctx)) as session:
        player = session.exec(select(Player).where(Player.address == address.strip().lower())).first()
        if player is None and banned:  # ban before first contact: the address never gets a reply
            player = players.get_or_register(session, address, now())
        if player is None:
            raise click.ClickException(f"there is no player {address}")
        player.banned = banned
        session.add(player)
        audit.record(session, by, "ban" if banned else "unban", now(), detail=player.address, reason=reason,
                     player=player)
    click.echo(f"{player.address} is {'banned: no replies, no play' if banned else 'no longer banned'}")


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


@admin.command("export")
@click.argument("game_id", type=int)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write to this file.")
@click.pass_context
def admin_export(ctx: click.Context, game_id: int, output: str | None) -> None:
    """Write a game's record: SGF for Capture Go, a text record (Ataxx with its FEN) for the others."""
    with _session(ctx) as session:
        record = records.export(session, _game_or_fail(session, game_id))
    if output:
        with open(output, "w", encoding="utf-8") as file:
            file.write(record.text)
        click.echo(f"wrote {output} ({record.mimetype})")
    else:
        click.echo(record.text, nl=False)


@admin.command("ratings")
@click.argument("kind")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def admin_ratings(ctx: click.Context, kind: str, as_json: bool) -> None:
    """The Glicko-2 rating list of one game type, e.g. ataxx."""
    try:
        kind = lookup(kind).name
    except EngineError as exc:
        raise click.ClickException(str(exc)) from None
    with _session(ctx) as session:
        rows = ratings.table(session, kind)
    if as_json:
        _echo_json(rows)
        return
    _table(rows, [("rank", "rank"), ("rating", "rating"), ("deviation", "+/-"), ("games", "games"),
                  ("name", "name"), ("address", "address")])


@admin.command("stats")
@click.argument("kind", required=False)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def admin_stats(ctx: click.Context, kind: str | None, as_json: bool) -> None:
    """Per game type: finished games, wins by side and draws; and the service's counts."""
    if kind:
        try:
            kind = lookup(kind).name
        except EngineError as exc:
            raise click.ClickException(str(exc)) from None
    with _session(ctx) as session:
        rows = records.statistics(session, kind)
        service = {
            "players": session.exec(select(func.count(Player.id))).one(),
            "games_active": session.exec(select(func.count(Game.id)).where(Game.status == "active")).one(),
            "mails_in": session.exec(select(func.count(InboundMessage.id))).one(),
            "outbox_pending": session.exec(select(func.count(Outbox.id)).where(Outbox.status == "pending")).one(),
            "outbox_failed": session.exec(select(func.count(Outbox.id)).where(Outbox.status == "failed")).one(),
        }
    if as_json:
        _echo_json({"games": rows, "service": service})
        return
    for r in rows:
        click.echo(f"{r['kind']}: {r['games']} games: {r['line']}")
    if not rows:
        click.echo("no game has finished yet")
    click.echo("; ".join(f"{k.replace('_', ' ')} {v}" for k, v in service.items()))

from pbem import admin_mail  # noqa: E402, F401  (registers quarantine, outbox and bounces)
