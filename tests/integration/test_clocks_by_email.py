"""Fischer and ICCF clocks by real mail, through the real daemon over IMAP and SMTP: a game played
to its end with the times in the mails as the clock model says, and a game lost on time.

The daemon's clock cannot be frozen in a subprocess, so while it is stopped the test moves the
turn's start back in the SQLite file (the deadline is derived from it) and marks the game due,
then starts it again, as `test_clock_daemon` does.
"""

from __future__ import annotations

import smtplib
from datetime import timedelta

import pytest
from sqlmodel import Session

from pbem.core.db import make_engine, transaction
from pbem.core.models import Game
from pbem.core.wallclock import now
from pbem.games import timecontrol as tc
from pbem.text.i18n import speaker
from tests.integration.daemon import DaemonProcess
from tests.integration.waits import wait_until
from tests.mailer import compose, parse, reply_to

pytestmark = pytest.mark.integration
EN = speaker("en")


def _send(rig, user: str, raw: bytes) -> None:
    with smtplib.SMTP("127.0.0.1", rig.smtp_port, timeout=10) as smtp:
        smtp.sendmail(rig.address(user), [parse(raw)["To"]], raw)


def _mails(rig, user: str) -> list:
    return [parse(raw) for raw in rig.messages(user)]


def _wait(rig, user: str, word: str, count: int = 1, timeout: float = 30):
    """The newest mail to `user` whose subject has `word`, once there are `count` of them."""
    def probe():
        found = [m for m in _mails(rig, user) if word in m["Subject"]]
        return found[-1] if len(found) >= count else None

    return wait_until(probe, timeout, lambda: f"{user}: {count} x {word!r} in {[m['Subject'] for m in _mails(rig, user)]}",
                      0.2)


def _flat(mail) -> str:
    return " ".join(mail.get_body(("plain",)).get_content().split())


def _game(db, game_id: int) -> Game:
    with Session(db) as session:
        return session.get(Game, game_id)


def _left(control: tc.TimeControl, game: Game) -> list[str]:
    """Each side's time as the model gives it at the start of the turn of the side on move (the
    daemon answered within seconds: the mail rounds to the hour)."""
    sides = tc.Sides.load(game.clock_sides)
    return [EN.say(tc.span(control.remaining(sides, side, 0))) for side in (0, 1)]


@pytest.mark.parametrize("notation", ["fischer:3d+1d/7d", "iccf:10/50d"])
def test_a_clock_game_to_its_end_and_one_lost_on_time(mailrig, tmp_path, notation: str) -> None:
    control = tc.parse(notation)
    home = tmp_path / "pbem"
    daemon = DaemonProcess(mailrig, home)
    daemon.config.write_text(
        daemon.config.read_text().replace("outbox_interval = 0.5", "outbox_interval = 0.5\nclock_interval = 0.5")
    )
    db = make_engine(f"sqlite:///{home / 'pbem.sqlite3'}")
    alice, bob = mailrig.address("alice"), mailrig.address("bob")
    daemon.start()
    try:
        body = f"challenge capturego {bob} size=9 colour=first clock={notation}"
        _send(mailrig, "alice", compose(alice, body, subject="a game", to=mailrig.address("game")))
        _send(mailrig, "alice", reply_to(alice, parse(mailrig.wait_for("alice", 1, timeout=30)[-1]), "confirm"))
        invite = _wait(mailrig, "bob", "challenges you")
        assert f"Clock: {EN.say(control.describe())}." in _flat(invite)
        _send(mailrig, "bob", reply_to(bob, invite, "accept 1"))
        started = _wait(mailrig, "alice", "your move")
        text = _flat(started)
        assert f"Clock: {EN.say(control.describe())}." in text
        first, second = _left(control, _game(db, 1))
        assert f"Time left: alice (black) {first}, bob (white) {second}." in text

        # a game to its end by the rules: b1, a1, a2 captures a1 (Capture Go's target of one stone)
        _send(mailrig, "alice", reply_to(alice, started, "b1"))
        to_bob = _wait(mailrig, "bob", "your move")
        game = _game(db, 1)
        assert tc.Sides.load(game.clock_sides).moves == (1, 0)
        first, second = _left(control, game)
        assert f"Time left: alice (black) {first}, bob (white) {second}." in _flat(to_bob)
        assert "Your deadline:" in _flat(to_bob)
        _send(mailrig, "bob", reply_to(bob, to_bob, "a1"))
        to_alice = _wait(mailrig, "alice", "your move", 2)
        first, second = _left(control, _game(db, 1))
        assert f"Time left: alice (black) {first}, bob (white) {second}." in _flat(to_alice)
        _send(mailrig, "alice", reply_to(alice, to_alice, "a2"))
        over = _wait(mailrig, "bob", "game over")
        assert "Time left" not in _flat(over) and f"Clock: {EN.say(control.describe())}." in _flat(over)
        assert (_game(db, 1).result, _game(db, 1).ending) == ("1-0", "rules")

        # a second game, which bob loses on time
        _send(mailrig, "alice", reply_to(alice, _wait(mailrig, "alice", "game over"), body))
        invite = _wait(mailrig, "bob", "challenges you", 2)
        _send(mailrig, "bob", reply_to(bob, invite, "accept 2"))
        started = _wait(mailrig, "alice", "your move", 3)
        _send(mailrig, "alice", reply_to(alice, started, "e5"))
        _wait(mailrig, "bob", "your move", 2)
        assert daemon.stop() == 0, daemon.log_tail()
        budget = control.budget(tc.Sides.load(_game(db, 2).clock_sides), 1)
        with transaction(db) as session:  # bob's turn began longer ago than his whole clock
            game = session.get(Game, 2)
            game.turn_started_at = now() - timedelta(seconds=budget + 60)
            game.clock_due_at = game.turn_started_at  # due at once: the daemon's round stores the real event
            session.add(game)
        daemon.start()
        lost = _wait(mailrig, "alice", "game over", 2)
        _wait(mailrig, "bob", "game over", 2)
        assert "bob ran out of time" in _flat(lost)
        assert daemon.stop() == 0, daemon.log_tail()
    finally:
        assert daemon.stop() in (0, None), daemon.log_tail()
    game = _game(db, 2)
    assert (game.status, game.result, game.ending) == ("finished", "1-0", "time")
    db.dispose()
