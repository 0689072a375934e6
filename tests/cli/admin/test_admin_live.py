"""The admin CLI on the daemon's database while `pbem serve` runs against the real mail servers."""

from __future__ import annotations

import json
import smtplib
import time

import pytest

from tests.cli.admin.conftest import run, run_json
from tests.integration.daemon import DaemonProcess
from tests.mailer import compose, parse, reply_to

pytestmark = pytest.mark.integration


def _send(rig, user: str, raw: bytes) -> None:
    with smtplib.SMTP("127.0.0.1", rig.smtp_port, timeout=10) as smtp:
        smtp.sendmail(rig.address(user), [rig.address("game")], raw)


def _wait(rig, user: str, words: str, daemon: DaemonProcess, timeout: float = 30):
    """The first mail to `user` whose subject holds `words`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for raw in rig.messages(user):
            mail = parse(raw)
            if words in mail["Subject"]:
                return mail
        time.sleep(0.2)
    raise AssertionError(f"no mail to {user} about {words!r}\n{daemon.log_tail()}")


def test_undo_and_adjudication_reach_both_mailboxes(mailrig, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PBEM_TEST_IMAP_PASSWORD", mailrig.users["game"])  # the CLI reads the same config
    daemon = DaemonProcess(mailrig, tmp_path / "pbem")
    daemon.start()
    config = str(daemon.config)
    alice, bob = mailrig.address("alice"), mailrig.address("bob")
    try:
        _send(mailrig, "alice", compose(alice, f"challenge ataxx {bob} colour=first"))
        held = _wait(mailrig, "alice", "Did you write to me?", daemon)  # a first mail: no proof yet
        _send(mailrig, "alice", reply_to(alice, held, "confirm"))
        invite = _wait(mailrig, "bob", "challenges you", daemon)
        _send(mailrig, "bob", reply_to(bob, invite, "accept 1"))
        started = _wait(mailrig, "alice", "[pbem #1]", daemon)
        _send(mailrig, "alice", reply_to(alice, started, "f2"))
        _wait(mailrig, "bob", "your move", daemon)
        assert run_json("game", "1", config=config)["ply"] == 1  # read while the daemon runs

        run("undo", "1", "--reason", "alice mistyped", "--by", "ops", config=config)
        for user in ("alice", "bob"):
            mail = _wait(mailrig, user, "taken back", daemon)
            assert "alice mistyped" in " ".join(mail.get_body(("plain",)).get_content().split())
        assert run_json("game", "1", config=config)["ply"] == 0

        run("adjudicate", "1", "--winner", "o", "--reason", "x abandoned the game", config=config)
        for user in ("alice", "bob"):
            mail = _wait(mailrig, user, "decided by the operator, 0-1", daemon)
            assert [a.get_filename() for a in mail.iter_attachments()] == ["pbem-1.txt"]
        shown = run_json("game", "1", config=config)
        assert [a["action"] for a in shown["audit"]] == ["undo", "adjudicate"]
        assert {m["template"] for m in shown["mails_out"]} >= {"undone", "adjudicated"}
        assert [m["from"] for m in shown["mails_in"]] == [alice]  # the move
        assert run_json("stats", "ataxx", config=config)["games"][0]["line"].startswith("x 0 (0.00%), o 1 (100.00%)")
    finally:
        assert daemon.stop() == 0, daemon.log_tail()


def test_status_logs_in_to_the_real_mailbox(mailrig, tmp_path, monkeypatch) -> None:
    from click.testing import CliRunner

    from pbem.cli.main import main

    monkeypatch.setenv("PBEM_TEST_IMAP_PASSWORD", mailrig.users["game"])
    config = str(DaemonProcess(mailrig, tmp_path / "pbem").config)
    run("migrate", config=config)
    result = CliRunner().invoke(main, ["-c", config, "admin", "status", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["mailbox"]["reachable"]
    monkeypatch.setenv("PBEM_TEST_IMAP_PASSWORD", "wrong")
    result = CliRunner().invoke(main, ["-c", config, "admin", "status", "--json"])
    assert result.exit_code == 2, result.output
    report = json.loads(result.output)
    assert report["status"] == "down" and not report["mailbox"]["reachable"]
