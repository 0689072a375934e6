"""Every mail that invites a reply accepts that reply, by real mail (issue 26, item 3).

- A held mail, confirmed: the answer comes under the tag of the game it moved in, and names
  that game in its Reply-To, so a reply to it acts there.
- Our answer about several games says "reply with a line that names the game" and a bare move
  in a reply to it is played in the one game of the mail that waits for the player's move.
- Mails that cross: the player answers our older mail (their own move's answer) after the
  opponent's newer one came, and the move is played on the board as it stands.
"""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from pbem.core.db import make_engine
from pbem.core.models import Move
from tests.integration.daemon import POLLING, DaemonProcess
from tests.integration.inboxes import Inboxes
from tests.integration.waits import wait_until
from tests.mailer import compose, text

pytestmark = pytest.mark.integration


def _flat(mail) -> str:  # noqa: ANN001
    return " ".join(text(mail).split())


def _moves(db, game: int) -> list[str]:  # noqa: ANN001
    with Session(db) as session:
        return [m.notation for m in session.exec(select(Move).where(Move.game_id == game).order_by(Move.ply))]


def test_replies_to_a_confirmation_to_several_games_and_to_crossed_mails(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_imap=POLLING)
    daemon.start()
    db = make_engine(daemon.database)
    box = Inboxes(mailrig, ("alice", "bob", "carol"))
    alice, bob, carol = (mailrig.address(u) for u in ("alice", "bob", "carol"))
    try:
        box.send("alice", f"challenge ataxx {bob} colour=x", subject="a game")
        box.send("alice", "confirm", box.next("alice", "Reply to confirm"))
        box.send("bob", "accept 1", box.next("bob", "challenges you"))
        started = box.next("alice", "[pbem #1]")
        box.send("alice", f"challenge ataxx {carol} colour=x", started)
        box.send("carol", "accept 2", box.next("carol", "challenges you"))
        box.next("alice", "[pbem #2]")  # game 2 started: her move in both
        box.send("bob", "if f2 then b1", box.next("bob", "[pbem #1]"))  # while Alice is on move
        assert "I keep your conditional line in game #1" in _flat(box.next("bob", "conditional"))

        # a mail written from scratch (no proof) moves in game 2: held, then confirmed
        mailrig.submit(alice, compose(alice, "#2 f2", subject="my move", to=mailrig.address("game")))
        box.send("alice", "confirm", box.next("alice", "Reply to confirm"))
        confirmed = box.next("alice", "[pbem #2]")
        assert "You played f2 in game #2" in _flat(confirmed), text(confirmed)
        assert "+g2-" in confirmed["Reply-To"], confirmed["Reply-To"]

        box.send("carol", "b1", box.next("carol", "[pbem #2]"))
        box.send("alice", "games", box.next("alice", "your move"))
        listed = box.next("alice", "Your games")

        # one mail, two games: Bob's conditional line answers in game 1 at once
        box.send("alice", "#1 f2\n#2 e1", listed)
        several = box.next("alice", "Games #1, #2")
        said = _flat(several)
        assert "Reply with a line that names the game, then your move, e.g. #1 " in said, said
        box.send("alice", "e1", several)  # bare, as if the mail had not named the game
        wait_until(lambda: _moves(db, 1) == ["f2", "b1", "e1"], 30, lambda: f"{_moves(db, 1)}\n{daemon.log_tail()}")
        older = box.next("alice", "you played e1")

        # crossed: Bob moves, Alice answers the older mail (hers) after his came
        box.send("bob", "b2", box.next("bob", "[pbem #1]"))
        newer = box.next("alice", "your move")
        assert "bob played b2" in _flat(newer), text(newer)
        box.send("alice", "e2", older)
        wait_until(lambda: _moves(db, 1) == ["f2", "b1", "e1", "b2", "e2"], 30,
                   lambda: f"{_moves(db, 1)}\n{daemon.log_tail()}")
        answer = box.next("alice", "you played e2")
        assert "older board" not in _flat(answer)
        assert daemon.stop() == 0, daemon.log_tail()
    finally:
        assert daemon.stop() in (0, None), daemon.log_tail()
