"""The service's own notations in mail: each one written and read here, as a pair.

Three things we put into mail come back to us in replies and must be read exactly as written:
the Reply-To plus-address (`game+g42-TOKEN@domain` or `game+TOKEN@domain`; the stop address of
List-Unsubscribe is `game+stop-TOKEN@domain`), the subject tag
(`[pbem #42] ... [k:TOKEN]` or `[pbem] ...`) and our Message-IDs (`<pbem.HEX@domain>`). Keeping
writer and reader side by side, with round-trip tests, means a change of format cannot break one
half only. Tokens are kept generic (lower-case hex, 10 to 32 characters, which may follow up to
two version numbers: `7.3.0123456789abcdef`): what they prove is the caller's business, this
module only carries them.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from pbem.mail.message.headers import clean_subject

TOKEN_MIN = 10
TOKEN_MAX = 32
MAX_SUBJECT_TOKENS = 3  # a subject may carry thousands of guesses: only a few are ever tried
TAG = "pbem"
MAX_SUBJECT = 78  # RFC 5322's line length: a longer subject is cut short by many clients

_TOKEN = rf"(?:\d{{1,9}}\.){{0,2}}[0-9a-f]{{{TOKEN_MIN},{TOKEN_MAX}}}"
_TOKEN_RE = re.compile(rf"^{_TOKEN}$")
_DETAIL_RE = re.compile(rf"^(?:g(\d{{1,18}})-)?({_TOKEN})$", re.I)
_SUBJECT_TAG_RE = re.compile(rf"\[{TAG}(?:\s+#(\d{{1,18}}))?\]", re.I)
_SUBJECT_TOKEN_RE = re.compile(rf"\[k:({_TOKEN})\]", re.I)
_MESSAGE_ID_RE = re.compile(r"<pbem\.([0-9a-f]{24})@([^<>@\s]+)>", re.I)


def is_token(value: str) -> bool:
    """Whether `value` has the shape of a token (lower-case hex, 10 to 32 characters, after at
    most two version numbers)."""
    return bool(_TOKEN_RE.match(value))


def _check_token(token: str) -> None:
    if not is_token(token):
        raise ValueError(f"a token is {TOKEN_MIN} to {TOKEN_MAX} lower-case hex digits (after versions), not {token!r}")


# --- the Reply-To plus-address ---------------------------------------------------------------------


@dataclass(frozen=True)
class PlusAddress:
    """What our Reply-To address carried back: the game it was about (if any) and the token."""

    token: str
    game_id: int | None = None


def format_reply_to(local_part: str, domain: str, token: str, game_id: int | None = None) -> str:
    """`local+g42-TOKEN@domain` for a game's mail, `local+TOKEN@domain` for any other."""
    _check_token(token)
    if game_id is not None and game_id < 0:
        raise ValueError(f"a game id is not negative: {game_id}")
    detail = f"g{game_id}-{token}" if game_id is not None else token
    return f"{local_part}+{detail}@{domain}"


def parse_reply_to(address: str, local_part: str, domain: str) -> PlusAddress | None:
    """The game and token in one of our plus-addresses; None for any other address.

    Local part and domain compare without regard to case, as mail servers (and some clients that
    lower-case what they send to) treat them."""
    name, at, dom = address.strip().strip("<>").rpartition("@")
    base, plus, detail = name.partition("+")
    if not (at and plus) or base.lower() != local_part.lower() or dom.lower() != domain.lower():
        return None
    m = _DETAIL_RE.match(detail)
    if m is None:
        return None
    return PlusAddress(token=m.group(2).lower(), game_id=int(m.group(1)) if m.group(1) else None)


# --- a player's personal address ------------------------------------------------------------------

_CONTACT_RE = re.compile(r"^([a-z][a-z0-9]{0,15})\.([0-9a-f]{16})$", re.I)  # a letter first: never a token


def format_contact(local_part: str, domain: str, label: str, secret: str) -> str:
    """`local+alice.SECRET@domain`: a player's own address to write to us from scratch.

    The label (from the player's address) only helps them recognise it; the secret proves it."""
    label = re.sub(r"^[^a-z]+|[^a-z0-9]", "", label.lower())[:16] or "me"
    if not re.fullmatch(r"[0-9a-f]{16}", secret):
        raise ValueError(f"a personal address's secret is 16 lower-case hex digits, not {secret!r}")
    return f"{local_part}+{label}.{secret}@{domain}"


def parse_contact(address: str, local_part: str, domain: str) -> str | None:
    """The secret of a personal address of ours, or None for any other address."""
    m = _CONTACT_RE.match(_detail(address, local_part, domain) or "")
    return m.group(2).lower() if m else None


# --- the List-Unsubscribe address ------------------------------------------------------------------

STOP = "stop"


def format_stop_address(local_part: str, domain: str, token: str) -> str:
    """`local+stop-TOKEN@domain`: the address of our List-Unsubscribe header."""
    _check_token(token)
    return f"{local_part}+{STOP}-{token}@{domain}"


def parse_stop_address(address: str, local_part: str, domain: str) -> str | None:
    """The token of one of our stop addresses; None for any other address."""
    head, dash, token = (_detail(address, local_part, domain) or "").partition("-")
    if not dash or head.lower() != STOP or not _TOKEN_RE.match(token.lower()):
        return None
    return token.lower()


def _detail(address: str, local_part: str, domain: str) -> str | None:
    """What follows the `+` in one of our plus-addresses (local part and domain compared
    without regard to case), or None for any other address."""
    name, at, dom = address.strip().strip("<>").rpartition("@")
    base, plus, detail = name.partition("+")
    if not (at and plus) or base.lower() != local_part.lower() or dom.lower() != domain.lower():
        return None
    return detail


# --- the subject tag -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SubjectTag:
    """What a subject says in our notation: whether it carries our tag, the game, the tokens."""

    ours: bool
    game_id: int | None
    tokens: tuple[str, ...]
    text: str  # the subject without reply prefixes, our tag and tokens; spaces collapsed


def format_subject(
    text: str, game_id: int | None = None, token: str | None = None, names: Iterable[str] = (),
    titles: Iterable[str] = (),
) -> str:
    """`[pbem #42] text [k:TOKEN]` for a game's mail, `[pbem] text` for any other.

    The tag goes first so that filters and bots matching `[pbem #42]` keep working and a reply's
    "Re: ..." is never read as a command; the token goes last, where clients leave it alone.
    Within `MAX_SUBJECT` characters (`fit_subject`): the players' `names` are shortened and the
    game's title (one of `titles`, which the tag stands for) left out before any other word;
    never the tag nor the token, which a reply must carry back whole."""
    if token is not None:
        _check_token(token)
    if game_id is not None and game_id < 0:
        raise ValueError(f"a game id is not negative: {game_id}")
    tag = f"[{TAG} #{game_id}]" if game_id is not None else f"[{TAG}]"
    end = f" [k:{token}]" if token is not None else ""
    words = fit_subject(" ".join(text.split()), MAX_SUBJECT - len(tag) - 1 - len(end), names, titles)
    subject = f"{tag} {words}" if words else tag
    return subject + end


def fit_subject(text: str, room: int, names: Iterable[str] = (), titles: Iterable[str] = ()) -> str:
    """`text` within `room` characters if it can be, losing the least first: the players' names
    cut to their first word; then the game's title that opens it (`Ataxx: `, which the tag says
    too); then the names cut to a few letters with an ellipsis, longest first. Never a word of
    what happened: "you won" cut off would be worse than a long subject."""
    if len(text) <= room:
        return text
    known = sorted({n.strip() for n in names if n and n.strip()}, key=len, reverse=True)
    text = _renamed(text, {name: _first_word(name) for name in known})
    if len(text) <= room:
        return text
    for title in titles:
        if title and text.startswith(title) and len(text) > len(title) and not text[len(title)].isalnum():
            text = text[len(title):].lstrip(" :：-")
            break
    if len(text) <= room:
        return text
    short = [_first_word(name) for name in known]
    clipped = text
    for letters in (12, 6):
        clipped = text
        for name in short:
            clipped = _renamed(clipped, {name: _clipped(name, letters)})
            if len(clipped) <= room:
                return clipped
    return clipped  # as short as it gets: every word left says something, longer rather than cut


def _renamed(text: str, names: dict[str, str]) -> str:
    """Each name, where it stands as a word, written as its short form."""
    for name, short in names.items():
        if short != name:
            text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", short, text)
    return text


def _first_word(name: str) -> str:
    return name.split()[0] if " " in name else name


def _clipped(name: str, letters: int) -> str:
    return name if len(name) <= letters + 1 else name[:letters].rstrip() + "\u2026"


def parse_subject(subject: str) -> SubjectTag:
    """Read our tag and at most `MAX_SUBJECT_TOKENS` token candidates (the last ones) from a subject.

    Reply prefixes ("Re:", "AW:") and control characters are removed first, as inbound mail has them."""
    subject = clean_subject(subject)
    tags = list(_SUBJECT_TAG_RE.finditer(subject))
    game_id = next((int(m.group(1)) for m in tags if m.group(1)), None)
    found = [m.group(1).lower() for m in _SUBJECT_TOKEN_RE.finditer(subject)]
    tokens = tuple(dict.fromkeys(reversed(found)))[:MAX_SUBJECT_TOKENS][::-1]
    text = _SUBJECT_TOKEN_RE.sub(" ", _SUBJECT_TAG_RE.sub(" ", subject))
    return SubjectTag(ours=bool(tags), game_id=game_id, tokens=tokens, text=" ".join(text.split()))


# --- our Message-IDs -------------------------------------------------------------------------------


def format_message_id(domain: str, unique: str | None = None) -> str:
    """`<pbem.HEX@domain>`: globally unique (96 random bits unless `unique` is given)."""
    unique = secrets.token_hex(12) if unique is None else unique
    if not re.fullmatch(r"[0-9a-f]{24}", unique):
        raise ValueError(f"the unique part of our Message-ID is 24 lower-case hex digits, not {unique!r}")
    if not domain or re.search(r"[<>@\s]", domain):
        raise ValueError(f"not a domain for a Message-ID: {domain!r}")
    return f"<pbem.{unique}@{domain}>"


def parse_message_id(message_id: str, domain: str) -> str | None:
    """The unique part of one of our Message-IDs in `domain`; None for anyone else's."""
    m = _MESSAGE_ID_RE.fullmatch(message_id.strip())
    if m is None or m.group(2).lower() != domain.lower():
        return None
    return m.group(1).lower()


def find_message_ids(text: str, domain: str) -> list[str]:
    """Our Message-IDs quoted anywhere in `text` (a bounce report, a References header), in order."""
    found = []
    for m in _MESSAGE_ID_RE.finditer(text):
        if m.group(2).lower() == domain.lower():
            mid = f"<pbem.{m.group(1).lower()}@{domain}>"
            if mid not in found:
                found.append(mid)
    return found
