"""A round robin of four by real mail: sign-up, three rounds, the final table.

The daemon runs on Dovecot and SMTP; the operator creates and starts the tournament with
`pbem admin tournament` on the daemon's database. Every player's every mail is checked in
order: the notice that holds a first mail, the sign-up, each round's game, each game's end
(every game is ended at once by a resignation), and the final table; the daemon's clock
round pairs each next round when the last game of a round is over.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlmodel import Session, select

from pbem.cli.main import main
from pbem.core.db import make_engine
from pbem.core.models import Game, Player, TournamentGame
from tests.integration.daemon import POLLING, DaemonProcess
from tests.integration.inboxes import Inboxes
from tests.mailer import text

pytestmark = pytest.mark.integration

USERS = ("alice", "bob", "carol", "dave")


def _admin(daemon: DaemonProcess, *args: str) -> str:
    result = CliRunner(env=daemon.env).invoke(main, ["-c", str(daemon.config), "admin", "tournament", *args])
    assert result.exit_code == 0, result.output
    return result.output


def _flat(mail) -> str:
    return " ".join(text(mail).split())


def test_a_round_robin_of_four_by_real_mail(mailrig, tmp_path) -> None:
    home = tmp_path / "pbem"
    daemon = DaemonProcess(mailrig, home, extra_imap=POLLING, extra_server={"clock_interval": 0.5})
    daemon.start()
    db = make_engine(f"sqlite:///{home / 'pbem.sqlite3'}")
    inbox = Inboxes(mailrig, USERS)
    next_mail = inbox.next

    def send(user: str, body: str, answering=None) -> None:  # noqa: ANN001
        inbox.send(user, body, answering, subject="tournament")

    try:
        assert "is open for sign-up" in _admin(daemon, "create", "Rig Cup", "--format", "roundrobin",
                                                "--game", "ataxx", "--days", "3")
        for user in USERS:
            send(user, "join 1")
            held = next_mail(user, "Reply to confirm")  # a first mail proves nothing: held
            assert "| join 1" in text(held)
            send(user, "confirm", held)
            joined = next_mail(user, "Confirmed")  # the confirmation's answer: done at once
            assert "You have joined the tournament Rig Cup (#1)." in _flat(joined)

        assert "round 1 paired" in _admin(daemon, "start", "1")
        games: dict[str, object] = {}
        for round in (1, 2, 3):
            for user in USERS:
                mail = next_mail(user, f"Rig Cup, round {round}")
                assert f"Round {round} of the tournament Rig Cup (#1) has begun" in _flat(mail)
                assert "of the tournament Rig Cup (#1)." in _flat(mail)  # the game's facts
                games[user] = mail
            with Session(db) as session:
                boards = session.exec(select(TournamentGame).where(TournamentGame.round == round)).all()
                pairs = [session.get(Game, b.game_id) for b in boards]
                second = [session.get(Player, g.player1_id).address.split("@")[0] for g in pairs]
            assert len(pairs) == 2
            for user in second:  # the second player of each game resigns it
                send(user, "resign", games[user])
            for user in USERS:
                over = next_mail(user, "game over")
                assert ("You won" in _flat(over)) == (user not in second)
        for user in USERS:
            final = next_mail(user, "Rig Cup: the final table")
            body = _flat(final)
            assert "The tournament Rig Cup (#1) is over." in body and "Sonneborn-Berger" in body
            assert "crosstable" in body
        shown = _admin(daemon, "show", "1", "--json")
        assert '"status": "finished"' in shown
        daemon.wait_log("tournament #1: round 3 (finished)")
    finally:
        assert daemon.stop() in (0, None), daemon.log_tail()
        db.dispose()
    for user in USERS:  # and nothing else: 2 to sign up, 3 rounds of a game and its end, the table
        assert len(mailrig.messages(user)) == inbox.read(user) == 9
