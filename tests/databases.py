"""Throwaway databases for the tests: a SQLite file, or a fresh PostgreSQL database.

PostgreSQL is the one the machine provides on 127.0.0.1:5432 (trust auth, database
`test`), or wherever PBEM_TEST_POSTGRES points; each test gets a database of its own,
dropped afterwards. When no server answers, the PostgreSQL tests are skipped on a
developer's machine and fail, saying why, in CI (the CI variable set).
"""

from __future__ import annotations

import atexit
import functools
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine

from pbem.core.db import make_engine, migrate
from tests.needs import missing

ADMIN_URL = os.environ.get("PBEM_TEST_POSTGRES", "postgresql://127.0.0.1:5432/test")


@functools.cache  # asked once per run: a missing server costs one connection attempt, not one per test
def postgres_problem() -> str | None:
    """Why the PostgreSQL tests cannot run here, or None when the server answers."""
    try:
        import psycopg

        with psycopg.connect(ADMIN_URL, connect_timeout=3):
            return None
    except Exception as exc:  # noqa: BLE001 - any failure means: no server to test against
        return f"no PostgreSQL at {ADMIN_URL}: {exc}"


@contextmanager
def throwaway(kind: str, tmp_path: Path) -> Iterator[str]:
    """A database URL of `kind` ("sqlite" or "postgresql") that exists only inside the block."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
        return
    problem = postgres_problem()
    if problem:
        missing(
            problem,
            f"the PostgreSQL tests need a server in CI: {problem}; start one on 127.0.0.1:5432 with a "
            "database `test` that trusts local connections, or point PBEM_TEST_POSTGRES at one",
        )
    import psycopg

    name = f"pbem_test_{secrets.token_hex(6)}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@functools.cache  # once per test process
def _schema() -> Path:
    """A SQLite file migrated to the newest schema, removed when the process ends."""
    folder = Path(tempfile.mkdtemp(prefix="pbem-schema-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "schema.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    engine.dispose()  # the last connection closed: the WAL is checkpointed into the file
    return path


def migrated(engine: Engine) -> Engine:
    """`pbem.core.db.migrate` for a test's new database, without running the migrations each time: a
    SQLite file not yet created is a copy of one migrated once per process (the migrations
    themselves run in tests/cli/admin/test_admin_schema.py, tests/core/test_store.py and every
    daemon a test starts). Anything else migrates."""
    path = engine.url.database
    if engine.dialect.name == "sqlite" and path and path != ":memory:" and not Path(path).exists():
        shutil.copyfile(_schema(), path)
    else:
        migrate(engine)
    return engine
