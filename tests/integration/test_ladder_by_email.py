"""A ladder of three by real mail: sign-up, a challenge up two places, the places moved, the close.

The daemon runs on Dovecot and SMTP; the operator creates, starts and closes the ladder with
`pbem admin tournament` on the daemon's database. The challenge is a reply to the ladder's
start mail; the defender resigns the game by replying to its mail, and the daemon's clock
round moves the places and tells both players. Every player's every mail is checked.
"""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, select

from pbem.core.db import make_engine
from pbem.core.models import Game, TournamentGame
from tests.integration.daemon import POLLING, DaemonProcess
from tests.integration.inboxes import Inboxes
from tests.integration.test_tournament_by_email import _admin, _flat

pytestmark = pytest.mark.integration

USERS = ("alice", "bob", "carol")


def test_a_ladder_challenge_by_real_mail_moves_the_places(mailrig, tmp_path) -> None:
    home = tmp_path / "pbem"
    daemon = DaemonProcess(mailrig, home, extra_imap=POLLING, extra_server={"clock_interval": 0.5})
    daemon.start()
    db = make_engine(f"sqlite:///{home / 'pbem.sqlite3'}")
    inbox = Inboxes(mailrig, USERS)
    next_mail = inbox.next

    def send(user: str, body: str, answering=None) -> None:  # noqa: ANN001
        inbox.send(user, body, answering, subject="ladder")

    try:
        assert "is open for sign-up" in _admin(daemon, "create", "Rig Ladder", "--format", "ladder",
                                                "--game", "ataxx", "--days", "3", "--reach", "2")
        for user in USERS:
            send(user, "join 1")
            held = next_mail(user, "Reply to confirm")
            send(user, "confirm", held)
            assert "You have joined the tournament Rig Ladder (#1)." in _flat(next_mail(user, "Confirmed"))
        assert "3 players placed by rating" in _admin(daemon, "start", "1")
        started = {user: next_mail(user, "Rig Ladder: it has begun") for user in USERS}
        assert 'You are in place 3. You may challenge: place 2, bob: write "ladder 1 2"' in _flat(started["carol"])
        assert 'place 1, alice: write "ladder 1 1"' in _flat(started["carol"])

        send("carol", "ladder 1 1", started["carol"])  # carol (3) challenges alice (1)
        mine = next_mail("carol", "ladder Rig Ladder")
        assert "On the ladder Rig Ladder (#1), carol (place 3) has challenged alice (place 1): game #1." in _flat(mine)
        theirs = next_mail("alice", "ladder Rig Ladder")
        assert "has challenged alice (place 1): game #1." in _flat(theirs)
        with Session(db) as session:
            row = session.exec(select(TournamentGame)).one()
            game = session.get(Game, row.game_id)
            assert row.challenger_id is not None and game.status == "active" and game.days == 3

        send("alice", "resign", theirs)  # the defender resigns: carol takes place 1
        for user in ("alice", "carol"):
            assert "game over" in next_mail(user, "game over")["Subject"]
        moved = next_mail("carol", "Rig Ladder: the places after game #1")
        assert "you are now in place 1, no longer 3." in _flat(moved)
        assert "you are now in place 3, no longer 1." in _flat(next_mail("alice", "the places after game #1"))
        daemon.wait_log("ladder #1: challenge 1 settled")
        shown = json.loads(_admin(daemon, "show", "1", "--json"))
        assert [p["name"] for p in shown["places"]] == ["carol", "bob", "alice"]
        assert shown["places"][0]["won"] == 1 and shown["places"][2]["lost"] == 1

        assert "closed" in _admin(daemon, "close", "1")
        for user in USERS:
            final = _flat(next_mail(user, "Rig Ladder: the final table"))
            assert final.index("carol") < final.index("bob") < final.rindex("alice")
    finally:
        assert daemon.stop() in (0, None), daemon.log_tail()
        db.dispose()
    # and nothing else: sign-up (held, confirmed), the start, the game's start and end, the places, the close
    assert [len(mailrig.messages(u)) for u in USERS] == [inbox.read(u) for u in USERS] == [7, 4, 7]
