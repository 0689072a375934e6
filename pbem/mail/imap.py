"""The production mailbox: an IMAP folder read with imap-tools, marked processed after the commit.

Traps this module avoids (see the project's mail notes): Dovecot announces MOVE and UIDPLUS only
after login, so capabilities are re-read then; a long-lived session does not see new mail until
the next command, so every sweep starts with NOOP; messages are read with BODY.PEEK[] so fetching
never sets \\Seen; and nothing here ever sends a mailbox-wide EXPUNGE, which would also remove
messages that other clients merely marked \\Deleted.
"""

from __future__ import annotations

import contextlib
import imaplib
import logging
import re
import select
import ssl
import threading
import time
from dataclasses import KW_ONLY, dataclass, field
from typing import Literal

from imap_tools import BaseMailBox, MailBox, MailBoxStartTls, MailBoxUnencrypted
from imap_tools.errors import ImapToolsError, MailboxLoginError
from imap_tools.utils import encode_folder

from pbem.mail.source import RawMail

log = logging.getLogger(__name__)

imaplib.Commands.setdefault("IDLE", ("AUTH", "SELECTED"))

DONE_KEYWORD = "$PbemDone"
"""Keyword that marks a message processed when there is no processed folder to move it to."""

IDLE_REISSUE = 240.0
"""Seconds after which IDLE is renewed: servers and middleboxes drop connections idle for longer."""

_FETCH_CHUNK = 20
_UID_IN_FETCH = re.compile(rb"\bUID (\d+)", re.IGNORECASE)
_CONNECTION_ERRORS = (OSError, EOFError, imaplib.IMAP4.error, ImapToolsError)

Security = Literal["tls", "starttls", "none"]


class MailboxUnavailable(Exception):
    """The mailbox cannot be reached right now; log it and try again later."""


class MailboxLoginFailed(MailboxUnavailable):
    """The server answered but refused the username or password: a configuration problem."""


@dataclass(frozen=True)
class ImapSettings:
    """Where the game's mailbox lives. Everything but the host is a keyword argument."""

    host: str
    _: KW_ONLY
    port: int = 993
    username: str
    password: str = field(repr=False)
    security: Security = "tls"
    folder: str = "INBOX"
    processed_folder: str | None = "Processed"
    idle: bool = True
    poll_interval: float = 60.0
    timeout: float = 30.0

    def __post_init__(self) -> None:
        if self.security not in ("tls", "starttls", "none"):
            raise ValueError(f"IMAP security must be 'tls', 'starttls' or 'none', not {self.security!r}")
        if self.security == "starttls" and self.port == 993:
            raise ValueError("port 993 speaks TLS from the start: use security='tls' (or port 143)")
        if self.processed_folder == self.folder:
            raise ValueError("the processed folder must differ from the folder that is read")
        if self.poll_interval <= 0 or self.timeout <= 0:
            raise ValueError("poll_interval and timeout must be positive")


class ImapSource:
    """A `MailSource` over one IMAP folder; meant for one consumer thread.

    The connection is opened on first use. After any connection or protocol error it is dropped
    and re-opened on a later call, no sooner than an exponential backoff allows (1 s doubling to
    60 s by default, reset after a successful operation). While the mailbox is unreachable,
    `fetch` and `done` raise `MailboxUnavailable`; `wait` never raises.
    """

    def __init__(
        self,
        settings: ImapSettings,
        *,
        backoff_initial: float = 1.0,
        backoff_max: float = 60.0,
        done_keyword: str = DONE_KEYWORD,
    ) -> None:
        self.settings = settings
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self._keyword = done_keyword
        self._lock = threading.RLock()
        self._closing = threading.Event()
        self._mailbox: BaseMailBox | None = None
        self._capabilities: frozenset[str] = frozenset()
        self._uidvalidity: int | None = None
        self._processed_checked = False
        self._delay = 0.0
        self._retry_at = 0.0
        self._last_error = ""
        self._last_uid = 0
        self._issued: dict[str, int | None] = {}

    # -- MailSource -------------------------------------------------------------------------------

    def fetch(self, limit: int = 100) -> list[RawMail]:
        """Unprocessed messages of the folder, oldest (lowest UID) first, at most `limit`."""
        if limit <= 0:
            return []
        with self._lock:
            mailbox = self._connected()
            try:
                self._ok(mailbox.client.noop(), "NOOP")
                uids = self._search(mailbox, "ALL")[:limit]
                mails = self._fetch_raw(mailbox, uids)
            except _CONNECTION_ERRORS as exc:
                raise self._lost(exc) from exc
            self._succeeded()
            for mail in mails:
                self._issued[mail.key] = self._uidvalidity
            if uids:
                self._last_uid = max(self._last_uid, uids[-1])
            return mails

    def done(self, key: str) -> None:
        """Move the message to the processed folder (UID MOVE), or flag it when there is none."""
        self.done_all([key])

    def done_all(self, keys: list[str]) -> None:
        """Mark a batch processed with one command (`UID MOVE 4,7,9`)."""
        for key in keys:
            if not key.isdigit() or int(key) == 0:
                raise ValueError(f"not an IMAP UID: {key!r}")
        with self._lock:
            mailbox = self._connected()
            current = []
            for key in keys:
                if self._issued.get(key, self._uidvalidity) == self._uidvalidity:
                    current.append(key)
                else:
                    # The folder was recreated: this UID may now name another message. Leave it; the
                    # message is fetched again and the store recognises it by its message key.
                    log.warning("IMAP UIDVALIDITY changed; not marking stale UID %s as done", key)
                    del self._issued[key]
            if not current:
                return
            try:
                self._mark_done(mailbox, ",".join(current))
            except _CONNECTION_ERRORS as exc:
                raise self._lost(exc) from exc
            for key in current:
                self._issued.pop(key, None)
            self._succeeded()

    def wait(self, timeout: float) -> None:
        """Return when new mail may have arrived (IDLE), or after min(timeout, poll_interval)."""
        deadline = time.monotonic() + max(timeout, 0.0)
        until = min(deadline, time.monotonic() + self.settings.poll_interval)
        with self._lock:
            if self._mailbox is None and time.monotonic() >= self._retry_at:
                try:
                    self._connected()
                except MailboxUnavailable as exc:
                    log.warning("%s", exc)
            if self._mailbox is None:
                # Sleep until the next connection attempt is allowed; the caller's fetch makes it.
                until = min(deadline, max(self._retry_at, time.monotonic() + 0.05))
            elif self.settings.idle and "IDLE" in self._capabilities:
                try:
                    self._idle_until(self._mailbox, deadline)
                except _CONNECTION_ERRORS as exc:
                    log.warning("%s", self._lost(exc))
                return
        self._closing.wait(max(until - time.monotonic(), 0.0))

    def close(self) -> None:
        """Log out and drop the connection; a later call connects again."""
        self._closing.set()
        try:
            with self._lock:
                mailbox, self._mailbox = self._mailbox, None
                if mailbox is not None:
                    try:
                        mailbox.logout()
                    except Exception:  # the connection is being discarded anyway
                        _shutdown(mailbox)
        finally:
            self._closing.clear()

    def __enter__(self) -> ImapSource:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- connection -------------------------------------------------------------------------------

    def _connected(self) -> BaseMailBox:
        if self._mailbox is not None:
            return self._mailbox
        now = time.monotonic()
        if now < self._retry_at:
            raise MailboxUnavailable(
                f"{self._where()} is unavailable ({self._last_error}); "
                f"next attempt in {self._retry_at - now:.0f} s"
            )
        s = self.settings
        try:
            mailbox = self._open()
        except _CONNECTION_ERRORS as exc:
            raise self._lost(exc) from exc
        try:
            mailbox.login(s.username, s.password, initial_folder=None)
            # Dovecot lists MOVE and UIDPLUS only after login; imap-tools cached the earlier list.
            typ, data = mailbox.client.capability()
            self._ok((typ, data), "CAPABILITY")
            words = b" ".join(d for d in data if isinstance(d, bytes)).decode("ascii", "replace")
            self._capabilities = frozenset(words.upper().split())
            mailbox.client.capabilities = tuple(sorted(self._capabilities))
            self._ok(mailbox.client.select(encode_folder(s.folder)), f"SELECT {s.folder}")
            validity = mailbox.client.untagged_responses.get("UIDVALIDITY", [b""])[-1]
        except MailboxLoginError as exc:
            _shutdown(mailbox)
            self._schedule_retry(f"login refused: {_reply_text(exc)}")
            raise MailboxLoginFailed(
                f"{self._where()} refused the login of {s.username!r}: {_reply_text(exc)}; "
                "check the IMAP username and password"
            ) from exc
        except _CONNECTION_ERRORS as exc:
            _shutdown(mailbox)
            raise self._lost(exc) from exc
        uidvalidity = int(validity) if validity.isdigit() else None
        if self._uidvalidity is not None and uidvalidity != self._uidvalidity:
            log.warning("IMAP folder %s was recreated (UIDVALIDITY changed)", s.folder)
            self._last_uid = 0
        self._uidvalidity = uidvalidity
        self._mailbox = mailbox
        self._processed_checked = False
        return mailbox

    def _open(self) -> BaseMailBox:
        s = self.settings
        if s.security == "tls":
            return MailBox(s.host, s.port, timeout=s.timeout, ssl_context=ssl.create_default_context())
        if s.security == "starttls":
            return MailBoxStartTls(s.host, s.port, timeout=s.timeout, ssl_context=ssl.create_default_context())
        return MailBoxUnencrypted(s.host, s.port, timeout=s.timeout)

    def _lost(self, exc: BaseException) -> MailboxUnavailable:
        """Drop the connection after an error and say when the next attempt will be made."""
        mailbox, self._mailbox = self._mailbox, None
        if mailbox is not None:
            _shutdown(mailbox)
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        delay = self._schedule_retry(detail)
        return MailboxUnavailable(f"{self._where()} is unavailable ({detail}); next attempt in {delay:.0f} s")

    def _schedule_retry(self, detail: str) -> float:
        self._delay = min(max(self._delay * 2, self._backoff_initial), self._backoff_max)
        self._retry_at = time.monotonic() + self._delay
        self._last_error = detail
        return self._delay

    def _succeeded(self) -> None:
        self._delay = 0.0
        self._retry_at = 0.0

    def _where(self) -> str:
        return f"IMAP mailbox {self.settings.username}@{self.settings.host}:{self.settings.port}"

    # -- commands ---------------------------------------------------------------------------------

    def _search(self, mailbox: BaseMailBox, criteria: str) -> list[int]:
        typ, data = mailbox.client.uid("SEARCH", criteria, "UNDELETED", "UNKEYWORD", self._keyword)
        self._ok((typ, data), "UID SEARCH")
        words = b" ".join(d for d in data if isinstance(d, bytes)).split()
        return sorted({int(w) for w in words if w.isdigit()})

    def _fetch_raw(self, mailbox: BaseMailBox, uids: list[int]) -> list[RawMail]:
        found: dict[int, bytes] = {}
        for start in range(0, len(uids), _FETCH_CHUNK):
            chunk = uids[start : start + _FETCH_CHUNK]
            typ, data = mailbox.client.uid("FETCH", ",".join(map(str, chunk)), "(UID BODY.PEEK[])")
            self._ok((typ, data), "UID FETCH")
            found.update(_parse_fetch(data))
        return [RawMail(key=str(uid), data=found[uid]) for uid in uids if uid in found]

    def _mark_done(self, mailbox: BaseMailBox, uids: str) -> None:
        """Move or flag `uids`, one UID or a set like `4,7,9`."""
        client = mailbox.client
        target = self.settings.processed_folder
        if target is None:
            self._ok(client.uid("STORE", uids, "+FLAGS.SILENT", f"({self._keyword})"), "UID STORE")
            return
        self._ensure_processed_folder(mailbox)
        folder = encode_folder(target)
        if "MOVE" in self._capabilities:
            result = client.uid("MOVE", uids, folder)
            if _expunged_elsewhere(result):
                if "," in uids:  # another daemon took some of the batch: move the rest one by one
                    for uid in uids.split(","):
                        self._mark_done(mailbox, uid)
                return  # another daemon on this mailbox moved it first: done all the same
            self._ok(result, f"UID MOVE to {target}")
        elif "UIDPLUS" in self._capabilities:
            self._ok(client.uid("COPY", uids, folder), f"UID COPY to {target}")
            self._ok(client.uid("STORE", uids, "+FLAGS.SILENT", r"(\Deleted)"), "UID STORE")
            self._ok(client.uid("EXPUNGE", uids), "UID EXPUNGE")
        else:
            # Without UIDPLUS only a mailbox-wide EXPUNGE could remove it: keep it, flagged.
            self._ok(client.uid("COPY", uids, folder), f"UID COPY to {target}")
            self._ok(client.uid("STORE", uids, "+FLAGS.SILENT", f"({self._keyword})"), "UID STORE")

    def _ensure_processed_folder(self, mailbox: BaseMailBox) -> None:
        if self._processed_checked:
            return
        target = self.settings.processed_folder
        assert target is not None
        if not mailbox.folder.exists(target):
            log.info("creating IMAP folder %s", target)
            mailbox.folder.create(target)
        self._processed_checked = True

    def _has_new_mail(self, mailbox: BaseMailBox) -> bool:
        """True if an unprocessed message arrived after the newest one `fetch` returned."""
        self._ok(mailbox.client.noop(), "NOOP")
        # `UID n:*` also matches the highest UID when that is below n: compare in code.
        return any(uid > self._last_uid for uid in self._search(mailbox, f"UID {self._last_uid + 1}:*"))

    def _idle_until(self, mailbox: BaseMailBox, deadline: float) -> None:
        while not self._closing.is_set():
            if self._has_new_mail(mailbox):
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            if self._idle_once(mailbox.client, min(remaining, IDLE_REISSUE)):
                return

    def _idle_once(self, client: imaplib.IMAP4, seconds: float) -> bool:
        """One IDLE command; ends at the first server line or after `seconds`. True on new mail.

        Any other line (a keepalive, an EXPUNGE) also ends it, so the caller re-checks with a
        search: that way a notice that arrived together with another line is never missed.
        """
        for name in ("EXISTS", "RECENT"):
            client.untagged_responses.pop(name, None)
        tag = client._command("IDLE")
        while client._get_response() is not None:  # None marks the "+ idling" continuation
            if client.tagged_commands.get(tag):
                result = client.tagged_commands.pop(tag)
                raise imaplib.IMAP4.error(f"IDLE refused: {result!r}")
        end = time.monotonic() + seconds
        while not _new_mail_announced(client) and not self._closing.is_set():
            left = end - time.monotonic()
            if left <= 0:
                break
            if _readable(client, min(left, 1.0)):
                client._get_response()
                break
        client.send(b"DONE\r\n")
        while not client.tagged_commands.get(tag):
            client._get_response()
        self._ok(client.tagged_commands.pop(tag), "IDLE")
        return _new_mail_announced(client)

    @staticmethod
    def _ok(result: tuple, what: str) -> None:
        typ, data = result[0], result[1]
        if typ != "OK":
            raise imaplib.IMAP4.error(f"{what} failed: {typ} {_reply_text(data)}")


def _expunged_elsewhere(result: tuple) -> bool:
    """A NO [EXPUNGEISSUED] answer: the message was removed by another session (RFC 5530)."""
    return result[0] == "NO" and "EXPUNGEISSUED" in _reply_text(result[1]).upper()


def _parse_fetch(data: list) -> dict[int, bytes]:
    """UID -> message bytes from an imaplib FETCH answer (the UID may follow the literal)."""
    found: dict[int, bytes] = {}
    pending: bytes | None = None
    for item in data:
        if isinstance(item, tuple):
            head, body = item[0], item[1]
            match = _UID_IN_FETCH.search(head)
            if match:
                found[int(match.group(1))] = body
                pending = None
            else:
                pending = body
        elif isinstance(item, bytes) and pending is not None:
            match = _UID_IN_FETCH.search(item)
            if match:
                found[int(match.group(1))] = pending
            pending = None
    return found


def _new_mail_announced(client: imaplib.IMAP4) -> bool:
    return "EXISTS" in client.untagged_responses or "RECENT" in client.untagged_responses


def _readable(client: imaplib.IMAP4, seconds: float) -> bool:
    sock = client.sock
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return True
    ready, _, _ = select.select([sock], [], [], seconds)
    return bool(ready)


def _shutdown(mailbox: BaseMailBox) -> None:
    with contextlib.suppress(Exception):  # best effort: the connection is considered dead
        mailbox.client.shutdown()


def _reply_text(value: object) -> str:
    if isinstance(value, MailboxLoginError):
        value = value.command_result[1]
    if isinstance(value, list | tuple):
        return " ".join(_reply_text(v) for v in value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)
