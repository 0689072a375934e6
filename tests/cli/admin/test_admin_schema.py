"""Issue 10: settings once per invocation, migrations only by `admin migrate`, success after commit."""

from __future__ import annotations

import sqlite3

from alembic import command
from alembic.config import Config
from click.testing import CliRunner
from sqlalchemy import event
from sqlalchemy.orm import Session as OrmSession

from pbem.cli.main import main
from pbem.core import config as config_mod
from pbem.core.db import MIGRATIONS, make_engine
from tests.cli.admin.conftest import fail, run, run_json, write_config


def test_an_unmigrated_database_is_refused_with_a_hint_and_left_alone(tmp_path) -> None:
    config = write_config(tmp_path / "pbem.toml", {"home": str(tmp_path / "home")})
    database = tmp_path / "home" / "pbem.sqlite3"
    assert "there is no database at" in fail("games", config=config) and "pbem admin migrate" in fail(
        "games", config=config)
    assert not database.exists()  # a listing never creates one

    database.parent.mkdir()
    sqlite3.connect(database).close()
    assert "has no pbem schema yet; run `pbem admin migrate`" in fail("players", config=config)

    alembic = Config()
    alembic.set_main_option("script_location", str(MIGRATIONS))
    engine = make_engine(f"sqlite:///{database}")
    with engine.begin() as conn:
        alembic.attributes["connection"] = conn
        command.upgrade(alembic, "0005")
    engine.dispose()
    assert "older schema (0005)" in fail("undo", "1", "--reason", "x", config=config)

    assert "database is up to date" in run("migrate", config=config)
    assert run_json("games", config=config) == []


def test_settings_are_loaded_once_per_invocation(db, monkeypatch) -> None:
    gid = db.game("ataxx", ["f2", "b2"])
    calls = []
    real = config_mod.load
    monkeypatch.setattr(config_mod, "load", lambda path: calls.append(path) or real(path))
    run("undo", str(gid), "--reason", "typo")  # mails two players: several helpers need the settings
    assert calls == [None]


def test_the_success_line_comes_only_after_the_commit(db) -> None:
    gid = db.game("ataxx", ["f2", "b2"])

    def refuse(_session) -> None:  # noqa: ANN001
        raise RuntimeError("disk full")

    event.listen(OrmSession, "before_commit", refuse)
    try:
        result = CliRunner().invoke(main, ["admin", "undo", str(gid), "--reason", "typo"])
    finally:
        event.remove(OrmSession, "before_commit", refuse)
    assert result.exit_code != 0 and "took back" not in result.output
    assert db.get(gid).ply == 2
    assert "took back b2" in run("undo", str(gid), "--reason", "typo")


def test_a_change_refuses_a_game_that_moved_on(db) -> None:
    gid = db.game("ataxx", ["f2", "b2"])
    assert "is at ply 2, not 1; nothing was taken back" in fail("undo", str(gid), "--reason", "x", "--at-ply", "1")
    assert "took back b2" in run("undo", str(gid), "--reason", "x", "--at-ply", "2")


def test_an_unreachable_database_is_one_clear_line_without_its_password(tmp_path) -> None:
    url = "postgresql://ops:hunter2@127.0.0.1:9/pbem"  # nothing listens on the discard port
    config = write_config(tmp_path / "pbem.toml", {"home": str(tmp_path), "database_url": url})
    out = fail("games", config=config)
    assert "cannot use the database" in out and "hunter2" not in out and "Traceback" not in out
