"""Reading the server's answers to our IMAP commands: pure functions over what imaplib returns.

Kept apart from `imap` so that the parsing is tested without a server, and the session logic
stays readable.
"""

from __future__ import annotations

import re

from imap_tools.errors import MailboxLoginError

_UID_IN_FETCH = re.compile(rb"\bUID (\d+)", re.IGNORECASE)
_SIZE_IN_FETCH = re.compile(rb"\bRFC822\.SIZE (\d+)", re.IGNORECASE)
_KEY = re.compile(r"^(?:(\d+):)?(\d+)$")


def expunged_elsewhere(result: tuple) -> bool:
    """A NO [EXPUNGEISSUED] answer: the message was removed by another session (RFC 5530)."""
    return result[0] == "NO" and "EXPUNGEISSUED" in reply_text(result[1]).upper()


def parse_key(key: str) -> tuple[int | None, int]:
    """(UIDVALIDITY, UID) of a key that `fetch` made; a bare UID means the current validity."""
    m = _KEY.match(key)
    if m is None or int(m.group(2)) == 0:
        raise ValueError(f"not an IMAP message key: {key!r}")
    return (int(m.group(1)) if m.group(1) else None), int(m.group(2))


def uid_set(uids: list[int]) -> str:
    """`4,7,9`: the UIDs as one IMAP sequence set."""
    return ",".join(map(str, uids))


def parse_sizes(data: list) -> dict[int, int]:
    """UID -> RFC822.SIZE from an imaplib FETCH answer."""
    found = {}
    for item in data:
        line = item[0] if isinstance(item, tuple) else item
        if isinstance(line, bytes):
            uid, size = _UID_IN_FETCH.search(line), _SIZE_IN_FETCH.search(line)
            if uid and size:
                found[int(uid.group(1))] = int(size.group(1))
    return found


def parse_fetch(data: list) -> dict[int, bytes]:
    """UID -> message bytes from an imaplib FETCH answer (the UID may follow the literal)."""
    found: dict[int, bytes] = {}
    pending: bytes | None = None
    for item in data:
        if isinstance(item, tuple):
            head, body = item[0], item[1]
            match = _UID_IN_FETCH.search(head)
            if match:
                found[int(match.group(1))] = body
                pending = None
            else:
                pending = body
        elif isinstance(item, bytes) and pending is not None:
            match = _UID_IN_FETCH.search(item)
            if match:
                found[int(match.group(1))] = pending
            pending = None
    return found


def reply_text(value: object) -> str:
    if isinstance(value, MailboxLoginError):
        value = value.command_result[1]
    if isinstance(value, list | tuple):
        return " ".join(reply_text(v) for v in value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)

