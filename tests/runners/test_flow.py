"""A whole game through the service: challenge, accept, moves by reply, the result.

Run on SQLite and on PostgreSQL (`any_server`): the same migrations and records on both."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem.core.models import Challenge, Game, InboundMessage, Move
from pbem.games import store as G
from tests.mailer import compose, reply_to, text

ALICE, BOB = "alice@example.org", "bob@example.org"


def _challenge(server) -> int:
    """The newest challenge's number (PostgreSQL's sequences do not reuse the number that an
    unproven mail's trial run took, so it is not always 1 there)."""
    with Session(server.engine) as session:
        return max(session.exec(select(Challenge.id)).all())


def test_challenge_accept_and_play_by_reply(any_server) -> None:
    assert any_server.send(compose(f"Alice <{ALICE}>", "challenge ataxx bob@example.org colour=x")) == "processed"
    assert any_server.last(ALICE)["Subject"].startswith("[pbem] Did you write to me?")  # held: no proof yet
    assert any_server.confirm(ALICE) == "processed"
    invite = any_server.last(BOB)
    assert f"accept {_challenge(any_server)}" in text(invite)
    assert any_server.send(reply_to(BOB, invite, f"accept {_challenge(any_server)}")) == "processed"
    started = any_server.last(ALICE)
    assert "your move" in started["Subject"]
    body = text(started)
    assert body.startswith("##- Please write your reply above this line -##")
    assert "You move first." in body
    # Alice replies to the thread with a bare move; the quoted board below must not be read.
    any_server.send(reply_to(ALICE, started, "f2"))
    to_bob = any_server.last(BOB)
    assert "Alice played f2" in text(to_bob)
    assert to_bob["Subject"].startswith("[pbem #1] Ataxx: your move, bob (move 2)")
    any_server.send(reply_to(BOB, to_bob, "a1-c3"))
    with Session(any_server.engine) as session:
        game = session.get(Game, 1)
        assert [m.notation for m in G.moves(session, game)] == ["f2", "a1-c3"]
        assert G.rules_of(game).load(game.state) == G.replay(game, ["f2", "a1-c3"])
        assert game.turn == 0 and game.ply == 2


def test_an_illegal_move_changes_nothing_and_says_why(any_server) -> None:
    any_server.say(ALICE, "challenge ataxx bob@example.org colour=x")
    any_server.confirm(ALICE)
    any_server.send(reply_to(BOB, any_server.last(BOB), f"accept {_challenge(any_server)}"))
    started = any_server.last(ALICE)
    any_server.send(reply_to(ALICE, started, "g1-g4"))
    error = any_server.last(ALICE)
    body = text(error)
    assert 'I could not do "g1-g4" in game #1' in body
    assert "Nothing has changed; it is still your move" in body
    with Session(any_server.engine) as session:
        assert session.exec(select(Move)).all() == []


def test_the_same_message_twice_is_applied_once(any_server) -> None:
    any_server.say(ALICE, "challenge ataxx bob@example.org colour=x")
    any_server.confirm(ALICE)
    any_server.send(reply_to(BOB, any_server.last(BOB), f"accept {_challenge(any_server)}"))
    move = reply_to(ALICE, any_server.last(ALICE), "f2")
    assert any_server.send(move) == "processed"
    sent = any_server.count()
    assert any_server.send(move) == "duplicate"
    assert any_server.count() == sent
    with Session(any_server.engine) as session:
        assert len(session.exec(select(Move)).all()) == 1
        assert len(session.exec(select(InboundMessage)).all()) == 4  # the challenge, its confirmation, accept, f2


def test_robots_get_no_reply(any_server) -> None:
    raw = compose("MAILER-DAEMON@mx.example.org", "challenge ataxx", subject="Undelivered Mail")
    assert any_server.send(raw) == "robot"
    vacation = compose(ALICE, "I am away", subject="Out of office", Auto_Submitted="auto-replied")
    assert any_server.send(vacation) == "robot"
    assert any_server.count() == 0


def test_resign_ends_the_game_for_both(any_server) -> None:
    any_server.say(ALICE, "challenge capturego bob@example.org size=9 colour=black")
    any_server.confirm(ALICE)
    any_server.send(reply_to(BOB, any_server.last(BOB), f"accept {_challenge(any_server)}"))
    any_server.send(reply_to(BOB, any_server.last(BOB), "resign"))
    assert "game over, 1-0" in any_server.last(ALICE)["Subject"]
    assert "bob resigned" in text(any_server.last(BOB))
