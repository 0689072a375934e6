"""The daemon's clock round: reminders before a deadline, a loss on time after it.

Every `clock_interval` seconds the daemon calls `tick`. Each game stores when its clock
next needs looking at (`Game.clock_due_at`, see `clock.next_event`), so a round reads only
the games due, through an index: a round with nothing due is one query, however many games
are in progress. Each due game is then handled in its own transaction, which locks it and
checks again that it is due (another daemon may have handled it): each due reminder is sent
once (a `Reminder` row per game, turn and point makes that survive restarts), an overdue
game ends through `games.finish`, and the game's next event is stored, all with the mails
it queues. What the games of a batch need to be looked at is read for the whole batch first
(their newest moves, which are boards of a tournament, their clocks), and a game's
transaction takes it only while the game is as it was then.

The stored events follow the `reminders` in force when they were computed. After a change
of that setting each game catches up at its next stored event (or move): a point removed
only wakes the round once for nothing; a point added earlier than the next stored one is
mailed late, together with that one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, bindparam, update
from sqlmodel import Session, or_, select
from sqlmodel.sql.expression import SelectOfScalar

from pbem.commands.lines.reader import guarded_templates
from pbem.core.config import Settings
from pbem.core.db import transaction
from pbem.core.models import Game, Move, Player, Reminder, TournamentGame, Vacation
from pbem.core.wallclock import now
from pbem.games import clock
from pbem.games import store as G
from pbem.letters import notify, post
from pbem.text.templates import Templates
from pbem.tournaments import tournament as tournaments

log = logging.getLogger(__name__)

BATCH = 500  # due games read per query; a round goes on until none is left


@dataclass(frozen=True)
class Round:
    """What one `tick` did."""

    reminders: int = 0
    forfeits: int = 0


def tick(engine: Engine, settings: Settings, templates: Templates | None = None) -> Round:
    """Send due reminders and end overdue games: the games due are read in batches, soonest
    first, and each is handled in its own transaction; one whose check fails is put off to
    the next round, so that it holds up neither this round nor the other games."""
    at = now()
    seen: set[int] = set()
    reminders = forfeits = 0
    while True:
        ids = _due(engine, at)
        fresh = [game_id for game_id in ids if game_id not in seen]
        if fresh and templates is None:
            templates = guarded_templates(settings)
        with Session(engine) as session:  # what the batch's games need, read for all at once
            ahead = _moves(session, fresh)
            boards = _in_tournaments(session, fresh)
            clocks = _clocks_ahead(session, fresh)
        for game_id in fresh:
            try:
                with transaction(engine) as session:
                    done = _handle(session, settings, templates, game_id, at, ahead.get(game_id), game_id in boards,
                                   clocks.get(game_id))
            except Exception:  # one broken game must not stop the clock of the others
                log.exception("clock: game #%s failed", game_id)
                _retry_later(engine, game_id, at + timedelta(seconds=settings.clock_interval))
                continue
            reminders += done == "reminder"
            forfeits += done == "forfeit"
        seen.update(fresh)
        if len(ids) < BATCH or not fresh:  # a game another daemon holds may come back: seen once is enough
            return Round(reminders, forfeits)


def _due(engine: Engine, at: datetime) -> list[int]:
    """The next games due at `at`, soonest first."""
    with Session(engine) as session:
        return list(session.exec(_due_query(at)))


def _due_query(at: datetime) -> SelectOfScalar[int]:
    """Read through ix_game_status_clock_due_at, in its order: no game that is not due is read."""
    return (
        select(Game.id)
        .where(Game.status == "active", Game.clock_due_at <= at)
        .order_by(Game.clock_due_at, Game.id)
        .limit(BATCH)
    )


def _newest_moves(engine: Engine, ids: list[int]) -> dict[int, tuple[int, Move]]:
    """The newest move of each of the games `ids` with the game's version then, in one query
    for a batch: the mails of a due game show its last move, a query per game otherwise."""
    with Session(engine) as session:
        return _moves(session, ids)


_NEWEST = (
    select(Game.version, Move)
    .join(Move, (Move.game_id == Game.id) & (Move.ply == Game.ply))
    .where(Game.id.in_(bindparam("games", expanding=True)))
)


def _moves(session: Session, ids: list[int]) -> dict[int, tuple[int, Move]]:
    if not ids:
        return {}
    return {move.game_id: (version, move) for version, move in session.exec(_NEWEST, params={"games": ids})}


_LOCKED = (  # built once, as the other statements of a due game: building one costs more than running it
    select(Game, Player)
    .join(Player, or_(Player.id == Game.player0_id, Player.id == Game.player1_id))
    .where(Game.id == bindparam("game"))
    .with_for_update(of=Game, skip_locked=True)
    .execution_options(populate_existing=True)
)


def _in_tournaments(session: Session, ids: list[int]) -> set[int]:
    """Which of the games `ids` are boards of a tournament (whose clock an adjournment may
    stop), in one query for a batch: a game is paired into its tournament when it is made,
    so the others need no look at the tournaments each."""
    if not ids:
        return set()
    return set(session.exec(select(TournamentGame.game_id).where(TournamentGame.game_id.in_(ids))))


@dataclass(frozen=True)
class _Clock:
    """A due game's clock as a batch read it: the game's fields it hangs on, the vacations of
    the player on move that may pause the turn, and the reminders sent in it."""

    seen: tuple[object, ...]  # version, ply, turn, turn start, next event: `_seen`
    holidays: list[Vacation]
    sent: list[float]


def _seen(game: Game) -> tuple[object, ...]:
    """What changes whenever the vacations or reminders that count for a game's turn may have:
    a move (version, ply), a new turn, or a new schedule (every vacation started or ended and
    every reminder sent stores the next event anew, later than the one that was due)."""
    return (game.version, game.ply, game.turn, game.turn_started_at, game.clock_due_at)


_CLOCKS = select(Game.id, Game.version, Game.ply, Game.turn, Game.turn_started_at, Game.clock_due_at,
                 Game.player0_id, Game.player1_id).where(Game.id.in_(bindparam("games", expanding=True)))
_SENT = select(Reminder.game_id, Reminder.ply, Reminder.hours).where(Reminder.game_id.in_(bindparam("games", expanding=True)))
_AWAY = select(Vacation).where(Vacation.player_id.in_(bindparam("players", expanding=True)),
                               Vacation.ends_at > bindparam("since")).order_by(Vacation.starts_at)


def _clocks_ahead(session: Session, ids: list[int]) -> dict[int, _Clock]:
    """The clocks of the due games `ids`, in three queries for a batch (a game, its mover's
    vacations, its reminders sent: a query each per game otherwise)."""
    if not ids:
        return {}
    games = [row for row in session.exec(_CLOCKS, params={"games": ids}) if row.turn_started_at is not None]
    if not games:
        return {}
    movers = {row.id: (row.player0_id, row.player1_id)[row.turn] for row in games}
    since = min(row.turn_started_at for row in games)
    away = list(session.exec(_AWAY, params={"players": sorted(set(movers.values())), "since": since}))
    sent: dict[tuple[int, int], list[float]] = {}
    for game_id, ply, hours in session.exec(_SENT, params={"games": [row.id for row in games]}):
        sent.setdefault((game_id, ply), []).append(hours)
    return {
        row.id: _Clock(
            (row.version, row.ply, row.turn, row.turn_started_at, row.clock_due_at),
            [v for v in away if v.player_id == movers[row.id] and v.ends_at > row.turn_started_at],
            sent.get((row.id, row.ply), []),
        )
        for row in games
    }


def _handle(
    session: Session, settings: Settings, templates: Templates, game_id: int, at: datetime,
    newest: tuple[int, Move] | None = None, in_tournament: bool = True, ahead: _Clock | None = None,
) -> str | None:
    """One due game, locked and read afresh with its two players (one query; kept loaded
    for the mails): skipped when another daemon holds it or has handled it; else checked
    (`_check` stores its next event). `newest` is its newest move read ahead with the game's
    version: while the version is the same, it is still the newest, and the mails take it.
    A game not `in_tournament` is not asked whether its tournament is adjourned; its clock
    read `ahead` serves while the game is as it was then."""
    rows = session.exec(_LOCKED, params={"game": game_id}).all()
    game = rows[0][0] if rows else None
    if game is None or game.status != "active" or game.clock_due_at is None or game.clock_due_at > at:
        return None
    if newest is not None and newest[0] == game.version and newest[1].ply == game.ply:
        session.info.setdefault("pbem.play.moves", {})[game.id] = newest[1]  # as `games.play` keeps it
    if ahead is not None and ahead.seen == _seen(game):
        clock.read_ahead(session, game, ahead.holidays, ahead.sent)
    return _check(session, settings, templates, game, now(), in_tournament)


def _retry_later(engine: Engine, game_id: int, at: datetime) -> None:
    """A game whose check failed waits for a later round instead of holding up this one."""
    try:
        with transaction(engine) as session:
            session.exec(update(Game).where(Game.id == game_id, Game.status == "active").values(clock_due_at=at))
    except Exception:
        log.exception("clock: game #%s could not be put off", game_id)


def _check(
    session: Session, settings: Settings, templates: Templates, game: Game, at: datetime, in_tournament: bool = True,
) -> str | None:
    """Remind or end the game as its clock says at `at`, and store its next event."""
    turn = clock.turn_clock(session, game, settings.reminders)
    if turn is None or (in_tournament and tournaments.adjourned(session, game)):  # no clock, or one stopped with its tournament
        game.clock_due_at = None
        session.add(game)
        return None
    mover = turn.mover
    if at >= turn.deadline:
        G.finish(session, game, 1 - game.turn, f"{mover.name} ran out of time", at, ending="time")
        post.post(session, settings, templates, notify.tell(session, "timed_out", game))
        log.info("game #%s: %s ran out of time", game.id, mover.address)
        return "forfeit"
    due = {h: point for h, point in turn.unsent.items() if at >= point}
    for hours in due:  # all points passed are recorded; one mail says how much time is left
        session.add(Reminder(game_id=game.id, ply=game.ply, hours=hours, sent_at=at))
        del turn.unsent[hours]
    game.clock_due_at = turn.next_event()  # past `at`: the points passed are sent now
    session.add(game)
    if all(point <= turn.started for point in due.values()):  # none, or the turn was shorter than that
        return None
    post.post(session, settings, templates, notify.tell(session, "reminder", game))
    log.info("game #%s: reminded %s (%s h before the deadline)", game.id, mover.address, min(due))
    return "reminder"


def extend(session: Session, settings: Settings, templates: Templates, game: Game, days: float, reason: str) -> None:
    """The operator gives the player on move more time; both players are told the new deadline."""
    clock.add_time(game, days)
    clock.reschedule(session, game, settings.reminders)
    session.flush()
    post.post(session, settings, templates, notify.tell(session, "extended", game, days=days, reason=reason))
