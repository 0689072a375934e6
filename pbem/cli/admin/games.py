"""`pbem admin games|game|players|player|audit|export|ratings|stats`: reading the records.

Listings show a page (the newest 50 unless told otherwise) and fetch the players of that
page in one query, so they cost the same with ten games stored or a million.
"""

from __future__ import annotations

from collections.abc import Iterable

import click
from sqlalchemy import case
from sqlmodel import Session, func, or_, select

from pbem.cli.admin.common import (
    Page,
    admin,
    database,
    echo,
    echo_json,
    fail,
    game_or_fail,
    more_hint,
    paged,
    player_or_fail,
    table,
    visible,
)
from pbem.core import audit
from pbem.core.models import AdminAction, Game, InboundMessage, Outbox, Player, Rating
from pbem.games import ratings, records, remarks
from pbem.games import store as G
from pbem.games import watchers as W
from pbem_engine import EngineError, lookup


def people(session: Session, games: Iterable[Game]) -> dict[int, Player]:
    """The players of `games`, by id, in one query."""
    ids = {pid for g in games for pid in (g.player0_id, g.player1_id)}
    if not ids:
        return {}
    return {p.id: p for p in session.exec(select(Player).where(Player.id.in_(ids)))}


def game_row(game: Game, who: dict[int, Player]) -> dict:
    p0, p1 = who[game.player0_id], who[game.player1_id]
    return {"id": game.id, "kind": game.kind, "status": game.status, "ply": game.ply,
            "players": [p0.address, p1.address], "turn": game.turn, "result": game.result,
            "reason": game.reason, "updated": game.updated_at.strftime("%Y-%m-%d %H:%M")}


def _game_rows(session: Session, query: object, page: Page) -> tuple[list[dict], bool]:
    found, more = page.cut(list(session.exec(page.query(query, Game.id, Game.updated_at))))
    who = people(session, found)
    return [game_row(g, who) for g in reversed(found)], more  # newest last


def _kind(name: str) -> str:
    try:
        return lookup(name).name
    except EngineError as exc:
        raise fail(str(exc)) from None


@admin.command("games")
@click.option("--status", type=click.Choice(["active", "finished", "cancelled"]), help="Only these.")
@click.option("--player", "address", help="Only the games of this address.")
@click.option("--kind", "--game", "kind", help="Only this game type (e.g. ataxx).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@paged
@click.pass_context
def admin_games(ctx: click.Context, status: str | None, address: str | None, kind: str | None,
                as_json: bool, page: Page) -> None:
    """List the games: the newest 50 (by id) unless told otherwise, newest last; dates filter by last change."""
    with Session(database(ctx)) as session:
        query = select(Game)
        if status:
            query = query.where(Game.status == status)
        if kind:
            query = query.where(Game.kind == _kind(kind))
        if address:
            player = player_or_fail(session, address)
            query = query.where(or_(Game.player0_id == player.id, Game.player1_id == player.id))
        rows, more = _game_rows(session, query, page)
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        r["who"] = f"{r['players'][0]} vs {r['players'][1]}"
    table(rows, [("id", "#"), ("kind", "game"), ("status", "status"), ("ply", "ply"), ("who", "players"),
                 ("result", "result"), ("updated", "updated")])
    more_hint(more, rows)


def _game_detail(session: Session, game: Game) -> dict:
    rules = G.rules_of(game)
    who = people(session, [game])
    p0, p1 = who[game.player0_id], who[game.player1_id]
    extra = {k: v for k, v in game.model_dump().items() if any(w in k for w in ("deadline", "due", "clock"))}
    return {
        **game_row(game, who),
        "describe": rules.describe(),
        "sides": [{"side": rules.sides[i], "name": p.name, "address": p.address} for i, p in enumerate((p0, p1))],
        "on_move": rules.sides[game.turn] if game.status == "active" else None,
        "draw_offer": rules.sides[game.draw_offer] if game.draw_offer is not None else None,
        "takebacks": game.takebacks,
        "takeback_offer": rules.sides[game.takeback_offer] if game.takeback_offer is not None else None,
        "version": game.version,
        "winner": game.winner,
        "timing": extra,
        "board": rules.render(rules.load(game.state), names=(p0.name, p1.name)),
        "moves": [
            {"ply": m.ply, "side": rules.sides[m.side], "notation": m.notation, "raw": m.raw,
             "at": m.created_at.strftime("%Y-%m-%d %H:%M")}
            for m in G.moves(session, game)
        ],
        "remarks": [
            {"ply": r.ply, "by": who[r.player_id].address if r.player_id in who else r.player_id,
             "public": r.public, "text": r.text, "at": r.created_at.strftime("%Y-%m-%d %H:%M")}
            for r in remarks.of_game(session, game)
        ],
        "watchers": [p.address for p in W.watchers(session, game)],
        "mails_in": [
            {"at": m.received_at.strftime("%Y-%m-%d %H:%M"), "from": m.sender, "subject": m.subject,
             "status": m.status, "note": m.note}
            for m in session.exec(select(InboundMessage).where(InboundMessage.game_id == game.id)
                                  .order_by(InboundMessage.id))
        ],
        "mails_out": [
            {"at": m.created_at.strftime("%Y-%m-%d %H:%M"), "to": m.recipient, "template": m.template,
             "status": m.status, "attempts": m.attempts, "error": m.last_error}
            for m in session.exec(select(Outbox).where(Outbox.game_id == game.id).order_by(Outbox.id))
        ],
        "audit": [audit_row(a) for a in audit.for_game(session, game.id)],
    }


def audit_row(entry: AdminAction, who: dict[int, Player] | None = None) -> dict:
    row = {"id": entry.id, "at": entry.created_at.strftime("%Y-%m-%d %H:%M"), "by": entry.actor,
           "action": entry.action, "detail": entry.detail, "reason": entry.reason, "game": entry.game_id}
    if who is not None:
        player = who.get(entry.player_id) if entry.player_id else None
        row["player"] = player.address if player is not None else None
    return row


def _outcome(d: dict) -> str:
    """"finished, 1-0 (x, alice wins): the board is full", not the bare fields run together."""
    if d["result"] is None:
        return d["status"] + (f": {d['reason']}" if d["reason"] else "")
    if d["winner"] is not None:
        side = d["sides"][d["winner"]]
        who = f"{side['side']}, {side['name']} wins"
    else:
        who = "a draw"
    return f"{d['status']}, {d['result']} ({who})" + (f": {d['reason']}" if d["reason"] else "")


def _timing(key: str, value: object) -> str:
    """A clock field as a person reads it: the admin's extra time in days and hours."""
    if value is None:
        return "-"
    if key == "clock_credit":
        seconds = int(value)  # type: ignore[call-overload]
        if seconds == 0:
            return "none (no time added by an admin)"
        days, rest = divmod(seconds, 86400)
        return f"{days} d {rest // 3600} h added by an admin ({seconds} s)"
    return str(value)


@admin.command("game")
@click.argument("game_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def admin_game(ctx: click.Context, game_id: int, as_json: bool) -> None:
    """Show one game: players, board, moves, offers, mails in and out, and admin changes."""
    with Session(database(ctx)) as session:
        d = _game_detail(session, game_or_fail(session, game_id))
    if as_json:
        echo_json(d)
        return
    echo(f"Game #{d['id']}: {d['describe']}, {_outcome(d)}")
    for s in d["sides"]:
        echo(f"  {s['side']}: {s['name']} <{s['address']}>")
    if d["on_move"]:
        echo(f"  on move: {d['on_move']}   ply {d['ply']}   version {d['version']}")
    echo(f"  draw offer: {d['draw_offer'] or 'none'}")
    echo(f"  take-back request: {d['takeback_offer'] or 'none'}" if d["takebacks"] else "  take-backs: off")
    for key, value in d["timing"].items():
        echo(f"  {key.replace('_', ' ')}: {_timing(key, value)}")
    if d["watchers"]:
        echo(f"  watchers: {', '.join(d['watchers'])}")
    echo("\n" + d["board"] + "\n\nMoves:")
    table(d["moves"], [("ply", "ply"), ("side", "side"), ("notation", "move"), ("at", "at (UTC)")])
    echo("\nMessages relayed (say):")
    table([{**r, "text": " / ".join(r["text"].splitlines())} for r in d["remarks"]],
          [("ply", "ply"), ("by", "by"), ("at", "at (UTC)"), ("text", "text")])
    echo("\nMails in:")
    table(d["mails_in"], [("at", "at"), ("from", "from"), ("status", "status"), ("subject", "subject")])
    echo("\nMails out:")
    table(d["mails_out"], [("at", "at"), ("to", "to"), ("template", "mail"), ("status", "status"),
                           ("attempts", "tries")])
    echo("\nAdmin changes:")
    table(d["audit"], [("at", "at"), ("by", "by"), ("action", "action"), ("detail", "detail"),
                       ("reason", "why")])


def game_counts(session: Session, ids: list[int]) -> dict[int, tuple[int, int]]:
    """(games, active games) of each player in `ids`: two grouped queries, whatever the page size."""
    counts = {pid: [0, 0] for pid in ids}
    if not ids:
        return {}
    active = func.sum(case((Game.status == "active", 1), else_=0))
    for column in (Game.player0_id, Game.player1_id):
        query = select(column, func.count(Game.id), active).where(column.in_(ids)).group_by(column)
        for pid, total, playing in session.exec(query):
            counts[pid][0] += total
            counts[pid][1] += playing or 0
    return {pid: (total, playing) for pid, (total, playing) in counts.items()}


def _player_row(player: Player, counts: tuple[int, int]) -> dict:
    return {"id": player.id, "address": player.address, "name": player.name, "banned": player.banned,
            "games": counts[0], "active": counts[1], "since": player.created_at.strftime("%Y-%m-%d")}


def _like(text: str) -> str:
    return "%" + text.strip().lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


@admin.command("players")
@click.option("--banned", is_flag=True, help="Only banned addresses.")
@click.option("--player", "address", help="Only addresses that contain this text.")
@click.option("--game", "game_id", type=int, help="Only the two players of this game.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@paged
@click.pass_context
def admin_players(ctx: click.Context, banned: bool, address: str | None, game_id: int | None, as_json: bool,
                  page: Page) -> None:
    """List the players: the newest 50 unless told otherwise, newest last; dates filter by registration."""
    with Session(database(ctx)) as session:
        query = select(Player)
        if banned:
            query = query.where(Player.banned == True)  # noqa: E712  (SQL, not Python)
        if address:
            query = query.where(Player.address.like(_like(address), escape="\\"))
        if game_id is not None:
            game = game_or_fail(session, game_id)
            query = query.where(Player.id.in_([game.player0_id, game.player1_id]))
        found, more = page.cut(list(session.exec(page.query(query, Player.id, Player.created_at))))
        counts = game_counts(session, [p.id for p in found])
        rows = [_player_row(p, counts[p.id]) for p in reversed(found)]
    if as_json:
        echo_json(rows)
        return
    table(rows, [("id", "id"), ("address", "address"), ("name", "name"), ("games", "games"),
                 ("active", "active"), ("banned", "banned"), ("since", "since")])
    more_hint(more, rows)


@admin.command("player")
@click.argument("address")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@paged
@click.pass_context
def admin_player(ctx: click.Context, address: str, as_json: bool, page: Page) -> None:
    """Show one player: games (the newest 50 unless told otherwise), ratings, recent mails, admin changes."""
    with Session(database(ctx)) as session:
        player = player_or_fail(session, address)
        d = _player_row(player, game_counts(session, [player.id])[player.id])
        query = select(Game).where(or_(Game.player0_id == player.id, Game.player1_id == player.id))
        d["game_list"], more = _game_rows(session, query, page)
        d["ratings"] = [
            {"kind": r.kind, "rating": round(r.rating), "deviation": round(r.deviation), "games": r.games}
            for r in session.exec(select(Rating).where(Rating.player_id == player.id).order_by(Rating.kind))
        ]
        d["mails_in"] = [
            {"at": m.received_at.strftime("%Y-%m-%d %H:%M"), "status": m.status, "subject": m.subject}
            for m in session.exec(select(InboundMessage).where(InboundMessage.sender == player.address)
                                  .order_by(InboundMessage.id.desc()).limit(20))
        ]
        d["audit"] = [audit_row(a) for a in audit.for_player(session, player.id)]
    if as_json:
        echo_json(d)
        return
    echo(f"{d['name']} <{d['address']}>, player {d['id']} since {d['since']}{', BANNED' if d['banned'] else ''}")
    echo(f"\nGames ({d['games']}, {d['active']} in progress):")
    for r in d["game_list"]:
        r["who"] = " vs ".join(r["players"])
    table(d["game_list"], [("id", "#"), ("kind", "game"), ("status", "status"), ("who", "players"),
                           ("result", "result")])
    more_hint(more, d["game_list"])
    echo("\nRatings:")
    table(d["ratings"], [("kind", "game"), ("rating", "rating"), ("deviation", "+/-"), ("games", "games")])
    echo("\nRecent mails in:")
    table(d["mails_in"], [("at", "at"), ("status", "status"), ("subject", "subject")])
    echo("\nAdmin changes:")
    table(d["audit"], [("at", "at"), ("by", "by"), ("action", "action"), ("reason", "why")])


@admin.command("audit")
@click.option("--game", "game_id", type=int, help="Only changes of this game.")
@click.option("--player", "address", help="Only changes of this player.")
@click.option("--action", help="Only this action (undo, adjudicate, cancel, extend, resend, ban, ...).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@paged
@click.pass_context
def admin_audit(ctx: click.Context, game_id: int | None, address: str | None, action: str | None,
                as_json: bool, page: Page) -> None:
    """The audit log of admin changes: the newest 50 unless told otherwise, newest last."""
    with Session(database(ctx)) as session:
        query = select(AdminAction)
        if game_id is not None:
            query = query.where(AdminAction.game_id == game_id)
        if address:
            query = query.where(AdminAction.player_id == player_or_fail(session, address).id)
        if action:
            query = query.where(AdminAction.action == action)
        found, more = page.cut(list(session.exec(page.query(query, AdminAction.id, AdminAction.created_at))))
        ids = {a.player_id for a in found if a.player_id}
        who = {p.id: p for p in session.exec(select(Player).where(Player.id.in_(ids)))} if ids else {}
        rows = [audit_row(a, who) for a in reversed(found)]
    if as_json:
        echo_json(rows)
        return
    table(rows, [("id", "id"), ("at", "at"), ("by", "by"), ("action", "action"), ("game", "game"),
                 ("player", "player"), ("detail", "detail"), ("reason", "why")])
    more_hint(more, rows)
    if not rows:
        echo("no admin changes")


@admin.command("export")
@click.argument("game_id", type=int)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write to this file.")
@click.pass_context
def admin_export(ctx: click.Context, game_id: int, output: str | None) -> None:
    """Write a game's record: SGF for Capture Go, a text record (Ataxx with its FEN) for the others."""
    with Session(database(ctx)) as session:
        record = records.export(session, game_or_fail(session, game_id))
    if output:
        with open(output, "w", encoding="utf-8") as file:
            file.write(record.text)
        echo(f"wrote {output} ({record.mimetype})")
    else:
        click.echo(visible(record.text, keep="\n"), nl=False)


@admin.command("ratings")
@click.argument("kind")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def admin_ratings(ctx: click.Context, kind: str, as_json: bool) -> None:
    """The Glicko-2 rating list of one game type, such as ataxx."""
    kind = _kind(kind)
    with Session(database(ctx)) as session:
        rows = ratings.table(session, kind)
    if as_json:
        echo_json(rows)
        return
    table(rows, [("rank", "rank"), ("rating", "rating"), ("deviation", "+/-"), ("games", "games"),
                 ("name", "name"), ("address", "address")])


@admin.command("stats")
@click.argument("kind", required=False)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def admin_stats(ctx: click.Context, kind: str | None, as_json: bool) -> None:
    """Per game type: finished games, wins by side and draws; and the service's counts."""
    kind = _kind(kind) if kind else None
    with Session(database(ctx)) as session:
        rows = records.statistics(session, kind)
        service = {
            "players": session.exec(select(func.count(Player.id))).one(),
            "games_active": session.exec(select(func.count(Game.id)).where(Game.status == "active")).one(),
            "mails_in": session.exec(select(func.count(InboundMessage.id))).one(),
            "outbox_pending": session.exec(select(func.count(Outbox.id)).where(Outbox.status == "pending")).one(),
            "outbox_failed": session.exec(select(func.count(Outbox.id)).where(Outbox.status == "failed")).one(),
        }
    if as_json:
        echo_json({"games": rows, "service": service})
        return
    for r in rows:
        echo(f"{r['kind']}: {r['games']} games: {r['line']}")
    if not rows:
        echo("no game has finished yet")
    echo("; ".join(f"{k.replace('_', ' ')} {v}" for k, v in service.items()))
