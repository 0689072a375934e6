"""A whole game through the service: challenge, accept, moves by reply, the result."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem import games as G
from pbem.models import Game, InboundMessage, Move
from tests.service.mailer import compose, reply_to

ALICE, BOB = "alice@example.org", "bob@example.org"


def test_challenge_accept_and_play_by_reply(server) -> None:
    assert server.send(compose(f"Alice <{ALICE}>", "challenge ataxx bob@example.org colour=x")) == "processed"
    invite = server.last(BOB)
    assert "accept 1" in invite.get_content()
    assert server.send(reply_to(BOB, invite, "accept 1")) == "processed"
    started = server.last(ALICE)
    assert "your move" in started["Subject"]
    body = started.get_content()
    assert body.startswith("##- Please write your reply above this line -##")
    assert "You move first." in body
    # Alice replies to the thread with a bare move; the quoted board below must not be read.
    server.send(reply_to(ALICE, started, "f2"))
    to_bob = server.last(BOB)
    assert "Alice played f2" in to_bob.get_content()
    assert to_bob["Subject"] == "[pbem #1] Ataxx: your move, bob (move 2)"
    server.send(reply_to(BOB, to_bob, "a1-c3"))
    with Session(server.engine) as session:
        game = session.get(Game, 1)
        assert [m.notation for m in G.moves(session, game)] == ["f2", "a1-c3"]
        assert G.rules_of(game).load(game.state) == G.replay(game, ["f2", "a1-c3"])
        assert game.turn == 0 and game.ply == 2


def test_an_illegal_move_changes_nothing_and_says_why(server) -> None:
    server.send(compose(ALICE, "challenge ataxx bob@example.org colour=x"))
    server.send(compose(BOB, "accept 1"))
    started = server.last(ALICE)
    server.send(reply_to(ALICE, started, "g1-g4"))
    error = server.last(ALICE)
    text = error.get_content()
    assert 'I could not do "g1-g4" in game #1' in text
    assert "Nothing has changed; it is still your move" in text
    with Session(server.engine) as session:
        assert session.exec(select(Move)).all() == []


def test_the_same_message_twice_is_applied_once(server) -> None:
    server.send(compose(ALICE, "challenge ataxx bob@example.org colour=x"))
    server.send(compose(BOB, "accept 1"))
    move = reply_to(ALICE, server.last(ALICE), "f2")
    assert server.send(move) == "processed"
    sent = server.count()
    assert server.send(move) == "duplicate"
    assert server.count() == sent
    with Session(server.engine) as session:
        assert len(session.exec(select(Move)).all()) == 1
        assert len(session.exec(select(InboundMessage)).all()) == 3


def test_robots_get_no_reply(server) -> None:
    raw = compose("MAILER-DAEMON@mx.example.org", "challenge ataxx", subject="Undelivered Mail")
    assert server.send(raw) == "robot"
    vacation = compose(ALICE, "I am away", subject="Out of office", Auto_Submitted="auto-replied")
    assert server.send(vacation) == "robot"
    assert server.count() == 0


def test_resign_ends_the_game_for_both(server) -> None:
    server.send(compose(ALICE, "challenge capturego bob@example.org size=9 colour=black"))
    server.send(compose(BOB, "accept 1"))
    server.send(compose(BOB, "resign"))
    assert "game over, 1-0" in server.last(ALICE)["Subject"]
    assert "bob resigned" in server.last(BOB).get_content()
