"""Issue 11, finding 4: `pbem admin undo` racing a move on PostgreSQL.

A third connection holds the game row (`SELECT ... FOR UPDATE`) while an admin undo (a real
`pbem` process) and a move by mail queue behind it, in a forced order; then it lets go. The
admin either changes the game it read or refuses with nothing changed, and the moves table
always replays to the game row.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import psycopg
import pytest
from sqlmodel import Session, select

from pbem.core.models import AdminAction, Game, Move, Player
from pbem.games import store as G
from pbem.runners.inbound import Service
from pbem.trust import proof as trust
from tests.cli.admin.conftest import Db, write_config
from tests.databases import throwaway
from tests.mailer import compose

BOB = "bob@example.org"
WAIT = float(os.environ.get("PBEM_TEST_WAIT", "90"))  # generous: the machine may be busy


@pytest.fixture
def pg(tmp_path):
    with throwaway("postgresql", tmp_path) as url:
        database = Db(tmp_path, url)
        try:
            yield database
        finally:
            database.engine.dispose()


def _waiting(conn: psycopg.Connection, database: str) -> int:
    """How many sessions of `database` wait for a lock."""
    row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'",
                       (database,)).fetchone()
    return row[0]


def _until_waiting(conn: psycopg.Connection, database: str, count: int, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while _waiting(conn, database) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} never queued for the row lock")
        time.sleep(0.05)


def _admin_undo(config: str, game_id: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "pbem.cli.main", "-c", config, "admin", "undo", str(game_id), "2", "--reason", "race",
         "--by", "ops"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def _move(db: Db, game_id: int, results: list) -> threading.Thread:
    with Session(db.engine) as session:
        bob = session.exec(select(Player).where(Player.address == BOB)).one()
        # the reply-to of our mail that showed the board as it stands: proof that bob saw it
        to = trust.reply_to(db.settings, bob, session.get(Game, game_id))
    raw = compose(BOB, "g6", to=to)
    thread = threading.Thread(target=lambda: results.append(Service(db.settings, db.engine).handle(raw).status))
    thread.start()
    return thread


def _assert_replays(db: Db, game_id: int) -> Game:
    with Session(db.engine) as session:
        game = session.get(Game, game_id)
        moves = session.exec(select(Move).where(Move.game_id == game_id).order_by(Move.ply)).all()
    assert [m.ply for m in moves] == list(range(1, game.ply + 1))
    rules = G.rules_of(game)
    assert rules.dump(G.replay(game, [m.notation for m in moves])) == game.state
    return game


@pytest.mark.parametrize("first", ["admin", "move"])
def test_admin_undo_and_a_move_queued_on_one_game_row(pg, tmp_path, first) -> None:
    game_id = pg.game("ataxx", ["f2", "b2", "e3"])  # bob (o) is on move at ply 3
    config = write_config(tmp_path / "pbem.toml", {"address": pg.settings.address, "home": str(tmp_path),
                                                    "database_url": pg.settings.database_url})
    name = pg.settings.database_url.rsplit("/", 1)[1]
    results: list[str] = []
    with psycopg.connect(pg.settings.database_url, autocommit=True) as watch, \
            psycopg.connect(pg.settings.database_url) as holder:
        holder.execute("SELECT id FROM game WHERE id = %s FOR UPDATE", (game_id,))
        if first == "admin":
            admin = _admin_undo(config, game_id)
            _until_waiting(watch, name, 1, "the admin undo")
            mover = _move(pg, game_id, results)
            _until_waiting(watch, name, 2, "the move")
        else:
            mover = _move(pg, game_id, results)
            _until_waiting(watch, name, 1, "the move")
            admin = _admin_undo(config, game_id)
            _until_waiting(watch, name, 2, "the admin undo")
        holder.rollback()  # let go: the two go through one after the other, in the order they queued
    output, _ = admin.communicate(timeout=WAIT)
    mover.join(WAIT)
    assert results == ["processed"]
    game = _assert_replays(pg, game_id)
    with Session(pg.engine) as session:
        audit = session.exec(select(AdminAction.action)).all()
        notations = [m.notation for m in G.moves(session, game)]
    if first == "admin":  # the undo took back e3 and b2; bob's g6 answered the board before it: refused
        assert admin.returncode == 0, output
        assert "took back" in output and audit == ["undo"]
        assert notations == ["f2"] and game.ply == 1
    else:  # the move came first: the undo saw a game that was no longer the one it read
        assert admin.returncode != 0 and "changed while this command ran" in output, output
        assert "took back" not in output and audit == []
        assert notations == ["f2", "b2", "e3", "g6"] and game.ply == 4
