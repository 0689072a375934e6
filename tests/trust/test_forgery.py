"""Issue 11, as an attacker tries it: a stranger who knows a player's address can change nothing
about that player and can make the server send nothing but one bounded, polite notice a day.

Each finding is reproduced through the real service path (raw mails in, rows and mails out)."""

from __future__ import annotations

import email.policy
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, func, select

from pbem.core.models import (
    Bounce,
    Challenge,
    Game,
    HeldMail,
    InboundMessage,
    Move,
    Outbox,
    Player,
    Vacation,
    Watcher,
)
from tests.mailer import GAME, compose, replayed, reply_to, text

ALICE, BOB, CAROL, EVE = "alice@example.org", "bob@example.org", "carol@example.org", "eve@example.org"


def _game(server) -> None:
    """Alice (proven) plays Bob (proven); Carol has an address with us too."""
    server.say(ALICE, f"challenge ataxx {BOB} colour=x")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))
    server.say(CAROL, "help")


def _snapshot(server) -> dict:
    """Everything a forged mail must leave as it was."""
    with Session(server.engine) as session:
        alice = session.exec(select(Player).where(Player.address == ALICE)).one()
        return {
            "alice": (alice.name, alice.timezone, alice.version),
            "vacations": session.exec(select(func.count(Vacation.id))).one(),
            "challenges": sorted((c.id, c.status) for c in session.exec(select(Challenge))),
            "watchers": session.exec(select(func.count(Watcher.id))).one(),
            "games": sorted((g.id, g.version, g.status) for g in session.exec(select(Game))),
        }


def _mails_to(server, address: str) -> int:
    return len(server.mails(address))


FORGED = [
    "name Mallory", "vacation 20", "back", "timezone Asia/Tokyo", "withdraw 1", "decline 1",
    f"challenge capturego {CAROL}", "watch 1", "move 1 f2", "resign", "draw",
]


@pytest.mark.parametrize("line", FORGED)
def test_a_forged_from_changes_nothing_and_draws_at_most_one_notice(server, line) -> None:
    _game(server)
    before, alice_mails, carol_mails = _snapshot(server), _mails_to(server, ALICE), _mails_to(server, CAROL)
    for _ in range(3):  # the forger insists
        server.send(compose(f"Mallory <{ALICE}>", line, Return_Path=f"<{EVE}>"))
    assert _snapshot(server) == before
    limit = server.service.settings.max_unproven_replies_per_day
    assert _mails_to(server, ALICE) - alice_mails <= limit - 1  # today's notices (her challenge had one)
    assert _mails_to(server, CAROL) == carol_mails  # a forged challenge mails no one else
    assert server.mails(EVE) == []


def test_the_held_notice_says_what_was_asked_and_a_reply_does_it(server) -> None:
    server.send(compose("Dora Q <dora@example.org>", "timezone Europe/Rome"))
    notice = server.last("dora@example.org")
    assert "Did you write to me?" in notice["Subject"]
    assert "| timezone Europe/Rome" in text(notice) and "reply to this mail" in text(notice)
    server.send(reply_to("dora@example.org", notice, "thanks, that was me"))  # any reply confirms
    with Session(server.engine) as session:
        dora = session.exec(select(Player).where(Player.address == "dora@example.org")).one()
        assert (dora.timezone, dora.name) == ("Europe/Rome", "Dora Q")
        assert session.exec(select(HeldMail.status)).all() == ["confirmed"]


def test_a_forged_display_name_renames_no_one(server) -> None:
    server.send(compose(ALICE, "help"))  # registered, still with the default name
    server.send(compose(f"Evil Twin <{ALICE}>", "rules ataxx"))
    with Session(server.engine) as session:
        assert session.exec(select(Player.name).where(Player.address == ALICE)).one() == "alice"


def test_a_replayed_draw_offer_does_not_accept_the_opponents_later_offer(server) -> None:
    _game(server)
    offer = reply_to(ALICE, server.last(ALICE), "draw")  # genuine, captured on the way (a cc, a relay)
    server.send(offer)
    server.send(reply_to(BOB, server.last(BOB), "nodraw"))
    server.send(reply_to(BOB, server.last(BOB), "draw"))  # now Bob offers
    server.send(replayed(offer))  # the replay would accept it and end the game
    with Session(server.engine) as session:
        game = session.get(Game, 1)
        assert game.status == "active" and game.draw_offer == 1


def test_a_replayed_vacation_does_not_undo_a_later_back(server) -> None:
    _game(server)
    away = reply_to(BOB, server.last(BOB), "vacation 3")
    server.send(away)
    server.send(reply_to(BOB, server.last(BOB), "back"))
    server.send(replayed(away))
    with Session(server.engine) as session:
        assert len(session.exec(select(Vacation)).all()) == 1  # the first one, ended by back
    assert "I have already done what this mail asks" in " ".join(text(server.last(BOB)).split())


def test_thirty_forged_helps_give_the_victim_three_mails(server) -> None:
    for _ in range(30):
        server.send(compose(CAROL, "help", Return_Path=f"<{EVE}>"))
    assert _mails_to(server, CAROL) == server.service.settings.max_unproven_replies_per_day == 3


def test_an_auto_responder_is_not_read_as_commands_and_its_loop_ends(server) -> None:
    """A responder without robot headers answers every mail of ours, its signature holding
    "Open Monday to Friday, 9:00-17:00": that is prose, and the thread's budget ends the loop."""
    server.send(compose(CAROL, "help"))
    signature = "Thanks for your mail.\nOpen Monday to Friday, 9:00-17:00\nBack on Monday"
    for _ in range(120):
        mails = server.mails(CAROL)
        server.send(reply_to(CAROL, mails[-1], signature))
    mails = server.mails(CAROL)
    assert len(mails) <= server.service.settings.max_replies_per_thread + 1
    assert not any("Open challenges" in m["Subject"] for m in mails)
    assert "this is the last answer I send you until midnight" in " ".join(text(mails[-1]).split())


@pytest.mark.parametrize(
    "headers",
    [
        {"Precedence": "auto_reply"},
        {"X-Autogenerated": "Reply"},
        {"X-Loop": "someone@example.org"},
        {"X-MS-Exchange-Inbox-Rules-Loop": ALICE},
        {"Feedback-ID": "1:2:3:esp"},
        {"subject": "Out of office until Monday"},
    ],
)
def test_robots_get_no_reply(server, headers) -> None:
    headers = dict(headers)
    subject = headers.pop("subject", "hello")
    assert server.send(compose(ALICE, "help\nopen", subject=subject, **headers)) == "robot"
    assert server.send(compose("noreply@shop.example", "help")) == "robot"
    assert server.count() == 0


def test_a_read_receipt_is_neither_answered_nor_a_bounce(server) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = ALICE, GAME, "Read: [pbem #1] Ataxx: your move"
    msg["Message-ID"] = make_msgid(domain="client.test")
    msg.set_content("Your message was read.")
    report = EmailMessage()
    report.set_content("Reporting-UA: client.test\nFinal-Recipient: rfc822; alice@example.org\nDisposition: "
                       "manual-action/MDN-sent-manually; displayed\n")
    msg.make_mixed()
    msg.attach(report)
    raw = msg.as_bytes(policy=email.policy.SMTP).replace(
        b"multipart/mixed", b"multipart/report; report-type=disposition-notification", 1
    )
    assert server.send(raw) == "robot"
    with Session(server.engine) as session:
        assert session.exec(select(Bounce)).all() == []
    assert server.count() == 0


def test_an_integrity_error_that_is_not_the_messages_own_is_a_fault_not_a_duplicate(server) -> None:
    _game(server)
    with Session(server.engine) as session:  # a row in the way of the next move (as a racing admin left one)
        game = session.get(Game, 1)
        session.add(Move(game_id=1, ply=game.ply + 1, side=0, player_id=game.player0_id, notation="a7-c5",
                         raw="a7-c5", created_at=game.created_at))
        session.commit()
    move = reply_to(ALICE, server.last(ALICE), "f2")
    with pytest.raises(IntegrityError):
        server.service.handle(move)
    with Session(server.engine) as session:  # not recorded as done: the daemon retries, then quarantines
        recorded = session.exec(select(InboundMessage).where(InboundMessage.subject.contains("your move"))).all()
        assert all(r.status != "duplicate" for r in recorded) and len(recorded) == 0


def test_an_international_address_is_answered(server) -> None:
    assert server.send(compose("Jörg <jörg@example.org>", "help")) == "processed"
    (answer,) = server.mails("jörg@example.org")
    assert "How to play" in answer["Subject"]


def test_a_subject_full_of_guesses_proves_nothing_and_wrong_tokens_are_counted(server) -> None:
    _game(server)
    guesses = " ".join(f"[k:0.1.{n:016x}]" for n in range(5000))
    server.send(compose(ALICE, "move 1 f2", subject=f"Re: [pbem #1] Ataxx {guesses}"))
    with Session(server.engine) as session:
        assert session.exec(select(Move)).all() == []
        proof = session.exec(select(InboundMessage.proof).order_by(InboundMessage.id.desc())).first()
        assert proof == "wrong"
    for _ in range(25):  # a day's wrong tokens run out: then not even the right one is checked
        server.send(compose(ALICE, "move 1 f2", subject="Re: [pbem #1] Ataxx [k:0.1.0123456789abcdef]"))
    good = server.last(ALICE)
    server.send(compose(ALICE, "f2", subject=f"Re: {good['Subject']}"))
    with Session(server.engine) as session:
        assert session.exec(select(Move)).all() == []


def test_a_strangers_record_request_discloses_no_address(server) -> None:
    _game(server)
    server.send(compose(EVE, "record 1"))
    record = server.last(EVE)
    (attachment,) = record.iter_attachments()
    content = attachment.get_content()
    content = content if isinstance(content, str) else content.decode()
    assert "alice" in content and "@" not in content
    server.send(reply_to(ALICE, server.last(ALICE), "record 1"))
    (own,) = server.last(ALICE).iter_attachments()
    own_content = own.get_content()
    assert ALICE in (own_content if isinstance(own_content, str) else own_content.decode())


def test_a_mail_that_is_not_text_gets_one_short_error_quoting_nothing(server) -> None:
    garbage = bytes(range(256)) * 40
    raw = (b"From: eve@example.org\r\nTo: " + GAME.encode() + b"\r\nSubject: \x1b[31m\x07boom\r\n"
           b"Message-ID: <garbage@x>\r\nContent-Type: application/octet-stream\r\n\r\n" + garbage)
    raw2 = raw.replace(b"application/octet-stream", b"text/plain; charset=utf-8")
    server.send(raw2)
    (answer,) = server.mails(EVE)
    body = text(answer)
    assert "did not reach me as text" in body
    assert len(body.encode()) < 1500 and "\x1b" not in body and "\x07" not in answer["Subject"]
    html = answer.get_body(("html",)).get_content()  # the HTML part beside it says the same, briefly
    assert len(answer.as_bytes()) < 6000 and "\x1b" not in html and "boom" not in html
    assert "I could not do" not in body
    with Session(server.engine) as session:
        assert session.exec(select(func.count(Outbox.id))).one() == 1
