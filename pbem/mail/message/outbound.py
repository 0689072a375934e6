"""Building the mails we send: headers that thread, identify and stop loops.

Every mail has a plain-text part (fixed-width boards), and beside it, when given, an HTML
part (multipart/alternative, text first, so a client that shows HTML shows the HTML); it threads with In-Reply-To/References,
has a Message-ID chosen once and kept across retries, a Reply-To plus-address that
carries the player's token back, and the RFC 3834 marks that stop auto-responders.
Internationalised addresses are written as RFC 6532 asks: an IDN domain in ASCII, a
non-ASCII local part in UTF-8 (such a mail needs an SMTPUTF8 server, see `smtp`).

A mail's bytes are written here from its finished parts, as the standard library's compat32
classes and generator would write them (byte for byte, see tests/mail/message/test_outbound_bytes.py):
a part's head is fixed text and its body ASCII (7bit or quoted-printable), so the MIME tree
needs no objects, and only the header fields that change from mail to mail are folded per
mail (by compat32's own folding); an address's line is folded once per person. `email.policy`'s
header parsing once cost a daemon an eighth of its CPU, the compat32 tree and generator a
third of a millisecond a mail.
"""

from __future__ import annotations

import functools
import random
import re
import sys
import unicodedata
from collections.abc import Sequence
from datetime import datetime
from email import encoders, quoprimime
from email.header import Header
from email.mime.base import MIMEBase
from email.policy import Compat32
from email.utils import format_datetime, formataddr

from pbem.mail.message.body import format_flowed
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
    """A multipart boundary in the standard library's own form, found in none of `texts`."""
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
    unsubscribe_url: str | None = None,
    answers: bool = False,
    feedback_id: str | None = None,
    flowed: bool = False,
) -> bytes:
    """The exact bytes of one outgoing mail (CRLF line ends, as SMTP wants them).

    `date` is the caller's clock: the mail layer keeps none of its own. `html`, when given,
    goes beside `body` as the other half of a multipart/alternative. `language` (a code such
    as "ru") becomes Content-Language, so a client can offer to translate, or read it aloud
    in the right voice. `unsubscribe` (an address) becomes List-Unsubscribe, a mailto: that
    clients offer as a button; `unsubscribe_url` (an https URL, with `unsubscribe`) joins it
    with List-Unsubscribe-Post, the one-click unsubscribe of RFC 8058. `answers`: the mail answers one the recipient wrote, so it is
    "auto-replied" (RFC 3834); any other (a notice, a reminder, a digest) is "auto-generated".
    `feedback_id` becomes Feedback-ID (`feedback_id()`), by which mailbox providers report
    complaints per kind of mail. `flowed`: `body` marks its soft line breaks
    (`body.SOFT_BREAK`) and the text part goes as format=flowed (`body.format_flowed`), which
    phones rewrap to their width while boards stay as drawn.

    The bytes are what the standard library's compat32 classes and generator make of such a
    mail, written here from the finished parts: each part's head is fixed text, its body
    ASCII (7bit, or quoted-printable), and each header is folded by the same policy."""
    if flowed:
        body = format_flowed(body)
    texts = (body, html or "", *(content for _, _, content in attachments))
    head, content = _text_part("plain", body, _body_quoted(body))
    if flowed:
        head = head.replace(b'charset="utf-8"', b'charset="utf-8"; format=flowed', 1)
    boundary = ""
    if html is not None:
        boundary = _boundary(*texts)
        html_part = _text_part("html", html, _html_quoted(html))
        head, content = _multipart("alternative", boundary, [(head, content), html_part])
    if attachments:
        inner = (head, content)
        boundary = _boundary(*texts, boundary)
        head, content = _multipart("mixed", boundary, [inner, *(_attachment(*a) for a in attachments)])
    lines = [head, _address_line("From", *sender), _address_line("To", *recipient)]
    fields: list[tuple[str, str | Header]] = [
        ("Reply-To", address_header("", reply_to)),
        ("Subject", subject if subject.isascii() else Header(subject, "utf-8", header_name="Subject")),
        ("Date", format_datetime(date)),
        ("Message-ID", message_id),
    ]
    if language:
        fields.append(("Content-Language", language))
    if in_reply_to:
        fields.append(("In-Reply-To", in_reply_to))
    refs = [r for r in dict.fromkeys(references) if r]
    if refs:
        fields.append(("References", " ".join(refs[-10:])))
    lines.extend(_WIRE.fold_binary(name, value) for name, value in fields)
    if unsubscribe:
        lines.append(_unsubscribe_lines(unsubscribe, unsubscribe_url))
    lines.append(b"Auto-Submitted: auto-replied\r\n" if answers else b"Auto-Submitted: auto-generated\r\n")
    if feedback_id:
        lines.append(_WIRE.fold_binary("Feedback-ID", feedback_id))
    lines.append(b"X-Auto-Response-Suppress: All\r\n")
    lines.append(_WIRE.fold_binary(LOOP_HEADER, loop_marker))
    lines.append(b"\r\n")
    lines.append(content)
    return b"".join(lines)


_NL = "\r\n"
_LINE_ENDS = re.compile(r"\r\n|\r|\n")  # what the generator takes for a line end


def _crlf(text: str) -> bytes:
    """An ASCII body with CRLF line ends: what the generator writes of a part's payload."""
    text = _NL.join(_LINE_ENDS.split(text)) if "\r" in text else text.replace("\n", _NL)
    return text.encode("ascii")


#: the head of a text part, by subtype and transfer encoding: what MIMEText writes
_TEXT_HEADS = {
    (subtype, quoted): (
        f'Content-Type: text/{subtype}; charset="utf-8"{_NL}MIME-Version: 1.0{_NL}'
        f"Content-Transfer-Encoding: {'quoted-printable' if quoted else '7bit'}{_NL}"
    ).encode("ascii")
    for subtype in ("plain", "html") for quoted in (False, True)
}


def _text_part(subtype: str, text: str, quoted: bool) -> tuple[bytes, bytes]:
    """A text part's head (its header fields) and its body, ASCII with CRLF line ends."""
    if quoted:
        text = quoted_printable(text.encode("utf-8").decode("latin-1"))
    return _TEXT_HEADS[(subtype, quoted)], _crlf(text)


#: a letter `quoprimime.body_encode` writes as =XX, `=` itself aside: any but tab, line ends and
#: printable ASCII
_QP_UNSAFE = re.compile(r"[^\t\n\r -~]")


def _qp_safe(text: str) -> bool:
    """Whether no letter of `text` matches `_QP_UNSAFE`, at C speed: the regex's scan took
    0.1 ms for a 19 kB HTML part, more than the rest of its encoding."""
    return text.isascii() and text.replace("\n", "").replace("\t", "").replace("\r", "").isprintable()


def quoted_printable(text: str, width: int = 76) -> str:
    """`quoprimime.body_encode(text)`, letter for letter, in a fifth of its time for ASCII text:
    an HTML part goes quoted-printable for its long lines, and then only its `=` need
    quoting, which `str.replace` does at C speed where the stdlib's `str.translate` with a
    table of three-letter strings took 0.3 ms for an 11 kB part. The lines are broken as the
    stdlib breaks them (its loop, kept as it is): soft breaks before `width`, never inside an
    escape, a space or tab at a line's end quoted."""
    if not text:
        return text
    safe = _qp_safe(text)  # then only `=` is quoted
    text = text.replace("=", "=3D") if safe else text.translate(quoprimime._QUOPRI_BODY_ENCODE_MAP)  # type: ignore[attr-defined]
    soft_break, last = "=\n", width - 1
    encoded: list[str] = []
    append = encoded.append
    for line in text.splitlines():
        start, laststart = 0, len(line) - 1 - width
        while start <= laststart:
            stop = start + last
            if line[stop - 2] == "=":
                append(line[start : stop - 1])
                start = stop - 2
            elif line[stop - 1] == "=":
                append(line[start:stop])
                start = stop - 1
            else:
                append(line[start:stop] + "=")
                start = stop
        if line and line[-1] in " \t":
            room = start - laststart
            if room >= 3:
                end = quoprimime.quote(line[-1])
            elif room == 2:
                end = line[-1] + soft_break
            else:
                end = soft_break + quoprimime.quote(line[-1])
            append(line[start:-1] + end)
        else:
            append(line[start:])
    if text[-1] in "\r\n":
        append("")
    return "\n".join(encoded)


def _multipart(subtype: str, boundary: str, parts: Sequence[tuple[bytes, bytes]]) -> tuple[bytes, bytes]:
    """A multipart's head and its body: each part (head, blank line, body) after a delimiter."""
    prefix, suffix = _multipart_folds(subtype)
    head = prefix + boundary.encode("ascii") + suffix + b"MIME-Version: 1.0\r\n"
    delimiter = b"--" + boundary.encode("ascii")
    between = b"\r\n" + delimiter + b"\r\n"
    body = delimiter + b"\r\n" + between.join(h + b"\r\n" + c for h, c in parts) + b"\r\n" + delimiter + b"--\r\n"
    return head, body


_SAMPLE_BOUNDARY = "=" * 15 + "0" * 19 + "=="


@functools.cache
def _multipart_folds(subtype: str) -> tuple[bytes, bytes]:
    """The folded Content-Type of a multipart around its boundary: every boundary `_boundary`
    draws has the same length and letters the folding never breaks at, so it folds alike."""
    folded = _WIRE.fold_binary("Content-Type", f'multipart/{subtype}; boundary="{_SAMPLE_BOUNDARY}"')
    prefix, found, suffix = folded.partition(_SAMPLE_BOUNDARY.encode("ascii"))
    assert found and _SAMPLE_BOUNDARY.encode("ascii") not in suffix
    return prefix, suffix


def _attachment(filename: str, mimetype: str, content: str) -> tuple[bytes, bytes]:
    """An attachment (a game record), base64: rare (a game's end), so the standard library's
    classes build it, and it is split into its head and body."""
    maintype, _, subtype = mimetype.partition("/")
    part = MIMEBase(maintype, subtype)
    part.set_payload(content.encode("utf-8"))
    encoders.encode_base64(part)
    part.add_header("Content-Disposition", "attachment", filename=filename)
    head, _, body = part.as_bytes(policy=_WIRE).partition(b"\r\n\r\n")
    return head + b"\r\n", body


@functools.lru_cache(maxsize=4096)
def _address_line(name: str, display: str, address: str) -> bytes:
    """The folded header line of one address (From, To): made once per person and address."""
    return _WIRE.fold_binary(name, address_header(display, address))


@functools.lru_cache(maxsize=4096)
def _unsubscribe_lines(unsubscribe: str, url: str | None) -> bytes:
    """List-Unsubscribe (and List-Unsubscribe-Post with an https URL): the same for every mail
    to a player."""
    if url:
        return _WIRE.fold_binary("List-Unsubscribe", f"<{url}>, <mailto:{ascii_address(unsubscribe)}>") + \
            _WIRE.fold_binary("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
    return _WIRE.fold_binary("List-Unsubscribe", f"<mailto:{ascii_address(unsubscribe)}>")


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


def _body_quoted(body: str) -> bool:
    """Whether the text part travels quoted-printable: when it is not ASCII (boards always
    are); else it goes as plain 7bit."""
    return not body.isascii()


def _html_quoted(html: str) -> bool:
    """Whether the HTML part travels quoted-printable: unless it is ASCII in lines SMTP carries
    (at most 998 octets), as it usually is; QP writes every `=` of the style attributes as
    `=3D`, a fifth more bytes."""
    plain = html.isascii() and (len(html) <= 998 or max(map(len, html.splitlines()), default=0) <= 998)
    return not plain
