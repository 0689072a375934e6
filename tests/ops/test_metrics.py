"""Issue 12: `pbem serve` serves /metrics when `metrics_port` is set, and opens no port without it;
its heartbeats reach `pbem admin status`.

The daemon runs as a subprocess in the sandbox; the test waits on its log lines and on the
figures it scrapes, never on a fixed sleep.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families

from pbem.cli.main import main

DEADLINE = 40.0 * float(os.environ.get("PBEM_TEST_TIME_SCALE", "3"))
ALICE = "alice@example.org"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _listening(pid: int) -> set[tuple[str, int]]:
    """The TCP addresses process `pid` listens on, from /proc (IPv4 and IPv6)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                address, port = fields[1].split(":")
                shown = socket.inet_ntoa(bytes.fromhex(address)[::-1]) if table == "tcp" else address
                found.add((shown, int(port, 16)))
    return found


class Daemon:
    """`pbem serve` in the sandbox with these extra [server] settings."""

    def __init__(self, tmp_path: Path, **server: object) -> None:
        self.sandbox_port = _free_port()
        lines = [f'home = "{tmp_path / "home"}"', f"sandbox_port = {self.sandbox_port}",
                 *(f"{key} = {json.dumps(value)}" for key, value in server.items())]
        self.config = tmp_path / "pbem.toml"
        self.config.write_text("[server]\n" + "\n".join(lines) + "\n", encoding="utf-8")
        self.log = tmp_path / "serve.log"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("PBEM_CONFIG", None)
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "pbem.cli.main", "-c", str(self.config), "serve"],
                                         stdout=subprocess.DEVNULL, stderr=log, stdin=subprocess.DEVNULL, env=env)
        self.wait_for("pbem serving")

    def wait_for(self, text: str) -> None:
        end = time.monotonic() + DEADLINE
        while text not in self.log.read_text():
            assert self.proc.poll() is None, self.log.read_text()
            assert time.monotonic() < end, f"no {text!r} in:\n{self.log.read_text()}"
            time.sleep(0.05)

    def pbem(self, *args: str):  # noqa: ANN201 - click's Result
        return CliRunner().invoke(main, ["-c", str(self.config), *args])

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGTERM)
        try:
            assert self.proc.wait(timeout=DEADLINE) == 0
        finally:
            self.proc.kill()
        return self.log.read_text()


@pytest.fixture
def daemons():
    started: list[Daemon] = []
    yield started
    for daemon in started:
        if daemon.proc.poll() is None:
            output = daemon.stop()
            assert "Traceback" not in output, output


def _scrape(port: int) -> dict[str, float]:
    """The samples of /metrics, by name and labels, e.g. `pbem_messages_total{status="processed"}`."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()) if k != "le")
            if "le" in sample.labels:
                continue
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples


def _until(port: int, ready, what: str) -> dict[str, float]:
    end = time.monotonic() + DEADLINE
    while True:
        samples = _scrape(port)
        if ready(samples):
            return samples
        assert time.monotonic() < end, f"{what}: {samples}"
        time.sleep(0.1)


@pytest.mark.slow
def test_metrics_count_a_mail_handled_and_its_reply_sent(tmp_path: Path, daemons: list[Daemon]) -> None:
    port = _free_port()
    started = time.time()
    daemon = Daemon(tmp_path, metrics_port=port, clock_interval=0.2)
    daemons.append(daemon)
    assert _listening(daemon.proc.pid) >= {("127.0.0.1", port), ("127.0.0.1", daemon.sandbox_port)}
    before = _until(port, lambda s: s.get("pbem_clock_rounds_total", 0) >= 1, "no clock round")
    assert before['pbem_messages_total{status="processed"}'] == 0
    assert before["pbem_outbox_pending"] == 0 and before["pbem_outbox_oldest_pending_seconds"] == 0

    sent = daemon.pbem("sandbox", "send", "--wait", str(DEADLINE), "--from", ALICE, "help")
    assert sent.exit_code == 0 and "The answer:" in sent.output, sent.output
    after = _until(port, lambda s: s.get("pbem_mails_sent_total", 0) >= 1, "the reply was not counted")
    assert after['pbem_messages_total{status="processed"}'] == 1
    assert all(after[f'pbem_messages_total{{status="{status}"}}'] == 0
               for status in ("silenced", "duplicate", "banned", "robot", "quarantined"))
    assert after["pbem_message_seconds_count"] == 1 and after["pbem_message_seconds_sum"] > 0
    assert after["pbem_mails_sent_total"] == 1 and after["pbem_outbox_pending"] == 0
    assert after["pbem_outbox_failed"] == 0
    assert after["pbem_reminders_total"] == 0 and after["pbem_forfeits_total"] == 0
    assert started <= after["pbem_last_mailbox_contact_timestamp_seconds"] <= time.time()

    status = daemon.pbem("admin", "status", "--json")
    report = json.loads(status.output)
    assert status.exit_code == 0, report["problems"]
    assert report["last_imap_contact"] is not None and report["clock_lag_s"] is not None


@pytest.mark.slow
def test_without_metrics_port_the_daemon_listens_only_on_the_sandbox_and_web_ports(tmp_path: Path,
                                                                            daemons: list[Daemon]) -> None:
    daemon = Daemon(tmp_path)
    daemons.append(daemon)
    # The sandbox's web face listens too (its address in its readiness line); nothing else does.
    daemon.wait_for("web pages at")
    web = re.search(r"web pages at http://127\.0\.0\.1:(\d+)/", daemon.log.read_text())
    assert web is not None, daemon.log.read_text()
    assert _listening(daemon.proc.pid) == {("127.0.0.1", daemon.sandbox_port), ("127.0.0.1", int(web.group(1)))}
    assert "metrics on" not in daemon.log.read_text()


def test_a_taken_metrics_port_stops_serve_with_one_message(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = tmp_path / "pbem.toml"
        config.write_text(f'[server]\nhome = "{tmp_path}"\nsandbox_port = {_free_port()}\nmetrics_port = {port}\n',
                          encoding="utf-8")
        env = {**os.environ}
        env.pop("PBEM_CONFIG", None)
        done = subprocess.run([sys.executable, "-m", "pbem.cli.main", "-c", str(config), "serve"], capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, env=env, timeout=DEADLINE)
    assert done.returncode == 1, done.stderr
    assert f"127.0.0.1:{port} is taken (metrics_port)" in done.stderr and "Traceback" not in done.stderr
