"""Correspondence time: deadlines, reminders, forfeits and vacations.

`now()` is the one place that reads the time, so that tests can freeze it. A deadline is
never stored: it is derived from when the turn started, the game's days per move, the
vacations of the player on move, weekends off (in that player's zone) and any time the
admin added. A day on the clock is 24 hours of running time, so a DST switch neither gives
nor takes an hour (the deadline's wall-clock time moves by that hour instead).

What is stored is when the clock next needs looking at (`Game.clock_due_at`, from
`next_event`), so that the daemon's round reads only the games that are due. Whatever
changes a deadline or sends a reminder calls `reschedule` in the same transaction.

The daemon's round over the games (reminders and forfeits) is `pbem.runners.clock`; this
module is the arithmetic and the records it reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, or_, select

from pbem.core.errors import ClockError
from pbem.core.models import Challenge, Game, Move, Player, Reminder, Tournament, Vacation
from pbem.core.wallclock import now
from pbem.core.work import work_of
from pbem.games import timecontrol as tc
from pbem.games import vacations
from pbem.games.bots import is_bot, mark
from pbem.games.zones import local, zone
from pbem_engine.common.phrases import Phrase, nphrase, phrase

MIN_DAYS, MAX_DAYS = 1, 30  # the time controls a challenge may choose (days=)
DAY = timedelta(days=1)


def deadline(
    turn_started: datetime,
    days: float,
    pauses: Iterable[tuple[datetime, datetime]] = (),
    weekends_off: bool = False,
    tz: tzinfo = UTC,
    credit: timedelta = timedelta(0),
) -> datetime:
    """When `days` of running clock (plus `credit`) have passed since `turn_started`.

    The clock stops during `pauses` (vacations of the player on move) and, with
    `weekends_off`, from Saturday 00:00 to Monday 00:00 in `tz` (`timecontrol.deadline`)."""
    return tc.deadline(turn_started, days * DAY + credit, pauses, weekends_off, tz)


def _left(until: datetime, at: datetime) -> tuple[str, int]:
    """The unit of what is left until the deadline ("days", "hours", "minutes", "none") and
    how many whole ones: real time, days once two of them (near enough) are left."""
    seconds = (until - at).total_seconds()
    if seconds <= 0:
        return "none", 0
    if seconds >= 2 * 86400 - 600:
        return "days", int((seconds + 600) // 86400)  # a move answered in minutes still shows 7 days
    hours = int(seconds // 3600)
    if hours >= 1:
        return "hours", hours
    return "minutes", 0


def left(until: datetime, at: datetime) -> Phrase:
    """'7 days left', '20 hours left': whole units of real time until the deadline."""
    unit, count = _left(until, at)
    if unit == "days":
        return nphrase("{n} day left", "{n} days left", count)
    if unit == "hours":
        return nphrase("{n} hour left", "{n} hours left", count)
    if unit == "minutes":
        return phrase("less than an hour left")
    return phrase("no time left")


def remaining(until: datetime, at: datetime) -> Phrase:
    """What `left` says without the word "left": '7 days', '20 hours', 'less than an hour'
    (for a sentence of its own around it: "... remain before your deadline")."""
    unit, count = _left(until, at)
    if unit == "days":
        return nphrase("{n} day", "{n} days", count)
    if unit == "hours":
        return nphrase("{n} hour", "{n} hours", count)
    if unit == "minutes":
        return phrase("less than an hour")
    return phrase("no time")


# --- time controls -----------------------------------------------------------------------------


def time_control(days: str | None, weekends: str | None, default_days: int) -> tuple[int, bool]:
    """The `days=` and `weekends=` options of a challenge, checked."""
    chosen = default_days
    if days is not None:
        try:
            chosen = int(days)
        except ValueError:
            chosen = 0
        if not MIN_DAYS <= chosen <= MAX_DAYS:
            raise ClockError(
                phrase(
                    "{option} is not a time control I offer: a move may take from {low} to {high} days.",
                    option=f"days={days[:10]}", low=MIN_DAYS, high=MAX_DAYS,
                ),
                phrase("Write e.g. {example} (the default is {days}).", example="days=3", days=default_days),
            )
    off = False
    if weekends is not None:
        word = weekends.strip().lower()
        if word not in ("off", "on"):
            raise ClockError(
                phrase("{option} means nothing to me.", option=f"weekends={weekends[:10]}"),
                phrase(
                    "Write {off} to stop the clock on Saturdays and Sundays ({on} is the default).",
                    off="weekends=off", on="weekends=on",
                ),
            )
        off = word == "off"
    return chosen, off


# --- a game's clock ---------------------------------------------------------------------------------


def game_deadline(session: Session, game: Game) -> datetime | None:
    """The current turn's deadline, or None for a game that is over (or has no clock)."""
    if game.status != "active" or game.turn_started_at is None:
        return None
    mover = session.get(Player, game.player_id(game.turn))
    if is_bot(mover):
        return None  # a bot answers within seconds: it has no deadline to miss
    return _deadline(game, mover, vacations.pausing(session, mover.id, game.turn_started_at))


_NEVER = datetime.max.replace(tzinfo=UTC)


def by_urgency(session: Session, player: Player) -> list[Game]:
    """A player's games in progress, the most urgent first: those waiting for their move,
    soonest deadline first, then the others by number (`games` lists them so, `next` shows
    the first that waits for them)."""
    query = (
        select(Game)
        .where(Game.status == "active", or_(Game.player0_id == player.id, Game.player1_id == player.id))
        .order_by(Game.id)
    )
    waiting, others = [], []
    for game in session.exec(query):
        if game.side_of(player.id) == game.turn:
            waiting.append((game_deadline(session, game) or _NEVER, game.id, game))
        else:
            others.append(game)
    return [game for _, _, game in sorted(waiting, key=lambda item: item[:2])] + others


@dataclass
class TurnClock:
    """The clock of a game's current turn: who is on move, the deadline, and the reminder
    points not yet sent (hours before the deadline -> the moment)."""

    mover: Player
    started: datetime
    deadline: datetime
    unsent: dict[float, datetime]

    def next_event(self) -> datetime:
        """The earliest of the deadline and the unsent reminder points inside the turn. A
        point before the turn began is left out: it is never mailed on its own (the round
        records it with the next point it mails)."""
        return min([self.deadline, *(at for at in self.unsent.values() if at > self.started)])


_SENT = select(Reminder.hours).where(Reminder.game_id == bindparam("game"), Reminder.ply == bindparam("ply"))


def read_ahead(session: Session, game: Game, holidays: list[Vacation], sent: Sequence[float]) -> None:
    """What the clock round read for a batch of due games, handed to the transaction of one of
    them (locked, and checked unchanged since): the vacations of the player on move that may
    pause this turn (`vacations(..., since=turn start)`) and the reminders sent in it, so that
    `turn_clock` need not read them again."""
    work = work_of(session)
    work.holidays[(game.player_id(game.turn), game.turn_started_at)] = holidays
    work.reminders_sent[(game.id, game.ply)] = list(sent)


def turn_clock(session: Session, game: Game, reminders: Sequence[float], fresh: bool = False) -> TurnClock | None:
    """The current turn's clock, or None for a game that is over (or has no clock). A `fresh`
    turn (one that began in this transaction: a start, a move) has sent no reminder yet.

    It reads without flushing the session first: what it reads (vacations, reminders sent)
    is flushed by the functions that write it, and a move's own rows can then go out in
    one flush with the game's next event."""
    if game.status != "active" or game.turn_started_at is None:
        return None
    with session.no_autoflush:
        mover = session.get(Player, game.player_id(game.turn))
        if is_bot(mover):
            return None  # never reminded, never forfeited on time: the bot runner moves for it
        until = _deadline(game, mover, vacations.pausing(session, mover.id, game.turn_started_at))
        if until is None:
            return None  # `clock=none`: never reminded, never out of time
        unsent = {h: until - timedelta(hours=h) for h in reminders}
        if unsent and not fresh:
            ahead = work_of(session).reminders_sent.pop((game.id, game.ply), None)  # once: its own rows come next
            for hours in ahead if ahead is not None else session.exec(_SENT, params={"game": game.id, "ply": game.ply}):
                unsent.pop(hours, None)
    return TurnClock(mover, game.turn_started_at, until, unsent)


def next_event(session: Session, game: Game, reminders: Sequence[float], fresh: bool = False) -> datetime | None:
    """When the clock round must next look at the game (`TurnClock.next_event`): its deadline
    or an earlier reminder point (`reminders`, hours before it) not yet sent for this turn;
    None for a game with no clock running."""
    turn = turn_clock(session, game, reminders, fresh)
    return turn.next_event() if turn is not None else None


def reschedule(session: Session, game: Game, reminders: Sequence[float], fresh: bool = False) -> datetime | None:
    """Store the game's next clock event (`next_event`), for the round to find, and whether a bot
    has something to do (`Game.bot_due_at`, for the bot runner); returns the clock's event."""
    game.clock_due_at = next_event(session, game, reminders, fresh)
    mark(session, game, now())
    return game.clock_due_at


def reschedule_player(session: Session, player: Player, reminders: Sequence[float]) -> None:
    """After a change of the player's vacations or zone: every game of theirs in progress,
    each locked and read afresh first (a move in it may be committing)."""
    query = (
        select(Game)
        .where(Game.status == "active", or_(Game.player0_id == player.id, Game.player1_id == player.id))
        .order_by(Game.id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    for game in session.exec(query):
        reschedule(session, game, reminders)


def control(game: Game | Challenge | Tournament) -> tc.TimeControl:
    """The time control of a game (or of the challenge or tournament that makes games)."""
    return tc.load(game.clock, game.days)


def _sides(game: Game) -> tc.Sides:
    return tc.Sides.load(game.clock_sides) if game.clock_sides else control(game).start()


def _pauses(holidays: list[Vacation]) -> list[tuple[datetime, datetime]]:
    return [(v.starts_at, v.ends_at) for v in holidays]


def _deadline(game: Game, mover: Player, holidays: list[Vacation]) -> datetime | None:
    """The turn's deadline, whatever the kind of clock (days per move included); None for a game
    with no clock (`clock=none`)."""
    budget = control(game).budget(_sides(game), game.turn)
    if budget is None or game.turn_started_at is None:
        return None
    return tc.deadline(game.turn_started_at, timedelta(seconds=budget + game.clock_credit), _pauses(holidays),
                       game.weekends_off, zone(mover.timezone))


def view(session: Session, game: Game, viewer: Player | None) -> dict[str, Any] | None:
    """What a mail shows of the clock, in the viewer's zone (else that of the player on move):
    `when` and `away_until` are aware datetimes in that zone, which a template says in its
    language; `left` ("3 days left") and `remaining` ("3 days") are phrases."""
    if game.status != "active" or game.turn_started_at is None:
        return None
    at = now()
    mover = session.get(Player, game.player_id(game.turn))
    if is_bot(mover):
        return None  # a bot's turn has no deadline
    holidays = vacations.pausing(session, mover.id, game.turn_started_at)  # one query serves both
    until = _deadline(game, mover, holidays)
    if until is None:
        return None  # `clock=none`: no deadline
    tz = zone((viewer or mover).timezone)
    away = next((v for v in holidays if v.starts_at <= at < v.ends_at and not v.bounced), None)
    return {
        "when": local(until, tz),
        "left": left(until, at),
        "remaining": remaining(until, at),
        "days": game.days,
        "weekends_off": game.weekends_off,
        "away_until": local(away.ends_at, tz) if away is not None else None,
        # their address bounces (pbem.letters.bounces): the clock waits for their next mail, not for a date
        "unreachable": any(v.bounced and v.starts_at <= at < v.ends_at for v in holidays),
    }


def add_time(game: Game, days: float) -> None:
    """The operator gives the player on move more time (`pbem admin extend`)."""
    if game.status != "active":
        raise ClockError(
            f"Game #{game.id} is over ({game.result}); there is no deadline to extend.",
            code="clock.game_over", params={"game": game.id},
        )
    if days <= 0:
        raise ClockError("Give a positive number of days.", code="clock.days_not_positive")
    game.clock_credit += int(days * 86400)  # the caller reschedules: it knows the reminder points


# --- the kinds of clock beyond days per move (pbem.games.timecontrol) -------------------------------------


def used(session: Session, game: Game, at: datetime) -> float:
    """The running time the player on move has used of this turn by `at` (their vacations and
    the game's weekends off left out), less any time the operator added."""
    mover = session.get(Player, game.player_id(game.turn))
    if game.turn_started_at is None or mover is None or mover.id is None:
        return 0.0
    holidays = vacations.pausing(session, mover.id, game.turn_started_at)
    ran = tc.elapsed(game.turn_started_at, at, _pauses(holidays), game.weekends_off, zone(mover.timezone))
    return ran.total_seconds() - game.clock_credit


def charge(session: Session, game: Game, at: datetime) -> int | None:
    """On a move at `at`, before the turn passes: the mover's clock after it (stored in
    `Game.clock_sides`); returns their time left, None for a game without such a clock."""
    if game.clock is None or game.turn_started_at is None:
        return None
    kind = control(game)
    if not kind.timed:
        return None
    mover = session.get(Player, game.player_id(game.turn))
    spent = 0.0 if is_bot(mover) else used(session, game, at)  # a bot's turn has no clock running
    after = kind.after(_sides(game), game.turn, spent)
    game.clock_sides = after.dump()
    return after.left[game.turn]


def restore(game: Game, kept: Sequence[Move]) -> None:
    """After a take-back: each side's clock as it was after its last move kept."""
    if game.clock is None:
        return
    sides = control(game).start()
    for move in kept:
        left = move.clock_left if move.clock_left is not None else sides.left[move.side]
        sides = sides.with_side(move.side, left, sides.moves[move.side] + 1)
    game.clock_sides = sides.dump()


def clock_view(session: Session, game: Game) -> dict[str, Any] | None:
    """What a mail shows of a game's time control beyond days per move: the control in words,
    and while the game is on each side's time left before a loss on time (that of the side on
    move as of now, the other's as their next turn will begin); None for days per move."""
    if game.clock is None:
        return None
    kind = control(game)
    shown: dict[str, Any] = {"describe": kind.describe(), "notation": kind.notation(), "sides": None}
    if game.status == "active" and kind.timed:
        sides, spent = _sides(game), used(session, game, now())
        lefts = [kind.remaining(sides, side, spent if side == game.turn else 0) or 0 for side in (0, 1)]
        shown["sides"] = [tc.span(left) for left in lefts]
        shown["seconds"] = lefts
    return shown


def parse_clock(text: str, days: str | None) -> tuple[int | None, str | None]:
    """The `clock=` option of a challenge, checked: (days per move, None) when it says days per
    move (stored as `days=` is, as before), else (None, its canonical notation)."""
    if days is not None:
        raise ClockError(
            phrase("A challenge takes {days} or {clock}, not both.", days="days=", clock="clock="),
            phrase("Write e.g. {example}.", example="clock=days:3"),
            code="clock.both",
        )
    chosen = tc.parse(text, MAX_DAYS)
    if chosen.kind == "days":
        return chosen.per_move // tc.DAY, None
    return None, chosen.notation()
