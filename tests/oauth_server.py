"""A tiny OAuth 2.0 authorization server on 127.0.0.1 for the mail rig: a token endpoint and an
introspection endpoint (RFC 7662), so that Dovecot's oauth2 passdb and the rig's SMTP front end
check real XOAUTH2 logins against the tokens it issued.

`POST /token` takes grant_type=refresh_token with a refresh token from `grant()` and issues an
access token; `POST /introspect` (token=...) answers {"active": true, "username": ...} for a
live one and {"active": false} for anything else. `revoke()` kills every access token issued so
far, as a provider does when a password changes or a token is revoked.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.dovecot import HOST

CLIENT_ID = "pbem-test-client"
CLIENT_SECRET = "pbem-test-client-secret"


class TokenServer:
    """The endpoints in a thread; `url` is where they listen. Use as a context manager."""

    def __init__(self, lifetime: int = 3600) -> None:
        self.lifetime = lifetime
        self._lock = threading.Lock()
        self._refresh: dict[str, str] = {}  # refresh token -> username
        self._access: dict[str, tuple[str, float]] = {}  # access token -> (username, expiry)
        self.issued = 0
        self.history: list[str] = []  # every access token issued: none may turn up in a log
        self.forms: list[dict[str, str]] = []  # what each token request sent
        self.rotate = False  # answer each refresh with a new refresh token too (Microsoft may)
        self.refused = 0  # introspections that found no live token
        self._server = ThreadingHTTPServer((HOST, 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="oauth-server", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> TokenServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)

    def __enter__(self) -> TokenServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def grant(self, username: str) -> str:
        """A refresh token for `username`, as the provider's consent screen would give one."""
        token = "rt-" + secrets.token_urlsafe(16)
        with self._lock:
            self._refresh[token] = username
        return token

    def revoke(self) -> None:
        """Every access token issued so far is dead from now on (refresh tokens stay good)."""
        with self._lock:
            self._access.clear()

    def expire(self) -> None:
        """Every access token issued so far expires now, whatever expires_in said (clock skew,
        a provider that shortens lifetimes): the server checks the time, the client cannot know."""
        with self._lock:
            self._access = {token: (user, time.monotonic() - 1) for token, (user, _) in self._access.items()}

    def reset(self) -> None:
        """A clean slate for the next test: no live access tokens, the counts back at zero."""
        with self._lock:
            self._access.clear()
            self.issued, self.refused, self.history = 0, 0, []

    def check(self, token: str) -> str | None:
        """The username a live access token was issued for, or None."""
        with self._lock:
            found = self._access.get(token)
            if found is None or found[1] < time.monotonic():
                self.refused += 1
                return None
            return found[0]

    def _issue(self, form: dict[str, str]) -> tuple[int, dict]:
        self.forms.append(form)
        if form.get("grant_type") != "refresh_token":
            return 400, {"error": "unsupported_grant_type"}
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return 401, {"error": "invalid_client"}
        with self._lock:
            username = self._refresh.get(form.get("refresh_token", ""))
            if username is None:
                return 400, {"error": "invalid_grant", "error_description": "Token has been expired or revoked."}
            token = "at-" + secrets.token_urlsafe(24)
            self._access[token] = (username, time.monotonic() + self.lifetime)
            self.issued += 1
            self.history.append(token)
            answer = {"access_token": token, "token_type": "Bearer", "expires_in": self.lifetime}
            if self.rotate:
                rotated = "rt-" + secrets.token_urlsafe(16)
                self._refresh[rotated] = self._refresh.pop(form["refresh_token"])
                answer["refresh_token"] = rotated
        return 200, answer

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode("ascii", "replace")))
                if self.path == "/token":
                    code, answer = server._issue(form)
                elif self.path == "/introspect":
                    username = server.check(form.get("token", ""))
                    code, answer = 200, {"active": True, "username": username} if username else {"active": False}
                else:
                    code, answer = 404, {"error": "not_found"}
                body = json.dumps(answer).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet
                pass

        return Handler


def introspect(url: str, token: str, timeout: float = 10.0) -> str | None:
    """The username `url`'s introspection endpoint says a token belongs to, or None (as Dovecot asks)."""
    request = urllib.request.Request(
        f"{url}/introspect", data=urllib.parse.urlencode({"token": token}).encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the rig's own server
        answer = json.loads(response.read())
    return answer.get("username") if answer.get("active") is True else None
