"""A message that kills the daemon (SIGKILL, mid-transaction) is counted all the same, from the
journal of the process it killed, and is quarantined after MAX_TRIES kills without a try more."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import Session, select

from pbem.core.db import make_engine, migrate
from pbem.core.faults import ENV
from pbem.core.models import InboundMessage, Outbox, Quarantine
from pbem.runners import quarantine
from pbem.runners.inbound import Service
from tests.databases import throwaway
from tests.mailer import GAME, compose

_CHILD = """
import asyncio, sys
from dataclasses import replace
from pathlib import Path
from pbem.core.config import Settings
from pbem.runners.daemon import Daemon
settings = replace(Settings(), address=sys.argv[1], home=Path(sys.argv[2]), database_url=sys.argv[3],
                   imap=object(), smtp=None)
daemon = Daemon(settings, source=object())
daemon._loop = asyncio.new_event_loop()
print(daemon.process("k1", Path(sys.argv[4]).read_bytes()))
"""


def _daemon_once(tmp_path: Path, url: str, mail: Path, crash: bool) -> subprocess.CompletedProcess:
    """One daemon process that starts, handles the mail once and exits (or is killed)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    env.pop(ENV, None)
    if crash:
        env[ENV] = "before-commit:1"  # SIGKILL just before the message's transaction commits
    return subprocess.run([sys.executable, "-c", _CHILD, GAME, str(tmp_path / "home"), url, str(mail)],
                          env=env, capture_output=True, text=True, timeout=120)


def _tries(engine) -> int | None:  # noqa: ANN001
    with Session(engine) as session:
        row = session.exec(select(Quarantine)).first()
        return row.tries if row is not None else None


@pytest.mark.slow
def test_a_message_that_kills_the_daemon_is_quarantined_after_max_tries_kills(tmp_path) -> None:
    raw = compose("alice@example.org", "help")
    mail = tmp_path / "mail.eml"
    mail.write_bytes(raw)
    with throwaway("sqlite", tmp_path) as url:
        engine = make_engine(url)
        migrate(engine)
        for kill in range(1, quarantine.MAX_TRIES + 1):
            done = _daemon_once(tmp_path, url, mail, crash=True)
            assert done.returncode == -9, done.stderr
            # the kill before this one was counted when this process started
            assert _tries(engine) == (kill - 1 if kill > 1 else None)
        done = _daemon_once(tmp_path, url, mail, crash=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "True"  # finished with: the mailbox may forget it
        with Session(engine) as session:
            (row,) = session.exec(select(Quarantine)).all()
            assert (row.tries, row.status, row.raw) == (quarantine.MAX_TRIES, "quarantined", raw)
            assert quarantine.DIED in row.error
            inbound = session.exec(select(InboundMessage)).one()
            assert (inbound.status, inbound.note) == ("failed", "quarantined")
            assert session.exec(select(Outbox)).all() == []  # it was never tried a sixth time
        left = list((tmp_path / "home" / "trying").iterdir())  # the dead ones' journals: counted and gone
        assert len(left) == 1 and left[0].read_bytes().strip() == b""  # the last one's: nothing in hand
        engine.dispose()


def test_a_kill_is_counted_once_even_when_its_journal_is_read_twice(server, tmp_path) -> None:
    envelope = server.service.parse(compose("alice@example.org", "help"))
    journal = quarantine.Journal(tmp_path / "trying")
    for tries in (0, 0, 1, 1):  # a recovery killed after its count leaves the entry to be read again
        entry = {"message_id": envelope.message_id, "sender": envelope.sender, "subject": "", "tries": tries}
        (tmp_path / "trying" / f"dead{os.urandom(4).hex()}.trying").write_text(json.dumps(entry) + "\n")
        quarantine.recover(server.engine, journal)
    assert _tries(server.engine) == 2
    journal.close()


def test_a_message_that_went_through_forgets_its_count_in_its_own_transaction(server, tmp_path) -> None:
    raw = compose("alice@example.org", "help")
    envelope = server.service.parse(raw)
    assert not quarantine.failed(server.engine, envelope, raw, "boom")
    assert _tries(server.engine) == 1
    journal = quarantine.Journal(tmp_path / "trying")
    assert Service.handle(server.service, raw, envelope, quarantine.Gate(journal)).status == "processed"
    assert _tries(server.engine) is None
    journal.close()
