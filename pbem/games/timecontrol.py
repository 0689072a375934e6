"""Time controls as correspondence players know them: the pure model.

No SQL, no mail, no wall clock: every moment is passed in. A game's time control is written
in the `clock=` notation of a challenge:

- `days:7`           days per move (pbem's default, `days=7`): each move has the same time;
- `fischer:3d+1d/7d` Fischer in days: 3 days at the start, 1 day added after each move, at
                     most 7 days on the clock (the cap is optional);
- `bank:2d+10d`      a time bank: 2 days per move, and when they run out a bank of 10 days,
                     which does not fill up again;
- `iccf:10/50d`      ICCF style: 10 moves in 50 days, the time not used carried over;
- `delay:10d+1d`     simple delay: a reserve of 10 days, and the first day of every move
                     does not count against it (an unused delay is lost);
- `none`             no clock at all.

Amounts are days (`3d`, or a bare `3`) or hours (`12h`). Every kind answers the same four
questions (`TimeControl`): what each side has at the start (`start`), how much running time
the side on move may use in this turn (`budget`), what is left after a move that used some
(`after`), and how to write and describe it. Running time is time with the clock going:
pauses (vacations) and weekends off are not running time (`elapsed`, `deadline`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from pbem.core.errors import ClockError
from pbem_engine.common.phrases import Phrase, nphrase, phrase

DAY = 86400
HOUR = 3600
KINDS = ("days", "fischer", "bank", "iccf", "delay", "none")
MAX_AMOUNT = 365 * DAY  # no amount of a notation may be longer than a year
MAX_MOVES = 100  # ICCF: at most that many moves in a period
EXAMPLES = ("fischer:3d+1d/7d", "bank:2d+10d", "iccf:10/50d", "delay:10d+1d", "none")


@dataclass(frozen=True)
class Sides:
    """What each side has on its clock (seconds of running time; the meaning is the kind's:
    the reserve of Fischer, ICCF and delay, the bank of a bank) and how many moves it made."""

    left: tuple[int, int]
    moves: tuple[int, int] = (0, 0)

    def dump(self) -> dict[str, Any]:
        return {"left": list(self.left), "moves": list(self.moves)}

    @classmethod
    def load(cls, data: dict[str, Any] | None) -> Sides:
        data = data or {}
        left, moves = data.get("left") or (0, 0), data.get("moves") or (0, 0)
        return cls((int(left[0]), int(left[1])), (int(moves[0]), int(moves[1])))

    def with_side(self, side: int, left: int, moves: int) -> Sides:
        lefts, counts = list(self.left), list(self.moves)
        lefts[side], counts[side] = left, moves
        return Sides((lefts[0], lefts[1]), (counts[0], counts[1]))


@dataclass(frozen=True)
class TimeControl:
    """One time control. `main`, `per_move` and `cap` are seconds, `moves` a count:

    days    per_move: the time of every move
    fischer main: the start, per_move: the bonus after a move, cap: the most (0: none)
    bank    per_move: the time of every move, main: the bank
    iccf    moves: N, main: M (N moves in M)
    delay   main: the reserve, per_move: the delay
    none    nothing
    """

    kind: str
    main: int = 0
    per_move: int = 0
    cap: int = 0
    moves: int = 0

    @property
    def timed(self) -> bool:
        return self.kind != "none"

    def start(self) -> Sides:
        """Each side's clock when the game begins."""
        if self.kind in ("fischer", "bank", "iccf", "delay"):
            return Sides((self.main, self.main))
        return Sides((0, 0))

    def budget(self, sides: Sides, side: int) -> int | None:
        """The running time (seconds) `side` may use in the turn it is on, from the turn's
        start; None: no clock."""
        left = sides.left[side]
        if self.kind == "days":
            return self.per_move
        if self.kind in ("fischer", "iccf"):
            return left
        if self.kind in ("bank", "delay"):
            return self.per_move + left
        return None

    def after(self, sides: Sides, side: int, used: float) -> Sides:
        """The clocks after `side` moved, having used `used` seconds of running time (at most its
        budget but for time an operator added: what is left is never negative)."""
        used = max(0, int(used))
        left, moves = sides.left[side], sides.moves[side] + 1
        if self.kind == "fischer":
            left = max(0, left - used) + self.per_move
            if self.cap:
                left = min(left, self.cap)
        elif self.kind in ("bank", "delay"):
            left = max(0, left - max(0, used - self.per_move))
        elif self.kind == "iccf":
            left = max(0, left - used)
            if moves % self.moves == 0:
                left += self.main  # a new period begins: its days come on top of those saved
        return sides.with_side(side, left, moves)

    def remaining(self, sides: Sides, side: int, used: float) -> int | None:
        """What `side` has left after `used` seconds of running time in its turn (its whole
        budget while not on move; `used` below 0 for time an operator added); None: no clock."""
        budget = self.budget(sides, side)
        return None if budget is None else max(0, int(budget - used))

    def notation(self) -> str:
        """As a challenge writes it: `fischer:3d+1d/7d`."""
        if self.kind == "days":
            return f"days:{self.per_move // DAY}"
        if self.kind == "fischer":
            return f"fischer:{amount(self.main)}+{amount(self.per_move)}" + (f"/{amount(self.cap)}" if self.cap else "")
        if self.kind == "bank":
            return f"bank:{amount(self.per_move)}+{amount(self.main)}"
        if self.kind == "iccf":
            return f"iccf:{self.moves}/{amount(self.main)}"
        if self.kind == "delay":
            return f"delay:{amount(self.main)}+{amount(self.per_move)}"
        return "none"

    def describe(self) -> Phrase:
        """The time control in words, for the mails and `rules`."""
        if self.kind == "days":
            return nphrase("{n} day per move", "{n} days per move", self.per_move // DAY)
        if self.kind == "fischer":
            if self.cap:
                return phrase(
                    "Fischer: {start} at the start, {bonus} added after each move, at most {cap}",
                    start=span(self.main), bonus=span(self.per_move), cap=span(self.cap),
                )
            return phrase("Fischer: {start} at the start, {bonus} added after each move",
                          start=span(self.main), bonus=span(self.per_move))
        if self.kind == "bank":
            return phrase("{per_move} per move, then a bank of {bank}", per_move=span(self.per_move), bank=span(self.main))
        if self.kind == "iccf":
            return nphrase("{n} move in {days}, the time not used carried over",
                           "{n} moves in {days}, the time not used carried over",
                           self.moves, days=span(self.main))
        if self.kind == "delay":
            return phrase("Simple delay: {main} in all, and each move has {delay} before the clock starts to run",
                          main=span(self.main), delay=span(self.per_move))
        return phrase("no clock")

    def sgf(self) -> tuple[str | None, str | None]:
        """SGF's TM (the main time, seconds) and OT (the overtime in words), where they fit."""
        if self.kind == "fischer":
            return str(self.main), f"Fischer {amount(self.per_move)} per move" + (
                f", cap {amount(self.cap)}" if self.cap else "")
        if self.kind == "bank":
            return str(self.main), f"{amount(self.per_move)} per move before the bank"
        if self.kind == "iccf":
            return str(self.main), f"{self.moves}/{amount(self.main)} (ICCF)"
        if self.kind == "delay":
            return str(self.main), f"simple delay {amount(self.per_move)}"
        if self.kind == "days":
            return None, f"{amount(self.per_move)} per move"
        return None, None


def days_per_move(days: int) -> TimeControl:
    """pbem's default kind, `days=`."""
    return TimeControl("days", per_move=days * DAY)


NONE = TimeControl("none")


# --- the notation --------------------------------------------------------------------------------


_AMOUNT = re.compile(r"^(\d{1,4})([dh]?)$")


def amount(seconds: int) -> str:
    """`3d`, `12h`, `36h`: whole days as days, else hours."""
    return f"{seconds // DAY}d" if seconds % DAY == 0 else f"{seconds // HOUR}h"


def _hint() -> Phrase:
    return phrase("Write e.g. {fischer}, {bank}, {iccf}, {delay} or {none} (the default is days per move, {days}).",
                  fischer="clock=fischer:3d+1d/7d", bank="clock=bank:2d+10d", iccf="clock=iccf:10/50d",
                  delay="clock=delay:10d+1d", none="clock=none", days="days=7")


def _bad(text: str, why: Phrase | None = None) -> ClockError:
    shown = f"clock={text[:40]}"
    if why is None:
        return ClockError(phrase("{option} is not a clock I know.", option=shown), _hint(),
                          code="clock.notation", params={"option": shown})
    return ClockError(phrase("{option} is not a clock I can run: {why}", option=shown, why=why), _hint(),
                      code="clock.notation", params={"option": shown})


def _seconds(text: str, whole: str) -> int:
    found = _AMOUNT.match(text.strip().lower())
    if not found:
        raise _bad(whole)
    number, unit = int(found.group(1)), found.group(2) or "d"
    seconds = number * (HOUR if unit == "h" else DAY)
    if seconds < HOUR:
        raise _bad(whole, phrase("every amount must be at least an hour."))
    if seconds > MAX_AMOUNT:
        raise _bad(whole, phrase("no amount may be longer than a year."))
    return seconds


def parse(text: str, max_days: int = 30) -> TimeControl:
    """The time control a `clock=` option names; a ClockError says what would work."""
    whole = text.strip()
    kind, _, rest = whole.lower().partition(":")
    kind = kind.strip()
    if kind == "none" and not rest:
        return NONE
    if kind not in KINDS or not rest:
        raise _bad(whole)
    if kind == "days":
        if not rest.isdigit() or not 1 <= int(rest) <= max_days:
            raise _bad(whole, phrase("a move may take from {low} to {high} days.", low=1, high=max_days))
        return days_per_move(int(rest))
    if kind == "iccf":
        count, slash, period = rest.partition("/")
        if not slash or not count.strip().isdigit():
            raise _bad(whole)
        moves = int(count)
        if not 1 <= moves <= MAX_MOVES:
            raise _bad(whole, phrase("a period may hold from {low} to {high} moves.", low=1, high=MAX_MOVES))
        return TimeControl("iccf", main=_seconds(period, whole), moves=moves)
    first, plus, second = rest.partition("+")
    if not plus:
        raise _bad(whole)
    if kind == "fischer":
        bonus, slash, cap_text = second.partition("/")
        start, per = _seconds(first, whole), _seconds(bonus, whole)
        cap = _seconds(cap_text, whole) if slash else 0
        if cap and cap < start:
            raise _bad(whole, phrase("the cap must be at least the time at the start."))
        return TimeControl("fischer", main=start, per_move=per, cap=cap)
    if kind == "bank":
        return TimeControl("bank", per_move=_seconds(first, whole), main=_seconds(second, whole))
    return TimeControl("delay", main=_seconds(first, whole), per_move=_seconds(second, whole))


def load(notation: str | None, days: int) -> TimeControl:
    """A stored game's time control: its notation, or days per move when it has none."""
    return parse(notation, max_days=MAX_AMOUNT // DAY) if notation else days_per_move(days)


# --- durations in words --------------------------------------------------------------------------


def span(seconds: float) -> Phrase:
    """A stretch of time in words, to the nearest hour: '3 days', '2 days 5 hours', '7 hours',
    'less than an hour' (so a clock a move left untouched for minutes still shows '3 days')."""
    whole = int(seconds)
    if whole <= 0:
        return phrase("no time")
    if whole < HOUR:
        return phrase("less than an hour")
    hours_in_all = (whole + HOUR // 2) // HOUR
    days, hours = divmod(hours_in_all, 24)
    if days and hours:
        return phrase("{days} {hours}", days=nphrase("{n} day", "{n} days", days),
                      hours=nphrase("{n} hour", "{n} hours", hours))
    if days:
        return nphrase("{n} day", "{n} days", days)
    return nphrase("{n} hour", "{n} hours", hours)


# --- running time: pauses and weekends ------------------------------------------------------------


def _midnight(day: date, tz: tzinfo) -> datetime:
    return datetime.combine(day, time(0), tzinfo=tz).astimezone(UTC)


def weekend(at: datetime, tz: tzinfo) -> tuple[datetime, datetime]:
    """The weekend (Saturday 00:00 to Monday 00:00 local) that contains `at` or comes next."""
    day = at.astimezone(tz).date()
    saturday = day - timedelta(days=day.weekday() - 5) if day.weekday() >= 5 else day + timedelta(5 - day.weekday())
    return _midnight(saturday, tz), _midnight(saturday + timedelta(days=2), tz)


def _stops(at: datetime, stops: list[tuple[datetime, datetime]], weekends_off: bool,
           tz: tzinfo) -> tuple[datetime, datetime] | None:
    """The first stop of the clock that ends after `at` (a pause or a weekend off)."""
    upcoming = [(s, e) for s, e in stops if e > at]
    if weekends_off:
        upcoming.append(weekend(at, tz))
    return min(upcoming) if upcoming else None


def _sorted(pauses: Iterable[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    return sorted((s.astimezone(UTC), e.astimezone(UTC)) for s, e in pauses if e > s)


def deadline(start: datetime, budget: timedelta, pauses: Iterable[tuple[datetime, datetime]] = (),
             weekends_off: bool = False, tz: tzinfo = UTC) -> datetime:
    """When `budget` of running time has passed since `start`."""
    at, stops = start.astimezone(UTC), _sorted(pauses)
    while True:
        stop = _stops(at, stops, weekends_off, tz)
        if stop is None:
            return at + budget
        begin = max(stop[0], at)
        if at + budget <= begin:
            return at + budget
        budget -= begin - at
        at = stop[1]


def elapsed(start: datetime, end: datetime, pauses: Iterable[tuple[datetime, datetime]] = (),
            weekends_off: bool = False, tz: tzinfo = UTC) -> timedelta:
    """The running time between `start` and `end`: the pauses and weekends off left out."""
    at, end, stops = start.astimezone(UTC), end.astimezone(UTC), _sorted(pauses)
    ran = timedelta(0)
    while at < end:
        stop = _stops(at, stops, weekends_off, tz)
        if stop is None or stop[0] >= end:
            return ran + (end - at)
        ran += max(stop[0], at) - at
        at = stop[1]
    return ran
