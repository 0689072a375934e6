"""A bot answers a person's draw offer and take-back request through the bot runner, by the
paths of a person's `draw`, `nodraw` and `takeback accept|refuse`: the same rows, mails and
audit trail; once, and only while the bots are switched on."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from freezegun import freeze_time
from sqlmodel import Session, select

import pbem_bots
from pbem.core.db import transaction
from pbem.core.models import AdminAction, Game, Move, Player, Vacation
from pbem.games import store as G
from pbem.runners import bots as botrunner
from tests.mailer import reply_to, text
from tests.players import ALICE, BOB, flat, start_game

#: Alice (x) is on move; o, the bot, has most of the board (clearly ahead), or the other way round
BOT_AHEAD = "ooooooo/ooooooo/ooooooo/7/7/7/6x x 0 10"
BOT_BEHIND = "xxxxxxx/xxxxxxx/xxxxxxx/7/7/7/6o x 0 10"


def _game(server) -> Game:
    with Session(server.engine) as session:
        return session.get(Game, 1)


def _moves(server) -> list[Move]:
    with Session(server.engine) as session:
        return list(session.exec(select(Move).where(Move.game_id == 1).order_by(Move.ply)))


def _runner(server, **changes) -> int:
    settings = replace(server.service.settings, **changes)
    return botrunner.round_(server.engine, settings, server.service.templates)


def _bot_game(server, level: int, colour: str = "first") -> None:
    """Game #1: Alice challenges an Ataxx bot (her first mail, held until she confirms it)."""
    server.say(ALICE, f"challenge ataxx bot level={level} colour={colour}")
    server.confirm(ALICE)


def _position(server, fen: str) -> None:
    """Game #1 from `fen`, as though it had been played there (Alice's mails stay current)."""
    with transaction(server.engine) as session:
        game = session.get(Game, 1)
        rules = G.rules_of(game)
        pos = rules.from_fen(fen)
        game.state, game.ply, game.turn = rules.dump(pos), rules.ply(pos), rules.turn(pos)
        session.add(game)


def _answer(server, line: str) -> None:
    server.send(reply_to(ALICE, server.last(ALICE), line))


def _subjects(server, since: int) -> list[str]:
    return [str(mail["Subject"]) for mail in server.mails(ALICE)[since:]]


def test_a_bot_ahead_refuses_a_draw_offered_on_the_persons_move(server) -> None:
    _bot_game(server, level=2)
    _position(server, BOT_AHEAD)
    _answer(server, "draw")
    game = _game(server)
    assert game.draw_offer == 0 and game.bot_due_at is not None  # the bot is not on move, but due
    before = len(server.mails(ALICE))
    assert _runner(server) == 1
    game = _game(server)
    assert (game.status, game.draw_offer, game.bot_due_at, game.turn) == ("active", None, None, 0)
    assert _moves(server) == []  # Alice is still on move: the bot played nothing
    (refused,) = [m for m in server.mails(ALICE)[before:] if "draw refused" in str(m["Subject"])]
    body = flat(refused)
    assert "The draw offer in game #1 was refused; the game goes on." in body
    assert "It is your move, alice." in body
    assert len(server.mails(ALICE)) == before + 1
    assert _runner(server) == 0  # answered once: nothing is due any more


def test_a_bot_behind_accepts_a_draw(server) -> None:
    _bot_game(server, level=3)
    _position(server, BOT_BEHIND)
    _answer(server, "draw")
    before = len(server.mails(ALICE))
    assert _runner(server) == 1
    game = _game(server)
    assert (game.status, game.result, game.winner, game.ending) == ("finished", "1/2-1/2", None, "agreement")
    assert game.bot_due_at is None and game.draw_offer is None
    (over,) = [m for m in server.mails(ALICE)[before:] if "game over, 1/2-1/2, a draw" in str(m["Subject"])]
    assert "Game #1 is over" in flat(over)
    assert "For a return match, write e.g. challenge ataxx bot level=3" in flat(over)
    assert _runner(server) == 0


def test_a_draw_offered_while_the_bot_is_on_move_is_refused_then_the_bot_moves(server) -> None:
    _bot_game(server, level=2)
    _position(server, BOT_AHEAD)
    _answer(server, "g1-e1")  # Alice moves (a jump): the bot is on move
    _answer(server, "draw")
    game = _game(server)
    assert game.turn == 1 and game.draw_offer == 0 and game.bot_due_at is not None
    before = len(server.mails(ALICE))
    assert _runner(server) == 1
    game = _game(server)
    assert [m.side for m in _moves(server)] == [0, 1]  # refused, then its move
    assert (game.status, game.turn, game.draw_offer, game.bot_due_at) == ("active", 0, None, None)
    subjects = _subjects(server, before)
    assert len(subjects) == 2 and "draw refused" in subjects[0] and "your move" in subjects[1]


def test_a_level_one_bot_lets_a_move_be_taken_back(server) -> None:
    _bot_game(server, level=1)
    _answer(server, "f2")  # the bot is on move
    _answer(server, "takeback")
    assert _game(server).takeback_offer == 0
    before = len(server.mails(ALICE))
    assert _runner(server) == 1
    game = _game(server)
    assert (game.ply, game.turn, game.takeback_offer, game.bot_due_at) == (0, 0, None, None)
    assert _moves(server) == [] and game.state == G.rules_of(game).dump(G.rules_of(game).start())
    (back,) = [m for m in server.mails(ALICE)[before:] if "f2 taken back" in str(m["Subject"])]
    body = flat(back)
    assert "bot-ataxx-1 let you take back f2 in game #1. It is your move again, alice (x), at move 1." in body
    assert "Reply with your move" in body
    with Session(server.engine) as session:
        entry = session.exec(select(AdminAction)).one()
        bot = session.get(Player, game.player1_id)
    assert (entry.action, entry.actor, entry.game_id) == ("takeback", f"player {ALICE}", 1)
    assert entry.detail == "took back f2 (move 1)" and entry.reason == f"accepted by {bot.address}"
    assert _runner(server) == 0  # Alice is on move again

    _answer(server, "g2")  # she plays another move; the bot answers it
    assert _runner(server) == 1
    assert [m.notation for m in _moves(server)][0] == "g2" and len(_moves(server)) == 2


def test_a_level_two_bot_refuses_a_take_back_and_plays_its_move(server) -> None:
    _bot_game(server, level=2)
    _answer(server, "f2")
    _answer(server, "takeback")
    before = len(server.mails(ALICE))
    assert _runner(server) == 1
    game = _game(server)
    assert [m.notation for m in _moves(server)][0] == "f2" and len(_moves(server)) == 2
    assert (game.ply, game.turn, game.takeback_offer, game.bot_due_at) == (2, 0, None, None)
    refused, moved = server.mails(ALICE)[before:]
    assert "take-back refused" in str(refused["Subject"])
    assert "bot-ataxx-2 refused to let you take back f2 in game #1; the game goes on." in flat(refused)
    assert "your move" in str(moved["Subject"])
    with Session(server.engine) as session:
        assert session.exec(select(AdminAction)).all() == []


def _answered(server, level: int) -> tuple[str, str]:
    """Alice (x) plays f2 against a bot of `level`, and the bot answers it: the two moves."""
    _bot_game(server, level=level)
    _answer(server, "f2")
    assert _runner(server) == 1
    mine, answer = (m.notation for m in _moves(server))
    game = _game(server)
    assert (game.ply, game.turn, game.bot_due_at) == (2, 0, None)
    return mine, answer


def _legal(server) -> str:
    """A legal move for the side on move in game #1 (a level-1 bot's choice)."""
    game = _game(server)
    rules = G.rules_of(game)
    pos = rules.load(game.state)
    move, _ = pbem_bots.choose(rules, pos, 1, game.ply)
    return rules.format(pos, move)


def _board_lines(mail) -> list[str]:
    return [line for line in text(mail).splitlines() if line.strip()[:1].isdigit() and "|" in line]


def test_a_level_one_bot_takes_back_a_move_and_its_answer(server) -> None:
    mine, answer = _answered(server, level=1)
    started = server.mails(ALICE)[1]  # the start position's board, when the game began
    assert len(_board_lines(started)) == 7
    with freeze_time("2026-12-05 12:00"):
        _answer(server, "takeback")  # on her own move: her f2 and the bot's answer
        asked = server.last(ALICE)
        game = _game(server)
        assert (game.takeback_offer, game.turn, game.ply) == (0, 0, 2) and game.bot_due_at is not None
        assert "you asked to take back your move" in str(asked["Subject"])
        assert (f"You asked bot-ataxx-1 to take back your move {mine} and the bot's answer {answer} in game #1. "
                "I will write when the bot answers; the request lapses if you move instead.") in flat(asked)
        before = len(server.mails(ALICE))
        assert _runner(server) == 1
    game = _game(server)
    rules = G.rules_of(game)
    assert (game.ply, game.turn, game.takeback_offer, game.bot_due_at) == (0, 0, None, None)
    assert _moves(server) == [] and game.state == rules.dump(rules.start())
    assert game.turn_started_at.replace(tzinfo=UTC) == datetime(2026, 12, 5, 12, tzinfo=UTC)  # her turn anew
    assert game.clock_due_at.replace(tzinfo=UTC) > datetime(2026, 12, 5, 12, tzinfo=UTC) + timedelta(days=4)
    (back,) = server.mails(ALICE)[before:]
    assert f"{mine} and {answer} taken back" in str(back["Subject"])
    body = flat(back)
    assert (f"bot-ataxx-1 let you take back your move {mine} and the bot's answer {answer} in game #1. "
            "It is your move again, alice (x), at move 1.") in body
    assert "Reply with your move" in body
    assert _board_lines(back) == _board_lines(started) and len(_board_lines(back)) == 7
    for line in text(back).splitlines()[1:]:
        assert len(line) <= 72, line
    with Session(server.engine) as session:
        entry = session.exec(select(AdminAction)).one()
        bot = session.get(Player, game.player1_id)
    assert (entry.action, entry.actor, entry.game_id) == ("takeback", f"player {ALICE}", 1)
    assert entry.detail == f"took back {mine} (move 1) and the answer {answer} (move 2)"
    assert entry.reason == f"accepted by {bot.address}"
    assert _runner(server) == 0  # Alice is on move: the bot does not replay its answer
    assert _moves(server) == [] and _game(server).bot_due_at is None

    _answer(server, "g2")  # she plays another move; the bot answers it
    assert _runner(server) == 1
    assert [m.notation for m in _moves(server)][0] == "g2" and len(_moves(server)) == 2
    assert _game(server).turn == 0


def test_a_level_three_bot_refuses_to_take_back_a_move_and_its_answer(server) -> None:
    mine, answer = _answered(server, level=3)
    _answer(server, "takeback")
    before = len(server.mails(ALICE))
    assert _runner(server) == 1
    game = _game(server)
    assert [m.notation for m in _moves(server)] == [mine, answer]
    assert (game.ply, game.turn, game.takeback_offer, game.bot_due_at) == (2, 0, None, None)
    (refused,) = server.mails(ALICE)[before:]
    assert "take-back refused" in str(refused["Subject"])
    assert (f"bot-ataxx-3 refused to let you take back your move {mine} and the bot's answer {answer} in game #1. "
            "It is still your move, alice.") in flat(refused)
    assert "Reply with your move" in flat(refused)
    with Session(server.engine) as session:
        assert session.exec(select(AdminAction)).all() == []
    assert _runner(server) == 0  # still her move: the bot plays nothing


def test_a_second_request_or_a_move_before_the_bot_answers(server) -> None:
    mine, answer = _answered(server, level=1)
    _answer(server, "takeback")
    _answer(server, "takeback")
    assert (f"You have already asked to take back your move {mine} and the bot's answer {answer} in game #1."
            in flat(server.last(ALICE)))
    stale = botrunner.consider(server.engine, server.service.settings, 1)
    assert (stale.offer, stale.side, stale.accept) == ("takeback", 1, True)
    _answer(server, _legal(server))  # she moves instead: the request lapses
    assert _game(server).takeback_offer is None
    assert botrunner.reply(server.engine, server.service.settings, server.service.templates, stale) is False
    assert _runner(server) == 1  # the bot answers her move, and takes nothing back
    assert len(_moves(server)) == 4
    with Session(server.engine) as session:
        assert session.exec(select(AdminAction)).all() == []


def test_against_a_bot_that_moved_first_only_her_own_move_and_its_answer_go(server) -> None:
    _bot_game(server, level=1, colour="second")
    assert _runner(server) == 1  # the bot opens
    _answer(server, "takeback")
    assert "You have not played a move in game #1 yet, so there is none to take back." in flat(server.last(ALICE))
    opening = _moves(server)[0].notation
    _answer(server, _legal(server))
    assert _runner(server) == 1
    assert (_game(server).ply, _game(server).turn) == (3, 1)
    _answer(server, "takeback")
    assert _runner(server) == 1
    game = _game(server)
    assert (game.ply, game.turn, game.takeback_offer, game.bot_due_at) == (1, 1, None, None)
    assert [m.notation for m in _moves(server)] == [opening]  # the bot's opening stays
    assert _runner(server) == 0


def test_takebacks_off_against_a_bot(server) -> None:
    server.say(ALICE, "challenge ataxx bot level=1 colour=first takebacks=off")
    server.confirm(ALICE)
    _answer(server, "f2")
    assert _runner(server) == 1
    _answer(server, "takeback")
    assert "Take-backs are off in game #1: its challenge said takebacks=off." in flat(server.last(ALICE))
    game = _game(server)
    assert (game.takeback_offer, game.ply, game.bot_due_at) == (None, 2, None)


def test_between_people_an_answered_move_is_still_not_taken_back(server) -> None:
    start_game(server)
    server.send(reply_to(ALICE, server.last(ALICE), "f2"))
    server.send(reply_to(BOB, server.last(BOB), "a1-c3"))
    _answer(server, "takeback")
    body = flat(server.last(ALICE))
    assert "It is your move in game #1: your opponent has answered your last move." in body
    assert "A take-back is asked before your opponent answers your move." in body
    game = _game(server)
    assert (game.takeback_offer, game.ply, game.turn) == (None, 2, 0)


def test_switched_off_bots_leave_the_offer_waiting(server) -> None:
    _bot_game(server, level=2)
    _position(server, BOT_AHEAD)
    _answer(server, "draw")
    before = len(server.mails(ALICE))
    assert _runner(server, bots=False) == 0
    assert _game(server).draw_offer == 0 and len(server.mails(ALICE)) == before
    assert _runner(server) == 1
    assert _game(server).draw_offer is None


def test_a_stale_answer_is_dropped(server) -> None:
    _bot_game(server, level=2)
    _position(server, BOT_AHEAD)
    _answer(server, "draw")
    answer = botrunner.consider(server.engine, server.service.settings, 1)
    assert (answer.offer, answer.side, answer.accept) == ("draw", 1, False)
    assert answer == botrunner.consider(server.engine, server.service.settings, 1)  # the same, after a crash
    _answer(server, "g1-e1")  # Alice moves meanwhile: her offer lapses
    before = len(server.mails(ALICE))
    assert botrunner.reply(server.engine, server.service.settings, server.service.templates, answer) is False
    assert len(server.mails(ALICE)) == before
    assert _runner(server) == 1  # the bot plays its move instead
    assert len(_moves(server)) == 2 and _game(server).draw_offer is None


def test_the_help_of_challenge_says_how_a_bot_answers_offers(server) -> None:
    server.say(ALICE, "help challenge")
    body = flat(server.last(ALICE))
    assert "A bot answers a draw offer (draw) within seconds: it accepts when it is not ahead" in body
    assert "A take-back request (takeback) it accepts at level 1, where you practise; at levels 2 and 3" in body
    assert "you may ask for the take-back after its answer, on your own move: takeback then asks to take back" in body
    server.say(ALICE, "help takeback")
    body = flat(server.last(ALICE))
    assert "Against a bot, which answers within seconds, you may also ask once it has answered" in body


def test_an_offer_stays_due_when_the_clock_is_rescheduled(server) -> None:
    _bot_game(server, level=2)
    _position(server, BOT_AHEAD)
    _answer(server, "draw")
    server.say(ALICE, "vacation 3")  # every game of hers is rescheduled
    with Session(server.engine) as session:
        assert len(session.exec(select(Vacation)).all()) == 1
    game = _game(server)
    assert game.draw_offer == 0 and game.bot_due_at is not None
    assert _runner(server) == 1 and _game(server).draw_offer is None
