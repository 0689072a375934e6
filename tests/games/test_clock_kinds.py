"""Every kind of clock through the service: chosen at the challenge, charged on every move, shown in
the mails (checked against the pure model), ended on time or by the rules; DST and a zone change."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time
from sqlmodel import Session, select

from pbem.core.models import Game, Move
from pbem.games import clock, records, zones
from pbem.games import timecontrol as tc
from pbem.runners import clock as timekeeper
from pbem.text.i18n import speaker
from tests.games.test_clock_service import ALICE, BOB, START, body, game, say, tick
from tests.languages import english_left, too_wide

KINDS = ["fischer:3d+1d/7d", "bank:2d+10d", "iccf:10/50d", "delay:10d+1d", "none"]
EN = speaker("en")


def words(text: str) -> str:
    return " ".join(text.split())


def begin(server, notation: str, extra: str = "") -> None:
    """Alice challenges Bob to Capture Go with the clock; the game starts at START - 1 h with her
    (black) on move; she plays b1 at START."""
    with freeze_time(START - timedelta(hours=2)):
        say(server, ALICE, f"challenge capturego {BOB} size=9 colour=first clock={notation} {extra}")
        say(server, ALICE, "confirm")
    with freeze_time(START - timedelta(hours=1)):
        say(server, BOB, "accept 1")
    with freeze_time(START):
        say(server, ALICE, "move 1 b1")


def left_line(control: tc.TimeControl, sides: tc.Sides, on_move: int, used: float) -> str:
    lefts = [EN.say(tc.span(control.remaining(sides, s, used if s == on_move else 0))) for s in (0, 1)]
    return f"Time left: alice (black) {lefts[0]}, bob (white) {lefts[1]}."


@pytest.mark.parametrize("notation", KINDS)
def test_each_kind_played_to_a_normal_end_with_the_times_the_model_gives(clocked, notation: str) -> None:
    control = tc.parse(notation)
    begin(clocked, notation)
    sides = control.after(control.start(), 0, 3600)  # Alice used the hour since the start
    g = game(clocked)
    assert g.clock == notation
    assert tc.Sides.load(g.clock_sides) == (sides if control.timed else control.start())
    mail = words(body(clocked.last(BOB)))
    assert f"Clock: {EN.say(control.describe())}." in mail
    if control.timed:
        assert left_line(control, sides, 1, 0) in mail
        until = START + timedelta(seconds=control.budget(sides, 1))
        assert f"Your deadline: {zones.when(until, UTC)}" in mail
    else:
        assert "Time left" not in mail and "deadline" not in mail.lower()
        assert g.clock_due_at is None
    with freeze_time(START + timedelta(days=1, hours=2)):
        say(clocked, BOB, "move 1 a1")
    sides = control.after(sides, 1, (26 + 0) * 3600 if control.timed else 0)
    mail = words(body(clocked.last(ALICE)))
    if control.timed:
        assert tc.Sides.load(game(clocked).clock_sides) == sides
        assert left_line(control, sides, 0, 0) in mail
    with freeze_time(START + timedelta(days=1, hours=7)):
        say(clocked, ALICE, "board 1")  # five hours into her turn: her time shown runs down
        if control.timed:
            assert left_line(control, sides, 0, 5 * 3600) in words(body(clocked.last(ALICE)))
        say(clocked, ALICE, "move 1 a2")  # captures a1: Capture Go's target of one stone is reached
    g = game(clocked)
    assert (g.status, g.result, g.ending) == ("finished", "1-0", "rules")
    over = words(body(clocked.last(BOB)))
    assert f"Clock: {EN.say(control.describe())}." in over and "Time left" not in over
    with Session(clocked.engine) as session:
        lefts = [m.clock_left for m in session.exec(select(Move).order_by(Move.ply))]
        record = records.export(session, session.get(Game, 1)).text
    if control.timed:
        assert lefts[:2] == [control.after(control.start(), 0, 3600).left[0], sides.left[1]]
        tm, ot = control.sgf()
        assert f"TM[{tm}]" in record and f"OT[{ot}]" in record
        assert f"BL[{lefts[0]}]" in record and f"WL[{lefts[1]}]" in record
    else:
        assert lefts == [None, None, None] and "TM[" not in record


@pytest.mark.parametrize("notation", KINDS)
def test_each_kind_to_a_loss_on_time_at_the_moment_the_model_gives(clocked, notation: str) -> None:
    control = tc.parse(notation)
    begin(clocked, notation)
    sides = control.after(control.start(), 0, 3600)
    budget = control.budget(sides, 1)
    if budget is None:  # no clock: nothing ever falls due
        assert tick(clocked, START + timedelta(days=400)) == timekeeper.Round(0, 0)
        assert game(clocked).status == "active"
        return
    until = START + timedelta(seconds=budget)
    assert tick(clocked, until - timedelta(seconds=1)).forfeits == 0
    assert tick(clocked, until + timedelta(seconds=1)).forfeits == 1
    g = game(clocked)
    assert (g.status, g.winner, g.ending, g.reason) == ("finished", 0, "time", "bob ran out of time")
    assert "Game #1 is over: bob ran out of time." in body(clocked.last(ALICE))


def test_iccf_carries_the_saved_time_into_the_next_period(clocked) -> None:
    begin(clocked, "iccf:1/5d")  # one move in five days: each move brings five more
    g = game(clocked)
    assert tc.Sides.load(g.clock_sides).left == (10 * tc.DAY - 3600, 5 * tc.DAY)  # 5 days less 1 hour, and 5 more
    assert "Time left: alice (black) 9 days 23 hours, bob (white) 5 days." in words(body(clocked.last(BOB)))
    assert tick(clocked, START + timedelta(days=5, seconds=1)).forfeits == 1


def test_a_vacation_and_weekends_off_stop_a_fischer_clock(clocked) -> None:
    begin(clocked, "fischer:3d+1d/7d", "weekends=off")  # START is a Monday: Bob has 3 days of running time
    with freeze_time(START + timedelta(hours=1)):
        say(clocked, BOB, "vacation 2")
    # 1 hour on Monday, away until Wednesday 10:00, 62 hours to Saturday, the weekend, 9 hours on Monday
    with Session(clocked.engine) as session:
        assert clock.game_deadline(session, game(clocked)) == START + timedelta(days=7)
    assert tick(clocked, START + timedelta(days=5)).forfeits == 0
    with freeze_time(START + timedelta(days=4)):  # Friday 09:00: 1 + 47 hours of running time used
        say(clocked, BOB, "move 1 a1")
    assert tc.Sides.load(game(clocked).clock_sides).left[1] == 3 * tc.DAY - 48 * 3600 + tc.DAY


def test_fischer_across_dst_and_a_change_of_zone(clocked) -> None:
    spring = datetime(2026, 3, 27, 9, tzinfo=UTC)  # Friday; Rome goes to summer time on Sunday 29 March
    with freeze_time(spring - timedelta(hours=3)):
        say(clocked, BOB, "timezone Europe/Rome")
        say(clocked, BOB, "confirm")
        say(clocked, ALICE, f"challenge capturego {BOB} size=9 colour=first clock=fischer:3d+1d/7d")
        say(clocked, ALICE, "confirm")
        say(clocked, BOB, "accept 1")
    with freeze_time(spring):
        say(clocked, ALICE, "move 1 b1")
    left = tc.parse("fischer:3d+1d/7d").after(tc.parse("fischer:3d+1d/7d").start(), 0, 3 * 3600).left
    assert left[1] == 3 * tc.DAY
    # 72 hours of running time: Monday 09:00 UTC, which is 11:00 in Rome after the switch (10:00 before)
    assert "Your deadline: Mon 30 Mar 2026, 11:00 Europe/Rome (3 days left)." in words(body(clocked.last(BOB)))
    with freeze_time(spring + timedelta(days=1)):
        say(clocked, BOB, "timezone America/New_York")  # no weekends off: a zone changes no running time
        say(clocked, BOB, "board 1")
        mail = words(body(clocked.last(BOB)))
        assert "Your deadline: Mon 30 Mar 2026, 05:00 America/New_York (2 days left)." in mail
        assert "bob (white) 2 days." in mail
    with freeze_time(spring + timedelta(days=2, hours=12)):  # Sunday, after the switch
        say(clocked, BOB, "move 1 a1")
    assert tc.Sides.load(game(clocked).clock_sides).left[1] == 3 * tc.DAY - 60 * 3600 + tc.DAY
    assert "bob (white) 1 day 12 hours." in words(body(clocked.last(ALICE)))
    assert tick(clocked, spring + timedelta(days=2, hours=12) + timedelta(seconds=left[0] - 1)).forfeits == 0
    assert tick(clocked, spring + timedelta(days=2, hours=12) + timedelta(seconds=left[0] + 1)).forfeits == 1


def test_a_take_back_gives_the_clock_as_it_was_before_the_move(clocked) -> None:
    begin(clocked, "fischer:3d+1d/7d")
    with freeze_time(START + timedelta(days=1)):
        say(clocked, BOB, "move 1 a1")
    before = tc.Sides.load(game(clocked).clock_sides)
    assert before.left == (4 * tc.DAY - 3600, 3 * tc.DAY)
    with freeze_time(START + timedelta(days=1, hours=1)):
        say(clocked, BOB, "takeback 1")
        say(clocked, ALICE, "takeback 1 accept")
    g = game(clocked)
    assert (g.ply, g.turn) == (1, 1)
    assert tc.Sides.load(g.clock_sides) == tc.Sides((4 * tc.DAY - 3600, 3 * tc.DAY), (1, 0))


def test_a_wrong_clock_is_refused_with_what_would_work(clocked) -> None:
    say(clocked, ALICE, f"challenge ataxx {BOB} clock=fischer:3d")
    text = words(body(clocked.last(ALICE)))
    assert "clock=fischer:3d is not a clock I know." in text
    assert "clock=iccf:10/50d" in text
    say(clocked, ALICE, f"challenge ataxx {BOB} clock=days:3 days=3")
    assert "not both" in words(body(clocked.last(ALICE)))
    with Session(clocked.engine) as session:
        assert session.exec(select(Game)).first() is None


@pytest.mark.parametrize("language", ["it", "ru", "uk", "ko", "zh"])
def test_the_clock_lines_speak_the_readers_language(clocked, language: str) -> None:
    with freeze_time(START - timedelta(hours=3)):
        say(clocked, BOB, f"language {language}")
        say(clocked, BOB, "confirm")
    begin(clocked, "fischer:3d+1d/7d")
    mail = body(clocked.last(BOB))
    talk = speaker(language)
    control = tc.parse("fischer:3d+1d/7d")
    assert talk.say(control.describe()) in " ".join(mail.split())
    assert talk.say(tc.span(3 * tc.DAY)) in mail and talk.say(tc.span(4 * tc.DAY - 3600)) in " ".join(mail.split())
    assert english_left(mail, language) == [], mail
    assert too_wide(mail) == []
    say(clocked, BOB, "games")
    games = body(clocked.last(BOB))
    assert english_left(games, language) == [] and "30" in games


def test_a_text_record_names_its_clock_and_the_html_part_shows_the_times(clocked) -> None:
    with freeze_time(START - timedelta(hours=2)):
        say(clocked, ALICE, f"challenge ataxx {BOB} colour=x clock=bank:2d+10d")
        say(clocked, ALICE, "confirm")
        say(clocked, BOB, "accept 1")
    html = clocked.last(ALICE).get_body(preferencelist=("html",)).get_content()
    assert "Clock: 2 days per move, then a bank of 10 days." in " ".join(html.split())
    assert "Time left: alice (x) 12 days, bob (o) 12 days." in " ".join(html.split())
    with Session(clocked.engine) as session:
        record = records.export(session, session.get(Game, 1)).text
    assert '[TimeControl "bank:2d+10d"]' in record


def test_open_challenges_and_games_show_the_clock(clocked) -> None:
    with freeze_time(START - timedelta(hours=2)):
        say(clocked, ALICE, "challenge ataxx clock=iccf:10/50d colour=x")
        say(clocked, ALICE, "confirm")
        say(clocked, BOB, "open")
        assert "Clock: 10 moves in 50 days, the time not used carried over." in words(body(clocked.last(BOB)))
        say(clocked, BOB, "accept 1")
        say(clocked, BOB, "games")
    listed = words(body(clocked.last(BOB)))
    assert "Clock: 10 moves in 50 days, the time not used carried over." in listed
    assert "Time left: alice (x) 50 days, bob (o) 50 days." in listed
    assert "You have 30 vacation days left this year (of 30)" in listed
