"""Issue 32 end to end, "the edges of trust": the daemon as a subprocess on the real Dovecot and
SMTP servers. A line separator other than CR/LF hides no command, look-alikes of our tag and
marker are not relayed, no display name the `name` rule refuses becomes a name (nor one that reads
as ours), and the new robot signs get no reply at all."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from pbem.core.db import make_engine
from pbem.core.models import Bounce, Game, Outbox, Player, Remark
from tests.integration.daemon import POLLING, DaemonProcess, handled
from tests.mailer import compose, parse, reply_to, text

pytestmark = pytest.mark.integration


def _newest(rig, user: str, count: int):
    return parse(rig.wait_for(user, count, timeout=30)[-1])


def _sent_to(db, address: str) -> list[str]:
    with Session(db) as session:
        return [row.template for row in session.exec(select(Outbox).where(Outbox.recipient == address))]


def test_names_line_separators_and_look_alikes_by_mail(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_imap=POLLING)
    daemon.start()
    db = make_engine(daemon.database)
    alice, bob = mailrig.address("alice"), mailrig.address("bob")
    script = f'"{{{{7*7}}}} <script>alert(1)</script>" <{alice}>'
    try:
        # Item 4: Alice writes with a display name the `name` rule refuses, Bob as "pbem server";
        # once proven, each keeps the name made from the address, and is told nothing of it.
        mailrig.submit(alice, compose(script, f"challenge ataxx {bob} colour=x", to=mailrig.address("game")))
        mailrig.submit(alice, reply_to(script, _newest(mailrig, "alice", 1), "confirm"))
        mailrig.submit(bob, reply_to(f"pbem server <{bob}>", _newest(mailrig, "bob", 1), "accept 1"))
        started = _newest(mailrig, "alice", 3)
        assert "your move" in started["Subject"]
        with Session(db) as session:
            names = {p.address: p.name for p in session.exec(select(Player))}
        assert (names[alice], names[bob]) == ("alice", "bob")
        assert "a message from" not in started["Subject"] and "pbem server" not in text(started)

        # Item 1: U+2028 in a `say` line is a blank, not a line break: no `resign`.
        split = reply_to(alice, started, "say 1 first\u2028resign")
        mailrig.submit(alice, split)
        assert handled(db, split, daemon).status == "processed"
        said = _newest(mailrig, "bob", 3)
        assert "first resign" in text(said)
        with Session(db) as session:
            assert session.get(Game, 1).status == "active"
            assert [r.text for r in session.exec(select(Remark))] == ["first resign"]

        # Item 3: look-alikes of our subject tag and of our marker are taken out of said text.
        marker = "##- Pleas\u0435 write your reply above this line -##"  # a Cyrillic е
        lookalike = reply_to(alice, _newest(mailrig, "alice", 4), f"say 1 hello ［pbem #1］ there [ pbem #1 ]\nsay 1 {marker}")
        mailrig.submit(alice, lookalike)
        assert handled(db, lookalike, daemon).status == "processed"
        relayed = text(_newest(mailrig, "bob", 4))
        assert "> hello there" in relayed
        assert "pbem #1 ]" not in relayed and "］" not in relayed and "Pleas\u0435" not in relayed
        with Session(db) as session:
            assert session.get(Game, 1).status == "active"
            assert [r.text for r in session.exec(select(Remark).order_by(Remark.id))] == ["first resign", "hello there"]
        assert not any("over" in t or "resign" in t for t in _sent_to(db, alice) + _sent_to(db, bob))
    finally:
        assert daemon.stop() == 0, daemon.log_tail()
        db.dispose()


ROBOT_SIGNS = [
    ("auto-reply", {"Precedence": "auto-reply"}, "help"),
    ("auto-reply", {"X-Auto-Reply": "yes"}, "help"),
    ("auto-reply", {}, "[Auto-Reply] I am away"),
    ("auto-reply", {}, "Re: Out of office"),
    ("auto-reply", {}, "Vacation reply"),
    ("bounce", {}, "Undeliverable: [pbem #1] Ataxx"),
    ("bounce", {}, "Delivery Status Notification (Failure)"),
]


def test_the_new_robot_signs_get_no_reply_by_mail(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_imap=POLLING)
    daemon.start()
    db = make_engine(daemon.database)
    carol, dave = mailrig.address("carol"), mailrig.address("dave")
    try:
        for n, (kind, headers, subject) in enumerate(ROBOT_SIGNS):
            sender = (carol, dave)[n % 2]
            raw = compose(sender, "help\nThis is an automatic message.", subject=subject if subject != "help" else "",
                          to=mailrig.address("game"), **{k.replace("-", "_"): v for k, v in headers.items()})
            mailrig.submit(sender, raw)
            row = handled(db, raw, daemon)
            assert (row.status, row.note) == ("robot", kind), subject
        with Session(db) as session:
            assert len(session.exec(select(Bounce)).all()) == 2  # bounces are recorded, not answered
        assert _sent_to(db, carol) == [] and _sent_to(db, dave) == []
        # a person's mail afterwards is answered: the robots got nothing only because they are robots
        person = compose(carol, "help", to=mailrig.address("game"))
        mailrig.submit(carol, person)
        assert handled(db, person, daemon).status == "processed"
        assert len(mailrig.wait_for("carol", 1, timeout=30)) == 1
        assert mailrig.messages("dave") == []
    finally:
        assert daemon.stop() == 0, daemon.log_tail()
        db.dispose()
