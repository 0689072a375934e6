"""What players tripped over (issue 13), each through the service as a player's mail."""

from __future__ import annotations

import pytest

from tests.mailer import compose, reply_to, text
from tests.players import ALICE, BOB, CAROL, flat, start_game

# 1. a command word in the subject is read only when it is the mail's only command


def test_a_subject_beside_body_commands_is_not_run(server) -> None:
    for word in ("rules", "history", "record", "board"):
        server.send(compose(ALICE, "rules capturego", subject=word))
        answer = server.last(ALICE)
        assert "not done" not in answer["Subject"], word
        assert "I could not do" not in flat(answer), word
        assert "Capture Go" in flat(answer) or "capturego" in flat(answer).lower()


def test_a_subject_alone_is_read_once(server) -> None:
    server.send(compose(ALICE, "", subject="open"))
    assert "open challenge" in flat(server.last(ALICE)).lower() or "no open" in flat(server.last(ALICE)).lower()
    server.send(compose(ALICE, "help", subject="help"))
    assert flat(server.last(ALICE)).count("* * *") == 0  # one answer, not two


def test_a_fresh_iphone_accept_is_held_not_refused(server) -> None:
    server.say(ALICE, f"challenge ataxx {BOB}")
    server.confirm(ALICE)
    server.send(compose(BOB, "Accept 1\n\nSent from my iPhone", subject="Accept"))
    answer = server.last(BOB)
    assert "not done" not in answer["Subject"]
    assert "Please name the challenge" not in flat(answer)
    server.confirm(BOB)
    assert "You move" in flat(server.last(BOB)) or "your move" in flat(server.last(BOB)).lower()


# 4. the footer's separator is "-- ", so clients leave the footer out of a quote


def test_the_signature_separator_keeps_its_space(server) -> None:
    from sqlmodel import Session, select

    from pbem.core.models import Outbox

    server.say(ALICE, "help")
    with Session(server.engine) as session:
        raw = session.exec(select(Outbox.message).order_by(Outbox.id.desc())).first()
    assert b"\r\n-- \r\n" in raw


# 3. an example command is never broken across lines


def test_example_commands_are_never_wrapped(server) -> None:
    start_game(server)
    server.say(ALICE, "resign 1")
    over = text(server.last(ALICE)).replace("\r\n", "\n")
    assert any(line.startswith("e.g.  challenge ataxx bob@example.org") for line in over.splitlines())
    server.say(CAROL, "hello")
    assert any("challenge ataxx bob@example.org" in line for line in text(server.last(CAROL)).splitlines())
    server.say(CAROL, f"challenge ataxx {BOB}")
    server.confirm(CAROL)
    server.say(BOB, "games")
    lines = text(server.last(BOB)).splitlines()
    assert any('"accept 2" or "decline 2"' in line for line in lines)
    for line in lines[1:]:
        assert not line.strip().startswith(("accept", "decline", '"accept', '"decline'))


def test_the_wrapper_keeps_an_example_whole_and_glued() -> None:
    from pbem.commands.lines.reader import guarded_templates, reads_as_command
    from pbem.text.templates import _wrap, keep

    line = "Thank you for the game. For a return match, write e.g.  " + keep(
        "challenge", "ataxx", "someone.with.a.long.address@example.org"
    )
    lines = _wrap(line, reads_as_command)
    assert len(lines) == 2
    assert lines[1] == "e.g.  challenge ataxx someone.with.a.long.address@example.org"
    assert "\ue000" not in guarded_templates().render("nothing.txt").body


# 6 and 8: a finished board names no one to move; a capture count past its target reads right


@pytest.mark.parametrize("kind", ["capturego", "myriades"])
def test_a_finished_board_names_no_one_to_move(server, kind) -> None:
    start_game(server, kind, "colour=first")
    assert " to play" in text(server.last(ALICE)) or " to move," in text(server.last(ALICE))
    server.say(ALICE, "resign")
    for address in (ALICE, BOB):
        board = text(server.last(address))
        assert "resigned" in board
        assert " to play" not in board and " to move," not in board


def test_captures_past_the_target_read_as_reached(server) -> None:
    start_game(server, "capturego", "size=5 target=1 colour=black")
    for address, move in ((ALICE, "a2"), (BOB, "a1"), (ALICE, "b2"), (BOB, "b1"), (ALICE, "c1")):
        server.say(address, move)
    over = flat(server.last(ALICE))
    assert "captures: 2 (target 1 reached)" in over
    assert "2 of 1" not in over and "to play" not in over
    assert all(len(line) <= 72 for line in text(server.last(ALICE)).splitlines())  # the legend still fits


def test_results_colours_and_names_read_right(server) -> None:
    server.say(ALICE, "help")
    server.say(ALICE, f"challenge ataxx {BOB} colour=first")  # a reply: proven, so answered at once
    sent = server.last(ALICE)
    assert f"Challenge #1: Ataxx to {BOB}" in sent["Subject"]  # bob's name is not known yet
    assert "Your colour: x (you move first)." in flat(sent)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))
    server.say(BOB, "resign")
    assert "game over, 1-0, you won" in server.last(ALICE)["Subject"]
    assert "game over, 1-0, alice won" in server.last(BOB)["Subject"]
    server.say(BOB, f"challenge capturego {ALICE} colour=white")
    sent = server.last(BOB)
    assert "Challenge #2: Capture Go to alice" in sent["Subject"]  # a proven player's name
    assert "Your colour: white (you move second)." in flat(sent)


# 10. a mistyped command or game gets the nearest one


def test_a_mistyped_command_gets_a_did_you_mean(server) -> None:
    server.send(compose(ALICE, "chalenge ataxx bob@example.org\nhlep"))
    answer = flat(server.last(ALICE))
    assert 'I do not know the command "chalenge"' in answer
    assert "Did you mean challenge? It is written: challenge GAME" in answer
    assert "Did you mean help?" in answer
    assert "were not commands" not in answer  # the lines are answered, not listed as ignored
    server.send(compose(CAROL, "Hello there, thanks for the game\nGood game\nBest regards"))
    assert "found no command" in flat(server.last(CAROL)) and "Did you mean" not in flat(server.last(CAROL))


def test_a_mistyped_command_word_gets_the_word_of_the_players_language(server) -> None:
    server.send(compose(ALICE, "Здравствуйте!\nвызв атакс bob@example.org"))
    answer = flat(server.last(ALICE))
    assert 'Я не знаю команды "вызв"' in answer and "вы имели в виду вызов?" in answer
    assert 'напишите "help вызов"' in answer


# 10b. a command inside a line of prose, after the end of a sentence: written back, done nowhere


@pytest.mark.parametrize(("line", "command"), [
    ("Hi! A friend told me about this. challenge ataxx bob@example.org", "challenge ataxx bob@example.org"),
    ("Здравствуйте! Хочу сыграть с подругой. вызов атакс bob@example.org", "вызов атакс bob@example.org"),
    ("你好！我想和朋友下棋。挑战 ataxx bob@example.org", "挑战 ataxx bob@example.org"),
    ("Ciao, ecco la mia risposta: accetto 1.", "accetto 1"),
])
def test_a_command_after_a_sentence_is_shown_back_and_not_done(server, line: str, command: str) -> None:
    from sqlmodel import Session, select

    from pbem.core.models import Challenge, Outbox

    server.send(compose(ALICE, line))
    assert command in flat(server.last(ALICE))
    with Session(server.engine) as session:
        assert session.exec(select(Outbox.template).where(Outbox.recipient == ALICE)).all() == ["buried"]
        assert session.exec(select(Challenge)).first() is None  # nothing was done, nothing held to confirm


@pytest.mark.parametrize("line", [
    "Can you help? Thanks a lot for the game",  # a command word in prose, its words no command's
    "Good game. Thanks",
    "Well played! I resign myself to losing next time, friend, I think",  # too many words for resign
])
def test_prose_with_a_command_word_after_a_sentence_is_no_command(server, line: str) -> None:
    from pbem.runners.commands import buried

    assert buried(line) is None
    server.send(compose(CAROL, line))
    assert "inside a sentence" not in server.last(CAROL)["Subject"]


def test_an_unknown_game_suggests_the_nearest_one(server) -> None:
    server.say(ALICE, "help")
    cases = {
        "challenge atax bob@example.org": "Did you mean ataxx? Write e.g. challenge ataxx bob@example.org.",
        "challenge go": "Did you mean capturego? Write e.g. challenge capturego.",
        "challenge chess bob@example.org": "Write e.g. challenge ataxx bob@example.org.",
    }
    for line, expected in cases.items():
        server.say(ALICE, line)
        answer = flat(server.last(ALICE))
        assert expected in answer, line
        assert "rules chess" not in answer and "rules atax" not in answer


# 13. a reply names what it is about: the thread says which challenge or game


def test_accept_or_decline_alone_in_a_reply_to_the_challenge(server) -> None:
    server.say(ALICE, f"challenge ataxx {BOB}")
    server.confirm(ALICE)
    server.send(compose(BOB, "help"))  # Bob has written: a second invitation may go to him
    server.say(ALICE, f"challenge capturego {BOB}")  # a second one: "the only challenge" cannot decide
    received = [m for m in server.mails(BOB) if "(challenge #" in m["Subject"]]
    assert len(received) == 2
    server.send(reply_to(BOB, received[1], "decline"))
    assert "You declined challenge #2 from alice" in flat(server.last(BOB))
    assert "bob declined your challenge #2" in flat(server.last(ALICE))
    server.send(reply_to(BOB, received[0], "Accept"))
    assert "Please name the challenge" not in flat(server.last(BOB))
    assert "You move" in flat(server.last(BOB)) or "moves first" in flat(server.last(BOB))


def test_withdraw_alone_in_a_reply_to_our_challenge_mail(server) -> None:
    server.say(ALICE, "help")
    server.say(ALICE, f"challenge ataxx {BOB}")
    server.say(ALICE, f"challenge ataxx {CAROL}")
    first = next(m for m in server.mails(ALICE) if "Challenge #1" in m["Subject"])
    server.send(reply_to(ALICE, first, "withdraw"))
    assert "alice withdrew challenge #1" in flat(server.last(BOB))
    assert server.mails(CAROL)[-1]["Subject"].count("withdr") == 0


def test_game_commands_alone_in_a_reply_to_any_mail_of_the_game(server) -> None:
    start_game(server)  # game 1: alice (x) moves first
    server.say(CAROL, "help")
    server.say(CAROL, f"challenge ataxx {ALICE} colour=second")
    server.send(reply_to(ALICE, server.last(ALICE), "accept 2"))  # game 2: alice moves first too
    started = next(m for m in server.mails(ALICE) if "[pbem #1]" in m["Subject"])
    for line, expected in (("board", "[pbem #1]"), ("history", "[pbem #1]")):
        server.send(reply_to(ALICE, started, line))
        answer = server.last(ALICE)
        assert expected in answer["Subject"], line
        assert "Please name" not in flat(answer) and "which game" not in flat(answer).lower(), line
    server.send(reply_to(ALICE, started, "f2"))
    assert "You played f2" in flat(server.last(ALICE)) and "game #1" in flat(server.last(ALICE))
    moved = server.last(ALICE)
    server.send(reply_to(ALICE, moved, "resign"))
    assert "[pbem #1]" in server.last(ALICE)["Subject"] and "resigned" in flat(server.last(ALICE))


# 9. help and history lead with what matters; the rest is one command away


def test_help_is_short_and_help_all_lists_every_command(server) -> None:
    from pbem.commands.lines import base

    server.say(ALICE, "help")
    short = text(server.last(ALICE)).splitlines()
    assert len(short) <= 30  # with the footer's line, to an address that never proved itself, on how to stop
    assert any("challenge GAME ADDRESS" in line for line in short)
    words = " ".join(short)
    assert all(c.name in words for c in base.commands())  # every command is at least named
    assert '"help all" for every command' in " ".join(words.split())
    server.say(ALICE, "help all")
    full = flat(server.last(ALICE))
    assert all(c.syntax in full for c in base.commands())
    server.say(ALICE, "help history")
    assert "history 42 full" in flat(server.last(ALICE))


def test_history_shows_the_last_moves_and_full_shows_all(server) -> None:
    start_game(server)
    moves = [(ALICE, "f2"), (BOB, "b2"), (ALICE, "e3"), (BOB, "c3"), (ALICE, "f3"), (BOB, "b3"),
             (ALICE, "g2"), (BOB, "a2"), (ALICE, "e2"), (BOB, "c2"), (ALICE, "g3"), (BOB, "a3")]
    for address, move in moves:
        server.say(address, move)
        assert "You played" in flat(server.last(address)), (move, flat(server.last(address)))
    server.say(ALICE, "history")
    short = flat(server.last(ALICE))
    assert "The last 10 moves of game #1; 2 before them are left out" in short
    assert 'write "history 1 full" for every move' in short
    assert " f2 " not in short and " a3 " in short
    server.say(ALICE, "history 1 full")
    full = flat(server.last(ALICE))
    assert "The moves of game #1." in full and " f2 " in full and " a3 " in full


# 2. the error budget counts only what the sender caused, and says once that it is spent


def test_the_error_budget_says_once_that_it_is_spent(server) -> None:
    limit = server.service.settings.max_error_replies_per_day
    start_game(server)
    for _ in range(20):  # a forger's mails, in Alice's name: they show no proof (a few notices at most)
        server.send(compose(ALICE, "withdraw 9"))
    server.say(ALICE, "z9")  # a genuine mistake is still answered
    assert "I could not do" in flat(server.last(ALICE)) or "not played" in server.last(ALICE)["Subject"]
    answered = len(server.mails(ALICE))
    for _ in range(limit + 3):
        server.say(ALICE, "move z9")
    mails = server.mails(ALICE)
    notices = [m for m in mails if "last answer I send you until midnight" in flat(m)]
    assert len(notices) == 1 and notices[0] is mails[-1]  # one notice, with the last error, then silence
    assert len(mails) - answered == limit - 1
    server.say(ALICE, "f2")  # a move that works is always answered
    assert "You played f2" in flat(server.last(ALICE))


def test_an_example_in_a_refusals_hint_is_kept_whole(server) -> None:
    server.say(ALICE, "help")
    server.say(ALICE, "timezone Mars/Olympus")
    lines = text(server.last(ALICE)).splitlines()
    assert any("timezone America/New_York" in line for line in lines), lines
    assert any("timezone Europe/Rome" in line for line in lines)
    assert all(len(line) <= 72 for line in lines)


def test_the_move_examples_stay_whole_on_their_own_line(server) -> None:
    start_game(server, "myriades")
    lines = text(server.last(ALICE)).splitlines()
    assert any(line.startswith("Reply with your move on the first line, e.g.  0@a1") for line in lines)
    assert any(line.startswith("How to write a move:") for line in lines)
