"""Every `pbem admin` command against a real SQLite file, and the new email commands."""

from __future__ import annotations

import email
import email.policy

from sgfmill import sgf
from sqlmodel import Session, select

from pbem.commands.lines import reader
from pbem.core.models import Outbox
from pbem.runners.inbound import Service
from tests.cli.admin.conftest import fail, run, run_json
from tests.mailer import compose, proven, text

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"


def _mails(db, address: str) -> list[email.message.EmailMessage]:
    with Session(db.engine) as session:
        rows = session.exec(select(Outbox).where(Outbox.recipient == address).order_by(Outbox.id)).all()
    return [email.message_from_bytes(r.message, policy=email.policy.default) for r in rows]


def _text(mail) -> str:
    return text(mail)  # as written: format=flowed's stuffing taken off


def _safe(mail) -> None:
    for line in _text(mail).splitlines()[1:]:
        assert len(line) <= 72 and reader.classify(line.strip()) is None, line


def test_listing_and_showing(db) -> None:
    first = db.game("ataxx", ["f2", "b2"])
    db.game("capturego", ["d4"], {"size": 7}, first=CAROL)
    games = run_json("games")
    assert [(g["id"], g["kind"], g["ply"]) for g in games] == [(1, "ataxx", 2), (2, "capturego", 1)]
    assert [g["id"] for g in run_json("games", "--player", CAROL)] == [2]
    assert [g["id"] for g in run_json("games", "--kind", "ataxx", "--status", "active")] == [1]
    shown = run_json("game", str(first))
    assert [m["notation"] for m in shown["moves"]] == ["f2", "b2"]
    assert shown["sides"][0] == {"side": "x", "name": "alice", "address": ALICE}
    assert "f2" in run("game", str(first)) and "Admin changes:" in run("game", str(first))
    assert {p["address"]: p["games"] for p in run_json("players")} == {ALICE: 1, BOB: 2, CAROL: 1}
    assert run_json("player", BOB)["game_list"][0]["id"] == 1
    assert "there is no game #9" in fail("game", "9")


def test_adjudicate_undo_cancel_resend_with_mails_and_audit(db) -> None:
    gid = db.game("ataxx", ["f2", "b2", "e3"])
    run("undo", str(gid), "2", "--reason", "misread move", "--by", "ops")
    assert db.get(gid).ply == 1 and db.get(gid).turn == 1
    undone = _mails(db, BOB)[-1]
    assert "took back the last 2 moves" in _text(undone) and "It is your move" in _text(undone)
    _safe(undone)
    run("resend", str(gid), "--by", "ops")
    assert "the board at move 2" in _mails(db, ALICE)[-1]["Subject"]
    run("adjudicate", str(gid), "--winner", "o", "--reason", "x left the club", "--by", "ops")
    assert db.get(gid).result == "0-1" and "adjudicated" in db.get(gid).reason
    for address in (ALICE, BOB):
        mail = _mails(db, address)[-1]
        assert "The operator has decided game #1: x left the club." in _text(mail)
        assert [a.get_filename() for a in mail.iter_attachments()] == ["pbem-1.txt"]
        _safe(mail)
    assert "not in progress" in fail("undo", str(gid), "--reason", "too late")
    audit = run_json("game", str(gid))["audit"]
    assert [(a["action"], a["by"]) for a in audit] == [("undo", "ops"), ("resend", "ops"), ("adjudicate", "ops")]
    assert audit[0]["detail"] == "took back e3, b2" or audit[0]["detail"] == "took back b2, e3"

    other = db.game("capturego", ["d4", "e5"], {"size": 9})
    run("cancel", str(other), "--reason", "test game")
    assert db.get(other).status == "cancelled" and db.get(other).result is None
    assert "cancelled" in _mails(db, BOB)[-1]["Subject"]
    assert run_json("ratings", "capturego") == []
    (row,) = run_json("ratings", "ataxx")[:1]
    assert row["address"] == BOB and row["rating"] > 1500
    stats = run_json("stats")
    assert [s["line"] for s in stats["games"]] == ["x 0 (0.00%), o 1 (100.00%), draw 0 (0.00%)"]
    assert "ataxx: 1 games" in run("stats", "ataxx")
    assert "--winner" in fail("adjudicate", str(other), "--reason", "x")


def test_export_writes_an_sgf_file(db, tmp_path) -> None:
    gid = db.game("capturego", ["c3", "d4", "e5"], {"size": 7})
    target = tmp_path / "g.sgf"
    run("export", str(gid), "-o", str(target))
    nodes = sgf.Sgf_game.from_bytes(target.read_bytes()).get_main_sequence()[1:]
    assert [n.get_move() for n in nodes] == [("b", (2, 2)), ("w", (3, 3)), ("b", (4, 4))]
    assert run("export", str(gid)).startswith("(;FF[4]")


def test_ban_and_email_commands(db) -> None:
    service = Service(db.settings, db.engine)
    gid = db.game("ataxx", ["f2"])
    run("ban", CAROL, "--reason", "spam", "--by", "ops")
    assert service.handle(compose(CAROL, "watch 1")).status == "banned"
    assert _mails(db, CAROL) == []
    assert run_json("player", CAROL)["audit"][0]["action"] == "ban"
    run("unban", CAROL)
    assert [p["address"] for p in run_json("players", "--banned")] == []
    assert service.handle(proven(db.settings, db.engine, CAROL, "watch 1")).status == "processed"
    assert "You watch game #1" in _text(_mails(db, CAROL)[-1])
    service.handle(proven(db.settings, db.engine, BOB, f"move {gid} b2", game=gid))
    watched = _mails(db, CAROL)[-1]
    assert watched["Subject"].startswith("[pbem #1] Ataxx: bob played b2") and "unwatch 1" in _text(watched)
    _safe(watched)
    service.handle(proven(db.settings, db.engine, CAROL, "unwatch 1"))
    service.handle(proven(db.settings, db.engine, ALICE, f"move {gid} e3", game=gid))
    assert "no longer watch" in _text(_mails(db, CAROL)[-1])

    service.handle(proven(db.settings, db.engine, BOB, "record 1"))
    record = _mails(db, BOB)[-1]
    assert [a.get_filename() for a in record.iter_attachments()] == ["pbem-1.txt"]
    run("adjudicate", "1", "--winner", ALICE, "--reason", "bob resigned by phone")
    service.handle(proven(db.settings, db.engine, CAROL, "ratings ataxx"))
    service.handle(proven(db.settings, db.engine, CAROL, "stats"))
    ratings_mail, stats_mail = _mails(db, CAROL)[-2:]
    assert "alice" in _text(ratings_mail).splitlines()[5]  # the winner heads the list
    assert "x 1 (100.00%), o 0 (0.00%), draw 0 (0.00%)" in _text(stats_mail)
    for mail in (record, ratings_mail, stats_mail):
        _safe(mail)
