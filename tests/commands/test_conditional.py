"""Conditional moves (`if X then Y ...`): what is stored, what is played at once, who is told."""

from __future__ import annotations

from dataclasses import replace

from sqlmodel import Session, select

from pbem.core.models import Conditional, Game, Move
from tests.mailer import text
from tests.players import ALICE, BOB, flat, start_game

# Ataxx 7x7, Alice x (moves first) at a7 and g1, Bob o at g7 and a1.


def _lines(server) -> list[Conditional]:
    with Session(server.engine) as session:
        return list(session.exec(select(Conditional).order_by(Conditional.id)))


def _moves(server) -> list[str]:
    with Session(server.engine) as session:
        return [m.notation for m in session.exec(select(Move).order_by(Move.ply))]


def _after_f2(server) -> None:
    start_game(server)
    server.say(ALICE, "f2")


def test_a_chain_is_played_out_and_both_players_are_told(server) -> None:
    _after_f2(server)
    server.say(ALICE, "if b1 then e1 if c1 then d1")
    assert "I keep your conditional line in game #1" in flat(server.last(ALICE))
    assert "1. b1 -> e1, c1 -> d1" in flat(server.last(ALICE))
    (line,) = _lines(server)
    assert (line.ply, line.moves) == (2, ["b1", "e1", "c1", "d1"])
    before = len(server.mails(ALICE))

    server.say(BOB, "b1")
    assert _moves(server) == ["f2", "b1", "e1"]
    reply = flat(server.last(BOB))  # Bob's reply: his move, then the answer and his next board
    assert "You played b1 in game #1" in reply
    assert "alice played e1. Your move, bob (o)." in reply
    assert "alice had written that answer to b1 in advance" in reply
    assert "1 | o o . . X . x | 1" in text(server.last(BOB))
    told = server.mails(ALICE)[before:]
    assert len(told) == 1  # one mail: the move played for her, not a "your move" for b1
    said = flat(told[0])
    assert "bob played b1, and your conditional line answered it at once." in said
    assert "You played e1 in game #1. Now bob (o) is on move" in said
    assert "The rest of your line (1 more pair) waits" in said
    assert "Your move, alice" not in said
    (line,) = _lines(server)
    assert (line.ply, line.moves) == (4, ["c1", "d1"])

    server.say(BOB, "c1")
    assert _moves(server) == ["f2", "b1", "e1", "c1", "d1"]
    assert _lines(server) == []
    assert "alice had written that answer to c1 in advance" in flat(server.last(BOB))
    assert "The rest of your line" not in flat(server.last(ALICE))
    with Session(server.engine) as session:
        game = session.get(Game, 1)
        assert (game.ply, game.turn) == (5, 1)


def test_alternatives_in_one_mail_and_the_unplayed_one_is_dropped(server) -> None:
    _after_f2(server)
    server.say(ALICE, "if b1 then e1\nif b2 then e2")
    assert "Your 2 conditional lines in game #1" in flat(server.last(ALICE))
    server.say(BOB, "b2")
    assert _moves(server) == ["f2", "b2", "e2"]
    said = flat(server.last(ALICE))
    assert "bob played b2, and your conditional line answered it at once." in said
    assert "bob played b2, which your conditional line does not answer, so I dropped it: 1. b1 -> e1" in said
    assert _lines(server) == []


def test_another_move_drops_the_lines_with_a_notice(server) -> None:
    _after_f2(server)
    server.say(ALICE, "if b1 then e1")
    server.say(BOB, "a2")
    assert _moves(server) == ["f2", "a2"]
    said = flat(server.last(ALICE))
    assert "bob played a2. Your move, alice (x)." in said
    assert "which your conditional line does not answer, so I dropped it: 1. b1 -> e1" in said
    assert _lines(server) == []


def test_a_second_line_for_the_same_move_replaces_the_first(server) -> None:
    _after_f2(server)
    server.say(ALICE, "if b1 then e1")
    server.say(ALICE, "if b1 then e2")
    assert "replaces the one you had written for that move" in flat(server.last(ALICE))
    (line,) = _lines(server)
    assert line.moves == ["b1", "e2"]


def test_bad_lines_say_why_and_store_nothing(server) -> None:
    start_game(server)
    server.say(ALICE, "if b1 then e1")
    assert "It is your move in game #1" in flat(server.last(ALICE))
    assert "Play your move first, on a line above the if line in the same mail." in flat(server.last(ALICE))
    server.say(ALICE, "f2")
    cases = {
        "if f2 then e1": "your opponent cannot play f2 there",
        "if b1 then a4": "you could not answer with a4",
        "if b1 then e1 if b1 then c1": "your opponent cannot play b1 there",
        "if 7 b1 then e1": "You are not playing a game #7",
        "if b1 e1": "I could not read this conditional line",
        "if b1 then": "I could not read this conditional line",
    }
    for line, expected in cases.items():
        server.say(ALICE, line)
        assert expected in flat(server.last(ALICE)), line
        assert "Nothing has changed" in flat(server.last(ALICE)), line
    server.say(BOB, "if a7 then b2")
    assert "It is your move in game #1" in flat(server.last(BOB))
    assert _lines(server) == []


def test_a_move_and_a_line_in_one_mail(server) -> None:
    start_game(server)
    server.say(ALICE, "f2\nif b1 then e1")
    assert "I keep your conditional line in game #1" in flat(server.last(ALICE))
    assert len(_lines(server)) == 1


def test_list_and_clear(server) -> None:
    _after_f2(server)
    server.say(ALICE, "if list")
    assert "You have no conditional lines in game #1." in flat(server.last(ALICE))
    server.say(ALICE, "if b1 then e1\nif 1 b2 then e2")
    server.say(ALICE, "if 1 list")
    assert "1. b1 -> e1 2. b2 -> e2" in flat(server.last(ALICE))
    server.say(ALICE, "if clear")
    assert "I dropped your 2 conditional lines in game #1." in flat(server.last(ALICE))
    assert _lines(server) == []
    server.say(ALICE, "if clear")
    assert "You had no conditional lines in game #1" in flat(server.last(ALICE))


def test_other_languages_write_the_same_line(server) -> None:
    _after_f2(server)
    server.say(ALICE, "если b1 то e1")
    server.say(ALICE, "se b2 allora e2")
    assert [line.moves for line in _lines(server)] == [["b1", "e1"], ["b2", "e2"]]


def test_prose_that_starts_with_if_is_no_command(server) -> None:
    _after_f2(server)
    server.say(ALICE, "If you need a break, write to me")
    assert "These lines were not commands" in flat(server.last(ALICE))
    assert "I could not" not in flat(server.last(ALICE))


def test_the_limits_of_the_settings(server) -> None:
    server.service.settings = replace(server.service.settings, max_conditional_lines=2, max_conditional_chain=2)
    _after_f2(server)
    server.say(ALICE, "if b1 then e1 if c1 then d1 if d2 then e3")
    assert "at most 2 pairs of moves" in flat(server.last(ALICE))
    server.say(ALICE, "if b1 then e1\nif b2 then e2\nif a2 then e1")
    assert "You have 2 conditional lines in game #1, the most I keep." in flat(server.last(ALICE))
    server.say(ALICE, "if b2 then e1")  # a replacement is no new line
    assert "replaces the one" in flat(server.last(ALICE))
    assert len(_lines(server)) == 2


def test_an_answer_the_rules_refuse_now_is_dropped(server) -> None:
    _after_f2(server)
    server.say(ALICE, "if b1 then e1")
    with Session(server.engine) as session:  # as if the position had changed under the line
        line = session.exec(select(Conditional)).one()
        line.moves = ["b1", "a4"]
        session.add(line)
        session.commit()
    server.say(BOB, "b1")
    assert _moves(server) == ["f2", "b1"]
    said = flat(server.last(ALICE))
    assert "Your move, alice (x)." in said
    assert "the rules do not allow your conditional answer now, so I dropped the line: 1. b1 -> a4" in said


def test_an_answer_that_ends_the_game_sends_the_game_over(server) -> None:
    start_game(server, "capturego", "size=5 colour=black target=1")
    server.say(ALICE, "a2")
    server.say(BOB, "a1")  # white in the corner, one liberty left (b1)
    server.say(ALICE, "e5")
    server.say(ALICE, "if e4 then b1")
    server.say(BOB, "e4")
    with Session(server.engine) as session:
        game = session.get(Game, 1)
        assert game.status == "finished" and game.winner == 0
    assert "bob played e4, and your conditional line answered it at once." in flat(server.last(ALICE))
    assert "You played b1, and that ends the game" in flat(server.last(ALICE))
    assert "Game #1 is over" in flat(server.last(BOB))
    assert _lines(server) == []


def test_a_conditional_answer_may_set_off_the_other_players_line(server) -> None:
    _after_f2(server)
    server.say(ALICE, "if b1 then e1")
    with Session(server.engine) as session:  # Bob's line for Alice's answer (a chain of his, in effect)
        alice_line = session.exec(select(Conditional)).one()
        bob_id = session.get(Game, 1).player1_id
        session.add(Conditional(game_id=1, player_id=bob_id, ply=3, moves=["e1", "c1"], raw="if e1 then c1",
                                created_at=alice_line.created_at))
        session.commit()
    server.say(BOB, "b1")
    assert _moves(server) == ["f2", "b1", "e1", "c1"]
    reply = flat(server.last(BOB))
    assert "alice played e1, and your conditional line answered it at once." in reply
    assert "You played c1 in game #1. Now alice (x) is on move" in reply
    assert "Your move, bob" not in reply
    said = flat(server.last(ALICE))
    assert "bob played c1. Your move, alice (x)." in said
    assert "bob had written that answer to e1 in advance" in said
    assert _lines(server) == []
