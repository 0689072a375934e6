"""Settings: one TOML file, secrets from the environment or a file, never inline.

With no file at all pbem runs as a sandbox (see `Settings.sandbox`), which is what the
README's first command starts. Every section is a pydantic model with types, ranges and no
unknown keys, so a wrong setting stops the program at start with one message that names the
setting, the value and what is allowed, instead of failing later (or never) while it runs.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SkipValidation,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.dataclasses import dataclass

from pbem.mail.message.headers import ascii_address
from pbem.mail.message.signing import DEFAULT_HEADERS, ED25519, RSA, DkimSigner, read_key
from pbem.mail.transport.imap import ImapSettings
from pbem.mail.transport.oauth import MICROSOFT_SCOPE, TOKEN_URLS, TokenSource
from pbem.mail.transport.smtp import SmtpSettings


def default_home() -> Path:
    """Where the sandbox keeps its database and mailboxes: $PBEM_HOME or ~/.local/share/pbem."""
    return Path(os.environ.get("PBEM_HOME") or Path.home() / ".local" / "share" / "pbem")


SANDBOX_ADDRESS = "pbem@sandbox.test"
SECTIONS = ("server", "imap", "smtp", "web")


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the key, the value and what is allowed."""


def _allowed(text: str, default: Any = ..., **constraints: Any) -> Any:
    """A field whose `description` says, in words, what the setting accepts (used in errors)."""
    if "default_factory" in constraints:
        return Field(description=text, **constraints)
    return Field(default, description=text, **constraints)


# Strict: "2.0" or "fast" is no number; a whole number is (TOML writes `outbox_interval = 2`).
Seconds = Annotated[float, Field(allow_inf_nan=False)]
Hours = Annotated[float, Field(gt=0, le=30 * 24, allow_inf_nan=False)]
Port = Annotated[int, Field(ge=1, le=65535)]
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DNS_NAME = rf"^{_LABEL}(?:\.{_LABEL})*$"
_STRICT = ConfigDict(extra="forbid", strict=True, arbitrary_types_allowed=True)


class WebSettings(BaseModel):
    """[web]: the read-only web pages (pbem.web). Off unless `enabled`; the sandbox turns them
    on at 127.0.0.1. `base_url` is the address players reach them at: when it is set, every
    mail about a game carries the link to the game's page (and an https one-click unsubscribe)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    enabled: bool = _allowed("true or false", False)
    host: str = _allowed("the address the pages listen on, e.g. 127.0.0.1", "127.0.0.1", min_length=1,
                         pattern=r"^[^\s/]+$")
    port: Annotated[int, Field(ge=0, le=65535)] = _allowed("a TCP port from 1 to 65535 (0: any free port)", 8025)
    base_url: str | None = _allowed("an http:// or https:// URL with no query, e.g. https://games.example.org",
                                    None, pattern=r"^https?://[^\s?#]+$")
    requests_per_minute: int = _allowed("a whole number from 1 to 100000", 120, ge=1, le=100000)  # per client
    trusted_proxy: bool = _allowed("true or false (the client address is X-Forwarded-For's last)", False)

    @field_validator("base_url")
    @classmethod
    def _no_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value is not None else None


@dataclass(frozen=True, config=_STRICT)
class Settings:
    """Everything the daemon needs; `imap`/`smtp` are None in the sandbox.

    The fields are the [server] table of the file (`imap` and `smtp` come from their own
    tables). Built in code (tests, benchmarks), the same checks apply."""

    address: str = _allowed("an email address, local@domain", SANDBOX_ADDRESS, pattern=r"^[^@\s]+@[^@\s]+$")
    name: str = _allowed("a display name of one line", "pbem", min_length=1, pattern=r"^[^\r\n]*$")
    database_url: str = _allowed("a database URL (sqlite:///FILE or postgresql://...), or empty", "")
    home: Annotated[Path, Field(strict=False)] = _allowed("a directory path", default_factory=default_home)
    imap: SkipValidation[ImapSettings | None] = None
    smtp: SkipValidation[SmtpSettings | None] = None
    web: SkipValidation[WebSettings | None] = None  # the [web] table; None: the default (see `web_settings`)
    sandbox_port: Port = _allowed("a TCP port from 1 to 65535", 2525)
    outbox_interval: Seconds = _allowed("seconds above 0, at most 3600", 2.0, gt=0, le=3600)
    outbox_lease: Seconds = _allowed("seconds above 0, at most 86400", 120.0, gt=0, le=86400)
    smtp_connections: int = _allowed("a whole number from 1 to 100", 4, ge=1, le=100)
    max_attempts: int = _allowed("a whole number from 1 to 100", 12, ge=1, le=100)
    retry_base: Seconds = _allowed("seconds above 0, at most 86400", 30.0, gt=0, le=86400)
    max_error_replies_per_day: int = _allowed("a whole number, 0 or more", 10, ge=0)  # trust.py
    max_replies_per_day: int = _allowed("a whole number, at least 1", 100, ge=1)  # every reply, per address
    max_replies_per_thread: int = _allowed("a whole number, at least 1", 40, ge=1)  # every reply, per thread
    # answers to mails without proof of receipt, per address and day: a newcomer is answered, a
    # forger draws no more than this (the last one says how to go on: reply to any of our mails)
    max_unproven_replies_per_day: int = _allowed("a whole number from 1 to 20", 3, ge=1, le=20)
    # `say`: the longest relayed message (characters) and how many a player may relay a day
    say_max_chars: int = _allowed("a whole number of characters from 1 to 2000", 1000, ge=1, le=2000)
    say_max_per_day: int = _allowed("a whole number, 0 or more", 20, ge=0, le=1000)
    # caps on what a proven player can make us send to others (pbem.trust.proof), per day (UTC)
    max_invitations_per_day: int = _allowed("a whole number from 0 to 100", 3, ge=0, le=100)  # to addresses that never wrote
    max_ladder_challenges_per_pair_per_day: int = _allowed("a whole number from 1 to 100", 1, ge=1, le=100)
    max_relays_per_pair_per_day: int = _allowed("a whole number from 1 to 1000", 10, ge=1, le=1000)  # `say`
    max_takebacks_per_game_per_day: int = _allowed("a whole number from 0 to 100", 3, ge=0, le=100)  # asked, per player
    max_message_bytes: int = _allowed("a whole number of bytes, at least 1024", 256 * 1024, ge=1024)
    # a mail of ours that bounced for good (5.x.x) counts; at this many the address gets no more mail,
    # its games' clocks pause, until its player writes again (pbem.letters.bounces)
    max_hard_bounces: int = _allowed("a whole number from 1 to 100", 3, ge=1, le=100)
    trusted_authserv_id: str = _allowed("the authserv-id of your receiving server, or empty", "")
    default_days: int = _allowed("whole days from 1 to 30", 7, ge=1, le=30)
    reminders: Annotated[tuple[Hours, ...], Field(strict=False, max_length=10)] = _allowed(
        "a list of hours before the deadline, each above 0 and at most 720, e.g. [48, 24]", (48.0, 24.0)
    )
    clock_interval: Seconds = _allowed("seconds above 0, at most 86400", 60.0, gt=0, le=86400)
    # conditional moves (`if X then Y ...`): the most lines a player keeps in one game, the most pairs in one
    max_conditional_lines: int = _allowed("a whole number from 1 to 100", 10, ge=1, le=100)
    max_conditional_chain: int = _allowed("a whole number from 1 to 50", 5, ge=1, le=50)
    # bots as players (pbem.games.bots, pbem.runners.bots): whether they play, and how long one may think
    bots: bool = _allowed("true or false", True)
    bot_seconds: Seconds = _allowed("seconds above 0, at most 600", 5.0, gt=0, le=600)
    vacation_days_per_year: int = _allowed("whole days from 0 to 366", 30, ge=0, le=366)
    retention_days: int = _allowed("whole days, 1 or more", 90, ge=1)  # sent mail and inbound records
    metrics_port: Port | None = _allowed("a TCP port from 1 to 65535 (leave it out: no /metrics)", None)
    metrics_host: str = _allowed("the address /metrics listens on, e.g. 127.0.0.1", "127.0.0.1", min_length=1,
                                 pattern=r"^[^\s/]+$")
    # `pbem admin status`: a heartbeat (written every few seconds) older than this is "degraded"
    stale_after: Seconds = _allowed("seconds from 30 to 86400", 600.0, ge=30, le=86400)
    templates_dir: Annotated[Path, Field(strict=False)] | None = _allowed(
        "an existing directory of mail templates (leave it out: the packaged ones)", None
    )
    # DKIM (pbem.mail.message.signing), for a server that sends directly: off unless both dkim_selector
    # and dkim_key_file are given; then every mail is signed once, as it is queued
    dkim_selector: str | None = _allowed('a DNS label such as "pbem1", with dkim_key_file', None, pattern=_DNS_NAME)
    dkim_domain: str | None = _allowed(
        "a domain name in ASCII, e.g. example.org (leave it out: the address's domain)", None, pattern=_DNS_NAME
    )
    dkim_headers: Annotated[tuple[str, ...], Field(strict=False, min_length=1, max_length=40)] = _allowed(
        'a list of header names that holds "From"', DEFAULT_HEADERS
    )
    dkim_key_file: Annotated[Path, Field(strict=False)] | None = _allowed(
        "a file with an RSA private key of at least 1024 bits (openssl genrsa) or an Ed25519 one "
        "(openssl genpkey -algorithm ed25519), with dkim_selector",
        None, validate_default=True,
    )
    # RFC 8463 advises signing with Ed25519 beside RSA (not every verifier knows Ed25519 yet):
    # a second signature of every mail, with a key of its own published under a selector of its own
    dkim_ed25519_selector: str | None = _allowed(
        'a DNS label other than dkim_selector, such as "pbem1e", with dkim_ed25519_key_file', None, pattern=_DNS_NAME
    )
    dkim_ed25519_key_file: Annotated[Path, Field(strict=False)] | None = _allowed(
        "a file with an Ed25519 private key (openssl genpkey -algorithm ed25519), with dkim_ed25519_selector "
        "and an RSA key in dkim_key_file",
        None, validate_default=True,
    )

    @field_validator("dkim_headers")
    @classmethod
    def _signable(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not all(re.fullmatch(r"[!-9;-~]+", name) for name in value):
            raise ValueError("not a header name")
        if "from" not in {name.lower() for name in value}:
            raise ValueError("From must be signed")
        return value

    @field_validator("dkim_key_file")
    @classmethod
    def _key_works(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        """A key that cannot sign stops the start here, with the reason, not every mail later."""
        selector = info.data.get("dkim_selector")
        if value is None:
            if selector is not None:
                raise ValueError("needed with dkim_selector")
            return None
        if "dkim_selector" in info.data and selector is None:
            raise ValueError("dkim_selector is missing")
        read_key(value)
        return value

    @field_validator("dkim_ed25519_key_file")
    @classmethod
    def _second_key_works(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        """The Ed25519 key of a double signature: an Ed25519 one, beside an RSA key."""
        selector = info.data.get("dkim_ed25519_selector")
        if value is None:
            if selector is not None:
                raise ValueError("needed with dkim_ed25519_selector")
            return None
        if "dkim_ed25519_selector" in info.data and selector is None:
            raise ValueError("dkim_ed25519_selector is missing")
        if "dkim_key_file" in info.data and info.data["dkim_key_file"] is None:
            raise ValueError("the second signature: give the RSA key in dkim_key_file (and dkim_selector)")
        if selector is not None and selector.lower() == (info.data.get("dkim_selector") or "").lower():
            raise ValueError("dkim_ed25519_selector must differ from dkim_selector: each key has its own")
        if read_key(value).algorithm != ED25519:
            raise ValueError("an RSA key; the second signature takes an Ed25519 one (or leave it out)")
        first = info.data.get("dkim_key_file")
        if first is not None and read_key(first).algorithm != RSA:
            raise ValueError("dkim_key_file holds an Ed25519 key too; give the RSA key there")
        return value

    def __post_init__(self) -> None:
        _ = self.dkim  # read the key now, at start: not at the first mail

    @cached_property
    def dkim(self) -> DkimSigner | None:
        """Who signs our mails, read once (None: they go unsigned, byte for byte as before)."""
        if self.dkim_key_file is None or self.dkim_selector is None:
            return None
        domain = self.dkim_domain or ascii_address("pbem@" + self.domain).partition("@")[2]
        second = None
        if self.dkim_ed25519_key_file is not None and self.dkim_ed25519_selector is not None:
            second = DkimSigner(self.dkim_ed25519_selector, domain, read_key(self.dkim_ed25519_key_file), self.dkim_headers)
        return DkimSigner(self.dkim_selector, domain, read_key(self.dkim_key_file), self.dkim_headers, second)

    @field_validator("templates_dir")
    @classmethod
    def _templates_exist(cls, value: Path | None) -> Path | None:
        if value is not None and not value.is_dir():
            raise ValueError("not a directory")
        return value

    @property
    def sandbox(self) -> bool:
        return self.imap is None

    @property
    def web_settings(self) -> WebSettings:
        """The [web] table in force: as written; else off, but on in the sandbox (127.0.0.1)."""
        if self.web is not None:
            return self.web
        return WebSettings(enabled=self.sandbox)

    @property
    def base_url(self) -> str | None:
        """The public address of the web pages that mails link to (None: mails carry no link)."""
        return self.web.base_url if self.web is not None else None

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


class _Section(BaseModel):
    """A mail server table: checked here, then built into the mail layer's own settings."""

    model_config = ConfigDict(extra="forbid", strict=True)

    host: str = _allowed("a host name or address", min_length=1)
    username: str | None = _allowed("the login name", None)
    password: str | None = Field(None, repr=False)
    timeout: Seconds = _allowed("seconds above 0, at most 600", 30.0, gt=0, le=600)
    # OAuth 2.0 (SASL XOAUTH2), for Gmail and Microsoft 365: a token from a command, or a refresh token
    auth: Literal["password", "oauth2"] = _allowed('"password" or "oauth2"', "password")
    token_command: str | None = _allowed("a command that prints an access token", None, min_length=1)
    oauth2_provider: Literal["google", "microsoft", "generic"] | None = _allowed(
        '"google", "microsoft" or "generic"', None)
    client_id: str | None = _allowed("the OAuth 2.0 client ID of your app registration", None, min_length=1)
    client_secret: str | None = Field(None, repr=False)
    refresh_token: str | None = Field(None, repr=False)
    token_url: str | None = _allowed("an https:// URL of a token endpoint", None, pattern=r"^https?://\S+$")
    scope: str | None = _allowed("space-separated OAuth 2.0 scopes", None, min_length=1)

    def token_source(self) -> TokenSource | None:
        """The OAuth 2.0 token source these settings ask for (None: auth by password)."""
        flow = {"token_command": self.token_command, "oauth2_provider": self.oauth2_provider,
                "client_id": self.client_id, "client_secret_env or client_secret_file": self.client_secret,
                "refresh_token_env or refresh_token_file": self.refresh_token, "token_url": self.token_url,
                "scope": self.scope}
        given = [key for key, value in flow.items() if value is not None]
        if self.auth == "password":
            if given:
                raise ValueError(f'{", ".join(given)}: only with auth = "oauth2"')
            return None
        if self.password is not None:
            raise ValueError('auth = "oauth2" takes no password: leave out password_env and password_file')
        if not self.username:
            raise ValueError('auth = "oauth2" needs username (the mailbox address the token is for)')
        if self.token_command is not None:
            if self.oauth2_provider is not None or len(given) > 1:
                raise ValueError(f"token_command comes alone, without {', '.join(k for k in given[1:])}")
            return TokenSource(command=self.token_command, timeout=self.timeout)
        if self.oauth2_provider is None:
            raise ValueError('auth = "oauth2" needs token_command, or oauth2_provider with a refresh token')
        if self.client_id is None:
            raise ValueError(f'oauth2_provider = "{self.oauth2_provider}" needs client_id')
        if self.refresh_token is None:
            raise ValueError(f'oauth2_provider = "{self.oauth2_provider}" needs refresh_token_env or refresh_token_file')
        url = self.token_url or TOKEN_URLS.get(self.oauth2_provider)
        if url is None:
            raise ValueError('oauth2_provider = "generic" needs token_url')
        scope = self.scope or (MICROSOFT_SCOPE if self.oauth2_provider == "microsoft" else None)
        return TokenSource(token_url=url, client_id=self.client_id, client_secret=self.client_secret,
                           refresh_token=self.refresh_token, scope=scope, provider=self.oauth2_provider,
                           timeout=self.timeout)


class ImapSection(_Section):
    """[imap]: where the game's mailbox lives."""

    port: Port = _allowed("a TCP port from 1 to 65535", 993)
    security: Literal["tls", "starttls", "none"] = _allowed('"tls", "starttls" or "none"', "tls")
    username: str = _allowed("the login name", min_length=1)
    folder: str = _allowed("a folder name", "INBOX", min_length=1)
    processed_folder: str | None = _allowed("a folder name, other than folder", "Processed", min_length=1)
    idle: bool = _allowed("true or false", True)
    poll_interval: Seconds = _allowed("seconds above 0, at most 3600", 60.0, gt=0, le=3600)
    # caps on what a proven player can make us send to others (pbem.trust.proof), per day (UTC)
    max_invitations_per_day: int = _allowed("a whole number from 0 to 100", 3, ge=0, le=100)  # to addresses that never wrote
    max_ladder_challenges_per_pair_per_day: int = _allowed("a whole number from 1 to 100", 1, ge=1, le=100)
    max_relays_per_pair_per_day: int = _allowed("a whole number from 1 to 1000", 10, ge=1, le=1000)  # `say`
    max_takebacks_per_game_per_day: int = _allowed("a whole number from 0 to 100", 3, ge=0, le=100)  # asked, per player
    max_message_bytes: int = _allowed("a whole number of bytes, at least 1024", 4 * 256 * 1024, ge=1024)

    def build(self) -> ImapSettings:
        source = self.token_source()
        if source is None and self.password is None:
            raise ValueError("needs password_env or password_file")
        return ImapSettings(self.host, oauth2=source, **_known(ImapSettings, self.model_dump(exclude={"host"})))


class SmtpSection(_Section):
    """[smtp]: the submission server that sends the game's mail."""

    port: Port = _allowed("a TCP port from 1 to 65535", 587)
    security: Literal["starttls", "tls", "none"] = _allowed('"starttls", "tls" or "none"', "starttls")

    def build(self) -> SmtpSettings:
        source = self.token_source()
        return SmtpSettings(self.host, oauth2=source, **_known(SmtpSettings, self.model_dump(exclude={"host"})))


def _known(cls: type, values: dict[str, Any]) -> dict[str, Any]:
    """The values the mail layer's settings class takes (a newer key it lacks keeps its default)."""
    names = {f.name for f in dataclasses.fields(cls)} - {"oauth2"}
    return {key: value for key, value in values.items() if key in names}


def _toml(value: Any) -> str:
    """A value as it would be written in the file, so the message shows what was read."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def _problems(exc: ValidationError, where: str, data: dict[str, Any], fields: dict[str, Any]) -> list[str]:
    """One line per wrong setting: `[server] default_days = 99: allowed: whole days from 1 to 30`."""
    lines = []
    for error in exc.errors():
        key = str(error["loc"][0]) if error["loc"] else ""
        if error["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
            secret = ("imap", "smtp", "web", "password", "client_secret", "refresh_token")
            known = ", ".join(name for name in fields if name not in secret)
            lines.append(f"[{where}] {key} is not a setting; [{where}] knows: {known}")
            continue
        if key in data:
            shown = f"{key} = {_toml(data[key])}"
        elif error["type"] == "missing":
            shown = f"{key} is missing"
        else:
            shown = key
        info = fields.get(key)
        allowed = getattr(info, "description", None) or error["msg"]
        reason = error.get("ctx", {}).get("error") if error["type"] == "value_error" else None
        lines.append(f"[{where}] {shown}: allowed: {allowed}" + (f" ({reason})" if reason else ""))
    return lines


def _secret(section: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    """The section with `KEY` read from `KEY_env` (an environment variable) or `KEY_file`.

    Writing `KEY` itself into the file is refused: files get copied, shown and committed."""
    section = dict(section)
    if key in section:
        raise ConfigError(f"[{where}] {key} must not be written inline; use {key}_env or {key}_file.")
    name, path = section.pop(f"{key}_env", None), section.pop(f"{key}_file", None)
    if name is not None and path is not None:
        raise ConfigError(f"[{where}] give {key}_env or {key}_file, not both.")
    if name is not None:
        if not isinstance(name, str) or name not in os.environ:
            raise ConfigError(f"[{where}] {key}_env = {_toml(name)}: allowed: a set environment variable.")
        section[key] = os.environ[name]
    elif path is not None:
        try:
            section[key] = Path(str(path)).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"[{where}] {key}_file = {_toml(path)}: cannot read it ({exc.strerror}).") from None
    return section


def _build(model: type[_Section], data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"[{where}] must be a table of settings, not {_toml(data)}.")
    for key in ("password", "client_secret", "refresh_token"):
        data = _secret(data, key, where)
    try:
        section = model(**data)
    except ValidationError as exc:
        raise ConfigError("\n".join(_problems(exc, where, data, model.model_fields))) from None
    try:
        return section.build()
    except ValueError as exc:  # the mail layer's own cross-checks (port and security, folders...)
        raise ConfigError(f"[{where}] {exc}.") from None


def _web(data: Any) -> WebSettings:
    if not isinstance(data, dict):
        raise ConfigError(f"[web] must be a table of settings, not {_toml(data)}.")
    try:
        return WebSettings(**data)
    except ValidationError as exc:
        raise ConfigError("\n".join(_problems(exc, "web", data, WebSettings.model_fields))) from None


def parse(data: dict[str, Any]) -> Settings:
    """Settings from the tables of a TOML document (raises ConfigError)."""
    stray = [key for key in data if key not in SECTIONS]
    if stray:
        tables = ", ".join(f"[{name}]" for name in SECTIONS)
        hint = " (settings go under [server])" if any(k in Settings.__pydantic_fields__ for k in stray) else ""
        raise ConfigError(f"unknown section or key: {', '.join(sorted(stray))}{hint}; the file has {tables}.")
    imap = _build(ImapSection, data["imap"], "imap") if "imap" in data else None
    smtp = _build(SmtpSection, data["smtp"], "smtp") if "smtp" in data else None
    if (imap is None) != (smtp is None):
        raise ConfigError("give both [imap] and [smtp], or neither (sandbox).")
    if imap is not None and imap.oauth2 is not None and smtp.oauth2 is not None and _same(imap.oauth2, smtp.oauth2):
        smtp = dataclasses.replace(smtp, oauth2=imap.oauth2)  # one token (and one refresh) serves both
    web = _web(data["web"]) if "web" in data else None
    server = data.get("server", {})
    if not isinstance(server, dict):
        raise ConfigError(f"[server] must be a table of settings, not {_toml(server)}.")
    for key in ("imap", "smtp"):
        if key in server:
            raise ConfigError(f"[server] {key} is not a setting; write an [{key}] table.")
    if "dkim_key" in server:  # a private key is a secret like a password: files get copied and shown
        raise ConfigError("[server] dkim_key must not be written inline; use dkim_key_file.")
    try:
        return Settings(imap=imap, smtp=smtp, web=web, **server)
    except ValidationError as exc:
        raise ConfigError("\n".join(_problems(exc, "server", server, Settings.__pydantic_fields__))) from None


def load(path: str | Path | None) -> Settings:
    """Settings from a TOML file, or the sandbox defaults when `path` is None."""
    if path is None:
        return Settings()
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    try:
        return parse(data)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def _same(one: TokenSource, other: TokenSource) -> bool:
    keys = ("command", "token_url", "client_id", "client_secret", "refresh_token", "scope")
    return all(getattr(one, key) == getattr(other, key) for key in keys)


def _oauth2(source: TokenSource | None) -> dict[str, Any]:
    """How a section logs in, as `effective()` shows it: secrets masked."""
    if source is None:
        return {"auth": "password"}
    if source.command is not None:
        return {"auth": "oauth2", "token_command": source.command}
    masked = "********"
    return {"auth": "oauth2", "oauth2_provider": source.provider, "client_id": source.client_id,
            "client_secret": masked if source.client_secret else None, "refresh_token": masked,
            "token_url": source.token_url, "scope": source.scope}


def _mask_url(url: str) -> str:
    """A database URL with any password in it replaced by ***."""
    return re.sub(r"(://[^/:@]*:)[^@/]*@", r"\1***@", url)


def effective(settings: Settings) -> dict[str, dict[str, Any]]:
    """The settings in force, table by table, with secrets masked (for `pbem config check`)."""
    server = {name: getattr(settings, name) for name in Settings.__pydantic_fields__
              if name not in ("imap", "smtp", "web")}
    server["database_url"] = _mask_url(settings.db_url)
    if settings.dkim is not None:
        server["dkim_domain"] = settings.dkim.domain
    tables: dict[str, dict[str, Any]] = {"server": server, "web": settings.web_settings.model_dump()}
    for name in ("imap", "smtp"):
        section = getattr(settings, name)
        if section is not None:
            values = {key: getattr(section, key) for key in vars(section) if not key.startswith("_")}
            if values.get("password") is not None:
                values["password"] = "********"
            values.update(_oauth2(values.pop("oauth2", None)))
            tables[name] = values
    return tables


def render(tables: dict[str, dict[str, Any]]) -> str:
    """`effective()` as TOML-like text; settings left unset show as comments."""
    lines: list[str] = []
    for table, values in tables.items():
        lines.append(f"[{table}]")
        for key, value in values.items():
            if value is None:
                lines.append(f"# {key} is not set")
            else:
                lines.append(f"{key} = {_toml(str(value) if isinstance(value, Path) else value)}")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
