"""The records on SQLite and PostgreSQL: schema from migrations, uniqueness, claims, races."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel, select

from pbem.core.db import transaction
from pbem.core.models import Challenge, InboundMessage, Move, Outbox
from pbem.runners import outbox
from tests.mailer import compose, reply_to

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_migrations_create_exactly_the_models(any_server) -> None:
    with any_server.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": False})
        assert compare_metadata(context, SQLModel.metadata) == []


def test_the_database_refuses_a_second_row_for_one_message_id(any_server) -> None:
    def row() -> InboundMessage:
        return InboundMessage(message_id="<same@x>", digest="0" * 64, sender="a@b.c", status="processed",
                              received_at=NOW)

    with transaction(any_server.engine) as session:
        session.add(row())
    with pytest.raises(IntegrityError), transaction(any_server.engine) as session:
        session.add(row())


def test_one_message_handled_by_two_workers_at_once_is_applied_once(any_server) -> None:
    any_server.send(compose("alice@example.org", "challenge ataxx bob@example.org colour=x"))
    any_server.confirm("alice@example.org")
    with Session(any_server.engine) as session:
        challenge = max(session.exec(select(Challenge.id)).all())
    any_server.send(reply_to("bob@example.org", any_server.last("bob@example.org"), f"accept {challenge}"))
    move = reply_to("alice@example.org", any_server.last("alice@example.org"), "f2")
    results: list[str] = []
    barrier = threading.Barrier(2)

    def worker() -> None:
        barrier.wait()
        results.append(any_server.send(move))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["duplicate", "processed"]
    with Session(any_server.engine) as session:
        assert len(session.exec(select(Move)).all()) == 1


def test_outbox_claims_never_overlap(any_server) -> None:
    for i in range(6):
        any_server.send(compose(f"p{i}@example.org", "help"))
    claimed: list[list[int]] = []
    barrier = threading.Barrier(3)

    def worker() -> None:
        barrier.wait()
        claimed.append([row_id for row_id, _, _ in outbox.claim(any_server.engine, limit=4)])

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [i for batch in claimed for i in batch]
    assert len(ids) == len(set(ids)) == 6
    assert outbox.claim(any_server.engine, limit=10) == []  # leased, not due again yet
    with Session(any_server.engine) as session:
        assert all(row.status == "pending" for row in session.exec(select(Outbox)))
