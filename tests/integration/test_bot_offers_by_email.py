"""A bot's answers to offers by real mail: the daemon on the real Dovecot and SMTP servers.
Alice plays a level-2 Ataxx bot until it is ahead and offers a draw: the refusal mail comes and
the game goes on. Bob asks a level-1 bot to take back his first move (sent while the bots are
switched off, so the bot has not answered it yet; the request waits like a move): once the bots
are on again, the take-back mail comes with the start position's board, and the bot answers
Bob's next move. Carol waits for a level-1 bot's answer and then asks for a take-back: her
move and the bot's answer are taken back together, and the bot answers her next move."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session

import pbem_bots
from pbem.core.db import make_engine, transaction
from pbem.core.wallclock import now
from pbem.games import bots as bots_players
from pbem.games import store as G
from tests.integration.daemon import DaemonProcess
from tests.integration.test_bots_by_email import _flat, _game, _human_move, _mail_for, _start
from tests.integration.waits import wait_until
from tests.mailer import parse, reply_to, text

pytestmark = pytest.mark.integration


def _board(mail) -> list[str]:
    """The rows of the Ataxx board a mail shows: `7 | x . . . . . o | 7` gives `7 x . . . . . o`."""
    rows = [re.match(r"^\s*([1-7]) \| (.*?) \|", line) for line in text(mail).splitlines()]
    return [f"{row.group(1)} {row.group(2)}" for row in rows if row]


def _switch(db, on: bool) -> None:
    """`pbem admin bots on|off`, as its row: every daemon reads it at each use."""
    with transaction(db) as session:
        bots_players.switch(session, on, now())


def _game_of(started) -> int:
    return int(re.search(r"game #(\d+) has begun", _flat(started)).group(1))


def test_a_bot_refuses_a_draw_when_ahead_and_takes_back_at_level_one(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem")
    daemon.start()
    db = make_engine(daemon.database)
    alice, bob = mailrig.address("alice"), mailrig.address("bob")
    try:
        _start(mailrig, "alice", "ataxx bot level=2 colour=first")
        board = _mail_for(mailrig, "alice", "accepted, your move")
        game_id = _game_of(board)

        # Alice plays until the bot judges itself ahead, then offers a draw: it refuses.
        for _ in range(15):
            game = _game(db, game_id)
            assert game.status == "active" and game.turn == 0 and game.bot_due_at is None
            rules = G.rules_of(game)
            if not pbem_bots.accepts_draw(rules, rules.load(game.state), 1, 2):
                break
            mailrig.submit(alice, reply_to(alice, board, _human_move(game)))
            ply = game.ply
            board = _mail_for(mailrig, "alice", rf"#{game_id}\].*your move.*\(move {ply + 3}\)")
        else:
            pytest.fail("the bot was never ahead")
        ply = game.ply
        mailrig.submit(alice, reply_to(alice, board, "draw"))
        refused = _mail_for(mailrig, "alice", rf"#{game_id}\].*draw refused")
        assert f"The draw offer in game #{game_id} was refused; the game goes on." in _flat(refused)
        assert "It is your move, alice." in _flat(refused)
        game = _game(db, game_id)
        assert (game.status, game.draw_offer, game.ply, game.bot_due_at) == ("active", None, ply, None)

        # Bob's level-1 bot: his first move and his take-back request wait while the bots are off.
        _start(mailrig, "bob", "ataxx bot level=1 colour=first")
        started = _mail_for(mailrig, "bob", "accepted, your move")
        bob_game = _game_of(started)
        _switch(db, False)
        first = _human_move(_game(db, bob_game))
        mailrig.submit(bob, reply_to(bob, started, first))
        played = _mail_for(mailrig, "bob", rf"#{bob_game}\].*you played")
        mailrig.submit(bob, reply_to(bob, played, "takeback"))
        _mail_for(mailrig, "bob", rf"#{bob_game}\].*you asked to take back your move")
        assert _game(db, bob_game).takeback_offer == 0 and _game(db, bob_game).ply == 1

        _switch(db, True)
        back = _mail_for(mailrig, "bob", rf"#{bob_game}\].*taken back")
        body = _flat(back)
        assert f"bot-ataxx-1 let you take back {first} in game #{bob_game}." in body
        assert "It is your move again, bob (x), at move 1." in body
        assert _board(back) == _board(started) and len(_board(back)) == 7  # the start position again
        game = _game(db, bob_game)
        assert (game.ply, game.turn, game.takeback_offer) == (0, 0, None)

        # The game goes on: the bot answers Bob's next move.
        mailrig.submit(bob, reply_to(bob, back, _human_move(game)))
        _mail_for(mailrig, "bob", rf"#{bob_game}\].*your move.*\(move 3\)")
        wait_until(lambda: _game(db, bob_game).ply == 2, 30, "the bot's move")
    finally:
        assert daemon.stop() in (0, None), daemon.log_tail()
    with Session(db) as session:
        assert session.get(type(game), bob_game).bot_due_at is None
    assert daemon.tracebacks() == []
    db.dispose()


def _mails_for(rig, user: str, pattern: str) -> list:
    return [mail for mail in map(parse, rig.messages(user)) if re.search(pattern, str(mail["Subject"]))]


def test_a_level_one_bot_takes_back_a_move_and_its_answer(mailrig, tmp_path) -> None:
    """Carol plays a level-1 bot, waits for its answer, then writes `takeback` in her reply to
    the answer's mail: the mail that comes shows the board before her move, and the game goes
    on from there (the bot does not replay its answer: it waits for her next move)."""
    daemon = DaemonProcess(mailrig, tmp_path / "pbem")
    daemon.start()
    db = make_engine(daemon.database)
    carol = mailrig.address("carol")
    try:
        _start(mailrig, "carol", "ataxx bot level=1 colour=first")
        started = _mail_for(mailrig, "carol", "accepted, your move")
        game_id = _game_of(started)
        first = _human_move(_game(db, game_id))
        mailrig.submit(carol, reply_to(carol, started, first))
        answered = _mail_for(mailrig, "carol", rf"#{game_id}\].*your move.*\(move 3\)")
        game = _game(db, game_id)
        assert (game.ply, game.turn, game.bot_due_at) == (2, 0, None)
        with Session(db) as session:
            answer = G.last_move(session, game).notation

        mailrig.submit(carol, reply_to(carol, answered, "takeback"))
        back = _mail_for(mailrig, "carol", rf"#{game_id}\].*taken back")
        assert f"{first} and {answer} taken back" in str(back["Subject"])
        body = _flat(back)
        assert (f"bot-ataxx-1 let you take back your move {first} and the bot's answer {answer} "
                f"in game #{game_id}.") in body
        assert "It is your move again, carol (x), at move 1." in body
        assert _board(back) == _board(started) and len(_board(back)) == 7  # the board before her move
        asked = _mail_for(mailrig, "carol", rf"#{game_id}\].*you asked to take back your move")
        assert f"take back your move {first} and the bot's answer {answer}" in _flat(asked)
        game = _game(db, game_id)
        assert (game.ply, game.turn, game.takeback_offer, game.bot_due_at) == (0, 0, None, None)

        # She plays another move; the bot answers it (and only it).
        second = _human_move(game)
        mailrig.submit(carol, reply_to(carol, back, second))
        wait_until(lambda: len(_mails_for(mailrig, "carol", rf"#{game_id}\].*your move.*\(move 3\)")) == 2, 30,
                   "the bot's answer to her next move")
        game = _game(db, game_id)
        assert (game.ply, game.turn, game.bot_due_at) == (2, 0, None)
        with Session(db) as session:
            assert [m.side for m in G.moves(session, game)] == [0, 1]
            assert G.moves(session, game)[0].notation == second
    finally:
        assert daemon.stop() in (0, None), daemon.log_tail()
    assert daemon.tracebacks() == []
    db.dispose()
