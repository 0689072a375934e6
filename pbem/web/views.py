"""The data of each page, read from the records by pbem's own domain modules: names only,
never an address (the views of `pbem.tournaments.table` have them: they are dropped here)."""

from __future__ import annotations

import inspect
from typing import Any

from sqlmodel import Session, col, select

import pbem_engine
from pbem.core.models import Challenge, Game, Player, Rating, RatingPoint, Tournament
from pbem.games import clock, records, remarks
from pbem.games import store as G
from pbem.letters import weblinks
from pbem.letters.views import title
from pbem.text import boards
from pbem.text.i18n import Speaker
from pbem.tournaments import table as tournament_table
from pbem.web import drawing, seen
from pbem.web.speech import markup
from pbem_engine.ataxx.board import to_fen
from pbem_engine.ataxx.game import Ataxx
from pbem_engine.go.game import CaptureGo

_PRIVATE = ("address", "me")  # what a mail's view of a tournament has and a page must not


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if k not in _PRIVATE}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def game(session: Session, game: Game, ply: int | None, talk: Speaker) -> dict[str, Any]:
    rules = G.rules_of(game)
    p0, p1 = G.players(session, game)
    moves = G.moves(session, game)
    shown = len(moves) if ply is None else max(0, min(ply, len(moves)))
    pos = rules.start()
    for move in moves[:shown]:
        pos, _ = rules.play(pos, move.notation)
    finished = game.status != "active" and shown == len(moves)
    board = boards.Board(rules, pos, names=(p0.name, p1.name), finished=finished)
    grid = board.grid(talk)
    label = talk.gettext("The board after move %(ply)s", ply=shown) if shown else talk.gettext("The board at the start")
    said = [{"ply": r.ply, "name": (p0, p1)[0 if r.player_id == p0.id else 1].name, "text": r.text}
            for r in remarks.of_game(session, game) if r.public]
    deadline = clock.view(session, game, None) if game.status == "active" else None
    outcome = rules.outcome(pos)
    sides = rules.sides
    return {
        "id": game.id, "kind": game.kind, "title": title(rules), "describe": rules.describe(),
        "status": game.status, "result": game.result, "reason": game.reason,
        "players": [{"name": p.name, "side": sides[i], "score": outcome.scores[i], "page": p.id if (
            p.public or p.bot_level is not None) and not p.banned else None} for i, p in enumerate((p0, p1))],
        "turn": sides[game.turn], "on_move": (p0, p1)[game.turn].name,
        "moves": [{"ply": m.ply, "notation": m.notation, "side": sides[m.side]} for m in moves],
        "ply": shown, "last": len(moves), "svg": markup(drawing.board(grid, label, isinstance(rules, CaptureGo))),
        "legend": grid["legend"], "remarks": said, "deadline": deadline,
        "created": game.created_at, "updated": game.updated_at, "days": game.days,
        "weekends_off": game.weekends_off, "path": weblinks.game_path(game),
        "sgf": rules.record_format == "sgf", "fen": isinstance(rules, Ataxx),
        "listed": seen.is_listed(session, game),
    }


def record(session: Session, game: Game) -> records.Record:
    """The game's record to download (SGF or text), with names and no address."""
    return records.export(session, game, addresses=False, public_only=True)


def fen(game: Game, ply: int | None, session: Session) -> str:
    rules = G.rules_of(game)
    moves = G.moves(session, game)
    pos = rules.start()
    for move in moves[: len(moves) if ply is None else max(0, ply)]:
        pos, _ = rules.play(pos, move.notation)
    return to_fen(pos)


def _result_for(game: Game, side: int) -> str:
    if game.status != "finished":
        return "*"
    if game.winner is None:
        return "draw"
    return "won" if game.winner == side else "lost"


def player(session: Session, player: Player, talk: Speaker) -> dict[str, Any]:
    listed = seen.listed_games(session, player.id)
    active: list[dict[str, Any]] = []
    done: list[dict[str, Any]] = []
    by_colour: dict[tuple[str, str], dict[str, int]] = {}
    for g, a, b in listed:
        side = 0 if g.player0_id == player.id else 1
        rules_cls = pbem_engine.lookup(g.kind)
        row = {"id": g.id, "path": weblinks.game_path(g), "kind": g.kind, "title": rules_cls.title,
               "opponent": (b if side == 0 else a).name, "side": rules_cls.sides[side],
               "result": g.result, "outcome": _result_for(g, side), "ply": g.ply, "updated": g.updated_at}
        (active if g.status == "active" else done).append(row)
        if g.status == "finished":
            counts = by_colour.setdefault((rules_cls.title, rules_cls.sides[side]), {"won": 0, "draw": 0, "lost": 0})
            counts[str(row["outcome"])] += 1
    ratings = []
    for rating in session.exec(select(Rating).where(Rating.player_id == player.id).order_by(Rating.kind)):
        points = session.exec(
            select(RatingPoint.at, RatingPoint.rating)
            .where(RatingPoint.player_id == player.id, RatingPoint.kind == rating.kind)
            .order_by(col(RatingPoint.at), col(RatingPoint.id))
        ).all()
        label = talk.gettext("Rating history in %(game)s", game=pbem_engine.lookup(rating.kind).title)
        ratings.append({"kind": rating.kind, "title": pbem_engine.lookup(rating.kind).title,
                        "rating": round(rating.rating), "deviation": round(rating.deviation), "games": rating.games,
                        "plot": markup(drawing.plot([(at, r) for at, r in points], label)) if points else None})
    colours = [{"game": k[0], "side": k[1], **v} for k, v in sorted(by_colour.items())]
    return {"id": player.id, "name": player.name, "bot": player.bot_level is not None,
            "active": active, "done": done, "ratings": ratings, "colours": colours}


def _hidden(value: Any, private: set[str], label: str) -> Any:
    """`value` with the names of the players who keep their games private replaced by `label`."""
    if isinstance(value, dict):
        return {k: _hidden(v, private, label) for k, v in value.items()}
    if isinstance(value, list):
        return [_hidden(v, private, label) for v in value]
    return label if isinstance(value, str) and value in private else value


def tournament(session: Session, t: Tournament, talk: Speaker) -> dict[str, Any]:
    entrants = [e.player_id for e in tournament_table.entries(session, t)]
    private = {p.name for p in session.exec(select(Player).where(col(Player.id).in_(entrants)))
               if not (p.public or p.bot_level is not None)}
    view = _clean(tournament_table.view(session, t))
    ids = [r.game_id for r in tournament_table.boards(session, t) if r.game_id]
    listed = seen.listed_ids(session, ids)
    paths = {g.id: weblinks.game_path(g) for g in session.exec(select(Game).where(col(Game.id).in_(list(listed))))}
    rounds: dict[int, list[dict[str, Any]]] = {}
    names = {p.id: p.name for p in session.exec(select(Player).where(col(Player.id).in_(
        [e.player_id for e in tournament_table.entries(session, t)])))}
    for row in tournament_table.boards(session, t):
        rounds.setdefault(row.round, []).append({
            "board": row.board, "first": names.get(row.first_id, "?"),
            "second": names.get(row.second_id, "?") if row.second_id else None,
            "score": f"{row.first_points:g}-{(row.second_points or 0):g}" if row.first_points is not None else None,
            "path": paths.get(row.game_id) if row.game_id else None, "forfeit": row.forfeit,
        })
    for key in ("challenges", "recent"):
        for item in view.get(key, []):
            item["path"] = paths.get(item.get("game"))
    for item in view.get("places", []):
        item["path"] = paths.get(item.get("playing"))
    view["boards"] = [[number, rows] for number, rows in sorted(rounds.items())]
    view["title"] = pbem_engine.lookup(t.kind).title
    # a player who keeps their games private is in the table, but not by name
    return _hidden(view, private, talk.gettext("a player who plays in private"))


def tournaments(session: Session) -> list[dict[str, Any]]:
    found = session.exec(select(Tournament).where(Tournament.status != "cancelled").order_by(col(Tournament.id).desc()))
    return [{"id": t.id, "name": t.name, "format": t.format, "title": pbem_engine.lookup(t.kind).title,
             "status": t.status, "round": t.round} for t in found]


def challenges(session: Session) -> list[dict[str, Any]]:
    """The open challenges (to anyone): the game, its options, the challenger's name."""
    rows = session.exec(
        select(Challenge, Player).join(Player, col(Player.id) == col(Challenge.challenger_id))
        .where(Challenge.status == "open", col(Challenge.opponent_id).is_(None), col(Player.banned).is_(False))
        .order_by(col(Challenge.id))
    ).all()
    return [{"id": c.id, "title": pbem_engine.lookup(c.kind).title, "kind": c.kind,
             "options": " ".join(f"{k}={v}" for k, v in sorted(c.options.items())),
             "challenger": p.name, "days": c.days, "created": c.created_at} for c, p in rows]


def rules_list() -> list[dict[str, Any]]:
    return [{"name": name, "title": pbem_engine.lookup(name).title} for name in pbem_engine.names()]


def rules_context(name: str) -> dict[str, Any]:
    """What the `rules` mail is rendered with (`pbem.commands.player.info.Rules`), for one game."""
    cls = pbem_engine.lookup(name)
    rules = cls()
    return {
        "game": {"name": cls.name, "title": title(cls), "sides": cls.sides},
        "rules_text": f"rules/{cls.name}.txt",
        "description": inspect.cleandoc(cls.__doc__ or cls.title),
        "options": [{"name": o.name, "default": o.default, "help": o.help} for o in cls.option_specs],
        "notation": rules.notation(), "example": rules.examples(rules.start())[0],
    }
