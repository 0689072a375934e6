"""Heartbeats: when each daemon last spoke to its mailbox and last ended a clock round.

The daemon notes them (`Pulse.beat`) after each IMAP poll or IDLE cycle and each clock
round; a note is one upsert of one small row, written at most every `EVERY` seconds per
round and never inside a message's transaction. `pbem admin status` reads them (`latest`).
"""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

from sqlalchemy import Engine, delete, func
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from pbem.core.db import transaction
from pbem.core.models import Heartbeat
from pbem.core.wallclock import now

MAILBOX, CLOCK = "mailbox", "clock"
EVERY = 5.0  # seconds: the most often one daemon writes one heartbeat


def daemon_id() -> str:
    """Who beats: this host and process."""
    return f"{socket.gethostname()}:{os.getpid()}"[:300]


def write(engine: Engine, name: str, daemon: str, at: datetime) -> None:
    """Upsert the row of (`name`, `daemon`) to `at`."""
    with transaction(engine) as session:
        insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
        session.execute(
            insert(Heartbeat)
            .values(name=name, daemon=daemon, at=at)
            .on_conflict_do_update(index_elements=["name", "daemon"], set_={"at": at})
        )


class Pulse:
    """One daemon's heartbeats, throttled: `beat` writes only when the last write of that
    name is `every` seconds old (by the monotonic clock), so a busy loop costs nothing."""

    def __init__(self, engine: Engine, every: float = EVERY, daemon: str | None = None) -> None:
        self.engine = engine
        self.every = every
        self.daemon = daemon or daemon_id()
        self._written: dict[str, float] = {}

    def due(self, name: str) -> bool:
        last = self._written.get(name)
        return last is None or time.monotonic() - last >= self.every

    def beat(self, name: str) -> bool:
        """Note that round `name` just happened; True when a row was written."""
        if not self.due(name):
            return False
        self._written[name] = time.monotonic()
        write(self.engine, name, self.daemon, now())
        return True


def latest(session: Session) -> dict[str, datetime | None]:
    """The newest heartbeat of each round, over all daemons (None: never)."""
    rows = dict(session.exec(select(Heartbeat.name, func.max(Heartbeat.at)).group_by(Heartbeat.name)).all())
    return {name: rows.get(name) for name in (MAILBOX, CLOCK)}


def forget_before(engine: Engine, cutoff: datetime) -> int:
    """Delete the heartbeats of daemons silent since `cutoff` (old processes); how many."""
    with transaction(engine) as session:
        return session.exec(delete(Heartbeat).where(Heartbeat.at < cutoff)).rowcount
