"""One mail with moves for three games, by real mail: Dovecot IMAP, SMTP and the daemon.

Alice plays three games (made in the database: the challenges are another test's job). She
asks for her games, answers that list with a line for each game (`#ID MOVE`), and gets one
reply that speaks of all three; each opponent gets the mail with her move in their game.
"""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

import pbem_engine
from pbem.core.db import make_engine, migrate, transaction
from pbem.core.models import Challenge, Game, Outbox
from pbem.core.wallclock import now
from pbem.games import players
from pbem.games import store as G
from tests.integration.daemon import POLLING, DaemonProcess
from tests.integration.waits import wait_until
from tests.mailer import compose, parse, reply_to, text

pytestmark = pytest.mark.integration

OPPONENTS = (("bob", "ataxx"), ("carol", "capturego"), ("dave", "infection"))


def _prepare(db, rig) -> dict[int, str]:
    """Alice moves first in a game against each opponent; returns each game's first move."""
    moves = {}
    with transaction(db) as session:
        alice = players.get_or_register(session, rig.address("alice"), now())
        for user, kind in OPPONENTS:
            opponent = players.get_or_register(session, rig.address(user), now())
            challenge = Challenge(kind=kind, options={}, challenger_id=alice.id, opponent_id=opponent.id,
                                  colour="first", created_at=now())
            session.add(challenge)
            session.flush()
            game = G.start(session, challenge, opponent, alice, now())
            rules = pbem_engine.create(kind, {})
            moves[game.id] = rules.examples(rules.start())[0]
    return moves


def _sent(db) -> bool:
    with Session(db) as session:
        return not session.exec(select(Outbox).where(Outbox.status != "sent")).first()


def test_three_moves_in_one_mail_get_one_reply_and_reach_each_opponent(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_imap=POLLING)
    db = make_engine(daemon.database)
    migrate(db)
    moves = _prepare(db, mailrig)
    alice = mailrig.address("alice")
    daemon.start()
    try:
        mailrig.submit(alice, compose(alice, "games", subject="my games", to=mailrig.address("game")))
        listing = parse(mailrig.wait_for("alice", 1, timeout=30)[-1])
        assert "Your games" in listing["Subject"] and "YOUR MOVE" in text(listing)
        body = "\n".join(f"#{gid} {move}" for gid, move in moves.items())
        mailrig.submit(alice, reply_to(alice, listing, f"{body}\n\nGood luck to all of you!"))
        answers = {user: parse(mailrig.wait_for(user, 1, timeout=30)[-1]) for user, _ in OPPONENTS}
        reply = parse(mailrig.wait_for("alice", 2, timeout=30)[-1])
        wait_until(lambda: _sent(db), 30, lambda: f"the outbox is not empty\n{daemon.log_tail()}")
    finally:
        assert daemon.stop() == 0, daemon.log_tail()

    assert len(mailrig.messages("alice")) == 2  # the list, then one reply for the three moves
    assert reply["Subject"].startswith("[pbem] Games #1, #2, #3:")
    flat = " ".join(text(reply).split())
    for gid, move in moves.items():
        assert f"You played {move} in game #{gid}" in flat
    assert "Game #2: capture go" in flat and "| Good luck to all of you!" in flat
    for gid, (user, _) in enumerate(OPPONENTS, start=1):
        mail = answers[user]
        assert f"[pbem #{gid}]" in mail["Subject"] and "your move" in mail["Subject"]
        assert f"alice played {moves[gid]}" in " ".join(text(mail).split())
        assert len(mailrig.messages(user)) == 1
    with Session(db) as session:
        assert [session.get(Game, gid).ply for gid in moves] == [1, 1, 1]
    db.dispose()
