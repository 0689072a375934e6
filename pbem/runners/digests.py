"""The daemon's digest round: each player whose daily digest is due gets it, once.

The clock round calls `send_due` beside `timekeeper.tick`. `Player.digest_due_at` is
indexed, so a round with nothing due is one query however many players there are. Each
due player is handled in their own transaction, which locks their row and checks again
that the digest is due (another daemon may have sent it): the digest mail goes into the
outbox and the next due time is stored in the same commit, so a restart, before or
after it, never sends a digest twice. A player with nothing waiting gets no mail; their
next digest is simply scheduled.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import Engine, update
from sqlmodel import Session, select
from sqlmodel.sql.expression import SelectOfScalar

from pbem.commands.lines.reader import guarded_templates
from pbem.core.config import Settings
from pbem.core.db import transaction
from pbem.core.models import Player
from pbem.core.wallclock import aware, now
from pbem.letters import digest, post
from pbem.text.templates import Templates

log = logging.getLogger(__name__)

BATCH = 200  # due players read per query; a round goes on until none is left
#: the least time from one digest to the next: one sent late (the daemon was down at 08:00
#: and came back at 07:00 the next day) stands for that day's, which is not sent an hour later
GAP = timedelta(hours=12)


def send_due(engine: Engine, settings: Settings, templates: Templates | None = None) -> int:
    """Send every digest due now; returns how many mails were queued."""
    at = now()
    seen: set[int] = set()
    sent = 0
    while True:
        with Session(engine) as session:
            ids = list(session.exec(due_query(at)))
        fresh = [player_id for player_id in ids if player_id not in seen]
        if fresh and templates is None:
            templates = guarded_templates(settings)
        for player_id in fresh:
            try:
                with transaction(engine) as session:
                    sent += _handle(session, settings, templates, player_id, at)
            except Exception:  # one broken digest must not stop the others
                log.exception("digest: player #%s failed", player_id)
                _retry_later(engine, player_id, at + timedelta(seconds=settings.clock_interval))
        seen.update(fresh)
        if len(ids) < BATCH or not fresh:
            return sent


def due_query(at: datetime) -> SelectOfScalar[int]:
    """The next players due at `at`, soonest first: read through ix_player_digest_due_at, so
    no player who is not due (nor one who takes no digest, stored as NULL) is read."""
    return select(Player.id).where(Player.digest_due_at <= at).order_by(Player.digest_due_at).limit(BATCH)


def _handle(session: Session, settings: Settings, templates: Templates, player_id: int, at: datetime) -> int:
    """One due player, locked and read afresh: the digest (if anything waits) and the next time."""
    query = (
        select(Player).where(Player.id == player_id)
        .with_for_update(skip_locked=True).execution_options(populate_existing=True)
    )
    player = session.exec(query).first()
    due = aware(player.digest_due_at) if player is not None else None
    if player is None or due is None or due > at:
        return 0
    letters = [] if player.banned else digest.letters(session, player)
    if letters:
        post.post(session, settings, templates, letters)
        player.digest_sent_at = at
        log.info("digest: sent to %s (%d games waiting)", player.address, letters[0].data["count"])
    digest.schedule(player, at + GAP if letters else at)
    session.add(player)
    return len(letters)


def _retry_later(engine: Engine, player_id: int, at: datetime) -> None:
    """A digest that failed waits for a later round instead of failing every round at once."""
    try:
        with transaction(engine) as session:
            session.exec(update(Player).where(Player.id == player_id).values(digest_due_at=at))
    except Exception:
        log.exception("digest: player #%s could not be put off", player_id)
