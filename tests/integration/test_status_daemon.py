"""Issue 12 on the mail rig: the daemon's heartbeats over real IMAP reach `pbem admin status`,
and a daemon gone silent makes it say "degraded"."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlmodel import select

from pbem.cli.main import main
from pbem.core.db import make_engine, transaction
from pbem.core.models import Heartbeat
from tests.integration.daemon import DaemonProcess

pytestmark = pytest.mark.integration


def _status(daemon: DaemonProcess) -> tuple[int, dict]:
    result = CliRunner().invoke(main, ["-c", str(daemon.config), "admin", "status", "--json"], env=daemon.env)
    return result.exit_code, json.loads(result.output)


def test_status_shows_the_live_daemon_and_degrades_once_it_went_silent(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "d")
    daemon.start()
    daemon.wait_log("clock round (start)")
    code, report = _status(daemon)
    assert code == 0, report["problems"]
    assert report["mailbox"]["reachable"] and report["last_imap_contact"] is not None
    assert report["last_imap_contact_age_s"] < 600 and report["clock_lag_s"] is not None
    assert daemon.stop() == 0, daemon.log_tail()

    engine = make_engine(daemon.database)
    try:
        with transaction(engine) as session:  # as if it had stopped 20 minutes ago
            for row in session.exec(select(Heartbeat)):
                row.at -= timedelta(minutes=20)
                session.add(row)
    finally:
        engine.dispose()
    code, report = _status(daemon)
    assert code == 1 and report["status"] == "degraded"
    assert any("no daemon has reached the mailbox for 20 minutes" in p for p in report["problems"])
    assert report["clock_lag_s"] >= 19 * 60 and any("the clock is" in p for p in report["problems"])
