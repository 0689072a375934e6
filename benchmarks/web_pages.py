"""The web face's game page with many stored games: server CPU per page, uncached and cached.

    python -m benchmarks.web_pages [GAMES]     # default 1,000,000 games (bulk SQL into SQLite)

Stores GAMES games (and two players) with bulk INSERTs, plays one real game of Ataxx to
its 20th move, then calls the page handler in-process (no socket: the server's own CPU) for
that game: first with a cold page cache at every ply (each a new replay and render), then
the cached page, and prints milliseconds per page and pages per second on one core.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text

from pbem.core.config import Settings, WebSettings
from pbem.core.db import make_engine, migrate, transaction
from pbem.games import store as G
from pbem.letters import weblinks
from tests.web.site import _play, _player


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 1_000_000
    home = Path(tempfile.mkdtemp())
    settings = replace(Settings(), home=home, database_url=f"sqlite:///{home / 'bench.sqlite3'}",
                       web=WebSettings(enabled=True, port=0, requests_per_minute=10**5))
    engine = make_engine(settings.db_url)
    migrate(engine)
    at = datetime(2026, 11, 1, tzinfo=UTC)
    started = time.perf_counter()
    with transaction(engine) as session:
        a, b = _player(session, "Alice", "a@example.org", True), _player(session, "Bob", "b@example.org", True)
        session.connection().execute(text(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :count) "
            "INSERT INTO game (kind, options, player0_id, player1_id, state, status, turn, ply, version, "
            "created_at, updated_at, days, weekends_off, clock_credit, takebacks, lines_waiting, web_key) "
            "SELECT 'ataxx', '{}', :a, :b, '{}', 'finished', 0, 0, 0, :at, :at, 7, 0, 0, 1, 0, "
            "lower(hex(randomblob(10))) FROM n"), {"count": count, "a": a.id, "b": b.id, "at": at})
        game = G.begin(session, "ataxx", {}, a.id, b.id, at, days=7, weekends_off=False)
        _play(session, game, {a.id: a, b.id: b}, 20, at + timedelta(hours=1))
        path = weblinks.game_path(game)
    print(f"{count:,} games stored in {time.perf_counter() - started:.1f} s")
    from starlette.requests import Request

    from pbem.web.app import reader
    from pbem.web.pages import Pages

    pages = Pages(settings, reader(settings.db_url, engine), engine)

    def request(query: str) -> Request:
        scope = {"type": "http", "method": "GET", "path": path, "query_string": query.encode(), "headers": [],
                 "path_params": {"slug": path.removeprefix("/g/")}, "state": {"nonce": "n"}}
        return Request(scope)

    cold = []
    for ply in range(21):
        pages.cache.clear()
        t = time.process_time()
        assert pages.game(request(f"ply={ply}")).status_code == 200
        cold.append(time.process_time() - t)
    print(f"game page, uncached: {1000 * sum(cold) / len(cold):.1f} ms CPU on average, "
          f"{1000 * max(cold):.1f} ms at most (21 plies)")
    pages.game(request(""))
    n, t = 2000, time.process_time()
    for _ in range(n):
        pages.game(request(""))
    spent = time.process_time() - t
    print(f"game page, cached: {1000 * spent / n:.2f} ms CPU, {n / spent:.0f} pages per second on one core")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
