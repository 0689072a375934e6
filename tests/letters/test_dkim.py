"""DKIM through the service: every mail it queues is signed once, in its outbox row, and the
row's bytes verify against the published key, on every retry; unconfigured, nothing changes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import dkim
import pytest
from sqlmodel import Session, select

from pbem.core.models import Outbox
from pbem.letters import post
from pbem.runners import outbox
from tests.dkimkeys import dns, make_key
from tests.mailer import compose, reply_to

ALICE, BOB, JOERG = "alice@example.org", "bob@example.org", "jörg@example.org"


def _rows(server) -> list[bytes]:
    with Session(server.engine) as session:
        return list(session.exec(select(Outbox.message).order_by(Outbox.id)).all())


def _play(server) -> None:
    """A challenge, held and confirmed, accepted, a first move, and an international sender's
    question: plain and HTML mails, threaded, tokened, some with List-Unsubscribe, one in UTF-8."""
    server.send(compose(f"Алиса <{ALICE}>", "challenge ataxx bob@example.org colour=x"))
    server.confirm(ALICE)
    invite = server.last(BOB)
    server.send(reply_to(BOB, invite, "accept 1"))
    server.send(reply_to(ALICE, server.last(ALICE), "f2"))
    server.send(compose(f"Jörg <{JOERG}>", "help"))


@pytest.fixture
def signing(server, tmp_path: Path):
    """The harness's server with DKIM on (selector pbem1, the address's domain) and the DNS
    answer for its key."""
    record = make_key(tmp_path / "dkim.pem")
    server.service.settings = replace(server.service.settings, dkim_selector="pbem1", dkim_key_file=tmp_path / "dkim.pem")
    return server, dns({"pbem1._domainkey.games.test.": record})


def test_every_mail_is_signed_and_verifies_and_a_tampered_one_fails(signing) -> None:
    server, lookup = signing
    _play(server)
    rows = _rows(server)
    assert len(rows) >= 5
    assert any(b"multipart/alternative" in raw for raw in rows) and any(b"List-Unsubscribe:" in raw for raw in rows)
    assert any("<jörg@example.org>".encode() in raw for raw in rows)  # a raw UTF-8 (SMTPUTF8) header signed too
    for raw in rows:
        assert raw.startswith(b"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=games.test;")
        assert raw.count(b"DKIM-Signature:") == 1 and b"s=pbem1;" in raw
        assert dkim.verify(raw, dnsfunc=lookup), raw[:600]
        head, _, body = raw.partition(b"\r\n\r\n")
        assert not dkim.verify(head + b"\r\n\r\n" + body.replace(b"a", b"b", 1), dnsfunc=lookup)
        assert not dkim.verify(raw.replace(b"Subject: ", b"Subject: Re: ", 1), dnsfunc=lookup)
        assert not dkim.verify(raw.replace(b"\r\nReply-To: ", b"\r\nReply-To: x", 1), dnsfunc=lookup)
    assert server.last(BOB)["Subject"]  # the harness still reads the signed mails


def test_a_retry_sends_the_very_same_signed_bytes(signing) -> None:
    server, lookup = signing
    server.send(compose(ALICE, "help"))
    [queued] = _rows(server)
    first = outbox.claim(server.engine, 10, lease=0)  # claimed, then "the daemon died": the lease ran out
    again = outbox.claim(server.engine, 10, lease=0)
    assert [raw for _, _, raw in first] == [raw for _, _, raw in again] == [queued]
    assert dkim.verify(again[0][2], dnsfunc=lookup)


def test_an_unconfigured_server_signs_nothing(server, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without dkim_selector and dkim_key_file each row holds, byte for byte, what the mail
    layer built."""
    built: list[bytes] = []
    build = post.outbound.build

    def keep(**fields) -> bytes:
        built.append(build(**fields))
        return built[-1]

    monkeypatch.setattr(post.outbound, "build", keep)
    assert server.service.settings.dkim is None
    _play(server)
    rows = _rows(server)
    assert rows == built and not any(b"DKIM-Signature" in raw for raw in rows)
