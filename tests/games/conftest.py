"""A service over a real SQLite file (or PostgreSQL), with the clock's settings the tests choose."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from pbem.core.config import Settings
from pbem.core.db import make_engine
from pbem.runners.inbound import Service
from tests.databases import migrated, throwaway
from tests.mailer import GAME
from tests.server import Server


@pytest.fixture
def clocked(tmp_path) -> Iterator[Server]:
    settings = replace(Settings(), address=GAME, home=tmp_path, reminders=(48.0, 24.0), vacation_days_per_year=30)
    engine = make_engine(settings.db_url)
    migrated(engine)
    yield Server(Service(settings, engine))
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def clocked_anywhere(request, tmp_path) -> Iterator[Server]:
    """The same over SQLite, then over PostgreSQL: for rounds that run side by side."""
    with throwaway(request.param, tmp_path) as url:
        settings = replace(Settings(), address=GAME, home=tmp_path, database_url=url, reminders=(48.0, 24.0))
        engine = make_engine(settings.db_url)
        migrated(engine)
        yield Server(Service(settings, engine))
        engine.dispose()
