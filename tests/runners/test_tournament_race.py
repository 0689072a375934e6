"""Several daemons advancing one tournament at once pair its round once (PostgreSQL row locks)."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.core.db import transaction
from pbem.core.models import Outbox, TournamentGame
from pbem.runners import tournaments as tournament_rounds
from tests import races
from tests.tournaments.test_tournaments import PLAYERS, _address, _games, _start


def test_two_daemons_advancing_one_swiss_round_at_once_pair_it_once(pg_server, monkeypatch) -> None:
    server = pg_server
    tid = _start(server, "swiss", rounds=3)
    for game in _games(server, tid, 1):
        server.say(_address(server, game.player1_id), f"resign {game.id}")
    with Session(server.engine) as session:
        mails_before = len(session.exec(select(Outbox.id)).all())
    settings, templates = server.service.settings, server.service.templates
    done = races.at_once(monkeypatch, tournament_rounds, "due", settings.db_url, server.engine,
                         lambda engine: tournament_rounds.advance_due(engine, settings, templates))
    assert sorted(done) == [0, 1]
    assert len(_games(server, tid, 2)) == 2
    with Session(server.engine) as session:
        boards = session.exec(select(TournamentGame).where(TournamentGame.tournament_id == tid)).all()
        assert sorted((b.round, b.board) for b in boards) == [(1, 1), (1, 2), (2, 1), (2, 2)]
        # one mail per player for round 2, not two
        assert len(session.exec(select(Outbox.id)).all()) == mails_before + len(PLAYERS)


def test_the_database_refuses_a_second_pairing_of_a_board(pg_server) -> None:
    server = pg_server
    tid = _start(server)
    with pytest.raises(IntegrityError), transaction(server.engine) as session:
        row = session.exec(select(TournamentGame).where(TournamentGame.tournament_id == tid)).first()
        session.add(TournamentGame(tournament_id=tid, round=row.round, board=row.board, first_id=row.first_id))
