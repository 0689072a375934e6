"""The database: engine, transactions and migrations.

SQLite runs in WAL mode and every transaction starts with BEGIN IMMEDIATE, so two
daemons (or the admin CLI beside a daemon) serialise their writes instead of failing
half-way; `busy_timeout` makes the second one wait.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlmodel import Session

MIGRATIONS = Path(__file__).with_name("migrations")
_MIGRATION_LOCK = 0x7062656D  # "pbem": the advisory lock that serialises migrations on PostgreSQL


def make_engine(url: str) -> Engine:
    """An engine for `url`; SQLite files get WAL, a busy timeout and immediate transactions.

    `postgresql://` URLs use psycopg 3 (the driver pbem installs)."""
    if url.startswith(("postgresql://", "postgres://")):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
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
        conn.exec_driver_sql("BEGIN IMMEDIATE")

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
    with Session(engine, expire_on_commit=False) as session, session.begin():
        yield session


def keep(session: Session, *rows: object) -> None:
    """Hold loaded rows for the rest of the session: its identity map holds them only weakly, and
    a row dropped from it costs a SELECT the next time something asks for it by id."""
    session.info.setdefault("pbem.kept", []).extend(rows)
