"""The no-configuration mode: a loopback SMTP listener that files every message into Maildirs.

Anyone can try pbem without a mail account: the server sends its mail to the sandbox listener,
which keeps one Maildir per recipient under a root directory (`root/<address>/`), and the game's
own Maildir there is read through `MaildirSource` just as the production server reads IMAP.
"""

from __future__ import annotations

import mailbox
import os
import re
import threading
import time
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbem.mail.message.source import RawMail

PROCESSED_FOLDER = "Processed"
"""Maildir++ sub-folder (`.Processed`) that `MaildirSource` can move handled messages into."""

_PYTHON_NAME = re.compile(r"^(\d+)\.M(\d+)P\d+Q(\d+)\.")
_UNSAFE = re.compile(r"[/\\\x00-\x1f\x7f]")


def mailbox_name(address: str) -> str:
    """The Maildir a recipient's mail goes to: the address lower-cased, without its +detail."""
    local, at, domain = address.strip().strip("<>").rpartition("@")
    if not at or not local or not domain:
        raise ValueError(f"{address!r} is not an address of the form user@domain")
    name = f"{local.split('+', 1)[0]}@{domain}".lower()
    if name.startswith((".", "@")) or _UNSAFE.search(name) or len(name) > 200:
        raise ValueError(f"{address!r} cannot be used as a sandbox mailbox name")
    return name


def deliver(root: str | os.PathLike[str], recipient: str, data: bytes) -> str:
    """File one copy of `data` for `recipient`, with a Delivered-To header like a real server adds.

    Returns the new message's key in that Maildir.
    """
    newline = b"\r\n" if data.split(b"\n", 1)[0].endswith(b"\r") else b"\n"
    header = b"Delivered-To: " + recipient.strip().strip("<>").encode("utf-8") + newline
    box = mailbox.Maildir(Path(root) / mailbox_name(recipient), factory=None, create=True)
    return box.add(header + data)


def read_mailbox(root: str | os.PathLike[str], address: str) -> list[bytes]:
    """Every message in one sandbox mailbox (processed or not), in delivery order."""
    folder = Path(root) / mailbox_name(address)
    return [path.read_bytes() for _, path in _entries(folder)]


class SandboxServer:
    """An SMTP listener on 127.0.0.1 that accepts mail for any recipient and files it locally."""

    def __init__(self, root: str | os.PathLike[str], port: int = 0, host: str = "127.0.0.1") -> None:
        self.root = Path(root)
        self.host = host
        self._requested_port = port
        self._controller: _Controller | None = None

    @property
    def port(self) -> int:
        """The port it listens on (the one picked when 0 was asked for)."""
        if self._controller is None:
            raise RuntimeError("the sandbox SMTP server is not running")
        return self._controller.port

    def start(self) -> None:
        """Begin listening; returns once the server answers."""
        if self._controller is not None:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        controller = _Controller(
            _Handler(self.root),
            hostname=self.host,
            port=self._requested_port,
            ident="pbem sandbox",
            enable_SMTPUTF8=True,
        )
        controller.start()
        self._controller = controller

    def stop(self) -> None:
        """Stop listening; safe to call twice."""
        controller, self._controller = self._controller, None
        if controller is not None:
            controller.stop()

    def __enter__(self) -> SandboxServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class MaildirSource:
    """A `MailSource` over one sandbox mailbox.

    `done` adds the Maildir "S" flag, or moves the message into the `.Processed` sub-folder when
    `processed_folder` is set; `fetch` returns messages that have neither happened to them.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        address: str,
        *,
        processed_folder: str | None = None,
        poll_interval: float = 0.2,
    ) -> None:
        self.path = Path(root) / mailbox_name(address)
        self.processed_folder = processed_folder
        self.poll_interval = poll_interval
        self._returned: set[str] = set()
        self._closing = threading.Event()

    def fetch(self, limit: int = 100) -> list[RawMail]:
        """Messages not yet marked done, in delivery order, at most `limit`."""
        mails = []
        for key, path in self._pending()[: max(limit, 0)]:
            try:
                mails.append(RawMail(key=key, data=path.read_bytes()))
            except FileNotFoundError:  # renamed by a concurrent done(); it is not pending anymore
                continue
        self._returned = {mail.key for mail in mails}
        return mails

    def done(self, key: str) -> None:
        """Mark one message processed; doing it twice is harmless."""
        if not key or _UNSAFE.search(key) or ":" in key:
            raise ValueError(f"not a Maildir message key: {key!r}")
        for sub in ("new", "cur"):
            for path in _files(self.path / sub):
                name, _, info = path.name.partition(":")
                if name != key:
                    continue
                flags = info[2:] if info.startswith("2,") else ""
                if self.processed_folder is not None:
                    target = self._processed_dir() / "cur" / f"{key}:2,{_with_seen(flags)}"
                elif "S" in flags:
                    return
                else:
                    target = self.path / "cur" / f"{key}:2,{_with_seen(flags)}"
                os.rename(path, target)
                return
        if self.processed_folder is not None and any(
            p.name.partition(":")[0] == key for p in _files(self._processed_dir() / "cur")
        ):
            return
        raise KeyError(f"no message {key!r} in {self.path.name}")

    def done_all(self, keys: list[str]) -> None:
        for key in keys:
            self.done(key)

    def wait(self, timeout: float) -> None:
        """Poll until a message arrives that the last fetch did not return, or `timeout` passes."""
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            if any(key not in self._returned for key, _ in self._pending()):
                return
            left = deadline - time.monotonic()
            if left <= 0 or self._closing.wait(min(left, self.poll_interval)):
                return

    def close(self) -> None:
        """Wake a waiting thread; there is no connection to release."""
        self._closing.set()
        self._closing.clear()

    def _pending(self) -> list[tuple[str, Path]]:
        return [
            (path.name.partition(":")[0], path)
            for _, path in _entries(self.path)
            if self.processed_folder is not None or "S" not in _flags(path.name)
        ]

    def _processed_dir(self) -> Path:
        assert self.processed_folder is not None
        folder = mailbox.Maildir(self.path, factory=None, create=True)
        if self.processed_folder not in folder.list_folders():
            folder.add_folder(self.processed_folder)
        return self.path / f".{self.processed_folder}"


class _Handler:
    def __init__(self, root: Path) -> None:
        self.root = root

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        try:
            mailbox_name(address)
        except ValueError as exc:
            return f"553 5.1.3 {exc}"
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        for recipient in envelope.rcpt_tos:
            deliver(self.root, recipient, content)
        return f"250 2.0.0 OK: filed for {len(envelope.rcpt_tos)} recipient(s)"


class _Controller(Controller):
    """aiosmtpd's threaded controller, taught to listen on a port the system picks (port 0)."""

    def _trigger_server(self) -> None:
        if self.port == 0 and self.server is not None:
            self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()


def _entries(folder: Path) -> list[tuple[tuple, Path]]:
    """(delivery-order key, path) of the messages in new/ and cur/, oldest first."""
    found = [(_order(path), path) for sub in ("new", "cur") for path in _files(folder / sub)]
    found.sort(key=lambda item: item[0])
    return found


def _files(directory: Path) -> list[Path]:
    try:
        return [p for p in directory.iterdir() if not p.name.startswith(".")]
    except FileNotFoundError:
        return []


def _order(path: Path) -> tuple:
    match = _PYTHON_NAME.match(path.name)
    if match:  # Python's Maildir names: seconds, microseconds, per-process counter
        return (int(match.group(1)), int(match.group(2)), int(match.group(3)), path.name)
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        mtime = 0
    return (mtime // 10**9, mtime // 1000 % 10**6, 0, path.name)


def _flags(name: str) -> str:
    info = name.partition(":")[2]
    return info[2:] if info.startswith("2,") else ""


def _with_seen(flags: str) -> str:
    return "".join(sorted(set(flags) | {"S"}))
