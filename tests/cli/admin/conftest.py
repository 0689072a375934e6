"""A real SQLite file with games made through `pbem.games.store`, and the admin CLI over it."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner
from sqlmodel import Session

from pbem.cli.main import main
from pbem.core.config import SANDBOX_ADDRESS, Settings
from pbem.core.db import make_engine, transaction
from pbem.core.models import Challenge, Game
from pbem.games import players
from pbem.games import store as G
from tests.databases import migrated

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class Db:
    """The sandbox's database (PBEM_HOME points at the test's directory) and helpers."""

    def __init__(self, home, url: str = "") -> None:
        self.home = home
        self.settings = Settings(address=SANDBOX_ADDRESS, home=home, database_url=url)
        self.engine = make_engine(self.settings.db_url)
        migrated(self.engine)

    def game(self, kind: str, moves: list[str] = (), options: dict | None = None,
             first: str = "alice@example.org", second: str = "bob@example.org") -> int:
        """A game between two players with `moves` played; returns its id."""
        with transaction(self.engine) as session:
            a = players.get_or_register(session, first, NOW)
            b = players.get_or_register(session, second, NOW)
            challenge = Challenge(kind=kind, options=options or {}, challenger_id=a.id, opponent_id=b.id,
                                  created_at=NOW)
            session.add(challenge)
            session.flush()
            game = G.start(session, challenge, b, a, NOW)
            for text in moves:
                G.play(session, game, (a, b)[game.turn], text, None, NOW)
            return game.id

    def random_game(self, kind: str, options: dict | None = None, seed: int = 1, limit: int = 400,
                    **who: str) -> int:
        """A game played with random legal moves until it ends (or `limit` plies)."""
        rules = G.rules_of(Challenge(kind=kind, options=options or {}, challenger_id=0, created_at=NOW))
        rng = random.Random(seed)
        pos, texts = rules.start(), []
        while not rules.outcome(pos).over and len(texts) < limit:
            move = rules.sample(pos, rng.choice)
            texts.append(rules.format(pos, move))
            pos = rules.apply(pos, move)
        return self.game(kind, texts, options, **who)

    def get(self, game_id: int) -> Game:
        with Session(self.engine) as session:
            return session.get(Game, game_id)


@pytest.fixture
def db(tmp_path, monkeypatch) -> Db:
    monkeypatch.setenv("PBEM_HOME", str(tmp_path))
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    database = Db(tmp_path)
    yield database
    database.engine.dispose()


def run(*args: str, config: str | None = None) -> str:
    """`pbem [-c config] admin ARGS`; fails the test on a non-zero exit."""
    prefix = ["-c", config] if config else []
    result = CliRunner().invoke(main, [*prefix, "admin", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def run_json(*args: str, config: str | None = None):
    return json.loads(run(*args, "--json", config=config))


def fail(*args: str, config: str | None = None) -> str:
    """`pbem admin ARGS` that must be refused; returns the message."""
    prefix = ["-c", config] if config else []
    result = CliRunner().invoke(main, [*prefix, "admin", *args])
    assert result.exit_code != 0, result.output
    return result.output


def write_config(path, server: dict[str, object], extra: str = "") -> str:
    """A TOML configuration with these [server] keys (and `extra` sections); returns its path."""
    lines = ["[server]", *(f"{k} = {json.dumps(v)}" for k, v in server.items()), extra]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)
