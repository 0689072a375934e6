"""The clock round at scale: one `timekeeper.tick` beside 1,000 and 100,000 games in progress
(with the digest round that follows it in the daemon, `digests.send_due`: no player's due).

For each size a SQLite database is migrated and filled in bulk (SQLAlchemy Core
executemany): players, and games in progress whose stored next clock event
(`clock_due_at`) is computed as `pbem.games.clock.next_event` would (7 days a move, UTC,
reminders 48 and 24 hours before the deadline; a sample is checked against the real
function), around the real time, which the round reads. Then the CPU time
(`time.process_time`) of one round is measured:

- nothing due: every game's next event is days away (best of a few rounds);
- 1,000 due: 500 games past their 48-hour reminder point and 500 past their deadline
  (a reminder mail, or the result mailed to both players); where the size allows, also
  1,000 reminders alone and 1,000 forfeits alone;
- the round after: nothing due again.

With `--mix` the games in progress take every kind of clock in turn (days per move, Fischer,
a bank, ICCF, simple delay and none, `pbem.games.timecontrol`), each with its stored clocks and its
next event as the real function computes it: the round reads the same one column whatever the kind.

    python benchmarks/clock_round.py [--sizes 1000 100000] [--due 1000] [--repeat 5] [--mix]
"""

from __future__ import annotations

import argparse
import platform
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # the scripts beside this one are not packages of pbem
sys.path.insert(0, str(HERE.parent))

from sqlalchemy import event, insert, update  # noqa: E402
from sqlmodel import Session  # noqa: E402

import pbem_engine  # noqa: E402
from pbem.commands.lines.reader import guarded_templates  # noqa: E402
from pbem.core.config import Settings  # noqa: E402
from pbem.core.db import make_engine, migrate  # noqa: E402
from pbem.core.models import Game, Player  # noqa: E402
from pbem.games import clock  # noqa: E402
from pbem.games import timecontrol as tc  # noqa: E402
from pbem.runners import clock as timekeeper  # noqa: E402
from pbem.runners import digests  # noqa: E402

NOW = datetime.now(UTC)  # the round reads the real clock: the rows are made around it
DAYS = 7
REMINDERS = (48.0, 24.0)
CHUNK = 20_000
#: the kinds `--mix` gives the games in turn (None: days per move, as a game without `clock=`)
MIX = (None, "fischer:3d+1d/7d", "bank:2d+10d", "iccf:10/50d", "delay:10d+1d", "none")
KINDS: tuple[str | None, ...] = (None,)


def _kind(n: int) -> str | None:
    return KINDS[n % len(KINDS)]


def _next_event(started: datetime, notation: str | None = None) -> datetime | None:
    """What `clock.next_event` gives a turn of the game's clock (DAYS a move, or `notation`) in
    UTC with no reminder sent yet; None for no clock."""
    if notation is None:
        until = clock.deadline(started, DAYS)
    else:
        control = tc.parse(notation)
        budget = control.budget(control.start(), 0)
        if budget is None:
            return None
        until = started + timedelta(seconds=budget)
    return min([until, *(until - timedelta(hours=h) for h in REMINDERS if until - timedelta(hours=h) > started)])


def _clock_fields(notation: str | None) -> dict:
    if notation is None:
        return {"clock": None, "clock_sides": None}
    return {"clock": notation, "clock_sides": tc.parse(notation).start().dump()}


def fill(db, games: int) -> None:  # noqa: ANN001
    """Players and games in progress, inserted with executemany in a few transactions."""
    people = max(2, games // 5)
    rules = pbem_engine.create("ataxx", {})
    state = rules.dump(rules.start())
    with db.begin() as conn:
        conn.execute(insert(Player), [
            {"id": i, "address": f"p{i}@example.org", "name": f"Player {i}", "secret": f"{i:016x}",
             "created_at": NOW - timedelta(days=30), "banned": False, "timezone": "UTC", "version": 0}
            for i in range(1, people + 1)])
    for low in range(1, games + 1, CHUNK):
        rows = []
        for n in range(low, min(low + CHUNK, games + 1)):
            # moved within the last two days (half a day with --mix: Fischer's 3 days have a reminder
            # point 24 hours in): nothing due
            started = NOW - timedelta(minutes=n % (720 if len(KINDS) > 1 else 2880))
            a = 1 + n % people
            b = 1 + (a % people)
            rows.append({
                "id": n, "kind": "ataxx", "options": {}, "player0_id": a, "player1_id": b, "state": state,
                "status": "active", "turn": 0, "ply": 0, "version": 1, "created_at": started,
                "updated_at": started, "days": DAYS, "weekends_off": False, "turn_started_at": started,
                "clock_credit": 0, "clock_due_at": _next_event(started, _kind(n)), **_clock_fields(_kind(n)),
            })
        with db.begin() as conn:
            conn.execute(insert(Game), rows)


REMIND, LOSE = timedelta(days=5, hours=1), timedelta(days=DAYS, minutes=1)  # turns begun that long ago


def make_due(db, first: int, count: int, ago: timedelta | None = None) -> None:  # noqa: ANN001
    """Games first.. first+count-1 become due: past the 48-hour reminder point or out of time
    (`ago`), else half and half."""
    halves = [(first, count, ago)] if ago else [(first, count // 2, REMIND), (first + count // 2, count - count // 2, LOSE)]
    with db.begin() as conn:
        for low, n, since in halves:
            started = NOW - since
            conn.execute(update(Game).where(Game.id >= low, Game.id < low + n)
                         .values(turn_started_at=started, clock_due_at=_next_event(started), clock=None,
                                 clock_sides=None))


def check_sample(db, games: int) -> None:  # noqa: ANN001
    """The filled events are those the real function computes."""
    with Session(db) as session:
        for n in {1, games // 2, games, *range(1, min(games, 12) + 1)}:
            game = session.get(Game, n)
            assert game.clock_due_at == clock.next_event(session, game, REMINDERS), n


def one_round(db, settings: Settings, templates) -> tuple[float, float, int, timekeeper.Round]:  # noqa: ANN001
    """CPU and wall seconds of one round, its SQL statements, and what it did."""
    count = [0]

    def counted(*_args) -> None:  # noqa: ANN002
        count[0] += 1

    event.listen(db, "before_cursor_execute", counted)
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        done = timekeeper.tick(db, settings, templates)
        digests.send_due(db, settings, templates)  # the daemon's clock round runs both
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        event.remove(db, "before_cursor_execute", counted)
    return cpu, wall, count[0], done


def run(size: int, due: int, repeat: int, home: Path) -> list[tuple[str, float, float, int, timekeeper.Round]]:
    path = home / f"clock-{size}.sqlite3"
    path.unlink(missing_ok=True)
    db = make_engine(f"sqlite:///{path}")
    migrate(db)
    began = time.perf_counter()
    fill(db, size)
    filled = time.perf_counter() - began
    check_sample(db, size)
    settings = replace(Settings(), home=home, reminders=REMINDERS)
    templates = guarded_templates(settings)
    print(f"  {size:,} games in progress filled in {filled:.1f} s ({path.stat().st_size / 2**20:.0f} MiB)")
    rows = []
    quiet = [one_round(db, settings, templates) for _ in range(repeat)]
    cpu, wall, statements, done = min(quiet)
    rows.append((f"{size:,} in progress, nothing due (best of {repeat})", cpu, wall, statements, done))
    make_due(db, 1, due)
    cpu, wall, statements, done = one_round(db, settings, templates)
    rows.append((f"{size:,} in progress, {due:,} due", cpu, wall, statements, done))
    if size >= 3 * due:  # the two kinds apart, on other games
        for first, ago, kind in ((due + 1, REMIND, "reminders"), (2 * due + 1, LOSE, "forfeits")):
            make_due(db, first, due, ago)
            cpu, wall, statements, done = one_round(db, settings, templates)
            rows.append((f"{size:,} in progress, {due:,} due, all {kind}", cpu, wall, statements, done))
    cpu, wall, statements, done = one_round(db, settings, templates)
    rows.append((f"{size:,} in progress, the round after", cpu, wall, statements, done))
    db.dispose()
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000])
    parser.add_argument("--due", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build the databases in this directory")
    parser.add_argument("--mix", action="store_true", help="every kind of clock in turn, not days per move alone")
    args = parser.parse_args(argv)
    global KINDS
    KINDS = MIX if args.mix else (None,)
    home = args.keep or Path(tempfile.mkdtemp(prefix="pbem-clock-round-"))
    home.mkdir(parents=True, exist_ok=True)
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"SQLite {sqlite3.sqlite_version}")
    table = []
    for size in args.sizes:
        table += run(size, min(args.due, size), args.repeat, home)
    if args.keep is None:
        shutil.rmtree(home)
    print(f"{'round':<48} {'cpu ms':>9} {'wall ms':>9} {'SQL':>7} {'reminders':>9} {'forfeits':>8}")
    for name, cpu, wall, statements, done in table:
        print(f"{name:<48} {cpu * 1000:9.1f} {wall * 1000:9.1f} {statements:7,} {done.reminders:9,} "
              f"{done.forfeits:8,}")
    print("goals: 100,000 in progress and nothing due under 50 ms CPU; 1,000 due under 2 s CPU")


if __name__ == "__main__":
    main()
