"""SMTP sessions outlive an outbox round: one session for many rounds, a session the server
dropped while it idled is replaced without failing a mail, and stopping says QUIT."""

from __future__ import annotations

import asyncio
import socket
from dataclasses import replace

from aiosmtpd.controller import Controller
from sqlmodel import Session, select

from pbem.core.models import Outbox
from pbem.core.wallclock import now
from pbem.mail.transport import smtp
from pbem.runners import outbox
from tests.mailer import compose


class _Counting:
    """An SMTP server's handler that keeps every mail and counts sessions and QUITs."""

    def __init__(self) -> None:
        self.ehlo = 0
        self.quit = 0
        self.mails: list[str] = []

    async def handle_EHLO(self, server, session, envelope, hostname, responses):  # noqa: ANN001, ANN201, N802
        self.ehlo += 1
        session.host_name = hostname
        return responses

    async def handle_QUIT(self, server, session, envelope):  # noqa: ANN001, ANN201, N802
        self.quit += 1
        return "221 Bye"

    async def handle_DATA(self, server, session, envelope):  # noqa: ANN001, ANN201, N802
        self.mails.extend(envelope.rcpt_tos)
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_session_the_server_dropped_is_replaced_without_failing_the_mail() -> None:
    handler, port = _Counting(), _free_port()
    servers = [Controller(handler, hostname="127.0.0.1", port=port)]
    servers[0].start()
    settings = smtp.SmtpSettings(host="127.0.0.1", port=port, security="none", timeout=10)
    data = compose("game@example.org", "hello")

    async def run() -> None:
        connection = smtp.Connection(settings)
        await connection.send("game@example.org", "alice@example.org", data)
        await asyncio.to_thread(servers[0].stop)  # the server drops every session, as after a long idle
        servers.append(Controller(handler, hostname="127.0.0.1", port=port))
        await asyncio.to_thread(servers[1].start)
        await connection.send("game@example.org", "bob@example.org", data)
        await connection.close()

    try:
        asyncio.run(run())
    finally:
        servers[-1].stop()
    assert handler.mails == ["alice@example.org", "bob@example.org"]
    assert handler.ehlo == 2 and handler.quit == 1


def test_rounds_of_the_outbox_share_one_session_which_stopping_quits(server) -> None:
    handler, port = _Counting(), _free_port()
    rig = Controller(handler, hostname="127.0.0.1", port=port)
    rig.start()
    settings = replace(server.service.settings, smtp=smtp.SmtpSettings(host="127.0.0.1", port=port, security="none"),
                       smtp_connections=1)

    async def run() -> list[int]:
        sender = outbox.Sender(server.engine, settings)
        sent = []
        try:
            for n in range(3):  # three rounds, each with mail to send
                await asyncio.to_thread(server.send, compose(f"p{n}@example.org", "help"))
                sent.append(await sender.deliver_due())
        finally:
            await sender.close()
        return sent

    try:
        assert asyncio.run(run()) == [1, 1, 1]
    finally:
        rig.stop()
    assert handler.mails == [f"p{n}@example.org" for n in range(3)]
    assert (handler.ehlo, handler.quit) == (1, 1)  # one session for the three rounds, closed with QUIT
    with Session(server.engine) as session:
        rows = session.exec(select(Outbox)).all()
        assert [(row.status, row.attempts) for row in rows] == [("sent", 1)] * 3
        assert all(row.sent_at is not None and row.last_error is None for row in rows)


def test_a_full_round_says_more_may_be_due_so_the_next_starts_at_once(server) -> None:
    handler, port = _Counting(), _free_port()
    rig = Controller(handler, hostname="127.0.0.1", port=port)
    rig.start()
    settings = replace(server.service.settings, smtp=smtp.SmtpSettings(host="127.0.0.1", port=port, security="none"))
    for n in range(3):
        server.send(compose(f"p{n}@example.org", "help"))

    async def run() -> list[tuple[int, bool]]:
        sender = outbox.Sender(server.engine, settings)
        rounds = []
        try:
            for _ in range(2):
                sent = await sender.deliver_due(limit=2)
                rounds.append((sent, sender.more))
        finally:
            await sender.close()
        return rounds

    try:
        assert asyncio.run(run()) == [(2, True), (1, False)]
    finally:
        rig.stop()


class _Ordered(_Counting):
    """A handler that notes each mail's recipient and subject as they arrive; alice's older
    mails go through more slowly, so a session that could overtake another does."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived: list[tuple[str, str]] = []

    async def handle_DATA(self, server, session, envelope):  # noqa: ANN001, ANN201, N802
        subject = next(line.split(b":", 1)[1].strip().decode() for line in envelope.content.splitlines()
                       if line.lower().startswith(b"subject:"))
        if envelope.rcpt_tos == ["alice@example.org"]:  # the older the mail, the slower it goes through
            await asyncio.sleep(0.005 * (12 - int(subject.split()[-1])))
        self.arrived.append((envelope.rcpt_tos[0], subject))
        return "250 OK"


def test_a_recipients_mails_arrive_in_the_order_they_were_written(server) -> None:
    """Several sessions side by side, but one recipient's mails on one of them, in order: a
    newer board never arrives before an older one (a reply to the newest must be to the newest)."""
    handler, port = _Ordered(), _free_port()
    rig = Controller(handler, hostname="127.0.0.1", port=port)
    rig.start()
    settings = replace(server.service.settings, smtp=smtp.SmtpSettings(host="127.0.0.1", port=port, security="none"),
                       smtp_connections=4)
    written = []
    with Session(server.engine) as session:
        for n in range(12):
            recipient = "alice@example.org" if n % 2 == 0 else f"p{n}@example.org"
            written.append((recipient, f"mail {n:02d}"))
            session.add(Outbox(message_id=f"<pbem.{n:024x}@games.test>", recipient=recipient, template="moved",
                               message=compose("game@games.test", "a board", subject=f"mail {n:02d}"),
                               next_attempt_at=now(), created_at=now()))
        session.commit()

    async def run() -> int:
        sender = outbox.Sender(server.engine, settings)
        try:
            return await sender.deliver_due()
        finally:
            await sender.close()

    try:
        assert asyncio.run(run()) == 12
    finally:
        rig.stop()
    alices = [subject for to, subject in handler.arrived if to == "alice@example.org"]
    assert alices == [subject for to, subject in written if to == "alice@example.org"]
    assert sorted(handler.arrived) == sorted(written)
    assert handler.ehlo > 1  # the others went side by side
