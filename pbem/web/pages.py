"""The page handlers: each reads what it shows in one read-only session and renders one
template. Synchronous (Starlette runs them in its thread pool): the database layer is."""

from __future__ import annotations

import secrets
from collections import OrderedDict
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

import pbem_engine
from pbem.core.config import Settings
from pbem.core.db import transaction
from pbem.core.models import Tournament
from pbem.core.wallclock import now
from pbem.letters import weblinks
from pbem.text.i18n import speaker
from pbem.text.templates import Templates
from pbem.web import feeds, seen, speech, views

NOINDEX = {"x-robots-tag": "noindex, nofollow"}
PRIVATE = {**NOINDEX, "cache-control": "private, no-store"}
_SLOT = secrets.token_hex(16)  # where a cached page's nonce goes: a fresh one per response
CACHED = 512  # game pages kept rendered (by game, version, ply, language and minute)


class Pages:
    """The handlers over one read engine (and the write engine of the unsubscribe)."""

    def __init__(self, settings: Settings, reader: Engine, writer: Engine) -> None:
        self.settings, self.reader, self.writer = settings, reader, writer
        self.templates = Templates(settings.templates_dir)
        self.cache: OrderedDict[tuple[Any, ...], tuple[str, bool]] = OrderedDict()

    def _lang(self, request: Request) -> tuple[str, bool]:
        return speech.choose(request.query_params.get("lang"), request.headers.get("accept-language"))

    def _page(self, request: Request, name: str, headers: dict[str, str] | None = None,
              status: int = 200, **context: Any) -> HTMLResponse:
        code, chosen = self._lang(request)
        html = speech.page(code, chosen, name, request.state.nonce, path=request.url.path, **context)
        return HTMLResponse(html, status_code=status, headers={**(headers or {}), "content-language": code,
                                                                "vary": "Accept-Language"})

    def missing(self, request: Request) -> HTMLResponse:
        return self._page(request, "missing.html", NOINDEX, status=404)

    def index(self, request: Request) -> Response:
        with Session(self.reader) as session:
            games = [{"id": g.id, "path": weblinks.game_path(g), "title": pbem_engine.lookup(g.kind).title,
                      "first": a.name, "second": b.name, "result": g.result, "status": g.status}
                     for g, a, b in seen.listed_games(session, limit=20)]
        return self._page(request, "index.html", games=games)

    def game(self, request: Request) -> Response:
        ply_text = request.query_params.get("ply")
        ply = int(ply_text) if ply_text and ply_text.isdigit() and len(ply_text) < 7 else None
        code, chosen = self._lang(request)
        with Session(self.reader) as session:
            game = weblinks.find_game(session, request.path_params["slug"])
            if game is None or game.status == "cancelled" and not game.ply:
                return self.missing(request)
            key = (game.id, game.version, game.status, ply, code, chosen, now().strftime("%Y%m%d%H%M"))
            found = self.cache.get(key)
            if found is None:
                view = views.game(session, game, ply, speaker(code))
                found = speech.page(code, chosen, "game.html", _SLOT, path=request.url.path, game=view), view["listed"]
                self.cache[key] = found
                if len(self.cache) > CACHED:
                    self.cache.popitem(last=False)
        html, listed = found
        headers = {"content-language": code, "vary": "Accept-Language", "cache-control": "private, max-age=60"}
        if not listed:
            headers.update(NOINDEX)
        return HTMLResponse(html.replace(_SLOT, request.state.nonce), headers=headers)

    def record(self, request: Request) -> Response:
        with Session(self.reader) as session:
            game = weblinks.find_game(session, request.path_params["slug"])
            if game is None:
                return self.missing(request)
            found = views.record(session, game)
        return Response(found.text, media_type=f"{found.mimetype}; charset=utf-8", headers={
            **PRIVATE, "content-disposition": f'attachment; filename="{found.filename}"'})

    def fen(self, request: Request) -> Response:
        ply_text = request.query_params.get("ply")
        with Session(self.reader) as session:
            game = weblinks.find_game(session, request.path_params["slug"])
            if game is None or game.kind not in ("ataxx", "infection", "assimilation"):
                return self.missing(request)
            text = views.fen(game, int(ply_text) if ply_text and ply_text.isdigit() else None, session)
        return PlainTextResponse(text + "\n", headers=PRIVATE)

    def player(self, request: Request) -> Response:
        code, _ = self._lang(request)
        with Session(self.reader) as session:
            found = seen.visible_player(session, request.path_params["pid"])
            if found is None:
                return self.missing(request)
            view = views.player(session, found, speaker(code))
        return self._page(request, "player.html", player=view)

    def feed(self, request: Request) -> Response:
        code, _ = self._lang(request)
        base = self.settings.base_url or f"{request.url.scheme}://{request.url.netloc}"
        with Session(self.reader) as session:
            found = seen.visible_player(session, request.path_params["pid"])
            if found is None:
                return PlainTextResponse("Not found\n", status_code=404, headers=NOINDEX)
            body = feeds.atom(session, found, base, self.settings.domain, speaker(code))
        return Response(body, media_type="application/atom+xml; charset=utf-8")

    def tournaments(self, request: Request) -> Response:
        with Session(self.reader) as session:
            found = views.tournaments(session)
        return self._page(request, "tournaments.html", tournaments=found)

    def tournament(self, request: Request) -> Response:
        code, _ = self._lang(request)
        with Session(self.reader) as session:
            t = session.get(Tournament, request.path_params["tid"])
            if t is None or t.status == "cancelled":
                return self.missing(request)
            view = views.tournament(session, t, speaker(code))
        return self._page(request, "ladder.html" if t.format == "ladder" else "tournament.html", t=view)

    def challenges(self, request: Request) -> Response:
        with Session(self.reader) as session:
            found = views.challenges(session)
        return self._page(request, "challenges.html", challenges=found)

    def rules_index(self, request: Request) -> Response:
        return self._page(request, "rules_index.html", games=views.rules_list())

    def rules(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in pbem_engine.names():
            return self.missing(request)
        code, _ = self._lang(request)
        text = self.templates.render("rules.txt", code, **views.rules_context(name))
        return self._page(request, "rules.html", subject=text.subject, body=text.body)

    def unsubscribe(self, request: Request) -> Response:
        """RFC 8058: a POST to the signed link stops the player's mail; a GET only shows the button."""
        token = request.path_params["token"]
        if request.method != "POST":
            return self._page(request, "unsubscribe.html", PRIVATE, token=token, done=False)
        with transaction(self.writer) as session:
            player = weblinks.unsubscribe(session, token)
        if player is None:
            return self._page(request, "missing.html", PRIVATE, status=404)
        return self._page(request, "unsubscribe.html", PRIVATE, token=token, done=True)

    def robots(self, request: Request) -> Response:
        return PlainTextResponse("User-agent: *\nDisallow: /g/\nDisallow: /unsubscribe/\n")
