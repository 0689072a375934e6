"""Messages whose processing raises or kills the process: counted, set aside after a few tries.

A try that goes through costs no transaction of its own: the message's own transaction looks
its count up (in the statement that checks for a repeat, `Gate.admit`) and forgets a count it
had. What must survive a SIGKILL is written outside the database, in a small file of this
process (`Journal`): the message in hand and the count it had when its try began. A daemon
that starts counts the tries that its dead predecessors' files name (`recover`), so a message
that keeps killing the process is quarantined after MAX_TRIES kills, without a try more. A try
that raises is counted at once, in a transaction of its own (`failed`).

A quarantined message keeps its raw bytes; the admin can list, show, retry or drop it
(`pbem admin quarantine`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, bindparam, delete, func, literal, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from pbem.core.db import transaction
from pbem.core.models import InboundMessage, Quarantine
from pbem.core.rows import read
from pbem.core.wallclock import now
from pbem.mail.message.inbound import Envelope

log = logging.getLogger(__name__)

MAX_TRIES = 5
DIED = "the process died while handling it"
_SUFFIX = ".trying"


class Journal:
    """The message this process is trying, in a file only this process holds (an exclusive
    `flock`, which the kernel drops when the process dies however it dies).

    One write before a try and one after: no fsync, as a killed process's writes are already
    the kernel's. A file nobody holds names the message its dead owner was trying."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.path = directory / f"{os.getpid()}.{secrets.token_hex(4)}{_SUFFIX}"
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def begin(self, envelope: Envelope, tries: int) -> None:
        """Note the message about to be tried and the tries it had counted."""
        if self._fd is None:
            return
        line = json.dumps({"message_id": envelope.message_id, "sender": envelope.sender[:320],
                           "subject": envelope.subject[:400], "tries": tries})
        os.pwrite(self._fd, line.encode("utf-8") + b"\n", 0)

    def end(self) -> None:
        """The try is over (committed, or its failure counted): nothing is in hand."""
        if self._fd is not None:
            os.pwrite(self._fd, b"\n", 0)

    def orphans(self) -> Iterator[dict]:
        """The entries of dead processes' files, each removed once the caller has counted it."""
        for path in sorted(self.directory.glob(f"*{_SUFFIX}")):
            if path == self.path:
                continue
            try:
                fd = os.open(path, os.O_RDWR)
            except FileNotFoundError:
                continue  # another daemon starting took it
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # a live daemon's
                first = os.pread(fd, 4096, 0).split(b"\n", 1)[0]
                with contextlib.suppress(ValueError):
                    if first.strip():
                        yield json.loads(first)
                path.unlink(missing_ok=True)
            finally:
                os.close(fd)

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            self.path.unlink(missing_ok=True)
            os.close(fd)


def recover(engine: Engine, journal: Journal) -> int:
    """Count the tries that killed earlier processes; returns how many were counted.

    Counting is raising the count from the value the entry names, so an entry counted twice
    (a crash right after its count) still counts once."""
    counted = 0
    for entry in journal.orphans():
        message_id, tries = str(entry.get("message_id", "")), int(entry.get("tries", 0))
        if not message_id:
            continue
        at = now()
        with transaction(engine) as session:
            if session.exec(select(InboundMessage.id).where(InboundMessage.message_id == message_id)).first():
                continue  # it committed before the process died
            if tries == 0:
                statement = (
                    _insert(session)(Quarantine)
                    .values(message_id=message_id, sender=str(entry.get("sender", ""))[:320],
                            subject=str(entry.get("subject", ""))[:400], raw=b"", tries=1, status="trying",
                            error=DIED, created_at=at, updated_at=at)
                    .on_conflict_do_nothing(index_elements=["message_id"])
                )
            else:
                statement = (
                    update(Quarantine)
                    .where(Quarantine.message_id == message_id, Quarantine.tries == tries)
                    .values(tries=tries + 1, updated_at=at, error=DIED)
                )
            counted += session.execute(statement).rowcount or 0
        log.warning("message %s was being handled when the process died: try %d counted", message_id, tries + 1)
    return counted


_SIGHTING = select(  # built once: a repeat? and the count so far, in one statement
    select(InboundMessage.id).where(InboundMessage.message_id == bindparam("mid")).limit(1).scalar_subquery(),
    select(Quarantine.tries).where(Quarantine.message_id == bindparam("mid")).scalar_subquery(),
    select(Quarantine.status).where(Quarantine.message_id == bindparam("mid")).scalar_subquery(),
)


@dataclass(frozen=True)
class Gate:
    """The quarantine's part in a message's own transaction: the count looked up with the
    check for a repeat, the try noted in the journal, a count forgotten when it goes through."""

    journal: Journal | None = None
    max_tries: int = MAX_TRIES

    def admit(self, session: Session, envelope: Envelope, raw: bytes) -> tuple[str | None, int | None]:
        """(verdict, tries): verdict None to go on, "duplicate" for a message already handled,
        "quarantined" for one set aside (here: its status and bytes); tries None: never counted."""
        mid = envelope.message_id
        found, count, state = read(session, _SIGHTING, {"mid": mid}, (InboundMessage, Quarantine)).one()
        if found is not None:
            return "duplicate", count
        if count is not None and (state == "quarantined" or count >= self.max_tries):
            session.execute(
                update(Quarantine).where(Quarantine.message_id == mid)
                .values(status="quarantined", raw=raw, updated_at=now(),
                        error=func.coalesce(func.nullif(Quarantine.error, ""), literal(DIED)))
            )
            log.error("message %s quarantined after %d tries", mid, count)
            return "quarantined", count
        if self.journal is not None:
            self.journal.begin(envelope, count or 0)
        return None, count

    def succeeded(self, session: Session, envelope: Envelope, tries: int | None) -> None:
        """Forget the count of a message that went through (only a counted one has a row)."""
        if tries is not None:
            session.execute(delete(Quarantine).where(Quarantine.message_id == envelope.message_id))


def failed(engine: Engine, envelope: Envelope, raw: bytes, error: str, max_tries: int = MAX_TRIES) -> bool:
    """Count a try that raised; True when the message is now quarantined (stop reading it).

    One atomic upsert, so daemons counting the same message at once never lose a count."""
    at = now()
    with transaction(engine) as session:
        statement = (
            _insert(session)(Quarantine)
            .values(message_id=envelope.message_id, sender=envelope.sender[:320], subject=envelope.subject[:400],
                    raw=b"", tries=1, status="trying", error=error[:400], created_at=at, updated_at=at)
            .on_conflict_do_update(index_elements=["message_id"],
                                   set_={"tries": Quarantine.tries + 1, "updated_at": at, "error": error[:400]})
            .returning(Quarantine.tries, Quarantine.status)
        )
        tries, status = session.execute(statement).one()
        if status == "quarantined" or tries < max_tries:
            return status == "quarantined"
        session.execute(update(Quarantine).where(Quarantine.message_id == envelope.message_id)
                        .values(status="quarantined", raw=raw))  # the bytes are kept only once it is
        return True


def _insert(session: Session):  # noqa: ANN202
    return postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert


def quarantined(engine: Engine) -> list[Quarantine]:
    with transaction(engine) as session:
        return list(session.exec(select(Quarantine).where(Quarantine.status == "quarantined").order_by(Quarantine.id)))


def reopen(engine: Engine, row_id: int) -> tuple[bytes, int]:
    """Ready a quarantined message for a retry: its raw bytes and its tries so far. The row
    stays (as "trying", with its bytes) until the retry goes through, so a retry that fails or
    dies never loses the message; the inbound record that blocked it is removed."""
    with transaction(engine) as session:
        row = session.get(Quarantine, row_id)
        if row is None or row.status != "quarantined":
            raise LookupError(f"there is no quarantined message #{row_id}")
        row.status, row.updated_at = "trying", now()
        session.add(row)
        session.exec(delete(InboundMessage).where(InboundMessage.message_id == row.message_id)
                     .where(InboundMessage.status == "failed"))
        return row.raw, row.tries


def forget(engine: Engine, message_id: str) -> None:
    """Remove the count of a message that is handled (a retry found it handled already)."""
    with transaction(engine) as session:
        session.execute(delete(Quarantine).where(Quarantine.message_id == message_id))


def drop(engine: Engine, row_id: int) -> None:
    """Forget a quarantined message for good (its inbound record stays, so it is never read again)."""
    with transaction(engine) as session:
        row = session.get(Quarantine, row_id)
        if row is None or row.status != "quarantined":
            raise LookupError(f"there is no quarantined message #{row_id}")
        session.delete(row)
