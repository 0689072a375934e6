"""Conditional moves by real mail: Alice writes a line of three pairs while Bob is on move, and
each of Bob's three moves is answered at once; both players' mails say so, and the board at the
end is the engine's after the seven moves."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

import pbem_engine
from pbem.core.db import make_engine
from pbem.core.models import Conditional, Game, Move
from tests.integration.daemon import POLLING, DaemonProcess
from tests.mailer import compose, parse, reply_to, text

pytestmark = pytest.mark.integration

CHAIN = [("b1", "e1"), ("c1", "d1"), ("b2", "c2")]


def _newest(rig, user: str, count: int):
    return parse(rig.wait_for(user, count, timeout=30)[-1])


def _flat(mail) -> str:
    return " ".join(text(mail).split())


def test_a_chain_of_three_conditional_moves_by_real_mail(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_imap=POLLING)
    daemon.start()
    db = make_engine(daemon.database)
    alice, bob = mailrig.address("alice"), mailrig.address("bob")
    try:
        mailrig.submit(alice, compose(alice, f"challenge ataxx {bob} colour=x", to=mailrig.address("game")))
        mailrig.submit(alice, reply_to(alice, _newest(mailrig, "alice", 1), "confirm"))
        mailrig.submit(bob, reply_to(bob, _newest(mailrig, "bob", 1), "accept 1"))
        started = _newest(mailrig, "alice", 3)
        assert "your move" in started["Subject"]

        line = " ".join(f"if {x} then {y}" for x, y in CHAIN)
        mailrig.submit(alice, reply_to(alice, started, f"f2\n{line}"))
        kept = _flat(_newest(mailrig, "alice", 4))
        assert "You played f2 in game #1" in kept
        assert "I keep your conditional line in game #1" in kept
        assert "1. b1 -> e1, c1 -> d1, b2 -> c2" in kept

        bob_count, alice_count = 3, 4
        for n, (x, y) in enumerate(CHAIN):
            mailrig.submit(bob, reply_to(bob, _newest(mailrig, "bob", bob_count), x))
            bob_count, alice_count = bob_count + 1, alice_count + 1
            answered = _newest(mailrig, "bob", bob_count)  # his reply: his move, then hers, his board
            said = _flat(answered)
            assert f"You played {x}" in said
            assert f"alice played {y}" in said and "Your move, bob (o)." in said  # "and took 1 of your pieces"
            assert f"alice had written that answer to {x} in advance" in said
            told = _flat(_newest(mailrig, "alice", alice_count))
            assert f"bob played {x}, and your conditional line answered it at once." in told
            assert f"You played {y}" in told and "Now bob (o) is on move" in told
            left = len(CHAIN) - n - 1
            assert (f"The rest of your line ({left} more pair" in told) == bool(left)
        assert len(mailrig.messages("alice")) == alice_count  # no "your move" mail for her in between
    finally:
        assert daemon.stop() == 0, daemon.log_tail()

    rules = pbem_engine.create("ataxx")
    expected = rules.start()
    for move in ["f2", *(m for pair in CHAIN for m in pair)]:
        expected, _ = rules.play(expected, move)
    with Session(db) as session:
        game = session.get(Game, 1)
        assert [m.notation for m in session.exec(select(Move).order_by(Move.ply))] == ["f2", "b1", "e1", "c1",
                                                                                       "d1", "b2", "c2"]
        assert rules.load(game.state) == expected and (game.ply, game.turn) == (7, 1)
        assert session.exec(select(Conditional)).all() == []
    board = text(answered)
    for row in ("7 | x . . . . . o | 7", "2 | . x X . . x . | 2", "1 | o x x x x . x | 1"):
        assert row in board, board  # Bob's last board: nine x, c2 marked as the last move
    db.dispose()
