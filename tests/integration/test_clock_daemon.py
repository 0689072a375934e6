"""The clock in the real daemon, against real IMAP and SMTP: a reminder and a forfeit, each once,
across daemon restarts.

The daemon's clock cannot be frozen in a subprocess, so while it is stopped the test moves the
turn's start back in the SQLite file (the deadline is derived from it) and marks the game due,
then starts it again.
"""

from __future__ import annotations

import smtplib
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from pbem.core.db import make_engine, transaction
from pbem.core.models import Game, Outbox, Reminder
from pbem.games.clock import now
from tests.integration.daemon import POLLING, DaemonProcess
from tests.integration.waits import wait_until
from tests.mailer import compose, parse, reply_to

pytestmark = pytest.mark.integration


def _send(rig, user: str, raw: bytes) -> None:
    with smtplib.SMTP("127.0.0.1", rig.smtp_port, timeout=10) as smtp:
        smtp.sendmail(rig.address(user), [parse(raw)["To"]], raw)


def _subjects(rig, user: str) -> list[str]:
    return [parse(raw)["Subject"] for raw in rig.messages(user)]


def _wait_subject(rig, user: str, word: str, count: int = 1, timeout: float = 30) -> list[str]:
    def probe() -> list[str] | None:
        found = [s for s in _subjects(rig, user) if word in s]
        return found if len(found) >= count else None

    return wait_until(probe, timeout, lambda: f"{user}: {count} mail(s) with {word!r} in {_subjects(rig, user)}", 0.2)


def _quiet_round(daemon: DaemonProcess, db) -> None:
    """Start the daemon and let its first clock round (the one that catches up after downtime,
    where a repeat would happen) run, and what it queued go out; then stop it."""
    daemon.start()
    daemon.wait_log("clock round (start)")
    wait_until(lambda: _outbox_empty(db), 30, lambda: f"the outbox is not empty\n{daemon.log_tail()}")
    assert daemon.stop() == 0, daemon.log_tail()


def _outbox_empty(db) -> bool:
    with Session(db) as session:
        return not session.exec(select(Outbox).where(Outbox.status == "pending")).first()


def _turn_started(db, ago: timedelta) -> None:
    with transaction(db) as session:
        game = session.exec(select(Game)).one()
        game.turn_started_at = now() - ago
        game.clock_due_at = game.turn_started_at  # due at once: the daemon's round stores the real event
        session.add(game)


def test_reminder_and_forfeit_happen_once_across_restarts(mailrig, tmp_path) -> None:
    home = tmp_path / "pbem"
    daemon = DaemonProcess(mailrig, home, extra_imap=POLLING)  # five restarts: polling stops at once
    daemon.config.write_text(
        daemon.config.read_text().replace("outbox_interval = 0.5", "outbox_interval = 0.5\nclock_interval = 0.5")
    )
    db = make_engine(f"sqlite:///{home / 'pbem.sqlite3'}")
    alice, bob = mailrig.address("alice"), mailrig.address("bob")
    daemon.start()
    try:
        body = f"challenge capturego {bob} size=9 colour=first"
        _send(mailrig, "alice", compose(alice, body, subject="a game", to=mailrig.address("game")))
        held = parse(mailrig.wait_for("alice", 1, timeout=30)[-1])  # a first mail: held until she confirms
        _send(mailrig, "alice", reply_to(alice, held, "confirm"))
        invite = parse(mailrig.wait_for("bob", 1, timeout=30)[-1])
        _send(mailrig, "bob", reply_to(bob, invite, "accept 1"))
        started = parse(mailrig.wait_for("alice", 3, timeout=30)[-1])
        assert "Your deadline:" in started.get_body(("plain",)).get_content()
        _send(mailrig, "alice", reply_to(alice, started, "e5"))
        _wait_subject(mailrig, "bob", "your move")
        assert daemon.stop() == 0, daemon.log_tail()

        # 47 hours before the deadline: the 48-hour reminder is due when the daemon comes back
        _turn_started(db, timedelta(days=5, hours=1))
        daemon.start()
        reminder = _wait_subject(mailrig, "bob", "reminder")
        assert daemon.stop() == 0, daemon.log_tail()
        _quiet_round(daemon, db)  # a restart: the reminder is not sent again
        assert [s for s in _subjects(mailrig, "bob") if "reminder" in s] == reminder
        assert not [s for s in _subjects(mailrig, "alice") if "reminder" in s]

        # past the deadline: bob loses on time, both are told once, even after another restart
        _turn_started(db, timedelta(days=7, minutes=1))
        daemon.start()
        _wait_subject(mailrig, "alice", "game over")
        _wait_subject(mailrig, "bob", "game over")
        assert daemon.stop() == 0, daemon.log_tail()
        _quiet_round(daemon, db)  # nor is the forfeit, after another restart
    finally:
        assert daemon.stop() in (0, None), daemon.log_tail()
    for user in ("alice", "bob"):
        over = [parse(raw) for raw in mailrig.messages(user) if "game over" in parse(raw)["Subject"]]
        assert len(over) == 1, _subjects(mailrig, user)
        assert "bob ran out of time" in over[0].get_body(("plain",)).get_content()
    with Session(db) as session:
        game = session.exec(select(Game)).one()
        assert (game.status, game.result, game.winner) == ("finished", "1-0", 0)
        assert sorted(r.hours for r in session.exec(select(Reminder))) == [48.0]
    db.dispose()
