"""A clock the test moves by hand: what a module reads as `time.monotonic` (or is given as its
clock) where a test must step past an expiry or a recheck without waiting for it."""

from __future__ import annotations


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
