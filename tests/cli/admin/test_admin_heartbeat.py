"""Issue 12: `pbem admin status` reads the daemons' heartbeats: last mailbox contact, clock lag."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from click.testing import CliRunner
from freezegun import freeze_time
from sqlmodel import Session, select

from pbem.cli.admin.ops import clock_lag
from pbem.cli.main import main
from pbem.core import heartbeat
from pbem.core.db import make_engine, migrate
from pbem.core.models import Game, Heartbeat
from tests.cli.admin.conftest import NOW, write_config
from tests.databases import throwaway


def _status(config: str | None = None) -> tuple[int, dict]:
    prefix = ["-c", config] if config else []
    result = CliRunner().invoke(main, [*prefix, "admin", "status", "--json"])
    return result.exit_code, json.loads(result.output)


def test_no_daemon_yet_reports_never_and_stays_ok(db) -> None:
    code, report = _status()
    assert code == 0 and report["last_imap_contact"] is None and report["clock_lag_s"] is None
    text = CliRunner().invoke(main, ["admin", "status"]).output
    assert "last mailbox contact: never" in text and "clock lag: no round yet" in text


@freeze_time(NOW)
def test_fresh_heartbeats_are_ok_and_stale_ones_degrade(db) -> None:
    heartbeat.write(db.engine, heartbeat.MAILBOX, "host:1", NOW - timedelta(seconds=20))
    heartbeat.write(db.engine, heartbeat.CLOCK, "host:1", NOW - timedelta(seconds=90))  # interval 60: 30 s late
    code, report = _status()
    assert code == 0, report["problems"]
    assert report["last_imap_contact_age_s"] == 20.0 and report["clock_lag_s"] == 30.0
    assert "clock lag: 30 s" in CliRunner().invoke(main, ["admin", "status"]).output

    heartbeat.write(db.engine, heartbeat.MAILBOX, "host:1", NOW - timedelta(minutes=20))  # the same row, older
    code, report = _status()
    assert code == 1 and report["status"] == "degraded"
    assert report["problems"] == ["no daemon has reached the mailbox for 20 minutes (is pbem serve running?)"]

    heartbeat.write(db.engine, heartbeat.MAILBOX, "host:2", NOW - timedelta(seconds=5))  # a second daemon is alive
    heartbeat.write(db.engine, heartbeat.CLOCK, "host:1", NOW - timedelta(minutes=31))
    code, report = _status()
    assert code == 1 and report["last_imap_contact_age_s"] == 5.0 and report["clock_lag_s"] == 30 * 60.0
    assert report["problems"] == ["the clock is 30 minutes late (reminders and forfeits wait)"]


@freeze_time(NOW)
def test_the_threshold_is_a_setting(db, tmp_path) -> None:
    heartbeat.write(db.engine, heartbeat.CLOCK, "host:1", NOW - timedelta(minutes=5))
    config = write_config(tmp_path / "pbem.toml", {"home": str(tmp_path), "stale_after": 120.0})
    code, report = _status(config)
    assert code == 1 and "the clock is 4 minutes late" in report["problems"][0]
    assert _status()[0] == 0  # the default: 10 minutes


def test_clock_lag_counts_from_when_the_next_round_was_due() -> None:
    assert clock_lag(None, NOW, 60.0) is None
    assert clock_lag(NOW - timedelta(seconds=30), NOW, 60.0) == 0.0  # not due yet
    assert clock_lag(NOW - timedelta(seconds=100), NOW, 60.0) == 40.0
    # a heartbeat may be heartbeat.EVERY old by design: a short interval is not "late" before that
    assert clock_lag(NOW - timedelta(seconds=4), NOW, 0.5) == 0.0


def test_a_pulse_writes_one_row_per_round_at_most_every_few_seconds(db) -> None:
    pulse = heartbeat.Pulse(db.engine, daemon="host:7")
    assert pulse.beat(heartbeat.MAILBOX) and pulse.beat(heartbeat.CLOCK)
    with Session(db.engine) as session:
        first = {row.name: row.at for row in session.exec(select(Heartbeat))}
    assert not pulse.beat(heartbeat.MAILBOX)  # within EVERY seconds: nothing written
    quick = heartbeat.Pulse(db.engine, every=0.0, daemon="host:7")
    assert quick.beat(heartbeat.MAILBOX) and quick.beat(heartbeat.MAILBOX)
    with Session(db.engine) as session:
        rows = session.exec(select(Heartbeat)).all()
    assert sorted(row.name for row in rows) == ["clock", "mailbox"]  # upserted, not appended
    mailbox = next(row for row in rows if row.name == "mailbox")
    assert mailbox.at >= first["mailbox"]


@freeze_time(NOW)
def test_prune_forgets_the_heartbeats_of_long_gone_daemons(db) -> None:
    heartbeat.write(db.engine, heartbeat.MAILBOX, "old:1", NOW - timedelta(days=200))
    heartbeat.write(db.engine, heartbeat.MAILBOX, "new:2", NOW - timedelta(seconds=3))
    assert CliRunner().invoke(main, ["admin", "prune"]).exit_code == 0
    with Session(db.engine) as session:
        assert [row.daemon for row in session.exec(select(Heartbeat))] == ["new:2"]


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_heartbeat_is_one_upserted_row_per_daemon_on_either_database(kind: str, tmp_path) -> None:
    with throwaway(kind, tmp_path) as url:
        engine = make_engine(url)
        try:
            migrate(engine)
            heartbeat.write(engine, heartbeat.CLOCK, "host:1", NOW - timedelta(seconds=30))
            heartbeat.write(engine, heartbeat.CLOCK, "host:1", NOW)
            heartbeat.write(engine, heartbeat.CLOCK, "host:2", NOW - timedelta(seconds=10))
            with Session(engine) as session:
                assert len(session.exec(select(Heartbeat)).all()) == 2
                assert heartbeat.latest(session) == {heartbeat.MAILBOX: None, heartbeat.CLOCK: NOW}
        finally:
            engine.dispose()


@freeze_time(NOW)
def test_a_clock_that_runs_but_falls_behind_shows_its_backlog(db) -> None:
    heartbeat.write(db.engine, heartbeat.CLOCK, "host:1", NOW - timedelta(seconds=10))  # the round runs
    game_id = db.game("ataxx")  # G.start marks the game due at once
    code, report = _status()
    assert code == 0 and report["clock_overdue_s"] == 0.0
    with Session(db.engine) as session:
        game = session.get(Game, game_id)
        game.clock_due_at = NOW - timedelta(minutes=40)  # a reminder that waits for a round to reach it
        session.add(game)
        session.commit()
    code, report = _status()
    assert code == 1 and report["clock_overdue_s"] == 40 * 60.0 - 60  # beyond one round (interval 60 s)
    assert report["problems"] == ["a reminder or deadline has waited 39 minutes for the clock"]
    assert "the earliest due event waits 2340 s" in CliRunner().invoke(main, ["admin", "status"]).output
