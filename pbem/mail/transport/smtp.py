"""Hand one outgoing message to the SMTP server and say how a failure should be treated.

One recipient per call: aiosmtplib reports a partial refusal as a return value, not an
exception, so a message with several recipients could fail silently for some of them.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
from dataclasses import dataclass, field
from typing import Literal

import aiosmtplib
import aiosmtplib.protocol
import aiosmtplib.smtp

from pbem.mail.message.headers import ascii_address
from pbem.mail.transport.oauth import OAuthError, TokenSource

#: aiosmtplib checks the sender and the recipient of every mail, then quotes them (MAIL FROM,
#: RCPT TO), each time with the standard library's full address parser: 3 % of the daemon's
#: CPU in the throughput benchmark's profile. The daemon's addresses are few and recur, so
#: what its two functions make of one is kept. A refused address raises as before (a call
#: that raised is not kept).
aiosmtplib.smtp.parse_address = functools.lru_cache(maxsize=4096)(aiosmtplib.smtp.parse_address)  # type: ignore[attr-defined]
aiosmtplib.smtp.quote_address = functools.lru_cache(maxsize=4096)(aiosmtplib.smtp.quote_address)  # type: ignore[attr-defined]

_normalized = aiosmtplib.protocol.normalize_message_line_endings


def _line_ends(message: bytes) -> bytes:
    """aiosmtplib's `normalize_message_line_endings` (lone CR and LF made CRLF, a CRLF at the
    end), which it runs twice per mail (for the SIZE it announces and before DATA): a message
    whose every line already ends in CRLF, as pbem writes every mail, is that already, found by
    three counts instead of a regex that replaced each of its thousand line ends by itself
    (1.3 % of the daemon's profile)."""
    crlf = message.count(b"\r\n")
    if message.endswith(b"\r\n") and message.count(b"\n") == crlf and message.count(b"\r") == crlf:
        return message
    return _normalized(message)


aiosmtplib.protocol.normalize_message_line_endings = _line_ends
aiosmtplib.smtp.normalize_message_line_endings = _line_ends  # type: ignore[attr-defined]

log = logging.getLogger(__name__)

Security = Literal["starttls", "tls", "none"]

_AUTH_CODES = frozenset({530, 534, 535})
_STORAGE_CODE = 552  # "exceeded storage allocation": the mailbox may have room tomorrow


@dataclass(frozen=True)
class SmtpSettings:
    """The submission server that sends the game's mail."""

    host: str
    port: int = 587
    security: Security = "starttls"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    timeout: float = 30.0
    oauth2: TokenSource | None = field(default=None, repr=False, compare=False)
    """Log in with SASL XOAUTH2 and this source's access tokens instead of the password."""

    def __post_init__(self) -> None:
        if self.security not in ("starttls", "tls", "none"):
            raise ValueError(f"SMTP security must be 'starttls', 'tls' or 'none', not {self.security!r}")
        if self.oauth2 is not None:
            if self.username is None or self.password is not None:
                raise ValueError("OAuth 2.0 needs the SMTP username, and no password")
        elif (self.username is None) != (self.password is None):
            raise ValueError("set both the SMTP username and password, or neither")
        if self.timeout <= 0:
            raise ValueError("the SMTP timeout must be positive")


class DeliveryError(Exception):
    """Sending failed; `code` is the SMTP reply code (None when the server never answered)."""

    def __init__(self, code: int | None, text: str) -> None:
        super().__init__(f"{code} {text}" if code is not None else text)
        self.code = code
        self.text = text


class TemporaryFailure(DeliveryError):
    """Try again later with backoff: 4xx, 552, refused connections, timeouts, disconnects."""


class PermanentFailure(DeliveryError):
    """The server rejected this message or recipient for good: give up and tell the admin."""


class AddressNotSupported(PermanentFailure):
    """The address has a non-ASCII local part and the server does not offer SMTPUTF8 (RFC 6531).

    Retrying cannot help until the server changes: mark the mail failed and tell the admin."""


class ConfigurationFailure(DeliveryError):
    """Our own setup is wrong (authentication, TLS): pause sending until the admin fixes it."""


async def send(settings: SmtpSettings, sender: str, recipient: str, data: bytes) -> str:
    """Deliver `data` to one recipient on a connection of its own; return the server's reply.

    Raises a `DeliveryError` subclass that tells the caller whether to retry.
    """
    async with Connection(settings) as connection:
        return await connection.send(sender, recipient, data)


class Connection:
    """One SMTP session reused for many mails (rounds of the outbox): TLS and login once.

    After a failure the session is dropped and the next `send` opens a new one, so one
    refused mail never leaves the connection in an unknown state."""

    def __init__(self, settings: SmtpSettings) -> None:
        self.settings = settings
        self.where = f"SMTP server {settings.host}:{settings.port}"
        self._client: aiosmtplib.SMTP | None = None
        self._used = False  # the session has delivered a mail (so it may have idled since)

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def send(self, sender: str, recipient: str, data: bytes) -> str:
        """Deliver `data` to one recipient; raises a `DeliveryError` subclass on failure.

        A session that has sent before may have been dropped by the server while it idled
        (between rounds): when it turns out gone, the mail is tried once more on a new one."""
        reused = self._client is not None and self._client.is_connected and self._used
        for last in (not reused, True):
            if self._client is None or not self._client.is_connected:
                self._client, self._used = await _open(self.settings, self.where), False
            try:
                reply = await _deliver(self._client, self.where, sender, recipient, data)
            except TemporaryFailure as exc:
                await self.close()
                if last or exc.code is not None:  # a refusal, not a lost session
                    raise
                continue
            except DeliveryError:
                await self.close()
                raise
            self._used = True
            return reply
        raise AssertionError("unreachable")  # the second pass always returns or raises

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None and client.is_connected:
            try:
                await client.quit()
            except (aiosmtplib.SMTPException, OSError):
                client.close()


async def _open(settings: SmtpSettings, where: str) -> aiosmtplib.SMTP:
    """Connect, STARTTLS and log in as the settings ask."""
    tls = ssl.create_default_context() if settings.security != "none" else None
    client = aiosmtplib.SMTP(
        hostname=settings.host,
        port=settings.port,
        timeout=settings.timeout,
        use_tls=settings.security == "tls",
        start_tls=False,
        tls_context=tls,
    )
    try:
        await client.connect()
    except aiosmtplib.SMTPResponseException as exc:
        raise classify(exc.code, exc.message) from exc
    except (aiosmtplib.SMTPException, OSError) as exc:
        if isinstance(exc.__cause__, ssl.SSLCertVerificationError):
            raise ConfigurationFailure(None, f"{where}: TLS certificate: {exc.__cause__}") from exc
        raise TemporaryFailure(None, f"{where}: {_detail(exc)}") from exc
    try:
        if settings.security == "starttls":
            await client.starttls()
        if settings.oauth2 is not None:
            await _xoauth2(client, settings, where)
        elif settings.username is not None and settings.password is not None:
            await client.login(settings.username, settings.password)
    except OAuthError as exc:
        client.close()
        failure = TemporaryFailure if exc.temporary else ConfigurationFailure
        raise failure(None, f"{where}: no OAuth 2.0 access token: {exc}") from None
    except aiosmtplib.SMTPResponseException as exc:
        client.close()
        raise classify(exc.code, exc.message) from exc
    except (aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPTimeoutError) as exc:
        client.close()
        raise TemporaryFailure(None, f"{where}: {_detail(exc)}") from exc
    except (aiosmtplib.SMTPException, ssl.SSLError) as exc:
        # No STARTTLS or AUTH offered, or a certificate we cannot trust: our settings are wrong.
        client.close()
        raise ConfigurationFailure(None, f"{where}: {_detail(exc)}") from exc
    return client


async def _xoauth2(client: aiosmtplib.SMTP, settings: SmtpSettings, where: str) -> None:
    """AUTH XOAUTH2; a refused token (revoked, expired early) is dropped and a fresh one tried once."""
    source, username = settings.oauth2, settings.username
    assert source is not None and username is not None
    if client.is_ehlo_or_helo_needed:
        await client.ehlo()
    if "xoauth2" not in client.server_auth_methods:
        raise aiosmtplib.SMTPException(f"{where} does not offer AUTH XOAUTH2 (it offers: "
                                       f"{' '.join(client.server_auth_methods) or 'no AUTH'})")
    token = await asyncio.to_thread(source.token)
    try:
        await client.auth_xoauth2(username, token)
        return
    except aiosmtplib.SMTPAuthenticationError as exc:
        if exc.code not in _AUTH_CODES:
            raise
        if source.invalidate(token):  # one line, though several sessions may hit the same old token
            log.warning(
                "%s refused the OAuth 2.0 access token of %r (%s %s); fetching a fresh token",
                where, username, exc.code, exc.message,
            )
    token = await asyncio.to_thread(source.token)
    try:
        await client.auth_xoauth2(username, token)
    except aiosmtplib.SMTPAuthenticationError:
        source.invalidate(token)  # refused even fresh: the next round asks again, in case it was the server
        raise


async def _deliver(client: aiosmtplib.SMTP, where: str, sender: str, recipient: str, data: bytes) -> str:
    try:  # an IDN domain travels as ASCII (IDNA); only a non-ASCII local part needs SMTPUTF8
        sender, recipient = ascii_address(sender), ascii_address(recipient)
    except ValueError as exc:
        raise PermanentFailure(None, f"unusable address: {exc}") from exc
    try:
        if client.is_ehlo_or_helo_needed:  # the extensions are known only after EHLO
            try:
                await client.ehlo()
            except aiosmtplib.SMTPHeloError:  # an old server: HELO, and no extensions
                await client.helo()
    except aiosmtplib.SMTPResponseException as exc:
        raise classify(exc.code, exc.message) from exc
    except (aiosmtplib.SMTPException, OSError) as exc:
        raise TemporaryFailure(None, f"{where}: {_detail(exc)}") from exc
    options = []
    if not data.isascii() and client.supports_extension("8BITMIME"):
        options.append("BODY=8BITMIME")
    if not (sender + recipient).isascii():
        if not client.supports_extension("SMTPUTF8"):
            raise AddressNotSupported(
                None, f"{where} does not offer SMTPUTF8, so it cannot send to the non-ASCII address {recipient!r}"
            )
        options.append("SMTPUTF8")
    try:
        refused, reply = await client.sendmail(sender, [recipient], data, mail_options=options)
    except aiosmtplib.SMTPRecipientsRefused as exc:
        first = exc.recipients[0]
        raise classify(first.code, first.message) from exc
    except aiosmtplib.SMTPResponseException as exc:
        raise classify(exc.code, exc.message) from exc
    except ValueError as exc:  # an address aiosmtplib will not put on the wire
        raise PermanentFailure(None, f"unusable address: {exc}") from exc
    except (aiosmtplib.SMTPException, OSError) as exc:
        raise TemporaryFailure(None, f"{where}: {_detail(exc)}") from exc
    if refused:  # cannot happen with one recipient, but never report a refusal as success
        code, text = next(iter(refused.values()))
        raise classify(code, text)
    return reply


def _detail(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def classify(code: int, text: str) -> DeliveryError:
    """The failure class an SMTP reply code calls for (RFC 5321 plus the mail notes)."""
    if code in _AUTH_CODES:
        return ConfigurationFailure(code, text)
    if 500 <= code < 600 and code != _STORAGE_CODE:
        return PermanentFailure(code, text)
    return TemporaryFailure(code, text)
