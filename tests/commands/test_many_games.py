"""One mail with lines for several games (`#42 c4`), `games` by urgency, and `next`."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time
from sqlmodel import Session

from pbem.commands.lines import reader
from pbem.core.models import Game
from tests.mailer import compose, reply_to, text
from tests.players import ALICE, BOB, CAROL, flat

DAVE = "dave@example.org"
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # a Tuesday


def three_games(server, days: tuple[int, int, int] = (7, 7, 7)) -> None:
    """Alice moves first in three games: #1 ataxx against Bob, #2 capture go against Carol,
    #3 ataxx against Dave (`days` per move in each)."""
    server.say(ALICE, f"challenge ataxx {BOB} colour=first days={days[0]}")
    server.confirm(ALICE)
    server.say(BOB, "accept 1")
    server.say(ALICE, f"challenge capturego {CAROL} colour=first size=9 days={days[1]}")
    server.say(CAROL, "accept 2")
    server.say(ALICE, f"challenge ataxx {DAVE} colour=first days={days[2]}")
    server.say(DAVE, "accept 3")


def plies(server) -> dict[int, int]:
    with Session(server.engine) as session:
        return {gid: session.get(Game, gid).ply for gid in (1, 2, 3)}


def about(server, address: str, game_id: int):
    """The newest mail to `address` about game `game_id`."""
    return [m for m in server.mails(address) if f"[pbem #{game_id}]" in m["Subject"]][-1]


@pytest.mark.parametrize(
    ("line", "game", "command", "words"),
    [
        ("#42 c4", 42, None, ["c4"]),
        ("#42: c4", 42, None, ["c4"]),
        ("# 42 c4", 42, None, ["c4"]),
        ("#42 a1-c3", 42, None, ["a1-c3"]),
        ("#42 pass", 42, "pass", ["pass"]),
        ("#42 resign", 42, "resign", ["resign"]),
        ("#42: draw", 42, "draw", ["draw"]),
        ("#7 move e5", 7, "move", ["move", "e5"]),
        ("c4", None, None, ["c4"]),
        ("move 42 c4", None, "move", ["move", "42", "c4"]),
    ],
)
def test_a_line_may_name_its_game_first(line: str, game: int | None, command: str | None, words: list[str]) -> None:
    found = reader.classify(line)
    assert found is not None
    assert (found.game, found.command.name if found.command else None, found.words) == (game, command, words)


@pytest.mark.parametrize(
    "line",
    [
        "#1 fan here",  # chatter after a number
        "#42  ataxx 7x7 against bob: YOUR MOVE (move 3)",  # a quoted games list
        "#2  capture go 9x9, first to 1 capture against carol: YOUR MOVE",
        "#42 help",  # a command that is about no game
        "#42 games",
        "#42",
        "#42c4",
        "7 | x . . . . . o | 7",  # a quoted board row
        "#  blocked",  # a board's legend
    ],
)
def test_lines_that_are_no_move_for_a_game(line: str) -> None:
    assert reader.classify(line) is None


def test_one_mail_answers_three_games_with_one_reply(server) -> None:
    three_games(server)
    server.say(ALICE, "games")  # her list shows the three games as they stand
    before = {who: len(server.mails(who)) for who in (ALICE, BOB, CAROL, DAVE)}
    # a reply to it, with a line for each game; game 3's move is wrong
    server.send(reply_to(ALICE, server.last(ALICE), "#2 e5\n#3: z9\n#1 f2\n#1 fan here"))
    assert plies(server) == {1: 1, 2: 1, 3: 0}
    assert len(server.mails(ALICE)) == before[ALICE] + 1  # one reply, a section per game
    reply = server.last(ALICE)
    assert reply["Subject"].startswith("[pbem] Games #2, #3, #1:")
    body = flat(reply)
    assert "Game #2: capture go 9x9, first to 1 capture against carol" in body
    assert "Game #3: ataxx 7x7 against dave" in body and "Game #1: ataxx 7x7 against bob" in body
    assert "You played e5 in game #2" in body and "You played f2 in game #1" in body
    assert 'I could not do "#3: z9" in game #3: "z9": z9 is off the board' in body
    assert "Nothing has changed; it is still your move, alice (x)" in body
    assert "| #1 fan here" in body  # chatter, left alone
    sections = text(reply).split("* * *")
    assert len(sections) == 3 and "game #3" in sections[1] and "game #1" in sections[2]
    # the opponents hear of the moves played, and Dave of nothing
    assert len(server.mails(BOB)) == before[BOB] + 1 and "alice played f2" in flat(server.last(BOB))
    assert len(server.mails(CAROL)) == before[CAROL] + 1 and "alice played e5" in flat(server.last(CAROL))
    assert len(server.mails(DAVE)) == before[DAVE]


def test_a_line_for_a_game_its_mail_did_not_show_gets_that_board(server) -> None:
    three_games(server)
    server.send(reply_to(ALICE, about(server, ALICE, 1), "f2\n#2 e5"))  # game 1's mail never showed game 2
    assert plies(server) == {1: 1, 2: 0, 3: 0}
    reply = server.last(ALICE)
    body = flat(reply)
    assert "You played f2 in game #1" in body
    assert 'I could not do "#2 e5" in game #2: I act on game #2 only in a reply to my mail that shows its board' in body
    assert "reply to this mail with the line again: #2 e5" in body and "Game #2: capture go 9x9" in body
    server.send(reply_to(ALICE, reply, "#2 e5"))  # that answer showed game 2's board: now it acts
    assert plies(server) == {1: 1, 2: 1, 3: 0}


def test_a_reply_about_several_games_is_about_none(server) -> None:
    three_games(server)
    server.say(ALICE, "games")
    server.say(ALICE, "#1 f2\n#2 e5")
    assert "+g" not in server.last(ALICE)["Reply-To"]  # its Reply-To names no game
    server.say(ALICE, "f1")  # a bare move in answer to it: which game?
    assert plies(server) == {1: 1, 2: 1, 3: 0}
    body = flat(server.last(ALICE))
    assert "You have 3 games in progress (#1, #2, #3) and I cannot tell which one you mean" in body
    assert re.search(r"e\.g\. #3 [a-g]\d(-[a-g]\d)?, or reply to that game's mail", body), body  # the one on move
    server.say(ALICE, "games")
    server.say(ALICE, "#3 f1")
    assert plies(server) == {1: 1, 2: 1, 3: 1}


def test_a_line_for_a_game_the_mail_shows_at_an_older_board_is_refused(server) -> None:
    three_games(server)
    old = about(server, ALICE, 1)
    server.send(reply_to(ALICE, old, "f2"))
    server.send(reply_to(BOB, server.last(BOB), "b1"))
    server.send(reply_to(ALICE, old, "#1 e2\n#2 e5"))  # the old mail showed game 1 before two moves
    assert plies(server) == {1: 2, 2: 0, 3: 0}
    body = flat(server.last(ALICE))
    assert "Your mail answers an older board of game #1" in body and "I act on game #2 only in a reply" in body


def test_lines_for_games_that_are_not_the_senders(server) -> None:
    three_games(server)
    server.send(reply_to(BOB, server.last(BOB), "#2 e5\n#1 pass"))
    assert plies(server) == {1: 0, 2: 0, 3: 0}
    body = flat(server.last(BOB))
    assert "You are not playing a game #2" in body and "It is not your move in game #1" in body


def test_games_lists_those_waiting_for_you_first_by_deadline(server) -> None:
    with freeze_time(START):
        three_games(server, days=(10, 3, 5))
    with freeze_time(START + timedelta(hours=1)):
        server.send(reply_to(ALICE, about(server, ALICE, 3), "f2"))  # now Dave is on move in #3
        server.say(ALICE, "timezone Europe/Rome")
        server.say(ALICE, "games")
    listing = text(server.last(ALICE))
    order = [int(n) for n in re.findall(r"^  #(\d+) ", listing, re.M)]
    assert order == [2, 1, 3]
    body = flat(server.last(ALICE))
    assert "#2 capture go 9x9, first to 1 capture against carol: YOUR MOVE (move 1) Your deadline: Fri 4 Dec 2026, 10:00 Europe/Rome (2 days left)" in body
    assert "#1 ataxx 7x7 against bob: YOUR MOVE (move 1) Your deadline: Fri 11 Dec 2026, 10:00 Europe/Rome" in body
    assert "#3 ataxx 7x7 against dave: dave to move (move 2) Deadline for dave: Sun 6 Dec 2026, 11:00 Europe/Rome" in body


def test_next_shows_the_most_urgent_board_and_a_move_alone_answers_it(server) -> None:
    with freeze_time(START):
        three_games(server, days=(10, 3, 5))
    with freeze_time(START + timedelta(hours=1)):
        server.say(ALICE, "next")
        mail = server.last(ALICE)
        assert mail["Subject"].startswith("[pbem #2] Capture Go: your move, alice")
        body = flat(mail)
        assert "3 games wait for your move; game #2 is the most urgent" in body
        assert "It is your move in game #2, alice (black)" in body and "Reply with your move" in body
        server.say(ALICE, "e5")  # the reply to it is about game 2
        assert plies(server) == {1: 0, 2: 1, 3: 0}
        server.say(ALICE, "next")
        assert "[pbem #3]" in server.last(ALICE)["Subject"]  # five days beat ten


def test_next_when_no_game_waits(server) -> None:
    server.say(ALICE, "next")
    assert "You have no game in progress" in flat(server.last(ALICE))
    three_games(server)
    for gid, move in ((1, "f2"), (2, "e5"), (3, "f2")):
        server.send(reply_to(ALICE, about(server, ALICE, gid), move))
    server.say(ALICE, "next")
    mail = server.last(ALICE)
    assert mail["Subject"].startswith("[pbem] No game waits for your move")
    body = flat(mail)
    assert "your opponents are on move in all of yours" in body and "#1" not in body and "|" not in body


def test_a_held_bare_move_keeps_its_game_when_confirmed(server) -> None:
    three_games(server)
    mail = about(server, ALICE, 1)
    refs = f"{mail.get('References', '')} {mail['Message-ID']}".strip()
    # a reply in game 1's thread from a client that kept neither our Reply-To nor the subject;
    # the next day, when the day's answers to mails without proof are fresh
    with freeze_time(datetime.now(UTC) + timedelta(days=1)):
        server.send(compose(ALICE, "f2", subject="Re: our game", In_Reply_To=mail["Message-ID"], References=refs))
        assert "Did you write to me?" in server.last(ALICE)["Subject"] and plies(server) == {1: 0, 2: 0, 3: 0}
        server.confirm(ALICE)
    assert plies(server) == {1: 1, 2: 0, 3: 0}
    assert "You played f2 in game #1" in flat(server.last(ALICE))
