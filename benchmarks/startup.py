"""Start-up cost: the CPU of `pbem --help` and the admin's help, and of `pbem serve` until it
has answered its first mail.

Each help is run `--repeat` times as a child process; its CPU (user + system, from
`getrusage(RUSAGE_CHILDREN)`) is printed as the lowest and the median. For `serve`, a
`help` mail is put into the sandbox's game Maildir before the daemon starts, the daemon
(`pbem serve` in the sandbox, a subprocess) is started, and its CPU is read from
/proc/PID/stat the moment the answer lies in the sender's Maildir: start-up, migrations
of a fresh SQLite file, the first read, the reply rendered and sent over SMTP.

    python benchmarks/startup.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from pbem.core.config import SANDBOX_ADDRESS
from pbem.mail.transport.sandbox import deliver, read_mailbox

TICK = os.sysconf("SC_CLK_TCK")
PLAYER = "alice@example.org"


def child_cpu(args: list[str]) -> float:
    """CPU seconds one child process used, start to end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def first_answer(timeout: float = 120.0) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of `pbem serve` from its start to its first answer."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        config = Path(tmp) / "pbem.toml"
        config.write_text(f'[server]\nhome = "{home}"\nsandbox_port = {free_port()}\n', encoding="utf-8")
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = PLAYER, SANDBOX_ADDRESS, "help"
        msg["Message-ID"] = make_msgid(domain="client.test")
        msg.set_content("help")
        (home / "sandbox").mkdir(parents=True)
        deliver(home / "sandbox", SANDBOX_ADDRESS, msg.as_bytes())
        env = {key: value for key, value in os.environ.items() if key != "PBEM_CONFIG"}
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "pbem.cli.main", "-c", str(config), "serve"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env,
        )
        try:
            while not read_mailbox(home / "sandbox", PLAYER):
                if proc.poll() is not None:
                    raise SystemExit(f"pbem serve ended with {proc.returncode} before answering")
                if time.monotonic() - started > timeout:
                    raise SystemExit("no answer from pbem serve")
                time.sleep(0.002)  # polling a directory, not waiting for the daemon
            cpu, wall = process_cpu(proc.pid), time.monotonic() - started
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}")
    print(f"{'command':<34} {'lowest CPU s':>12} {'median':>8}   goal")
    helps = [
        ("python -c pass", [sys.executable, "-c", "pass"], None),
        ("pbem --help", [sys.executable, "-m", "pbem.cli.main", "--help"], 0.3),
        ("pbem admin --help", [sys.executable, "-m", "pbem.cli.main", "admin", "--help"], None),
        ("pbem admin status --help", [sys.executable, "-m", "pbem.cli.main", "admin", "status", "--help"], None),
    ]
    for name, command, goal in helps:
        runs = [child_cpu(command) for _ in range(args.repeat)]
        wanted = f"< {goal} s" if goal else ""
        print(f"{name:<34} {min(runs):>12.3f} {statistics.median(runs):>8.3f}   {wanted}")
    answers = [first_answer() for _ in range(max(1, args.repeat // 2))]
    cpus = [cpu for cpu, _ in answers]
    walls = [wall for _, wall in answers]
    print(f"{'pbem serve, first mail answered':<34} {min(cpus):>12.3f} {statistics.median(cpus):>8.3f}   < 1.5 s"
          f"   (wall: median {statistics.median(walls):.2f} s)")


if __name__ == "__main__":
    main()
