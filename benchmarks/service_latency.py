"""Latency: players move at random moments; how long from a move mail's arrival in the mailbox
until SMTP has accepted its reply and the opponent's notice?

The daemon waits in IMAP IDLE. Each of the players, when it is their turn, thinks for a
random while and then their move is delivered into the game mailbox (LMTP); the clock
stops at the later `sent_at` of the two outbox rows the move made.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlmodel import Session, select

from benchmarks import service_common as C
from pbem.core.db import make_engine, migrate
from pbem.core.models import Outbox
from tests.databases import throwaway
from tests.integration.daemon import DaemonProcess
from tests.mailrig import MailRig


def run(players: int, moves: int, think: float, database: str) -> list[float]:
    rig = MailRig().start()
    try:
        with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp, throwaway(database, Path(tmp)) as url:
            return _run(rig, Path(tmp), url, players, moves, think)
    finally:
        rig.stop()


def _run(rig: MailRig, tmp: Path, url: str, players: int, moves: int, think: float) -> list[float]:
    db = make_engine(url)
    migrate(db)
    games = players // 2
    prepared = C.prepare_games(db, rig, games, 2 * -(-moves // games) + 2, people=players)
    rng = random.Random(3)
    daemon = DaemonProcess(rig, tmp / "daemon", url)
    daemon.start()
    latencies: list[float] = []
    try:
        C.wait_for_log(daemon.log, "pbem serving")
        time.sleep(1.0)  # let the inbound runner settle into IDLE
        lmtp = C.Lmtp(rig)
        ply = {g.id: 0 for g in prepared}
        due = {g.id: time.time() + rng.uniform(0, think) for g in prepared}  # when the next move is sent
        waiting: dict[int, tuple[float, int]] = {}  # game -> (arrival time, outbox rows before it)
        seen = 0
        sent = 0
        while len(latencies) < moves:
            clock = time.time()
            for game in prepared:
                if game.id not in waiting and sent < moves and clock >= due[game.id] and ply[game.id] < len(game.script):
                    recipient, raw = C.move_mail(rig, game, ply[game.id])
                    with Session(db) as session:
                        before = session.exec(select(Outbox.id).where(Outbox.game_id == game.id)
                                              .order_by(Outbox.id.desc())).first() or 0
                    lmtp.deliver(recipient, raw, game.sides[ply[game.id] % 2][0])
                    waiting[game.id] = (time.time(), before)
                    ply[game.id] += 1
                    sent += 1
            with Session(db) as session:
                for gid, (arrived, before) in list(waiting.items()):
                    rows = session.exec(select(Outbox.sent_at).where(Outbox.game_id == gid)
                                        .where(Outbox.id > before)).all()
                    if len(rows) >= 2 and all(rows):
                        done = max(C.utc(r) for r in rows)
                        latencies.append((done - datetime.fromtimestamp(arrived, UTC)).total_seconds())
                        del waiting[gid]
                        due[gid] = time.time() + rng.uniform(0, think)
            if len(latencies) == seen:
                time.sleep(0.01)
            seen = len(latencies)
            if daemon.proc.poll() is not None:
                raise RuntimeError(f"the daemon died:\n{daemon.log_tail()}")
        lmtp.close()
    finally:
        daemon.stop()
        db.dispose()
    return latencies


def report(latencies: list[float], players: int, think: float, database: str) -> None:
    cuts = statistics.quantiles(latencies, n=100)
    print(f"machine: {C.machine()}")
    print(f"latency ({database}): {players} players, {len(latencies)} moves, think time 0-{think:g} s, IMAP IDLE")
    print(f"  arrival in the mailbox -> reply and notice accepted by SMTP: p50 {cuts[49]:.3f} s, "
          f"p95 {cuts[94]:.3f} s, max {max(latencies):.3f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--think", type=float, default=3.0, help="longest pause before a player moves (s)")
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    args = parser.parse_args(argv)
    report(run(args.players, args.moves, args.think, args.database), args.players, args.think, args.database)


if __name__ == "__main__":
    main()
