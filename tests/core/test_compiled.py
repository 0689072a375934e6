"""Statements run on the driver's cursor (`pbem.core.compiled`) answer what Core answers:
the same rows with the same Python values, the same rows written, the same errors, and the
engine's statement events, on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import bindparam, event, exc, func, insert
from sqlmodel import col, select

from pbem.core import compiled, rows
from pbem.core.db import transaction
from pbem.core.models import InboundMessage, Outbox, Player

NOW = datetime(2026, 12, 6, 12, 30, 15, 123456, tzinfo=UTC)


def _player(session, address: str, **more) -> Player:  # noqa: ANN001, ANN003
    player = Player(address=address, name=address.split("@")[0], secret="s" * 32, created_at=NOW, **more)
    session.add(player)
    session.flush()
    return player


def _outbox(session, player: Player, n: int, **more) -> None:  # noqa: ANN001, ANN003
    session.add(Outbox(message_id=f"<{n}@x>", recipient=player.address, template="moved", player_id=player.id,
                       message=b"bytes \x00\xff", next_attempt_at=NOW, created_at=NOW, **more))


BY_ADDRESS = rows.selecting(Player).where(col(Player.address) == bindparam("address"))
OUTBOX = (
    select(Outbox.id, Outbox.message, Outbox.shown, Outbox.unproven, Outbox.sent_at, Outbox.created_at)
    .where(col(Outbox.player_id) == bindparam("player"))
    .order_by(col(Outbox.id))
    .limit(10)  # a literal bound parameter of its own
)


def test_rows_read_on_the_cursor_are_cores_rows(any_server) -> None:
    with transaction(any_server.engine) as session:
        ann = _player(session, "ann@example.org", proven_at=NOW, bot_level=2)
        _outbox(session, ann, 1, shown={"games": {"7": 3}, "held": [1, 2]}, unproven=True)
        _outbox(session, ann, 2)
    with transaction(any_server.engine) as session:
        for statement, params in ((BY_ADDRESS, {"address": ann.address}), (OUTBOX, {"player": ann.id})):
            ours = compiled.run(session, statement, params)
            cores = [tuple(row) for row in session.connection().execute(statement, params)]
            assert ours == cores and ours
        player = rows.attach(session, Player, compiled.run(session, BY_ADDRESS, {"address": ann.address}).one())
        assert (player.proven_at, player.bot_level, player.banned) == (NOW, 2, False)
        first = compiled.run(session, OUTBOX, {"player": ann.id})[0]
        assert first[1:] == (b"bytes \x00\xff", {"games": {"7": 3}, "held": [1, 2]}, True, None, NOW)


def test_a_row_inserted_on_the_cursor_reads_back_as_given(any_server) -> None:
    record = rows.fresh(InboundMessage, message_id="<in@x>", digest="d" * 64, sender="ann@example.org",
                        subject="Re: ataxx", status="processed", received_at=NOW, proof="token")
    with transaction(any_server.engine) as session:
        rows.insert_row(session, record)
    with transaction(any_server.engine) as session:
        found = session.exec(select(InboundMessage).where(col(InboundMessage.message_id) == "<in@x>")).one()
        assert (found.subject, found.received_at, found.proof, found.note) == ("Re: ataxx", NOW, "token", "")


def test_a_drivers_error_is_sqlalchemys_and_the_savepoint_survives_it(any_server) -> None:
    record = rows.fresh(InboundMessage, message_id="<twice@x>", digest="d" * 64, sender="a@b.c",
                        status="processed", received_at=NOW)
    with transaction(any_server.engine) as session:
        rows.insert_row(session, record)
        with pytest.raises(exc.IntegrityError), session.begin_nested():
            rows.insert_row(session, record)  # the same Message-ID: unique
        count = select(func.count()).select_from(rows.table(InboundMessage))
        assert rows.read(session, count).scalar() == 1


def test_the_engines_statement_events_see_each_run(any_server) -> None:
    seen: list[tuple[str, object]] = []
    done: list[str] = []

    def before(_conn, _cursor, statement, parameters, _context, _many) -> None:  # noqa: ANN001
        seen.append((statement, parameters))

    def after(_conn, _cursor, statement, *_rest) -> None:  # noqa: ANN001, ANN002
        done.append(statement)

    event.listen(any_server.engine, "before_cursor_execute", before)
    event.listen(any_server.engine, "after_cursor_execute", after)
    try:
        with transaction(any_server.engine) as session:
            compiled.run(session, BY_ADDRESS, {"address": "nobody@example.org"})
    finally:
        event.remove(any_server.engine, "before_cursor_execute", before)
        event.remove(any_server.engine, "after_cursor_execute", after)
    ours = [(sql, params) for sql, params in seen if "FROM player" in sql]
    assert len(ours) == 1 and "nobody@example.org" in str(ours[0][1])
    assert ours[0][0] in done


def test_a_missing_parameter_is_refused_and_an_expanding_one_is_expanded_at_each_run(any_server) -> None:
    with transaction(any_server.engine) as session:
        ann, bob = _player(session, "ann@example.org"), _player(session, "bob@example.org")
        with pytest.raises(exc.InvalidRequestError, match="address"):
            compiled.run(session, BY_ADDRESS, {})
        several = rows.selecting(Player).where(col(Player.id).in_(bindparam("ids", expanding=True)))
        for ids in ([ann.id], [ann.id, bob.id], [bob.id]):  # each count of values: its own SQL
            assert sorted(row[1] for row in compiled.run(session, several, {"ids": ids})) == sorted(
                p.address for p in (ann, bob) if p.id in ids)


def test_an_insert_with_a_column_default_to_fill_goes_through_core(any_server) -> None:
    values = {"message_id": "<d@x>", "digest": "d" * 64, "sender": "a@b.c", "status": "processed", "received_at": NOW}
    statement = insert(rows.table(InboundMessage)).values(**values)  # subject and note: their defaults
    with transaction(any_server.engine) as session:
        assert compiled._plan(statement, session.connection().dialect).by_core
        compiled.run(session, statement)
    with transaction(any_server.engine) as session:
        found = session.exec(select(InboundMessage).where(col(InboundMessage.message_id) == "<d@x>")).one()
        assert (found.subject, found.note) == ("", "")


def test_rows_inserted_by_one_statement_read_back_as_given(any_server, monkeypatch) -> None:
    monkeypatch.setattr(compiled, "MANY_ROWS", 2)
    with transaction(any_server.engine) as session:
        ann = _player(session, "ann@example.org")
        made = [
            {"message_id": f"<many{n}@x>", "recipient": ann.address, "template": "moved", "player_id": ann.id,
             "message": bytes([n]) * 3, "next_attempt_at": NOW, "created_at": NOW,
             "shown": {"games": {"1": n}} if n else None, "unproven": bool(n % 2)}
            for n in range(7)
        ]
        compiled.insert_rows(session, rows.table(Outbox), made[:1])
        compiled.insert_rows(session, rows.table(Outbox), made[1:])  # three statements of 2, 2 and 2 rows
    with transaction(any_server.engine) as session:
        found = session.exec(select(Outbox).where(col(Outbox.player_id) == ann.id).order_by(col(Outbox.id))).all()
        assert [(o.message_id, o.message, o.shown, o.unproven, o.created_at, o.status) for o in found] == [
            (m["message_id"], m["message"], m["shown"], m["unproven"], NOW, "pending") for m in made]


def test_savepoints_are_sent_on_the_cursor_and_still_undo_their_work(any_server) -> None:
    seen: list[str] = []
    listener = lambda _c, _cur, statement, *_rest: seen.append(statement)  # noqa: E731
    event.listen(any_server.engine, "before_cursor_execute", listener)
    count = select(func.count()).select_from(rows.table(Player))
    try:
        with transaction(any_server.engine) as session:
            with session.begin_nested():
                _player(session, "kept@example.org")
                inner = session.begin_nested()
                _player(session, "undone@example.org")
                inner.rollback()
            assert rows.read(session, count).scalar() == 1
    finally:
        event.remove(any_server.engine, "before_cursor_execute", listener)
    said = [statement.split()[0] for statement in seen if "SAVEPOINT" in statement]
    assert said == ["SAVEPOINT", "SAVEPOINT", "ROLLBACK", "RELEASE"], seen
    assert any_server.engine.dialect.do_savepoint.__module__ == "pbem.core.db"


def test_statements_built_at_each_call_do_not_grow_the_plans_without_end(any_server, monkeypatch) -> None:
    monkeypatch.setattr(compiled, "_PLANS_MAX", 8)
    with transaction(any_server.engine) as session:
        for n in range(30):  # a new statement object each time
            statement = rows.selecting(Player).where(col(Player.id) == bindparam("id"))
            assert compiled.run(session, statement, {"id": n}) == []
            assert len(compiled._PLANS) <= 8
