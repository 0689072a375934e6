"""Issue 27 end to end: delivery reports of our mails, delivered into the game's mailbox as a
receiving server sends them, to the daemon as a subprocess on the real Dovecot and SMTP servers.
Three hard bounces of Bob's mails suppress his address (no mail, his clock paused, Alice told);
his next mail lifts it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from pbem.core.db import make_engine
from pbem.core.models import Game, Outbox, Player, Vacation
from pbem.core.wallclock import now
from tests.integration.daemon import POLLING, DaemonProcess, handled
from tests.mailer import compose, dsn, parse, reply_to, text

pytestmark = pytest.mark.integration


def _mails(rig, user: str, count: int) -> list:
    return [parse(raw) for raw in rig.wait_for(user, count, timeout=30)]


def test_hard_bounces_suppress_an_address_until_its_player_writes(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_imap=POLLING)
    daemon.start()
    db = make_engine(daemon.database)
    alice, bob, game = mailrig.address("alice"), mailrig.address("bob"), mailrig.address("game")
    try:
        mailrig.submit(alice, compose(alice, f"challenge ataxx {bob} colour=first", to=game))
        mailrig.submit(alice, reply_to(alice, _mails(mailrig, "alice", 1)[-1], "confirm"))
        mailrig.submit(bob, reply_to(bob, _mails(mailrig, "bob", 1)[-1], "accept 1"))
        mailrig.submit(alice, reply_to(alice, _mails(mailrig, "alice", 3)[-1], "f2"))
        to_bob = _mails(mailrig, "bob", 3)  # the invitation, the start, Alice's move

        for n, mail in enumerate(to_bob, 1):  # each of Bob's mails comes back: his mailbox is gone
            report = dsn(bob, mail["Message-ID"], "5.1.1", to=game)
            mailrig.deliver("game", report, sender="")
            assert handled(db, report, daemon).status == "robot"
            with Session(db) as session:
                player = session.exec(select(Player).where(Player.address == bob)).one()
                assert player.hard_bounces == n and (player.bounced_at is not None) == (n == 3)

        notice = _mails(mailrig, "alice", 5)[-1]  # the start, her move's answer, then the notice
        assert "cannot be reached" in notice["Subject"] and "Their clock in game #1 is paused" in text(notice)
        with Session(db) as session:
            bob_id = session.exec(select(Player.id).where(Player.address == bob)).one()
            assert session.exec(select(Vacation.bounced).where(Vacation.player_id == bob_id)).all() == [True]
            assert session.get(Game, 1).clock_due_at > now() + timedelta(days=365)
            queued = len(session.exec(select(Outbox).where(Outbox.recipient == bob)).all())

        said = reply_to(alice, notice, "say are you still there?")
        mailrig.submit(alice, said)
        assert handled(db, said, daemon).status == "processed"
        with Session(db) as session:  # nothing more is queued to Bob
            assert len(session.exec(select(Outbox).where(Outbox.recipient == bob)).all()) == queued

        back = reply_to(bob, to_bob[-1], "games")  # Bob writes again, from a mail of ours
        mailrig.submit(bob, back)
        assert handled(db, back, daemon).proof == "plus-address"
        _mails(mailrig, "bob", 4)  # his answer reaches him: mail to him resumes
        again = _mails(mailrig, "alice", 7)[-1]  # the answer to her `say`, then this
        assert "can be reached again" in again["Subject"]
        with Session(db) as session:
            player = session.get(Player, bob_id)
            assert player.bounced_at is None and player.hard_bounces == 0
            assert session.get(Game, 1).clock_due_at < now() + timedelta(days=8)
    finally:
        assert daemon.stop() == 0, daemon.log_tail()
        db.dispose()
