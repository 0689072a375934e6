"""A tournament's rows read back: its entries, its boards, their results, and the view a mail shows.

Read-only, so the domain (`pbem.tournaments`), the admin's `show` and the `tournament`
command see one table: standings with the format's tie-breaks named, the crosstable as
cells of marks (digits and signs, no words, so every language reads it), the current
round's boards, and each player's rating change since the start.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session, select

from pbem import standings
from pbem.models import Entry, Game, Player, Rating, Tournament, TournamentGame
from pbem.pairing import Pairing
from pbem.standings import Result

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


def view(session: Session, tournament: Tournament, viewer: Player | None = None) -> dict[str, Any]:
    """Everything a mail or the admin's `show` says of a tournament."""
    field = entries(session, tournament)
    players = {p.id: p for p in session.exec(select(Player).where(Player.id.in_([e.player_id for e in field])))}
    rows = boards(session, tournament)
    standing = table(session, tournament)
    cross = standings.crosstable(standing, results(rows))
    ratings = {
        r.player_id: r.rating
        for r in session.exec(select(Rating).where(Rating.kind == tournament.kind, Rating.player_id.in_(list(players))))
    }
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
        "status": tournament.status, "round": tournament.round, "rounds": total, "days": tournament.days,
        "adjourned": tournament.adjourned_at is not None, "players": len(field),
        "tiebreaks": [str(t) for t in standing.tiebreaks], "table": table_rows, "current": current,
        "byes": any(r["byes"] for r in table_rows),
        "me": viewer.address if viewer is not None else None,
    }
