"""A fifth game costs one engine module and one registry line: Three in a Row, which lives in
the test suite only, is registered and played to the end by mail; help and rules know it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlmodel import Session

import pbem_engine
from pbem.core.models import Game
from pbem.games import store as G
from pbem_engine import registry
from tests.games.threes import Threes
from tests.mailer import reply_to, text

ALICE, BOB = "alice@example.org", "bob@example.org"


@pytest.fixture
def fifth_game(monkeypatch) -> Iterator[None]:
    monkeypatch.setattr(registry, "_GAMES", dict(registry._GAMES))
    monkeypatch.setattr(registry, "_NAMES", dict(registry._NAMES))
    pbem_engine.register(Threes)  # the one line a new game adds
    yield


def test_a_game_registered_in_one_line_is_played_to_the_end_by_mail(server, fifth_game) -> None:
    server.say(ALICE, "help")
    assert "threes" in text(server.last(ALICE))
    server.say(ALICE, "help all")  # the short help names the games; the whole list gives their titles
    assert "threes" in text(server.last(ALICE)) and "Three in a Row" in text(server.last(ALICE))
    server.say(ALICE, "rules threes")
    rules = text(server.last(ALICE))
    assert "Whoever first has three pieces in a row" in rules and "For example:  a1" in rules
    server.say(ALICE, "challenge threes bob@example.org colour=x")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))
    for player, move in [(ALICE, "b2"), (BOB, "a1"), (ALICE, "a3"), (BOB, "b1"), (ALICE, "c1")]:
        server.send(reply_to(player, server.last(player), move))
    with Session(server.engine) as session:
        game = session.get(Game, 1)
        assert game.status == "finished" and game.result == "1-0"
        assert [m.notation for m in G.moves(session, game)] == ["b2", "a1", "a3", "b1", "c1"]
    over = server.last(BOB)
    assert "game over, 1-0" in over["Subject"]
    assert "x has three in a row" in text(over)
    assert "|" in text(over) and "a b c" in text(over)


def test_a_bare_line_the_notation_does_not_know_is_chatter_not_an_error(server, fifth_game) -> None:
    server.say(ALICE, "challenge threes bob@example.org colour=x")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))
    server.send(reply_to(ALICE, server.last(ALICE), "b2\n2nd thoughts on this"))
    answer = text(server.last(ALICE))
    assert "You played b2" in answer
    assert "I could not do" not in answer
    assert "| 2nd thoughts on this" in answer  # listed with the lines that were not commands
