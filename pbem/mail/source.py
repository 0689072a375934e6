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
