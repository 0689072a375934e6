"""Header fields of an inbound mail, read as people and robots really write them.

Names, addresses, subjects and Message-IDs arrive folded, in raw 8-bit bytes, in RFC 2047 encoded
words with wrong charsets, with control and bidi characters, or absurdly long; everything here
turns them into text that is safe to store, to compare and to show to another player or to the
operator's terminal.
"""

from __future__ import annotations

import functools
import logging
import re
import unicodedata
from dataclasses import dataclass
from email.errors import HeaderParseError
from email.header import decode_header
from email.message import Message
from email.utils import getaddresses

import idna

log = logging.getLogger(__name__)

MAX_HEADERS = 1000
MAX_HEADER_CHARS = 64 * 1024
MAX_MESSAGE_ID_CHARS = 400  # the store's column; a longer id is ignored like a missing one
MAX_ADDRESS_CHARS = 320
MAX_NAME_CHARS = 64


@dataclass(frozen=True)
class Header:
    """One header field, in the forms the checks need."""

    key: str  # the name, lower-cased: header names compare case-insensitively
    name: str  # the name as sent
    text: str  # unfolded, 8-bit bytes decoded, encoded words still encoded: for address parsing
    decoded: str  # encoded words decoded too: for people and later checks


def read_headers(msg: Message | None) -> list[Header]:
    """The first `MAX_HEADERS` fields of `msg`, each bounded in length."""
    if msg is None:
        return []
    result = []
    for name, value in list(msg.raw_items())[:MAX_HEADERS]:
        name = clean(eight_bit(str(name)).strip())
        text = clean(eight_bit(unfold(str(value)[:MAX_HEADER_CHARS])))
        result.append(Header(key=name.lower(), name=name, text=text, decoded=clean(decode_words(text))))
    return result


def unfold(value: str) -> str:
    """One line: folding whitespace joined, stray line breaks dropped."""
    return re.sub(r"[\r\n]+", "", re.sub(r"\r?\n(?=[ \t])", "", value))


def eight_bit(value: str) -> str:
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


def decode_words(value: str) -> str:
    """Decode RFC 2047 encoded words ("=?UTF-8?B?...?="), whatever their charset claims."""
    if "=?" not in value:
        return value
    try:
        parts = decode_header(value)
    except (HeaderParseError, ValueError, LookupError, UnicodeError) as exc:
        log.debug("encoded words left as they are: %s", exc)
        return value
    out = []
    for chunk, charset in parts:
        if isinstance(chunk, str):
            out.append(chunk)
        elif charset is None:
            # decode_header hands back the unencoded stretches in this codec
            out.append(try_decode(chunk, "raw-unicode-escape") or chunk.decode("latin-1"))
        else:
            label = charset.split("*", 1)[0]  # RFC 2231 language suffix: "utf-8*en"
            out.append(try_decode(chunk, label) or try_decode(chunk, "utf-8") or chunk.decode("latin-1"))
    return "".join(out)


def try_decode(data: bytes, label: str | None) -> str | None:
    """`data` decoded by the codec `label`, or None if there is no such codec or it fails."""
    if not label:
        return None
    try:
        return data.decode(label)
    except (LookupError, UnicodeError, ValueError, TypeError):  # unknown, failing or non-text codecs
        return None


def clean(value: str) -> str:
    """No NUL and no lone surrogate: a database refuses both."""
    value = value.replace("\x00", "")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", "replace").decode("utf-8")
    return value


# --- text shown to people --------------------------------------------------------------------------

_ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]"  # two- and three-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_ASCII_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_SPACE_LIKE = str.maketrans({c: " " for c in "\t\n\r\x0b\x0c\x85\u2028\u2029"})


def printable(value: str) -> str:
    """`value` without terminal escapes, control (Cc) or format (Cf: zero-width, bidi) characters.

    Such characters reach opponents' subjects and the operator's terminal; no name or subject
    needs them. Line breaks and tabs become spaces; runs of spaces become one."""
    if value.isascii() and value.isprintable():  # no escape, no control character: only spaces to collapse
        return " ".join(value.split())
    value = _ANSI_RE.sub("", clean(value)).translate(_SPACE_LIKE)
    kept = "".join(c for c in value if unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co", "Cn"))
    return " ".join(kept.split())


def control_share(value: str) -> float:
    """The share of `value` that is control, format, unassigned or replacement characters."""
    if not value:
        return 0.0
    if value.isascii():  # the usual case, and fast
        return len(_ASCII_CONTROL_RE.findall(value)) / len(value)
    bad = sum(
        1
        for c in value
        if (unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") and c not in "\t\n\r\x0c") or c == "\ufffd"
    )
    return bad / len(value)


def display_name(raw: str) -> str:
    """A From display name fit to show anyone: NFKC, printable, at most `MAX_NAME_CHARS` characters.

    Empty means "no usable name", and the caller falls back to its default."""
    name = printable(unicodedata.normalize("NFKC", decode_words(raw)))
    name = name.strip().strip('"').strip()  # quotes a client left around an encoded name
    return name[:MAX_NAME_CHARS].rstrip()


_PREFIX_RE = re.compile(
    r"^(?:\s*(?:re|fwd?|aw|wg|sv|vs|antw|rif|r|tr|odp|回复|回覆|答复|转发)\s*(?:\[\d+\]|\(\d+\))?\s*[:：])+",
    re.I,
)


def clean_subject(subject: str) -> str:
    """The subject without reply and forward prefixes ("Re:", "AW:", "Re[2]:" ...), spaces collapsed,
    and without control or format characters."""
    return printable(_PREFIX_RE.sub("", printable(subject)))


# --- addresses -------------------------------------------------------------------------------------


def addresses(values: list[str]) -> list[tuple[str, str]]:
    """(display name, address) pairs of address header values; [] if they cannot be parsed."""
    return list(_addresses(tuple(values)))


@functools.lru_cache(maxsize=4096)
def _addresses(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """`getaddresses`, kept: the same From and To lines come back in mail after mail, and the
    stdlib's address parser was 2 % of the daemon's CPU in the throughput benchmark's profile."""
    try:
        return tuple(getaddresses(list(values)))
    except (HeaderParseError, ValueError, IndexError, TypeError) as exc:
        log.debug("address header unreadable: %s", exc)
        return ()


def is_address(addr: str) -> bool:
    """A plausible `local@domain`: both parts present, no spaces, no control bytes, not too long."""
    local, at, domain = addr.rpartition("@")
    return (
        bool(at and local and domain)
        and len(addr) <= MAX_ADDRESS_CHARS
        and not re.search(r"[\s\x00-\x1f\x7f]", addr)
    )


def normalise_address(addr: str) -> str:
    """One spelling per mailbox: lower-case, NFC, encoded words decoded, an IDN domain in Unicode.

    `jörg@bücher.example` and `JÖRG@xn--bcher-kva.example` are the same player."""
    if "=?" in addr:  # not allowed in an address, but Python's own email package writes jörg so
        addr = decode_words(addr)
    local, at, domain = unicodedata.normalize("NFC", addr.strip()).rpartition("@")
    if not at:
        return addr.strip().lower()
    domain = domain.lower()
    if "xn--" in domain:
        try:
            domain = idna.decode(domain)
        except (idna.IDNAError, UnicodeError, ValueError) as exc:
            log.debug("IDN domain %r left as sent: %s", domain, exc)
    return f"{local.lower()}@{domain}"


def ascii_address(addr: str) -> str:
    """The address with its domain in ASCII (IDNA), for SMTP; the local part is left as it is.

    Raises ValueError if the domain is no valid internationalised domain name."""
    local, at, domain = addr.strip().rpartition("@")
    if not at or not local or not domain:
        raise ValueError(f"not an address: {addr!r}")
    if domain.isascii():
        return addr.strip()
    try:
        domain = idna.encode(domain, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError) as exc:
        raise ValueError(f"not a valid internationalised domain: {domain!r} ({exc})") from exc
    return f"{local}@{domain}"


# --- Message-IDs -----------------------------------------------------------------------------------

_ID_RE = re.compile(r"<[^<>\s]+>")


def ids(values: list[str]) -> list[str]:
    """Message ids in order of appearance, without repeats, angle brackets kept."""
    found: list[str] = []
    for value in values:
        mids = _ID_RE.findall(value) or [f"<{token}>" for token in value.split() if "@" in token]
        for mid in mids:
            if mid not in found and len(mid) <= MAX_MESSAGE_ID_CHARS and mid.isprintable():
                found.append(mid)
    return found


def first_id(values: list[str]) -> str | None:
    """The first message id in `values`, or None."""
    found = ids(values)
    return found[0] if found else None
