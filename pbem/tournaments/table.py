"""A tournament's rows read back: its entries, its boards, their results, and the view a mail shows.

Read-only but for `score`, which gives a finished board its result from its game. The
domain (`pbem.tournaments.tournament`, `pbem.tournaments.ladder`), the admin's `show` and the `tournament` command
see one table: standings with the format's tie-breaks named, the crosstable as cells of
marks (digits and signs, no words, so every language reads it), the current round's boards,
and each player's rating change since the start; a ladder's view is its places instead,
the challenges being played, the latest results, and whom the reader may challenge.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session, col, select

from pbem.core.models import Entry, Game, Player, Rating, RatingPoint, Tournament, TournamentGame
from pbem.games import clock
from pbem.tournaments import standings
from pbem.tournaments.pairing import Pairing
from pbem.tournaments.places import Ladder
from pbem.tournaments.standings import Result

#: the tie-breaks a format's table ranks by
TIEBREAKS = {"roundrobin": standings.ROUND_ROBIN, "double": standings.ROUND_ROBIN, "swiss": standings.SWISS}


def entries(session: Session, tournament: Tournament) -> list[Entry]:
    """The entries, by seed once seeded, else in the order they joined."""
    rows = session.exec(select(Entry).where(Entry.tournament_id == tournament.id).order_by(Entry.id)).all()
    return sorted(rows, key=lambda e: (e.seed is None, e.seed or 0, e.id))


def boards(session: Session, tournament: Tournament, round: int | None = None) -> list[TournamentGame]:
    query = select(TournamentGame).where(TournamentGame.tournament_id == tournament.id)
    if round is not None:
        query = query.where(TournamentGame.round == round)
    return list(session.exec(query.order_by(TournamentGame.round, TournamentGame.board)))


def score(session: Session, row: TournamentGame) -> bool:
    """Give a finished board its result from its game; False while the game is on."""
    if row.first_points is not None:
        return True
    game = session.get(Game, row.game_id)
    if game.status == "active":
        return False
    if game.status == "cancelled" or game.result is None:  # no result: neither scores
        row.first_points, row.second_points, row.forfeit = 0.0, 0.0, True
    else:
        first = 0.5 if game.winner is None else (1.0 if game.winner == 0 else 0.0)
        row.first_points, row.second_points = first, 1.0 - first
        row.on_time = game.ending == "time"
    session.add(row)
    return True


def results(rows: Sequence[TournamentGame]) -> list[Result]:
    """The results the rows hold (boards still being played have none)."""
    return [
        Result(row.round, row.first_id, row.second_id, row.first_points, row.second_points or 0.0,
               forfeit=row.forfeit, on_time=row.on_time)
        for row in rows if row.first_points is not None
    ]


def history(rows: Sequence[TournamentGame]) -> list[Pairing]:
    return [Pairing(row.first_id, row.second_id) for row in rows]


def table(session: Session, tournament: Tournament) -> standings.Table:
    field = entries(session, tournament)
    return standings.table(
        [e.player_id for e in field], results(boards(session, tournament)),
        TIEBREAKS.get(tournament.format, standings.SWISS), [e.player_id for e in field if e.withdrawn],
    )


def _points(value: float) -> str:
    """1, 0, 1/2 as a table writes them (½ for the half)."""
    whole, half = int(value), value - int(value) >= 0.5
    if half:
        return f"{whole}½" if whole else "½"
    return str(whole)


def _mark(mark: standings.Mark) -> str:
    if mark.forfeit:
        return "+" if mark.points else "-"
    return _points(mark.points)


def _ratings(session: Session, tournament: Tournament, players: list[int]) -> dict[int, float]:
    """Each player's rating in the tournament's game: now, or for a finished tournament as it
    stood when it ended (their later games do not change its table)."""
    ratings = {
        r.player_id: r.rating
        for r in session.exec(select(Rating).where(col(Rating.kind) == tournament.kind, col(Rating.player_id).in_(players)))
    }
    if tournament.status == "finished" and tournament.finished_at is not None:
        ratings.update(  # the last point of each history up to the end (none kept before it: today's)
            (point.player_id, point.rating)
            for point in session.exec(
                select(RatingPoint)
                .where(col(RatingPoint.kind) == tournament.kind, col(RatingPoint.player_id).in_(players),
                       col(RatingPoint.at) <= tournament.finished_at)
                .order_by(col(RatingPoint.at), col(RatingPoint.id))
            )
        )
    return ratings


def view(session: Session, tournament: Tournament, viewer: Player | None = None) -> dict[str, Any]:
    """Everything a mail or the admin's `show` says of a tournament."""
    if tournament.format == "ladder":
        return ladder_view(session, tournament, viewer)
    field = entries(session, tournament)
    players = {p.id: p for p in session.exec(select(Player).where(Player.id.in_([e.player_id for e in field])))}
    rows = boards(session, tournament)
    standing = table(session, tournament)
    cross = standings.crosstable(standing, results(rows))
    ratings = _ratings(session, tournament, list(players))
    by_player = {e.player_id: e for e in field}
    table_rows = []
    for number, s in enumerate(standing.rows, start=1):
        entry = by_player[s.player]
        start = entry.rating_start
        change = round(ratings.get(s.player, start or 1500.0) - start) if start is not None else None
        cells = []
        for other in cross.players:
            marks = cross.cell(s.player, other)
            cells.append("X" if other == s.player else ("".join(_mark(m) for m in marks) or "."))
        byes = cross.byes[number - 1]
        table_rows.append({
            "number": number, "rank": s.rank, "name": players[s.player].name, "address": players[s.player].address,
            "points": _points(s.points), "games": s.games,
            "tiebreaks": [_points(s.tiebreak(t)) for t in standing.tiebreaks],
            "withdrawn": s.withdrawn, "reason": entry.withdrawn_reason,
            "rating_change": change, "cells": cells, "byes": "".join(_mark(m) for m in byes),
        })
    current = []
    games = {g.id: g for g in session.exec(select(Game).where(Game.id.in_([r.game_id for r in rows if r.game_id])))}
    for row in rows:
        if row.round != tournament.round:
            continue
        game = games.get(row.game_id) if row.game_id else None
        current.append({
            "board": row.board, "first": players[row.first_id].name,
            "second": players[row.second_id].name if row.second_id else None,
            "game": row.game_id, "result": game.result if game is not None and game.status != "active" else None,
            "on": game is not None and game.status == "active", "forfeit": row.forfeit,
            "score": f"{_points(row.first_points)}-{_points(row.second_points or 0)}"
            if row.first_points is not None else None,
        })
    total = tournament.rounds
    if tournament.format in ("roundrobin", "double") and len(field) >= 2:
        total = (len(field) - 1 + len(field) % 2) * (2 if tournament.format == "double" else 1)
    return {
        "id": tournament.id, "name": tournament.name, "format": tournament.format, "kind": tournament.kind,
        "status": tournament.status, "round": tournament.round, "rounds": total, "days": tournament.days, "clock": clock.control(tournament).describe() if tournament.clock else None,
        "adjourned": tournament.adjourned_at is not None, "players": len(field),
        "tiebreaks": [str(t) for t in standing.tiebreaks], "table": table_rows, "current": current,
        "byes": any(r["byes"] for r in table_rows),
        "me": viewer.address if viewer is not None else None,
    }


def info(tournament: Tournament, board: int | None = None) -> dict[str, Any]:
    """What a game's mails say of its tournament (`_game_facts.txt`)."""
    return {"id": tournament.id, "name": tournament.name, "round": tournament.round, "board": board, "ladder": False}


RECENT = 5  # the latest ladder results a view shows


def ladder_view(session: Session, tournament: Tournament, viewer: Player | None = None) -> dict[str, Any]:
    """A ladder's places (with each player's rating and ladder record), its challenges in
    progress, its latest results, and the reader's place and whom they may challenge."""
    field = [e for e in entries(session, tournament) if not e.withdrawn]
    ids = [e.player_id for e in field]
    ratings = {
        r.player_id: r.rating
        for r in session.exec(select(Rating).where(Rating.kind == tournament.kind, Rating.player_id.in_(ids)))
    }
    rows = boards(session, tournament)
    games = {g.id: g for g in session.exec(select(Game).where(Game.id.in_([r.game_id for r in rows if r.game_id])))}
    everyone = set(ids) | {r.first_id for r in rows} | {r.second_id for r in rows if r.second_id}
    players = {p.id: p for p in session.exec(select(Player).where(Player.id.in_(everyone)))}
    names = {pid: p.name for pid, p in players.items()}
    ladder = Ladder(tuple(ids), tournament.reach or 1)
    starts = {e.player_id: e.rating_start for e in field}
    record = {pid: [0, 0, 0] for pid in ids}  # won, drawn, lost
    for row in rows:
        if row.first_points is None or (row.forfeit and not row.first_points and not row.second_points):
            continue  # being played, or cancelled: no result
        for pid, points in ((row.first_id, row.first_points), (row.second_id, row.second_points or 0.0)):
            if pid in record:
                record[pid][0 if points == 1 else (1 if points == 0.5 else 2)] += 1
    open_rows = [r for r in rows if r.game_id and games[r.game_id].status == "active"]
    playing = {pid: r.game_id for r in open_rows for pid in (r.first_id, r.second_id)}

    place = ladder.place_of

    def challenge(row: TournamentGame) -> dict[str, Any]:
        defender = row.defender_id
        return {"game": row.game_id, "challenger": names.get(row.challenger_id, "?"),
                "challenger_place": place(row.challenger_id), "defender": names.get(defender, "?"),
                "defender_place": place(defender)}

    done = [r for r in rows if r.first_points is not None and r.game_id]
    me = viewer.id if viewer is not None and viewer.id in record else None
    mine = next((r for r in open_rows if r.challenger_id == me), None) if me is not None else None
    return {
        "id": tournament.id, "name": tournament.name, "format": "ladder", "kind": tournament.kind,
        "status": tournament.status, "round": tournament.round, "rounds": None, "days": tournament.days, "clock": clock.control(tournament).describe() if tournament.clock else None,
        "adjourned": False, "players": len(field), "reach": ladder.reach, "tiebreaks": [], "table": [],
        "current": [], "byes": False,
        "places": [{
            "place": at, "name": players[pid].name, "address": players[pid].address,
            "rating": round(ratings.get(pid, 1500.0)), "won": record[pid][0], "drawn": record[pid][1],
            "lost": record[pid][2], "playing": playing.get(pid),
            "rating_change": round(ratings.get(pid, start) - start) if (start := starts.get(pid)) is not None else None,
        } for at, pid in enumerate(ids, start=1)],
        "challenges": [challenge(r) for r in open_rows],
        "recent": [{**challenge(r), "result": games[r.game_id].result,
                    "score": f"{_points(r.first_points)}-{_points(r.second_points or 0)}",
                    "first": names.get(r.first_id, "?"), "second": names.get(r.second_id, "?")}
                   for r in reversed(done[-RECENT:])],
        "me": viewer.address if viewer is not None else None,
        "my_place": place(me) if me is not None else None,
        "targets": [{"place": place(pid), "name": players[pid].name} for pid in ladder.targets(me)]
        if me is not None else [],
        "my_challenge": mine.game_id if mine is not None else None,
    }
