"""The daemon's clock round: reminders before a deadline, a loss on time after it.

Every `clock_interval` seconds the daemon calls `tick`: each due reminder is sent once (a
`Reminder` row per game, turn and point makes that survive restarts) and an overdue game
ends through `games.finish`, each game in one transaction with the mails it queues.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import clock, notify, post
from pbem import games as G
from pbem.commands.reader import guarded_templates
from pbem.config import Settings
from pbem.db import transaction
from pbem.models import Game, Player, Reminder
from pbem.templates import Templates
from pbem.wallclock import now

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Round:
    """What one `tick` did."""

    reminders: int = 0
    forfeits: int = 0


def tick(engine: Engine, settings: Settings, templates: Templates | None = None) -> Round:
    """Send due reminders and end overdue games; each game in its own transaction."""
    templates = templates or guarded_templates(settings)
    with Session(engine) as session:
        ids = session.exec(select(Game.id).where(Game.status == "active").order_by(Game.id)).all()
    reminders = forfeits = 0
    for game_id in ids:
        try:
            with transaction(engine) as session:
                done = _check(session, settings, templates, session.get(Game, game_id), now())
        except Exception:  # one broken game must not stop the clock of the others
            log.exception("clock: game #%s failed", game_id)
            continue
        reminders += done == "reminder"
        forfeits += done == "forfeit"
    return Round(reminders, forfeits)


def _check(session: Session, settings: Settings, templates: Templates, game: Game, at: datetime) -> str | None:
    until = clock.game_deadline(session, game)
    if until is None:
        return None
    mover = session.get(Player, game.player_id(game.turn))
    if at >= until:
        G.finish(session, game, 1 - game.turn, f"{mover.name} ran out of time", at, ending="time")
        post.post(session, settings, templates, notify.tell(session, "timed_out", game))
        log.info("game #%s: %s ran out of time", game.id, mover.address)
        return "forfeit"
    sent = set(session.exec(select(Reminder.hours).where(Reminder.game_id == game.id, Reminder.ply == game.ply)))
    due = [h for h in settings.reminders if h not in sent and at >= until - timedelta(hours=h)]
    if not due:
        return None
    for hours in due:  # all points passed are recorded; one mail says how much time is left
        session.add(Reminder(game_id=game.id, ply=game.ply, hours=hours, sent_at=at))
    started = game.turn_started_at or at
    if all(until - timedelta(hours=h) <= started for h in due):  # the turn was shorter than that
        return None
    post.post(session, settings, templates, notify.tell(session, "reminder", game))
    log.info("game #%s: reminded %s (%s h before the deadline)", game.id, mover.address, min(due))
    return "reminder"


def extend(session: Session, settings: Settings, templates: Templates, game: Game, days: float, reason: str) -> None:
    """The operator gives the player on move more time; both players are told the new deadline."""
    clock.add_time(game, days)
    session.add(game)
    session.flush()
    post.post(session, settings, templates, notify.tell(session, "extended", game, days=days, reason=reason))
