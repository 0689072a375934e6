"""What every response of the web face carries, and what no request may do.

A pure ASGI middleware: a fresh CSP nonce per request (`scope["state"]["nonce"]`, which the
templates put on their one `<style>` and `<script>`), the security headers, a per-client
rate limit (a fixed one-minute window: small and exact enough for a read-only site), and
no method but GET and HEAD, except POST on the one-click unsubscribe.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

POST_PATHS = ("/unsubscribe/",)  # the only write: RFC 8058's one-click unsubscribe
_CLIENTS_MAX = 10000  # clients remembered in a window; past it the window starts afresh


def csp(nonce: str) -> str:
    return (
        "default-src 'none'; "
        f"style-src 'nonce-{nonce}'; script-src 'nonce-{nonce}'; "
        "img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    )


class Limiter:
    """At most `per_minute` requests per client and minute (a window that starts on the minute)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute, self.clock = per_minute, clock
        self.window = -1
        self.counts: dict[str, int] = {}

    def allow(self, client: str) -> bool:
        window = int(self.clock() // 60)
        if window != self.window or len(self.counts) > _CLIENTS_MAX:
            self.window, self.counts = window, {}
        count = self.counts.get(client, 0) + 1
        self.counts[client] = count
        return count <= self.per_minute


class Guard:
    """The middleware: headers on every response, the limit and the methods before the app."""

    def __init__(self, app: App, per_minute: int, trusted_proxy: bool = False) -> None:
        self.app, self.limiter, self.trusted_proxy = app, Limiter(per_minute), trusted_proxy

    def _client(self, scope: Scope) -> str:
        if self.trusted_proxy:
            for name, value in scope.get("headers", []):
                if name == b"x-forwarded-for":
                    return value.decode("latin-1").rsplit(",", 1)[-1].strip()
        client = scope.get("client")
        return client[0] if client else "-"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        nonce = secrets.token_urlsafe(16)
        scope.setdefault("state", {})["nonce"] = nonce
        headers = [
            (b"content-security-policy", csp(nonce).encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),  # a game's address is its secret: never pass it on
            (b"x-frame-options", b"DENY"),
            (b"cross-origin-opener-policy", b"same-origin"),
            (b"permissions-policy", b"interest-cohort=()"),
        ]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *headers]
            await send(message)

        method = scope["method"]
        allowed = method in ("GET", "HEAD") or (method == "POST" and scope["path"].startswith(POST_PATHS))
        if not allowed:
            await _plain(sending, 405, b"Read-only: GET and HEAD only.\n", [(b"allow", b"GET, HEAD")])
            return
        if not self.limiter.allow(self._client(scope)):
            await _plain(sending, 429, b"Too many requests: wait a minute.\n", [(b"retry-after", b"60")])
            return
        await self.app(scope, receive, sending)


async def _plain(send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
        (b"x-robots-tag", b"noindex"), *extra]})
    await send({"type": "http.response.body", "body": body})
