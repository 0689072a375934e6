"""Messages whose processing raises: counted in the database, set aside after a few tries.

Each try is counted *before* it starts, so a message that kills the process outright (a
crash loop) is set aside too. A quarantined message keeps its raw bytes; the admin can
list, show, retry or drop it (`pbem admin quarantine`).
"""

from __future__ import annotations

from sqlalchemy import Engine, delete
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from pbem.db import transaction
from pbem.mail.inbound import Envelope
from pbem.models import InboundMessage, Quarantine
from pbem.wallclock import now

MAX_TRIES = 5


def admit(engine: Engine, envelope: Envelope, raw: bytes, max_tries: int = MAX_TRIES) -> bool:
    """Count one more try of a message; False when it is (now) quarantined and must not be tried."""
    try:
        return _admit(engine, envelope, raw, max_tries)
    except IntegrityError:  # another daemon counted its try of the same message at the same moment
        return _admit(engine, envelope, raw, max_tries)


def _admit(engine: Engine, envelope: Envelope, raw: bytes, max_tries: int) -> bool:
    message_id, sender, subject = envelope.message_id, envelope.sender[:320], envelope.subject[:400]
    with transaction(engine) as session:
        if session.exec(select(InboundMessage.id).where(InboundMessage.message_id == message_id)).first():
            return True  # already done: the service will call it a duplicate
        row = session.exec(select(Quarantine).where(Quarantine.message_id == message_id)).first()
        if row is None:
            row = Quarantine(message_id=message_id, sender=sender, subject=subject, raw=b"", created_at=now(),
                             updated_at=now())  # the bytes are kept only if it is quarantined
        if row.status == "quarantined":
            return False
        row.tries += 1
        row.updated_at = now()
        if row.tries > max_tries:
            row.status, row.error = "quarantined", (row.error or "the process died while handling it")[:400]
            row.raw = raw
        session.add(row)
        return row.status != "quarantined"


def failed(engine: Engine, envelope: Envelope, raw: bytes, error: str, max_tries: int = MAX_TRIES) -> bool:
    """Note a try that raised; True when the message is now quarantined (stop reading it)."""
    message_id = envelope.message_id
    with transaction(engine) as session:
        row = session.exec(select(Quarantine).where(Quarantine.message_id == message_id)).first()
        if row is None:
            return False
        row.error, row.updated_at = error[:400], now()
        if row.tries >= max_tries:
            row.status, row.raw = "quarantined", raw
        session.add(row)
        return row.status == "quarantined"


def succeeded(engine: Engine, envelope: Envelope) -> None:
    """Forget the tries of a message that went through."""
    message_id = envelope.message_id
    with transaction(engine) as session:
        session.exec(delete(Quarantine).where(Quarantine.message_id == message_id))


def quarantined(engine: Engine) -> list[Quarantine]:
    with transaction(engine) as session:
        return list(session.exec(select(Quarantine).where(Quarantine.status == "quarantined").order_by(Quarantine.id)))


def release(engine: Engine, row_id: int) -> bytes:
    """Take a quarantined message out (to retry it): its raw bytes, and no trace that blocks it."""
    with transaction(engine) as session:
        row = session.get(Quarantine, row_id)
        if row is None or row.status != "quarantined":
            raise LookupError(f"there is no quarantined message #{row_id}")
        raw = row.raw
        session.exec(delete(InboundMessage).where(InboundMessage.message_id == row.message_id)
                     .where(InboundMessage.status == "failed"))
        session.delete(row)
    return raw


def drop(engine: Engine, row_id: int) -> None:
    """Forget a quarantined message for good (its inbound record stays, so it is never read again)."""
    with transaction(engine) as session:
        row = session.get(Quarantine, row_id)
        if row is None or row.status != "quarantined":
            raise LookupError(f"there is no quarantined message #{row_id}")
        session.delete(row)

