"""The daemon sets what it built at start-up aside from the cyclic garbage collector (every full
collection walked all of it), with the garbage collected first, and gives it back when it stops."""

from __future__ import annotations

import gc
import weakref
from dataclasses import replace

from pbem.runners.daemon import Daemon, settle


class _Node:
    """An object in a cycle of its own: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


class _Mailbox:
    """A mail source that holds nothing (the daemon only closes it here)."""

    def close(self) -> None:
        pass


def _tracked(thing: object) -> bool:
    return any(found is thing for found in gc.get_objects())


def test_settle_collects_the_garbage_then_freezes_what_lives() -> None:
    garbage = _Node()
    gone = weakref.ref(garbage)
    del garbage
    alive = _Node()
    try:
        settle()
        assert gone() is None  # collected, not frozen with the rest
        assert gc.get_freeze_count() > 0
        assert not _tracked(alive)  # no collection walks it any more
    finally:
        gc.unfreeze()
    assert _tracked(alive)


def test_a_daemon_that_stops_leaves_nothing_frozen(server) -> None:
    daemon = Daemon(replace(server.service.settings, imap=object(), smtp=None), server.engine, source=_Mailbox())
    try:
        settle()
        assert gc.get_freeze_count() > 0
    finally:
        daemon.close()
    assert gc.get_freeze_count() == 0
