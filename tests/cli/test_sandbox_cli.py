"""The README's first steps: `pbem serve` with no mail servers, played through `pbem sandbox`."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from pbem.cli.main import main

ALICE, BOB = "alice@example.org", "bob@example.org"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def sandbox(tmp_path, request):
    port = _free_port()
    config = tmp_path / "pbem.toml"
    extra = getattr(request, "param", "")  # more [server] settings, from an indirect parameter
    config.write_text(
        f'[server]\nhome = "{tmp_path / "home"}"\nsandbox_port = {port}\n{extra}\n', encoding="utf-8"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "pbem.cli.main", "-c", str(config), "serve"],
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "serve.log", "wb"),  # noqa: SIM115
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 60
    while "pbem serving" not in (tmp_path / "serve.log").read_text():  # listening and migrated
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()
        assert time.monotonic() < deadline, "pbem serve did not start"
        time.sleep(0.1)
    runner = CliRunner()

    def pbem(*args: str) -> str:
        if args[:2] == ("sandbox", "send"):
            args = (*args[:2], "--wait", "30", *args[2:])  # a busy machine may take longer than 10 s
        result = runner.invoke(main, ["-c", str(config), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return " ".join(result.output.split())  # prose is wrapped at 72 columns

    yield pbem
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill()


def _mail_for(sandbox, address: str, text: str) -> str:  # noqa: ANN001
    """The newest mail to `address` once it says `text`: the reply to the sender may be sent
    before a notice to another player (the outbox sends to several recipients side by side)."""
    deadline = time.monotonic() + 60
    while text not in (newest := sandbox("sandbox", "inbox", address)):
        assert time.monotonic() < deadline, f"no mail for {address} says {text!r}"
        time.sleep(0.1)
    return newest


def test_a_capture_go_game_in_the_sandbox(sandbox) -> None:
    out = sandbox("sandbox", "send", "--from", ALICE, "--name", "Alice",
                  "challenge capturego bob@example.org size=5 colour=black")
    assert "Did you write to me?" in out  # a first mail shows no proof: the challenge waits
    out = sandbox("sandbox", "send", "--from", ALICE, "--reply", "confirm")
    assert "I sent your challenge #1" in out
    _mail_for(sandbox, BOB, "accept 1")  # Bob's notice names the line that accepts
    out = sandbox("sandbox", "send", "--from", BOB, "--name", "Bob", "--reply", "accept 1")
    assert "You play white" in out
    moves = [(ALICE, "c3"), (BOB, "a1"), (ALICE, "a2"), (BOB, "e5"), (ALICE, "b1")]
    for number, (player, move) in enumerate(moves, start=1):
        out = sandbox("sandbox", "send", "--from", player, "--reply", move)
        assert f"You played {move}" in out
        opponent = BOB if player == ALICE else ALICE
        deadline = time.monotonic() + 60  # the opponent's board comes in the same outbox round
        while f"played {move}" not in sandbox("sandbox", "inbox", opponent) and number < len(moves):
            assert time.monotonic() < deadline, f"no board after {move} for {opponent}"
            time.sleep(0.2)
    assert "game over, 1-0" in out
    assert "Black reached 1 capture" in out or "1 capture" in out
    assert "Result: 1-0, Alice wins." in _mail_for(sandbox, BOB, "Game #1 is over")


def test_a_second_sandbox_on_the_same_port_says_so(sandbox, tmp_path) -> None:
    second = subprocess.run(
        [sys.executable, "-m", "pbem.cli.main", "-c", str(tmp_path / "pbem.toml"), "serve"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert second.returncode == 1
    assert "is taken: is another `pbem serve` running?" in second.stderr


@pytest.mark.parametrize("sandbox", ["max_error_replies_per_day = 1"], indirect=True)
def test_send_says_why_no_answer_came(sandbox) -> None:
    sandbox("sandbox", "send", "--from", ALICE, "help")
    out = sandbox("sandbox", "send", "--from", ALICE, "--reply", "withdraw 7")
    assert "There is no challenge #7" in out and "last answer I send you" in out, out
    out = sandbox("sandbox", "send", "--from", ALICE, "--reply", "withdraw 8")
    assert "No answer: the server read the mail, but it has sent alice@example.org all the answers" in out
    assert "The answer:" not in out


def test_inbox_prints_plain_lines_and_a_bad_address_is_one_line(tmp_path) -> None:
    from pbem.mail.transport.sandbox import deliver

    config = tmp_path / "pbem.toml"
    config.write_text(f'[server]\nhome = "{tmp_path}"\nsandbox_port = {_free_port()}\n', encoding="utf-8")
    (tmp_path / "sandbox").mkdir()
    deliver(tmp_path / "sandbox", ALICE, b"From: pbem@x.test\r\nSubject: hi\r\n\r\nline one\r\nline two\r\n")
    runner = CliRunner()
    shown = runner.invoke(main, ["-c", str(config), "sandbox", "inbox", ALICE], catch_exceptions=False)
    assert shown.exit_code == 0 and "line one\nline two\n" in shown.output and "\r" not in shown.output
    for args in (["sandbox", "inbox", "bob"], ["sandbox", "send", "--from", "bob", "help"]):
        result = runner.invoke(main, ["-c", str(config), *args], catch_exceptions=False)
        assert result.exit_code == 2, result.output
        assert "'bob' is not an address like alice@example.org" in result.output
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 4
    unheard = runner.invoke(main, ["-c", str(config), "sandbox", "send", "--from", ALICE, "help"])
    assert unheard.exit_code == 1 and "cannot reach the sandbox" in unheard.output


def test_send_without_an_answer_says_so(tmp_path) -> None:
    from pbem.mail.transport.sandbox import SandboxServer

    with SandboxServer(tmp_path / "sandbox") as listener:  # it files mail, but no server answers
        config = tmp_path / "pbem.toml"
        config.write_text(f'[server]\nhome = "{tmp_path}"\nsandbox_port = {listener.port}\n', encoding="utf-8")
        result = CliRunner().invoke(
            main, ["-c", str(config), "sandbox", "send", "--from", ALICE, "--wait", "0.5", "help"],
            catch_exceptions=False,
        )
    assert result.exit_code == 0
    assert "No answer within 0.5 s: the server has not read the mail yet." in result.output


def test_the_sandbox_port_is_an_option_of_serve_and_an_environment_variable(tmp_path) -> None:
    port = _free_port()
    config = tmp_path / "pbem.toml"
    config.write_text(f'[server]\nhome = "{tmp_path / "home"}"\n', encoding="utf-8")  # no sandbox_port
    log = tmp_path / "serve.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pbem.cli.main", "-c", str(config), "serve", "--sandbox-port", str(port)],
        stdout=subprocess.DEVNULL, stderr=open(log, "wb"),  # noqa: SIM115
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 60
        while "pbem serving" not in log.read_text():
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "pbem serve did not start"
            time.sleep(0.1)
        runner = CliRunner()
        send = ["-c", str(config), "sandbox", "send", "--wait", "30", "--from", ALICE, "help"]
        result = runner.invoke(main, send, env={"PBEM_SANDBOX_PORT": str(port)})
        assert result.exit_code == 0 and "How to play" in result.output, result.output
        wrong = runner.invoke(main, send, env={"PBEM_SANDBOX_PORT": "70000"})
        assert wrong.exit_code == 1 and "PBEM_SANDBOX_PORT='70000': allowed is a TCP port" in wrong.output
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            assert proc.wait(timeout=20) == 0
        finally:
            proc.kill()


def test_version() -> None:
    import tomllib
    from pathlib import Path

    import pbem

    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output == f"pbem {pbem.__version__}\n"
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["version"] == pbem.__version__
