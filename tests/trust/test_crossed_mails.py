"""Mails that cross: the notice of the opponent's move can reach a player before our answer to
their own move, which they then take for the newest and answer. That reply can mean nothing but
the board as it stands, and is played on it; but not when the player has moved or written since
the mail it answers, nor before the newer board has gone to them, nor when it is a copy of a
mail that came before (a replay)."""

from __future__ import annotations

from sqlalchemy import update
from sqlmodel import Session, select

from pbem.core.models import Game, Move, Outbox
from tests.mailer import reply_to, text
from tests.players import ALICE, BOB, start_game


def _delivered(server) -> None:  # noqa: ANN001
    """Every queued mail went out (the in-process service has no sender loop)."""
    with Session(server.engine) as session:
        session.execute(update(Outbox).values(status="sent"))
        session.commit()


def _plies(server) -> list[str]:  # noqa: ANN001
    with Session(server.engine) as session:
        return [m.notation for m in session.exec(select(Move).where(Move.game_id == 1).order_by(Move.ply))]


def _crossed(server):  # noqa: ANN001, ANN202
    """Alice plays f2; Bob answers b1. Our answer to Alice's f2 (the older board) is returned:
    the mail she takes for the newest when the two arrive the other way round."""
    start_game(server)
    server.answer(ALICE, 1, "f2")
    older = server.about(ALICE, 1)
    assert "You played f2" in text(older)
    server.answer(BOB, 1, "b1")
    assert "bob played b1" in text(server.about(ALICE, 1))
    return older


def test_a_reply_to_the_older_of_two_crossed_mails_plays_on_the_board_as_it_stands(any_server) -> None:
    server = any_server  # the check is one statement of subqueries: on both stores
    older = _crossed(server)
    _delivered(server)
    assert server.send(reply_to(ALICE, older, "e1")) == "processed"
    assert _plies(server) == ["f2", "b1", "e1"]
    answer = server.last(ALICE)
    assert answer["Subject"].startswith("[pbem #1]") and "You played e1" in text(answer)
    assert "older board" not in text(answer)
    assert "alice played e1" in text(server.about(BOB, 1))


def test_not_before_the_newer_board_has_gone_to_the_player(server) -> None:
    older = _crossed(server)  # Bob's move is still in the outbox: Alice cannot have seen it
    server.send(reply_to(ALICE, older, "e1"))
    assert _plies(server) == ["f2", "b1"]
    assert "older board" in " ".join(text(server.last(ALICE)).split())


def test_not_when_the_player_moved_since_the_mail_it_answers(server) -> None:
    older = _crossed(server)
    _delivered(server)
    server.answer(ALICE, 1, "e1")  # she answered the newer mail first
    server.answer(BOB, 1, "b2")
    _delivered(server)
    server.send(reply_to(ALICE, older, "e2"))  # then the older one, with a move meant for who knows which board
    assert _plies(server) == ["f2", "b1", "e1", "b2"]
    assert "older board" in " ".join(text(server.last(ALICE)).split())


def test_not_when_the_player_wrote_since_about_anything(server) -> None:
    older = _crossed(server)
    _delivered(server)
    server.say(ALICE, "games")  # a proven mail of hers after the older board: she had the newer one
    _delivered(server)
    server.send(reply_to(ALICE, older, "e1"))
    assert _plies(server) == ["f2", "b1"]


def test_a_copy_of_a_refused_reply_sent_again_later_changes_nothing(server) -> None:
    start_game(server)
    server.answer(ALICE, 1, "f2")
    older = server.about(ALICE, 1)
    early = reply_to(ALICE, older, "e1")
    server.send(early)  # too early: it is Bob's move
    assert _plies(server) == ["f2"]
    server.answer(BOB, 1, "b1")
    _delivered(server)
    replayed = early.replace(b"@client.test>", b"x@client.test>", 1)  # another Message-ID, the same mail
    server.send(replayed)
    assert _plies(server) == ["f2", "b1"]
    with Session(server.engine) as session:
        assert session.get(Game, 1).ply == 2
