"""Settings: one TOML file, secrets from the environment or a file, never inline.

With no file at all pbem runs as a sandbox (see `Settings.sandbox`), which is what the
README's first command starts.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from pbem.mail.imap import ImapSettings
from pbem.mail.smtp import SmtpSettings


def default_home() -> Path:
    """Where the sandbox keeps its database and mailboxes: $PBEM_HOME or ~/.local/share/pbem."""
    return Path(os.environ.get("PBEM_HOME") or Path.home() / ".local" / "share" / "pbem")

SANDBOX_ADDRESS = "pbem@sandbox.test"


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the key."""


@dataclass(frozen=True)
class Settings:
    """Everything the daemon needs; `imap`/`smtp` are None in the sandbox."""

    address: str = SANDBOX_ADDRESS
    name: str = "pbem"
    database_url: str = ""
    home: Path = field(default_factory=default_home)
    imap: ImapSettings | None = None
    smtp: SmtpSettings | None = None
    sandbox_port: int = 2525
    outbox_interval: float = 2.0
    outbox_lease: float = 120.0  # seconds a daemon holds the mails it is sending
    smtp_connections: int = 4  # mails sent side by side, each connection reused for many
    max_attempts: int = 12
    retry_base: float = 30.0
    max_error_replies_per_day: int = 10  # per address; beyond it, silence (trust.py)
    max_replies_per_day: int = 100  # every reply to one address in a day (trust.allowance)
    max_replies_per_thread: int = 40  # every reply in one thread in a day: a looping responder stops
    max_message_bytes: int = 256 * 1024  # a bigger mail gets one short error
    trusted_authserv_id: str = ""  # a receiving server whose `dmarc=pass` proves the sender
    default_days: int = 7  # time per move when a challenge does not say days=
    reminders: tuple[float, ...] = (48.0, 24.0)  # hours before the deadline
    clock_interval: float = 60.0  # seconds between clock rounds (reminders, forfeits)
    vacation_days_per_year: int = 30
    retention_days: int = 90
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def sandbox(self) -> bool:
        return self.imap is None

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{self.home / 'pbem.sqlite3'}"

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2]

    @property
    def local_part(self) -> str:
        return self.address.rpartition("@")[0]

    def plus_address(self, detail: str) -> str:
        """The Reply-To address that carries a player's token back to us."""
        return f"{self.local_part}+{detail}@{self.domain}"


def _secret(section: dict[str, Any], key: str, where: str) -> str | None:
    """A password from `KEY_env` (an environment variable) or `KEY_file`, never `KEY` itself."""
    if key in section:
        raise ConfigError(f"[{where}] {key} must not be written inline; use {key}_env or {key}_file.")
    if f"{key}_env" in section:
        name = section[f"{key}_env"]
        if name not in os.environ:
            raise ConfigError(f"[{where}] {key}_env names ${name}, which is not set.")
        return os.environ[name]
    if f"{key}_file" in section:
        return Path(section[f"{key}_file"]).read_text(encoding="utf-8").strip()
    return None


def _section(cls: type, data: dict[str, Any], where: str) -> Any:
    known = {f.name for f in fields(cls)} - {"password"}
    args = {k: v for k, v in data.items() if k in known}
    unknown = set(data) - known - {"password_env", "password_file", "password"}
    if unknown:
        raise ConfigError(f"[{where}] has unknown keys: {', '.join(sorted(unknown))}.")
    password = _secret(data, "password", where)
    if password is not None:
        args["password"] = password
    try:
        return cls(**args)
    except TypeError as exc:
        raise ConfigError(f"[{where}] is incomplete: {exc}") from None


def load(path: str | Path | None) -> Settings:
    """Settings from a TOML file, or the sandbox defaults when `path` is None."""
    base = Settings()
    if path is None:
        return base
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    server = data.pop("server", {})
    imap = _section(ImapSettings, data.pop("imap"), "imap") if "imap" in data else None
    smtp = _section(SmtpSettings, data.pop("smtp"), "smtp") if "smtp" in data else None
    if (imap is None) != (smtp is None):
        raise ConfigError("give both [imap] and [smtp], or neither (sandbox).")
    allowed = {f.name for f in fields(Settings)} - {"imap", "smtp", "extra"}
    unknown = set(server) - allowed
    if unknown:
        raise ConfigError(f"[server] has unknown keys: {', '.join(sorted(unknown))}.")
    if "home" in server:
        server["home"] = Path(server["home"])
    return replace(base, imap=imap, smtp=smtp, extra=data, **server)
