"""A move mail's reads of the outbox are seeks, whatever the player's history: the query plan
of each names its index and walks no table or other index (migration 0023)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import event

from pbem.core.db import make_engine
from pbem.letters.post import _threads
from pbem.trust.proof import _OURS_NAMED
from tests.databases import migrated


def _plan(tmp_path: Path, statement, params: dict) -> list[str]:  # noqa: ANN001
    """The steps of SQLite's plan for `statement` as the service sends it (its SQL and
    parameters caught on the way to the driver)."""
    engine = migrated(make_engine(f"sqlite:///{tmp_path / 'plan.sqlite3'}"))
    sent: list[tuple[str, tuple]] = []
    event.listen(engine, "before_cursor_execute", lambda _c, _cur, sql, values, *_: sent.append((sql, values)))
    try:
        with engine.connect() as connection:
            connection.execute(statement, params).all()
            sql, values = sent[-1]
            return [row[-1] for row in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, values)]
    finally:
        engine.dispose()


def test_a_threads_ends_are_found_by_the_game_and_player_index(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _threads(2), {"p0": 1, "g0": 7, "p1": 2, "g1": 7})
    ends = [step for step in plan if "ix_outbox_game_player (game_id=? AND player_id=?)" in step]
    assert len(ends) == 4, plan  # the first and the newest mail of each pair
    assert not [step for step in plan if step.startswith("SCAN")], plan


def test_the_mail_of_a_token_is_found_by_the_token_index(tmp_path: Path) -> None:
    params = {"ids": ["<a@x>", "<b@x>"], "mac": "0" * 32, "player": 3, "at": datetime(2026, 1, 1, tzinfo=UTC)}
    plan = _plan(tmp_path, _OURS_NAMED, params)
    assert any("ix_outbox_token_player (token=? AND player_id=?)" in step for step in plan), plan
    # what the same read asks of the games' watchers and vacations (pbem.core.gamefacts) is a seek too
    assert any("ix_watcher_game_id (game_id=?)" in step for step in plan), plan
    assert any("ix_vacation_player_id (player_id=?)" in step for step in plan), plan
    assert not [step for step in plan if step.startswith("SCAN")], plan
