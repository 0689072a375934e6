"""Several daemons at once (issue 11, finding 9): counting a message's tries never trips over a
racing success, and a slow SMTP round keeps its lease, so no live daemon's mail goes out twice."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace

from sqlmodel import Session, select

from pbem.core.models import Outbox, Quarantine
from pbem.runners import outbox, quarantine
from tests.mailer import compose


def _together(*jobs) -> list[BaseException]:  # noqa: ANN002
    """Run the jobs in threads started at once; the errors they raised."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(jobs))

    def run(job) -> None:  # noqa: ANN001
        barrier.wait()
        try:
            job()
        except BaseException as exc:  # noqa: BLE001  (any error is the finding)
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_tries_counted_by_two_daemons_at_once_lose_no_count_and_race_no_success(any_server) -> None:
    service, engine = any_server.service, any_server.engine
    raws = [compose("alice@example.org", f"help {n}") for n in range(20)]
    envelopes = [service.parse(raw) for raw in raws]

    def count() -> None:
        for envelope in envelopes:
            assert not quarantine.failed(engine, envelope, b"raw", "boom")

    assert _together(count, count) == []
    with Session(engine) as session:
        rows = session.exec(select(Quarantine)).all()
        assert len(rows) == 20 and all(row.tries == 2 and row.status == "trying" for row in rows)

    def succeed() -> None:  # each success forgets the count in its own transaction
        for raw, envelope in zip(raws, envelopes, strict=True):
            assert service.handle(raw, envelope, quarantine.Gate()).status in ("processed", "silenced")

    assert _together(succeed, count) == []
    with Session(engine) as session:
        rows = session.exec(select(Quarantine)).all()
        # a count before the success was forgotten with it; one after starts again from one
        assert all(row.tries == 1 and row.status == "trying" for row in rows)


class _SlowSmtp:
    """An SMTP connection that takes its time with every mail."""

    sent: list[str] = []

    def __init__(self, settings) -> None:  # noqa: ANN001
        pass

    async def __aenter__(self):  # noqa: ANN204
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    async def close(self) -> None:
        return None

    async def send(self, sender: str, recipient: str, data: bytes) -> str:
        await asyncio.sleep(0.4)
        _SlowSmtp.sent.append(recipient)
        return "250 ok"


def test_a_slow_round_renews_its_lease_so_a_second_daemon_sends_nothing_twice(server, monkeypatch) -> None:
    for n in range(6):
        server.send(compose(f"p{n}@example.org", "help"))
    settings = replace(server.service.settings, outbox_lease=0.6, smtp_connections=1)
    monkeypatch.setattr(outbox.smtp, "Connection", _SlowSmtp)
    _SlowSmtp.sent = []
    stolen: list[int] = []

    async def run() -> int:
        round_ = asyncio.create_task(outbox.deliver_due(server.engine, settings))
        while not round_.done():  # a second daemon claims whatever is due, again and again
            await asyncio.sleep(0.1)
            stolen.extend(row_id for row_id, _, _ in outbox.claim(server.engine, 50, settings.outbox_lease))
        return await round_

    assert asyncio.run(run()) == 6  # 2.4 s of sending, four times the lease
    assert stolen == []
    assert sorted(_SlowSmtp.sent) == sorted(f"p{n}@example.org" for n in range(6))
    with Session(server.engine) as session:
        assert {row.status for row in session.exec(select(Outbox))} == {"sent"}
