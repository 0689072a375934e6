"""Vacations: a player's pause of all their clocks, within a yearly allowance, and the pause
while their address bounces. Read once per transaction for the deadlines (`pausing`, kept in
the unit of work)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from sqlalchemy import bindparam
from sqlmodel import Session, col

from pbem.core.errors import ClockError
from pbem.core.models import Player, Vacation
from pbem.core.rows import load, selecting
from pbem.core.wallclock import aware
from pbem.core.work import work_of
from pbem.games.zones import local, zone
from pbem_engine.common.phrases import nphrase, phrase

DAY = timedelta(days=1)


_VACATIONS = (
    selecting(Vacation).where(col(Vacation.player_id) == bindparam("player")).order_by(col(Vacation.starts_at))
)
_VACATIONS_SINCE = (  # built once: the clock round asks for every due game
    selecting(Vacation)
    .where(col(Vacation.player_id) == bindparam("player"), col(Vacation.ends_at) > bindparam("since"))
    .order_by(col(Vacation.starts_at))
)


def vacations(session: Session, player_id: int, since: datetime | None = None) -> list[Vacation]:
    if since is None:
        return load(session, Vacation, _VACATIONS, {"player": player_id})
    return load(session, Vacation, _VACATIONS_SINCE, {"player": player_id, "since": since})


def pausing(session: Session, player_id: int, since: datetime) -> list[Vacation]:
    """The vacations that may pause a turn begun at `since`: read once per transaction (or
    savepoint), for the mails and the schedule alike; `start_vacation` and `end_vacation`
    forget them, and so does the end of the transaction, committed or rolled back. A turn
    begun after the read of a mail's boards found the player with no vacation ahead
    (`work.take_game_facts`) has none, with no query."""
    work = work_of(session)
    free = work.free_after.get(player_id)
    if free is not None and since is not None and aware(since) >= free:
        return []
    key = (player_id, since)
    if key not in work.holidays:
        work.holidays[key] = vacations(session, player_id, since)
    return work.holidays[key]



def current_vacation(session: Session, player: Player, at: datetime) -> Vacation | None:
    return next((v for v in vacations(session, player.id, at) if v.starts_at <= at and not v.bounced), None)


def days_used(session: Session, player: Player, year: int) -> int:
    """Vacation days taken in `year` (by start); a day begun counts as a day (a pause while
    their address bounced counts not: they did not choose it)."""
    return sum(
        math.ceil((v.ends_at - v.starts_at) / DAY) for v in vacations(session, player.id)
        if v.starts_at.year == year and not v.bounced
    )


#: how long a pause for a bouncing address lasts at most: until the player writes again, in practice
BOUNCE_PAUSE = timedelta(days=3650)


def pause_unreachable(session: Session, player: Player, at: datetime) -> Vacation:
    """Pause all of the player's clocks from `at` while their address bounces (`pbem.letters.bounces`):
    a vacation that spends no allowance and ends when they write again (`resume_reachable`)."""
    vacation = Vacation(player_id=player.id, starts_at=at, ends_at=at + BOUNCE_PAUSE, bounced=True)
    session.add(vacation)
    session.flush()
    work_of(session).forget_holidays()
    return vacation


def resume_reachable(session: Session, player: Player, at: datetime) -> None:
    """End the pause of `pause_unreachable`: their clocks run again from `at`."""
    for vacation in vacations(session, player.id, at):
        if vacation.bounced and vacation.starts_at <= at:
            vacation.ends_at = at
            session.add(vacation)
    session.flush()
    work_of(session).forget_holidays()


def start_vacation(session: Session, player: Player, days: int, at: datetime, allowance: int) -> Vacation:
    """Pause all of the player's clocks from `at` for `days` days, within the yearly allowance."""
    ongoing = current_vacation(session, player, at)
    if ongoing is not None:
        raise ClockError(
            phrase("You are already on vacation until {until}.", until=local(ongoing.ends_at, zone(player.timezone))),
            phrase("Write {command} to end it; then you may start a new one.", command="back"),
        )
    remaining = allowance - days_used(session, player, at.year)
    if days < 1 or days > remaining:
        raise ClockError(
            nphrase(
                "You have {n} vacation day left this year (of {allowance}), so I cannot give you {days}.",
                "You have {n} vacation days left this year (of {allowance}), so I cannot give you {days}.",
                remaining, allowance=allowance, days=days,
            ),
            phrase("Write e.g. {example}.", example=f"vacation {max(min(remaining, 7), 1)}")
            if remaining > 0 else phrase("The allowance renews on 1 January."),
        )
    vacation = Vacation(player_id=player.id, starts_at=at, ends_at=at + days * DAY)
    session.add(vacation)
    session.flush()
    work_of(session).forget_holidays()
    return vacation


def end_vacation(session: Session, player: Player, at: datetime) -> Vacation:
    """End the player's vacation now; the days not taken go back to the allowance."""
    ongoing = current_vacation(session, player, at)
    if ongoing is None:
        raise ClockError(phrase("You are not on vacation, so there is nothing to come back from."), "")
    ongoing.ends_at = at
    session.add(ongoing)
    session.flush()
    work_of(session).forget_holidays()
    return ongoing
