"""A bot's name is the bots' alone, and a Korean mail calls a bot a bot (`봇`), never `님`, the
honorific of a person: through the service and the bot runner, as a player reads them."""

from __future__ import annotations

from sqlmodel import Session

from pbem.games import players
from pbem.runners import bots as botrunner
from tests.mailer import reply_to
from tests.players import ALICE, flat


def test_a_korean_player_reads_the_bots_move_as_a_bots(server) -> None:
    server.say(ALICE, "language ko")
    server.confirm(ALICE)
    server.say(ALICE, "challenge ataxx bot level=2 colour=first")  # proven: the bot accepts at once
    assert "bot-ataxx-2 봇 " in str(server.last(ALICE)["Subject"])
    server.send(reply_to(ALICE, server.last(ALICE), "f2"))
    before = len(server.mails(ALICE))
    assert botrunner.round_(server.engine, server.service.settings, server.service.templates) == 1
    (moved,) = server.mails(ALICE)[before:]
    body = flat(moved)
    assert "bot-ataxx-2 봇이 " in body and "수를 뒀어요" in body
    assert "bot-ataxx-2님" not in body


def test_a_person_may_not_take_a_bots_name(server) -> None:
    server.say(ALICE, "name Alice")
    server.confirm(ALICE)
    server.say(ALICE, "name bot-ataxx-3")
    assert "reads like the name of one of my bots" in flat(server.last(ALICE))
    with Session(server.engine) as session:
        assert players.find(session, ALICE).name == "Alice"  # unchanged
