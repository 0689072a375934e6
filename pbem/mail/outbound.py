"""Building the mails we send: headers that thread, identify and stop loops.

Every mail is plain text (fixed-width boards), threads with In-Reply-To/References,
has a Message-ID chosen once and kept across retries, a Reply-To plus-address that
carries the player's token back, and the RFC 3834 marks that stop auto-responders.

The mails are put together with the standard library's compat32 classes: our headers are
known and simple, and `email.policy`'s header parsing cost a daemon an eighth of its CPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from email import charset, encoders
from email.header import Header
from email.message import Message
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.policy import compat32
from email.utils import format_datetime, formataddr

from pbem.mail.notation import format_message_id

LOOP_HEADER = "X-PBEM-Loop"
_WIRE = compat32.clone(linesep="\r\n", max_line_length=78)


def new_message_id(domain: str) -> str:
    """A globally unique Message-ID in our domain (the notation's `<pbem.HEX@domain>`)."""
    return format_message_id(domain)


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
    date: datetime,
) -> bytes:
    """The exact bytes of one outgoing mail (CRLF line ends, as SMTP wants them).

    `date` is the caller's clock: the mail layer keeps none of its own."""
    text = MIMEText(body, "plain", _body_charset(body))
    msg: Message = text
    if attachments:
        msg = MIMEMultipart("mixed")
        msg.attach(text)
        for filename, mimetype, content in attachments:  # (file name, MIME type, text): game records
            maintype, _, subtype = mimetype.partition("/")
            part = MIMEBase(maintype, subtype)
            part.set_payload(content.encode("utf-8"))
            encoders.encode_base64(part)
            part.add_header("Content-Disposition", "attachment", filename=filename)
            msg.attach(part)
    msg["From"] = formataddr(sender)
    msg["To"] = formataddr(recipient)
    msg["Reply-To"] = reply_to
    msg["Subject"] = subject if subject.isascii() else Header(subject, "utf-8", header_name="Subject")
    msg["Date"] = format_datetime(date)
    msg["Message-ID"] = message_id
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    refs = [r for r in dict.fromkeys(references) if r]
    if refs:
        msg["References"] = " ".join(refs[-10:])
    msg["Auto-Submitted"] = "auto-replied"
    msg["X-Auto-Response-Suppress"] = "All"
    msg[LOOP_HEADER] = loop_marker
    return msg.as_bytes(policy=_WIRE)


def _body_charset(body: str) -> charset.Charset:
    """UTF-8, sent as plain 7bit when the text is ASCII (boards always are), else quoted-printable."""
    cs = charset.Charset("utf-8")
    cs.body_encoding = None if body.isascii() else charset.QP
    return cs
