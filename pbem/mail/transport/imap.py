"""The production mailbox: an IMAP folder read with imap-tools, marked processed after the commit.

Traps this module avoids (see the project's mail notes): Dovecot announces MOVE and UIDPLUS only
after login, so capabilities are re-read then; a long-lived session does not see new mail until
the next command, so every sweep starts with NOOP; messages are read with BODY.PEEK[] so fetching
never sets \\Seen; and nothing here ever sends a mailbox-wide EXPUNGE, which would also remove
messages that other clients merely marked \\Deleted.
"""

from __future__ import annotations

import imaplib
import logging
import select
import ssl
import threading
import time
from dataclasses import KW_ONLY, dataclass, field
from typing import Literal

from imap_tools import BaseMailBox, MailBox, MailBoxStartTls, MailBoxUnencrypted
from imap_tools.errors import ImapToolsError, MailboxLoginError
from imap_tools.utils import encode_folder

from pbem.mail.message.source import RawMail, truncated_copy
from pbem.mail.transport.imap_answers import (
    expunged_elsewhere,
    parse_fetch,
    parse_key,
    parse_sizes,
    reply_text,
    uid_set,
)
from pbem.mail.transport.oauth import OAuthError, TokenSource, imap_xoauth2, require_xoauth2

_parse_fetch = parse_fetch  # the name the transport tests know

log = logging.getLogger(__name__)

imaplib.Commands.setdefault("IDLE", ("AUTH", "SELECTED"))

DONE_KEYWORD = "$PbemDone"
"""Keyword that marks a message processed when there is no processed folder to move it to."""

IDLE_REISSUE = 240.0
"""Seconds after which IDLE is renewed: servers and middleboxes drop connections idle for longer."""

_FETCH_CHUNK = 20
_BATCH_MESSAGES = 8  # one fetch holds at most this many times max_message_bytes (and one big mail)
_HEAD_BYTES = 64 * 1024  # of a big message: this much of its header ...
_START_BYTES = 16 * 1024  # ... and this much of its body, enough for any reply a person types
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
    password: str | None = field(default=None, repr=False)
    oauth2: TokenSource | None = field(default=None, repr=False, compare=False)
    """Log in with SASL XOAUTH2 and this source's access tokens instead of the password."""
    security: Security = "tls"
    folder: str = "INBOX"
    processed_folder: str | None = "Processed"
    idle: bool = True
    poll_interval: float = 60.0
    timeout: float = 30.0
    max_message_bytes: int = 4 * 256 * 1024
    """A bigger message is fetched alone and only in part: its header and its first bytes."""

    def __post_init__(self) -> None:
        if self.security not in ("tls", "starttls", "none"):
            raise ValueError(f"IMAP security must be 'tls', 'starttls' or 'none', not {self.security!r}")
        if self.security == "starttls" and self.port == 993:
            raise ValueError("port 993 speaks TLS from the start: use security='tls' (or port 143)")
        if self.processed_folder == self.folder:
            raise ValueError("the processed folder must differ from the folder that is read")
        if self.poll_interval <= 0 or self.timeout <= 0:
            raise ValueError("poll_interval and timeout must be positive")
        if (self.password is None) == (self.oauth2 is None):
            raise ValueError("give the IMAP password or an OAuth 2.0 token source, not both or neither")
        if self.max_message_bytes < 1024:
            raise ValueError(f"max_message_bytes must be at least 1024, not {self.max_message_bytes}")


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
        self._token: str | None = None  # the OAuth 2.0 access token of the last login, if any
        self._oauth_retried = False  # a refused token was followed by an immediate retry

    # -- MailSource -------------------------------------------------------------------------------

    def fetch(self, limit: int = 100) -> list[RawMail]:
        """Unprocessed messages of the folder, oldest (lowest UID) first, at most `limit`.

        Sizes are asked first (RFC822.SIZE), so memory stays bounded whatever arrives: one call
        holds at most a few times `max_message_bytes`, and a message bigger than that is fetched
        alone and only in part (see `source.truncated_copy`). Keys are `UIDVALIDITY:UID`."""
        if limit <= 0:
            return []
        with self._lock:
            mailbox = self._connected()
            try:
                self._ok(mailbox.client.noop(), "NOOP")
                uids = self._search(mailbox, "ALL")[:limit]
                mails, last = self._fetch_bounded(mailbox, uids)
            except _CONNECTION_ERRORS as exc:
                raise self._lost(exc) from exc
            self._succeeded()
            if last is not None:
                self._last_uid = max(self._last_uid, last)
            return mails

    def done(self, key: str) -> None:
        """Move the message to the processed folder (UID MOVE), or flag it when there is none."""
        self.done_all([key])

    def done_all(self, keys: list[str]) -> None:
        """Mark a batch processed with one command (`UID MOVE 4,7,9`).

        A key from before the folder was recreated (another UIDVALIDITY) is left alone: its UID
        may now name another message. The message is fetched again under its new key, and the
        store recognises it by its Message-ID."""
        parsed = [parse_key(key) for key in keys]
        with self._lock:
            mailbox = self._connected()
            current = []
            for key, (validity, uid) in zip(keys, parsed, strict=True):
                if validity is None or validity == self._uidvalidity:
                    current.append(str(uid))
                else:
                    log.warning("IMAP UIDVALIDITY changed; not marking stale message %s as done", key)
            if not current:
                return
            try:
                self._mark_done(mailbox, ",".join(current))
            except _CONNECTION_ERRORS as exc:
                raise self._lost(exc) from exc
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
                    except _CONNECTION_ERRORS as exc:  # the connection is being discarded anyway
                        log.debug("IMAP logout failed: %s", exc)
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
        self._token = None
        try:
            self._login(mailbox)
            # Dovecot lists MOVE and UIDPLUS only after login; imap-tools cached the earlier list.
            typ, data = mailbox.client.capability()
            self._ok((typ, data), "CAPABILITY")
            words = b" ".join(d for d in data if isinstance(d, bytes)).decode("ascii", "replace")
            self._capabilities = frozenset(words.upper().split())
            mailbox.client.capabilities = tuple(sorted(self._capabilities))
            self._ok(mailbox.client.select(encode_folder(s.folder)), f"SELECT {s.folder}")
            validity = mailbox.client.untagged_responses.get("UIDVALIDITY", [b""])[-1]
        except OAuthError as exc:
            _shutdown(mailbox)
            self._schedule_retry(f"no OAuth 2.0 access token: {exc}")
            raise MailboxLoginFailed(f"{self._where()}: no OAuth 2.0 access token: {exc}") from None
        except MailboxLoginError as exc:
            _shutdown(mailbox)
            self._schedule_retry(f"login refused: {reply_text(exc)}")
            if s.oauth2 is not None and self._token is not None:
                s.oauth2.invalidate(self._token)  # revoked or expired early: the next attempt fetches a fresh one
                if not self._oauth_retried:  # at once, the first time: a new token is a new chance
                    self._oauth_retried, self._retry_at = True, 0.0
                raise MailboxLoginFailed(
                    f"{self._where()} refused the OAuth 2.0 access token of {s.username!r} "
                    f"({reply_text(exc)}); a fresh token will be fetched for the next attempt"
                ) from exc
            what = "the IMAP host and auth" if s.oauth2 is not None else "the IMAP username and password"
            raise MailboxLoginFailed(
                f"{self._where()} refused the login of {s.username!r}: {reply_text(exc)}; check {what}"
            ) from exc
        except _CONNECTION_ERRORS as exc:
            _shutdown(mailbox)
            raise self._lost(exc) from exc
        self._oauth_retried = False
        uidvalidity = int(validity) if validity.isdigit() else None
        if self._uidvalidity is not None and uidvalidity != self._uidvalidity:
            log.warning("IMAP folder %s was recreated (UIDVALIDITY changed)", s.folder)
            self._last_uid = 0
        self._uidvalidity = uidvalidity
        self._mailbox = mailbox
        self._processed_checked = False
        return mailbox

    def _login(self, mailbox: BaseMailBox) -> None:
        """LOGIN with the password, or AUTHENTICATE XOAUTH2 with an access token."""
        s = self.settings
        if s.oauth2 is not None:
            require_xoauth2(mailbox)  # before a token is fetched: none can help a server without it
            self._token = s.oauth2.token()
            imap_xoauth2(mailbox, s.username, self._token)
        else:
            assert s.password is not None
            mailbox.login(s.username, s.password, initial_folder=None)

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

    def _fetch_bounded(self, mailbox: BaseMailBox, uids: list[int]) -> tuple[list[RawMail], int | None]:
        """The messages of `uids` that fit one batch, and the last UID looked at (None: none)."""
        if not uids:
            return [], None
        limit = self.settings.max_message_bytes
        sizes = self._sizes(mailbox, uids)
        mails: list[RawMail] = []
        chunk: list[int] = []
        total = 0
        last = None
        for uid in uids:
            size = sizes.get(uid)
            if size is None:  # expunged by another client since the search
                last = uid
                continue
            if (mails or chunk) and total + min(size, limit) > limit * _BATCH_MESSAGES:
                break  # the rest waits for the next call
            if size > limit:
                mails.extend(self._fetch_whole(mailbox, chunk))
                chunk = []
                mails.extend(self._fetch_part(mailbox, uid, size))
            else:
                chunk.append(uid)
                if len(chunk) >= _FETCH_CHUNK:
                    mails.extend(self._fetch_whole(mailbox, chunk))
                    chunk = []
            total += min(size, limit)
            last = uid
        mails.extend(self._fetch_whole(mailbox, chunk))
        return mails, last

    def _sizes(self, mailbox: BaseMailBox, uids: list[int]) -> dict[int, int]:
        typ, data = mailbox.client.uid("FETCH", uid_set(uids), "(UID RFC822.SIZE)")
        self._ok((typ, data), "UID FETCH RFC822.SIZE")
        return parse_sizes(data)

    def _fetch_whole(self, mailbox: BaseMailBox, uids: list[int]) -> list[RawMail]:
        if not uids:
            return []
        typ, data = mailbox.client.uid("FETCH", uid_set(uids), "(UID BODY.PEEK[])")
        self._ok((typ, data), "UID FETCH")
        found = parse_fetch(data)
        return [RawMail(key=self._key(uid), data=found[uid]) for uid in uids if uid in found]

    def _fetch_part(self, mailbox: BaseMailBox, uid: int, size: int) -> list[RawMail]:
        """A message too big to hold: its header and first bytes, marked with its real size."""
        limit = self.settings.max_message_bytes
        head_bytes, start_bytes = min(_HEAD_BYTES, limit // 2), min(_START_BYTES, limit // 2)
        parts = []
        for section in (f"HEADER]<0.{head_bytes}>", f"TEXT]<0.{start_bytes}>"):
            typ, data = mailbox.client.uid("FETCH", str(uid), f"(UID BODY.PEEK[{section})")
            self._ok((typ, data), "UID FETCH (part)")
            parts.append(parse_fetch(data).get(uid))
        header, start = parts
        if header is None:
            return []  # expunged meanwhile
        log.warning("IMAP message %s has %d bytes: only its header and first bytes were read", uid, size)
        return [RawMail(key=self._key(uid), data=truncated_copy(size, header, start or b""))]

    def _key(self, uid: int) -> str:
        return f"{self._uidvalidity}:{uid}" if self._uidvalidity is not None else str(uid)

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
            if expunged_elsewhere(result):
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
            raise imaplib.IMAP4.error(f"{what} failed: {typ} {reply_text(data)}")


def _new_mail_announced(client: imaplib.IMAP4) -> bool:
    return "EXISTS" in client.untagged_responses or "RECENT" in client.untagged_responses


def _readable(client: imaplib.IMAP4, seconds: float) -> bool:
    sock = client.sock
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return True
    ready, _, _ = select.select([sock], [], [], seconds)
    return bool(ready)


def _shutdown(mailbox: BaseMailBox) -> None:
    try:  # best effort: the connection is considered dead
        mailbox.client.shutdown()
    except (*_CONNECTION_ERRORS, AttributeError) as exc:  # AttributeError: never connected
        log.debug("IMAP shutdown: %s", exc)
