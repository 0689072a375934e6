"""Migration 0025: the players whose language was settled before it keep it settled; the rest
are settled by their first proven mail whose words say a language."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from sqlalchemy import text

from pbem.core.db import MIGRATIONS, make_engine


def _upgrade(engine, revision: str) -> None:  # noqa: ANN001
    alembic = Config()
    alembic.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        alembic.attributes["connection"] = connection
        command.upgrade(alembic, revision)


def test_proven_players_and_those_with_a_language_keep_it_settled(tmp_path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    _upgrade(engine, "0024")
    players = [  # address, language, proven_at
        ("proven@example.org", "en", "2026-11-01 10:00:00"),
        ("russian@example.org", "ru", None),  # chose it, or held mail confirmed in it
        ("new@example.org", "en", None),  # never proved their address: not settled
    ]
    with engine.begin() as connection:
        for address, language, proven in players:
            connection.execute(text(
                "INSERT INTO player (address, name, secret, created_at, banned, timezone, version, proven_at, "
                "format, language, relay, notify, watch_mail, resumes, hard_bounces, public) VALUES "
                "(:address, 'x', 's', '2026-10-01 09:00:00', 0, 'UTC', 0, :proven, 'html', :language, 1, 'each', "
                "1, 0, 0, 0)"), {"address": address, "language": language, "proven": proven})
    _upgrade(engine, "0025")
    with engine.connect() as connection:
        settled = dict(connection.execute(text("SELECT address, language_at FROM player")).all())
    engine.dispose()
    assert settled["proven@example.org"].startswith("2026-11-01 10:00:00")
    assert settled["russian@example.org"].startswith("2026-10-01 09:00:00")
    assert settled["new@example.org"] is None
