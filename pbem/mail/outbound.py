"""Building the mails we send: headers that thread, identify and stop loops.

Every mail is plain text (fixed-width boards), threads with In-Reply-To/References,
has a Message-ID chosen once and kept across retries, a Reply-To plus-address that
carries the player's token back, and the RFC 3834 marks that stop auto-responders.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, formataddr

from pbem.clock import now

LOOP_HEADER = "X-PBEM-Loop"


def new_message_id(domain: str) -> str:
    """A globally unique Message-ID in our domain."""
    return f"<pbem.{secrets.token_hex(12)}@{domain}>"


def build(
    *,
    message_id: str,
    sender: tuple[str, str],
    recipient: tuple[str, str],
    reply_to: str,
    subject: str,
    body: str,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    loop_marker: str,
    attachments: Sequence[tuple[str, str, str]] = (),
) -> bytes:
    """The exact bytes of one outgoing mail (CRLF line ends, as SMTP wants them)."""
    msg = EmailMessage()
    msg["From"] = formataddr(sender)
    msg["To"] = formataddr(recipient)
    msg["Reply-To"] = reply_to
    msg["Subject"] = subject
    msg["Date"] = format_datetime(now())
    msg["Message-ID"] = message_id
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    refs = [r for r in dict.fromkeys(references) if r]
    if refs:
        msg["References"] = " ".join(refs[-10:])
    msg["Auto-Submitted"] = "auto-replied"
    msg["X-Auto-Response-Suppress"] = "All"
    msg[LOOP_HEADER] = loop_marker
    msg.set_content(body, subtype="plain", charset="utf-8")
    for filename, mimetype, text in attachments:  # (file name, MIME type, text): game records
        maintype, _, subtype = mimetype.partition("/")
        msg.add_attachment(text.encode("utf-8"), maintype=maintype, subtype=subtype, filename=filename)
    return msg.as_bytes(policy=SMTP)
