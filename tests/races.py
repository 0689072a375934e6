"""Two daemons at once on one PostgreSQL database: each with its own engine, both past the
same lookup before either acts, so the row locks (not the timing) decide who does the work."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine

from pbem.core.db import make_engine


def at_once(monkeypatch, module: Any, lookup: str, url: str, first: Engine,  # noqa: ANN001
            work: Callable[[Engine], int]) -> list[int]:
    """Run `work` in two threads, one on `first` and one on a fresh engine of `url`, with
    `module.lookup` held until both have called it; returns what each `work` returned."""
    other = make_engine(url)
    barrier = threading.Barrier(2)
    real = getattr(module, lookup)

    def together(*args: Any) -> Any:
        found = real(*args)
        barrier.wait(timeout=10)
        return found

    monkeypatch.setattr(module, lookup, together)
    done: list[int] = []
    threads = [threading.Thread(target=lambda e=e: done.append(work(e))) for e in (first, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    other.dispose()
    return done
