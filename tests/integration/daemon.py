"""The real daemon as a subprocess, configured against the real mail rig."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.mailrig import MailRig


class DaemonProcess:
    """`pbem serve` with a config file that points at the rig's IMAP and SMTP servers."""

    def __init__(self, rig: MailRig, home: Path) -> None:
        self.rig = rig
        self.home = home
        self.config = home / "pbem.toml"
        self.log = home / "daemon.log"
        self.proc: subprocess.Popen | None = None
        home.mkdir(parents=True, exist_ok=True)
        self.config.write_text(
            f"""[server]
address = "game@{rig.domain}"
home = "{home}"
outbox_interval = 0.5

[imap]
host = "127.0.0.1"
port = {rig.imap_port}
username = "game"
password_env = "PBEM_TEST_IMAP_PASSWORD"
security = "none"
poll_interval = 1.0

[smtp]
host = "127.0.0.1"
port = {rig.smtp_port}
security = "none"
""",
            encoding="utf-8",
        )

    @property
    def database(self) -> str:
        return f"sqlite:///{self.home / 'pbem.sqlite3'}"

    def start(self) -> None:
        env = {**os.environ, "PBEM_TEST_IMAP_PASSWORD": self.rig.users["game"], "PYTHONUNBUFFERED": "1"}
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "pbem.cli", "-v", "-c", str(self.config), "serve"],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.proc = None
        return code

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
