"""Internationalised addresses (issue 11, finding 5): read, answered, and sent or refused clearly."""

from __future__ import annotations

import asyncio
import email.policy
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbem.mail.message.inbound import parse_message
from pbem.mail.message.outbound import build, needs_smtputf8
from pbem.mail.transport import smtp
from pbem.mail.transport.sandbox import SandboxServer, read_mailbox
from pbem.mail.transport.smtp import AddressNotSupported, PermanentFailure, SmtpSettings
from tests.mailrig import free_port

JOERG = "jörg@example.org"
IDN = "alice@bücher.example"


class Recorder:
    """An aiosmtpd handler that keeps what it was given."""

    def __init__(self) -> None:
        self.received: list[tuple[str, list[str], list[str], bytes]] = []

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.received.append(
            (envelope.mail_from, list(envelope.rcpt_tos), list(envelope.mail_options), envelope.original_content)
        )
        return "250 2.0.0 OK"


@pytest.fixture(params=[True, False], ids=["smtputf8", "ascii-only"])
def server(request: pytest.FixtureRequest) -> Iterator[tuple[Recorder, SmtpSettings, bool]]:
    recorder = Recorder()
    controller = Controller(
        recorder, hostname="127.0.0.1", port=free_port(), enable_SMTPUTF8=request.param, ident="test"
    )
    controller.start()
    try:
        yield recorder, SmtpSettings("127.0.0.1", controller.port, security="none", timeout=10), request.param
    finally:
        controller.stop()


def reply_to(address: str, name: str = "Jörg Müller") -> bytes:
    return build(
        message_id="<pbem.0123456789abcdef01234567@pbem.example>",
        sender=("pbem", "game@pbem.example"),
        recipient=(name, address),
        reply_to="game+g1-0123456789abcdef@pbem.example",
        subject="[pbem #1] Ataxx: your move, Jörg",
        body="Your move.\n",
        loop_marker="game@pbem.example",
        date=datetime(2026, 11, 30, 10, 0, tzinfo=UTC),
    )


@pytest.mark.parametrize(
    "header, sender",
    [
        (f"Jörg <{JOERG}>", JOERG),
        ("=?utf-8?q?J=C3=B6rg?= <jörg@example.org>", JOERG),
        ("JÖRG@Example.ORG", JOERG),
        ("alice@xn--bcher-kva.example", IDN),
        (f"Alice <{IDN}>", IDN),
        ("用户@例子.广告", "用户@例子.广告"),
        ("=?utf-8?q?j=c3=b6rg?=@example.org", JOERG),  # what Python's email package writes
    ],
)
def test_international_senders_parse(header: str, sender: str) -> None:
    env = parse_message(f"From: {header}\r\nSubject: x\r\n\r\nhelp\r\n".encode())
    assert (env.sender, env.automatic, env.text) == (sender, None, "help")


def test_a_mail_from_pythons_email_package_is_answered_at_the_real_address() -> None:
    msg = EmailMessage()
    msg["From"] = f"Jörg <{JOERG}>"
    msg["Subject"] = "help"
    msg.set_content("help\n")
    env = parse_message(msg.as_bytes(policy=email.policy.SMTP))
    assert (env.sender, env.sender_name) == (JOERG, "Jörg")
    env = parse_message(msg.as_bytes(policy=email.policy.SMTPUTF8))
    assert (env.sender, env.sender_name) == (JOERG, "Jörg")


def test_replies_to_international_addresses_are_built_and_read_back() -> None:
    raw = reply_to(JOERG)
    assert b"To: =?utf-8?b?" in raw and "<jörg@example.org>".encode() in raw
    assert parse_message(raw).recipients == (JOERG,)
    raw = reply_to(IDN, name="Alice")
    assert b"To: Alice <alice@xn--bcher-kva.example>" in raw
    assert parse_message(raw).recipients == (IDN,)
    assert needs_smtputf8(JOERG) and not needs_smtputf8(IDN)


def test_a_non_ascii_local_part_travels_only_with_smtputf8(server: tuple[Recorder, SmtpSettings, bool]) -> None:
    recorder, settings, smtputf8 = server
    data = reply_to(JOERG)
    if smtputf8:
        asyncio.run(smtp.send(settings, "game@pbem.example", JOERG, data))
        [(mail_from, rcpts, options, content)] = recorder.received
        assert (mail_from, rcpts) == ("game@pbem.example", [JOERG])
        assert "SMTPUTF8" in options
        assert parse_message(content).recipients == (JOERG,)
    else:
        with pytest.raises(AddressNotSupported, match="SMTPUTF8") as caught:
            asyncio.run(smtp.send(settings, "game@pbem.example", JOERG, data))
        assert isinstance(caught.value, PermanentFailure)  # the outbox marks it failed, no retries
        assert recorder.received == []


def test_an_idn_domain_travels_as_ascii_everywhere(server: tuple[Recorder, SmtpSettings, bool]) -> None:
    recorder, settings, _smtputf8 = server
    asyncio.run(smtp.send(settings, "game@pbem.example", IDN, reply_to(IDN, name="Alice")))
    [(_mail_from, rcpts, options, _content)] = recorder.received
    assert rcpts == ["alice@xn--bcher-kva.example"]
    assert "SMTPUTF8" not in options


def test_an_invalid_idn_domain_is_a_permanent_failure(server: tuple[Recorder, SmtpSettings, bool]) -> None:
    _recorder, settings, _smtputf8 = server
    with pytest.raises(PermanentFailure, match="unusable address"):
        asyncio.run(smtp.send(settings, "game@pbem.example", "alice@bad\u200d-.example", b"Subject: x\r\n\r\nx\r\n"))


def test_sandbox_delivers_to_an_international_mailbox(tmp_path: Path) -> None:
    with SandboxServer(tmp_path) as sandbox:
        settings = SmtpSettings("127.0.0.1", sandbox.port, security="none", timeout=5)
        asyncio.run(smtp.send(settings, "game@pbem.example", JOERG, reply_to(JOERG)))
    [stored] = read_mailbox(tmp_path, JOERG)
    env = parse_message(stored)
    assert env.recipients == (JOERG,)
    assert env.subject == "[pbem #1] Ataxx: your move, Jörg"
