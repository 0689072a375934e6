"""The daily digest in the real daemon, against real IMAP and SMTP: it comes once, across a
restart, and the player answers two games in one reply to it.

The daemon's clock cannot be frozen in a subprocess, so while it is stopped the test moves
the player's next digest (`Player.digest_due_at`) into the past in the SQLite file, then
starts it again.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from pbem.core.db import make_engine, transaction
from pbem.core.models import Move, Outbox, Player
from pbem.core.wallclock import now
from tests.integration.daemon import DaemonProcess
from tests.integration.waits import wait_until
from tests.mailer import compose, parse, reply_to, text

pytestmark = pytest.mark.integration


def _mails(rig, user: str, count: int):
    """The user's mails once there are `count` of them."""
    return [parse(raw) for raw in rig.wait_for(user, count, timeout=30)]


def _outbox_empty(db) -> bool:
    with Session(db) as session:
        return not session.exec(select(Outbox).where(Outbox.status == "pending")).first()


def test_a_digest_by_mail_answered_for_two_games_in_one_reply(mailrig, tmp_path) -> None:
    home = tmp_path / "pbem"
    daemon = DaemonProcess(mailrig, home)
    daemon.config.write_text(
        daemon.config.read_text().replace("outbox_interval = 0.5", "outbox_interval = 0.5\nclock_interval = 0.5")
    )
    db = make_engine(f"sqlite:///{home / 'pbem.sqlite3'}")
    alice, bob, carol = mailrig.address("alice"), mailrig.address("bob"), mailrig.address("carol")
    daemon.start()
    try:
        body = f"challenge capturego {bob} size=9 colour=first"
        mailrig.submit(mailrig.address("alice"), compose(alice, body, subject="a game", to=mailrig.address("game")))
        mailrig.submit(mailrig.address("alice"), reply_to(alice, _mails(mailrig, "alice", 1)[-1], "confirm"))  # a first mail is held
        mailrig.submit(mailrig.address("bob"), reply_to(bob, _mails(mailrig, "bob", 1)[-1], "accept 1"))
        started = _mails(mailrig, "alice", 3)[-1]
        mailrig.submit(mailrig.address("alice"), reply_to(alice, started, f"challenge capturego {carol} size=9 colour=first"))
        mailrig.submit(mailrig.address("carol"), reply_to(carol, _mails(mailrig, "carol", 1)[-1], "accept 2"))
        started = _mails(mailrig, "alice", 5)[-1]
        mailrig.submit(mailrig.address("alice"), reply_to(alice, started, "timezone America/New_York\nnotify digest 7:00"))
        told = text(_mails(mailrig, "alice", 6)[-1])
        assert "one digest a day at 07:00" in " ".join(told.split()), told
        assert daemon.stop() == 0, daemon.log_tail()

        with transaction(db) as session:  # the digest is due when the daemon comes back
            player = session.exec(select(Player).where(Player.address == alice)).one()
            player.digest_due_at = now() - timedelta(minutes=1)
            session.add(player)
        daemon.start()
        daemon.wait_log("digest round: 1 digests")
        digest = _mails(mailrig, "alice", 7)[-1]
        assert digest["Subject"].startswith("[pbem] Your digest: 2 games wait for your move"), digest["Subject"]
        wait_until(lambda: _outbox_empty(db), 30, lambda: f"the outbox is not empty\n{daemon.log_tail()}")
        assert daemon.stop() == 0, daemon.log_tail()
        daemon.start()  # a restart: its first clock round sends no second digest
        daemon.wait_log("clock round (start)")

        mailrig.submit(mailrig.address("alice"), reply_to(alice, digest, "move 1 e5\nmove 2 d5"))  # two games, one reply
        for user, move in (("bob", "e5"), ("carol", "d5")):
            mail = _mails(mailrig, user, 3)[-1]
            assert "your move" in mail["Subject"] and f"alice played {move}" in text(mail), text(mail)
        answer = _mails(mailrig, "alice", 8)[-1]
        assert "e5" in text(answer) and "d5" in text(answer)
        assert daemon.stop() == 0, daemon.log_tail()
    finally:
        assert daemon.stop() in (0, None), daemon.log_tail()
    assert sum("Your digest" in parse(raw)["Subject"] for raw in mailrig.messages("alice")) == 1
    with Session(db) as session:
        assert sorted((m.game_id, m.notation) for m in session.exec(select(Move))) == [(1, "e5"), (2, "d5")]
        player = session.exec(select(Player).where(Player.address == alice)).one()
        due = player.digest_due_at
        assert due is not None and due.replace(tzinfo=now().tzinfo) > now()
    db.dispose()
