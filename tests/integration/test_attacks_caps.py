"""Issue 25 end to end: the attacks of an outside audit, by real mail, against the daemon as a
subprocess on Dovecot and SMTP. A proven player writes five mails of thirty challenges to an
address that never wrote, pairs `ladder` and `resign` against the top player, repeats `say`;
a forger writes a Russian first mail in a stranger's name; the invited stranger stops our
mail with the List-Unsubscribe address. What changed, and how many mails each address got."""

from __future__ import annotations

import pytest
from sqlmodel import Session, func, select

from pbem.core.db import make_engine
from pbem.core.models import Challenge, InboundMessage, Outbox, Player, Remark, TournamentGame
from tests.integration.daemon import POLLING, DaemonProcess
from tests.integration.inboxes import Inboxes
from tests.integration.test_tournament_by_email import _admin, _flat
from tests.integration.waits import wait_until
from tests.mailer import compose, parse, text

pytestmark = pytest.mark.integration

RELAYS = 3  # max_relays_per_pair_per_day, lowered so the test sends fewer mails


def _outbox(db, address: str) -> int:  # noqa: ANN001
    with Session(db) as session:
        return session.exec(select(func.count(Outbox.id)).where(Outbox.recipient == address)).one()


def _player(db, address: str) -> Player | None:  # noqa: ANN001
    with Session(db) as session:
        return session.exec(select(Player).where(Player.address == address)).first()


def test_invitations_ladder_pairs_say_a_forged_language_and_stop_by_real_mail(mailrig, tmp_path) -> None:
    home = tmp_path / "pbem"
    daemon = DaemonProcess(mailrig, home, extra_imap=POLLING,
                           extra_server={"clock_interval": 0.5, "max_relays_per_pair_per_day": RELAYS})
    daemon.start()
    db = make_engine(daemon.database)
    inbox = Inboxes(mailrig, ("alice", "bob", "carol", "dave"))
    alice, bob, carol, dave = (mailrig.address(u) for u in ("alice", "bob", "carol", "dave"))
    try:
        # Alice and Bob join a ladder (each proves their address by confirming); it starts.
        _admin(daemon, "create", "Rig Ladder", "--format", "ladder", "--game", "ataxx", "--days", "3")
        for user in ("alice", "bob"):
            inbox.send(user, "join 1", subject="ladder")
            inbox.send(user, "confirm", inbox.next(user, "Reply to confirm"))
            inbox.next(user, "Confirmed")
        _admin(daemon, "start", "1")
        newest = {user: inbox.next(user, "Rig Ladder: it has begun") for user in ("alice", "bob")}

        # 1. Five mails of thirty challenges to Dave, who never wrote: one invitation.
        for _ in range(5):
            inbox.send("alice", "\n".join([f"challenge ataxx {dave}"] * 30), newest["alice"])
            newest["alice"] = inbox.next("alice", "")
        assert "I send one invitation at a time to such an address." in _flat(newest["alice"])
        with Session(db) as session:
            assert session.exec(select(func.count(Challenge.id))).one() == 1
        invitation = parse(mailrig.wait_for("dave", 1, timeout=30)[0])
        assert 'To get no more mail from this server, reply with "stop".' in _flat(invitation)
        assert _outbox(db, dave) == 1

        # 2. `ladder 1 1` and `resign`, three times over: one game, three mails to the top player.
        for attempt in range(3):
            inbox.send("bob", "ladder 1 1", newest["bob"])
            newest["bob"] = inbox.next("bob", "")
            if attempt == 0:
                assert "has challenged alice (place 1)" in _flat(newest["bob"])
                inbox.send("bob", "resign", newest["bob"])
                newest["bob"] = inbox.next("bob", "game over")
                daemon.wait_log("ladder #1: challenge 1 settled")
                newest["bob"] = inbox.next("bob", "the places after game")
        assert "ladder challenge today, the most between two players in a day." in _flat(newest["bob"])
        with Session(db) as session:
            assert session.exec(select(func.count(TournamentGame.id))).one() == 1
        for subject in ("ladder Rig Ladder", "game over", "the places after game"):
            inbox.next("alice", subject)

        # 3. A game, then `say` five times: three reach Bob.
        inbox.send("alice", f"challenge ataxx {bob}", newest["alice"])
        inbox.next("alice", "Challenge #2")
        inbox.send("bob", "accept 2", inbox.next("bob", "challenge #2"))
        started = inbox.next("alice", "accepted")
        inbox.next("bob", "game on")
        for n in range(5):
            inbox.send("alice", f"say Hello {n}", started)  # a say needs no newer mail: all at once
        answers = [_flat(inbox.next("alice", "")) for _ in range(5)]
        assert sum("the most I relay to one opponent in a day" in a for a in answers) == 5 - RELAYS
        said = [inbox.next("bob", "") for _ in range(RELAYS)]
        assert all("> Hello" in text(m) for m in said)
        with Session(db) as session:
            assert session.exec(select(func.count(Remark.id))).one() == RELAYS

        # 4. A forged first mail, in Russian, From Carol who never wrote: answered, chooses nothing.
        forged = compose(f"Carol <{carol}>", f"Привет! Хочу сыграть партию, подскажите, как начать?\nвызов ataxx {bob}",
                         to=mailrig.address("game"))
        mailrig.submit(alice, forged)
        notice = inbox.next("carol", "")
        assert notice["Content-Language"] == "ru" and notice["List-Unsubscribe"]
        assert _player(db, carol).language == "en"

        # 5. Dave stops our mail with the List-Unsubscribe address of his invitation: no body.
        stop = str(invitation["List-Unsubscribe"]).strip().removeprefix("<mailto:").removesuffix(">")
        raw = compose(dave, "", to=stop)
        mailrig.submit(dave, raw)
        message_id = parse(raw)["Message-ID"]

        def recorded() -> InboundMessage | None:
            with Session(db) as session:
                return session.exec(select(InboundMessage).where(InboundMessage.message_id == message_id)).first()

        assert wait_until(recorded, 30, "the stop mail was never handled").status == "stopped"
        assert _player(db, dave).stopped_at is not None
        inbox.send("alice", "withdraw 1", started)  # the mail that would tell Dave is not sent
        withdrawn = inbox.next("alice", "")
        inbox.send("alice", f"challenge ataxx {dave}", withdrawn)
        assert "has asked to get no mail from this server" in _flat(inbox.next("alice", ""))
        with Session(db) as session:
            assert session.get(Challenge, 1).status == "withdrawn"
    finally:
        assert daemon.stop() in (0, None), daemon.log_tail()
        db.dispose()
    # what each address received: Dave one invitation, Carol one notice, Bob three messages
    assert len(mailrig.messages("dave")) == _outbox(db, dave) == 1
    assert len(mailrig.messages("carol")) == 1
    assert len(mailrig.messages("bob")) == inbox.read("bob")
    assert len(mailrig.messages("alice")) == inbox.read("alice")
