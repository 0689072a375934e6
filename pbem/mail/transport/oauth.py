"""OAuth 2.0 access tokens for IMAP and SMTP (SASL XOAUTH2): Gmail and Microsoft 365 take no passwords.

A `TokenSource` hands out an access token, from a command (a secrets helper prints it) or
from a refresh token (a POST of grant_type=refresh_token to the provider's token endpoint).
It caches the token until shortly before it expires, so one login does not cost one request,
and `invalidate` drops it when a server refused it (revoked, expired early): the next login
fetches a fresh one. A token is never logged and never shown in a repr.
"""

from __future__ import annotations

import imaplib
import json
import logging
import shlex
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from imap_tools import BaseMailBox
from imap_tools.errors import MailboxLoginError

log = logging.getLogger(__name__)

Provider = Literal["google", "microsoft", "generic"]

TOKEN_URLS: dict[str, str] = {
    "google": "https://oauth2.googleapis.com/token",
    "microsoft": "https://login.microsoftonline.com/common/oauth2/v2.0/token",
}
"""The token endpoints of the providers we know; "generic" needs token_url."""

MICROSOFT_SCOPE = "https://outlook.office.com/IMAP.AccessAsUser.All https://outlook.office.com/SMTP.Send offline_access"
"""Microsoft asks for the scopes again on every refresh; Google keeps those of the grant."""

MARGIN = 60.0
"""Seconds before its expiry that a cached token is replaced: a login must not race the clock."""

COMMAND_LIFETIME = 300.0
"""How long a token printed by token_command is reused: the command says nothing of its expiry."""

DEFAULT_LIFETIME = 3600.0
"""The lifetime assumed when a token endpoint leaves out expires_in (Google and Microsoft say 3599)."""


class OAuthError(Exception):
    """No access token could be had; `temporary` says whether trying later may help."""

    def __init__(self, text: str, temporary: bool) -> None:
        super().__init__(text)
        self.temporary = temporary


@dataclass(eq=False)
class TokenSource:
    """Where access tokens come from: `command`, or a refresh token at `token_url`."""

    command: str | None = None
    token_url: str | None = None
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    refresh_token: str | None = field(default=None, repr=False)
    scope: str | None = None
    provider: Provider | None = None
    timeout: float = 30.0
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    _token: str | None = field(default=None, init=False, repr=False)
    _expires: float = field(default=0.0, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    fetched: int = field(default=0, init=False)
    """How many tokens were fetched (not served from the cache): for tests and the log."""

    def __post_init__(self) -> None:
        if (self.command is None) == (self.token_url is None):
            raise ValueError("give token_command or a refresh token flow (oauth2_provider), not both or neither")
        if self.token_url is not None:
            if not self.client_id or not self.refresh_token:
                raise ValueError("the refresh token flow needs client_id and refresh_token_env or refresh_token_file")
            url = urllib.parse.urlsplit(self.token_url)
            loopback = url.scheme == "http" and url.hostname in ("127.0.0.1", "::1", "localhost")
            if url.scheme != "https" and not loopback:  # the client secret and refresh token travel in it
                raise ValueError(f"token_url must be an https:// URL (http:// only on this host), not {self.token_url!r}")
        if self.command is not None and not shlex.split(self.command):
            raise ValueError("token_command is empty")

    def token(self) -> str:
        """A valid access token: the cached one, or a fresh one when it is near its expiry."""
        now = self._now()
        with self._lock:
            if self._token is not None and now < self._expires:
                return self._token
            token, lifetime = self._run() if self.command is not None else self._refresh()
            self.fetched += 1
            self._token = token
            self._expires = self._now() + lifetime - min(MARGIN, lifetime / 2)  # a short-lived one lives half
            log.info("OAuth 2.0: got a new access token from %s (valid %.0f s)", self.origin(), lifetime)
            return token

    def invalidate(self, refused: str | None = None) -> bool:
        """Forget the cached token (a server refused it): the next `token()` fetches a new one.

        With `refused`, only if that is still the cached token: IMAP and SMTP (and SMTP sessions
        side by side) share a source, and one's refusal of an old token must not throw away the
        fresh one another just fetched. True when this call dropped it: say so in the log once."""
        with self._lock:
            if refused is None or refused == self._token:
                dropped = self._token is not None
                self._token, self._expires = None, 0.0
                return dropped
            return False

    def origin(self) -> str:
        """Where tokens come from, in words that hold no secret."""
        if self.command is not None:
            return f"token_command {shlex.split(self.command)[0]}"
        return f"the token endpoint {self.token_url}"

    def _now(self) -> float:
        return self.clock()

    def _run(self) -> tuple[str, float]:
        assert self.command is not None
        argv = shlex.split(self.command)
        try:
            done = subprocess.run(argv, capture_output=True, timeout=self.timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise OAuthError(f"token_command {argv[0]} could not run: {exc}", temporary=True) from None
        token = done.stdout.decode("utf-8", "replace").strip()
        if done.returncode != 0:
            # Its stderr may say why; its stdout may be a token, and is never repeated.
            why = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
            raise OAuthError(f"token_command {argv[0]} exited with {done.returncode}: {why[0][:200]}", temporary=True)
        if not token or len(token.split()) != 1:
            raise OAuthError(f"token_command {argv[0]} printed no single access token", temporary=False)
        return token, COMMAND_LIFETIME

    def _refresh(self) -> tuple[str, float]:
        assert self.token_url is not None and self.refresh_token is not None
        form = {"grant_type": "refresh_token", "refresh_token": self.refresh_token, "client_id": self.client_id or ""}
        if self.client_secret:
            form["client_secret"] = self.client_secret
        if self.scope:
            form["scope"] = self.scope
        request = urllib.request.Request(
            self.token_url,
            data=urllib.parse.urlencode(form).encode("ascii"),
            headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
            method="POST",
        )
        where = f"the token endpoint {self.token_url}"
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 - http(s) only
                body = response.read(1 << 20)
        except urllib.error.HTTPError as exc:
            answer = _json(exc.read(1 << 16))
            error = f"{answer.get('error', '')} {answer.get('error_description', '')}".strip() or exc.reason
            # 400/401: the refresh token or the client is refused for good (invalid_grant, invalid_client)
            raise OAuthError(f"{where} refused the refresh token: HTTP {exc.code} {error}"[:400],
                             temporary=exc.code >= 500 or exc.code == 429) from None
        except (OSError, ValueError) as exc:
            raise OAuthError(f"{where} is unreachable: {exc}", temporary=True) from None
        answer = _json(body)
        token = answer.get("access_token")
        if not isinstance(token, str) or not token:
            raise OAuthError(f"{where} answered without an access_token", temporary=True)
        rotated = answer.get("refresh_token")
        if isinstance(rotated, str) and rotated:  # Microsoft may rotate it: the newest is used from now on
            self.refresh_token = rotated
        lifetime = answer.get("expires_in", DEFAULT_LIFETIME)
        try:
            lifetime = float(lifetime)
        except (TypeError, ValueError):
            lifetime = DEFAULT_LIFETIME
        return token, lifetime


def _json(body: bytes) -> dict:
    try:
        answer = json.loads(body)
    except ValueError:
        return {}
    return answer if isinstance(answer, dict) else {}


def xoauth2(username: str, token: str) -> str:
    """The SASL XOAUTH2 initial response (before base64), as Google and Microsoft define it."""
    return f"user={username}\x01auth=Bearer {token}\x01\x01"


def require_xoauth2(mailbox: BaseMailBox) -> None:
    """Raise MailboxLoginError, naming what the IMAP server offers, when XOAUTH2 is not among it."""
    offered = sorted(w.upper()[5:] for w in mailbox.client.capabilities if w.upper().startswith("AUTH="))
    if "XOAUTH2" not in offered:
        raise MailboxLoginError(("NO", [f"no AUTHENTICATE XOAUTH2, only {offered}".encode()]), "OK")


def imap_xoauth2(mailbox: BaseMailBox, username: str, token: str) -> None:
    """AUTHENTICATE XOAUTH2; a refusal raises MailboxLoginError, as a refused LOGIN does."""
    try:
        mailbox.xoauth2(username, token, initial_folder=None)
    except imaplib.IMAP4.abort:
        raise
    except imaplib.IMAP4.error as exc:  # imaplib raises a NO to AUTHENTICATE itself
        raise MailboxLoginError(("NO", [str(exc).encode()]), "OK") from exc
