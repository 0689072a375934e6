"""An edited template shows without a restart, and Jinja's look at the file is made at most
once per `RECHECK` seconds, not at every use of the template."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pbem.text import templates as module
from pbem.text.templates import Templates
from tests.handclock import Clock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(module.time, "monotonic", clock)
    return clock


def _edit(path: Path, text: str) -> None:
    """Write a new version of a template, its mtime clearly later than the one before."""
    before = path.stat().st_mtime if path.exists() else 0.0
    path.write_text(text)
    os.utime(path, (before + 10, before + 10))


def test_an_edit_shows_after_the_recheck_time_and_not_before(tmp_path: Path, clock: Clock) -> None:
    page = tmp_path / "hello.txt"
    _edit(page, "{% set subject %}Hi{% endset %}Hello, {{ who }}.\n")
    templates = Templates(tmp_path)
    assert templates.render("hello.txt", who="Ann").body == "Hello, Ann.\n"
    _edit(page, "{% set subject %}Hi{% endset %}Good day, {{ who }}.\n")
    clock.now += module.RECHECK / 2
    assert templates.render("hello.txt", who="Ann").body == "Hello, Ann.\n"  # not looked at yet
    clock.now += module.RECHECK
    assert templates.render("hello.txt", who="Ann").body == "Good day, Ann.\n"


def test_an_unedited_template_is_compiled_once(tmp_path: Path, clock: Clock) -> None:
    _edit(tmp_path / "hello.txt", "{% set subject %}Hi{% endset %}Hello.\n")
    templates = Templates(tmp_path)
    env = templates.environment()
    first = env.get_template("hello.txt")
    for _ in range(3):
        clock.now += module.RECHECK * 2  # looked at each time: the file is as it was
        assert env.get_template("hello.txt") is first
