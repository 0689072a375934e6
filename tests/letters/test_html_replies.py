"""Replies to our real move mail with an HTML part, through the service: the move alone is played.

The HTML part is the one we sent, or while we send none, the test helper's rendering of the same
mail. Seven clients quote it their way (tests/mail/message/html_replies.py), HTML only or with their own
text part; the answer plays the player's move, lists no quoted line as "not commands" and quotes
no token.
"""

from __future__ import annotations

from dataclasses import replace
from email.utils import parseaddr

import pytest
from sqlmodel import Session

from pbem.core.models import Game
from pbem.games import store as G
from tests.mail.message.html_replies import CASES, OurMail, reply
from tests.mailer import compose, text

ALICE, BOB = "alice@example.org", "bob@example.org"


def _started(server) -> OurMail:
    """A game of Ataxx where Alice moves first; our mail telling her so, with an HTML part beside it."""
    server.send(compose(f"Alice <{ALICE}>", "challenge ataxx bob@example.org colour=x"))
    server.confirm(ALICE)
    server.say(BOB, "accept 1")
    started = server.last(ALICE)
    assert "your move" in started["Subject"]
    html = started.get_body(preferencelist=("html",))
    return replace(
        OurMail(),
        subject=started["Subject"],
        reply_to=parseaddr(started["Reply-To"])[1],
        message_id=started["Message-ID"],
        text_part=text(started),
        html_part=html.get_content() if html is not None else None,  # ours once we send one; else the helper's
    )


def _moves(server) -> list[str]:
    with Session(server.engine) as session:
        return [m.notation for m in G.moves(session, session.get(Game, 1))]


def _token(mail: OurMail) -> str:
    return mail.reply_to.partition("@")[0].partition("+")[2]


@pytest.mark.parametrize("client, form", CASES)
def test_the_move_on_top_is_played_and_nothing_quoted_is_read(server, client, form):
    mail = _started(server)
    before = len(server.mails(ALICE))
    assert server.send(reply(client, form, "f2", mail, sender=f"Alice <{ALICE}>")) == "processed"
    assert _moves(server) == ["f2"]
    assert "Alice played f2" in text(server.last(BOB))
    answers = [text(m) for m in server.mails(ALICE)[before:]]
    assert answers, "Alice got no answer"
    for answer in answers:
        assert "not commands" not in answer
        assert "could not" not in answer
        assert _token(mail) not in answer


@pytest.mark.parametrize("client, form", CASES)
def test_a_reply_of_only_the_quote_plays_nothing(server, client, form):
    mail = _started(server)
    before = len(server.mails(ALICE))
    server.send(reply(client, form, "", mail, sender=f"Alice <{ALICE}>"))
    assert _moves(server) == []
    answers = [text(m) for m in server.mails(ALICE)[before:]]
    for answer in answers:
        assert "not commands" not in answer
        assert "could not" not in answer
        assert _token(mail) not in answer
    assert answers == [] or all("found no command" in answer for answer in answers)
