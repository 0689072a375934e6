"""Raw bytes of one inbound mail to an Envelope: who wrote, to whom, about what, and what they replied.

Anything can arrive in a mailbox, so `parse_message` never raises: what cannot be read is left empty
and the rest of the mail still counts. The measured basis is MAIL.md: the first text/plain part wins
over HTML, declared charsets are often wrong, format=flowed needs unwrapping by hand, and robots
(bounces, auto-replies, lists, our own mail) must be recognised so that we never answer them.
"""

from __future__ import annotations

import codecs
import email
import hashlib
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from email.header import decode_header
from email.message import Message
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import getaddresses

import lxml.html
from charset_normalizer import from_bytes
from inscriptis import Inscriptis
from inscriptis.css_profiles import CSS_PROFILES
from inscriptis.model.config import ParserConfig

from pbem.mail.reply import reply_text

MAX_PARSE_BYTES = 8 * 1024 * 1024  # beyond this only attachments can be; the text comes first
MAX_TEXT_BYTES = 64 * 1024  # a reply is a few lines; a huge body is cut before any work on it
MAX_HTML_BYTES = 256 * 1024  # markup is bulky (Outlook's styles alone can pass 40 KiB)
MAX_PARTS = 100
MAX_DEPTH = 8
MAX_HEADERS = 1000
MAX_HEADER_CHARS = 64 * 1024
MAX_MESSAGE_ID_CHARS = 400  # the store's column; a longer id is ignored like a missing one
MAX_ADDRESS_CHARS = 320

INVALID_DOMAIN = "pbem.invalid"


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

    def header(self, name: str) -> str | None:
        """The first header called `name` (any case), decoded, or None."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)


def parse_message(
    raw: bytes, *, own_addresses: Collection[str] = (), loop_header: str = "X-PBEM-Loop"
) -> Envelope:
    """Read one mail as delivered; never raises, whatever the bytes."""
    try:
        raw = bytes(raw)
    except Exception:
        raw = b""
    digest = hashlib.sha256(raw).hexdigest()
    fallback_id = f"<{digest}@{INVALID_DOMAIN}>"
    try:
        return _parse(raw, digest, fallback_id, own_addresses, loop_header)
    except Exception:  # the last resort: the mail is still recorded, as unreadable robot mail
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
            size=len(raw),
            headers=(),
            return_path=None,
        )


# --- headers ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Header:
    key: str  # the name, lower-cased: header names compare case-insensitively
    name: str  # the name as sent
    text: str  # unfolded, 8-bit bytes decoded, encoded words still encoded: for address parsing
    decoded: str  # encoded words decoded too: for people and later checks


def _parse(
    raw: bytes, digest: str, fallback_id: str, own_addresses: Collection[str], loop_header: str
) -> Envelope:
    msg = _message(raw)
    headers = _headers(msg)

    def texts(name: str) -> list[str]:
        return [h.text for h in headers if h.key == name]

    def first_decoded(name: str) -> str | None:
        return next((h.decoded for h in headers if h.key == name), None)

    from_addresses = [(name, addr.strip()) for name, addr in _addresses(texts("from")) if addr.strip()]
    sender = sender_name = ""
    if len(from_addresses) == 1:
        name, addr = from_addresses[0]
        if _is_address(addr):
            sender = _clean(addr.lower())
            sender_name = _clean(" ".join(_decode_words(name).split()))

    recipients: list[str] = []
    for field in ("to", "cc", "delivered-to", "x-original-to"):
        for _name, addr in _addresses(texts(field)):
            addr = _clean(addr.strip().lower())
            if _is_address(addr) and addr not in recipients:
                recipients.append(addr)

    message_id = _first_id(texts("message-id")[:1]) or fallback_id
    in_reply_to = _first_id(texts("in-reply-to")[:1])
    references = _ids(texts("references"))
    for mid in _ids(texts("in-reply-to")):
        if mid not in references:
            references.append(mid)

    raw_subject = first_decoded("subject") or ""
    return_path = first_decoded("return-path")
    return_path = return_path.strip() if return_path is not None else None
    automatic = _automatic(
        headers=headers,
        msg=msg,
        from_addresses=from_addresses,
        sender=sender,
        subject=raw_subject,
        return_path=return_path,
        own_addresses=own_addresses,
        loop_header=loop_header,
    )
    return Envelope(
        message_id=message_id,
        digest=digest,
        sender=sender,
        sender_name=sender_name,
        recipients=tuple(recipients),
        subject=clean_subject(raw_subject),
        text=_reply(msg),
        in_reply_to=in_reply_to,
        references=tuple(references),
        automatic=automatic,
        size=len(raw),
        headers=tuple((h.name, h.decoded) for h in headers),
        return_path=return_path,
    )


def _reply(msg: Message | None) -> str:
    try:
        return _clean(reply_text(_body(msg))) if msg is not None else ""
    except Exception:  # an unreadable body still leaves sender and subject to act on
        return ""


def _message(raw: bytes) -> Message | None:
    """The parsed mail; only its headers if the body defeats the parser (e.g. absurd nesting)."""
    data = raw[:MAX_PARSE_BYTES]
    try:
        return email.message_from_bytes(data, policy=compat32)
    except Exception:
        pass
    try:
        return BytesHeaderParser(policy=compat32).parsebytes(data, headersonly=True)
    except Exception:
        return None


def _headers(msg: Message | None) -> list[_Header]:
    if msg is None:
        return []
    result = []
    for name, value in list(msg.raw_items())[:MAX_HEADERS]:
        name = _clean(_eight_bit(str(name)).strip())
        text = _clean(_eight_bit(_unfold(str(value)[:MAX_HEADER_CHARS])))
        result.append(_Header(key=name.lower(), name=name, text=text, decoded=_clean(_decode_words(text))))
    return result


def _unfold(value: str) -> str:
    return re.sub(r"[\r\n]+", "", re.sub(r"\r?\n(?=[ \t])", "", value))


def _eight_bit(value: str) -> str:
    """Raw 8-bit bytes in a header (common, though not allowed): UTF-8 if they are, else Latin-1."""
    if value.isascii():
        return value
    try:
        data = value.encode("utf-8", "surrogateescape")
    except UnicodeError:
        return value
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _decode_words(value: str) -> str:
    """Decode RFC 2047 encoded words ("=?UTF-8?B?...?="), whatever their charset claims."""
    if "=?" not in value:
        return value
    try:
        parts = decode_header(value)
    except Exception:
        return value
    out = []
    for chunk, charset in parts:
        if isinstance(chunk, str):
            out.append(chunk)
        elif charset is None:
            # decode_header hands back the unencoded stretches in this codec
            out.append(_try_decode(chunk, "raw-unicode-escape") or chunk.decode("latin-1"))
        else:
            label = charset.split("*", 1)[0]  # RFC 2231 language suffix: "utf-8*en"
            out.append(
                _try_decode(chunk, label) or _try_decode(chunk, "utf-8") or chunk.decode("latin-1")
            )
    return "".join(out)


def _try_decode(data: bytes, label: str | None) -> str | None:
    if not label:
        return None
    try:
        return data.decode(label)
    except Exception:
        return None


def _clean(value: str) -> str:
    """No NUL and no lone surrogate: a database refuses both."""
    value = value.replace("\x00", "")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", "replace").decode("utf-8")
    return value


def _addresses(values: list[str]) -> list[tuple[str, str]]:
    try:
        return getaddresses(values)
    except Exception:
        return []


def _is_address(addr: str) -> bool:
    local, at, domain = addr.rpartition("@")
    return bool(at and local and domain) and len(addr) <= MAX_ADDRESS_CHARS and not re.search(r"\s", addr)


_ID_RE = re.compile(r"<[^<>\s]+>")


def _ids(values: list[str]) -> list[str]:
    """Message ids in order of appearance, without repeats, angle brackets kept."""
    found: list[str] = []
    for value in values:
        ids = _ID_RE.findall(value) or [f"<{token}>" for token in value.split() if "@" in token]
        for mid in ids:
            if mid not in found and len(mid) <= MAX_MESSAGE_ID_CHARS:
                found.append(mid)
    return found


def _first_id(values: list[str]) -> str | None:
    ids = _ids(values)
    return ids[0] if ids else None


_PREFIX_RE = re.compile(
    r"^(?:\s*(?:re|fwd?|aw|wg|sv|vs|antw|rif|r|tr|odp|回复|回覆|答复|转发)\s*(?:\[\d+\]|\(\d+\))?\s*[:：])+",
    re.I,
)


def clean_subject(subject: str) -> str:
    """The subject without reply and forward prefixes ("Re:", "AW:", "Re[2]:" ...), spaces collapsed."""
    return " ".join(_PREFIX_RE.sub("", subject).split())


# --- robots --------------------------------------------------------------------------------------

_AUTO_REPLY_SUBJECT_RE = re.compile(
    r"^\s*(?:out\s+of\s+(?:the\s+)?office|automatic\s+reply|auto[- ]?reply|auto[- ]?response|autosvar"
    r"|abwesenheitsnotiz|abwesend|automatische\s+antwort|réponse\s+automatique|respuesta\s+automática"
    r"|risposta\s+automatica|automatisch\s+antwoord|automaattinen\s+vastaus|odpowiedź\s+automatyczna"
    r"|resposta\s+automática|auto)\b\s*[:：]",
    re.I,
)
_BOUNCE_LOCAL_PARTS = {"mailer-daemon", "postmaster"}
_LIST_PRECEDENCE = {"bulk", "junk", "list"}


def _automatic(
    *,
    headers: list[_Header],
    msg: Message | None,
    from_addresses: list[tuple[str, str]],
    sender: str,
    subject: str,
    return_path: str | None,
    own_addresses: Collection[str],
    loop_header: str,
) -> str | None:
    """Why no human wrote this mail (RFC 3834, MAIL.md), or None.

    The most specific reason wins, in this order: loop, own, bounce, auto-reply, auto-submitted, list,
    no-sender (a bounce also says Auto-Submitted, a vacation reply often says Precedence: bulk).
    """
    keys = {h.key for h in headers}

    def value(name: str) -> str | None:
        return next((h.decoded.strip() for h in headers if h.key == name), None)

    if loop_header.lower() in keys:
        return "loop"
    own = {_without_detail(a) for a in own_addresses}
    if sender and _without_detail(sender) in own:
        return "own"

    from_locals = {_local_part(addr) for _name, addr in from_addresses}
    content_type = _content_type(msg)
    report_type = _param(msg, "report-type")
    if (
        (return_path is not None and re.fullmatch(r"<\s*>", return_path))
        or from_locals & _BOUNCE_LOCAL_PARTS
        or content_type == "multipart/report"
        or (report_type or "").lower() == "delivery-status"
    ):
        return "bounce"
    if "x-autoreply" in keys or "x-autorespond" in keys or _AUTO_REPLY_SUBJECT_RE.match(subject):
        return "auto-reply"
    auto_submitted = value("auto-submitted")
    if auto_submitted is not None and auto_submitted.split(";")[0].strip().lower() != "no":
        return "auto-submitted"
    if (value("precedence") or "").lower() in _LIST_PRECEDENCE or any(k.startswith("list-") for k in keys):
        return "list"
    if not sender:
        return "no-sender"
    return None


def _local_part(address: str) -> str:
    local, at, domain = address.strip().lower().rpartition("@")
    return local if at else domain


def _without_detail(address: str) -> str:
    local, _at, domain = address.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"


def _content_type(msg: Message | None) -> str:
    try:
        return msg.get_content_type() if msg is not None else "text/plain"
    except Exception:
        return "text/plain"


def _param(msg: Message | None, name: str) -> str | None:
    try:
        value = msg.get_param(name) if msg is not None else None
    except Exception:
        return None
    return value if isinstance(value, str) else None


# --- body ----------------------------------------------------------------------------------------


def _body(msg: Message) -> str:
    """The text the player typed, before the reply is cut out of it (MAIL.md, step 1 and 2)."""
    plain, html = _text_parts(msg)
    if plain is not None:
        text = _part_text(plain, MAX_TEXT_BYTES)
        if text.strip():
            flowed = (_param(plain, "format") or "").lower() == "flowed"
            delsp = (_param(plain, "delsp") or "").lower() == "yes"
            return unwrap_flowed(text, delsp=delsp) if flowed else text
    if html is not None:
        return html_to_text(_part_text(html, MAX_HTML_BYTES))
    return ""


def _text_parts(msg: Message) -> tuple[Message | None, Message | None]:
    """The first text/plain and first text/html part that are neither attachments nor attached mail."""
    found: dict[str, Message] = {}
    for part in _walk(msg):
        content_type = _content_type(part)
        wanted = content_type in ("text/plain", "text/html") and content_type not in found
        if wanted and not _is_attachment(part):
            found[content_type] = part
            if len(found) == 2:
                break
    return found.get("text/plain"), found.get("text/html")


def _walk(msg: Message) -> Iterator[Message]:
    """Parts in document order, without descending into attached messages; bounded in size."""
    stack = [(msg, 0)]
    seen = 0
    while stack and seen < MAX_PARTS:
        part, depth = stack.pop()
        seen += 1
        maintype = _content_type(part).split("/", 1)[0]
        if maintype == "message":
            continue
        payload = part.get_payload()
        if isinstance(payload, list):
            if depth < MAX_DEPTH:
                stack.extend((child, depth + 1) for child in reversed(payload) if isinstance(child, Message))
            continue
        if maintype != "multipart":
            yield part


def _is_attachment(part: Message) -> bool:
    try:
        return part.get_content_disposition() == "attachment" or bool(part.get_filename())
    except Exception:
        return True


def _part_text(part: Message, limit: int) -> str:
    try:
        data = part.get_payload(decode=True)
    except Exception:
        return ""
    if not isinstance(data, bytes):
        return ""
    try:
        charset = part.get_content_charset()
    except Exception:
        charset = None
    text = decode_text(data[:limit], charset, truncated=len(data) > limit)
    return text.replace("\r\n", "\n").replace("\r", "\n")


_SINGLE_BYTE_PREFIXES = ("ascii", "latin_1", "iso8859", "cp125", "cp437", "cp85", "koi8", "mac_")
_PREFERRED_GUESSES = ("utf_8", "cp1252", "latin_1", "iso8859_15")


def decode_text(data: bytes, charset: str | None, *, truncated: bool = False) -> str:
    """Bytes to text by the declared charset, distrusting it as real mail demands (MAIL.md step 2).

    Valid UTF-8 wins over a declared (or missing) single-byte charset, since UTF-8 sent under a
    Latin-1 label is a common mistake and 8-bit text is almost never valid UTF-8 by chance. When the
    declared charset fails, charset-normalizer guesses; Latin-1 decodes anything as a last resort.
    `truncated` says the bytes were cut, so a character split at the very end is not an error.
    """
    codec = _codec(charset)
    order = []
    if codec is None or codec.startswith(_SINGLE_BYTE_PREFIXES):
        order.append("utf-8")
    if codec is not None:
        order.append(codec)
    for label in order:
        text = _strict_decode(data, label, truncated)
        if text is not None:
            return text
    return _guess(data) or data.decode("latin-1")


def _codec(charset: str | None) -> str | None:
    if not charset:
        return None
    try:
        return codecs.lookup(charset.strip().strip('"')).name.replace("-", "_")
    except Exception:
        return None


def _strict_decode(data: bytes, label: str, truncated: bool) -> str | None:
    try:
        return data.decode(label)
    except UnicodeDecodeError as error:
        if truncated and error.start >= len(data) - 4:
            return _strict_decode(data[: error.start], label, False)
        return None
    except Exception:  # a label that names no text encoding ("base64", "rot13")
        return None


def _guess(data: bytes) -> str | None:
    """charset-normalizer's best guess; among equally good guesses, the usual Western code pages.

    Short bodies give many ties (e.g. cp1250 and cp1252 for "Grüße"), and the commonest mislabelled
    mail comes from Western Windows and Latin-1 clients.
    """
    try:
        matches = list(from_bytes(data))
        if not matches:
            return None
        best = min(m.chaos for m in matches)
        tied = [m for m in matches if m.chaos <= best]
        for preferred in _PREFERRED_GUESSES:
            if any(preferred in m.could_be_from_charset for m in tied):
                text = _strict_decode(data, preferred, False)
                if text is not None:
                    return text
        return str(tied[0])
    except Exception:
        return None


def unwrap_flowed(text: str, *, delsp: bool = False) -> str:
    """Join the soft line breaks of format=flowed text (RFC 3676); the standard library does not.

    A line ending in a space continues on the next line of the same quote depth; with DelSp=yes that
    space was added by the sender and is removed. Space-stuffing is undone and quote markers kept.
    """
    out: list[str] = []
    para: str | None = None
    para_depth = 0
    for line in text.replace("\r\n", "\n").split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]
        signature = content == "-- "
        if para is not None and (depth != para_depth or signature):
            out.append(_quoted(para_depth, para))  # a flowed line without continuation ends there
            para = None
        if para is None:
            para, para_depth = content, depth
        else:
            para += content
        if content.endswith(" ") and not signature:
            if delsp:
                para = para[:-1]
            continue
        out.append(_quoted(para_depth, para))
        para = None
    if para is not None:
        out.append(_quoted(para_depth, para))
    return "\n".join(out)


def _quoted(depth: int, content: str) -> str:
    return f"{'>' * depth} {content}" if depth else content


# --- HTML ----------------------------------------------------------------------------------------

_QUOTE_XPATH = (
    "//blockquote"
    " | //*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_quote ')]"
    " | //*[contains(concat(' ', normalize-space(@class), ' '), ' moz-cite-prefix ')]"
    " | //*[contains(concat(' ', normalize-space(@class), ' '), ' yahoo_quoted ')]"
    " | //*[contains(concat(' ', normalize-space(@class), ' '), ' protonmail_quote ')]"
)
# Outlook puts these right before the quoted mail, as siblings: the quote is everything after them.
_CUT_XPATH = "//*[@id='divRplyFwdMsg' or @id='appendonsend']"


def html_to_text(html: str) -> str:
    """The reply in an HTML body: quote containers removed, then inscriptis (it keeps "Grüße")."""
    try:
        html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html[:MAX_HTML_BYTES])
        if not html.strip():
            return ""
        doc = lxml.html.document_fromstring(html)
        cuts = doc.xpath(_CUT_XPATH)
        if cuts:
            _drop_from(cuts[0])
        for element in doc.xpath(_QUOTE_XPATH):
            if element.getparent() is not None:
                element.drop_tree()
        text = Inscriptis(doc, ParserConfig(css=CSS_PROFILES["strict"])).get_text()
        return text[:MAX_TEXT_BYTES]
    except Exception:
        return ""


def _drop_from(element: lxml.html.HtmlElement) -> None:
    """Remove an element and everything after it in document order."""
    node = element
    while node is not None:
        parent = node.getparent()
        for sibling in list(node.itersiblings()):
            parent.remove(sibling)
        node.tail = None
        node = parent
    if element.getparent() is not None:
        element.getparent().remove(element)
