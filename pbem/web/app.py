"""The web face's Starlette application: the routes, the guard around them."""

from __future__ import annotations

from sqlalchemy import Engine, create_engine, event
from starlette.applications import Starlette
from starlette.routing import Route

from pbem.core.config import Settings
from pbem.web.guard import Guard
from pbem.web.pages import Pages


def reader(url: str, writer: Engine) -> Engine:
    """An engine that only reads: for SQLite a connection of its own that never takes the
    write lock (each page reads in autocommit, beside the daemon's transactions); else the
    daemon's engine."""
    if not url.startswith("sqlite"):
        return writer
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record) -> None:  # noqa: ANN001
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA query_only=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    return engine


def build(settings: Settings, writer: Engine) -> Guard:
    """The whole application, guarded (`pbem.web.guard`)."""
    pages = Pages(settings, reader(settings.db_url, writer), writer)
    routes = [
        Route("/", pages.index),
        Route("/g/{slug}", pages.game),
        Route("/g/{slug}/record", pages.record),
        Route("/g/{slug}/fen", pages.fen),
        Route("/p/{pid:int}", pages.player),
        Route("/p/{pid:int}/feed.atom", pages.feed),
        Route("/t", pages.tournaments),
        Route("/t/{tid:int}", pages.tournament),
        Route("/challenges", pages.challenges),
        Route("/rules", pages.rules_index),
        Route("/rules/{name}", pages.rules),
        Route("/unsubscribe/{token}", pages.unsubscribe, methods=["GET", "HEAD", "POST"]),
        Route("/robots.txt", pages.robots),
    ]

    async def not_found(request, exc):  # noqa: ANN001, ANN202
        from starlette.concurrency import run_in_threadpool

        return await run_in_threadpool(pages.missing, request)

    app = Starlette(routes=routes, exception_handlers={404: not_found})
    web = settings.web_settings
    return Guard(app, web.requests_per_minute, web.trusted_proxy)
