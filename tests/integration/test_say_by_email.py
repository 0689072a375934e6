"""`say` by real mail: the daemon on Dovecot and SMTP, two players and a watcher.

Alice plays a move with a message in the same mail, then Bob writes a message alone. Each
mail that arrives is checked: who gets how many mails, their subjects, and the relayed words,
quoted line by line under our header, in the mail that carries the move.
"""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from pbem.core.db import make_engine
from pbem.core.models import Remark
from tests.integration.daemon import POLLING, DaemonProcess
from tests.mailer import compose, parse, reply_to, text

pytestmark = pytest.mark.integration


def _mails(rig, user: str, count: int) -> list:
    """Exactly `count` mails in `user`'s mailbox: waits for them, then checks no more came."""
    mails = [parse(raw) for raw in rig.wait_for(user, count, timeout=30)]
    assert len(mails) == count, [m["Subject"] for m in mails]
    return mails


def _lines(mail) -> list[str]:
    return text(mail).replace("\r\n", "\n").splitlines()


def _said(mail, header: str) -> list[str]:
    """The relayed part of a mail: from our header line to the last quoted line."""
    lines = _lines(mail)
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    end = max(i for i, line in enumerate(lines) if line.startswith(">"))
    return lines[start:end + 1]


def test_a_message_with_a_move_and_one_alone_by_real_mail(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_imap=POLLING)
    daemon.start()
    alice, bob, carol = mailrig.address("alice"), mailrig.address("bob"), mailrig.address("carol")
    try:
        mailrig.submit(alice, compose(alice, f"challenge ataxx {bob} colour=x", to=mailrig.address("game")))
        mailrig.submit(alice, reply_to(alice, _mails(mailrig, "alice", 1)[-1], "confirm"))
        mailrig.submit(bob, reply_to(bob, _mails(mailrig, "bob", 1)[-1], "accept 1"))
        mailrig.submit(carol, compose(carol, "watch 1", to=mailrig.address("game")))
        mailrig.submit(carol, reply_to(carol, _mails(mailrig, "carol", 1)[-1], "confirm"))
        started = _mails(mailrig, "alice", 3)[-1]
        assert "your move" in started["Subject"]
        _mails(mailrig, "carol", 2)

        # A move and a message in one mail: Bob gets one mail, the board and then her words.
        mailrig.submit(alice, reply_to(alice, started, "f2\nsay Good luck, Bob!\nsay Take your time."))
        to_bob = _mails(mailrig, "bob", 3)[-1]
        assert to_bob["Subject"].startswith("[pbem #1] Ataxx: your move, bob (move 2)")
        body = text(to_bob)
        assert body.index("alice played f2.") < body.index("  2 | . . . . . X . | 2") < body.index("> Good luck")
        assert _said(to_bob, "alice writes") == [
            "alice writes to you in game #1 (their words, not mine; the game's",
            "watchers read them too):",
            "",
            "> Good luck, Bob!",
            "> Take your time.",
        ]
        to_carol = _mails(mailrig, "carol", 3)[-1]
        assert to_carol["Subject"].startswith("[pbem #1] Ataxx: alice played f2")
        assert _said(to_carol, "alice writes") == [
            "alice writes to bob in game #1, in public, for the watchers too (their",
            "words, not mine):",
            "",
            "> Good luck, Bob!",
            "> Take your time.",
        ]
        to_alice = _mails(mailrig, "alice", 4)[-1]
        assert to_alice["Subject"].startswith("[pbem #1] Ataxx: you played f2")
        assert "Your message was relayed to bob and to the 1 watcher of game #1." in " ".join(text(to_alice).split())

        # A message alone: its own mail, to Alice and to Carol; Bob is told where it went.
        mailrig.submit(bob, reply_to(bob, to_bob, "say Thanks, same to you."))
        to_alice = _mails(mailrig, "alice", 5)[-1]
        assert to_alice["Subject"].startswith("[pbem #1] Ataxx: a message from bob")
        assert _said(to_alice, "bob writes") == [
            "bob writes to you in game #1 (their words, not mine; the game's watchers",
            "read them too):",
            "",
            "> Thanks, same to you.",
        ]
        assert 'To get no more messages from opponents, write "say off".' in " ".join(text(to_alice).split())
        to_carol = _mails(mailrig, "carol", 4)[-1]
        assert _said(to_carol, "bob writes") == [
            "bob writes to alice in game #1, in public, for the watchers too (their",
            "words, not mine):",
            "",
            "> Thanks, same to you.",
        ]
        answer = _mails(mailrig, "bob", 4)[-1]
        assert answer["Subject"].startswith("[pbem #1] Ataxx: your message to alice")
        assert "Your message was relayed to alice and to the 1 watcher of game #1." in " ".join(text(answer).split())
    finally:
        assert daemon.stop() == 0, daemon.log_tail()
    db = make_engine(daemon.database)
    with Session(db) as session:
        assert [(r.ply, r.text) for r in session.exec(select(Remark).order_by(Remark.id))] == [
            (1, "Good luck, Bob!\nTake your time."), (1, "Thanks, same to you."),
        ]
    db.dispose()
