"""The database: engine, transactions and migrations.

SQLite runs in WAL mode and every transaction starts with BEGIN IMMEDIATE, so two
daemons (or the admin CLI beside a daemon) serialise their writes instead of failing
half-way; `busy_timeout` makes the second one wait.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, exc
from sqlmodel import Session

from pbem.core import compiled, rows
from pbem.core.work import work_of

MIGRATIONS = Path(__file__).with_name("migrations")
_MIGRATION_LOCK = 0x7062656D  # "pbem": the advisory lock that serialises migrations on PostgreSQL
#: seconds a pooled PostgreSQL connection may sit idle and still be handed out without a ping
PING_AFTER = 1.0

def make_engine(url: str) -> Engine:
    """An engine for `url`; SQLite files get WAL, a busy timeout and immediate transactions.

    `postgresql://` URLs use psycopg 3 (the driver pbem installs)."""
    if url.startswith(("postgresql://", "postgres://")):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    if not url.startswith("sqlite"):
        return _savepoints_on_cursor(_pinged_when_idle(create_engine(url)))
    path = url.split("///", 1)[-1]
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record) -> None:  # noqa: ANN001
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:  # noqa: ANN001
        compiled.execute_text(conn, "BEGIN IMMEDIATE")  # on the cursor: every transaction sends it

    return _savepoints_on_cursor(engine)


def _savepoints_on_cursor(engine: Engine) -> Engine:
    """Send a savepoint's SAVEPOINT and RELEASE on the driver's cursor (`pbem.core.compiled`),
    not through Core's compiling and execution of a statement: each line of a mail runs in a
    savepoint, and on PostgreSQL Core's work for the two cost about what the round trips did.
    A rollback to the savepoint (a line that failed) stays with Core."""
    dialect = engine.dialect
    preparer = dialect.identifier_preparer

    def savepoint(connection: Connection, name: str) -> None:
        compiled.execute_text(connection, f"SAVEPOINT {preparer.format_savepoint(None, name)}")

    def release(connection: Connection, name: str) -> None:
        compiled.execute_text(connection, f"RELEASE SAVEPOINT {preparer.format_savepoint(None, name)}")

    dialect.do_savepoint = savepoint  # type: ignore[method-assign]
    dialect.do_release_savepoint = release  # type: ignore[method-assign]
    return engine


def _pinged_when_idle(engine: Engine) -> Engine:
    """Check a pooled connection before handing it out, as `pool_pre_ping` does, but only one
    that sat idle for PING_AFTER seconds (a server restart, an idle timeout) or that its driver
    knows is broken: a busy daemon takes a connection for every mail, and a ping each time was
    a round trip more per mail. A connection found dead is replaced (the pool tries again)."""

    @event.listens_for(engine, "connect")
    def _fresh(_dbapi_conn, record) -> None:  # noqa: ANN001
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_conn, record) -> None:  # noqa: ANN001
        if record is not None:
            record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _handed_out(dbapi_conn, record, _proxy) -> None:  # noqa: ANN001
        if getattr(dbapi_conn, "closed", False) or getattr(dbapi_conn, "broken", False):
            raise exc.DisconnectionError("the connection was closed")
        if time.monotonic() - record.info.get("idle_since", 0.0) < PING_AFTER:
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
        except Exception as error:  # noqa: BLE001 - any failure: a new connection, as pool_pre_ping does
            raise exc.DisconnectionError(f"the connection failed its ping: {error}") from error

    return engine


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration (a new database is created from nothing)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":  # daemons starting together migrate one at a time
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})")
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One unit of work: committed if the block ends normally, rolled back if it raises."""
    with rows.Session(engine, expire_on_commit=False) as session, session.begin():
        yield session


def keep(session: Session, *rows: object) -> None:
    """Hold loaded rows for the rest of the session: its identity map holds them only weakly, and
    a row dropped from it costs a SELECT the next time something asks for it by id."""
    work_of(session).kept.extend(rows)
