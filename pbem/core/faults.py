"""A test hook: kill the daemon at a chosen point, to prove that a crash anywhere loses nothing.

Set `PBEM_CRASH_AT` to `POINT:N` (several separated by commas) and the process kills itself
with SIGKILL the N-th time it reaches POINT. The points:

- `before-commit`: an inbound message's transaction is about to commit;
- `after-commit`: it committed, but the mailbox has not been told;
- `after-smtp`: the SMTP server accepted an outbox mail (250), not yet marked sent;
- `bot-thinking`: a bot's search looks at its deadline (every few thousand nodes);
- `bot-searched`: a bot's search ended, its move not yet committed.

Unset (always, outside the tests) the hook does nothing.
"""

from __future__ import annotations

import functools
import os
import signal
import threading

ENV = "PBEM_CRASH_AT"
#: the key of `Session.info` that marks an inbound message's transaction (its record is written
#: by a Core statement, so the session holds no InboundMessage object to tell it by)
INBOUND = "pbem.inbound-record"
POINTS = ("before-commit", "after-commit", "after-smtp", "bot-thinking", "bot-searched")

_counts: dict[str, int] = {}
_COUNTS_LOCK = threading.Lock()


@functools.cache
def _plan() -> dict[str, int]:
    plan = {}
    for item in os.environ.get(ENV, "").split(","):
        point, _, nth = item.strip().partition(":")
        if point in POINTS and nth.isdigit():
            plan[point] = int(nth)
    return plan


def crash_point(point: str) -> None:
    """Die here (SIGKILL, no clean-up) if the plan says this is the moment."""
    nth = _plan().get(point)
    if nth is None:
        return
    with _COUNTS_LOCK:
        _counts[point] = count = _counts.get(point, 0) + 1
    if count == nth:
        os.kill(os.getpid(), signal.SIGKILL)


def install() -> None:
    """Wire the commit point, which sits inside SQLAlchemy; the others are called in place."""
    if not _plan():
        return
    from sqlalchemy import event
    from sqlmodel import Session

    from pbem.core.models import InboundMessage

    def before_commit(session: Session) -> None:
        if session.info.get(INBOUND) or any(
            isinstance(obj, InboundMessage) for obj in [*session.new, *session.identity_map.values()]
        ):
            crash_point("before-commit")

    event.listen(Session, "before_commit", before_commit)
