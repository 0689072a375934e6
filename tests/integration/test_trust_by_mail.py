"""Issue 11 end to end: the daemon as a subprocess on the real Dovecot and SMTP servers, and an
attacker who only sends mail. A forged From changes nothing, a replayed genuine mail changes
nothing, and a responder that answers every mail of ours is answered a bounded number of times."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from pbem.core.config import Settings
from pbem.core.db import make_engine
from pbem.core.models import Game, Outbox
from tests.integration.daemon import POLLING, DaemonProcess, handled
from tests.mailer import compose, parse, replayed, reply_to

pytestmark = pytest.mark.integration


def _newest(rig, user: str, count: int, daemon: DaemonProcess):
    return parse(rig.wait_for(user, count, timeout=30)[-1])


def test_forgery_replay_and_a_looping_responder_by_real_mail(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_imap=POLLING)
    daemon.start()
    db = make_engine(daemon.database)
    alice, bob, carol = mailrig.address("alice"), mailrig.address("bob"), mailrig.address("carol")
    try:
        # Alice's first challenge waits for her confirmation; then the game starts.
        mailrig.submit(alice, compose(alice, f"challenge ataxx {bob} colour=x", to=mailrig.address("game")))
        held = _newest(mailrig, "alice", 1, daemon)
        assert "Did you write to me?" in held["Subject"]
        mailrig.submit(alice, reply_to(alice, held, "confirm"))
        mailrig.submit(bob, reply_to(bob, _newest(mailrig, "bob", 1, daemon), "accept 1"))
        started = _newest(mailrig, "alice", 3, daemon)
        assert "your move" in started["Subject"]

        # A forger writes as Alice, without a token: nothing changes, and Alice gets no more than
        # today's three answers to mails without proof (the held notice of her challenge was one).
        statuses = []
        for _ in range(3):
            forged = compose(f"Alice <{alice}>", "resign", to=mailrig.address("game"))
            mailrig.submit(carol, forged)
            statuses.append(handled(db, forged, daemon).status)
        assert statuses == ["processed", "processed", "silenced"]
        with Session(db) as session:
            assert session.get(Game, 1).status == "active"

        # Alice's genuine move, captured on the way and replayed later, changes nothing.
        move = reply_to(alice, started, "f2")
        mailrig.submit(alice, move)
        mailrig.submit(bob, reply_to(bob, _newest(mailrig, "bob", 3, daemon), "a1-c3"))  # invite, game on, f2
        _newest(mailrig, "alice", 7, daemon)  # Bob's move reached her (after two notices of the forger's)
        replay = replayed(move)
        mailrig.submit(alice, replay)
        assert handled(db, replay, daemon).proof == "plus-address"
        with Session(db) as session:
            assert session.get(Game, 1).ply == 2

        # A responder answers every mail of ours; the thread's budget ends it.
        mailrig.submit(carol, compose(carol, "help", to=mailrig.address("game")))
        signature = "Thanks for your mail.\nOpen Monday to Friday, 9:00-17:00"
        received = 1
        newest = _newest(mailrig, "carol", received, daemon)
        for _ in range(60):
            answer = reply_to(carol, newest, signature)
            mailrig.submit(carol, answer)
            if handled(db, answer, daemon).status == "silenced":
                break
            received += 1
            newest = _newest(mailrig, "carol", received, daemon)
        with Session(db) as session:
            to_carol = session.exec(select(Outbox).where(Outbox.recipient == carol)).all()
        assert len(to_carol) == Settings().max_error_replies_per_day + 1  # help, then the error budget
        assert not any(row.template == "open" for row in to_carol)
    finally:
        assert daemon.stop() == 0, daemon.log_tail()
        db.dispose()
