"""What a test needs from outside Python (Dovecot, PostgreSQL, GNU Go, Chromium): without it the
test is skipped on a developer's machine, and fails in CI, where `.ci/run` installs it."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(problem: str, in_ci: str) -> NoReturn:
    """Skip with `problem`; in CI (the `CI` variable set), fail with `in_ci` instead."""
    if os.environ.get("CI"):
        pytest.fail(in_ci, pytrace=False)
    pytest.skip(problem)
