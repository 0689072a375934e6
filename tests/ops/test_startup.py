"""Start-up: `pbem --help` is cheap, and `pbem serve` stops cleanly whenever a signal comes.

The signals are timed from the daemon's own progress (a line it printed, or the CPU time it
has used since), never from a fixed sleep, so the test means the same on a busy machine.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

DEADLINE = 40.0 * float(os.environ.get("PBEM_TEST_TIME_SCALE", "3"))  # the suite's one time factor
CLOCK_TICK = os.sysconf("SC_CLK_TCK")


ENTRY = ["-m", "pbem.cli.main"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _cpu(pid: int) -> float:
    """Seconds of CPU the process has used so far (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICK


class Serve:
    """`pbem serve` in the sandbox, its output (stdout and stderr) collected line by line."""

    def __init__(self, tmp_path: Path, entry: list[str] = ENTRY) -> None:
        config = tmp_path / "pbem.toml"
        config.write_text(
            f'[server]\nhome = "{tmp_path / "home"}"\nsandbox_port = {_free_port()}\n', encoding="utf-8"
        )
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("PBEM_CONFIG", None)
        self.proc = subprocess.Popen(
            [sys.executable, *entry, "-c", str(config), "serve"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, env=env,
        )
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_for(self, text: str) -> None:
        """Until a line holding `text` was printed (fails if the process ends first)."""
        end = time.monotonic() + DEADLINE
        with self.changed:
            while not any(text in line for line in self.lines):
                assert self.proc.poll() is None, "".join(self.lines)
                assert time.monotonic() < end, f"no {text!r} in:\n{''.join(self.lines)}"
                self.changed.wait(1.0)

    def wait_cpu(self, seconds: float) -> None:
        """Until the process has used `seconds` more CPU than when asked, or has finished starting."""
        start = _cpu(self.proc.pid)
        end = time.monotonic() + DEADLINE
        while _cpu(self.proc.pid) - start < seconds and not self.output_has("pbem serving"):
            assert self.proc.poll() is None, "".join(self.lines)
            assert time.monotonic() < end
            time.sleep(0.005)  # polling the process's own clock, not waiting for time to pass

    def output_has(self, text: str) -> bool:
        with self.changed:
            return any(text in line for line in self.lines)

    def stop(self, sig: signal.Signals) -> tuple[int, str]:
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=DEADLINE)
        finally:
            self.proc.kill()
        self.reader.join(timeout=10)
        return code, "".join(self.lines)


# (the signal, what to wait for before it: a line, or CPU seconds after the first line)
MOMENTS = [
    (signal.SIGTERM, "line", "pbem starting"),  # the imports have just begun
    (signal.SIGTERM, "cpu", 0.05),
    (signal.SIGTERM, "cpu", 0.15),  # inside the imports (pydantic-core, C callbacks, destructors)
    (signal.SIGTERM, "cpu", 0.3),
    (signal.SIGTERM, "cpu", 0.5),
    (signal.SIGTERM, "cpu", 0.9),  # the imports are over by now on most machines: the database, the listener
    (signal.SIGTERM, "line", "pbem sandbox:"),  # the daemon is being built: migrations, the sandbox listener
    (signal.SIGTERM, "line", "pbem serving"),  # running
    (signal.SIGINT, "line", "pbem starting"),  # Ctrl-C takes the same paths
    (signal.SIGINT, "cpu", 0.15),
    (signal.SIGINT, "cpu", 0.5),
    (signal.SIGINT, "cpu", 0.9),
    (signal.SIGINT, "line", "pbem sandbox:"),
    (signal.SIGINT, "line", "pbem serving"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "kind", "when"), MOMENTS, ids=[f"{s.name}-{k}-{w}" for s, k, w in MOMENTS])
def test_serve_stops_with_exit_0_and_one_line_whenever_the_signal_comes(
    tmp_path: Path, sig: signal.Signals, kind: str, when: str | float
) -> None:
    serve = Serve(tmp_path)
    serve.wait_for("pbem starting")
    if kind == "line":
        serve.wait_for(str(when))
    else:
        serve.wait_cpu(float(when))
    code, output = serve.stop(sig)
    assert code == 0, output
    assert "Traceback" not in output
    stopped = [line for line in output.splitlines() if "pbem stopped" in line]
    assert len(stopped) == 1, output
    assert re.search(rf"pbem stopped( by {sig.name} while starting)?$", stopped[0]), stopped
    assert output.splitlines()[-1] == stopped[0]  # the last word


def _catches(pid: int, sig: signal.Signals) -> bool:
    """Whether process `pid` has a handler for `sig` (its SigCgt mask in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    return False


# The two ways `pbem serve` is started: `python -m pbem.cli.main` and the `pbem` console script.
ENTRIES = {"module": ["-m", "pbem.cli.main"], "script": ["-c", "import sys; from pbem.cli.main import run; run()"]}


@pytest.mark.slow
@pytest.mark.parametrize("entry", list(ENTRIES))
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_with_exit_0_when_signalled_the_moment_it_can_catch_a_signal(
    tmp_path: Path, sig: signal.Signals, entry: str
) -> None:
    """Right after spawn: as soon as the process has a SIGTERM handler at all (the guard, which
    comes before pbem's imports), sooner than any line it prints. Before that moment the
    interpreter itself is still starting, and the signal's default action applies."""
    serve = Serve(tmp_path, ENTRIES[entry])
    end = time.monotonic() + DEADLINE
    while not _catches(serve.proc.pid, signal.SIGTERM):  # SIGTERM is installed last: both are caught
        assert serve.proc.poll() is None and time.monotonic() < end, "".join(serve.lines)
        time.sleep(0.0005)  # polling the process's own state, not waiting for time to pass
    code, output = serve.stop(sig)
    assert code == 0, output
    assert "Traceback" not in output
    assert output.splitlines()[-1].endswith(f"pbem stopped by {sig.name} while starting"), output
    assert sum("pbem stopped" in line for line in output.splitlines()) == 1, output


def test_only_serve_installs_the_guard_early() -> None:
    from pbem.core.startguard import command_of

    assert command_of(["serve"]) == command_of(["-c", "serve", "serve"]) == command_of(["-v", "serve"]) == "serve"
    assert command_of(["--config", "x.toml", "-v", "sandbox", "send", "serve"]) == "sandbox"
    assert command_of(["-c", "serve"]) is None and command_of([]) is None and command_of(["--", "serve"]) == "serve"


@pytest.fixture
def signals_restored():
    """The start-up guard installed in this process for a test, the handlers put back after."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM)}
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def _signal_self(sig: signal.Signals) -> None:
    """Send `sig` to this process; its Python handler has run when this returns."""
    signal.pthread_kill(threading.main_thread().ident, sig)


@pytest.mark.usefixtures("signals_restored")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_start_up_signal_is_noted_and_raised_at_the_next_check(sig: signal.Signals) -> None:
    from pbem.core.startguard import Stopped, stop_signals

    check = stop_signals()
    check()  # nothing yet
    _signal_self(sig)  # the handler itself raises nothing
    _signal_self(signal.SIGTERM)  # a second signal changes nothing
    with pytest.raises(Stopped) as stopped:
        check()
    assert stopped.value.name == sig.name


class _SignalledWhileCollected:
    """A signal that comes while a destructor runs: an exception raised there is only printed."""

    def __del__(self) -> None:
        _signal_self(signal.SIGTERM)


@pytest.mark.usefixtures("signals_restored")
def test_a_signal_inside_a_destructor_is_not_lost() -> None:
    from pbem.core.startguard import Stopped, stop_signals

    check = stop_signals()
    unraisable: list[object] = []
    hook, sys.unraisablehook = sys.unraisablehook, unraisable.append
    try:
        _SignalledWhileCollected()  # collected at once
    finally:
        sys.unraisablehook = hook
    assert unraisable == []
    with pytest.raises(Stopped):
        check()


@pytest.mark.usefixtures("signals_restored")
def test_a_signal_noted_before_the_event_loop_took_over_is_sent_again_to_the_loop() -> None:
    import asyncio

    from pbem.core.startguard import stop_signals

    stop_signals()
    _signal_self(signal.SIGTERM)  # e.g. while the daemon is built inside the loop

    async def main() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await asyncio.wait_for(stop.wait(), DEADLINE)

    asyncio.run(main())


def _child_cpu(args: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ}
    env.pop("PBEM_CONFIG", None)
    subprocess.run(args, check=True, capture_output=True, env=env, stdin=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def test_help_is_cheap() -> None:
    """`pbem --help` under 0.3 s of CPU (the best of three, the machine may be busy)."""
    cpu = min(_child_cpu([sys.executable, "-m", "pbem.cli.main", "--help"]) for _ in range(3))
    assert cpu < 0.3, f"pbem --help took {cpu:.2f} s of CPU"


def test_the_cli_module_imports_no_database_templates_or_settings_layer() -> None:
    probe = (
        "import sys, pbem.cli.main; from pbem.cli.main import main;"
        "print(' '.join(m for m in ('sqlalchemy', 'sqlmodel', 'pydantic', 'jinja2', 'alembic', 'engine',"
        " 'pbem.cli.admin.common', 'pbem.runners.daemon', 'aiosmtpd', 'imap_tools') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_lazy_commands_list_the_help_their_module_gives() -> None:
    import click

    from pbem.cli.main import main

    assert main.lazy
    for name, (load, short) in main.lazy.items():
        command: click.Command = load()
        assert command.get_short_help_str(limit=200) == short
        assert main.get_command(click.Context(main), name) is command


def test_every_command_of_pbem_help_is_in_the_readme() -> None:
    import click

    from pbem.cli.main import main

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for name in main.list_commands(click.Context(main)):
        assert f"pbem {name}" in readme, name
