"""Where a process's CPU goes, by component: cProfile in every thread, on each thread's own CPU clock.

The daemon works in several threads (the event loop, `asyncio.to_thread` for the database and
IMAP), and cProfile sees only the thread it was enabled in; `ThreadProfiles` gives each new
thread a profiler of its own and merges them. The clock is `time.thread_time`, so time spent
waiting for a socket or a lock is not counted. `breakdown` sums each function's own time
(tottime) into components by the file it lives in.
"""

from __future__ import annotations

import cProfile
import pstats
import threading
import time

#: component -> what the file name (or a builtin's name) contains; the first match wins
COMPONENTS: list[tuple[str, tuple[str, ...]]] = [
    ("database", ("sqlalchemy", "sqlmodel", "sqlite3", "psycopg", "/pbem/core/db.py", "alembic", "pydantic")),
    # a compiled template's code is named by its source file: templates/*.txt, templates/html/*.html
    ("templates", ("jinja2", "markupsafe", "css_inline", "CSSInliner", "/pbem/text/templates.py",
                   "/pbem/text/htmlmail.py", "/pbem/text/boards.py", "/pbem/text/textwidth.py", "<template>",
                   "/templates/")),
    ("MIME", ("/email/", "/pbem/mail/message/", "charset_normalizer", "inscriptis", "quopri", "base64",
              "encodings", "idna")),
    ("SMTP", ("aiosmtplib", "/pbem/mail/transport/smtp.py", "/pbem/runners/outbox.py")),
    ("IMAP", ("imap_tools", "imaplib", "/pbem/mail/transport/imap")),
    ("engine", ("/engine/", "sgfmill")),
]
GLUE = "glue"  # the rest: pbem's own code, asyncio, threads, sockets, logging
#: builtins that only wait, left out: a worker thread of `asyncio.to_thread` idles in its queue's
#: `get`, and the thread CPU clock charges that wait to it (measured: the profile then summed to
#: 2.5 times the process's own CPU over the same run, the excess all in this one builtin)
WAITS = ("<method 'get' of '_queue.SimpleQueue' objects>",)


class ThreadProfiles:
    """Profile the current thread and every thread started while it is active."""

    def __init__(self) -> None:
        self._profiles: list[cProfile.Profile] = []
        self._lock = threading.Lock()
        self._run = threading.Thread.run

    def _new(self) -> cProfile.Profile:
        profile = cProfile.Profile(time.thread_time)
        with self._lock:
            self._profiles.append(profile)
        return profile

    def __enter__(self) -> ThreadProfiles:
        original, new = self._run, self._new

        def run(thread: threading.Thread) -> None:
            profile = new()
            profile.enable()
            try:
                original(thread)
            finally:
                profile.disable()

        threading.Thread.run = run
        self._main = new()
        self._main.enable()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._main.disable()
        threading.Thread.run = self._run

    def stats(self) -> pstats.Stats:
        with self._lock:
            profiles = [p for p in self._profiles if p.getstats()]
        stats = pstats.Stats(profiles[0])
        for profile in profiles[1:]:
            stats.add(profile)
        return stats


def component(filename: str, name: str) -> str:
    where = f"{filename}:{name}"
    for label, needles in COMPONENTS:
        if any(needle in where for needle in needles):
            return label
    return GLUE


def breakdown(stats: pstats.Stats) -> dict[str, float]:
    """CPU seconds per component (the functions' own time). A builtin (`len`, `any`, a C
    method) counts for the component that called it, in proportion to the calls' time."""
    totals: dict[str, float] = {label: 0.0 for label, _ in COMPONENTS}
    totals[GLUE] = 0.0
    for (filename, _line, name), (_cc, _nc, tottime, _ct, callers) in stats.stats.items():  # type: ignore[attr-defined]
        if filename == "~" and name in WAITS:
            continue
        own = component(filename, name)
        if filename != "~" or own != GLUE or not callers:
            totals[own] += tottime
            continue
        for (caller_file, _caller_line, caller_name), timing in callers.items():
            totals[component(caller_file, caller_name)] += timing[2]
    return totals


def top(stats: pstats.Stats, label: str, count: int = 5) -> list[tuple[float, str]]:
    """The functions that cost a component most (own time, builtins left out), for a closer look."""
    rows = []
    for (filename, line, name), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if filename != "~" and component(filename, name) == label:
            rows.append((tottime, f"{'/'.join(filename.split('/')[-2:])}:{line}:{name}"))
    return sorted(rows, reverse=True)[:count]
