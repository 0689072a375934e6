"""SIGTERM and SIGINT while `pbem serve` starts: noted at once, acted on at a safe point.

`pbem serve` installs the guard before anything else is imported (`guard_start_up`), so from
the first moment the process can handle a signal at all, a stop request during start-up
ends it with exit status 0 and one log line. Only the standard library is used here: this
module runs before the rest of pbem is loaded.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Sequence
from typing import Any

HAND_OVER_POLL = 0.01  # seconds between looks for the event loop's signal handlers
_OPTIONS_WITH_VALUE = ("-c", "--config")  # the options of `pbem` itself that take a value

_installed: tuple[Callable[..., None], Callable[[], None]] | None = None  # (handler, check)


class Stopped(BaseException):
    """Raised when SIGTERM/SIGINT came while `serve` starts, so start-up unwinds and exits 0.

    A BaseException: the start-up code's `except Exception` handlers must not swallow it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.name = signal.Signals(signum).name


def command_of(argv: Sequence[str]) -> str | None:
    """The subcommand `pbem ARGV` runs (its first word that is no option nor option value)."""
    args = iter(argv)
    for arg in args:
        if arg in _OPTIONS_WITH_VALUE:
            next(args, None)
        elif arg == "--":
            return next(args, None)
        elif not arg.startswith("-"):
            return arg
    return None


def guard_start_up(argv: Sequence[str]) -> None:
    """Install the guard now when `argv` is a `pbem serve` (other commands keep the defaults)."""
    if command_of(argv) == "serve":
        stop_signals()


def stop_signals() -> Callable[[], None]:
    """Until the daemon's event loop takes them over, SIGTERM and SIGINT only note the request;
    the returned check raises `Stopped` for it at a point of start-up's own choosing. Called
    again while the guard is in place, it returns the same check (the request is kept).

    The handler must never raise: it runs between any two bytecodes, and an exception raised
    there can land where it is dropped ("Exception ignored in ..." from a C callback, a
    destructor) or turned into another (a validation error from pydantic-core). The signal
    was then lost and the daemon served on. So the signal waits for the next check, and when
    the event loop has its own handlers installed first (the daemon being built inside it),
    a timer sends the signal again for the loop to handle."""
    global _installed
    if _installed is not None and signal.getsignal(signal.SIGTERM) is _installed[0]:
        return _installed[1]
    pending: int | None = None

    def handler(signum: int, _frame: Any) -> None:
        nonlocal pending
        if pending is None:  # a second signal while stopping changes nothing
            pending = signum
            signal.setitimer(signal.ITIMER_REAL, HAND_OVER_POLL, HAND_OVER_POLL)

    def hand_over(_signum: int, _frame: Any) -> None:
        if pending is None:
            return
        current = signal.getsignal(pending)
        if callable(current) and current is not handler and current is not signal.default_int_handler:
            signal.setitimer(signal.ITIMER_REAL, 0)  # the event loop's handler: it takes it from here
            os.kill(os.getpid(), pending)

    def check() -> None:
        if pending is not None:
            raise Stopped(pending)

    signal.signal(signal.SIGALRM, hand_over)
    for sig in (signal.SIGINT, signal.SIGTERM):  # SIGTERM last: once it is caught, both are
        signal.signal(sig, handler)
    _installed = (handler, check)
    return check
