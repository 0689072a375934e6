"""The database helpers of the move path: rows made without the model's constructor, and a
pooled PostgreSQL connection checked only when it sat idle."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import event, func, insert, inspect, update
from sqlmodel import Session, select

from pbem.core import db, rows
from pbem.core.db import transaction
from pbem.core.models import InboundMessage, Move, Outbox
from pbem.core.rows import attach, fresh

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
INBOUND = {"message_id": "<m@x>", "digest": "0" * 64, "sender": "a@b.c", "status": "processed", "received_at": NOW}


def test_a_fresh_row_is_the_constructors_row() -> None:
    made, built = fresh(InboundMessage, **INBOUND), InboundMessage(**INBOUND)
    assert made.model_dump() == built.model_dump()
    assert (made.subject, made.note, made.proof, made.acts, made.id) == ("", "", None, None, None)
    made.status = "silenced"  # set through the ORM's instrumentation afterwards, as on any row
    assert made.status == "silenced"


def test_a_fresh_row_needs_its_required_fields_and_no_others() -> None:
    with pytest.raises(TypeError, match="missing"):
        fresh(Move, game_id=1)
    with pytest.raises(TypeError, match="unknown"):
        fresh(InboundMessage, **INBOUND, colour="blue")


def test_a_fresh_row_is_inserted_by_the_orm(any_server) -> None:
    with transaction(any_server.engine) as session:
        session.add(fresh(InboundMessage, **INBOUND))
    with transaction(any_server.engine) as session:
        row = session.exec(select(InboundMessage).where(InboundMessage.message_id == "<m@x>")).one()
        assert (row.sender, row.status, row.note, row.id is not None) == ("a@b.c", "processed", "", True)
        outbox = fresh(Outbox, message_id="<o@x>", recipient="a@b.c", template="moved", message=b"x",
                       next_attempt_at=NOW, created_at=NOW)
        assert (outbox.status, outbox.attempts, outbox.shown) == ("pending", 0, None)


def test_a_pooled_postgresql_connection_is_pinged_only_after_sitting_idle(pg_server, monkeypatch) -> None:
    engine = db.make_engine(pg_server.engine.url.render_as_string(hide_password=False))
    pings = []
    original = engine.dialect.do_ping
    monkeypatch.setattr(engine.dialect, "do_ping", lambda conn: pings.append(1) or original(conn))
    try:
        for _ in range(3):  # taken again at once: no ping, no round trip more
            with engine.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
        assert pings == []
        monkeypatch.setattr(db, "PING_AFTER", 0.0)  # as if it had sat idle
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
        assert pings == [1]
        statements = []
        event.listen(engine, "before_cursor_execute", lambda *a, **k: statements.append(a[2]))
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 2")
        assert statements == ["SELECT 2"]  # the ping is the driver's, never a statement of ours
    finally:
        engine.dispose()


def test_a_row_read_by_core_is_the_orms_row(any_server) -> None:
    """`get` of a row the session does not hold reads it by a Core statement: the object is
    persistent, equal to the ORM's load, a change to it is written, and one the session holds
    wins over the database (a read never overwrites the transaction's own state)."""
    with transaction(any_server.engine) as session:
        session.add(fresh(InboundMessage, **INBOUND))
    with Session(any_server.engine) as plain:
        loaded = plain.exec(select(InboundMessage)).one()
        reference = loaded.model_dump()
    statements: list[str] = []
    event.listen(any_server.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    with transaction(any_server.engine) as session:
        row = session.get(InboundMessage, reference["id"])
        assert row.model_dump() == reference
        assert inspect(row).persistent and not session.dirty
        assert session.get(InboundMessage, reference["id"]) is row  # held: no second query
        assert session.get(InboundMessage, reference["id"] + 1) is None
        row.note = "seen"
    assert sum("inbound" in s.lower() and s.lstrip().upper().startswith("SELECT") for s in statements) == 2
    with transaction(any_server.engine) as session:
        row = session.get(InboundMessage, reference["id"])
        assert row.note == "seen"
        session.connection().execute(update(InboundMessage).values(note="changed behind"))
        assert session.get(InboundMessage, reference["id"]).note == "seen"  # the held object wins
        again = attach(session, InboundMessage, session.connection().execute(select(InboundMessage.__table__)).one())
        assert again is row and row.note == "seen"


def test_a_locked_row_is_read_afresh(any_server) -> None:
    """`lock` reads a row by key with `FOR UPDATE` (PostgreSQL) and the session's object takes
    the row's values, as the ORM's `populate_existing` gives them."""
    with transaction(any_server.engine) as session:
        session.add(fresh(InboundMessage, **INBOUND))
    statements: list[str] = []
    event.listen(any_server.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    with transaction(any_server.engine) as session:
        row = session.exec(select(InboundMessage)).one()
        session.connection().execute(update(InboundMessage).values(note="changed behind"))
        assert row.note == ""
        assert rows.lock(session, InboundMessage, row.id) is row
        assert row.note == "changed behind" and not session.dirty
        assert rows.lock(session, InboundMessage, row.id + 1) is None
    locks = [s for s in statements if "FOR UPDATE" in s]
    assert len(locks) == (2 if any_server.engine.dialect.name == "postgresql" else 0)
    with transaction(any_server.engine) as session:  # not held: a new persistent object
        row = rows.lock(session, InboundMessage, 1)
        assert row.note == "changed behind" and inspect(row).persistent


def test_a_core_read_flushes_the_changes_of_what_it_reads(any_server) -> None:
    """`read` with the models it reads flushes their pending changes first (the read sees them,
    as after the ORM's autoflush) and leaves the others pending, to be written once later."""
    with transaction(any_server.engine) as session:
        session.add(fresh(InboundMessage, **INBOUND))
        session.add(fresh(Outbox, message_id="<o@x>", recipient="a@b.c", template="moved", message=b"x",
                          next_attempt_at=NOW, created_at=NOW))
    notes = select(InboundMessage.__table__.c.note)
    with transaction(any_server.engine) as session:
        inbound, outbox = session.exec(select(InboundMessage)).one(), session.exec(select(Outbox)).one()
        inbound.note = "changed"
        assert rows.read(session, notes, reads=(Outbox,)).scalar() == ""  # another model's change waits
        assert inbound in session.dirty
        assert rows.read(session, notes, reads=(InboundMessage,)).scalar() == "changed"
        assert not session.dirty
        outbox.recipient = "c@d.e"
        assert rows.read(session, select(Outbox.__table__.c.recipient)).scalar() == "c@d.e"  # none named: all


def test_a_new_row_not_yet_written_is_found_by_its_key(any_server) -> None:
    """A row added with its key and not yet flushed (the bots' switch is one: its key is its
    name) is what `get` finds, as the ORM's autoflush makes it: not the database's nothing."""
    with transaction(any_server.engine) as session:
        added = fresh(InboundMessage, id=77, **INBOUND)
        session.add(added)
        assert session.get(InboundMessage, 77) is added


def test_a_core_statement_in_a_savepoint_is_undone_with_it(any_server) -> None:
    """A Core statement of `pbem.core.rows` inside a savepoint belongs to it (the session sends
    SAVEPOINT when the savepoint first asks for its connection): undone when the savepoint is
    rolled back, kept when it is released."""
    table = InboundMessage.__table__
    count = select(func.count()).select_from(table)
    with transaction(any_server.engine) as session:
        assert rows.read(session, count).scalar() == 0
        savepoint = session.begin_nested()
        rows.read(session, insert(table).values(**INBOUND))
        savepoint.rollback()
        assert rows.read(session, count).scalar() == 0
        with session.begin_nested():
            rows.read(session, insert(table).values(**INBOUND))
        assert rows.read(session, count).scalar() == 1
