"""Waiting on real signals, with deadlines scaled by one factor.

Every integration deadline is written as what a quiet machine needs and multiplied by
PBEM_TEST_TIME_SCALE (default 3: a 2-core machine with two CPU-bound processes beside the
suite). A deadline only bounds a wait on a signal (a log line, rows in the database, mails
in a mailbox); a passing test never sleeps until one runs out.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

SCALE = float(os.environ.get("PBEM_TEST_TIME_SCALE", "3"))
POLL = 0.05  # seconds between two looks at a signal


def scaled(seconds: float) -> float:
    """`seconds` (what a quiet machine needs, with room) times the suite's one time factor."""
    return seconds * SCALE


class Deadline:
    """A scaled point in time; `left()` says how much of it remains."""

    def __init__(self, seconds: float) -> None:
        self.seconds = scaled(seconds)
        self.at = time.monotonic() + self.seconds

    def left(self) -> float:
        return self.at - time.monotonic()

    def passed(self) -> bool:
        return self.left() <= 0


def wait_until(
    probe: Callable[[], T | None], seconds: float, what: str | Callable[[], str], poll: float = POLL
) -> T:
    """The first truthy result of `probe()`; AssertionError naming `what` after `scaled(seconds)`."""
    deadline = Deadline(seconds)
    while True:
        result = probe()
        if result:
            return result
        if deadline.passed():
            detail = what() if callable(what) else what
            raise AssertionError(f"not within {deadline.seconds:.0f} s: {detail}")
        time.sleep(poll)
