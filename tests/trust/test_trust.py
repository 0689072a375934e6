"""Proof of receipt, outdated boards, robots, bounces, the reply budget and the quarantine."""

from __future__ import annotations

from dataclasses import replace

import pytest
from click.testing import CliRunner
from sqlmodel import Session, select

from pbem.cli.main import main
from pbem.commands.lines import reader
from pbem.commands.player import held
from pbem.core.models import Bounce, Game, InboundMessage, Move, Outbox, Quarantine
from pbem.runners import quarantine
from pbem.runners.daemon import Daemon
from tests.mailer import GAME, compose, parse, reply_to, text

ALICE, BOB, EVE = "alice@example.org", "bob@example.org", "eve@example.org"


def _moves(server) -> int:
    with Session(server.engine) as session:
        return len(session.exec(select(Move)).all())


def _start(server):
    """Alice challenges Bob, Bob accepts by replying: game #1, Alice to move; her 'game on' mail."""
    server.send(compose(ALICE, "challenge ataxx bob@example.org colour=first"))
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))
    started = server.last(ALICE)
    assert "your move" in started["Subject"]
    return started


def test_a_reply_to_our_mail_moves_a_forged_fresh_mail_does_not(server) -> None:
    started = _start(server)
    assert "[k:" in started["Subject"] and "+g1-" in started["Reply-To"]
    # A forger writes as Alice, with no token: nothing changes, and nothing goes to Eve. Alice had
    # one of today's three answers to a mail without proof (her first challenge): the forger
    # draws the other two at most, whatever he sends.
    before = len(server.mails(ALICE))
    for _ in range(5):
        server.send(compose(ALICE, "move 1 f2", Return_Path=f"<{EVE}>"))
    assert _moves(server) == 0
    assert len(server.mails(ALICE)) == before + 2
    assert server.mails(EVE) == []
    # Alice's real reply carries the plus-address: the move is played.
    server.send(reply_to(ALICE, started, "f2"))
    assert _moves(server) == 1


def test_the_subject_token_is_proof_when_the_client_drops_reply_to(server) -> None:
    started = _start(server)
    server.send(compose(ALICE, "f2", subject=f"Re: {started['Subject']}", In_Reply_To=started["Message-ID"]))
    assert _moves(server) == 1
    # A token of another player proves nothing.
    bob_mail = server.last(BOB)
    forged = bob_mail["Subject"]
    server.send(compose(ALICE, "move 1 f3", subject=f"Re: {forged}"))
    assert _moves(server) == 1


def test_dmarc_pass_from_the_named_receiver_counts_as_proof(server) -> None:
    _start(server)
    header = "mx.games.test; spf=pass smtp.mailfrom=example.org; dmarc=pass (p=reject) header.from=example.org"
    server.send(compose(ALICE, "move 1 f2", Authentication_Results=header))
    assert _moves(server) == 0  # not configured: not trusted
    server.service.settings = replace(server.service.settings, trusted_authserv_id="mx.games.test")
    server.send(compose(ALICE, "move 1 f2", Authentication_Results=header.replace("mx.games", "evil")))
    assert _moves(server) == 0  # another server's verdict
    server.send(compose(ALICE, "move 1 f2\nname Alice Liddell", Authentication_Results=header))
    assert _moves(server) == 0  # DMARC proves who wrote, not that they saw the board: the board comes back
    said = " ".join(text(server.last(ALICE)).split())
    assert "Alice Liddell" in said and "I act on game #1 only in a reply" in said
    server.send(reply_to(ALICE, server.last(ALICE), "f2"))
    assert _moves(server) == 1


def test_accept_of_a_direct_challenge_needs_the_invited_players_token(server) -> None:
    server.send(compose(ALICE, "challenge ataxx bob@example.org"))
    server.confirm(ALICE)
    server.send(compose(BOB, "accept 1"))  # forged: Bob got a mail with his token
    with Session(server.engine) as session:
        assert session.exec(select(Game)).all() == []
    server.send(reply_to(BOB, server.mails(BOB)[0], "accept 1"))
    with Session(server.engine) as session:
        assert len(session.exec(select(Game)).all()) == 1


def test_a_reply_to_an_outdated_board_is_refused_with_the_current_board(server) -> None:
    started = _start(server)
    server.send(reply_to(ALICE, started, "f2"))
    to_bob = server.last(BOB)
    server.send(reply_to(BOB, to_bob, "b1"))
    assert _moves(server) == 2
    # Alice sends again from the old mail (a double send): the game has moved on since that board.
    server.send(reply_to(ALICE, started, "f3"))
    assert _moves(server) == 2
    refusal = server.last(ALICE)
    flat = " ".join(text(refusal).split())
    assert "answers an older board of game #1" in flat and "b1" in flat
    # Replying to the refusal (the current board) is accepted.
    server.send(reply_to(ALICE, refusal, "f3"))
    assert _moves(server) == 3


ROBOTS = {
    "null return path": {"Return_Path": "<>"},
    "mailer-daemon": {"sender": "MAILER-DAEMON@example.org"},
    "auto-submitted": {"Auto_Submitted": "auto-replied"},
    "x-autoreply": {"X_Autoreply": "yes"},
    "vacation subject": {"subject": "Out of office: back Monday"},
    "precedence bulk": {"Precedence": "bulk"},
    "precedence junk": {"Precedence": "junk"},
    "precedence list": {"Precedence": "list"},
    "list-id": {"List_Id": "<games.lists.example.org>"},
    "our loop marker": {"X_PBEM_Loop": GAME},
    "our own address": {"sender": GAME},
}


@pytest.mark.parametrize("case", sorted(ROBOTS))
def test_robots_get_no_reply_and_change_nothing(server, case) -> None:
    headers = dict(ROBOTS[case])
    sender = headers.pop("sender", ALICE)
    subject = headers.pop("subject", "")
    raw = compose(sender, "challenge ataxx bob@example.org\nhelp", subject=subject, **headers)
    assert server.send(raw) == "robot"
    assert server.count() == 0
    with Session(server.engine) as session:
        assert session.exec(select(InboundMessage.status)).all() == ["robot"]


def test_a_bounce_of_our_mail_is_recorded_against_the_player(server, tmp_path) -> None:
    server.send(compose(ALICE, "challenge ataxx carol@nowhere.example"))
    server.confirm(ALICE)
    invite = server.last("carol@nowhere.example")
    dsn = (
        "From: MAILER-DAEMON@mx.example.org\r\nTo: pbem@games.test\r\nSubject: Undelivered Mail\r\n"
        "Message-ID: <dsn1@mx.example.org>\r\nContent-Type: multipart/report; report-type=delivery-status;"
        ' boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nUser unknown.\r\n'
        "--b\r\nContent-Type: message/delivery-status\r\n\r\nFinal-Recipient: rfc822; carol@nowhere.example\r\n"
        "Status: 5.1.1\r\n\r\n--b\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"Message-ID: {invite['Message-ID']}\r\nTo: carol@nowhere.example\r\n\r\n--b--\r\n"
    ).encode()
    before = server.count()
    assert server.send(dsn) == "robot"
    assert server.count() == before
    with Session(server.engine) as session:
        (bounce,) = session.exec(select(Bounce)).all()
        assert bounce.address == "carol@nowhere.example" and bounce.outbox_message_id == invite["Message-ID"]
        assert bounce.reason == "5.1.1"
    config = tmp_path / "pbem.toml"
    config.write_text(f'[server]\naddress = "{GAME}"\nhome = "{tmp_path.as_posix()}"\n', encoding="utf-8")
    out = CliRunner().invoke(main, ["-c", str(config), "admin", "bounces"]).output
    assert "carol@nowhere.example" in out and "5.1.1" in out


def test_error_replies_are_rationed_per_address_and_day(server) -> None:
    server.service.settings = replace(server.service.settings, max_error_replies_per_day=3)
    server.send(compose(EVE, "help"))  # a first mail, without proof: today's one answer to that
    helped = server.last(EVE)
    statuses = [server.send(reply_to(EVE, helped, "nonsense without commands")) for _ in range(6)]
    assert statuses == ["processed"] * 3 + ["silenced"] * 3  # replies prove receipt; errors are rationed
    assert len(server.mails(EVE)) == 1 + 3
    server.send(reply_to(EVE, helped, "help"))  # a useful answer is not rationed
    assert len(server.mails(EVE)) == 5
    # mails without proof: three answers a day (the first help was one), the last says how to go on
    assert [server.send(compose(EVE, "help")) for _ in range(3)] == ["processed", "processed", "silenced"]
    assert len(server.mails(EVE)) == 7
    assert "reply to this mail or to any other of my mails" in " ".join(text(server.last(EVE)).split())
    with Session(server.engine) as session:
        assert len(session.exec(select(InboundMessage).where(InboundMessage.status == "silenced")).all()) == 4


def test_oversized_mail_and_too_many_commands_get_one_short_error(server) -> None:
    server.send(compose(ALICE, "help\n" + "x" * 300_000))
    assert "bigger than 256 KiB" in " ".join(text(server.last(ALICE)).split())
    assert len(server.mails(ALICE)) == 1
    server.send(compose(BOB, "\n".join(["help"] * 40)))
    (mail,) = server.mails(BOB)
    assert "more than 30 command lines" in " ".join(text(mail).split())


class _Boom(Exception):
    pass


def test_a_message_that_keeps_failing_is_quarantined_and_can_be_retried(server, tmp_path, monkeypatch) -> None:
    settings = server.service.settings
    daemon = Daemon(replace(settings, imap=object(), smtp=None), engine=server.engine, source=_Source())
    daemon._loop = _Loop()
    raw = compose(ALICE, "help")
    real = daemon.service.handle

    def boom(data: bytes, envelope=None, gate=None):  # noqa: ANN001, ANN202
        raise _Boom("disk on fire")

    monkeypatch.setattr(daemon.service, "handle", boom)
    finished = [daemon.process("k1", raw) for _ in range(quarantine.MAX_TRIES)]
    assert finished == [False] * (quarantine.MAX_TRIES - 1) + [True]  # set aside: the loop goes on
    daemon._done(["k1"])
    assert daemon.source.marked == ["k1"]  # and the mailbox is told
    (row,) = quarantine.quarantined(server.engine)
    assert row.tries == quarantine.MAX_TRIES and "disk on fire" in row.error and row.raw == raw
    assert server.count() == 0
    daemon.service.handle = real
    config = tmp_path / "pbem.toml"
    config.write_text(f'[server]\naddress = "{GAME}"\nhome = "{tmp_path.as_posix()}"\n', encoding="utf-8")
    runner = CliRunner()
    assert "disk on fire" in runner.invoke(main, ["-c", str(config), "admin", "quarantine", "list"]).output
    out = runner.invoke(main, ["-c", str(config), "admin", "quarantine", "retry", str(row.id)]).output
    assert "processed" in out
    assert "How to play" in server.last(ALICE)["Subject"]
    with Session(server.engine) as session:
        assert session.exec(select(Quarantine)).all() == []


def test_a_retry_that_fails_again_keeps_the_message_quarantined(server, tmp_path, monkeypatch) -> None:
    from pbem.runners.inbound import Service

    raw = compose(ALICE, "help")
    for _ in range(quarantine.MAX_TRIES):  # as the daemon counts a message that keeps raising
        quarantine.failed(server.engine, server.service.parse(raw), raw, "_Boom: disk on fire")
    (row,) = quarantine.quarantined(server.engine)
    server.service.set_aside(raw, "quarantined")
    config = tmp_path / "pbem.toml"
    config.write_text(f'[server]\naddress = "{GAME}"\nhome = "{tmp_path.as_posix()}"\n', encoding="utf-8")
    runner = CliRunner()
    real = Service._handle

    def boom(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        raise _Boom("the fix did not fix it")

    monkeypatch.setattr(Service, "_handle", boom)
    result = runner.invoke(main, ["-c", str(config), "admin", "quarantine", "retry", str(row.id)])
    assert result.exit_code != 0 and "failed again: the fix did not fix it" in result.output
    (again,) = quarantine.quarantined(server.engine)  # still there, with its bytes and the new error
    assert again.id == row.id and again.raw == raw and again.tries == quarantine.MAX_TRIES + 1
    assert again.error == "_Boom: the fix did not fix it"
    with Session(server.engine) as session:  # and the daemon does not read it again meanwhile
        assert session.exec(select(InboundMessage.status)).all() == ["failed"]
    assert server.count() == 0

    monkeypatch.setattr(Service, "_handle", real)
    out = runner.invoke(main, ["-c", str(config), "admin", "quarantine", "retry", str(row.id)]).output
    assert "processed" in out and "How to play" in server.last(ALICE)["Subject"]
    with Session(server.engine) as session:
        assert session.exec(select(Quarantine)).all() == []
        assert session.exec(select(InboundMessage.status)).all() == ["processed"]


def test_outbox_admin_lists_failed_mails_and_retries_them(server, tmp_path) -> None:
    server.send(compose(ALICE, "help"))
    with Session(server.engine) as session:
        row = session.exec(select(Outbox)).one()
        row.status, row.last_error = "failed", "550 no such user"
        session.add(row)
        session.commit()
        row_id = row.id
    config = tmp_path / "pbem.toml"
    config.write_text(f'[server]\naddress = "{GAME}"\nhome = "{tmp_path.as_posix()}"\n', encoding="utf-8")
    runner = CliRunner()
    assert "550 no such user" in runner.invoke(main, ["-c", str(config), "admin", "outbox", "--failed"]).output
    runner.invoke(main, ["-c", str(config), "admin", "outbox", "retry", str(row_id)])
    with Session(server.engine) as session:
        assert session.get(Outbox, row_id).status == "pending"
    assert parse  # the mailer's parser reads our mails


class _Source:
    def __init__(self) -> None:
        self.marked: list[str] = []

    def done(self, key: str) -> None:
        self.marked.append(key)

    def done_all(self, keys: list[str]) -> None:
        self.marked.extend(keys)

    def close(self) -> None:
        pass


class _Loop:
    def call_soon_threadsafe(self, fn) -> None:  # noqa: ANN001
        fn()


@pytest.mark.parametrize(
    ("line", "quoted"),
    [
        ("challenge ataxx bob@example.org colour=x", "challenge ataxx bob@example.org colour=x"),
        ("say 1 your prize: http://evil.example/win", "say …"),
        ("name Visit evil.com today", "name …"),
        ("challenge ataxx http://evil@example.org/x", "challenge ataxx …"),
        ("challenge ataxx www.evil.example", "challenge ataxx …"),
        ("#2 resign", "#2 resign"),
        ("timezone Europe/Rome a b c d e f", "timezone Europe/Rome a b c d …"),
        ("vacation " + "9" * 60, "vacation " + "9" * 39 + "…"),
    ],
)
def test_a_held_notice_quotes_a_line_only_as_far_as_needed_to_recognise_it(line: str, quoted: str) -> None:
    """The notice goes to the address in From, whoever wrote: never a forger's text or link."""
    assert held.quote(reader.classify(line)) == quoted
