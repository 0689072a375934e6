"""Throughput: a backlog of move mails in the real mailbox, the real daemon works it off.

Games are in progress and every move mail is already in the IMAP folder when the daemon
starts; the clock runs from the daemon's "serving" line until SMTP has accepted every
reply and notice. The floor is the same mail traffic without pbem: imap-tools fetching the
same messages, aiosmtplib sending the same replies (a connection per mail as the daemon
did, and all on one connection).

CPU is measured in the same run for the daemon and for the mail servers (Dovecot's process
group, and the SMTP front end, which runs in this process), and their ratio printed: the
daemon's CPU per move against what the mail servers spend on the same moves. A second, smaller
run of the daemon in this process under a per-thread profiler splits its CPU into components
(database, templates, MIME, SMTP, IMAP, engine, glue).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiosmtplib
from imap_tools import MailBoxUnencrypted
from sqlmodel import Session, select

from benchmarks import move_floor, throughput_check
from benchmarks import service_common as C
from pbem.core.db import make_engine, migrate
from pbem.core.models import Outbox
from tests.databases import throwaway
from tests.integration.daemon import DaemonProcess
from tests.mailrig import MailRig


def imap_floor(rig: MailRig, folder: str, expected: int) -> tuple[float, float]:
    """Seconds imap-tools takes to fetch (BODY.PEEK[]) every message of `folder`, parsed and its
    text decoded, and the CPU this thread spent on it."""
    started, cpu = time.perf_counter(), time.thread_time()
    with MailBoxUnencrypted(rig.host, rig.imap_port).login("game", rig.users["game"], folder) as box:
        count = sum(1 for message in box.fetch(mark_seen=False, bulk=50) if message.text is not None)
    elapsed, cpu = time.perf_counter() - started, time.thread_time() - cpu
    if count != expected:
        raise RuntimeError(f"the floor fetched {count} messages from {folder}, expected {expected}")
    return elapsed, cpu


async def _smtp_floor(rig: MailRig, mails: list[tuple[str, bytes]], sender: str) -> tuple[float, float, float]:
    """Seconds to send the mails on a connection each, then all on one; and the CPU of this
    thread for the one-connection send (the front end's threads not counted)."""
    started = time.perf_counter()
    for recipient, data in mails:
        await aiosmtplib.send(data, sender=sender, recipients=[recipient], hostname=rig.host, port=rig.smtp_port,
                              use_tls=False, start_tls=False)
    per_mail = time.perf_counter() - started
    started, cpu = time.perf_counter(), time.thread_time()
    client = aiosmtplib.SMTP(hostname=rig.host, port=rig.smtp_port, use_tls=False, start_tls=False)
    async with client:
        for recipient, data in mails:
            await client.sendmail(sender, [recipient], data)
    return per_mail, time.perf_counter() - started, time.thread_time() - cpu


def run(games: int, moves: int, database: str, profile_moves: int = 0, profile_out: str | None = None,
        mails: str = "html") -> dict[str, float]:
    """One run on `database`, its players taking `mails` ("html" or "text", `prepare_games`)."""
    rig = MailRig().start()
    try:
        with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp, throwaway(database, Path(tmp)) as url:
            figures = _run(rig, Path(tmp), url, games, moves, mails)
        if profile_moves:
            with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp, throwaway(database, Path(tmp)) as url:
                figures.update(_profiled(rig, Path(tmp), url, min(games, profile_moves), profile_moves,
                                         f"{profile_out}.{label(database, mails)}" if profile_out else None,
                                         mails))
        return figures
    finally:
        rig.stop()


def label(database: str, mails: str) -> str:
    """The name of a run in the summary: the database, and "-text" when the players take text
    mails only (the goals and the check are for the usual mails, with their HTML part)."""
    return database if mails == "html" else f"{database}-{mails}"


def _backlog(rig: MailRig, db, games: int, moves: int, mails: str = "html") -> None:  # noqa: ANN001
    """Games in progress and `moves` move mails waiting in the game's INBOX."""
    plies = -(-moves // games)
    prepared = C.prepare_games(db, rig, games, plies, mails=mails)
    started = time.perf_counter()
    lmtp = C.Lmtp(rig)
    count = 0
    for ply in range(plies):  # round-robin over the games, so each game's moves come in order
        for game in prepared:
            if count == moves:
                break
            recipient, raw = C.move_mail(rig, game, ply)
            lmtp.deliver(recipient, raw, game.sides[ply % 2][0])
            count += 1
    lmtp.close()
    print(f"prepared {games} games and delivered {moves} move mails in {time.perf_counter() - started:.1f} s")


def _run(rig: MailRig, tmp: Path, url: str, games: int, moves: int, mails: str = "html") -> dict[str, float]:
    db = make_engine(url)
    migrate(db)
    _backlog(rig, db, games, moves, mails)
    daemon = DaemonProcess(rig, tmp / "daemon", url)
    front_end = C.FrontEndCpu()
    daemon.start()
    try:
        C.wait_for_log(daemon.log, "pbem serving")
        pid = daemon.proc.pid
        t0, cpu0 = time.perf_counter(), C.cpu_seconds(pid)
        dovecot0, smtp0 = C.dovecot_cpu_seconds(rig), front_end.seconds()
        read = None  # seconds until every move mail was handled (its replies queued)
        while True:
            total, sent = C.outbox_counts(db)
            if read is None and total >= 2 * moves:
                read = time.perf_counter() - t0
            if sent >= 2 * moves:
                break
            if daemon.proc.poll() is not None:
                raise RuntimeError(f"the daemon died:\n{daemon.log_tail()}")
            time.sleep(0.1)
        elapsed, cpu = time.perf_counter() - t0, C.cpu_seconds(pid) - cpu0
        dovecot, smtp = C.dovecot_cpu_seconds(rig) - dovecot0, front_end.seconds() - smtp0
        memory = C.memory_kib(pid)
    finally:
        daemon.stop()
    with Session(db) as session:
        mails = [(r, d) for r, d in session.exec(select(Outbox.recipient, Outbox.message).order_by(Outbox.id))]
        failed = [r for r in session.exec(select(Outbox.template)) if r == "error"]
    if failed:
        raise RuntimeError(f"{len(failed)} moves were refused: the script and the games disagree")
    db.dispose()

    imap, imap_cpu = imap_floor(rig, "Processed", moves)
    smtp_per_mail, smtp_one_conn, smtp_cpu = asyncio.run(_smtp_floor(rig, mails, rig.address("game")))
    floor = imap + smtp_per_mail
    sql_cpu = move_floor.sql_seconds(moves, tmp)
    build_cpu = move_floor.build_seconds([data for _, data in mails])
    floor_cpu = imap_cpu + smtp_cpu + sql_cpu + build_cpu
    figures = {
        "moves": moves,
        "mails_out": len(mails),
        "seconds": elapsed,
        "read_seconds": read if read is not None else elapsed,
        "moves_per_s": moves / elapsed,
        "cpu_ms_per_move": 1000 * cpu / moves,
        "dovecot_cpu_ms_per_move": 1000 * dovecot / moves,
        "smtp_cpu_ms_per_move": 1000 * smtp / moves,
        "mail_cpu_ms_per_move": 1000 * (dovecot + smtp) / moves,
        "cpu_ratio_to_mail_servers": cpu / (dovecot + smtp) if dovecot + smtp else float("inf"),
        "peak_rss_mib": memory.get("VmHWM", 0) / 1024,
        "floor_imap_s": imap,
        "floor_smtp_conn_per_mail_s": smtp_per_mail,
        "floor_smtp_one_conn_s": smtp_one_conn,
        "floor_s": floor,
        "ratio_to_floor": elapsed / floor,
        "ratio_to_floor_one_conn": elapsed / (imap + smtp_one_conn),
        "floor_cpu_ms_per_move": 1000 * floor_cpu / moves,
        "floor_imap_cpu_ms_per_move": 1000 * imap_cpu / moves,
        "floor_smtp_cpu_ms_per_move": 1000 * smtp_cpu / moves,
        "floor_sql_cpu_ms_per_move": 1000 * sql_cpu / moves,
        "floor_build_cpu_ms_per_move": 1000 * build_cpu / moves,
        "floor_cpu_ratio_to_mail_servers": floor_cpu / (dovecot + smtp) if dovecot + smtp else float("inf"),
    }
    return figures


def _profiled(rig: MailRig, tmp: Path, url: str, games: int, moves: int, out: str | None = None,
              mails: str = "html") -> dict[str, float]:
    """The daemon in this process under `cpu_profile`, on a backlog of its own: CPU by component
    (and the whole profile written to `out`, for `python -m pstats`)."""
    from benchmarks import cpu_profile
    from pbem.core.config import load
    from pbem.runners.daemon import Daemon

    db = make_engine(url)
    migrate(db)
    _backlog(rig, db, games, moves, mails)
    config = DaemonProcess(rig, tmp / "profiled", url)  # only its configuration file is used
    os.environ.update(config.env)
    daemon = Daemon(load(config.config))

    async def main() -> None:
        async def watch() -> None:
            while (await asyncio.to_thread(C.outbox_counts, db))[1] < 2 * moves:
                await asyncio.sleep(0.1)
            daemon.stop.set()

        watcher = asyncio.ensure_future(watch())
        await daemon.run()
        await watcher

    with cpu_profile.ThreadProfiles() as profiles:
        asyncio.run(main())
    stats = profiles.stats()
    if out:
        stats.dump_stats(out)
    parts = cpu_profile.breakdown(stats)
    total = sum(parts.values())
    db.dispose()
    figures = {f"share_{label}": seconds / total for label, seconds in parts.items()}
    figures["profiled_moves"] = moves
    for label in parts:
        figures[f"top_{label}"] = cpu_profile.top(stats, label, 3)  # type: ignore[assignment]
    return figures


def report(figures: dict[str, float], games: int, database: str) -> None:
    f = figures
    print(f"machine: {C.machine()}")
    print(f"throughput ({database}): {games} games, {f['moves']} moves, {f['mails_out']} mails out")
    print(f"  daemon:  {f['seconds']:.1f} s = {f['moves_per_s']:.0f} moves/s, "
          f"{f['cpu_ms_per_move']:.2f} CPU ms/move, peak RSS {f['peak_rss_mib']:.0f} MiB; "
          f"every move mail handled after {f['read_seconds']:.1f} s")
    print(f"  floor:   imap-tools fetch {f['floor_imap_s']:.1f} s + aiosmtplib send {f['floor_smtp_conn_per_mail_s']:.1f} s"
          f" (a connection per mail) = {f['floor_s']:.1f} s; on one connection the send takes "
          f"{f['floor_smtp_one_conn_s']:.1f} s")
    print(f"  ratio:   {f['ratio_to_floor']:.2f}x the floor "
          f"({f['ratio_to_floor_one_conn']:.2f}x the one-connection floor)")
    print(f"  CPU per move: daemon {f['cpu_ms_per_move']:.2f} ms; mail servers {f['mail_cpu_ms_per_move']:.2f} ms "
          f"(Dovecot {f['dovecot_cpu_ms_per_move']:.2f}, SMTP front end {f['smtp_cpu_ms_per_move']:.2f}); "
          f"daemon / mail servers = {f['cpu_ratio_to_mail_servers']:.2f}")
    print(f"  the floor's CPU per move (the least a Python daemon of this design spends, benchmarks/move_floor.py): "
          f"{f['floor_cpu_ms_per_move']:.2f} ms = IMAP fetch and parse {f['floor_imap_cpu_ms_per_move']:.2f} + "
          f"SMTP send {f['floor_smtp_cpu_ms_per_move']:.2f} + {move_floor.STATEMENTS} plain SQL statements "
          f"{f['floor_sql_cpu_ms_per_move']:.2f} + two mails built from finished parts "
          f"{f['floor_build_cpu_ms_per_move']:.2f}; floor / mail servers = {f['floor_cpu_ratio_to_mail_servers']:.2f}")
    shares = {key.removeprefix("share_"): value for key, value in f.items() if key.startswith("share_")}
    if shares:
        print(f"  the daemon's CPU by component (profiled in-process over {f['profiled_moves']} moves; "
              "ms/move scaled to the run above):")
        for label, share in sorted(shares.items(), key=lambda item: -item[1]):
            hot = "; ".join(f"{name} {seconds:.2f}s" for seconds, name in f.get(f"top_{label}", []))
            print(f"    {label:<10} {100 * share:5.1f} %  {share * f['cpu_ms_per_move']:6.2f} ms   {hot}")


def median(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each figure's median over `runs` of one database (what only some runs have, such as the
    profile's shares, from those): a ratio of two CPU times moves by a fifth from run to run on
    a shared machine, as the mail servers' own CPU per move does."""
    keys = dict.fromkeys(key for figures in runs for key in figures)
    merged: dict[str, float] = {}
    for key in keys:
        values = [figures[key] for figures in runs if key in figures]
        numbers = [v for v in values if isinstance(v, int | float)]
        merged[key] = statistics.median(numbers) if len(numbers) == len(values) else values[0]
    return merged


def spread(runs: dict[str, list[dict[str, float]]], results: dict[str, dict[str, float]]) -> None:
    """Each run's ratios and CPU per move, and their medians (what the summary shows)."""
    print("runs, in the order they ran (the summary below takes the medians):")
    width = max(11, *(len(database) for database in runs))
    for database, done in runs.items():
        for label, key in (("daemon / mail servers", "cpu_ratio_to_mail_servers"),
                           ("daemon CPU per move, ms", "cpu_ms_per_move"),
                           ("mail servers' CPU per move, ms", "mail_cpu_ms_per_move")):
            values = ", ".join(f"{figures[key]:.2f}" for figures in done)
            print(f"  {database:<{width}} {label:<31} {values}; median {results[database][key]:.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games in progress (issue: 1000)")
    parser.add_argument("--moves", type=int, default=1000, help="move mails waiting (issue: 5000)")
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"], default="both",
                        help="both (the default): SQLite, then PostgreSQL, in one run, side by side")
    parser.add_argument("--profile-moves", type=int, default=300,
                        help="moves of the profiled in-process run that splits the daemon's CPU (0: none)")
    parser.add_argument("--profile-out", metavar="FILE",
                        help="also write the profiled run's statistics to FILE.sqlite / FILE.postgresql")
    parser.add_argument("--no-check", action="store_true",
                        help="do not compare with the figures recorded in benchmarks/README.md")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run every database N times, alternately (the profile only in the first round); "
                             "the summary and the check take each figure's median")
    parser.add_argument("--mails", choices=["html", "text", "both"], default="html",
                        help="the players' mail format: html (the default, as a new player's), text "
                             "(`format text`: no HTML part), or both, alternately: what the HTML part costs")
    args = parser.parse_args(argv)
    databases = ["sqlite", "postgresql"] if args.database == "both" else [args.database]
    formats = ["html", "text"] if args.mails == "both" else [args.mails]
    runs: dict[str, list[dict[str, float]]] = {}
    with contextlib.suppress(KeyboardInterrupt):
        for round_ in range(max(args.repeat, 1)):
            for database in databases:
                for mails in formats:
                    profile = args.profile_moves if round_ == 0 else 0
                    figures = run(args.games, args.moves, database, profile, args.profile_out, mails)
                    runs.setdefault(label(database, mails), []).append(figures)
                    report(figures, args.games, label(database, mails))
    if not runs:
        return
    results = {database: median(done) for database, done in runs.items()}
    if max(len(done) for done in runs.values()) > 1:
        spread(runs, results)
    throughput_check.summary(results)
    if args.no_check:
        return
    bad = throughput_check.problems(results)
    for line in bad:
        print(f"  REGRESSION against benchmarks/README.md: {line}")
    if bad:
        sys.exit(1)
    print("  check against the figures recorded in benchmarks/README.md: no regression over 20 %")


if __name__ == "__main__":
    main()
