"""Shared fixtures: the real mail servers (see tests/mailrig.py), started once per session."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.mailrig import MailRig, missing_requirements


@pytest.fixture(scope="session")
def mailrig_session() -> Iterator[MailRig]:
    """Dovecot and the SMTP front end for the whole run; stopped even when tests fail."""
    problem = missing_requirements()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"mail integration tests need Dovecot in CI: {problem}")
        pytest.skip(problem)
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
