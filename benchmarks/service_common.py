"""What the service benchmarks share: the rig, prepared games, move mails, process figures.

Games are prepared straight in the database (players, challenges, `games.start`) and each
game gets a scripted line of legal Ataxx moves, so the benchmarks time the daemon and not
the setup. Move mails are delivered into the game mailbox over one LMTP connection.
"""

from __future__ import annotations

import os
import platform
import random
import resource
import smtplib
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, func
from sqlmodel import Session, select

import pbem_engine
from pbem.core.config import Settings
from pbem.core.db import transaction
from pbem.core.models import Challenge, Outbox
from pbem.games import clock, players
from pbem.games import store as G
from pbem.games.clock import now
from tests.integration.lines import move_address, script
from tests.mailer import compose
from tests.mailrig import MailRig

KIND = "ataxx"
_CLK_TCK = os.sysconf("SC_CLK_TCK")


@dataclass
class PreparedGame:
    id: int
    sides: list[tuple[str, str]]  # (address, secret) of side 0 and side 1
    script: list[str]  # the moves to play, in order


def machine() -> str:
    """The line every benchmark prints, so that its figures say where they came from."""
    model = "unknown CPU"
    with open("/proc/cpuinfo", encoding="utf-8") as info:
        for line in info:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} CPUs, {model}, Python {platform.python_version()}"


def prepare_games(db: Engine, rig: MailRig, games: int, plies: int, people: int = 20, seed: int = 1,
                  mails: str = "html") -> list[PreparedGame]:
    """`games` Ataxx games between `people` players, each with `plies` scripted moves; the
    players take their mails in the `mails` format ("html": text and HTML parts, as a new
    player does; "text": the text part alone, as `format text` asks)."""
    rng = random.Random(seed)
    rules = pbem_engine.create(KIND, {})
    users = [u for u in rig.users if u != "game"]
    addresses = [rig.address(users[i % len(users)], f"p{i}") for i in range(people)]
    prepared = []
    with transaction(db) as session:
        registered = [players.get_or_register(session, a, now()) for a in addresses]
        for player in registered:
            player.format = mails
        for i in range(games):
            first = registered[i % people]
            second = registered[(i + 1 + i // people) % people]
            if second.id == first.id:
                second = registered[(i + 1) % people]
            challenge = Challenge(kind=KIND, options={}, challenger_id=first.id, opponent_id=second.id,
                                  colour="first", created_at=now())
            session.add(challenge)
            session.flush()
            game = G.start(session, challenge, second, first, now())
            # its next clock event, as `accept` stores it: else every game is due at once and the
            # daemon's first clock round reschedules them all inside the measured run
            clock.reschedule(session, game, Settings().reminders, fresh=True)
            prepared.append(PreparedGame(game.id, [(first.address, first.secret), (second.address, second.secret)],
                                         []))
    for game in prepared:
        game.script = script(rules, rng, plies)
    return prepared


def move_mail(rig: MailRig, game: PreparedGame, ply: int) -> tuple[str, bytes]:
    """(recipient, raw) of the mail that plays move `ply` (0-based) of `game`."""
    address, secret = game.sides[ply % 2]
    recipient = move_address("game", rig.domain, secret, game.id, ply)
    raw = compose(address, game.script[ply], subject=f"Re: [pbem #{game.id}] ataxx", to=recipient)
    return recipient, raw


class Lmtp:
    """One LMTP session into the rig's Dovecot, reused for many deliveries."""

    def __init__(self, rig: MailRig) -> None:
        self.conn = smtplib.LMTP(rig.host, rig.lmtp_port, timeout=60)

    def deliver(self, recipient: str, raw: bytes, sender: str) -> None:
        self.conn.sendmail(sender, [recipient], raw)

    def close(self) -> None:
        self.conn.quit()


def outbox_counts(db: Engine) -> tuple[int, int]:
    """(rows, rows sent)."""
    with Session(db) as session:
        total = session.exec(select(func.count()).select_from(Outbox)).one()
        sent = session.exec(select(func.count()).select_from(Outbox).where(Outbox.status == "sent")).one()
    return total, sent


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _CLK_TCK


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) of a process, in KiB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0])
    return found


def wait_for_log(path: Path, text: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not (path.exists() and text in path.read_text(errors="replace")):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{text!r} not in {path} after {timeout} s")
        time.sleep(0.02)


def utc(moment: datetime) -> datetime:
    """Stored datetimes come back naive from SQLite; they are UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _stat_fields(path: Path) -> list[str] | None:
    try:
        return path.read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def group_cpu_seconds(pgid: int) -> float:
    """CPU of a process group: every live member's utime + stime, plus what its members have
    reaped of children that already exited (cutime + cstime), so a measure taken twice gives
    the group's CPU in between, however many processes came and went."""
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(entry / "stat")
        if fields is not None and int(fields[2]) == pgid:
            ticks += sum(int(f) for f in fields[11:15])
    return ticks / _CLK_TCK


def dovecot_cpu_seconds(rig: MailRig) -> float:
    """CPU of the rig's Dovecot: its master and every process of its group (imap, lmtp, auth ...)."""
    return group_cpu_seconds(rig._dovecot.pid)


class FrontEndCpu:
    """CPU of the rig's SMTP front end, which runs in this process (aiosmtpd's thread and the
    threads that hand its mail to Dovecot): this process's CPU minus its main thread's."""

    def __init__(self) -> None:
        self._main = threading.main_thread().native_id

    def seconds(self) -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        fields = _stat_fields(Path(f"/proc/self/task/{self._main}/stat"))
        main = (int(fields[11]) + int(fields[12])) / _CLK_TCK if fields else 0.0
        return usage.ru_utime + usage.ru_stime - main
