"""The pure clock model: every kind's arithmetic, its notation, running time across pauses and DST."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from freezegun import freeze_time
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.errors import ClockError
from pbem.games import timecontrol as tc
from pbem.text.i18n import speaker

DAY, HOUR = tc.DAY, tc.HOUR
ROME = ZoneInfo("Europe/Rome")
KINDS = ["fischer:3d+1d/7d", "bank:2d+10d", "iccf:10/50d", "delay:10d+1d", "days:3", "none"]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize("text", [*KINDS, "fischer:12h+2h", "iccf:1/5d"])
def test_the_notation_reads_back_as_written(text: str) -> None:
    assert tc.parse(text).notation() == text


def test_the_notation_is_read_leniently() -> None:
    assert tc.parse(" Fischer:3+1/7 ") == tc.TimeControl("fischer", main=3 * DAY, per_move=DAY, cap=7 * DAY)
    assert tc.parse("bank:36h+10d") == tc.TimeControl("bank", per_move=36 * HOUR, main=10 * DAY)
    assert tc.parse("iccf:10/50d") == tc.TimeControl("iccf", main=50 * DAY, moves=10)


@pytest.mark.parametrize(("text", "why"), [
    ("blitz:5", "is not a clock I know"),
    ("fischer:3d", "is not a clock I know"),
    ("fischer:3d+1d/2d", "the cap must be at least the time at the start"),
    ("fischer:3d+0h", "at least an hour"),
    ("bank:2d+999d", "longer than a year"),
    ("iccf:0/50d", "from 1 to 100 moves"),
    ("iccf:10", "is not a clock I know"),
    ("days:90", "from 1 to 30 days"),
])
def test_a_wrong_clock_says_what_would_work(text: str, why: str) -> None:
    with pytest.raises(ClockError) as caught:
        tc.parse(text)
    assert why in str(caught.value)
    assert "clock=fischer:3d+1d/7d" in str(caught.value.hint)
    assert caught.value.code == "clock.notation"


def test_fischer_adds_the_bonus_up_to_the_cap() -> None:
    control = tc.parse("fischer:3d+1d/7d")
    sides = control.start()
    assert control.budget(sides, 0) == 3 * DAY
    sides = control.after(sides, 0, 12 * HOUR)
    assert sides.left == (3 * DAY + 12 * HOUR, 3 * DAY)
    for _ in range(10):
        sides = control.after(sides, 0, HOUR)
    assert sides.left[0] == 7 * DAY  # capped
    assert sides.moves == (11, 0)


def test_a_bank_is_drawn_on_only_past_the_time_per_move() -> None:
    control = tc.parse("bank:2d+10d")
    sides = control.start()
    assert control.budget(sides, 1) == 12 * DAY
    sides = control.after(sides, 1, DAY)  # within the 2 days: the bank is untouched
    assert sides.left == (10 * DAY, 10 * DAY)
    sides = control.after(sides, 1, 5 * DAY)  # 3 days from the bank
    assert sides.left == (10 * DAY, 7 * DAY)
    assert control.budget(sides, 1) == 9 * DAY


def test_iccf_carries_the_time_not_used_into_the_next_period() -> None:
    control = tc.parse("iccf:10/50d")
    sides = control.start()
    for _ in range(9):
        sides = control.after(sides, 0, 2 * DAY)
    assert sides.left[0] == 32 * DAY
    sides = control.after(sides, 0, 2 * DAY)  # the 10th move: 30 days saved, 50 more
    assert sides.left[0] == 80 * DAY
    assert control.budget(sides, 0) == 80 * DAY


def test_simple_delay_loses_an_unused_delay() -> None:
    control = tc.parse("delay:10d+1d")
    sides = control.after(control.start(), 0, HOUR)
    assert sides.left[0] == 10 * DAY
    sides = control.after(sides, 0, 3 * DAY)
    assert sides.left[0] == 8 * DAY


def test_days_per_move_and_none() -> None:
    assert tc.parse("days:3").budget(tc.parse("days:3").start(), 0) == 3 * DAY
    assert tc.load(None, 7) == tc.days_per_move(7)
    assert tc.NONE.budget(tc.NONE.start(), 0) is None
    assert tc.NONE.remaining(tc.NONE.start(), 0, DAY) is None
    assert tc.NONE.after(tc.NONE.start(), 0, DAY).left == (0, 0)


controls = st.sampled_from([tc.parse(k) for k in KINDS[:4]] + [tc.parse("fischer:1d+12h/2d"), tc.parse("iccf:1/3d")])


@given(controls, st.lists(st.tuples(st.integers(0, 1), st.integers(0, 90 * DAY)), max_size=40))
def test_time_is_never_negative_and_the_cap_holds(control: tc.TimeControl, moves: list[tuple[int, int]]) -> None:
    sides = control.start()
    for side, used in moves:
        sides = control.after(sides, side, used)
        assert min(sides.left) >= 0
        assert control.remaining(sides, side, used) >= 0
        if control.kind == "fischer" and control.cap:
            assert max(sides.left) <= control.cap
    assert sum(sides.moves) == len(moves)
    assert tc.Sides.load(sides.dump()) == sides


@given(st.integers(1, 20), st.integers(1, 60), st.lists(st.integers(0, 5 * DAY), min_size=1, max_size=60))
def test_iccf_time_is_the_periods_begun_less_the_time_used(moves: int, days: int, used: list[int]) -> None:
    control = tc.TimeControl("iccf", main=days * DAY, moves=moves)
    sides, spent = control.start(), 0
    for n, u in enumerate(used, start=1):
        left = sides.left[0]
        sides = control.after(sides, 0, min(u, left))
        spent += min(u, left)
        assert sides.left[0] == (1 + n // moves) * days * DAY - spent


@given(st.integers(0, 30 * DAY), st.integers(0, 30 * DAY), st.booleans(), st.integers(0, 20 * DAY))
def test_elapsed_undoes_deadline(offset: int, length: int, weekends_off: bool, budget: int) -> None:
    start = utc(2026, 3, 20) + timedelta(seconds=offset)
    pause = (start + timedelta(days=2), start + timedelta(days=2, seconds=length))
    until = tc.deadline(start, timedelta(seconds=budget), [pause], weekends_off, ROME)
    assert tc.elapsed(start, until, [pause], weekends_off, ROME) == timedelta(seconds=budget)
    assert until >= start + timedelta(seconds=budget)


def test_weekends_and_vacations_are_no_running_time() -> None:
    friday = datetime(2026, 6, 5, 12, tzinfo=ROME)
    monday = datetime(2026, 6, 8, 12, tzinfo=ROME)
    assert tc.elapsed(friday, monday, weekends_off=True, tz=ROME) == timedelta(hours=24)
    assert tc.elapsed(friday, monday) == timedelta(hours=72)
    away = (datetime(2026, 6, 8, 0, tzinfo=ROME), datetime(2026, 6, 8, 6, tzinfo=ROME))
    assert tc.elapsed(friday, monday, [away], weekends_off=True, tz=ROME) == timedelta(hours=18)


def test_a_fischer_deadline_across_dst_keeps_its_hours() -> None:
    # Rome goes to summer time on Sunday 29 March 2026: 3 days of running time are 72 hours
    control = tc.parse("fischer:3d+1d/7d")
    start = datetime(2026, 3, 28, 10, tzinfo=ROME)
    until = tc.deadline(start, timedelta(seconds=control.budget(control.start(), 0)), tz=ROME)
    assert until - start == timedelta(hours=72)
    assert until.astimezone(ROME).hour == 11
    with freeze_time(until):
        assert tc.elapsed(start, datetime.now(UTC), tz=ROME) == timedelta(days=3)


def test_spans_in_words_in_two_languages() -> None:
    assert str(tc.span(2 * DAY + 5 * HOUR + 59)) == "2 days 5 hours"
    assert str(tc.span(3 * DAY - 60)) == "3 days"  # to the nearest hour
    assert str(tc.span(2 * DAY + 5 * HOUR + 31 * 60)) == "2 days 6 hours"
    assert str(tc.span(DAY)) == "1 day"
    assert str(tc.span(7 * HOUR)) == "7 hours"
    assert str(tc.span(59)) == "less than an hour"
    assert str(tc.span(0)) == "no time"
    assert str(tc.parse("fischer:3d+1d/7d").describe()) == (
        "Fischer: 3 days at the start, 1 day added after each move, at most 7 days")
    assert str(tc.parse("iccf:10/50d").describe()) == "10 moves in 50 days, the time not used carried over"
    assert speaker("it").say(tc.span(DAY)) != "1 day"
