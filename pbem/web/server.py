"""The web face's server: uvicorn in the daemon's event loop, or alone (`pbem web`).

It binds its socket itself, so that port 0 (any free port) works and the address it
really listens on is known: the readiness line `web pages at http://HOST:PORT/` is logged
(and printed by `pbem serve` and `pbem web`) once it accepts connections.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket

import uvicorn
from sqlalchemy import Engine

from pbem.core.config import Settings
from pbem.web.app import build

log = logging.getLogger(__name__)


def _bound(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


class WebServer:
    """One uvicorn server over a socket bound at construction (so its port is known at once)."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        web = settings.web_settings
        try:
            self.sock = _bound(web.host, web.port)
        except OSError as exc:
            if settings.web is not None or exc.errno != errno.EADDRINUSE:
                raise
            # the sandbox's default port is taken (another sandbox): any free port, said at start
            log.warning("web port %d is taken; the pages take a free port", web.port)
            self.sock = _bound(web.host, 0)
        self.sock.listen(128)
        self.sock.setblocking(False)
        host, port = self.sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        self.address = f"http://{shown}:{port}/"
        config = uvicorn.Config(build(settings, engine), lifespan="off", log_level="warning",
                                access_log=False, server_header=False, date_header=False, proxy_headers=False)
        self.server = uvicorn.Server(config)

    async def run(self, stop: asyncio.Event) -> None:
        """Serve until `stop` is set, then close the connections cleanly."""
        server = self.server
        server.config.load()
        server.lifespan = server.config.lifespan_class(server.config)
        await server.startup(sockets=[self.sock])
        log.info("web pages at %s", self.address)
        try:
            await stop.wait()
        finally:
            await server.shutdown(sockets=[self.sock])


def serve_alone(settings: Settings, engine: Engine, ready: object = None) -> None:
    """`pbem web`: the pages alone, until SIGTERM or SIGINT."""
    import signal

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        web = WebServer(settings, engine)
        if callable(ready):
            ready(web.address)
        await web.run(stop)

    asyncio.run(main())
