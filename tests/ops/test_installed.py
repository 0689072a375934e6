"""Smoke test of an installed pbem: every kind of mail, rendered by the package as installed.

CI (`.ci/run`) builds the wheel, installs it into a clean virtual environment and runs this
file with that environment's Python, as a script, from outside the checkout's import path:

    venv/bin/python tests/ops/test_installed.py

It starts `pbem serve` (the sandbox, on a temporary home) with the installed `pbem` command,
plays through the README's story with `pbem sandbox send` (help, the rules of every game, a
challenge, accept, moves, board, history, an error, resign, the record, stats, ratings) and
checks each answer's subject, then that the daemon logged no error and stops with exit 0.
Under plain pytest the test below is skipped unless PBEM_SMOKE=1 asks for it (it then runs
against whatever pbem the current Python imports).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

DEADLINE = 40.0 * float(os.environ.get("PBEM_TEST_TIME_SCALE", "3"))  # the suite's one time factor
ALICE, BOB = "alice@example.org", "bob@example.org"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _pbem_command() -> list[str]:
    """The installed console script beside this Python, else `python -m pbem.cli.main`."""
    script = Path(sys.executable).with_name("pbem")
    return [str(script)] if script.exists() else [sys.executable, "-m", "pbem.cli.main"]


class Sandbox:
    """`pbem serve` in the sandbox with its own home and port; `send` plays as a player."""

    def __init__(self, home: Path) -> None:
        self.config = home / "pbem.toml"
        self.config.write_text(
            f'[server]\nhome = "{home / "state"}"\nsandbox_port = {_free_port()}\n', encoding="utf-8"
        )
        self.env = {k: v for k, v in os.environ.items() if k != "PBEM_CONFIG"}
        self.env["PYTHONUNBUFFERED"] = "1"
        self.log: list[str] = []
        self.proc = subprocess.Popen(
            [*_pbem_command(), "-c", str(self.config), "serve"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
            env=self.env, cwd=home,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        end = time.monotonic() + DEADLINE
        while not any("pbem serving" in line for line in self.log):
            assert self.proc.poll() is None, "pbem serve ended:\n" + "".join(self.log)
            assert time.monotonic() < end, "pbem serve did not start:\n" + "".join(self.log)
            time.sleep(0.05)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.log.append(line)

    def pbem(self, *args: str) -> str:
        done = subprocess.run(
            [*_pbem_command(), "-c", str(self.config), *args],
            capture_output=True, text=True, env=self.env, stdin=subprocess.DEVNULL, timeout=DEADLINE,
        )
        assert done.returncode == 0, f"pbem {' '.join(args)}:\n{done.stdout}{done.stderr}"
        return done.stdout

    def send(self, sender: str, *lines: str, reply: bool = False, expect: str) -> str:
        """Mail `lines` from `sender`; the answer's subject must hold `expect`."""
        args = ["sandbox", "send", "--wait", str(DEADLINE), "--from", sender, "--name", sender.split("@")[0].title()]
        out = self.pbem(*args, *(["--reply"] if reply else []), *lines)
        match = re.search(r"^Subject: (.*)$", out, re.MULTILINE)
        assert "The answer:" in out and match, f"no answer to {lines}:\n{out}"
        assert expect in match.group(1), f"{lines}: expected {expect!r} in the subject {match.group(1)!r}"
        return out

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=DEADLINE)
        self._reader.join(timeout=10)
        output = "".join(self.log)
        assert code == 0, f"pbem serve exited {code}:\n{output}"
        for bad in ("Traceback", "ERROR", "TemplateNotFound", "quarantined"):
            assert bad not in output, f"{bad} in the daemon's output:\n{output}"
        assert output.rstrip().endswith("pbem stopped"), output


def check_installed() -> None:
    """The pbem imported here is an installed one whose templates came with it."""
    import pbem
    import pbem.text.templates

    here = Path(__file__).resolve().parents[2]
    where = Path(pbem.__file__).resolve()
    assert here not in where.parents, f"pbem was imported from the checkout ({where}), not an install"
    assert pbem.text.templates.TEMPLATES.name == pbem.text.templates.PACKAGE, pbem.text.templates.TEMPLATES
    names = pbem.text.templates.Templates().names()
    assert "help.txt" in names and "rules/ataxx.txt" in names, names


def smoke(home: Path) -> int:
    """Every kind of mail once; returns how many answers were checked."""
    import pbem_engine

    sandbox = Sandbox(home)
    checked = 0
    try:
        assert "retention_days = 90" in sandbox.pbem("config", "check")
        # After a first mail, a player answers our mails: that proves they receive them (a
        # mail without that proof is answered a few times a day, and what it asks is held).
        steps: list[tuple[str, tuple[str, ...], bool, str]] = [
            (ALICE, ("help",), False, "How to play by email"),
            (ALICE, ("help challenge",), True, "challenge"),
            *((ALICE, (f"rules {name}",), True, "Rules of") for name in pbem_engine.names()),
            (ALICE, ("challenge ataxx bob@example.org colour=x",), True, "Challenge #1"),
            (BOB, ("accept 1",), True, "game on"),
            (ALICE, ("f2",), True, "you played f2"),
            (BOB, ("games",), True, "Your games"),
            (BOB, ("frobnicate",), True, "no command"),
            (BOB, ("accept 99",), True, "not done"),
            (ALICE, ("timezone Europe/Rome",), True, ""),
            (ALICE, ("name Alice A.",), True, ""),
            (BOB, ("history 1",), True, "the moves so far"),
            # a line acts on a game only in a reply to a mail that showed its board as it stands
            (BOB, ("board 1",), True, "the board at move"),
            (BOB, ("resign 1",), True, "game over"),
            (ALICE, ("record 1",), True, "the game record"),
            (ALICE, ("stats",), True, "Game statistics"),
            (ALICE, ("ratings ataxx",), True, "ratings"),
            (ALICE, ("challenge capturego",), True, ""),
        ]
        for sender, lines, reply, expect in steps:
            sandbox.send(sender, *lines, reply=reply, expect=expect)
            checked += 1
        # new players who write in Russian and in Korean are answered in their language: the
        # wheel carries the compiled catalogs
        for sender, line, letters in (("dasha@example.org", "правила ataxx", "[а-яё]"),
                                      ("minjun@example.org", "도움말", "[\uac00-\ud7a3]")):
            out = sandbox.send(sender, line, expect="")
            subject = re.search(r"^Subject: (.*)$", out, re.MULTILINE).group(1)
            assert re.search(letters, subject), f"{line}: not answered in its language: {subject!r}"
            checked += 1
        inbox = sandbox.pbem("sandbox", "inbox", ALICE, "--last", "50")
        assert "game over" in inbox and "[attached:" in inbox, inbox
        assert sandbox.pbem("admin", "games", "--json").strip()
    finally:
        sandbox.stop()
    return checked


def test_installed_smoke() -> None:
    import pytest

    if os.environ.get("PBEM_SMOKE") != "1":
        pytest.skip("run by .ci/run from a clean install of the wheel; PBEM_SMOKE=1 runs it here")
    with tempfile.TemporaryDirectory() as home:
        assert smoke(Path(home)) > 10


if __name__ == "__main__":
    check_installed()
    home = Path(tempfile.mkdtemp(prefix="pbem-smoke-"))
    try:
        count = smoke(home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"smoke: {count} answers rendered by the installed pbem")
