"""Whom to believe and whom to answer: proof of receipt, outdated boards, reply budget, bounces.

The From header can be forged, so a command that acts on a game must show a token that
only our mails carry: the player's secret in our Reply-To plus-address, or the short
token derived from it in the subject (`[pbem #42] ... [k:0123456789]`) for clients that
drop Reply-To. A reply to a board older than the game's current one is refused with
the current board. Error replies are rationed per address and day, so a forger or a
broken client cannot turn us into a mail cannon; bounces of our mails are recorded
against the player instead of being answered.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, time

from sqlmodel import Session, func, select

from pbem.config import Settings
from pbem.mail.inbound import Envelope
from pbem.models import Bounce, Game, Outbox, Player

#: the templates of replies that only say something went wrong (rationed per day)
ERROR_KINDS = ("error", "nothing", "refused")

_DETAIL = re.compile(r"^(?:g(\d+)-)?([0-9a-f]{16})$")
_SUBJECT_TAG = re.compile(r"\[pbem #(\d+)\]")
_SUBJECT_TOKEN = re.compile(r"\[k:([0-9a-f]{10})\]")
_OUR_ID = r"<pbem\.[0-9a-f]{24}@%s>"
_RECIPIENT = re.compile(r"^(?:Final|Original)-Recipient:\s*rfc822\s*;\s*(\S+@\S+)\s*$", re.I | re.M)
_STATUS = re.compile(r"^(?:Diagnostic-Code|Status):\s*(.+)$", re.I | re.M)


def subject_token(player: Player) -> str:
    """The short token in a game mail's subject tag, derived from the player's secret."""
    return hashlib.sha256(f"pbem-subject:{player.secret}".encode()).hexdigest()[:10]


def reply_to(settings: Settings, player: Player, game: Game | None) -> str:
    """`game+g42-SECRET@domain`: names the game and proves the replier got our mail."""
    detail = f"g{game.id}-{player.secret}" if game is not None and game.id else player.secret
    return settings.plus_address(detail)


def tag_subject(subject: str, player: Player) -> str:
    """A game mail's subject `[pbem #42] ...` ends with `[k:TOKEN]`; other subjects stay as they are.

    The `[pbem #42]` tag itself is left alone, so filters and bots that match it keep working."""
    if not _SUBJECT_TAG.search(subject):
        return subject
    return f"{subject} [k:{subject_token(player)}]"


@dataclass
class Evidence:
    """What one inbound message proves: how the sender showed our token, which boards it saw."""

    proof: str | None  # plus-address, subject, dmarc, first-contact; None: no proof
    seen: dict[int, int] = field(default_factory=dict)  # game id -> newest version the mail answers
    versions: dict[int, int] = field(default_factory=dict)  # game id -> version when the mail arrived


def evidence(session: Session, settings: Settings, envelope: Envelope, player: Player) -> Evidence:
    """Read the proof of receipt and the boards a mail answers, before any command runs."""
    return Evidence(proof=_proof(session, settings, envelope, player), **_boards(session, envelope))


def _proof(session: Session, settings: Settings, envelope: Envelope, player: Player) -> str | None:
    local, domain = settings.local_part.lower(), settings.domain.lower()
    for address in envelope.recipients:
        name, _, dom = address.partition("@")
        base, _, detail = name.partition("+")
        if base == local and dom == domain and (m := _DETAIL.match(detail)) and m.group(2) == player.secret:
            return "plus-address"
    if any(m.group(1) == subject_token(player) for m in _SUBJECT_TOKEN.finditer(envelope.subject)):
        return "subject"
    if settings.trusted_authserv_id and dmarc_pass(envelope, settings.trusted_authserv_id):
        return "dmarc"
    written = session.exec(select(Outbox.id).where(Outbox.player_id == player.id).limit(1)).first()
    if written is None:  # we never wrote to this address: it has no token to show, and nothing to lose
        return "first-contact"
    return None


def outdated(evidence: Evidence, game_id: int) -> bool:
    """Whether the mail answers a board of the game older than its current one."""
    seen, current = evidence.seen.get(game_id), evidence.versions.get(game_id)
    return seen is not None and current is not None and seen < current


def dmarc_pass(envelope: Envelope, authserv_id: str) -> bool:
    """Whether our own receiving server (`authserv_id`) says DMARC passed for the From domain.

    Only the topmost Authentication-Results of that server counts (RFC 8601: the receiver
    adds its own on top; lower ones may have come with the mail)."""
    sender_domain = envelope.sender.rpartition("@")[2]
    for name, value in envelope.headers:
        if name.lower() != "authentication-results":
            continue
        head, _, results = value.partition(";")
        words = head.split()
        if not words or words[0].lower() != authserv_id.lower():
            continue
        for result in results.split(";"):
            result = re.sub(r"\([^)]*\)", " ", result)
            tokens = dict(t.split("=", 1) for t in result.split() if "=" in t)
            if tokens.get("dmarc", "").lower() == "pass":
                return tokens.get("header.from", "").lower() == sender_domain
        return False
    return False


def _boards(session: Session, envelope: Envelope) -> dict[str, dict[int, int]]:
    ids = [*envelope.references, *([envelope.in_reply_to] if envelope.in_reply_to else [])][-40:]
    if not ids:
        return {"seen": {}, "versions": {}}
    rows = session.exec(
        select(Outbox.game_id, func.max(Outbox.game_version))
        .where(Outbox.message_id.in_(ids))
        .where(Outbox.game_id.is_not(None))
        .where(Outbox.game_version.is_not(None))
        .group_by(Outbox.game_id)
    ).all()
    seen = {gid: version for gid, version in rows}
    versions = {}
    for gid in seen:
        game = session.get(Game, gid)
        if game is not None and game.status == "active":
            versions[gid] = game.version
    return {"seen": seen, "versions": versions}


def over_budget(session: Session, settings: Settings, player: Player, templates: list[str], now: datetime) -> bool:
    """Whether an error-only reply to `player` would pass today's (UTC) allowance: then, silence."""
    if not templates or any(t.removesuffix(".txt") not in ERROR_KINDS for t in templates):
        return False
    midnight = datetime.combine(now.date(), time(0), tzinfo=now.tzinfo)
    sent = session.exec(
        select(func.count(Outbox.id))
        .where(Outbox.recipient == player.address)
        .where(Outbox.template.in_(ERROR_KINDS))
        .where(Outbox.created_at >= midnight)
    ).one()
    return sent >= settings.max_error_replies_per_day


# --- bounces --------------------------------------------------------------------------------------


def record_bounce(session: Session, settings: Settings, envelope: Envelope, raw: bytes, now: datetime) -> Bounce:
    """A bounce of one of our mails, recorded against the player it was for (never answered).

    The player is found by the Message-IDs of our mails that the report quotes, else by the
    report's Final-Recipient / Original-Recipient address."""
    text = raw[:1024 * 1024].decode("latin-1")
    ours = re.findall(_OUR_ID % re.escape(settings.domain), text, flags=re.I)
    row = None
    if ours:
        row = session.exec(select(Outbox).where(Outbox.message_id.in_(ours[:50])).order_by(Outbox.id.desc())).first()
    player = session.get(Player, row.player_id) if row is not None and row.player_id else None
    address = player.address if player is not None else ""
    if player is None:
        for m in _RECIPIENT.finditer(text):
            candidate = m.group(1).strip("<>").lower()
            player = session.exec(select(Player).where(Player.address == candidate)).first()
            address = candidate
            if player is not None:
                break
    status = _STATUS.search(text)
    bounce = Bounce(
        player_id=player.id if player is not None else None,
        address=address[:320],
        outbox_message_id=row.message_id if row is not None else None,
        inbound_message_id=envelope.message_id,
        reason=(status.group(1).strip() if status else envelope.subject)[:400],
        created_at=now,
    )
    session.add(bounce)
    return bounce
