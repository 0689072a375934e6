"""Bots as players: `challenge GAME bot [level=N]`, the runner's move, and the rules for bots."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time
from sqlmodel import Session, select

from pbem.core.models import Game, Move, Outbox, Player
from pbem.runners import bots as botrunner
from pbem.runners import clock as timekeeper
from tests.mailer import reply_to
from tests.players import ALICE, BOB, flat


def _game(server, game_id: int = 1) -> Game:
    with Session(server.engine) as session:
        return session.get(Game, game_id)


def _moves(server, game_id: int = 1) -> list[Move]:
    with Session(server.engine) as session:
        return list(session.exec(select(Move).where(Move.game_id == game_id).order_by(Move.ply)))


def _bot_game(server, options: str = "colour=first", kind: str = "capturego size=5 target=1") -> None:
    """Alice's first mail challenges a bot (held until she confirms it)."""
    server.say(ALICE, f"challenge {kind} bot {options}")
    server.confirm(ALICE)


def _runner(server) -> int:
    return botrunner.round_(server.engine, server.service.settings, server.service.templates)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_challenge_a_bot_starts_the_game_at_once_and_the_runner_answers(server, level) -> None:
    _bot_game(server, f"level={level} colour=first")
    game = _game(server)
    assert game.status == "active" and game.bot_due_at is None  # Alice moves first
    with Session(server.engine) as session:
        bot = session.get(Player, game.player1_id)
        assert (bot.name, bot.bot_level) == (f"bot-capturego-{level}", level)
        assert bot.address.endswith(".invalid")
    started = flat(server.last(ALICE))
    assert f"bot-capturego-{level} accepted your challenge #1: game #1 has begun." in started
    assert f"playing at level {level} of 3; it answers each move within seconds" in started
    assert "You move first." in started

    server.send(reply_to(ALICE, server.last(ALICE), "c3"))
    game = _game(server)
    assert game.turn == 1 and game.bot_due_at is not None and game.clock_due_at is None
    assert "Now bot-capturego-" in flat(server.last(ALICE))
    before = len(server.mails(ALICE))
    assert _runner(server) == 1
    moves = _moves(server)
    assert [m.ply for m in moves] == [1, 2] and moves[1].player_id == game.player1_id
    game = _game(server)
    assert game.turn == 0 and game.bot_due_at is None and game.clock_due_at is not None
    assert len(server.mails(ALICE)) == before + 1
    assert f"bot-capturego-{level} played {moves[1].notation}" in flat(server.last(ALICE))
    assert _runner(server) == 0  # nothing is due: Alice is on move


def test_no_mail_is_ever_queued_to_a_bot(server) -> None:
    _bot_game(server, "colour=second level=1")
    assert _runner(server) == 1  # the bot moved first
    server.send(reply_to(ALICE, server.last(ALICE), "resign"))
    assert "For a return match, write e.g. challenge capturego bot level=1" in flat(server.last(ALICE))
    with Session(server.engine) as session:
        recipients = set(session.exec(select(Outbox.recipient)))
    assert recipients == {ALICE}
    assert _game(server).status == "finished"


def test_the_bot_move_is_the_same_for_the_same_game_and_ply(server, tmp_path) -> None:
    _bot_game(server, "colour=second level=2", kind="ataxx")
    first = botrunner.think(server.engine, server.service.settings, 1)
    again = botrunner.think(server.engine, server.service.settings, 1)
    assert first == again and first.notation


def test_a_stale_result_is_dropped(server) -> None:
    _bot_game(server, "colour=second level=2", kind="ataxx")
    thought = botrunner.think(server.engine, server.service.settings, 1)
    server.send(reply_to(ALICE, server.last(ALICE), "draw"))  # the game's version moves on
    settings, templates = server.service.settings, server.service.templates
    assert botrunner.commit(server.engine, settings, templates, thought) is False
    assert _moves(server) == []
    assert _runner(server) == 1  # thought again about the current version
    assert len(_moves(server)) == 1


def test_a_bot_is_never_forfeited_on_time(server) -> None:
    _bot_game(server, "colour=second level=1 days=1", kind="ataxx")
    assert _game(server).clock_due_at is None
    with freeze_time(datetime.now(UTC) + timedelta(days=30)):
        done = timekeeper.tick(server.engine, server.service.settings, server.service.templates)
    assert done.forfeits == 0 and _game(server).status == "active"


def test_ratings_mark_bots(server) -> None:
    _bot_game(server, "colour=first level=1")
    server.send(reply_to(ALICE, server.last(ALICE), "resign"))
    server.say(ALICE, "ratings capturego")
    body = flat(server.last(ALICE))
    assert "bot-capturego-1 (bot)" in body and "alice (you)" in body


def test_open_says_a_bot_can_be_challenged(server) -> None:
    server.say(BOB, "open")
    assert 'A bot will play you at any time, at level 1, 2 or 3: write e.g. "challenge ataxx bot level=2"' in flat(
        server.last(BOB)
    )


def test_bots_switched_off(server) -> None:
    server.service.settings = replace(server.service.settings, bots=False)
    _bot_game(server, "level=1")
    assert _game(server) is None
    said = " ".join(flat(mail) for mail in server.mails(ALICE))  # said at once, before any confirmation
    assert "The bots are switched off on this server for now" in said


def test_a_wrong_level_is_refused(server) -> None:
    _bot_game(server, "level=7")
    assert _game(server) is None
    said = " ".join(flat(mail) for mail in server.mails(ALICE))
    assert "level=7 is not a level a bot plays." in said


def test_switched_off_runner_waits_and_plays_when_on_again(server) -> None:
    _bot_game(server, "colour=second level=1", kind="ataxx")
    settings = server.service.settings
    assert botrunner.round_(server.engine, replace(settings, bots=False)) == 0
    assert _moves(server) == []
    assert botrunner.round_(server.engine, settings) == 1


def test_a_bot_takes_no_challenge_by_its_address(server) -> None:
    _bot_game(server, "level=1 colour=first")
    server.say(BOB, "challenge ataxx bot-capturego-1@bots.invalid")
    said = " ".join(flat(mail) for mail in server.mails(BOB))
    assert "bot-capturego-1@bots.invalid is a bot: it takes no challenge by its address." in said
    assert 'Write e.g. "challenge ataxx bot level=2"' in said or "Write e.g. challenge ataxx bot level=2" in said
