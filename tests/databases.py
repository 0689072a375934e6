"""Throwaway databases for the tests: a SQLite file, or a fresh PostgreSQL database.

PostgreSQL is the one the machine provides on 127.0.0.1:5432 (trust auth, database
`test`), or wherever PBEM_TEST_POSTGRES points; each test gets a database of its own,
dropped afterwards. When no server answers, the PostgreSQL tests are skipped on a
developer's machine and fail, saying why, in CI (the CI variable set).
"""

from __future__ import annotations

import functools
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
