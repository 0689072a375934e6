"""Bots by real mail: the daemon on the real Dovecot and SMTP servers. Alice, Bob and Carol
each challenge a bot (levels 1, 2 and 3) to Capture Go 5x5, first capture wins, and play it
to the end by replying to the bot's mails; every bot move is legal, answered by mail, and the
game-over mail comes. Then a SIGKILL while a level-3 Ataxx bot is thinking (and one after its
search, before its commit): after the restart exactly one bot move is stored and mailed."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, select

import pbem_bots
from pbem.core.db import make_engine
from pbem.core.models import Game, Move, Outbox, Player
from pbem.games import store as G
from tests.integration.daemon import DaemonProcess
from tests.integration.waits import wait_until
from tests.mailer import compose, parse, reply_to, text

pytestmark = pytest.mark.integration

CAPTUREGO = "capturego size=5 target=1"


def _flat(mail) -> str:
    return " ".join(text(mail).split())


def _game(db, game_id: int) -> Game:
    with Session(db) as session:
        return session.get(Game, game_id)


def _mail_for(rig, user: str, pattern: str, seconds: float = 30):
    """The newest mail of `user` whose subject matches `pattern`, once it has arrived."""

    def probe():
        found = [parse(raw) for raw in rig.messages(user)]
        found = [mail for mail in found if re.search(pattern, str(mail["Subject"]))]
        return found[-1] if found else None

    return wait_until(probe, seconds, f"a mail to {user} matching {pattern!r}")


def _start(rig, user: str, options: str) -> None:
    """`user`'s first mail challenges a bot; it is held until they confirm it."""
    address = rig.address(user)
    rig.submit(address, compose(address, f"challenge {options}", to=rig.address("game")))
    rig.submit(address, reply_to(address, _mail_for(rig, user, "Reply to confirm"), "confirm"))


def _human_move(game: Game) -> str:
    """A legal move for the person: the level-1 bot's choice, seeded by the ply."""
    rules = G.rules_of(game)
    pos = rules.load(game.state)
    move, _ = pbem_bots.choose(rules, pos, 1, game.ply)
    return rules.format(pos, move)


def _bot_moves_legal(db, game_id: int) -> None:
    """Replaying the stored moves from the start: every one legal, the state the stored one."""
    with Session(db) as session:
        game = session.get(Game, game_id)
        moves = session.exec(select(Move).where(Move.game_id == game_id).order_by(Move.ply)).all()
    rules = G.rules_of(game)
    pos = rules.start()
    for move in moves:
        pos = rules.apply(pos, rules.parse(pos, move.notation))  # raises on an illegal move
    assert rules.dump(pos) == game.state


def test_a_whole_game_against_each_bot_level_and_a_kill_while_thinking(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_server={"bot_seconds": 30.0})
    daemon.start()
    db = make_engine(daemon.database)
    people = {"alice": 1, "bob": 2, "carol": 3}
    try:
        for user, level in people.items():
            _start(mailrig, user, f"{CAPTUREGO} bot level={level} colour=first")
        games = {}
        for user, level in people.items():
            started = _mail_for(mailrig, user, "accepted, your move")  # the answer to the confirmation: under the game it started
            assert f"bot-capturego-{level} accepted your challenge #" in _flat(started)
            assert f"bot-capturego-{level} is a bot, playing at level {level} of 3" in _flat(started)
            games[user] = int(re.search(r"game #(\d+) has begun", _flat(started)).group(1))
        playing = dict(games)
        while playing:  # the three play side by side: each person moves, then each bot answers
            moved = {}
            for user, game_id in list(playing.items()):
                game = _game(db, game_id)
                if game.status != "active":
                    over = _mail_for(mailrig, user, rf"#{game_id}\].*game over, {game.result}")
                    assert "reached 1 capture" in _flat(over)
                    del playing[user]
                    continue
                assert game.turn == 0 and game.bot_due_at is None  # the bot has answered
                board = _mail_for(mailrig, user, rf"your move.*\(move {game.ply + 1}\)" if game.ply else "accepted, your move")
                address = mailrig.address(user)
                mailrig.submit(address, reply_to(address, board, _human_move(game)))
                moved[game_id] = game.ply
            for game_id, ply in moved.items():

                def answered(game_id=game_id, ply=ply):
                    now = _game(db, game_id)
                    return now.status != "active" or (now.ply >= ply + 2 and now.turn == 0)

                wait_until(answered, 60, f"the bot's answer in game #{game_id}")
        for user, game_id in games.items():
            _bot_moves_legal(db, game_id)
            with Session(db) as session:
                game = session.get(Game, game_id)
                bot = session.get(Player, game.player1_id)
                assert bot.bot_level == people[user] and game.result in ("1-0", "0-1")
        with Session(db) as session:  # no mail ever went to a bot
            assert not [r for r in session.exec(select(Outbox.recipient)) if r.endswith(".invalid")]

        # Dave plays a level-3 Ataxx bot, which moves first; the daemon dies while it thinks.
        daemon.stop()
        for point in ("bot-thinking:2", "bot-searched:1"):
            daemon.start(env={"PBEM_CRASH_AT": point})
            if point.startswith("bot-thinking"):
                _start(mailrig, "dave", "ataxx bot level=3 colour=second")
            daemon.wait_log("thinking: game #4")
            assert daemon.proc.wait(timeout=30) != 0  # killed by its own SIGKILL
            daemon.proc = None
            with Session(db) as session:
                assert session.exec(select(Move).where(Move.game_id == 4)).all() == []
            assert _game(db, 4).bot_due_at is not None  # still "bot on move"
        daemon.start()
        daemon.wait_log("played", seconds=30)
        your_move = _mail_for(mailrig, "dave", r"your move")
        assert "bot-ataxx-3 played" in _flat(your_move)
    finally:
        assert daemon.stop() in (0, None), daemon.log_tail()
    with Session(db) as session:
        moves = session.exec(select(Move).where(Move.game_id == 4)).all()
        assert [m.ply for m in moves] == [1]
        assert len([r for r in session.exec(select(Outbox.template).where(Outbox.game_id == 4))
                    if r == "your_move"]) == 1
    assert len([m for m in mailrig.messages("dave") if "your move" in str(parse(m)["Subject"])]) == 1
    assert daemon.tracebacks() == []
    db.dispose()
