"""Whom to believe and whom to answer: proof of receipt, outdated mails, the reply budget, bounces.

The From header can be forged and any mail can be replayed, so a command that changes
anything must show a token that only our mails carry (`pbem.trust.tokens`): in our Reply-To
plus-address, or in the subject of a game's mail for clients that drop Reply-To. The
token says which board and which state of the player's records the mail showed; a mail
that answers an older one changes nothing. Every reply is rationed per address and day
and per thread, and a mail without proof is answered at most once a day, so a forger or
a looping auto-responder cannot turn us into a mail cannon; bounces of our mails are
recorded against the player instead of being answered (`pbem.letters.bounces`).
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, time

from sqlalchemy import and_, bindparam, or_
from sqlmodel import Session, col, func, select

from pbem.core.config import Settings
from pbem.core.db import keep
from pbem.core.models import Challenge, Game, InboundMessage, Move, Outbox, Player
from pbem.core.rows import attach, read, table
from pbem.core.work import GAME_FACT_READS, take_game_facts, with_game_facts, work_of
from pbem.mail.message import notation
from pbem.mail.message.inbound import Envelope
from pbem.trust import tokens

#: the templates of replies that only say something went wrong (rationed per day)
ERROR_KINDS = ("error", "nothing", "refused")



def reply_to(settings: Settings, player: Player, game: Game | None, token: tokens.Token | None = None) -> str:
    """Our Reply-To for a mail to `player` about `game`: the plus-address carries the token
    (`token`, the mail's own; a new one when not given)."""
    text = tokens.format_token(player, token or tokens.minted(player, game))
    game_id = game.id if game is not None else None
    return notation.format_reply_to(settings.local_part, settings.domain, text, game_id)


def stop_address(settings: Settings, player: Player) -> str:
    """The address of our List-Unsubscribe header for `player`: a mail to it stops their mail."""
    return notation.format_stop_address(settings.local_part, settings.domain, tokens.stop_token(player))


def stopping(session: Session, settings: Settings, envelope: Envelope) -> Player | None:
    """The player whose stop address (`stop_address`) a mail is sent to, when its token is
    theirs: such a mail stops them, with no body and whatever its From (a forger cannot
    write the token)."""
    for address in envelope.recipients[:10]:
        token = notation.parse_stop_address(address, settings.local_part, settings.domain)
        claimed = tokens.parse_stop(token) if token is not None else None
        if claimed is None:
            continue
        player = session.get(Player, claimed[0])
        if player is not None and tokens.verify_stop(player, claimed[1]):
            return player
    return None


def subject(
    text: str, player: Player, game: Game | None, token: tokens.Token | None = None, names: Iterable[str] = (),
    titles: Iterable[str] = (),
) -> str:
    """Our subject: `[pbem #42] text [k:TOKEN]` for a mail that shows a game, `[pbem] text` else.

    The tag marks our subjects, so a reply's "Re: ..." is never read as a command; the token
    there serves clients that drop our Reply-To. A long one is shortened in the players' `names`
    and the game's `titles` first (`notation.fit_subject`)."""
    if game is None or game.id is None:
        return notation.format_subject(text, names=names, titles=titles)
    token_text = tokens.format_token(player, token or tokens.minted(player, game))
    return notation.format_subject(text, game.id, token_text, names, titles)


def personal_address(settings: Settings, player: Player) -> str:
    """The player's own address (`pbem+alice.SECRET@domain`), made on first use: a mail they
    write to it from scratch is proven, as a reply to one of our mails is."""
    if not player.contact:
        player.contact = tokens.new_contact()
    return notation.format_contact(settings.local_part, settings.domain, player.address.partition("@")[0], player.contact)


@dataclass
class Evidence:
    """What one inbound message proves, read once before any command runs: how the sender
    showed our token, what the mails that carried that token showed, and which boards the
    mail answers."""

    proof: str | None  # plus-address, subject, contact, dmarc; None: no proof
    token: tokens.Token | None = None  # what the mail that carried the proving token showed
    mac: str | None = None  # the proving token's MAC (the outbox rows that carried it have it)
    player_version: int = 0  # the player's version when the mail arrived
    wrong: bool = False  # it showed a token that is not ours
    seen: dict[int, int] = field(default_factory=dict)  # game id -> newest version the mail answers
    versions: dict[int, int] = field(default_factory=dict)  # game id -> version when the mail arrived
    shown: dict[int, int] = field(default_factory=dict)  # game id -> newest version its token's mails showed
    held: list[int] = field(default_factory=list)  # the held mails its token's notices listed
    answers_held: int | None = None  # the held mail whose notice it answers (In-Reply-To), if one
    challenges: list[int] = field(default_factory=list)  # the challenges its token's mails showed
    copies: int = 0  # mails from the sender that already did what this one asks (`tokens.fingerprint`)
    language: str | None = None  # the language of the token's mail, when not the player's own (an unsettled one's)

    @property
    def stale(self) -> bool:
        """The proving mail is older than the last change of the player's own records."""
        return self.token is not None and self.token.player_version < self.player_version

    def covers(self, game: Game) -> bool:
        """Whether the proving token came with a mail that showed `game` as it is now: only
        then may a line act on it (a token of another game, or of an older board, does not)."""
        return game.id is not None and self.shown.get(game.id, -1) >= game.version


def evidence(
    session: Session, settings: Settings, envelope: Envelope, player: Player, now: datetime,
    copies: int | None = None,
) -> Evidence:
    """Read the proof of receipt and the boards a mail answers, before any command runs.

    A valid token always proves, however many wrong ones the address showed (a forger's
    guesses must not lock the player out: 64 bits of MAC are not guessed); `copies` is
    `copies_of`, when the caller read it with the player."""
    claimed = _claimed(settings, envelope)
    found = Evidence(proof=None, player_version=player.version, copies=copies or 0)
    proving = next(((how, token, mac) for how, token, mac in claimed if tokens.verify(player, token, mac)), None)
    if proving is not None:
        found.proof, found.token, found.mac = proving
    elif _contact(settings, envelope, player):
        found.proof = "contact"
    found.wrong = bool(claimed) and proving is None
    if found.proof is None and settings.trusted_authserv_id and dmarc_pass(envelope, settings.trusted_authserv_id):
        found.proof = "dmarc"
    _boards(session, envelope, player, now, found)
    return found


def _contact(settings: Settings, envelope: Envelope, player: Player) -> bool:
    """Whether the mail was sent to the player's own personal address (`personal_address`)."""
    if not player.contact:
        return False
    for address in envelope.recipients:
        secret = notation.parse_contact(address, settings.local_part, settings.domain)
        if secret is not None and hmac.compare_digest(secret, player.contact):
            return True
    return False


def fingerprints(settings: Settings, envelope: Envelope, lines: list[str]) -> list[str]:
    """The fingerprints (`tokens.fingerprint`) the mail would have with each token it offers,
    before any is checked: read with the sender's row, they tell whether a mail that did the
    same already came (only a proven mail's fingerprint is ever stored)."""
    if not lines:
        return []
    return [tokens.fingerprint(envelope.sender, mac, lines) for _, _, mac in _claimed(settings, envelope)]


#: how many recorded mails did what a mail with one of the `fingerprints` asks (a scalar
#: subquery, built once: read with the sender's row, `players.get_or_register_with`)
COPIES = (
    select(func.count(col(InboundMessage.id)))
    .where(col(InboundMessage.acts).in_(bindparam("fingerprints", expanding=True)))
    .scalar_subquery()
)


def copies_of(fingerprints: list[str]) -> dict[str, list[str]]:
    """The parameters of `COPIES` for a mail with these fingerprints."""
    return {"fingerprints": fingerprints or [""]}


def _claimed(settings: Settings, envelope: Envelope) -> list[tuple[str, tokens.Token, str]]:
    """The tokens a mail offers: its plus-addresses to us, then its subject's (a few at most)."""
    claimed = []
    for address in envelope.recipients:
        plus = notation.parse_reply_to(address, settings.local_part, settings.domain)
        if plus is not None and (parsed := tokens.parse_token(plus.token, plus.game_id)) is not None:
            claimed.append(("plus-address", *parsed))
    tag = notation.parse_subject(envelope.subject)
    for text in tag.tokens:
        if (parsed := tokens.parse_token(text, tag.game_id)) is not None:
            claimed.append(("subject", *parsed))
    return claimed[: notation.MAX_SUBJECT_TOKENS]


def _midnight(now: datetime) -> datetime:
    return datetime.combine(now.date(), time(0), tzinfo=now.tzinfo)


def outdated(evidence: Evidence, game_id: int) -> bool:
    """Whether the mail answers a board of the game older than the one it had when the mail came."""
    seen, current = evidence.seen.get(game_id), evidence.versions.get(game_id)
    return seen is not None and current is not None and seen < current


def caught_up(session: Session, envelope: Envelope, evidence: Evidence, player: Player, game: Game) -> bool:
    """Whether a mail that answers an older board of `game` may act on the board as it is now.

    Mails cross: the notice of the opponent's move can reach the player before our answer to
    their own, which they then take for the newest. Their reply can mean nothing but today's
    board when, since the mail it answers, they have neither moved in the game nor written us
    a proven mail (whatever it said: a replayed mail of theirs finds itself here), and our
    mail with the board as it stands has gone to them."""
    seen = evidence.seen.get(game.id) if game.id is not None else None
    if seen is None:
        return False
    since = (
        select(func.min(col(Outbox.created_at)))
        .where(col(Outbox.player_id) == player.id, col(Outbox.game_id) == game.id, col(Outbox.game_version) == seen)
        .scalar_subquery()
    )
    moved = select(func.count(col(Move.id))).where(
        col(Move.game_id) == game.id, col(Move.player_id) == player.id, col(Move.created_at) > since).scalar_subquery()
    wrote = select(func.count(col(InboundMessage.id))).where(
        col(InboundMessage.sender) == player.address, col(InboundMessage.received_at) > since,
        col(InboundMessage.proof).is_not(None), col(InboundMessage.message_id) != envelope.message_id,
    ).scalar_subquery()
    mailed = select(func.count(col(Outbox.id))).where(
        col(Outbox.player_id) == player.id, col(Outbox.game_id) == game.id,
        col(Outbox.game_version) == game.version, col(Outbox.status) == "sent",
    ).scalar_subquery()
    row = session.execute(select(since, moved, wrote, mailed)).one()
    return row[0] is not None and row[1] == 0 and row[2] == 0 and row[3] > 0


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


_OURS_NAMED = with_game_facts(  # built once: our mails a mail's headers name, and those that carried its token
    select(Outbox.message_id, Outbox.game_id, Outbox.game_version, Outbox.template, Outbox.thread,
           Outbox.player_id, Outbox.token, Outbox.shown, table(Game))
    .outerjoin(table(Game), Game.id == Outbox.game_id)
    .where(or_(
        Outbox.message_id.in_(bindparam("ids", expanding=True)),
        and_(Outbox.token == bindparam("mac"), Outbox.player_id == bindparam("player")),
    ))
    .order_by(Outbox.id.desc())
    .limit(100)
)
_GAME_AT = 8  # where the game's columns begin in a row of `_OURS_NAMED`
_FACTS_AT = _GAME_AT + len(table(Game).columns)  # and where `with_game_facts` adds its own


def _boards(session: Session, envelope: Envelope, player: Player, at: datetime, found: Evidence) -> None:
    """The boards a mail answers (from its token, else its threading headers) and their
    games' versions as the mail arrives; what the mails that carried its proving token showed.

    One query reads our mails that the headers name with their games and what the commands
    that follow ask of them (`with_game_facts`), the mail it answers (for `answered`) and the
    mails of the proving token."""
    seen: dict[int, int] = {}
    games: dict[int, Game] = {}
    ids = [*envelope.references, *([envelope.in_reply_to] if envelope.in_reply_to else [])][-40:]
    token, mac = found.token, found.mac
    if ids or mac is not None:
        rows = read(session, _OURS_NAMED, {"ids": ids, "mac": mac, "player": player.id, "at": at},
                    (Outbox, Game, *GAME_FACT_READS)).all()
        cache = work_of(session).answered
        if envelope.in_reply_to:
            cache[envelope.in_reply_to] = None
        taken: dict[int, Game] = {}  # a game's columns come again with each of its mails: taken once
        for row in rows:
            message_id, game_id, version, template, thread, to, carried, shown = row[:_GAME_AT]
            game = taken.get(row[_GAME_AT]) if row[_GAME_AT] is not None else None
            if row[_GAME_AT] is not None and game is None:
                game = taken[row[_GAME_AT]] = attach(session, Game, row, _GAME_AT)
                take_game_facts(session, game, row, _FACTS_AT, at)
            if mac is not None and carried == mac and to == player.id:
                _showed(found, shown or {}, message_id == envelope.in_reply_to)
            if message_id not in ids:
                continue
            if message_id == envelope.in_reply_to:
                cache[message_id] = (template, thread)
            if game is not None:
                games[game.id] = game
                if version is not None:
                    seen[game_id] = max(version, seen.get(game_id, version))
    if token is not None and token.game_id is not None:
        seen[token.game_id] = token.game_version  # the proving token says exactly which board
        found.shown[token.game_id] = max(token.game_version or 0, found.shown.get(token.game_id, -1))
    for gid in seen:
        game = games.get(gid) or session.get(Game, gid)
        if game is not None:
            keep(session, game)
            if game.status == "active":
                found.versions[gid] = game.version
    found.seen = seen


def _showed(found: Evidence, shown: dict, answered: bool) -> None:
    """Add what one mail that carried the proving token showed (`Outbox.shown`)."""
    for key, version in (shown.get("games") or {}).items():
        gid = int(key)
        found.shown[gid] = max(int(version), found.shown.get(gid, -1))
    for challenge_id in shown.get("challenges") or ():
        if challenge_id not in found.challenges:
            found.challenges.append(challenge_id)
    for held_id in shown.get("held") or ():
        if held_id not in found.held:
            found.held.append(held_id)
        if answered:
            found.answers_held = held_id
    if shown.get("language") and (answered or found.language is None):
        found.language = shown["language"]


def shows(letters_games: dict[int, int], held: list[int], challenges: list[int] = (),
          language: str | None = None) -> dict | None:
    """What an outbox row keeps of what its mail showed (read back by `_showed`, and by
    `challenge_shown` for the challenge that `accept` alone answers), and the language it was
    written in when that is not the reader's own (`pbem.commands.player.language.settle`)."""
    if not letters_games and not held and not challenges and not language:
        return None
    shown: dict = {"language": language} if language else {}
    if letters_games:
        shown["games"] = {str(g): v for g, v in sorted(letters_games.items())}
    if held:
        shown["held"] = sorted(held)
    if challenges:
        shown["challenges"] = sorted(set(challenges))
    return shown


def challenge_shown(session: Session, player: Player, envelope: Envelope, evidence: Evidence) -> int | None:
    """The challenge of our mail that `envelope` answers (`accept` alone in a reply to it): the
    one that mail showed, as its outbox row keeps it; found by the proving token, else by the
    mail's threading (the mail it answers first), and only among our mails to this player.
    Never read from words, which are the reader's language."""
    if len(evidence.challenges) == 1:
        return evidence.challenges[0]
    envelope_ids = [*([envelope.in_reply_to] if envelope.in_reply_to else []), *reversed(envelope.references[-20:])]
    if not envelope_ids:
        return None
    rows = dict(session.exec(
        select(Outbox.message_id, Outbox.shown)
        .where(Outbox.message_id.in_(envelope_ids), Outbox.player_id == player.id)
    ).all())
    for message_id in envelope_ids:
        found = (rows.get(message_id) or {}).get("challenges") or []
        if len(found) == 1:
            return found[0]
    return None


def answered(session: Session, envelope: Envelope) -> tuple[str, str | None] | None:
    """(template, thread) of our mail that `envelope` answers, or None: read once per mail
    (the held-commands check and the reply budget both ask; `evidence` reads it first)."""
    if not envelope.in_reply_to:
        return None
    cache = work_of(session).answered
    if envelope.in_reply_to not in cache:
        row = session.exec(
            select(Outbox.template, Outbox.thread).where(Outbox.message_id == envelope.in_reply_to)
        ).first()
        cache[envelope.in_reply_to] = tuple(row) if row is not None else None
    return cache[envelope.in_reply_to]


def thread_of(session: Session, envelope: Envelope) -> str:
    """The thread a mail belongs to, for the per-thread budget: the thread of our mail it
    answers, else the first of its References, else the mail itself."""
    ours = answered(session, envelope)
    if ours is not None and ours[1]:
        return ours[1]
    return (envelope.references[0] if envelope.references else envelope.in_reply_to or envelope.message_id)[:400]


def allowance(
    session: Session, settings: Settings, player: Player, evidence: Evidence, thread: str,
    templates: list[str], now: datetime,
) -> str:
    """Whether we may answer this mail today: "ok", "last" (answer, and say it is the last one
    today) or "silent". One budget for every reply: per address and day, and per thread (a
    looping auto-responder stays in one); a mail without proof is answered a few times a day at
    most (`max_unproven_replies_per_day`: what a forger can draw, and enough for a newcomer to
    find their way), and only what the sender caused counts against them."""
    midnight = _midnight(now)
    ours = (Outbox.recipient == player.address, Outbox.created_at >= midnight, Outbox.thread.is_not(None))
    if evidence.proof is None:  # a newcomer or a forger: a few answers a day, the last one says how to go on
        answered = session.exec(select(func.count(Outbox.id)).where(*ours, Outbox.unproven.is_(True))).one()
        limit = settings.max_unproven_replies_per_day
        return "silent" if answered >= limit else "last" if answered + 1 >= limit else "ok"
    proven = (*ours, Outbox.unproven.is_(False))
    last = False
    if templates and all(t.removesuffix(".txt") in ERROR_KINDS for t in templates):
        errors = session.exec(
            select(func.count(Outbox.id)).where(*proven, Outbox.template.in_(ERROR_KINDS))
        ).one()
        if errors >= settings.max_error_replies_per_day:
            return "silent"
        last = errors + 1 >= settings.max_error_replies_per_day
    replies = session.exec(select(func.count(Outbox.id)).where(*proven)).one()
    in_thread = session.exec(select(func.count(Outbox.id)).where(*proven, Outbox.thread == thread)).one()
    if replies >= settings.max_replies_per_day or in_thread >= settings.max_replies_per_thread:
        return "silent"
    if last or replies + 1 >= settings.max_replies_per_day or in_thread + 1 >= settings.max_replies_per_thread:
        return "last"
    return "ok"


# --- invitations to addresses that never wrote -------------------------------------------------


@dataclass(frozen=True)
class Invitations:
    """What a challenger may still send to addresses that never proved they read our mail:
    `left` invitations today, and `waiting`, the open challenge the target has not answered
    yet (None: the target may be invited)."""

    left: int
    waiting: int | None = None


def stranger(target: Player | None) -> bool:
    """Whether an address has never shown that it reads our mail (no row: never written to)."""
    return target is None or target.proven_at is None


def invitations_left(
    session: Session, settings: Settings, challenger: Player, target: Player | None, now: datetime
) -> Invitations:
    """How many challenges `challenger` may still send today to addresses that never wrote to
    us, and whether `target` (such an address, None when unknown) still has one unanswered.

    Read from the challenges themselves: today's of the challenger whose opponent had not
    proved their address when it was made (`max_invitations_per_day`), and an open challenge
    to `target` made after its latest mail to us, by anyone (any mail from them answers it).
    So neither a mail of thirty lines nor several accomplices make a cannon of us."""
    sent = session.exec(
        select(func.count(Challenge.id))
        .join(Player, Player.id == Challenge.opponent_id)
        .where(Challenge.challenger_id == challenger.id, Challenge.created_at >= _midnight(now))
        .where((Player.proven_at.is_(None)) | (Player.proven_at > Challenge.created_at))
        .where(Player.bot_level.is_(None))
    ).one()
    left = max(settings.max_invitations_per_day - sent, 0)
    if target is None or target.id is None:
        return Invitations(left)
    heard = session.exec(select(func.max(InboundMessage.received_at)).where(InboundMessage.sender == target.address)).one()
    waiting = select(Challenge.id).where(Challenge.opponent_id == target.id, Challenge.status == "open")
    if heard is not None:
        waiting = waiting.where(Challenge.created_at > heard)
    return Invitations(left, session.exec(waiting.order_by(Challenge.id).limit(1)).first())
