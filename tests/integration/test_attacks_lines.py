"""Issue 25 end to end: trust line by line, and a newcomer's first day, by real mail.

The daemon runs as a subprocess on the real Dovecot and SMTP servers. An attacker only sends
mail: with a forged From, with a captured mail sent again under a new Message-ID, with made-up
tokens. Each attack asserts what changed (nothing), and after each step every mail the server
queued has reached its mailbox, so the counts per address are what people received.
"""

from __future__ import annotations

from collections import Counter
from email.message import EmailMessage

import pytest
from sqlmodel import Session, func, select

from pbem.core.db import make_engine
from pbem.core.models import Game, HeldMail, InboundMessage, Outbox, Player, Remark, Vacation
from tests.integration.daemon import POLLING, DaemonProcess, handled
from tests.integration.waits import wait_until
from tests.mailer import compose, parse, replayed, reply_to, text

pytestmark = pytest.mark.integration

#: the attacker's own address: the envelope sender of every forged mail; it must get nothing
MALLORY = "mallory@attacker.test"


class Players:
    """The rig's mailboxes and the daemon's database, read at the points a person would look."""

    def __init__(self, rig, daemon: DaemonProcess) -> None:  # noqa: ANN001
        self.rig, self.daemon = rig, daemon
        self.db = make_engine(daemon.database)

    def address(self, user: str) -> str:
        return self.rig.address(user)

    def send(self, raw: bytes, envelope_from: str | None = None) -> InboundMessage:
        """Submit a mail over SMTP and wait for the daemon's own signal that it handled it (its
        inbound row), then for every mail it queued to reach its mailbox."""
        self.rig.submit(envelope_from or parse(raw)["From"], raw)
        row = handled(self.db, raw, self.daemon)
        self.settle()
        return row

    def settle(self) -> None:
        """Wait until each address's mailbox holds every mail queued for it."""
        def delivered() -> bool:
            queued = self.queued()
            return all(len(self.rig.messages(user)) == queued.get(self.address(user), 0)
                       for user in ("alice", "bob", "carol", "dave"))

        wait_until(delivered, 30, lambda: f"undelivered: {self.queued()}\n{self.daemon.log_tail()}")

    def queued(self) -> Counter:
        with Session(self.db) as session:
            return Counter(session.exec(select(Outbox.recipient)).all())

    def mails(self, user: str) -> list[EmailMessage]:
        return [parse(raw) for raw in self.rig.messages(user)]

    def newest(self, user: str, needle: str = "") -> EmailMessage:
        return [m for m in self.mails(user) if needle in m["Subject"]][-1]

    def reply(self, user: str, mail: EmailMessage, body: str) -> InboundMessage:
        raw = reply_to(self.address(user), mail, body)
        self.last_raw = raw
        return self.send(raw)

    def fresh(self, user: str, body: str, to: str | None = None) -> InboundMessage:
        return self.send(compose(self.address(user), body, to=to or self.address("game")))

    def forge(self, user: str, body: str, **headers: str) -> InboundMessage:
        """A mail in `user`'s name, sent by the attacker."""
        raw = compose(self.address(user), body, to=headers.pop("to", self.address("game")), **headers)
        return self.send(raw, envelope_from=MALLORY)

    def game(self, game_id: int) -> Game:
        with Session(self.db) as session:
            return session.get(Game, game_id)

    def count(self, model, *where) -> int:  # noqa: ANN001
        with Session(self.db) as session:
            return session.exec(select(func.count()).select_from(model).where(*where)).one()

    def player(self, user: str) -> Player:
        with Session(self.db) as session:
            return session.exec(select(Player).where(Player.address == self.address(user))).one()


def _flat(mail: EmailMessage) -> str:
    return " ".join(text(mail).split())


def _start(p: Players) -> None:
    """Alice (x) and Bob: games #1 and #2. Alice's first mail is held; any reply confirms it."""
    p.fresh("alice", f"challenge ataxx {p.address('bob')} colour=x")
    notice = p.newest("alice", "Did you write to me?")
    assert "any reply confirms it" in _flat(notice)
    p.reply("alice", notice, "ok")  # not the word confirm: any reply to the notice confirms it
    p.reply("bob", p.newest("bob"), "accept 1")
    p.reply("alice", p.newest("alice"), f"challenge ataxx {p.address('bob')} colour=x")
    p.reply("bob", p.newest("bob", "challenge #2"), "accept 2")
    assert p.game(1).status == p.game(2).status == "active"


def test_lines_act_only_on_what_their_mail_showed(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_imap=POLLING)
    daemon.start()
    p = Players(mailrig, daemon)
    try:
        _start(p)

        # 1. A confirmation does exactly what its notice showed. Bob's own fresh `vacation 2` is
        # held; the forger's thirty lines from Bob's address are held apart, in a notice of their
        # own that quotes no link; Bob's reply to his notice runs his line alone.
        p.fresh("bob", "vacation 2")
        bobs = p.newest("bob", "Did you write to me?")
        before = len(p.mails("bob"))
        forged = "\n".join(["resign 1", "say 1 your prize: http://evil.example/win", *["draw 2"] * 28])
        p.forge("bob", forged)
        assert len(p.mails("bob")) == before + 1  # the forger drew one notice, no more
        theirs = _flat(p.mails("bob")[-1])
        assert "| resign 1" in theirs and "evil.example" not in theirs and "http" not in theirs
        assert "| vacation 2" not in theirs and "| resign 1" not in _flat(bobs)
        p.reply("bob", bobs, "")  # an empty reply confirms it too
        assert p.count(Vacation) == 1 and p.game(1).status == p.game(2).status == "active"
        assert p.game(2).draw_offer is None
        assert p.count(HeldMail, HeldMail.status == "held") == 1  # the forger's lines wait, and expire
        assert "Confirmed" in p.newest("bob")["Subject"]
        p.reply("bob", p.newest("bob"), "back")

        # 2. A replayed mail acts on no other game: Alice answers her games list with a move in
        # game 1 and a word in game 2; Bob then offers a draw in game 2; copies of Alice's mail
        # and a new mail with its captured token change nothing.
        p.reply("alice", p.newest("alice"), "games")
        p.reply("alice", p.newest("alice", "Your games"), "#1 f2\nsay 2 good luck")
        original = p.last_raw
        assert p.game(1).ply == 1 and p.count(Remark) == 1, _flat(p.mails("alice")[-1])
        p.reply("bob", p.newest("bob", "[pbem #2]"), "draw")
        assert p.game(2).draw_offer == 1
        alice_before, bob_before = len(p.mails("alice")), len(p.mails("bob"))
        for _ in range(5):
            copy = p.send(replayed(original), envelope_from=MALLORY)
            assert copy.proof == "plus-address" and copy.acts is None
        captured = parse(original)["To"]
        p.forge("alice", "#2 draw", to=captured)  # her token, new lines: it never showed today's game 2
        assert p.game(2).status == "active" and p.game(2).draw_offer == 1
        assert p.game(1).ply == 1 and p.count(Remark) == 1
        assert len(p.mails("bob")) == bob_before  # no word relayed again, no draw accepted
        answers = p.mails("alice")[alice_before:]
        assert len(answers) == 6
        assert all("I have already done what this mail asks" in _flat(m) for m in answers[:5])
        assert "I act on game #2 only in a reply to my mail that shows its board" in _flat(answers[5])

        # 3. Wrong tokens never lock out a right one: twenty-five made-up tokens in Alice's name,
        # then her genuine reply (below, in 4) still plays.
        p.reply("bob", p.newest("bob", "[pbem #1]"), "b1")
        before = len(p.mails("alice"))
        for n in range(25):
            guess = f"{n:016x}"
            p.forge("alice", "#1 resign", to=f"game+g1-1.0.{guess}@{mailrig.domain}",
                    subject=f"Re: [pbem #1] Ataxx [k:1.0.{guess}]")
        assert p.game(1).status == "active"
        assert len(p.mails("alice")) - before == 2  # the rest of today's three answers to mails without proof

        # 4. Every mail answers for the game it shows: `board 1` in reply to game 2's mail is
        # answered with game 1's board, subject and Reply-To, and a bare move in reply plays there.
        p.reply("alice", p.newest("alice", "[pbem #2]"), "board 1")
        shown = p.newest("alice")
        assert shown["Subject"].startswith("[pbem #1]") and "+g1-" in shown["Reply-To"]
        p.reply("alice", shown, "e2")
        assert (p.game(1).ply, p.game(2).ply) == (3, 0)
        # an error about game 2 answers for game 2
        p.reply("alice", p.newest("alice", "[pbem #1]"), "#2 i5")
        refused = p.newest("alice")
        assert refused["Subject"].startswith("[pbem #2]") and "+g2-" in refused["Reply-To"]

        assert p.rig.messages("carol") == [] and p.rig.messages("dave") == []
        with Session(p.db) as session:
            assert session.exec(select(Outbox).where(Outbox.recipient == MALLORY)).all() == []
    finally:
        assert daemon.stop() == 0, daemon.log_tail()
        p.db.dispose()


def test_a_newcomer_is_answered_and_gets_an_address_of_their_own(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_imap=POLLING)
    daemon.start()
    p = Players(mailrig, daemon)
    try:
        # Three fresh mails are answered; the third says how to go on; a fourth is not answered.
        assert p.fresh("dave", "help").status == "processed"
        assert p.fresh("dave", "rules ataxx").status == "processed"
        assert p.fresh("dave", f"challenge ataxx {p.address('carol')}").status == "processed"
        held = p.mails("dave")[-1]
        assert "Did you write to me?" in held["Subject"]
        assert "reply to this mail or to any other of my mails" in _flat(held)
        assert p.fresh("dave", "help").status == "silenced" and len(p.mails("dave")) == 3
        assert p.rig.messages("carol") == []  # nothing goes to anyone on an unproven mail

        # A reply to any of our mails proves the address: the held challenge goes out, and the
        # answer gives Dave an address of his own to write to from scratch.
        p.reply("dave", p.mails("dave")[0], "ok")  # a reply to the help mail, not to the notice
        assert p.count(HeldMail, HeldMail.status == "held") == 1  # it confirms nothing it never showed
        p.reply("dave", held, "ok")
        assert len(p.rig.messages("carol")) == 1
        personal = p.player("dave").contact
        assert personal and f"game+dave.{personal}@" in text(p.mails("dave")[-2]) + text(p.mails("dave")[-1])
        own = f"game+dave.{personal}@{mailrig.domain}"

        # A fresh mail to it is proven; after `address new` the old one proves nothing.
        assert p.fresh("dave", "timezone Europe/Rome", to=own).proof == "contact"
        assert p.player("dave").timezone == "Europe/Rome"
        p.reply("dave", p.mails("dave")[-1], "address new")
        assert p.player("dave").contact != personal
        late = p.fresh("dave", "timezone Asia/Tokyo", to=own)
        assert late.proof is None and p.player("dave").timezone == "Europe/Rome"
        # a forger who never saw it cannot use it either
        p.forge("dave", "timezone Asia/Tokyo")
        assert p.player("dave").timezone == "Europe/Rome"
    finally:
        assert daemon.stop() == 0, daemon.log_tail()
        p.db.dispose()
