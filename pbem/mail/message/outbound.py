"""Building the mails we send: headers that thread, identify and stop loops.

Every mail has a plain-text part (fixed-width boards), and beside it, when given, an HTML
part (multipart/alternative, text first, so a client that shows HTML shows the HTML); it threads with In-Reply-To/References,
has a Message-ID chosen once and kept across retries, a Reply-To plus-address that
carries the player's token back, and the RFC 3834 marks that stop auto-responders.
Internationalised addresses are written as RFC 6532 asks: an IDN domain in ASCII, a
non-ASCII local part in UTF-8 (such a mail needs an SMTPUTF8 server, see `smtp`).

The mails are put together with the standard library's compat32 classes: our headers are
known and simple, and `email.policy`'s header parsing cost a daemon an eighth of its CPU.
"""

from __future__ import annotations

import random
import re
import sys
import unicodedata
from collections.abc import Sequence
from datetime import datetime
from email import charset, encoders
from email.header import Header
from email.message import Message
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.policy import Compat32
from email.utils import format_datetime, formataddr

from pbem.mail.message.headers import ascii_address, printable
from pbem.mail.message.notation import format_message_id

LOOP_HEADER = "X-PBEM-Loop"


class _Wire(Compat32):
    """compat32 with CRLF line ends, which writes a short printable ASCII header as it is: what
    compat32's folding makes of such a line, without building a `Header` for every line."""

    def _fold(self, name: str, value: object, sanitize: bool) -> str:
        if (
            isinstance(value, str) and value.isascii() and value.isprintable()
            and len(name) + 2 + len(value) <= self.max_line_length
        ):
            return f"{name}: {value}{self.linesep}"
        return super()._fold(name, value, sanitize)


_WIRE = _Wire(linesep="\r\n", max_line_length=78)


def _boundary(*texts: str) -> str:
    """A multipart boundary in the standard library's own form, found in none of `texts`:
    chosen here, so the generator does not compile a pattern per mail to look for it."""
    while True:
        boundary = "=" * 15 + f"{random.randrange(sys.maxsize):019d}" + "=="
        if not any(boundary in text for text in texts):
            return boundary


def new_message_id(domain: str) -> str:
    """A globally unique Message-ID in our domain (the notation's `<pbem.HEX@domain>`)."""
    return format_message_id(domain)


def feedback_id(kind: str, domain: str) -> str:
    """A Feedback-ID (`KIND:pbem:DOMAIN`): which kind of mail (a template's name), from whom;
    stable, with nothing personal in it (no address, no game)."""
    kind = re.sub(r"[^a-z0-9_-]", "", kind.lower())[:40] or "mail"
    return f"{kind}:pbem:{ascii_address('pbem@' + domain).partition('@')[2]}"


def build(
    *,
    message_id: str,
    sender: tuple[str, str],
    recipient: tuple[str, str],
    reply_to: str,
    subject: str,
    body: str,
    html: str | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    loop_marker: str,
    attachments: Sequence[tuple[str, str, str]] = (),
    date: datetime,
    language: str | None = None,
    unsubscribe: str | None = None,
    answers: bool = False,
    feedback_id: str | None = None,
) -> bytes:
    """The exact bytes of one outgoing mail (CRLF line ends, as SMTP wants them).

    `date` is the caller's clock: the mail layer keeps none of its own. `html`, when given,
    goes beside `body` as the other half of a multipart/alternative. `language` (a code such
    as "ru") becomes Content-Language, so a client can offer to translate, or read it aloud
    in the right voice. `unsubscribe` (an address) becomes List-Unsubscribe, a mailto: that
    clients offer as a button. `answers`: the mail answers one the recipient wrote, so it is
    "auto-replied" (RFC 3834); any other (a notice, a reminder, a digest) is "auto-generated".
    `feedback_id` becomes Feedback-ID (`feedback_id()`), by which mailbox providers report
    complaints per kind of mail."""
    text: Message = MIMEText(body, "plain", _body_charset(body))
    texts = (body, html or "", *(content for _, _, content in attachments))
    if html is not None:
        alternative = MIMEMultipart("alternative", _boundary(*texts))
        alternative.attach(text)
        alternative.attach(MIMEText(html, "html", _html_charset(html)))
        text = alternative
    msg: Message = text
    if attachments:
        msg = MIMEMultipart("mixed", _boundary(*texts, text.get_boundary() or ""))
        msg.attach(text)
        for filename, mimetype, content in attachments:  # (file name, MIME type, text): game records
            maintype, _, subtype = mimetype.partition("/")
            part = MIMEBase(maintype, subtype)
            part.set_payload(content.encode("utf-8"))
            encoders.encode_base64(part)
            part.add_header("Content-Disposition", "attachment", filename=filename)
            msg.attach(part)
    msg["From"] = address_header(*sender)
    msg["To"] = address_header(*recipient)
    msg["Reply-To"] = address_header("", reply_to)
    msg["Subject"] = subject if subject.isascii() else Header(subject, "utf-8", header_name="Subject")
    msg["Date"] = format_datetime(date)
    msg["Message-ID"] = message_id
    if language:
        msg["Content-Language"] = language
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    refs = [r for r in dict.fromkeys(references) if r]
    if refs:
        msg["References"] = " ".join(refs[-10:])
    if unsubscribe:
        msg["List-Unsubscribe"] = f"<mailto:{ascii_address(unsubscribe)}>"
    msg["Auto-Submitted"] = "auto-replied" if answers else "auto-generated"
    if feedback_id:
        msg["Feedback-ID"] = feedback_id
    msg["X-Auto-Response-Suppress"] = "All"
    msg[LOOP_HEADER] = loop_marker
    return msg.as_bytes(policy=_WIRE)


def needs_smtputf8(address: str) -> bool:
    """Whether mail to `address` can only travel with SMTPUTF8: a non-ASCII local part (an IDN
    domain alone is written in ASCII, as IDNA)."""
    return not address.strip().rpartition("@")[0].isascii()


def address_header(name: str, address: str) -> str:
    """`Name <address>` for a header: the name printable and RFC 2047-encoded when not ASCII, an IDN
    domain in ASCII, and a non-ASCII local part as raw UTF-8 (RFC 6532), for SMTPUTF8 servers.

    Raises ValueError for an address that cannot be written at all (an invalid IDN domain)."""
    name = printable(name)
    address = unicodedata.normalize("NFC", address.strip())
    if not needs_smtputf8(address):
        return formataddr((name, ascii_address(address)), charset="utf-8")
    if re.search(r"[\s<>\x00-\x1f\x7f]", address):
        raise ValueError(f"not an address: {address!r}")
    placeholder = "x@x.invalid"
    phrase = formataddr((name, placeholder), charset="utf-8").removesuffix(f"<{placeholder}>")
    value = f"{phrase}<{address}>" if name else address
    # compat32 writes a str with surrogate escapes as the bytes they stand for: raw UTF-8 on the wire
    return value.encode("utf-8").decode("ascii", "surrogateescape")


def _body_charset(body: str) -> charset.Charset:
    """UTF-8, sent as plain 7bit when the text is ASCII (boards always are), else quoted-printable."""
    cs = charset.Charset("utf-8")
    cs.body_encoding = None if body.isascii() else charset.QP
    return cs


def _html_charset(html: str) -> charset.Charset:
    """UTF-8, sent as it is when the HTML is ASCII in lines SMTP carries (at most 998 octets), else
    quoted-printable: QP writes every `=` of the style attributes as `=3D`, a fifth more bytes."""
    cs = charset.Charset("utf-8")
    plain = html.isascii() and (len(html) <= 998 or max(map(len, html.splitlines()), default=0) <= 998)
    cs.body_encoding = None if plain else charset.QP
    return cs
