"""A line's changes to rows it read are written by one compiled UPDATE each (`rows.write_changes`),
as the ORM's flush would write them: the same row in the database, the object clean, undone by
a rollback of its savepoint; anything else is left to the ORM. On SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import bindparam, delete, event
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import col

from pbem.core import rows
from pbem.core.db import transaction
from pbem.core.models import Player

NOW = datetime(2026, 12, 6, 12, 30, 15, 123456, tzinfo=UTC)
BY_ID = rows.selecting(Player).where(col(Player.id) == bindparam("id"))


def _player(engine, address: str = "alice@example.org") -> int:  # noqa: ANN001
    with transaction(engine) as session:
        player = Player(address=address, name="alice", secret="s" * 32, created_at=NOW)
        session.add(player)
        session.flush()
        return player.id


class _Sent:
    """The statements sent while it is open."""

    def __init__(self, engine) -> None:  # noqa: ANN001
        self.engine, self.sql = engine, []

    def _seen(self, _conn, _cursor, sql: str, *_rest: object) -> None:  # noqa: ANN001
        self.sql.append(sql)

    def __enter__(self) -> _Sent:
        event.listen(self.engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *_exc: object) -> None:
        event.remove(self.engine, "before_cursor_execute", self._seen)


@contextmanager
def _holding(server) -> Iterator[tuple[Any, Any, Player]]:  # noqa: ANN001
    """(engine, session, player): a new player's row, read in an open transaction."""
    engine = server.engine
    pid = _player(engine)
    with transaction(engine) as session:
        yield engine, session, session.get(Player, pid)


def _written(engine, session) -> list[str]:  # noqa: ANN001
    """The statements `write_changes` sends for what `session` holds."""
    with _Sent(engine) as sent:
        rows.write_changes(session)
    return sent.sql


def test_a_change_is_one_update_and_the_row_is_clean(any_server) -> None:
    engine = any_server.engine
    pid = _player(engine)
    with transaction(engine) as session:
        player = session.get(Player, pid)
        version = player.version + 1
        player.name, player.version, player.proven_at, player.language = "Alice", version, NOW, "ru"
        with _Sent(engine) as sent:
            rows.write_changes(session)
            session.flush()  # nothing left for the ORM
        assert [sql.split()[0] for sql in sent.sql] == ["UPDATE"]
        assert not session.dirty
        assert rows.read(session, BY_ID, {"id": pid}).one()[:3] == (pid, "alice@example.org", "Alice")
    with transaction(engine) as session:
        again = session.get(Player, pid)
        assert (again.name, again.version, again.language) == ("Alice", version, "ru")
        assert again.proven_at.replace(tzinfo=UTC) == NOW


def test_a_value_set_to_what_it_was_is_not_written(any_server) -> None:
    with _holding(any_server) as (engine, session, player):
        player.name = "alice"
        assert _written(engine, session) == [] and not session.dirty


def test_a_rolled_back_savepoint_undoes_the_write_and_the_object_reads_it_again(any_server) -> None:
    with _holding(any_server) as (engine, session, player):
        savepoint = session.begin_nested()
        player.name = "mallory"
        rows.write_changes(session)
        savepoint.rollback()
        assert player.name == "alice"  # read again from the row, which the rollback restored
    with transaction(engine) as session:
        assert session.get(Player, player.id).name == "alice"


def test_a_session_with_a_new_row_is_left_to_the_orm(any_server) -> None:
    with _holding(any_server) as (engine, session, player):
        player.name = "Alice"
        session.add(Player(address="bob@example.org", name="bob", secret="t" * 32, created_at=NOW))
        assert _written(engine, session) == [] and player in session.dirty
    with transaction(engine) as session:
        assert session.get(Player, player.id).name == "Alice"  # the ORM's flush wrote it at the commit


def test_a_row_gone_meanwhile_is_stale_data(any_server) -> None:
    with _holding(any_server) as (_engine, session, player):
        gone = delete(rows.table(Player)).where(rows.table(Player).c.id == player.id)
        session.connection().execute(gone)  # not the ORM's delete, which would drop the object too
        player.name = "Alice"
        with pytest.raises(StaleDataError):
            rows.write_changes(session)
        session.rollback()
