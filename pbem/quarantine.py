"""Messages whose processing raises: counted in the database, set aside after a few tries.

Each try is counted *before* it starts, so a message that kills the process outright (a
crash loop) is set aside too. A quarantined message keeps its raw bytes; the admin can
list, show, retry or drop it (`pbem admin quarantine`).
"""

from __future__ import annotations

from sqlalchemy import Engine, delete, func, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import select

from pbem.db import transaction
from pbem.mail.inbound import Envelope
from pbem.models import InboundMessage, Quarantine
from pbem.wallclock import now

MAX_TRIES = 5


def admit(engine: Engine, envelope: Envelope, raw: bytes, max_tries: int = MAX_TRIES) -> bool:
    """Count one more try of a message; False when it is (now) quarantined and must not be tried.

    The count is one atomic upsert, so daemons trying the same message at once, or one
    daemon's try racing another's `succeeded`, never lose a count nor trip on each other."""
    at = now()
    with transaction(engine) as session:
        if session.exec(select(InboundMessage.id).where(InboundMessage.message_id == envelope.message_id)).first():
            return True  # already done: the service will call it a duplicate
        insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
        statement = (
            insert(Quarantine)
            .values(message_id=envelope.message_id, sender=envelope.sender[:320], subject=envelope.subject[:400],
                    raw=b"", tries=1, status="trying", error="", created_at=at, updated_at=at)
            .on_conflict_do_update(index_elements=["message_id"],
                                   set_={"tries": Quarantine.tries + 1, "updated_at": at})
            .returning(Quarantine.tries, Quarantine.status)
        )
        tries, status = session.execute(statement).one()
        if status == "quarantined":
            return False
        if tries > max_tries:  # the bytes are kept only once it is quarantined
            session.exec(
                update(Quarantine)
                .where(Quarantine.message_id == envelope.message_id)
                .values(status="quarantined", raw=raw,
                        error=func.coalesce(func.nullif(Quarantine.error, ""), "the process died while handling it"))
            )
            return False
        return True


def failed(engine: Engine, envelope: Envelope, raw: bytes, error: str, max_tries: int = MAX_TRIES) -> bool:
    """Note a try that raised; True when the message is now quarantined (stop reading it)."""
    with transaction(engine) as session:
        row = session.exec(select(Quarantine).where(Quarantine.message_id == envelope.message_id)).first()
        if row is None:
            return False
        row.error, row.updated_at = error[:400], now()
        if row.tries >= max_tries:
            row.status, row.raw = "quarantined", raw
        session.add(row)
        return row.status == "quarantined"


def succeeded(engine: Engine, envelope: Envelope) -> None:
    """Forget the tries of a message that went through."""
    with transaction(engine) as session:
        session.exec(delete(Quarantine).where(Quarantine.message_id == envelope.message_id))


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

