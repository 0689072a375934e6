"""Where inbound mail comes from: a mailbox the daemon reads and marks as processed.

The daemon commits a message's effects to the database *before* calling `done`, so a
crash in between re-reads the message and the store's unique message key drops it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class RawMail:
    """One message as the mailbox holds it: a source-specific key and the exact bytes."""

    key: str
    data: bytes


class MailSource(Protocol):
    """A mailbox: IMAP in production, a local Maildir in the sandbox."""

    def fetch(self, limit: int = 100) -> list[RawMail]:
        """Messages not yet marked done, oldest first, at most `limit`."""
        ...

    def done(self, key: str) -> None:
        """Mark one message processed (after its transaction committed)."""
        ...

    def done_all(self, keys: list[str]) -> None:
        """Mark several messages processed at once (after each one's transaction committed)."""
        ...

    def wait(self, timeout: float) -> None:
        """Block until new mail may have arrived or `timeout` seconds passed."""
        ...

    def close(self) -> None:
        """Release the connection; safe to call twice."""
        ...


TRUNCATED_HEADER = "X-PBEM-Truncated"
"""Put first on a mail of which only the header and the first bytes were fetched; says the full size.

Only the mailbox reader writes it, and only as the very first line: the receiving server adds its
own trace lines (Return-Path, Delivered-To) above anything a sender wrote, so a sender cannot forge it.
"""

_TRUNCATED_PREFIX = f"{TRUNCATED_HEADER}: ".encode("ascii")


def truncated_copy(size: int, header: bytes, start: bytes) -> bytes:
    """What is handed on for a mail too big to fetch whole: its header, the first body bytes, and
    a first line that says how big it really is."""
    if header.endswith((b"\r\n\r\n", b"\n\n")):
        separator = b""
    elif header.endswith(b"\n"):
        separator = b"\r\n"
    else:  # the header itself was cut, mid-line
        separator = b"\r\n\r\n"
    return _TRUNCATED_PREFIX + str(int(size)).encode("ascii") + b"\r\n" + header + separator + start


def declared_size(data: bytes) -> int | None:
    """The full size a `truncated_copy` says the mail has; None for a mail fetched whole."""
    if not data.startswith(_TRUNCATED_PREFIX):
        return None
    digits = data[len(_TRUNCATED_PREFIX) : len(_TRUNCATED_PREFIX) + 20].split(b"\r", 1)[0].split(b"\n", 1)[0]
    return int(digits) if digits.isdigit() else None
