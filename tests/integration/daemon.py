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

    def __init__(
        self, rig: MailRig, home: Path, database_url: str | None = None, extra_server: dict | None = None
    ) -> None:
        self.rig = rig
        self.home = home
        self.database_url = database_url
        self.config = home / "pbem.toml"
        self.log = home / "daemon.log"
        self.proc: subprocess.Popen | None = None
        home.mkdir(parents=True, exist_ok=True)
        self.config.write_text(
            f"""[server]
address = "game@{rig.domain}"
home = "{home}"
outbox_interval = 0.5
{f'database_url = "{database_url}"' if database_url else ""}
{"".join(f"{key} = {value!r}{chr(10)}" for key, value in (extra_server or {}).items())}

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
        return self.database_url or f"sqlite:///{self.home / 'pbem.sqlite3'}"

    @property
    def env(self) -> dict[str, str]:
        """The variables the daemon (and the CLI on its config) needs: the IMAP password."""
        return {"PBEM_TEST_IMAP_PASSWORD": self.rig.users["game"]}

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def start(self, env: dict[str, str] | None = None) -> None:
        """Start `pbem serve`; `env` adds variables (e.g. PBEM_CRASH_AT for the fault hook)."""
        env = {**os.environ, **self.env, "PYTHONUNBUFFERED": "1", **(env or {})}
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
