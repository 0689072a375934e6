"""The outbox: claim due mails, send them, record each attempt.

`pbem.post` writes a mail as a row (its final bytes and Message-ID) in the transaction
of whatever caused it, so a crash never loses a reply and a retry repeats the same
Message-ID. This module only delivers: it claims due rows, sends one recipient each, and
reschedules temporary failures with exponential backoff.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from datetime import timedelta

from sqlalchemy import Engine, update
from sqlmodel import select

from pbem import faults
from pbem.config import Settings
from pbem.db import transaction
from pbem.mail import smtp
from pbem.models import Outbox
from pbem.wallclock import now

log = logging.getLogger(__name__)


def _backoff(settings: Settings, attempts: int) -> timedelta:
    return timedelta(seconds=min(settings.retry_base * 2 ** max(attempts - 1, 0), 6 * 3600))


def claim(engine: Engine, limit: int, lease: float = 120.0) -> list[tuple[int, str, bytes]]:
    """Take due rows for this daemon alone: locked with SKIP LOCKED (PostgreSQL; SQLite's
    BEGIN IMMEDIATE serialises instead) and leased by moving their next attempt ahead.

    If the daemon dies while sending, the lease (seconds) runs out and a daemon sends the
    row again, with the same Message-ID: at least once, never lost."""
    with transaction(engine) as session:
        rows = session.exec(
            select(Outbox)
            .where(Outbox.status == "pending")
            .where(Outbox.next_attempt_at <= now())
            .order_by(Outbox.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        ).all()
        for row in rows:
            row.next_attempt_at = now() + timedelta(seconds=lease)
            session.add(row)
        return [(row.id, row.recipient, row.message) for row in rows]


async def deliver_due(engine: Engine, settings: Settings, limit: int = 50) -> int:
    """Send every due outbox row once, over a few SMTP connections side by side (each reused
    for many mails); returns how many were sent. A temporary failure ends the round: the
    rows not yet tried are given back at once, the failed one waits for its backoff.

    While the round is still sending, the lease on its rows is renewed, so a slow SMTP
    server never makes a second daemon send them again while this one is alive."""
    rows = deque(claim(engine, limit, settings.outbox_lease))
    held = {row_id for row_id, _, _ in rows}  # claimed and not yet recorded
    sent = 0
    halted = False

    async def worker() -> None:
        nonlocal sent, halted
        async with smtp.Connection(settings.smtp) as connection:
            while rows and not halted:
                row_id, recipient, data = rows.popleft()
                error: smtp.DeliveryError | None = None
                try:
                    await connection.send(settings.address, recipient, data)
                    faults.crash_point("after-smtp")
                except smtp.DeliveryError as exc:
                    error = exc
                _record(engine, settings, row_id, recipient, error)
                held.discard(row_id)
                if error is None:
                    sent += 1
                elif not isinstance(error, smtp.PermanentFailure):
                    halted = True  # the server is down or refuses us: stop this round

    async def renew() -> None:
        while True:
            await asyncio.sleep(settings.outbox_lease / 3)
            if held:
                await asyncio.to_thread(_extend, engine, sorted(held), settings.outbox_lease)

    renewing = asyncio.create_task(renew())
    try:
        await asyncio.gather(*(worker() for _ in range(min(settings.smtp_connections, len(rows)))))
    finally:
        renewing.cancel()
    _release(engine, [row_id for row_id, _, _ in rows])
    return sent


def _extend(engine: Engine, row_ids: list[int], lease: float) -> None:
    """Keep the rows a live round still holds: their lease runs on from now."""
    with transaction(engine) as session:
        session.exec(
            update(Outbox)
            .where(Outbox.id.in_(row_ids), Outbox.status == "pending")
            .values(next_attempt_at=now() + timedelta(seconds=lease))
        )


def _record(engine: Engine, settings: Settings, row_id: int, recipient: str, error: smtp.DeliveryError | None) -> None:
    """Note one attempt: sent, failed for good, or due again after a backoff."""
    with transaction(engine) as session:
        row = session.get(Outbox, row_id)
        row.attempts += 1
        if error is None:
            row.status, row.sent_at, row.last_error = "sent", now(), None
        elif isinstance(error, smtp.PermanentFailure) or row.attempts >= settings.max_attempts:
            row.status, row.last_error = "failed", str(error)[:400]
            log.error("outbox %s to %s failed for good: %s", row.message_id, recipient, error)
        else:
            row.next_attempt_at = now() + _backoff(settings, row.attempts)
            row.last_error = str(error)[:400]
            log.warning("outbox %s to %s: %s; retrying", row.message_id, recipient, error)
        session.add(row)


def _release(engine: Engine, row_ids: list[int]) -> None:
    """Give back claimed rows this round did not try: due at once, not after the lease."""
    if not row_ids:
        return
    with transaction(engine) as session:
        for row in session.exec(select(Outbox).where(Outbox.id.in_(row_ids))):
            row.next_attempt_at = now()
            session.add(row)
