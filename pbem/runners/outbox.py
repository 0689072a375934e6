"""The outbox: claim due mails, send them, record the attempts.

`pbem.letters.post` writes a mail as a row (its final bytes and Message-ID) in the transaction
of whatever caused it, so a crash never loses a reply and a retry repeats the same
Message-ID. This module only delivers: it claims due rows, sends one recipient each over
SMTP sessions it keeps from round to round (a recipient's mails in order, on one session), records the outcomes a batch per transaction,
and reschedules temporary failures with exponential backoff.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from datetime import timedelta

from sqlalchemy import Engine, bindparam, update
from sqlmodel import col, select

from pbem.core import compiled, faults
from pbem.core.config import Settings
from pbem.core.db import transaction
from pbem.core.models import Outbox
from pbem.core.wallclock import now
from pbem.mail.transport import smtp

log = logging.getLogger(__name__)


def _backoff(settings: Settings, attempts: int) -> timedelta:
    return timedelta(seconds=min(settings.retry_base * 2 ** max(attempts - 1, 0), 6 * 3600))


def claim(engine: Engine, limit: int, lease: float = 120.0) -> list[tuple[int, str, bytes]]:
    """Take due rows for this daemon alone: locked with SKIP LOCKED (PostgreSQL; SQLite's
    BEGIN IMMEDIATE serialises instead) and leased by moving their next attempt ahead.

    If the daemon dies while sending, the lease (seconds) runs out and a daemon sends the
    row again, with the same Message-ID: at least once, never lost."""
    with transaction(engine) as session:  # Core statements on the cursor: the rows are only read and leased
        rows = compiled.run(session, _DUE, {"now": now(), "limit": limit})
        if rows:
            compiled.run(session, _LEASE, {"ids": [row[0] for row in rows], "until": now() + timedelta(seconds=lease)})
        return [(row_id, recipient, message) for row_id, recipient, message in rows]


_DUE = (  # built once: the outbox runner asks at every round
    select(Outbox.id, Outbox.recipient, Outbox.message)
    .where(col(Outbox.status) == "pending", col(Outbox.next_attempt_at) <= bindparam("now"))
    .order_by(col(Outbox.id))
    .limit(bindparam("limit"))
    .with_for_update(skip_locked=True)
)
_SENT = update(Outbox).where(col(Outbox.id).in_(bindparam("ids", expanding=True))).values(
    status="sent", sent_at=bindparam("at"), last_error=None, attempts=col(Outbox.attempts) + 1)
_LEASE = update(Outbox).where(col(Outbox.id).in_(bindparam("ids", expanding=True))).values(
    next_attempt_at=bindparam("until"))


#: sent rows recorded per transaction (a crash re-sends at most this many, under their Message-IDs)
RECORD_BATCH = 20
#: seconds an SMTP session may stay idle between rounds and still be reused
MAX_IDLE = 30.0


class Sender:
    """The outbox runner's state between rounds: SMTP sessions kept open from one round to the
    next (login and TLS once, not every round), closed cleanly by `close`."""

    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings
        self._idle: list[tuple[smtp.Connection, float]] = []  # (session, when it was last used)
        self.more = False  # the last round took as many rows as it could: more may be due at once

    async def close(self) -> None:
        """QUIT every kept session (the daemon stops)."""
        idle, self._idle = self._idle, []
        for connection, _ in idle:
            await connection.close()

    async def _take(self) -> smtp.Connection:
        loop = asyncio.get_running_loop()
        while self._idle:
            connection, used = self._idle.pop()
            if loop.time() - used <= MAX_IDLE:
                return connection
            await connection.close()  # the server may have dropped it already
        return smtp.Connection(self.settings.smtp)

    def _give_back(self, connection: smtp.Connection) -> None:
        self._idle.append((connection, asyncio.get_running_loop().time()))

    async def deliver_due(self, limit: int = 50) -> int:
        """Send every due outbox row once, over a few SMTP sessions side by side (each reused
        for many mails, and kept for the next round); returns how many were sent. A temporary
        failure ends the round: the rows not yet tried are given back at once, the failed one
        waits for its backoff. Outcomes are recorded a batch at a time, off the event loop.

        While the round is still sending, the lease on its rows is renewed, so a slow SMTP
        server never makes a second daemon send them again while this one is alive."""
        engine, settings = self.engine, self.settings
        self.more = False
        claimed = await asyncio.to_thread(claim, engine, limit, settings.outbox_lease)
        held = {row_id for row_id, _, _ in claimed}  # claimed and not yet recorded
        # each recipient's mails in the order they were written, one after the other on one
        # session: two boards of a game never overtake each other (a reply to the one that came
        # last must answer the newest board)
        queues: dict[str, deque[tuple[int, str, bytes]]] = {}
        for row in claimed:
            queues.setdefault(row[1], deque()).append(row)
        rows = deque(queues.values())
        outcomes: list[tuple[int, str, smtp.DeliveryError | None]] = []
        sent = 0
        halted = False

        async def record(everything: bool) -> None:
            if outcomes and (everything or len(outcomes) >= RECORD_BATCH):
                batch = outcomes[:]
                del outcomes[:]
                await asyncio.to_thread(_record, engine, settings, batch)
                held.difference_update(row_id for row_id, _, _ in batch)

        async def worker() -> None:
            nonlocal sent, halted
            connection = await self._take()
            try:
                while rows and not halted:
                    mine = rows.popleft()
                    while mine and not halted:
                        row_id, recipient, data = mine.popleft()
                        error: smtp.DeliveryError | None = None
                        try:
                            await connection.send(settings.address, recipient, data)
                            faults.crash_point("after-smtp")
                        except smtp.DeliveryError as exc:
                            error = exc
                        outcomes.append((row_id, recipient, error))
                        if error is None:
                            sent += 1
                        elif not isinstance(error, smtp.PermanentFailure):
                            halted = True  # the server is down or refuses us: stop this round
                        await record(everything=False)
                    if mine:
                        rows.append(mine)  # not tried: given back below
            finally:
                self._give_back(connection)

        async def renew() -> None:
            while True:
                await asyncio.sleep(settings.outbox_lease / 3)
                if held:
                    await asyncio.to_thread(_extend, engine, sorted(held), settings.outbox_lease)

        renewing = asyncio.create_task(renew())
        full = len(claimed) >= limit
        try:
            await asyncio.gather(*(worker() for _ in range(min(settings.smtp_connections, len(rows)))))
            await record(everything=True)
        finally:
            renewing.cancel()
        await asyncio.to_thread(_release, engine, [row_id for mine in rows for row_id, _, _ in mine])
        self.more = full and not halted
        return sent


async def deliver_due(engine: Engine, settings: Settings, limit: int = 50) -> int:
    """One round on sessions of its own (`Sender.deliver_due`), closed at its end."""
    sender = Sender(engine, settings)
    try:
        return await sender.deliver_due(limit)
    finally:
        await sender.close()


def _extend(engine: Engine, row_ids: list[int], lease: float) -> None:
    """Keep the rows a live round still holds: their lease runs on from now."""
    with transaction(engine) as session:
        session.exec(
            update(Outbox)
            .where(Outbox.id.in_(row_ids), Outbox.status == "pending")
            .values(next_attempt_at=now() + timedelta(seconds=lease))
        )


def _record(engine: Engine, settings: Settings, outcomes: list[tuple[int, str, smtp.DeliveryError | None]]) -> None:
    """Note a batch of attempts in one transaction: the sent rows in one statement, each
    failure (failed for good, or due again after a backoff) on its own row."""
    at = now()
    sent = [row_id for row_id, _, error in outcomes if error is None]
    with transaction(engine) as session:
        if sent:  # a Core statement: the ORM's bulk update would look for the rows in the session
            compiled.run(session, _SENT, {"ids": sent, "at": at})
        for row_id, recipient, error in outcomes:
            if error is None:
                continue
            row = session.get(Outbox, row_id)
            row.attempts += 1
            if isinstance(error, smtp.PermanentFailure) or row.attempts >= settings.max_attempts:
                row.status, row.last_error = "failed", str(error)[:400]
                log.error("outbox %s to %s failed for good: %s", row.message_id, recipient, error)
            else:
                row.next_attempt_at = at + _backoff(settings, row.attempts)
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
