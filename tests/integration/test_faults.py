"""Faults against the real daemon, Dovecot and SMTP: SIGKILL anywhere, mail servers down, two daemons.

Players are scripted: each game has a fixed legal line of play, and the next move is mailed
(to the game's Reply-To plus-address, which proves receipt) once the database shows the
previous one applied. Whatever the faults, afterwards every move is applied exactly once,
every stored state equals the replay of its moves, and every mail the outbox holds reached
its recipient at least once, a repeat always under the same Message-ID.
"""

from __future__ import annotations

import random
import smtplib
import time
from collections import Counter
from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlalchemy import func
from sqlmodel import Session, select

import pbem_engine
from pbem.cli.main import main
from pbem.core.db import make_engine, migrate, transaction
from pbem.core.models import Challenge, Game, InboundMessage, Move, Outbox, Quarantine
from pbem.games import players
from pbem.games import store as G
from pbem.games.clock import now
from tests.integration.daemon import POLLING, DaemonProcess
from tests.integration.lines import move_address, script
from tests.integration.waits import Deadline, scaled, wait_until
from tests.mailer import compose, parse

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FAST = {"retry_base": 0.5, "max_attempts": 30, "clock_interval": 3600.0}
PAIRS = [("alice", "bob"), ("carol", "dave"), ("bob", "carol"), ("dave", "alice"), ("alice", "carol")]
# One restart in two runs under a crash plan (PBEM_CRASH_AT); the others get a random SIGKILL.
PLANS = [
    "before-commit:2", "after-commit:1", "after-smtp:1", "before-commit:3", "after-commit:2", "after-smtp:3",
    "after-commit:3", "before-commit:4", "after-smtp:2",
]


# --- games and players ----------------------------------------------------------------------------


class Table:
    """Games started straight in the database, and the players' side of the mail exchange."""

    def __init__(self, db, rig, count: int, plies: int, seed: int) -> None:
        self.db, self.rig = db, rig
        self.rules = pbem_engine.create("ataxx", {})
        rng = random.Random(seed)
        self.sides: dict[int, list[tuple[str, str]]] = {}  # game id -> (address, secret) by side
        with transaction(db) as session:
            people = {u: players.get_or_register(session, rig.address(u), now()) for u in ("alice", "bob", "carol",
                                                                                          "dave")}
            for i in range(count):
                first, second = (people[u] for u in PAIRS[i % len(PAIRS)])
                challenge = Challenge(kind="ataxx", options={}, challenger_id=first.id, opponent_id=second.id,
                                      colour="first", created_at=now())
                session.add(challenge)
                session.flush()
                game = G.start(session, challenge, second, first, now())
                self.sides[game.id] = [(first.address, first.secret), (second.address, second.secret)]
        self.scripts = {gid: script(self.rules, rng, plies) for gid in self.sides}
        self.sent: dict[int, list[str]] = {gid: [] for gid in self.sides}  # Message-IDs of the move mails

    def applied(self) -> dict[int, int]:
        """Plies applied per game, read fresh (the daemon may be half-way through a write)."""
        with Session(self.db) as session:
            return dict(session.exec(select(Game.id, Game.ply)).all())

    def move_on(self, applied: dict[int, int], limit: int | None = None, via_smtp: bool = True) -> int:
        """Mail the next move of every game whose last move is in (up to `limit` plies); returns how many."""
        mailed = 0
        for gid, line in self.scripts.items():
            ply = applied[gid]
            if ply < min(len(line), limit or len(line)) and len(self.sent[gid]) == ply:
                address, secret = self.sides[gid][ply % 2]
                raw = compose(address, line[ply], subject=f"Re: [pbem #{gid}] ataxx")
                target = move_address("game", self.rig.domain, secret, gid, ply)
                if via_smtp:
                    with smtplib.SMTP(self.rig.host, self.rig.smtp_port, timeout=10) as smtp:
                        smtp.sendmail(address, [target], raw)
                else:
                    self.rig.deliver(target, raw, sender=address)
                self.sent[gid].append(parse(raw)["Message-ID"])
                mailed += 1
        return mailed

    def finished(self, applied: dict[int, int]) -> bool:
        return all(applied[gid] == len(line) for gid, line in self.scripts.items())

    def play_to(self, plies: int, daemon: DaemonProcess, timeout: float = 30, via_smtp: bool = True) -> None:
        """Play every game until `plies` moves are in, failing with the daemon's log when stuck
        (`timeout` is scaled)."""
        deadline = Deadline(timeout)
        while True:
            applied = self.applied()
            if all(ply >= plies for ply in applied.values()):
                return
            assert not deadline.passed(), f"stuck at {applied}\n{daemon.log_tail()}"
            self.move_on(applied, plies, via_smtp)
            time.sleep(0.02)


def _outbox(db) -> list[Outbox]:
    with Session(db) as session:
        return list(session.exec(select(Outbox).order_by(Outbox.id)))


def _wait_outbox_settled(db, daemon: DaemonProcess, timeout: float = 30) -> list[Outbox]:
    """Every outbox row sent or failed for good (`timeout` is scaled)."""
    deadline = Deadline(timeout)
    while True:
        rows = _outbox(db)
        pending = [r.id for r in rows if r.status == "pending"]
        if not pending:
            return rows
        assert not deadline.passed(), f"outbox rows {pending} still pending\n{daemon.log_tail()}"
        time.sleep(0.1)


def _check_exactly_once(db, table: Table) -> None:
    """Each move mail applied once, in order; each state the replay of its moves; nothing set aside."""
    with Session(db) as session:
        moves = session.exec(select(Move).order_by(Move.game_id, Move.ply)).all()
        assert not [k for k, n in Counter((m.game_id, m.ply) for m in moves).items() if n > 1]
        assert not [k for k, n in Counter(m.message_id for m in moves).items() if n > 1]
        for gid, line in table.scripts.items():
            mine = [m for m in moves if m.game_id == gid]
            assert [m.notation for m in mine] == line, f"game {gid}: the moves differ from what was sent"
            assert [m.message_id for m in mine] == table.sent[gid]
            game = session.get(Game, gid)
            assert game.ply == len(line)
            assert table.rules.load(game.state) == G.replay(game, [m.notation for m in mine])
        inbound = session.exec(select(InboundMessage.message_id)).all()
        assert sorted(inbound) == sorted(mid for ids in table.sent.values() for mid in ids)
        assert session.exec(select(func.count()).select_from(Quarantine)).one() == 0


def _check_delivered(rows: list[Outbox], rig) -> int:
    """Every sent row is in its recipient's mailbox; a mail there twice was the same row. Returns repeats."""
    wanted: dict[str, set[str]] = {}
    for row in rows:
        assert row.status == "sent", (row.id, row.template, row.last_error)
        wanted.setdefault(row.recipient.split("@")[0], set()).add(row.message_id)
    repeats = 0
    for user, ids in wanted.items():
        got = Counter(parse(raw)["Message-ID"] for raw in rig.messages(user))
        assert ids <= set(got), f"{user}: {len(ids - set(got))} of {len(ids)} mails never arrived"
        assert set(got) <= ids, f"{user}: mails that no outbox row sent: {set(got) - ids}"
        repeats += sum(n - 1 for n in got.values())
    return repeats


def _expire_leases(db) -> int:
    """Let the outbox leases of a dead daemon run out at once instead of after outbox.LEASE (5 min).

    Only called while no daemon runs: it is what the clock would do, sooner."""
    with transaction(db) as session:
        rows = session.exec(
            select(Outbox).where(Outbox.status == "pending").where(Outbox.next_attempt_at > now() + timedelta(minutes=1))
        ).all()
        for row in rows:
            row.next_attempt_at = now()
            session.add(row)
        return len(rows)


# --- SIGKILL anywhere ---------------------------------------------------------------------------


class Killer:
    """When to SIGKILL the daemon next: after a crash plan's point (the daemon kills itself),
    or at a random moment that is timed from the daemon's own signals, never from Popen
    (imports alone take seconds on a busy machine): during start-up (a random share of how
    long the last start-up took), at a random moment after readiness, or after a random
    number of moves applied in this run."""

    MODES = ("start-up", "serving", "progress")

    def __init__(self, daemon: DaemonProcess, db, rng: random.Random) -> None:
        self.daemon, self.db, self.rng = daemon, db, rng
        self.crashes: Counter[str] = Counter()
        self.restarts = 0
        self.startup = 0.0  # how long the last start-up took, readiness measured
        self.plan: str | None = None
        self.mode = ""
        self.moves_at_start = 0
        self.after: float = 0.0

    def quota_met(self) -> bool:
        kinds = ("before-commit", "after-commit", "after-smtp")
        return all(self.crashes[k] >= 2 for k in kinds) and all(
            self.crashes[m] >= 2 for m in self.MODES
        )

    def restart(self, applied: dict[int, int]) -> None:
        """Start the daemon again, under the next crash plan or with a random kill to come."""
        _expire_leases(self.db)
        self.plan = PLANS[(self.restarts // 2) % len(PLANS)] if self.restarts % 2 == 0 else None
        self.mode = "" if self.plan else self.MODES[(self.restarts // 2) % len(self.MODES)]
        if self.mode == "start-up" and not self.startup:
            self.mode = "serving"  # no start-up measured yet to pick a moment in
        self.restarts += 1
        self.moves_at_start = sum(applied.values())
        self.after = {  # the random moment, relative to the signal the mode waits for
            "start-up": self.rng.uniform(0.1, 0.9) * self.startup,
            "serving": self.rng.uniform(0.0, scaled(0.3)),
            "progress": self.rng.randint(1, 6),
        }.get(self.mode, scaled(8.0))  # a plan's point is reached within a few moves of readiness
        self.daemon.start(env={"PBEM_CRASH_AT": self.plan} if self.plan else None, ready=False)

    def due(self, applied: dict[int, int]) -> bool:
        """True when the random kill (or an overdue plan's) should land now."""
        now = time.monotonic()
        if self.daemon.is_ready() and self.startup != self.daemon.ready_at - self.daemon.started_at:
            self.startup = self.daemon.ready_at - self.daemon.started_at
        if self.mode == "start-up":
            return now >= self.daemon.started_at + self.after
        if not self.daemon.is_ready():
            return False
        if self.mode == "progress":
            return sum(applied.values()) - self.moves_at_start >= self.after
        return now >= self.daemon.ready_at + self.after

    def step(self, applied: dict[int, int]) -> None:
        """Kill or notice a crash, and restart, while the quota of crashes is not met."""
        code = self.daemon.proc.poll()
        if code is not None:  # it killed itself at the plan's point
            assert self.plan and code == -9, f"the daemon exited with {code}\n{self.daemon.log_tail()}"
            self.daemon.kill()
            self.crashes[self.plan.partition(":")[0]] += 1
        elif self.due(applied):
            assert self.daemon.kill() == -9
            self.crashes[self.mode or "random"] += 1  # an overdue plan is killed like a random one
        else:
            return
        if self.quota_met():
            _expire_leases(self.db)
            self.plan, self.mode = None, "none"
            self.daemon.start()  # no more faults: the rest of the games run clean
        else:
            self.restart(applied)


def test_sigkill_at_any_point_applies_every_move_once_and_delivers_every_mail(mailrig, tmp_path) -> None:
    # Polling (see POLLING): between the kills, the moves follow one another without IDLE's delay.
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_server=FAST, extra_imap=POLLING)
    db = make_engine(daemon.database)
    migrate(db)
    table = Table(db, mailrig, count=5, plies=30, seed=11)  # 150 moves
    killer = Killer(daemon, db, random.Random(5))
    killer.restart(table.applied())
    deadline = Deadline(60)
    try:
        while True:
            applied = table.applied()
            if table.finished(applied):
                break
            assert not deadline.passed(), f"stuck at {applied} after {killer.crashes}\n{daemon.log_tail()}"
            if killer.mode != "none":
                killer.step(applied)
            table.move_on(applied)
            time.sleep(0.02)
        assert killer.quota_met(), f"the games ended after only {killer.crashes}"
        # The games are over: one more restart without faults lets the last mails out.
        daemon.kill()
        _expire_leases(db)
        daemon.start()
        rows = _wait_outbox_settled(db, daemon, timeout=30)
    finally:
        code = daemon.stop()
    assert code == 0, daemon.log_tail()

    crashes = killer.crashes
    _check_exactly_once(db, table)
    assert sum(len(s) for s in table.scripts.values()) == 150
    assert len(rows) == 2 * 150  # the mover's reply and the opponent's notice, each once
    repeats = _check_delivered(rows, mailrig)
    # Every crash after SMTP's 250 sends that mail again, under its Message-ID.
    assert repeats >= crashes["after-smtp"]
    print(f"\ncrashes survived: {dict(crashes)}; moves checked: 150; repeated mails: {repeats}")
    db.dispose()


# --- SMTP down, 4xx, 5xx ----------------------------------------------------------------------------


def _attempt_history(db, row_id: int, changes: int, daemon: DaemonProcess) -> list[tuple[int, object]]:
    """(attempts, next_attempt_at) of one outbox row, first as seen and then each time its attempts
    change, until they changed `changes` times."""
    history: list[tuple[int, object]] = []

    def probe() -> bool:
        with Session(db) as session:
            row = session.get(Outbox, row_id)
        if not history or row.attempts != history[-1][0]:
            history.append((row.attempts, row.next_attempt_at))
        return len(history) > changes

    wait_until(probe, 15, lambda: f"outbox row {row_id} tried only as {history}\n{daemon.log_tail()}")
    return history


def test_smtp_outage_and_4xx_are_retried_with_backoff_and_5xx_fails_visibly(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_server=FAST)
    db = make_engine(daemon.database)
    migrate(db)
    table = Table(db, mailrig, count=1, plies=6, seed=3)
    daemon.start()
    try:
        # SMTP down: moves still come in (over LMTP) and are applied; their mails wait.
        mailrig.stop_smtp()
        table.play_to(2, daemon, via_smtp=False)
        first = _outbox(db)[0].id
        history = _attempt_history(db, first, 3, daemon)  # tries 0.5, 1, 2, 4 s apart
        assert all(r.status == "pending" for r in _outbox(db))
        for (k, before), (_, after) in zip(history[1:], history[2:], strict=False):
            gap = (after - before).total_seconds()  # = the wait before the try, then the next backoff
            backoff = FAST["retry_base"] * 2 ** k
            assert backoff - 0.05 <= gap <= backoff + scaled(0.4), (k, gap, history)
        mailrig.start_smtp()
        rows = _wait_outbox_settled(db, daemon, timeout=15)
        assert len(rows) == 4 and _check_delivered(rows, mailrig) == 0

        # 4xx twice: the two refusals are retried (on whichever mails met them, as the outbox
        # sends over several connections at once), then both mails are delivered.
        mailrig.inject("RCPT", "451 4.7.1 Try later")
        mailrig.inject("RCPT", "451 4.7.1 Try later")
        table.play_to(3, daemon, via_smtp=False)  # the player's mail must not meet the fault
        rows = _wait_outbox_settled(db, daemon, timeout=15)
        assert sum(r.attempts for r in rows[4:]) == 2 + 2
        assert all(r.status == "sent" and r.last_error is None for r in rows[4:])
        _check_delivered(rows, mailrig)

        # 5xx: failed for good at once, the other mail goes on; the admin sees it.
        mailrig.inject("DATA", "554 5.7.1 Rejected")
        table.play_to(4, daemon, via_smtp=False)
        rows = _wait_outbox_settled(db, daemon, timeout=15)
        failed = [r for r in rows if r.status == "failed"]
        assert len(failed) == 1 and failed[0].attempts == 1 and "554" in failed[0].last_error
        assert sorted(r.status for r in rows[6:]) == ["failed", "sent"]
        listing = CliRunner().invoke(main, ["-c", str(daemon.config), "admin", "outbox", "--failed"], env=daemon.env)
        assert listing.exit_code == 0, listing.output
        lines = listing.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].split()[:2] == [str(failed[0].id), "failed"]
        assert failed[0].recipient in lines[0] and "554" in lines[0]
        assert failed[0].message_id not in {parse(m)["Message-ID"] for m in
                                             mailrig.messages(failed[0].recipient.split("@")[0])}
        table.play_to(6, daemon)
    finally:
        mailrig.start_smtp()
        code = daemon.stop()
    assert code == 0, daemon.log_tail()
    _check_exactly_once(db, table)
    db.dispose()


# --- IMAP restarted --------------------------------------------------------------------------------


def test_daemon_reconnects_after_the_imap_server_restarts(mailrig, tmp_path) -> None:
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", extra_server=FAST)
    db = make_engine(daemon.database)
    migrate(db)
    table = Table(db, mailrig, count=2, plies=9, seed=4)
    daemon.start()
    try:
        table.play_to(3, daemon)
        for plies in (6, 9):
            seen = daemon.run_log().count("mailbox unavailable")
            mailrig.stop_imap()  # IMAP and LMTP gone: no reading, and SMTP answers 451 meanwhile
            daemon.wait_log("mailbox unavailable", count=seen + 1, seconds=20)  # it noticed, and runs on
            assert daemon.proc.poll() is None, daemon.log_tail()
            mailrig.start_imap()
            table.play_to(plies, daemon, timeout=30)
        rows = _wait_outbox_settled(db, daemon, timeout=30)
    finally:
        mailrig.start_imap()
        code = daemon.stop()
    assert code == 0, daemon.log_tail()
    _check_exactly_once(db, table)
    assert len(rows) == 2 * 18
    _check_delivered(rows, mailrig)
    db.dispose()


# --- two daemons, one mailbox, one database ----------------------------------------------------------


def test_two_daemons_on_one_mailbox_and_database_apply_each_mail_once(mailrig, tmp_path) -> None:
    database_url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    daemons = [DaemonProcess(mailrig, tmp_path / f"pbem{i}", database_url, extra_server=FAST) for i in (1, 2)]
    db = make_engine(database_url)
    migrate(db)
    table = Table(db, mailrig, count=4, plies=20, seed=9)
    for daemon in daemons:
        daemon.start()
    try:
        table.play_to(20, daemons[0], timeout=60)
        rows = _wait_outbox_settled(db, daemons[0], timeout=30)
    finally:
        codes = [daemon.stop() for daemon in daemons]
    assert codes == [0, 0], [d.log_tail() for d in daemons]
    _check_exactly_once(db, table)
    assert len(rows) == 2 * 80  # one reply and one notice per move: no mail was acted on twice
    _check_delivered(rows, mailrig)
    handled = [d.log.read_text(errors="replace").count(": processed") for d in daemons]
    assert sum(handled) == 80 and all(handled), handled  # both daemons did part of the work
    db.dispose()
