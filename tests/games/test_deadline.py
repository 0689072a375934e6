"""The pure clock arithmetic: deadlines across DST, zones, weekends off and pauses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.games import clock, zones
from pbem.text.i18n import speaker

ROME, NEW_YORK = ZoneInfo("Europe/Rome"), ZoneInfo("America/New_York")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_plain_deadline_is_days_of_running_time() -> None:
    assert clock.deadline(utc(2026, 11, 30, 9), 7) == utc(2026, 12, 7, 9)
    assert clock.deadline(utc(2026, 11, 30, 9), 1, credit=timedelta(hours=5)) == utc(2026, 12, 1, 14)


def test_deadline_across_spring_dst_in_rome_keeps_168_hours() -> None:
    # Rome switches to summer time on Sunday 29 March 2026: 10:00 CET + 7 days of 24 h is 11:00 CEST
    start = datetime(2026, 3, 26, 10, tzinfo=ROME)
    until = clock.deadline(start, 7, tz=ROME)
    assert until - start == timedelta(hours=168)
    assert zones.when(until, ROME) == "Thu 2 Apr 2026, 11:00 Europe/Rome"


def test_deadline_across_autumn_dst_in_rome() -> None:
    # back to winter time on Sunday 25 October 2026: 10:00 CEST + 7 days is 09:00 CET
    start = datetime(2026, 10, 22, 10, tzinfo=ROME)
    until = clock.deadline(start, 7, tz=ROME)
    assert until == utc(2026, 10, 29, 8)
    assert zones.when(until, ROME) == "Thu 29 Oct 2026, 09:00 Europe/Rome"


def test_one_deadline_reads_differently_in_each_zone() -> None:
    until = clock.deadline(utc(2026, 7, 1, 2), 2)
    assert zones.when(until, UTC) == "Fri 3 Jul 2026, 02:00 UTC"
    assert zones.when(until, ROME) == "Fri 3 Jul 2026, 04:00 Europe/Rome"
    assert zones.when(until, NEW_YORK) == "Thu 2 Jul 2026, 22:00 America/New_York"


def test_weekend_off_skips_saturday_and_sunday_in_the_players_zone() -> None:
    # Friday noon in Rome with one day a move: 12 h on Friday, then Monday 12:00
    start = datetime(2026, 6, 5, 12, tzinfo=ROME)
    assert start.weekday() == 4
    until = clock.deadline(start, 1, weekends_off=True, tz=ROME)
    assert until == datetime(2026, 6, 8, 12, tzinfo=ROME)
    # the same moment for a player in New York (Friday 06:00 there): 18 h Friday, 6 h Monday
    until_ny = clock.deadline(start, 1, weekends_off=True, tz=NEW_YORK)
    assert until_ny == datetime(2026, 6, 8, 6, tzinfo=NEW_YORK)


def test_weekend_that_contains_the_dst_switch_is_47_hours() -> None:
    start = datetime(2026, 3, 27, 12, tzinfo=ROME)  # Friday before the spring switch
    until = clock.deadline(start, 1, weekends_off=True, tz=ROME)
    assert until == datetime(2026, 3, 30, 12, tzinfo=ROME)
    assert until - start == timedelta(hours=12 + 47 + 12)


def test_a_turn_started_on_saturday_waits_for_monday() -> None:
    start = datetime(2026, 6, 6, 15, tzinfo=ROME)  # Saturday
    assert clock.deadline(start, 2, weekends_off=True, tz=ROME) == datetime(2026, 6, 10, 0, tzinfo=ROME)


def test_pauses_stop_the_clock() -> None:
    start = utc(2026, 6, 1)
    assert clock.deadline(start, 3, [(utc(2026, 6, 2), utc(2026, 6, 4))]) == utc(2026, 6, 6)
    # a pause that began before the turn counts only from the turn's start
    assert clock.deadline(start, 3, [(utc(2026, 5, 30), utc(2026, 6, 1, 12))]) == utc(2026, 6, 4, 12)
    # overlapping pauses count once; a pause after the deadline changes nothing
    both = [(utc(2026, 6, 2), utc(2026, 6, 3)), (utc(2026, 6, 2, 12), utc(2026, 6, 4)), (utc(2026, 7, 1), utc(2026, 7, 9))]
    assert clock.deadline(start, 3, both) == utc(2026, 6, 6)


def test_pause_and_weekend_together() -> None:
    start = utc(2026, 6, 1)  # Monday
    # five working days from Monday, with Wednesday to Friday paused: Mon, Tue, then Mon-Wed next week
    until = clock.deadline(start, 5, [(utc(2026, 6, 3), utc(2026, 6, 6))], weekends_off=True)
    assert until == utc(2026, 6, 11)


@given(
    st.integers(min_value=1, max_value=30),
    st.integers(min_value=0, max_value=60 * 24 * 365),
    st.lists(st.tuples(st.integers(0, 60 * 24 * 60), st.integers(0, 60 * 24 * 10)), max_size=4),
    st.booleans(),
    st.sampled_from([UTC, ROME, NEW_YORK]),
)
def test_running_time_to_the_deadline_is_exactly_the_budget(days, offset, raw, weekends, tz) -> None:
    start = utc(2026, 1, 1) + timedelta(minutes=offset)
    pauses = [(start + timedelta(minutes=a), start + timedelta(minutes=a + b)) for a, b in raw]
    until = clock.deadline(start, days, pauses, weekends, tz)
    assert until >= start + timedelta(days=days)
    # the running time, exactly: between any two neighbouring edges (a pause's start or end, a
    # local midnight, where a weekend starts or ends) the clock either runs or it does not
    edges = {start, until, *(t for pause in pauses for t in pause if start < t < until)}
    day = start.astimezone(tz).replace(hour=0, minute=0, second=0, microsecond=0)
    while day.astimezone(UTC) < until:
        day = (day + timedelta(days=1, hours=3)).replace(hour=0)  # the next local midnight, DST or not
        if start < day.astimezone(UTC) < until:
            edges.add(day.astimezone(UTC))
    running = timedelta(0)
    cuts = sorted(edges)
    for a, b in zip(cuts, cuts[1:], strict=False):
        middle = a + (b - a) / 2
        stopped = any(s <= middle < e for s, e in pauses) or (weekends and middle.astimezone(tz).weekday() >= 5)
        running += timedelta(0) if stopped else b - a
    assert running == timedelta(days=days)


def test_left_reads_in_whole_days_then_hours() -> None:
    at = utc(2026, 1, 1)
    assert str(clock.left(at + timedelta(days=7) - timedelta(minutes=3), at)) == "7 days left"
    assert str(clock.left(at + timedelta(days=2, hours=20), at)) == "2 days left"
    assert str(clock.left(at + timedelta(hours=47), at)) == "47 hours left"
    assert str(clock.left(at + timedelta(minutes=90), at)) == "1 hour left"
    assert str(clock.left(at + timedelta(minutes=9), at)) == "less than an hour left"
    assert str(clock.left(at - timedelta(minutes=9), at)) == "no time left"


def test_remaining_is_left_without_the_word() -> None:
    at = utc(2026, 1, 1)
    for minutes in range(-30, 60 * 24 * 9, 17):
        until = at + timedelta(minutes=minutes)
        assert str(clock.remaining(until, at)) == str(clock.left(until, at)).removesuffix(" left")


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)),
       st.sampled_from([UTC, ROME, NEW_YORK, ZoneInfo("Asia/Kolkata")]))
def test_the_english_speaker_writes_a_moment_as_when_does(at: datetime, tz) -> None:  # noqa: ANN001
    """The mails get the moment itself (`local`) and speak it: English reads as it always has."""
    assert speaker("en").moment(zones.local(at, tz)) == zones.when(at, tz)


def test_zone_names_are_checked_with_a_suggestion() -> None:
    assert zones.parse_zone("europe/rome") == "Europe/Rome"
    assert zones.parse_zone("America/New York") == "America/New_York"
    assert zones.parse_zone("utc") == "UTC"
    with pytest.raises(clock.ClockError) as err:
        zones.parse_zone("Europe/Roma")
    assert "Did you mean Europe/Rome" in str(err.value.hint)
    with pytest.raises(clock.ClockError) as err:
        zones.parse_zone("CEST+2")
    assert "Region/City" in str(err.value.hint)


def test_time_control_range_and_weekends() -> None:
    assert clock.time_control(None, None, 7) == (7, False)
    assert clock.time_control("3", "off", 7) == (3, True)
    for bad in ("0", "31", "2.5", "soon"):
        with pytest.raises(clock.ClockError, match="from 1 to 30 days"):
            clock.time_control(bad, None, 7)
    with pytest.raises(clock.ClockError, match="weekends=maybe"):
        clock.time_control(None, "maybe", 7)
