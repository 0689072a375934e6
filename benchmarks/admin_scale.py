"""Admin at scale: every `pbem admin` listing, `stats` and `ratings` beside 1,000,000 stored games.

A SQLite database is migrated, then filled in bulk (straight SQL, one transaction per
table): games (1 in 10 active, three game types, one minute apart), players, ratings,
sent and failed mails, inbound records, audit entries, bounces and quarantined messages.
Each command then runs in-process through the real CLI (`pbem -c CONFIG admin ...`),
timed from the command line to its last line of output, settings, schema check and all.

    python benchmarks/admin_scale.py [--games 1000000] [--players 10000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # benchmarks/pbem_engine.py is not `engine`
sys.path.insert(0, str(HERE.parent))

from click.testing import CliRunner  # noqa: E402

import pbem_engine  # noqa: E402
from pbem.cli.main import main  # noqa: E402
from pbem.core.db import make_engine, migrate  # noqa: E402

START = datetime(2025, 1, 1, tzinfo=UTC)
KINDS = ("ataxx", "capturego", "myriades")
CHUNK = 50_000


def _at(minutes: float) -> str:
    return (START + timedelta(minutes=minutes)).strftime("%Y-%m-%d %H:%M:%S.%f")


def fill(path: Path, games: int, people: int, mails: int) -> None:
    """The rows, inserted with executemany in a few big transactions."""
    states = {k: json.dumps(pbem_engine.create(k, {}).dump(pbem_engine.create(k, {}).start())) for k in KINDS}
    rng = random.Random(12)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous=OFF")

    def bulk(sql: str, rows) -> None:  # noqa: ANN001
        conn.execute("BEGIN")
        batch = []
        for row in rows:
            batch.append(row)
            if len(batch) >= CHUNK:
                conn.executemany(sql, batch)
                batch.clear()
        conn.executemany(sql, batch)
        conn.execute("COMMIT")

    bulk("INSERT INTO player (id, address, name, secret, created_at, banned, timezone) VALUES (?,?,?,?,?,?,?)",
         ((i, f"p{i}@example.org", f"Player {i}", f"{i:016x}", _at(i / 100), i % 500 == 0, "UTC")
          for i in range(1, people + 1)))
    bulk("INSERT INTO rating (player_id, kind, rating, deviation, volatility, games, updated_at) VALUES "
         "(?,?,?,?,?,?,?)",
         ((i, kind, 1200 + rng.random() * 800, 60.0, 0.06, 100, _at(0)) for i in range(1, people + 1)
          for kind in KINDS))

    def game(n: int) -> tuple:
        kind = KINDS[n % 3]
        active = n % 10 == 0
        winner = None if active else rng.choice((0, 1, None))
        result = None if active else {0: "1-0", 1: "0-1", None: "1/2-1/2"}[winner]
        a = 1 + n % people
        b = 1 + (n * 7 + 1) % people
        if a == b:
            b = 1 + b % people
        return (n, kind, "{}", a, b, states[kind], "active" if active else "finished", n % 2, 20, 21,
                None, winner, result, None if active else "benchmark", None if active else "rules",
                _at(n), _at(n + 30), 7, False, _at(n + 30), 0)

    bulk("INSERT INTO game (id, kind, options, player0_id, player1_id, state, status, turn, ply, version, "
         "draw_offer, winner, result, reason, ending, created_at, updated_at, days, weekends_off, "
         "turn_started_at, clock_credit) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
         (game(n) for n in range(1, games + 1)))
    bulk("INSERT INTO outbox (message_id, recipient, template, game_id, player_id, message, status, attempts, "
         "next_attempt_at, last_error, created_at, sent_at, game_version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
         ((f"<{n}@pbem>", f"p{1 + n % people}@example.org", "board", 1 + n * games // mails, 1 + n % people,
           b"x" * 200, "failed" if n % 1000 == 0 else "sent", 1, _at(n), "550 no" if n % 1000 == 0 else None,
           _at(n * games / mails), _at(n * games / mails + 1), 1) for n in range(1, mails + 1)))
    bulk("INSERT INTO inboundmessage (message_id, digest, sender, subject, status, note, game_id, received_at) "
         "VALUES (?,?,?,?,?,?,?,?)",
         ((f"<in{n}@client>", "0" * 64, f"p{1 + n % people}@example.org", "Re: [pbem] your move", "processed", "",
           1 + n * games // mails, _at(n * games / mails)) for n in range(1, mails + 1)))
    bulk("INSERT INTO adminaction (actor, action, detail, reason, game_id, player_id, created_at) VALUES "
         "(?,?,?,?,?,?,?)",
         (("ops", ("undo", "extend", "resend")[n % 3], "", "benchmark", n * 97 % games + 1, 1 + n % people,
           _at(n * 50)) for n in range(1, 20_001)))
    bulk("INSERT INTO bounce (player_id, address, outbox_message_id, inbound_message_id, reason, created_at) "
         "VALUES (?,?,?,?,?,?)",
         ((1 + n % people, f"p{1 + n % people}@example.org", f"<{n}@pbem>", f"<dsn{n}@mx>", "5.1.1", _at(n * 500))
          for n in range(1, 2001)))
    bulk("INSERT INTO quarantine (message_id, sender, subject, raw, tries, status, error, created_at, updated_at) "
         "VALUES (?,?,?,?,?,?,?,?,?)",
         ((f"<q{n}@x>", f"p{n}@example.org", "help", b"Subject: help\r\n\r\nhelp\r\n", 5,
           "quarantined", "Boom", _at(n * 5000), _at(n * 5000)) for n in range(1, 201)))
    conn.close()


def commands(games: int, people: int) -> list[list[str]]:
    middle = games // 2
    day = (START + timedelta(minutes=middle)).strftime("%Y-%m-%d")
    nxt = (START + timedelta(minutes=middle) + timedelta(days=1)).strftime("%Y-%m-%d")
    return [
        ["games"], ["games", "--json"], ["games", "--status", "active"], ["games", "--status", "cancelled"],
        ["games", "--status", "finished", "--kind", "myriades"], ["games", "--player", f"p{people // 2}@example.org"],
        ["games", "--since", day, "--until", nxt], ["games", "--before", str(middle)],
        ["game", str(middle)],
        ["players"], ["players", "--banned"], ["players", "--player", "p42"], ["player", f"p{people // 3}@example.org"],
        ["outbox"], ["outbox", "--failed"], ["outbox", "--status", "pending"],
        ["outbox", "--player", "p7@example.org"], ["outbox", "--game", str(middle)],
        ["quarantine", "list"], ["bounces"], ["bounces", "--player", "p9@example.org"],
        ["audit"], ["audit", "--game", "98"], ["audit", "--action", "extend", "--since", day],
        ["stats"], ["stats", "ataxx"], ["ratings", "ataxx"], ["status", "--json"], ["prune", "--dry-run"],
    ]


def timed(config: str, args: list[str]) -> tuple[float, float, int]:
    """Wall and CPU seconds of one admin command, and its exit code."""
    runner = CliRunner()
    wall, cpu = time.perf_counter(), time.process_time()
    result = runner.invoke(main, ["-c", config, "admin", *args])
    return time.perf_counter() - wall, time.process_time() - cpu, result.exit_code


def main_(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--mails", type=int, default=200_000, help="outbox rows, and as many inbound records")
    parser.add_argument("--keep", type=Path, help="build (or reuse) the database in this directory")
    args = parser.parse_args(argv)
    home = args.keep or Path(tempfile.mkdtemp(prefix="pbem-admin-scale-"))
    home.mkdir(parents=True, exist_ok=True)
    database = home / "pbem.sqlite3"
    config = home / "pbem.toml"
    config.write_text(f'[server]\nhome = "{home.as_posix()}"\n', encoding="utf-8")
    if not database.exists():
        db = make_engine(f"sqlite:///{database}")
        migrate(db)
        db.dispose()
        began = time.perf_counter()
        fill(database, args.games, args.players, args.mails)
        print(f"filled {args.games:,} games, {args.players:,} players, {args.mails:,} mails in and out "
              f"in {time.perf_counter() - began:.1f} s ({database.stat().st_size / 2**20:.0f} MiB)")
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"SQLite {sqlite3.sqlite_version}")
    print(f"{'command':<58} {'wall s':>7} {'cpu s':>7}  exit")
    worst = 0.0
    for cmd in commands(args.games, args.players):
        wall, cpu, code = timed(str(config), cmd)
        worst = max(worst, wall)
        print(f"{'pbem admin ' + ' '.join(cmd):<58} {wall:7.3f} {cpu:7.3f}  {code}")
    print(f"slowest: {worst:.3f} s (goal: every command under 1 s)")


if __name__ == "__main__":
    main_()
