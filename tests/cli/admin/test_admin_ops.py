"""Issue 12, operations: `pbem admin status`, `backup` and `prune` on real SQLite files."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import stat
from datetime import timedelta

from click.testing import CliRunner
from sqlalchemy import insert
from sqlmodel import Session, func, select

from pbem.cli.main import main
from pbem.core.db import transaction
from pbem.core.models import Bounce, Game, InboundMessage, Move, Outbox
from pbem.games.clock import now
from tests.cli.admin.conftest import fail, run, write_config


def _status(*args: str, config: str | None = None) -> tuple[int, dict]:
    prefix = ["-c", config] if config else []
    result = CliRunner().invoke(main, [*prefix, "admin", "status", "--json", *args])
    return result.exit_code, json.loads(result.output)


def _mail(n: int, status: str, created_ago: timedelta, sent_ago: timedelta | None = None, **row: object) -> dict:
    moment = now()
    return {"message_id": f"<{n}@pbem>", "recipient": "alice@example.org", "template": "board", "message": b"x" * 100,
            "status": status, "attempts": 1, "next_attempt_at": moment, "created_at": moment - created_ago,
            "sent_at": moment - sent_ago if sent_ago is not None else None, "game_id": None, "player_id": None, **row}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_status_is_ok_then_degraded_by_failed_or_stuck_mail(db) -> None:
    code, report = _status()
    assert code == 0 and report["status"] == "ok" and report["problems"] == []
    assert report["outbox_pending"] == 0 and report["oldest_unsent"] is None
    # the sandbox has no mailbox to probe, and no daemon ran: it says so, not "reachable"
    assert report["mailbox"]["reachable"] is None and "last daemon heartbeat never" in report["mailbox"]["detail"]
    text = CliRunner().invoke(main, ["admin", "status"]).output
    assert "status: ok" in text and "mailbox: not probed (sandbox: no IMAP mailbox; last daemon heartbeat never" in text
    with db.engine.begin() as conn:
        conn.execute(insert(Outbox.__table__), [_mail(1, "pending", timedelta(hours=1))])
    code, report = _status()
    assert code == 1 and report["status"] == "degraded" and report["outbox_pending"] == 1
    assert report["oldest_unsent_age_s"] >= 3600 and "waits for 60 minutes" in report["problems"][0]
    with db.engine.begin() as conn:
        conn.execute(Outbox.__table__.update().values(status="failed"))
    code, report = _status()
    assert code == 1 and report["outbox_failed"] == 1 and "outbox --failed" in report["problems"][0]


def test_status_is_down_when_the_mailbox_or_the_database_is_not_there(db, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PBEM_TEST_PW", "secret")
    port = _free_port()  # nothing listens there
    sections = (f'[imap]\nhost = "127.0.0.1"\nport = {port}\nsecurity = "none"\nusername = "game"\n'
                f'password_env = "PBEM_TEST_PW"\n[smtp]\nhost = "127.0.0.1"\nport = {port}\nsecurity = "none"\n')
    config = write_config(tmp_path / "pbem.toml", {"home": str(tmp_path)}, sections)
    code, report = _status("--timeout", "2", config=config)
    assert code == 2 and report["status"] == "down" and not report["mailbox"]["reachable"]
    assert report["database"]["reachable"]  # the records are still read and shown
    empty = write_config(tmp_path / "empty.toml", {"home": str(tmp_path / "nowhere")})
    code, report = _status(config=empty)
    assert code == 2 and not report["database"]["reachable"] and "pbem admin migrate" in report["database"]["detail"]


def test_backup_copies_the_live_database_while_a_writer_holds_it(db, tmp_path) -> None:
    db.game("ataxx", ["f2", "b2"])
    db.game("capturego", ["d4"], {"size": 7})
    writer = sqlite3.connect(db.home / "pbem.sqlite3", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE game SET ply = 99 WHERE id = 1")  # not committed: not in the copy
    target = tmp_path / "copy" / "backup.sqlite3"
    target.parent.mkdir()
    try:
        out = run("backup", str(target))
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert "checked" in out and target.exists() and not (target.parent / "backup.sqlite3.partial").exists()
    copy = sqlite3.connect(target)
    assert copy.execute("SELECT id, ply FROM game ORDER BY id").fetchall() == [(1, 2), (2, 1)]
    assert copy.execute("SELECT count(*) FROM move").fetchone() == (3,)
    copy.close()
    assert "exists; give --force" in fail("backup", str(target))
    target.chmod(0o644)
    run("backup", str(target), "--force")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600  # the players' addresses: for its owner alone


def test_a_backup_is_for_its_owner_alone_whatever_the_umask(db, tmp_path) -> None:
    target = tmp_path / "backup.sqlite3"
    old = os.umask(0o022)
    try:
        run("backup", str(target))
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_plural_says_one_unit_in_the_singular() -> None:
    from pbem.cli.admin.common import plural

    assert [plural(1, "day"), plural(1.0, "day"), plural(1.5, "day"), plural(0, "minute")] == [
        "1 day", "1 day", "1.5 days", "0 minutes"]


def test_backup_of_postgresql_gives_pg_dump_advice(tmp_path) -> None:
    config = write_config(tmp_path / "pbem.toml", {"home": str(tmp_path),
                                                   "database_url": "postgresql://127.0.0.1:9/none"})
    out = fail("backup", str(tmp_path / "x.dump"), config=config)
    assert "pg_dump --format=custom" in out and not (tmp_path / "x.dump").exists()


def test_prune_deletes_old_sent_mail_and_inbound_records_but_keeps_what_records_need(db, tmp_path) -> None:
    gid = db.game("ataxx", ["f2"])
    with Session(db.engine) as session:
        game = session.get(Game, gid)
        alice_id = game.player0_id
    old, recent = timedelta(days=200), timedelta(days=3)
    mails = [_mail(n, "sent", old, old, game_id=gid, player_id=alice_id) for n in range(1, 6)]  # one thread
    mails += [_mail(6, "sent", recent, recent, game_id=gid, player_id=alice_id),  # its newest: kept anyway
              _mail(7, "failed", old, None), _mail(8, "pending", old, None),  # never sent: kept
              _mail(9, "sent", old, old, game_id=gid, player_id=alice_id)]
    mails[8]["created_at"] = mails[0]["created_at"] - timedelta(days=1)  # not the thread's first by id, though
    inbound = [{"message_id": f"<in{n}@client>", "digest": "0" * 64, "sender": "alice@example.org",
                "status": "processed", "received_at": now() - (old if n < 4 else recent)} for n in range(1, 5)]
    with db.engine.begin() as conn:
        conn.execute(insert(Outbox.__table__), mails)
        conn.execute(insert(InboundMessage.__table__), inbound)
    with transaction(db.engine) as session:
        move = session.exec(select(Move).where(Move.game_id == gid)).one()
        move.message_id = "<in1@client>"  # the move's own mail: the record names it
        session.add(move)
        session.add(Bounce(address="alice@example.org", outbox_message_id="<3@pbem>", inbound_message_id="<in2@client>",
                           created_at=now()))

    assert "would delete 3 sent mails and 1 inbound record older than 90 days" in run("prune", "--dry-run")
    with Session(db.engine) as session:
        assert session.exec(select(func.count(Outbox.id))).one() == 9
    assert "deleted 3 sent mails and 1 inbound record older than 90 days" in run("prune")
    with Session(db.engine) as session:
        kept = session.exec(select(Outbox.message_id).order_by(Outbox.id)).all()
        left_in = session.exec(select(InboundMessage.message_id).order_by(InboundMessage.id)).all()
        assert session.get(Game, gid).ply == 1 and len(session.exec(select(Move)).all()) == 1
    # the thread's first (1) and newest (9), the bounced one (3), the recent one and the unsent ones
    assert kept == ["<1@pbem>", "<3@pbem>", "<6@pbem>", "<7@pbem>", "<8@pbem>", "<9@pbem>"]
    assert left_in == ["<in1@client>", "<in2@client>", "<in4@client>"]
    assert "deleted 0 sent mails" in run("prune")
    assert "deleted 1 sent mail and 1 inbound record older than 1 day" in run("prune", "--older-than", "1")  # #6, three days old


def test_prune_reads_retention_days_from_the_configuration(db, tmp_path) -> None:
    config = write_config(tmp_path / "pbem.toml", {"home": str(tmp_path), "retention_days": 400})
    assert "older than 400 days" in run("prune", "--dry-run", config=config)
