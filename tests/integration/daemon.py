"""The real daemon as a subprocess, configured against the real mail rig.

Tests wait on the daemon's own signals: its readiness lines ("pbem serving", then
"mailbox reached" once the database is migrated and IMAP answered), its progress lines
("message ...: processed", "clock round ..."), rows in the database, mails in the rig.
Every DaemonProcess a test creates is stopped and its log checked for tracebacks when the
test ends (the autouse fixture in tests/conftest.py), so no test can forget either.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.models import InboundMessage
from tests.integration.waits import scaled, wait_until
from tests.mailer import parse
from tests.mailrig import MailRig

READY = ("pbem serving", "mailbox reached")  # in this order, once per start
TRACEBACK = "Traceback (most recent call last):"
# IMAP without IDLE, polled often. Dovecot tells an IDLE client of new mail only 500 ms after it
# arrived (a delay compiled into it), which bounds a game to two moves a second; tests that play
# hundreds of moves in a row poll instead, and so play the daemon's polling mode end to end too.
POLLING = {"idle": False, "poll_interval": 0.1}


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


class DaemonProcess:
    """`pbem serve` with a config file that points at the rig's IMAP and SMTP servers."""

    created: ClassVar[list[DaemonProcess]] = []  # this test's daemons, checked at its teardown

    def __init__(
        self,
        rig: MailRig,
        home: Path,
        database_url: str | None = None,
        extra_server: dict | None = None,
        extra_imap: dict | None = None,
        oauth: dict | None = None,
    ) -> None:
        """`oauth`: settings written into both [imap] and [smtp] instead of the IMAP password
        (auth = "oauth2" and its token source); the SMTP login then names the user too."""
        DaemonProcess.created.append(self)
        self.rig = rig
        self.started_at = 0.0  # time.monotonic() of the last start
        self.ready_at: float | None = None  # ... and of its readiness line
        self._mark = 0  # the log's size at the last start: what came after is this run's
        self.home = home
        self.database_url = database_url
        self.config = home / "pbem.toml"
        self.log = home / "daemon.log"
        self.proc: subprocess.Popen | None = None
        home.mkdir(parents=True, exist_ok=True)
        login, smtp_login = 'password_env = "PBEM_TEST_IMAP_PASSWORD"', ""
        if oauth is not None:
            login = "".join(f"{key} = {_toml(value)}\n" for key, value in oauth.items())
            smtp_login = 'username = "game"\n' + login
        self.config.write_text(
            f"""[server]
address = "game@{rig.domain}"
home = "{home}"
outbox_interval = 0.5
{f'database_url = "{database_url}"' if database_url else ""}
{"".join(f"{key} = {_toml(value)}{chr(10)}" for key, value in (extra_server or {}).items())}

[imap]
host = "127.0.0.1"
port = {rig.imap_port}
username = "game"
{login}
security = "none"
{"".join(f"{key} = {_toml(value)}{chr(10)}" for key, value in {"poll_interval": 1.0, **(extra_imap or {})}.items())}
[smtp]
host = "127.0.0.1"
port = {rig.smtp_port}
security = "none"
{smtp_login}
""",
            encoding="utf-8",
        )

    @property
    def database(self) -> str:
        return self.database_url or f"sqlite:///{self.home / 'pbem.sqlite3'}"

    @property
    def env(self) -> dict[str, str]:
        """The variables the daemon (and the CLI on its config) needs: the IMAP password."""
        return {"PBEM_TEST_IMAP_PASSWORD": self.rig.users["game"]}

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def start(self, env: dict[str, str] | None = None, ready: bool = True) -> None:
        """Start `pbem serve` and, unless `ready` is False, wait for its readiness line;
        `env` adds variables (e.g. PBEM_CRASH_AT for the fault hook)."""
        env = {**os.environ, **self.env, "PYTHONUNBUFFERED": "1", **(env or {})}
        self._mark = self.log.stat().st_size if self.log.exists() else 0
        self.ready_at = None
        self.started_at = time.monotonic()
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "pbem.cli.main", "-v", "-c", str(self.config), "serve"],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
        if ready:
            self.wait_ready()

    def run_log(self) -> str:
        """What the daemon logged since its last start."""
        with open(self.log, "rb") as log:
            log.seek(self._mark)
            return log.read().decode(errors="replace")

    def is_ready(self) -> bool:
        """True once this run logged its readiness lines (and remembers when it first saw them)."""
        if self.ready_at is None:
            text = self.run_log()
            first = text.find(READY[0])
            if first >= 0 and text.find(READY[1], first) >= 0:
                self.ready_at = time.monotonic()
        return self.ready_at is not None

    def wait_ready(self, seconds: float = 20) -> float:
        """Block until this run is serving with its mailbox reached; returns how long start-up took."""

        def probe() -> bool:
            if self.is_ready():
                return True
            assert self.proc is not None and self.proc.poll() is None, f"the daemon exited\n{self.log_tail()}"
            return False

        wait_until(probe, seconds, lambda: f"the daemon is not serving\n{self.log_tail()}")
        assert self.ready_at is not None
        return self.ready_at - self.started_at

    def wait_log(self, text: str, count: int = 1, seconds: float = 30, this_run: bool = True) -> None:
        """Block until the log (of this run, or the whole file) holds `text` `count` times."""

        def probe() -> bool:
            found = self.run_log() if this_run else self.log.read_text(errors="replace")
            if found.count(text) >= count:
                return True
            assert self.proc is None or self.proc.poll() is None, f"the daemon exited\n{self.log_tail()}"
            return False

        wait_until(probe, seconds, lambda: f"{count} x {text!r} not in the log\n{self.log_tail()}")

    def tracebacks(self) -> list[str]:
        """Every traceback in the log, each with the line that announced it."""
        if not self.log.exists():
            return []
        lines = self.log.read_text(errors="replace").splitlines()
        found = []
        for i, line in enumerate(lines):
            if line.startswith(TRACEBACK):
                end = i + 1
                while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end][:4].isdigit()):
                    end += 1
                found.append("\n".join(lines[max(i - 1, 0) : end]))
        return found

    def stop(self) -> int | None:
        """SIGTERM, as an operator stops it; returns the exit code (0 when it stopped cleanly)."""
        if self.proc is None:
            return None
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=scaled(10))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.proc = None
        return code

    def kill(self) -> int | None:
        """SIGKILL: no clean-up at all, as a power cut or the OOM killer would end it."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        code = self.proc.wait()
        self.proc = None
        return code

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def handled(db: Engine, raw: bytes, daemon: DaemonProcess) -> InboundMessage:
    """The inbound row of the mail `raw`, once the daemon has recorded it (its own signal that
    the mail was handled, with everything it queued in the same transaction)."""
    message_id = parse(raw)["Message-ID"]

    def probe() -> InboundMessage | None:
        with Session(db) as session:
            return session.exec(select(InboundMessage).where(InboundMessage.message_id == message_id)).first()

    return wait_until(probe, 30, lambda: f"the daemon never recorded {message_id}\n{daemon.log_tail()}")
