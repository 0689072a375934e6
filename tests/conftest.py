"""Shared fixtures: the real mail servers (see tests/mailrig.py), started once per session,
and the check that every daemon a test started is stopped and logged no traceback."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.integration.daemon import DaemonProcess
from tests.mailrig import MailRig, missing_requirements
from tests.needs import missing
from tests.server import any_server, pg_server, server  # noqa: F401  (the service over SQLite, PostgreSQL, or both)


@pytest.fixture(scope="session")
def mailrig_session() -> Iterator[MailRig]:
    """Dovecot and the SMTP front end for the whole run; stopped even when tests fail."""
    problem = missing_requirements()
    if problem:
        missing(problem, f"mail integration tests need Dovecot in CI: {problem}")
    rig = MailRig().start()
    try:
        yield rig
    finally:
        rig.stop()


@pytest.fixture
def mailrig(mailrig_session: MailRig) -> MailRig:
    """The session's rig with every mailbox and fault queue emptied and both servers running."""
    mailrig_session.purge()
    return mailrig_session


@pytest.fixture(autouse=True)
def daemon_logs_hold_no_traceback() -> Iterator[None]:
    """At the end of every test: each DaemonProcess it created is stopped, and none logged a
    traceback (an exception the daemon only logged is still a bug, even if the test passed)."""
    DaemonProcess.created.clear()
    yield
    daemons, DaemonProcess.created[:] = list(DaemonProcess.created), []
    for daemon in daemons:
        daemon.stop()
    found = [f"{daemon.log}:\n" + "\n".join(tracebacks) for daemon in daemons if (tracebacks := daemon.tracebacks())]
    if found:
        pytest.fail("a daemon logged a traceback:\n" + "\n\n".join(found), pytrace=False)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests (marked `integration` or `slow`) first, the rest in their order after them:
    spread over the workers (pytest-xdist hands tests out in this order), the long ones start at
    once and the short ones fill in around them, so no worker is left with a long test at the
    end while the others idle. The order is the same in every worker, as xdist requires."""
    items.sort(key=lambda item: not (item.get_closest_marker("integration") or item.get_closest_marker("slow")))


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the machine has cores (at most four, `--maxprocesses`):
    much of a test's time is spent waiting on the daemon, Dovecot or Chromium, and a third worker
    fills that time on a 2-core machine."""
    return (os.cpu_count() or 1) + 1
