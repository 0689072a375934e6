"""A small world for the web tests: players (some public, some not), games of every kind
played by the engine's example moves, a finished rated game, a tournament and a ladder, an
open challenge; and the web face serving it on a free port of 127.0.0.1, started as the
daemon starts it, waited for by its own readiness (the address it reports once serving)."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlmodel import Session

from pbem.core.config import Settings, WebSettings
from pbem.core.db import make_engine, transaction
from pbem.core.models import Challenge, Game, Player, Remark
from pbem.games import ratings
from pbem.games import store as G
from pbem.letters import weblinks
from pbem.tournaments import tournament as tournaments
from tests.databases import migrated

START = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
PUBLIC = [("Alice", "alice@example.org"), ("Bob", "bob@example.org"), ("Dmitri", "dmitri@example.org"),
          ("Eun-ji", "eunji@example.org")]
PRIVATE = [("Carol", "carol-secret@example.org")]
#: every game the world has: (kind, options, plies, first, second)
GAMES = [
    ("ataxx", {}, 9, "Alice", "Bob"),
    ("capturego", {"size": 13}, 14, "Bob", "Alice"),
    ("myriades", {}, 6, "Alice", "Dmitri"),
    ("infinito", {"size": 26}, 6, "Dmitri", "Bob"),
    ("ataxx", {}, 5, "Alice", "Carol"),  # Carol said no: not listed
]


@dataclass
class World:
    settings: Settings
    engine: Any
    players: dict[str, int] = field(default_factory=dict)
    games: dict[int, str] = field(default_factory=dict)  # id -> its page path
    private_games: list[int] = field(default_factory=list)
    tournament: int = 0
    ladder: int = 0
    address: str = ""


def _player(session: Session, name: str, address: str, public: bool) -> Player:
    player = Player(address=address, name=name, secret="s3cr3t" + name.lower(), created_at=START,
                    proven_at=START, public=public)
    session.add(player)
    session.flush()
    return player


def _play(session: Session, game: Game, people: dict[int, Player], plies: int, at: datetime) -> None:
    for n in range(plies):
        if game.status != "active":
            break
        rules = G.rules_of(game)
        pos = G.position(game)
        move = rules.examples(pos)[n % len(rules.examples(pos))] if n % 3 else rules.examples(pos)[0]
        G.play(session, game, people[game.player_id(game.turn)], move, None, at + timedelta(hours=n))


def build(home: Path) -> World:
    settings = replace(Settings(), home=home, database_url=f"sqlite:///{home / 'web.sqlite3'}",
                       web=WebSettings(enabled=True, port=0, requests_per_minute=100000))
    engine = make_engine(settings.db_url)
    migrated(engine)
    world = World(settings, engine)
    with transaction(engine) as session:
        people = {}
        for name, address in PUBLIC:
            people[name] = _player(session, name, address, True)
        for name, address in PRIVATE:
            people[name] = _player(session, name, address, False)
        by_id = {p.id: p for p in people.values()}
        world.players = {name: p.id for name, p in people.items()}
        for n, (kind, options, plies, first, second) in enumerate(GAMES):
            game = G.begin(session, kind, options, people[first].id, people[second].id, START + timedelta(days=n),
                           days=7, weekends_off=False)
            _play(session, game, by_id, plies, START + timedelta(days=n))
            world.games[game.id] = weblinks.game_path(game)
            if "Carol" in (first, second):
                world.private_games.append(game.id)
        session.add(Remark(game_id=1, player_id=people["Alice"].id, ply=3, text="Nice jump!", public=True,
                           created_at=START))
        session.add(Remark(game_id=1, player_id=people["Bob"].id, ply=4, text="private-remark-text", public=False,
                           created_at=START))
        # a finished, rated game for the plot
        done = G.begin(session, "ataxx", {}, people["Bob"].id, people["Eun-ji"].id, START, days=7, weekends_off=False)
        G.finish(session, done, 1, "resigned", START + timedelta(days=1), ending="resignation")
        for k in range(4):  # a history of several points
            ratings.rate_game(session, done, START + timedelta(days=k + 1))
        world.games[done.id] = weblinks.game_path(done)
        session.add(Challenge(kind="capturego", options={"size": 9}, challenger_id=people["Dmitri"].id,
                              created_at=START))
        t = tournaments.create(session, "Autumn Cup", "roundrobin", "ataxx", START)
        for name in ("Alice", "Bob", "Dmitri", "Carol"):
            tournaments.join(session, t, people[name], START)
        tournaments.start(session, t, (), START)
        world.tournament = t.id
        lad = tournaments.create(session, "Go ladder", "ladder", "capturego", START, options={"size": 9}, reach=2)
        for name in ("Alice", "Bob", "Eun-ji"):
            tournaments.join(session, lad, people[name], START)
        tournaments.start(session, lad, (), START)
        world.ladder = lad.id
    return world


class Running:
    """The web face in a thread of its own with its event loop, as the daemon runs it."""

    def __init__(self, world: World) -> None:
        from pbem.web.server import WebServer

        self.web = WebServer(world.settings, world.engine)
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.stop = asyncio.Event()

        async def main() -> None:
            task = asyncio.ensure_future(self.web.run(self.stop))
            while not self.web.server.started:  # uvicorn's own flag, set once it accepts connections
                await asyncio.sleep(0.01)
            self.ready.set()
            await task

        self.loop.run_until_complete(main())

    def __enter__(self) -> str:
        self.thread.start()
        assert self.ready.wait(30), "the web face did not start"
        return self.web.address.rstrip("/")

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(30)
