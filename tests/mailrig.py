"""A throwaway, loopback-only mail rig for tests: real Dovecot IMAP/LMTP plus an SMTP front end.

`MailRig` writes a private Dovecot configuration into a fresh temporary directory (nothing in /etc
is touched, the system service is not used; see `tests.dovecot`), starts Dovecot on free 127.0.0.1 ports, and runs an
in-process aiosmtpd SMTP server (`tests.smtp_front`) that hands accepted mail to Dovecot over LMTP. Addressing follows
Dovecot: "alice@any.domain" and "alice+detail@any.domain" both land in mailbox "alice", and the
detail is kept in the Delivered-To header. Faults can be injected into the SMTP dialogue.

As root, Dovecot's mail processes run as "nobody", so the rig directory (mode 0711) and all its
parents must be traversable by others; `tempfile.mkdtemp()` in the usual temp directory is.
"""

from __future__ import annotations

import contextlib
import email
import grp
import imaplib
import os
import pwd
import re
import shutil
import signal
import smtplib
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from pbem.mail.transport.imap import ImapSettings
from pbem.mail.transport.smtp import SmtpSettings
from tests.dovecot import (
    HOST,
    RigUnavailable,
    banner,
    check_traversable,
    die_with_parent,
    dovecot_config,
    stop_group,
)
from tests.integration.waits import scaled
from tests.smtp_front import FrontEnd

DOMAIN = "example.test"
USERS = {name: f"{name}-secret" for name in ("game", "alice", "bob", "carol", "dave")}
START_TIMEOUT = scaled(15.0)
_UID = re.compile(rb"UID (\d+)")
_SOCKET_DIR_LIMIT = 70  # UNIX socket paths must stay under ~107 bytes; Dovecot appends names


def dovecot_binary() -> str | None:
    """Path of the dovecot master binary, or None when it is not installed."""
    found = shutil.which("dovecot")
    if found:
        return found
    for directory in ("sbin", "usr/sbin", "usr/local/sbin"):
        candidate = Path(os.sep, directory, "dovecot")
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def missing_requirements() -> str | None:
    """Why the rig cannot start here, or None when it can."""
    binary = dovecot_binary()
    if binary is None:
        return "Dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd)"
    libexec = [Path(binary).resolve().parent.parent / sub / "dovecot" for sub in ("lib", "libexec")]
    if not any((d / "lmtp").exists() for d in libexec):
        return "Dovecot's LMTP server is not installed (apt-get install dovecot-lmtpd)"
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class MailRig:
    """Dovecot (IMAP + LMTP) and an SMTP front end on 127.0.0.1, in a private temp directory."""

    def __init__(self, users: dict[str, str] | None = None, domain: str = DOMAIN, oauth_url: str | None = None) -> None:
        self.users = dict(users or USERS)
        self.domain = domain
        self.oauth_url = oauth_url  # a tests.oauth_server: IMAP and SMTP also take XOAUTH2 logins
        self.host = HOST
        self.dir: Path | None = None
        self.imap_port = 0
        self.lmtp_port = 0
        self.smtp_port = 0
        self.version = ""
        self._dovecot: subprocess.Popen[bytes] | None = None
        self._smtp: FrontEnd | None = None
        self._faults: list[tuple[str, str]] = []
        self._faults_lock = threading.Lock()

    # -- lifecycle --------------------------------------------------------------------------------

    def start(self) -> MailRig:
        """Write the configuration and start Dovecot and the SMTP front end."""
        problem = missing_requirements()
        if problem:
            raise RigUnavailable(problem)
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-mailrig-"))
        try:
            self._prepare()
            self.start_imap()
            self.start_smtp()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop what the rig started (by PID) and delete its directory; safe to call twice."""
        self.stop_smtp()
        self.stop_imap()
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __enter__(self) -> MailRig:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start_imap(self) -> None:
        """Start Dovecot (again) on the same ports; mail delivered earlier is still there."""
        if self._dovecot is not None and self._dovecot.poll() is None:
            return
        assert self.dir is not None, "the rig was not started"
        log = open(self.dir / "log" / "dovecot.stdio", "ab")  # noqa: SIM115 - handed to the child
        with log:
            self._dovecot = subprocess.Popen(
                [dovecot_binary() or "dovecot", "-F", "-c", str(self.dir / "etc" / "dovecot.conf")],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stop_imap() reaps every child
                preexec_fn=die_with_parent,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while not self._login_works():
            if self._dovecot.poll() is not None or time.monotonic() > deadline:
                tail = self.log_tail()
                self.stop_imap()
                raise RuntimeError(f"Dovecot did not accept an IMAP login:\n{tail}")
            time.sleep(0.05)
        while not banner(self.lmtp_port, b"220"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"Dovecot LMTP did not answer:\n{self.log_tail()}")
            time.sleep(0.05)

    def stop_imap(self) -> None:
        """Stop Dovecot (IMAP and LMTP) by its PID, keeping the mail."""
        process, self._dovecot = self._dovecot, None
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        # Processes serving open connections outlive the master; they are in its process group.
        stop_group(process.pid)

    def start_smtp(self) -> None:
        """Start the SMTP front end on its port."""
        if self._smtp is None:
            self._smtp = FrontEnd(self)
            self._smtp.start()

    def stop_smtp(self) -> None:
        """Stop the SMTP front end: connections to its port are refused until start_smtp()."""
        front, self._smtp = self._smtp, None
        if front is not None:
            front.stop()

    # -- mail -------------------------------------------------------------------------------------

    def address(self, user: str, detail: str | None = None) -> str:
        """user@domain, or user+detail@domain."""
        return f"{user}+{detail}@{self.domain}" if detail else f"{user}@{self.domain}"

    def deliver(self, user: str, raw: bytes, sender: str = "") -> None:
        """Put `raw` into a mailbox over LMTP, as a real MTA would (user may carry a +detail)."""
        recipient = user if "@" in user else f"{user}@{self.domain}"
        with smtplib.LMTP(self.host, self.lmtp_port, timeout=30) as lmtp:
            lmtp.sendmail(sender, [recipient], raw)

    def submit(self, sender: str, raw: bytes) -> None:
        """Send `raw` through the rig's SMTP server to the address in its To header, as a
        player's mail client would."""
        recipient = email.message_from_bytes(raw)["To"]
        with smtplib.SMTP(self.host, self.smtp_port, timeout=10) as smtp:
            smtp.sendmail(sender, [recipient], raw)

    def messages(self, user: str, folder: str = "INBOX") -> list[bytes]:
        """Every message in one folder of a mailbox, by UID, without touching its flags."""
        return [data for _, _, data in self._read(user, folder, with_flags=False)]

    def messages_after(self, user: str, uid: int, folder: str = "INBOX") -> list[tuple[int, bytes]]:
        """(UID, bytes) of the messages that arrived after the one with `uid`: a reader that keeps
        its place reads each mail once instead of the whole mailbox every time."""
        return [(found, data) for found, _, data in self._read(user, folder, with_flags=False, after=uid)]

    def reader(self, user: str, folder: str = "INBOX") -> MailboxReader:
        """A reader that stays logged in to one folder and returns only the mails that are new
        to it: a test that polls a mailbox many times a second costs Dovecot one login."""
        return MailboxReader(self, user, folder)

    def flags(self, user: str, folder: str = "INBOX") -> list[tuple[int, frozenset[str]]]:
        """(UID, flags) of every message in one folder."""
        return [(uid, flags) for uid, flags, _ in self._read(user, folder, with_flags=True)]

    def wait_for(self, user: str, count: int, timeout: float = 10.0, folder: str = "INBOX") -> list[bytes]:
        """The folder's messages once there are at least `count`; AssertionError after `timeout`
        (scaled by PBEM_TEST_TIME_SCALE)."""
        timeout = scaled(timeout)
        deadline = time.monotonic() + timeout
        while True:
            found = self.messages(user, folder)
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"{user}/{folder}: {len(found)} messages after {timeout} s, wanted {count}")
            time.sleep(0.05)

    def purge(self) -> None:
        """Empty every mailbox and fault queue and make sure both servers run: a clean slate."""
        with self._faults_lock:
            self._faults.clear()
        self.start_imap()
        self.start_smtp()
        for user in self.users:
            with self._imap(user) as imap:
                typ, folders = imap.list()
                for line in folders if typ == "OK" else []:
                    name = _folder_name(line)
                    if name and name.upper() != "INBOX":
                        imap.delete(_quote(name))
                imap.select("INBOX")
                typ, data = imap.uid("SEARCH", "ALL")
                if data and data[0]:
                    imap.uid("STORE", "1:*", "+FLAGS.SILENT", r"(\Deleted)")
                    imap.expunge()

    def inject(self, stage: str, reply: str) -> None:
        """Answer the next SMTP `stage` command (MAIL, RCPT or DATA) with `reply`, once."""
        stage = stage.upper()
        if stage not in ("MAIL", "RCPT", "DATA"):
            raise ValueError(f"faults can be injected at MAIL, RCPT or DATA, not {stage!r}")
        with self._faults_lock:
            self._faults.append((stage, reply))

    def imap_settings(self, user: str = "game", **changes: object) -> ImapSettings:
        """Settings for ImapSource that reach `user`'s mailbox on the rig."""
        values: dict[str, object] = {
            "port": self.imap_port,
            "username": user,
            "password": self.users[user],
            "security": "none",
            "timeout": 10.0,
        }
        values.update(changes)
        return ImapSettings(self.host, **values)  # type: ignore[arg-type]

    def smtp_settings(self, **changes: object) -> SmtpSettings:
        """Settings for smtp.send that reach the front end (no TLS, no login by default)."""
        values: dict[str, object] = {"port": self.smtp_port, "security": "none", "timeout": 10.0}
        values.update(changes)
        return SmtpSettings(self.host, **values)  # type: ignore[arg-type]

    def log_tail(self, lines: int = 20) -> str:
        """The end of Dovecot's log, for error messages."""
        if self.dir is None:
            return ""
        text = []
        for name in ("dovecot.log", "dovecot.stdio"):
            with contextlib.suppress(OSError):
                text += (self.dir / "log" / name).read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    # -- internals --------------------------------------------------------------------------------

    def _take_fault(self, stage: str) -> str | None:
        with self._faults_lock:
            for i, (kind, reply) in enumerate(self._faults):
                if kind == stage:
                    del self._faults[i]
                    return reply
        return None

    def _prepare(self) -> None:
        assert self.dir is not None
        for sub in ("etc", "log", "mail", "state", "run"):
            (self.dir / sub).mkdir()
        base_dir = self.dir / "run"
        if len(str(base_dir)) > _SOCKET_DIR_LIMIT:
            raise RigUnavailable(f"temporary directory path too long for UNIX sockets: {base_dir} (set TMPDIR)")
        self.imap_port, self.lmtp_port, self.smtp_port = _distinct_free_ports(3)
        self.version = subprocess.run(
            [dovecot_binary() or "dovecot", "--version"], capture_output=True, text=True, check=True
        ).stdout.split()[0]
        (self.dir / "etc" / "passwd").write_text(
            "".join(f"{user}:{{PLAIN}}{password}::::::\n" for user, password in self.users.items())
        )
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            mail_user, mail_group = "nobody", grp.getgrgid(nobody.pw_gid).gr_name
            self.dir.chmod(0o711)
            os.chown(self.dir / "mail", nobody.pw_uid, nobody.pw_gid)
            check_traversable(self.dir / "mail")
        else:
            mail_user, mail_group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
        conf = dovecot_config(
            self.version, self.dir, base_dir, self.imap_port, self.lmtp_port, mail_user, mail_group, self.oauth_url
        )
        (self.dir / "etc" / "dovecot.conf").write_text(conf)

    def _login_works(self) -> bool:
        user = next(iter(self.users))
        try:
            with self._imap(user, timeout=2):
                return True
        except (OSError, imaplib.IMAP4.error):
            return False

    @contextlib.contextmanager
    def _imap(self, user: str, timeout: float = 10):
        imap = imaplib.IMAP4(self.host, self.imap_port, timeout=timeout)
        try:
            imap.login(user, self.users[user])
            yield imap
        finally:
            with contextlib.suppress(Exception):
                imap.logout()

    def _read(
        self, user: str, folder: str, with_flags: bool, after: int = 0
    ) -> list[tuple[int, frozenset[str], bytes]]:
        """(UID, flags, bytes) of the folder's messages with a UID above `after`: one FETCH for all."""
        with self._imap(user) as imap:
            typ, _ = imap.select(_quote(folder), readonly=True)
            if typ != "OK":
                return []
            what = "(UID FLAGS)" if with_flags else "(UID BODY.PEEK[])"
            typ, parts = imap.uid("FETCH", f"{after + 1}:*", what)
            found = []
            for part in parts if typ == "OK" else []:
                head = part[0] if isinstance(part, tuple) else part
                match = _UID.search(head or b"")
                if not match or int(match.group(1)) <= after:  # "n:*" names the last message even below n
                    continue
                uid = int(match.group(1))
                if with_flags:
                    found.append((uid, frozenset(f.decode() for f in imaplib.ParseFlags(head)), b""))
                elif isinstance(part, tuple):
                    found.append((uid, frozenset(), part[1]))
            return sorted(found, key=lambda item: item[0])


class MailboxReader:
    """One IMAP connection to one folder; `new()` gives (UID, bytes) of the mails since the last call."""

    def __init__(self, rig: MailRig, user: str, folder: str) -> None:
        self.rig, self.user, self.folder = rig, user, folder
        self.last_uid = 0
        self._imap: imaplib.IMAP4 | None = None

    def skip_to(self, uid: int) -> None:
        """Treat every mail up to `uid` as read."""
        self.last_uid = max(self.last_uid, uid)

    def new(self) -> list[tuple[int, bytes]]:
        if self._imap is None:
            self._imap = imaplib.IMAP4(self.rig.host, self.rig.imap_port, timeout=30)
            self._imap.login(self.user, self.rig.users[self.user])
            self._imap.select(_quote(self.folder), readonly=True)
        else:
            self._imap.noop()  # lets the server report what arrived since the last look
        typ, parts = self._imap.uid("FETCH", f"{self.last_uid + 1}:*", "(UID BODY.PEEK[])")
        found = []
        for part in parts if typ == "OK" else []:
            match = _UID.search(part[0]) if isinstance(part, tuple) else None
            if match and int(match.group(1)) > self.last_uid:
                found.append((int(match.group(1)), part[1]))
        found.sort(key=lambda item: item[0])
        if found:
            self.last_uid = found[-1][0]
        return found

    def close(self) -> None:
        imap, self._imap = self._imap, None
        if imap is not None:
            with contextlib.suppress(Exception):
                imap.logout()

    def __enter__(self) -> MailboxReader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _distinct_free_ports(count: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


def _folder_name(line: bytes | tuple) -> str | None:
    if isinstance(line, tuple):  # a literal folder name
        return line[1].decode("utf-7", "replace") if len(line) > 1 else None
    text = line.decode("ascii", "replace")
    name = text.rsplit(" ", 1)[-1] if not text.endswith('"') else text[text.rindex('"', 0, -1) + 1 : -1]
    return name or None


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
