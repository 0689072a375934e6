"""Raw bytes of one inbound mail to an Envelope: who wrote, to whom, about what, and what they replied.

Anything can arrive in a mailbox, so `parse_message` never raises: what cannot be read is left empty
and the rest of the mail still counts. The work is split by kind: `headers` reads names, addresses,
subjects and Message-IDs, `robots` decides whether a person wrote the mail at all, `body` finds the
text they typed, and `reply` cuts the quote out of it.
"""

from __future__ import annotations

import email
import hashlib
import logging
import re
from collections.abc import Collection
from dataclasses import dataclass
from email.errors import MessageError
from email.message import Message
from email.parser import BytesHeaderParser
from email.policy import compat32

from pbem.mail.message.body import (
    MAX_HTML_BYTES,
    MAX_TEXT_BYTES,
    decode_text,
    html_to_text,
    read_body,
    unwrap_flowed,
)
from pbem.mail.message.headers import (
    MAX_ADDRESS_CHARS,
    MAX_HEADER_CHARS,
    MAX_HEADERS,
    MAX_MESSAGE_ID_CHARS,
    addresses,
    clean,
    clean_subject,
    control_share,
    display_name,
    first_id,
    ids,
    is_address,
    normalise_address,
    read_headers,
)
from pbem.mail.message.reply import reply_text
from pbem.mail.message.robots import BounceReport, automatic, bounce_report
from pbem.mail.message.source import declared_size

__all__ = [
    "INVALID_DOMAIN",
    "MAX_ADDRESS_CHARS",
    "MAX_HEADERS",
    "MAX_HEADER_CHARS",
    "MAX_HTML_BYTES",
    "MAX_MESSAGE_ID_CHARS",
    "MAX_PARSE_BYTES",
    "MAX_TEXT_BYTES",
    "Envelope",
    "clean_subject",
    "decode_text",
    "html_to_text",
    "parse_message",
    "unwrap_flowed",
]

log = logging.getLogger(__name__)

MAX_PARSE_BYTES = 8 * 1024 * 1024  # beyond this only attachments can be; the text comes first
INVALID_DOMAIN = "pbem.invalid"
GARBLED_SUBJECT_SHARE = 0.3  # a subject that is mostly control bytes marks the mail as not text

# What the standard library's parser and our readers can raise on hostile bytes. Anything else is
# a bug in pbem, and is let through to the caller (who quarantines the mail) rather than hidden.
_PARSE_ERRORS = (
    MessageError,
    ValueError,
    TypeError,
    LookupError,
    IndexError,
    AttributeError,
    UnicodeError,
    RecursionError,
)
# The text is printable apart from line breaks and tabs: control bytes are never echoed back.
_CONTROL_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class Envelope:
    """What the rest of pbem needs to know about one inbound mail; every str is safe to store."""

    message_id: str
    digest: str
    sender: str
    sender_name: str
    recipients: tuple[str, ...]
    subject: str
    text: str
    in_reply_to: str | None
    references: tuple[str, ...]
    automatic: str | None
    size: int
    headers: tuple[tuple[str, str], ...]
    return_path: str | None
    garbled: bool = False  # the body is not text (binary garbage, undecodable): quote nothing of it
    truncated: bool = False  # only the header and the first bytes were fetched: `size` is the full size
    bounce: BounceReport | None = None  # for a bounce: what it says (read once, by flufl.bounce)

    def header(self, name: str) -> str | None:
        """The first header called `name` (any case), decoded, or None."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)

    @property
    def bounced(self) -> tuple[str, ...]:
        """For a bounce: the addresses it says could not be reached."""
        return self.bounce.addresses if self.bounce is not None else ()


def parse_message(
    raw: bytes, *, own_addresses: Collection[str] = (), loop_header: str = "X-PBEM-Loop"
) -> Envelope:
    """Read one mail as delivered; never raises on any bytes."""
    try:
        raw = bytes(raw)
    except (TypeError, ValueError) as exc:
        log.warning("not bytes (%s): read as an empty mail", type(exc).__name__)
        raw = b""
    digest = hashlib.sha256(raw).hexdigest()
    fallback_id = f"<{digest}@{INVALID_DOMAIN}>"
    size = declared_size(raw) or len(raw)
    try:
        return _parse(raw, digest, fallback_id, own_addresses, loop_header, size)
    except _PARSE_ERRORS as exc:  # the last resort: the mail is still recorded, as unreadable robot mail
        log.warning("mail %s unreadable, recorded without sender: %s: %s", digest[:12], type(exc).__name__, exc)
        return Envelope(
            message_id=fallback_id,
            digest=digest,
            sender="",
            sender_name="",
            recipients=(),
            subject="",
            text="",
            in_reply_to=None,
            references=(),
            automatic="no-sender",
            size=size,
            headers=(),
            return_path=None,
            garbled=True,
            truncated=size != len(raw),
        )


def _parse(
    raw: bytes, digest: str, fallback_id: str, own_addresses: Collection[str], loop_header: str, size: int
) -> Envelope:
    msg = _message(raw)
    headers = read_headers(msg)

    def texts(name: str) -> list[str]:
        return [h.text for h in headers if h.key == name]

    def first_decoded(name: str) -> str | None:
        return next((h.decoded for h in headers if h.key == name), None)

    from_addresses = [(name, addr.strip()) for name, addr in addresses(texts("from")) if addr.strip()]
    sender = sender_name = ""
    if len(from_addresses) == 1:
        name, addr = from_addresses[0]
        addr = clean(normalise_address(addr))
        if is_address(addr):
            sender, sender_name = addr, display_name(name)

    recipients: list[str] = []
    for field in ("to", "cc", "delivered-to", "x-original-to"):
        for _name, addr in addresses(texts(field)):
            addr = clean(normalise_address(addr))
            if is_address(addr) and addr not in recipients:
                recipients.append(addr)

    message_id = first_id(texts("message-id")[:1]) or fallback_id
    in_reply_to = first_id(texts("in-reply-to")[:1])
    references = ids(texts("references"))
    for mid in ids(texts("in-reply-to")):
        if mid not in references:
            references.append(mid)

    raw_subject = first_decoded("subject") or ""
    return_path = first_decoded("return-path")
    return_path = return_path.strip() if return_path is not None else None
    reason = automatic(
        headers=headers,
        msg=msg,
        from_addresses=from_addresses,
        sender=sender,
        subject=raw_subject,
        return_path=return_path,
        own_addresses=own_addresses,
        loop_header=loop_header,
    )
    text, garbled = _reply(msg)
    garbled = garbled or _garbled_subject(raw_subject)
    return Envelope(
        message_id=message_id,
        digest=digest,
        sender=sender,
        sender_name=sender_name,
        recipients=tuple(recipients),
        subject=clean_subject(raw_subject),
        text="" if garbled else text,
        in_reply_to=in_reply_to,
        references=tuple(references),
        automatic=reason,
        size=size,
        headers=tuple((h.name, h.decoded) for h in headers),
        return_path=return_path,
        garbled=garbled,
        truncated=size != len(raw),
        bounce=bounce_report(msg) if reason == "bounce" else None,
    )


def _reply(msg: Message | None) -> tuple[str, bool]:
    """What the player wrote, without the quote and without control bytes; and whether it is garbled."""
    if msg is None:
        return "", False
    try:
        body = read_body(msg)
    except _PARSE_ERRORS as exc:  # an unreadable body still leaves sender and subject to act on
        log.warning("mail body unreadable: %s: %s", type(exc).__name__, exc)
        return "", True
    if body.garbled:
        return "", True
    return clean(_CONTROL_RE.sub("", reply_text(body.text))), False


def _garbled_subject(subject: str) -> bool:
    share = control_share(subject)
    return share > GARBLED_SUBJECT_SHARE and share * len(subject) >= 3


def _message(raw: bytes) -> Message | None:
    """The parsed mail; only its headers if the body defeats the parser (e.g. absurd nesting)."""
    data = raw[:MAX_PARSE_BYTES]
    try:
        return email.message_from_bytes(data, policy=compat32)
    except _PARSE_ERRORS as exc:
        log.debug("mail structure unreadable, reading the headers only: %s: %s", type(exc).__name__, exc)
    try:
        return BytesHeaderParser(policy=compat32).parsebytes(data, headersonly=True)
    except _PARSE_ERRORS as exc:
        log.warning("mail headers unreadable: %s: %s", type(exc).__name__, exc)
        return None

