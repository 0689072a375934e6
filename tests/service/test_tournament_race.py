"""Several daemons advancing one tournament at once pair its round once (PostgreSQL row locks)."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem import tournament_rounds
from pbem.db import make_engine, transaction
from pbem.models import Outbox, TournamentGame
from tests.databases import throwaway
from tests.service.conftest import _server
from tests.service.test_tournaments import PLAYERS, _address, _games, _start


@pytest.fixture
def pg_server(tmp_path):
    with throwaway("postgresql", tmp_path) as url:
        yield from _server(url, tmp_path)


def test_two_daemons_advancing_one_swiss_round_at_once_pair_it_once(pg_server, monkeypatch) -> None:
    server = pg_server
    tid = _start(server, "swiss", rounds=3)
    for game in _games(server, tid, 1):
        server.say(_address(server, game.player1_id), f"resign {game.id}")
    with Session(server.engine) as session:
        mails_before = len(session.exec(select(Outbox.id)).all())
    other = make_engine(server.service.settings.db_url)  # a second daemon: its own engine and pool
    barrier = threading.Barrier(2)
    real_due = tournament_rounds.due

    def due_together(engine):  # both daemons see the round as due before either pairs it
        found = real_due(engine)
        barrier.wait(timeout=10)
        return found

    monkeypatch.setattr(tournament_rounds, "due", due_together)
    done: list[int] = []

    def daemon(engine) -> None:
        done.append(tournament_rounds.advance_due(engine, server.service.settings, server.service.templates))

    threads = [threading.Thread(target=daemon, args=(e,)) for e in (server.engine, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    other.dispose()
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
