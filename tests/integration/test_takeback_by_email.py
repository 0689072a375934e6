"""Take-backs by real mail: the daemon on the real Dovecot and SMTP servers. Alice plays a move
and asks to take it back, Bob refuses; she asks again and Bob accepts: the mails each of them
receives, the board after (the engine's start position, in the mail and in the records) and
the audit row of the undone move."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, select

from pbem.core.db import make_engine
from pbem.core.models import AdminAction, Game, Move
from pbem.games import store as G
from tests.integration.daemon import DaemonProcess
from tests.mailer import compose, parse, reply_to, text

pytestmark = pytest.mark.integration


def _newest(rig, user: str, count: int):
    """The newest mail of `user` once they have `count` (the daemon's answer arrived)."""
    return parse(rig.wait_for(user, count, timeout=30)[-1])


def _subjects(rig, user: str) -> list[str]:
    """Each mail's subject without its reply token (`[k:...]`), which changes with every mail."""
    return [re.sub(r"\s*\[k:[^\]]*\]", "", parse(raw)["Subject"]) for raw in rig.messages(user)]


def _flat(mail) -> str:
    return " ".join(text(mail).split())


def test_ask_refuse_ask_again_accept_by_real_mail(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem")
    daemon.start()
    db = make_engine(daemon.database)
    alice, bob = mailrig.address("alice"), mailrig.address("bob")
    try:
        mailrig.submit(alice, compose(alice, f"challenge ataxx {bob} colour=x", to=mailrig.address("game")))
        mailrig.submit(alice, reply_to(alice, _newest(mailrig, "alice", 1), "confirm"))
        mailrig.submit(bob, reply_to(bob, _newest(mailrig, "bob", 1), "accept 1"))
        mailrig.submit(alice, reply_to(alice, _newest(mailrig, "alice", 3), "f2"))
        your_move = _newest(mailrig, "bob", 3)
        assert "your move" in your_move["Subject"]

        # Alice asks; Bob is asked, with how to answer, and refuses: both hear of it.
        mailrig.submit(alice, reply_to(alice, _newest(mailrig, "alice", 4), "takeback"))
        asked = _newest(mailrig, "bob", 4)
        assert "alice asks to take back their last move, f2, in game #1." in _flat(asked)
        assert 'reply with "takeback accept"; to say no, reply with "takeback refuse"' in _flat(asked)
        assert "You asked bob to take back your last move, f2, in game #1." in _flat(_newest(mailrig, "alice", 5))
        mailrig.submit(bob, reply_to(bob, asked, "takeback refuse"))
        refused = _newest(mailrig, "alice", 6)
        assert "bob refused to let you take back f2 in game #1; the game goes on." in _flat(refused)
        assert "You refused to let alice take back f2 in game #1." in _flat(_newest(mailrig, "bob", 5))

        # She asks again; this time Bob accepts: the move is gone and she is on move again.
        mailrig.submit(alice, reply_to(alice, refused, "takeback"))
        mailrig.submit(bob, reply_to(bob, _newest(mailrig, "bob", 6), "takeback accept"))
        accepted = _newest(mailrig, "alice", 8)
        assert "bob let you take back f2 in game #1. It is your move again, alice (x), at move 1." in _flat(accepted)
        assert "You let alice take back f2 in game #1." in _flat(_newest(mailrig, "bob", 7))
    finally:
        assert daemon.stop() == 0, daemon.log_tail()

    game_mails = [
        "[pbem #1] Ataxx: alice asks to take back a move",
        "[pbem #1] Ataxx: take-back refused",
        "[pbem #1] Ataxx: alice asks to take back a move",
        "[pbem #1] Ataxx: f2 taken back",
    ]
    assert _subjects(mailrig, "bob")[3:] == game_mails
    assert _subjects(mailrig, "alice")[4:] == [
        "[pbem #1] you asked to take back your move",
        "[pbem #1] Ataxx: take-back refused",
        "[pbem #1] you asked to take back your move",
        "[pbem #1] Ataxx: f2 taken back",
    ]
    with Session(db) as session:
        game = session.get(Game, 1)
        rules = G.rules_of(game)
        assert (game.ply, game.turn, game.takeback_offer) == (0, 0, None)
        assert rules.load(game.state) == rules.start()
        assert session.exec(select(Move)).all() == []
        entry = session.exec(select(AdminAction)).one()
        assert (entry.actor, entry.action, entry.detail, entry.reason, entry.game_id) == (
            f"player {alice}", "takeback", "took back f2 (move 1)", f"accepted by {bob}", 1,
        )
    board = rules.render(rules.start(), names=("alice", "bob"))
    assert board in text(accepted).replace("\r\n", "\n"), "the board in alice's mail is not the engine's start position"
    db.dispose()
