"""Memory: the real daemon's RSS over many processed moves must stay flat.

Move mails are delivered in batches into the mailbox; after each batch is worked off
(every reply accepted by SMTP) the daemon's VmRSS is sampled from /proc. The figure is the
last sample against the one after the first batch (the warm-up: imports, caches).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from benchmarks import service_common as C
from pbem.core.db import make_engine, migrate
from tests.databases import throwaway
from tests.integration.daemon import DaemonProcess
from tests.mailrig import MailRig


def run(moves: int, games: int, batch: int, database: str) -> list[tuple[int, int]]:
    rig = MailRig().start()
    try:
        with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp, throwaway(database, Path(tmp)) as url:
            return _run(rig, Path(tmp), url, moves, games, batch)
    finally:
        rig.stop()


def _run(rig: MailRig, tmp: Path, url: str, moves: int, games: int, batch: int) -> list[tuple[int, int]]:
    db = make_engine(url)
    migrate(db)
    plies = -(-moves // games)
    prepared = C.prepare_games(db, rig, games, plies)
    order = [(g, ply) for ply in range(plies) for g in prepared][:moves]
    daemon = DaemonProcess(rig, tmp / "daemon", url)
    daemon.start()
    samples: list[tuple[int, int]] = []
    try:
        C.wait_for_log(daemon.log, "pbem serving")
        lmtp = C.Lmtp(rig)
        for start in range(0, moves, batch):
            chunk = order[start : start + batch]
            for game, ply in chunk:
                recipient, raw = C.move_mail(rig, game, ply)
                lmtp.deliver(recipient, raw, game.sides[ply % 2][0])
            done = start + len(chunk)
            while C.outbox_counts(db)[1] < 2 * done:
                if daemon.proc.poll() is not None:
                    raise RuntimeError(f"the daemon died:\n{daemon.log_tail()}")
                time.sleep(0.2)
            samples.append((done, C.memory_kib(daemon.proc.pid)["VmRSS"]))
            print(f"  {done:>7} moves: RSS {samples[-1][1] / 1024:.1f} MiB", flush=True)
        lmtp.close()
    finally:
        daemon.stop()
        db.dispose()
    return samples


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=3000, help="moves processed (issue: 50000)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    args = parser.parse_args(argv)
    samples = run(args.moves, args.games, args.batch, args.database)
    first, last = samples[0][1], samples[-1][1]
    print(f"machine: {C.machine()}")
    print(f"memory ({args.database}): {samples[-1][0]} moves through the real daemon, {args.games} games")
    print(f"  RSS after the first batch {first / 1024:.1f} MiB, at the end {last / 1024:.1f} MiB: "
          f"{100 * (last - first) / first:+.1f}% (peak sample {max(s for _, s in samples) / 1024:.1f} MiB)")


if __name__ == "__main__":
    main()
