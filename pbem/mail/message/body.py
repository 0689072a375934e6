"""The text a player wrote: the right part of the mail, its real charset, HTML turned into text.

The measured basis is MAIL.md: the first text/plain part wins over HTML, declared charsets are
often wrong, format=flowed needs unwrapping by hand, and quote containers in HTML must go before
the text is read. A mail whose body is not text at all (binary garbage, an undecodable blob) is
said to be garbled, so that nothing of it is ever quoted back.
"""

from __future__ import annotations

import codecs
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from email.errors import MessageError
from email.message import Message

import lxml.etree
import lxml.html
from charset_normalizer import from_bytes
from inscriptis import Inscriptis
from inscriptis.css_profiles import CSS_PROFILES
from inscriptis.model.config import ParserConfig

from pbem.mail.message.headers import control_share
from pbem.mail.message.reply import is_ruled_header

log = logging.getLogger(__name__)

MAX_TEXT_BYTES = 64 * 1024  # a reply is a few lines; a huge body is cut before any work on it
MAX_HTML_BYTES = 256 * 1024  # markup is bulky (Outlook's styles alone can pass 40 KiB)
MAX_PARTS = 100
MAX_DEPTH = 8
GARBLED_SHARE = 0.05  # more control or replacement characters than this: not text
GARBLED_MIN = 3  # ... and at least this many, so one stray byte in a short reply does not count

# What reading a MIME structure can raise on hostile input, with the compat32 parser.
_MIME_ERRORS = (MessageError, ValueError, TypeError, LookupError, IndexError, AttributeError, UnicodeError)


@dataclass(frozen=True)
class Body:
    """The readable text of a mail (before the reply is cut out) and whether the body is not text."""

    text: str
    garbled: bool = False


def read_body(msg: Message) -> Body:
    """The text the player typed, before the reply is cut out of it (MAIL.md, step 1 and 2)."""
    plain, html = _text_parts(msg)
    if plain is None and html is None and _is_binary(msg):
        return Body("", garbled=True)
    text = ""
    if plain is not None:
        text = _part_text(plain, MAX_TEXT_BYTES)
        if _is_garbled(text):
            return Body("", garbled=True)
        if text.strip():
            flowed = (param(plain, "format") or "").lower() == "flowed"
            delsp = (param(plain, "delsp") or "").lower() == "yes"
            return Body(unwrap_flowed(text, delsp=delsp) if flowed else text)
    if html is not None:
        markup = _part_text(html, MAX_HTML_BYTES)
        if _is_garbled(markup):
            return Body("", garbled=True)
        return Body(html_to_text(markup))
    return Body(text)


def _is_garbled(text: str) -> bool:
    share = control_share(text)
    return share > GARBLED_SHARE and share * len(text) >= GARBLED_MIN


def _is_binary(msg: Message) -> bool:
    """A single-part mail whose body is declared as something other than text (and not attached)."""
    maintype = content_type(msg).split("/", 1)[0]
    return maintype not in ("text", "multipart", "message") and not _is_attachment(msg)


def content_type(msg: object) -> str:
    """The part's content type, text/plain when it cannot be read (as RFC 2045 says)."""
    if not isinstance(msg, Message):
        return "text/plain"
    try:
        return msg.get_content_type()
    except _MIME_ERRORS as exc:
        log.debug("unreadable Content-Type: %s", exc)
        return "text/plain"


def param(msg: object, name: str) -> str | None:
    """A Content-Type parameter as a string, or None when absent or unreadable."""
    if not isinstance(msg, Message):
        return None
    try:
        value = msg.get_param(name)
    except _MIME_ERRORS as exc:
        log.debug("unreadable Content-Type parameter %s: %s", name, exc)
        return None
    return value if isinstance(value, str) else None


def _text_parts(msg: Message) -> tuple[Message | None, Message | None]:
    """The first text/plain and first text/html part that are neither attachments nor attached mail."""
    found: dict[str, Message] = {}
    for part in walk(msg):
        kind = content_type(part)
        wanted = kind in ("text/plain", "text/html") and kind not in found
        if wanted and not _is_attachment(part):
            found[kind] = part
            if len(found) == 2:
                break
    return found.get("text/plain"), found.get("text/html")


def walk(msg: Message) -> Iterator[Message]:
    """Leaf parts in document order, without descending into attached messages; bounded in size."""
    stack = [(msg, 0)]
    seen = 0
    while stack and seen < MAX_PARTS:
        part, depth = stack.pop()
        seen += 1
        maintype = content_type(part).split("/", 1)[0]
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
    except _MIME_ERRORS as exc:  # a disposition we cannot read: do not take the part as the reply
        log.debug("unreadable Content-Disposition: %s", exc)
        return True


def _part_text(part: Message, limit: int) -> str:
    try:
        data = part.get_payload(decode=True)
    except _MIME_ERRORS as exc:
        log.debug("undecodable part: %s", exc)
        return ""
    if not isinstance(data, bytes):
        return ""
    try:
        charset = part.get_content_charset()
    except _MIME_ERRORS as exc:
        log.debug("unreadable charset: %s", exc)
        charset = None
    text = decode_text(data[:limit], charset, truncated=len(data) > limit)
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- charsets --------------------------------------------------------------------------------------

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
    except (LookupError, ValueError, TypeError):  # unknown, or a label with a NUL in it
        return None


def _strict_decode(data: bytes, label: str, truncated: bool) -> str | None:
    try:
        return data.decode(label)
    except UnicodeDecodeError as error:
        if truncated and error.start >= len(data) - 4:
            return _strict_decode(data[: error.start], label, False)
        return None
    except (LookupError, ValueError, TypeError):  # a label that names no text encoding ("base64", "rot13")
        return None


def _guess(data: bytes) -> str | None:
    """charset-normalizer's best guess; among equally good guesses, the usual Western code pages.

    Short bodies give many ties (e.g. cp1250 and cp1252 for "Grüße"), and the commonest mislabelled
    mail comes from Western Windows and Latin-1 clients.
    """
    try:
        matches = list(from_bytes(data))
    except (ValueError, LookupError, UnicodeError, TypeError, IndexError) as exc:
        log.warning("charset detection failed on %d bytes: %s: %s", len(data), type(exc).__name__, exc)
        return None
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


#: where our wrapper broke a paragraph's line (`format_flowed` writes it as a trailing space)
SOFT_BREAK = "\ue00e"


def format_flowed(text: str) -> str:
    """Our text as format=flowed (RFC 3676, DelSp=no), the pair of `unwrap_flowed`: a line the
    wrapper broke (it ends in `SOFT_BREAK`) ends in a space, so a phone's client joins it to the
    next and wraps the paragraph to its screen; every other line stays as it is (boards, lists),
    and a line that starts with a space, `>` or `From ` is stuffed with one space, which a
    flowed reader takes off again (one that is not sees it, a column to the right)."""
    lines = []
    for line in text.split("\n"):
        soft = line.endswith(SOFT_BREAK)
        line = line.replace(SOFT_BREAK, "")
        if line.startswith((" ", ">", "From ")):
            line = " " + line
        lines.append(line + " " if soft and line.strip() else line)
    return "\n".join(lines)


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

def _has_class(name: str) -> str:
    return f"//*[contains(concat(' ', normalize-space(@class), ' '), ' {name} ')]"


# The containers clients put a quoted mail in: Apple, iOS and Thunderbird (blockquote), Gmail,
# Thunderbird's attribution, Yahoo, Proton, Zoho, Outlook for Mac, GMX and Web.de.
_QUOTE_XPATH = " | ".join(
    [
        "//blockquote",
        *(_has_class(name) for name in ("gmail_quote", "gmail_extra", "moz-cite-prefix", "yahoo_quoted",
                                         "protonmail_quote", "zmail_extra")),
        "//*[@id='mail-editor-reference-message-container']",
        "//div[@name='quote']",
    ]
)
# Outlook (and old Hotmail) put these right before the quoted mail, as siblings: the quote is
# everything after them.
_CUT_XPATH = "//*[@id='divRplyFwdMsg' or @id='appendonsend' or @id='stopSpelling']"
# A horizontal rule becomes the rule of underscores Outlook writes in text, so that a header block
# below it ends the reply in any language (reply.py).
_RULE_TEXT = "_" * 32


def html_to_text(html: str) -> str:
    """The reply in an HTML body: quote containers removed, then inscriptis (it keeps "Grüße")."""
    html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html[:MAX_HTML_BYTES])
    if not html.strip():
        return ""
    try:
        doc = lxml.html.document_fromstring(html)
        cuts = doc.xpath(_CUT_XPATH)
        if cuts:
            _drop_from(cuts[0])
        for element in doc.xpath(_QUOTE_XPATH):
            if element.getparent() is not None:
                element.drop_tree()
        for rule in doc.iter("hr"):
            rule.tag, rule.text = "div", _RULE_TEXT
            rule.attrib.clear()
        text = Inscriptis(doc, ParserConfig(css=CSS_PROFILES["strict"])).get_text()
    except (lxml.etree.LxmlError, ValueError, TypeError, RecursionError) as exc:
        log.debug("HTML body unreadable: %s: %s", type(exc).__name__, exc)
        return ""
    return _rules_before_headers(text[:MAX_TEXT_BYTES])


def _rules_before_headers(text: str) -> str:
    """Keep a rule only where a header block follows it (where it marks a pasted mail)."""
    lines = text.split("\n")
    kept: list[str] = []
    dropped = False
    for n, line in enumerate(lines):
        if line.strip() == _RULE_TEXT and not is_ruled_header(lines, n):
            dropped = True
            continue
        if not (dropped and not line.strip() and kept and not kept[-1].strip()):
            kept.append(line)  # the rule's own blank lines go with it
        dropped = dropped and not line.strip()
    return "\n".join(kept)


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
