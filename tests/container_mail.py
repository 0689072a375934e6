"""The container image answering a mail: `.ci/run container` runs this after building it.

    python3 -m tests.container_mail IMAGE [--run-option OPTION ...] -- ENGINE [ENGINE OPTIONS ...]

starts the tests' mail rig (Dovecot + SMTP on 127.0.0.1, `tests.mailrig`), writes a pbem.toml
that points at it, starts IMAGE with `ENGINE ... run` on the host's network with that file
mounted where the image reads it (`/etc/pbem/pbem.toml`) and the IMAP password in the
variable the file names, as an operator would, mails `help` to the game address from a player
and waits for the answer in the player's mailbox. Exit status 0 when it came; otherwise the
container's log, and 1. The container is removed either way.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import os
import subprocess
import sys
import tempfile
import time
import uuid
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from tests.mailrig import MailRig

CONFIG = """[server]
address = "game@{domain}"
home = "/var/lib/pbem"
outbox_interval = 0.5

[imap]
host = "127.0.0.1"
port = {imap_port}
security = "none"
username = "game"
password_env = "PBEM_IMAP_PASSWORD"
poll_interval = 1.0

[smtp]
host = "127.0.0.1"
port = {smtp_port}
security = "none"
"""


def _run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, text=True, stdin=subprocess.DEVNULL, **kwargs)  # type: ignore[call-overload]


def answer_a_mail(engine: list[str], image: str, run_options: list[str], timeout: float) -> int:
    name = f"pbem-check-{uuid.uuid4().hex[:8]}"
    with MailRig() as rig, tempfile.TemporaryDirectory(prefix="pbem-container-") as folder:
        config = Path(folder) / "pbem.toml"
        config.write_text(CONFIG.format(domain=rig.domain, imap_port=rig.imap_port, smtp_port=rig.smtp_port),
                          encoding="utf-8")
        os.chmod(folder, 0o755)  # the image's user `pbem` reads the file through the mount
        config.chmod(0o644)
        started = time.monotonic()
        run = _run([*engine, "run", "-d", "--name", name, "--network=host", *run_options,
                    "-v", f"{config}:/etc/pbem/pbem.toml:ro", "-e", "PBEM_IMAP_PASSWORD", image],
                   env={**os.environ, "PBEM_IMAP_PASSWORD": rig.users["game"]}, capture_output=True)
        if run.returncode != 0:
            print(f"container: {' '.join(engine)} run failed: {run.stderr.strip()}", file=sys.stderr)
            return 1
        try:
            mail = EmailMessage()
            mail["From"] = f"Alice <{rig.address('alice')}>"
            mail["To"] = rig.address("game")
            mail["Subject"] = "help"
            mail["Message-ID"] = make_msgid(domain=rig.domain)
            mail.set_content("help\n")
            rig.submit(rig.address("alice"), mail.as_bytes(policy=email.policy.SMTP))
            print(f"container: {image} runs as {name}; mailed help from {rig.address('alice')}")
            try:
                answers = rig.wait_for("alice", 1, timeout=timeout)
            except AssertionError as exc:
                print(f"container: no answer: {exc}", file=sys.stderr)
                logs = _run([*engine, "logs", name], capture_output=True)
                print(logs.stdout + logs.stderr, file=sys.stderr)
                return 1
            answer = email.message_from_bytes(answers[0], policy=email.policy.default)
            print(f"container: the answer came {time.monotonic() - started:.1f} s after the start: "
                  f"From {answer['From']}, Subject {answer['Subject']}")
            return 0
        finally:
            _run([*engine, "rm", "-f", "-t", "5", name], capture_output=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("image")
    parser.add_argument("--run-option", action="append", default=[], help="one more argument for `run`")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for the answer")
    parser.add_argument("engine", nargs="+", help="the container engine's command, e.g. podman")
    args = parser.parse_args(argv)
    return answer_a_mail(args.engine, args.image, args.run_option, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
