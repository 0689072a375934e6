"""The daemon's tournament round: each running tournament whose round is over is paired on, once,
and each ladder challenge that has ended moves the ladder's places, once.

The clock round calls `advance_due` beside `timekeeper.tick` (whose losses on time may
have just ended a round). Finding the candidates is one query over the running
tournaments (indexed by status) with no game of their current round in progress. Each
is then handled in its own transaction that locks its row (`skip_locked`: a tournament
another daemon is pairing is left to it) and checks again inside the lock, so of several
daemons one pairs the round; the UNIQUE (tournament, round, board) of the boards is the
last guard, and a daemon that trips it rolls back and leaves the round as paired.
"""

from __future__ import annotations

import logging

from sqlalchemy import Engine, and_, exists
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.commands.lines.reader import guarded_templates
from pbem.core.config import Settings
from pbem.core.db import transaction
from pbem.core.models import Game, Tournament, TournamentGame
from pbem.core.wallclock import now
from pbem.letters import post
from pbem.text.templates import Templates
from pbem.tournaments import ladder as ladders
from pbem.tournaments import tournament as T

log = logging.getLogger(__name__)


def due(engine: Engine) -> list[int]:
    """The running tournaments, not adjourned, whose current round has no game in progress."""
    playing = exists().where(
        and_(TournamentGame.tournament_id == Tournament.id, TournamentGame.round == Tournament.round,
             TournamentGame.game_id == Game.id, Game.status == "active")
    )
    query = (
        select(Tournament.id)
        .where(Tournament.status == "running", Tournament.format != "ladder", Tournament.adjourned_at.is_(None),
               ~playing)
        .order_by(Tournament.id)
    )
    with Session(engine) as session:
        return list(session.exec(query))


def advance_due(engine: Engine, settings: Settings, templates: Templates | None = None) -> int:
    """Pair the next round (or finish) of every tournament whose round is over, and move the
    places of every ladder whose challenge has ended; returns how many moved on."""
    advanced = _settle_ladders(engine, settings, templates)
    for tournament_id in due(engine):
        if templates is None:
            templates = guarded_templates(settings)
        try:
            with transaction(engine) as session:
                advanced += advance_one(session, settings, templates, tournament_id)
        except IntegrityError:  # another daemon paired this round first: its rows stand
            log.info("tournament #%s: round already paired elsewhere", tournament_id)
        except Exception:  # one broken tournament must not stop the others
            log.exception("tournament #%s: advancing failed", tournament_id)
    return advanced


def _settle_ladders(engine: Engine, settings: Settings, templates: Templates | None) -> int:
    """Each ended ladder challenge in a transaction of its own, with its ladder's row locked
    (`skip_locked`: another daemon settling that ladder keeps it) and the row read again inside."""
    with Session(engine) as session:
        found = ladders.due(session)
    settled = 0
    for tournament_id, row_id in found:
        templates = templates or guarded_templates(settings)
        try:
            with transaction(engine) as session:
                tournament = _locked(session, tournament_id)
                if tournament is None:
                    continue
                letters = ladders.settle(session, tournament, row_id)
                if letters:
                    post.post(session, settings, templates, letters)
                    log.info("ladder #%s: challenge %s settled", tournament_id, row_id)
                    settled += 1
        except Exception:  # one broken ladder must not stop the others
            log.exception("ladder #%s: settling challenge %s failed", tournament_id, row_id)
    return settled


def _locked(session: Session, tournament_id: int) -> Tournament | None:
    """The tournament's row, locked and read afresh; None while another daemon holds it."""
    query = (
        select(Tournament).where(Tournament.id == tournament_id)
        .with_for_update(skip_locked=True).execution_options(populate_existing=True)
    )
    return session.exec(query).first()


def advance_one(session: Session, settings: Settings, templates: Templates, tournament_id: int) -> int:
    """One tournament, locked and read afresh: its next round paired (or its end), with the mails."""
    tournament = _locked(session, tournament_id)
    if tournament is None:  # another daemon holds it
        return 0
    before = (tournament.round, tournament.status)
    letters = T.advance(session, tournament, settings.reminders, now())
    if (tournament.round, tournament.status) == before:
        return 0
    post.post(session, settings, templates, letters)
    log.info("tournament #%s: round %s (%s)", tournament.id, tournament.round, tournament.status)
    return 1
