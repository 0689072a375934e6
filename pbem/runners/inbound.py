"""Processing one inbound message: one transaction from its envelope to its replies.

The transaction records the message id (unique), runs the commands, updates the games and
writes every outgoing mail to the outbox; then it commits. A message read twice (a crash
before the mailbox was told, a duplicate delivery, two daemons) is found by its id and
changes nothing.
"""

from __future__ import annotations

import contextlib
import logging
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, bindparam
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.commands.lines import reader
from pbem.commands.lines.base import Context
from pbem.commands.player import language
from pbem.core import faults
from pbem.core.config import Settings
from pbem.core.db import transaction
from pbem.core.models import Challenge, Game, InboundMessage, Outbox, Player
from pbem.core.rows import fresh, insert_row, read
from pbem.core.wallclock import now
from pbem.games import players
from pbem.letters import bounces, notify, post
from pbem.mail.message import notation
from pbem.mail.message.inbound import Envelope, parse_message
from pbem.mail.message.outbound import LOOP_HEADER
from pbem.runners import commands as runner
from pbem.runners import quarantine
from pbem.text.templates import Templates
from pbem.trust import proof as trust

log = logging.getLogger(__name__)

_SUBJECT_GAME = re.compile(r"#(\d{1,9})\b")



@dataclass(frozen=True)
class Result:
    """What became of one message: processed, silenced (the day's replies are spent), duplicate,
    banned or robot (no reply), stopped (a mail to a stop address: no more mail to that player),
    quarantined (set aside after too many tries)."""

    status: str
    message_id: str


class Service:
    """The mail-to-records core; the daemon and the tests call `handle` with raw bytes."""

    def __init__(self, settings: Settings, engine: Engine, templates: Templates | None = None) -> None:
        self.settings = settings
        self.engine = engine
        self.templates = templates or reader.guarded_templates(settings)

    def parse(self, raw: bytes) -> Envelope:
        return parse_message(raw, own_addresses=[self.settings.address], loop_header=LOOP_HEADER)

    def handle(self, raw: bytes, envelope: Envelope | None = None, gate: quarantine.Gate | None = None) -> Result:
        """Handle one message; `envelope` is its parse, when the caller has made it already, and
        `gate` the quarantine's bookkeeping (the daemon's), which joins this one transaction."""
        envelope = envelope or self.parse(raw)
        gate = gate or quarantine.Gate()
        try:
            with transaction(self.engine) as session:
                verdict, tries = gate.admit(session, envelope, raw)
                if verdict == "duplicate":
                    return Result("duplicate", envelope.message_id)
                if verdict == "quarantined":
                    session.add(_inbound(envelope, "failed", "quarantined"))
                    return Result("quarantined", envelope.message_id)
                record = _inbound(envelope, "processed")
                result = self._handle(session, envelope, raw, record)
                _write(session, record)  # last, with every field it will have: one INSERT, no UPDATE
                gate.succeeded(session, envelope, tries)
                return result
        except IntegrityError:
            if not self._recorded(envelope):
                raise  # not a duplicate: a real fault, which the caller retries and quarantines
            return Result("duplicate", envelope.message_id)  # another daemon recorded it first

    def _recorded(self, envelope: Envelope) -> bool:
        """Whether the message's own unique id is already recorded (the only integrity error
        that means "duplicate")."""
        with Session(self.engine) as session:
            found = session.exec(
                select(InboundMessage.id).where(InboundMessage.message_id == envelope.message_id)
            ).first()
        return found is not None

    def set_aside(self, raw: bytes, why: str, envelope: Envelope | None = None) -> None:
        """Record a message that keeps failing, so it is not read again; the admin sees it."""
        with contextlib.suppress(IntegrityError), transaction(self.engine) as session:
            session.add(_inbound(envelope or self.parse(raw), "failed", why))

    def _handle(self, session: Session, envelope: Envelope, raw: bytes, record: InboundMessage) -> Result:
        stopped = trust.stopping(session, self.settings, envelope)
        if stopped is not None:  # List-Unsubscribe: its token is the proof; no body, no answer
            stopped.stopped_at = stopped.stopped_at or now()
            session.add(stopped)
            record.status, record.note = "stopped", f"stop address of {stopped.address}"[:400]
            log.info("%s asks for no more mail (%s)", stopped.address, envelope.message_id)
            return Result("stopped", envelope.message_id)
        if envelope.automatic:
            record.status, record.note = "robot", envelope.automatic
            log.info("no reply to %s from %s: %s", envelope.message_id, envelope.sender, envelope.automatic)
            if envelope.automatic == "bounce":  # one of our mails did not arrive: the admin sees it
                bounces.record(session, self.settings, self.templates, envelope, now())
            return Result("robot", envelope.message_id)
        at = now()
        reading = reader.read(envelope.subject, envelope.text)
        acting = runner.acting(reading)
        player, copies = players.get_or_register_with(  # whether this mail's acts were done, in the same read
            session, envelope.sender, at, trust.COPIES, trust.copies_of(trust.fingerprints(self.settings, envelope, acting)))
        if player.banned:  # `pbem admin ban`: no reply, no commands
            record.status, record.note = "banned", "the sender is banned"
            log.info("no reply to %s: %s is banned", envelope.message_id, envelope.sender)
            return Result("banned", envelope.message_id)
        evidence = trust.evidence(session, self.settings, envelope, player, at, copies)
        record.proof = evidence.proof or ("wrong" if evidence.wrong else None)
        if evidence.proof is not None:
            players.proven(  # only a proven mail may name them
                player, envelope.sender_name, now(), players.reserved_names(self.settings))
        if evidence.proof is not None:  # any proven mail: their address works, whatever it answers
            bounces.lift(session, self.settings, self.templates, player, at)
        lifted = player.stopped_at is not None and evidence.proof is not None and not evidence.stale
        if lifted:  # they wrote again, showing a mail of ours newer than their `stop`
            player.stopped_at = None
            player.resumes += 1  # the stop addresses of the mails before this stop nothing more
        ctx = Context(
            settings=self.settings,
            session=session,
            player=player,
            envelope=envelope,
            inbound=record,
            evidence=evidence,
            game_hint=self._game_hint(session, envelope),
        )
        ctx.move_hint = _awaiting(session, player, evidence) if ctx.game_hint is None else None
        ignored = runner.run(ctx, reading)
        language.settle(ctx, reading)  # a new player's first mail: the language of every mail to them
        if lifted and player.stopped_at is None:  # not stopped again by this very mail
            ctx.reply("unstopped.txt")
        self._send(ctx, ignored)
        return Result(record.status, envelope.message_id)  # processed, or silenced (no reply today)

    def _game_hint(self, session: Session, envelope: Envelope) -> int | None:
        """The game a reply is about: our plus-address, then the thread, then `#42`.

        A reply to our mail about no game (a games list, an answer about several games) is
        about none, whatever games its thread showed before: a bare move in it must name its
        game unless the player has only one. (Not our notice of a held mail: the lines it
        confirms were written in their own thread.)"""
        about_none = False
        for address in envelope.recipients:
            plus = notation.parse_reply_to(address, self.settings.local_part, self.settings.domain)
            if plus is not None and plus.game_id is not None:
                return plus.game_id
            about_none = about_none or plus is not None
        if about_none:
            answered = trust.answered(session, envelope)
            about_none = answered is not None and answered[0] != "held"
        ids = [*envelope.references, *([envelope.in_reply_to] if envelope.in_reply_to else [])]
        if ids and not about_none:
            found = read(session, _THREAD_GAME, {"ids": ids[-20:]}, (Outbox,)).scalar()
            if found is not None:
                return found
        tag = notation.parse_subject(envelope.subject)
        if not tag.ours and (m := _SUBJECT_GAME.search(envelope.subject)):
            return int(m.group(1))  # "board #42" written by the player (not our "Games #1, #2")
        return tag.game_id

    def _send(self, ctx: Context, ignored: list[str]) -> None:
        """Queue the reply to the sender (all its sections in one mail) and the mails to others,
        within the reply budget."""
        session, settings, at = ctx.session, self.settings, now()
        if not any(letter.reply for letter in ctx.letters):
            ctx.reply("nothing.txt", **nothing_done(ctx))
        if ctx.evidence.proof is not None and ctx.player.contact is None:
            # their first proven mail: from now on they may also write from scratch, to their own address
            ctx.reply("address.txt", address=trust.personal_address(settings, ctx.player), first=True, new=False)
        thread = trust.thread_of(session, ctx.envelope)
        templates = [letter.template for letter in ctx.letters if letter.reply and letter.template not in notify.ASIDES]
        allowed = "ok" if ctx.acted else trust.allowance(session, settings, ctx.player, ctx.evidence, thread, templates, at)
        if allowed == "silent":
            ctx.inbound.status, ctx.inbound.note = "silenced", "replies for today used up"
            ctx.letters = [letter for letter in ctx.letters if not letter.reply]
        elif allowed == "last":
            ctx.reply("quiet.txt", unproven=ctx.evidence.proof is None)
        game = session.get(Game, ctx.game_hint) if ctx.game_hint else None
        if game is not None and game.side_of(ctx.player.id) is None:
            game = None
        post.post(
            session,
            settings,
            self.templates,
            ctx.letters,
            ignored=ignored,
            in_reply_to=ctx.envelope.message_id,
            references=list(ctx.envelope.references),
            reply_game=game,
            thread=None if ctx.acted else thread,  # an answer to a change counts against no budget
            unproven=ctx.evidence.proof is None,
            reply_language=ctx.language,
        )


_THREAD_GAME = (  # built once: the newest game of our mails that a reply's headers name
    select(Outbox.game_id)
    .where(col(Outbox.message_id).in_(bindparam("ids", expanding=True)), col(Outbox.game_id).is_not(None))
    .order_by(col(Outbox.id).desc())
    .limit(1)
)


def _write(session: Session, record: InboundMessage) -> None:
    """Insert the record of a handled message in the session's transaction, without the ORM's
    unit of work (nothing reads it back in this transaction)."""
    insert_row(session, record)
    session.info[faults.INBOUND] = True  # the crash hook's `before-commit` point


def _inbound(envelope: Envelope, status: str, note: str = "") -> InboundMessage:
    """The record of one inbound message; its unique message_id makes handling exactly-once."""
    return fresh(
        InboundMessage,
        message_id=envelope.message_id,
        digest=envelope.digest,
        sender=envelope.sender[:320],
        subject=envelope.subject[:400],
        status=status,
        note=note[:400],
        received_at=now(),
    )


def nothing_done(ctx: Context) -> dict[str, Any]:
    """What the answer to a mail without a command shows: the challenge it replies to, when it
    answers one still open to its writer (`ok` to a challenge: `accept 7` is the word), and
    the reader's address, which the example of a challenge must not be."""
    shown = trust.challenge_shown(ctx.session, ctx.player, ctx.envelope, ctx.evidence)
    challenge = ctx.session.get(Challenge, shown) if shown is not None else None
    if challenge is None or challenge.status != "open" or challenge.challenger_id == ctx.player.id \
            or challenge.opponent_id not in (None, ctx.player.id):
        return {"challenge": None, "me": ctx.player.address}
    return {"challenge": challenge.id, "me": ctx.player.address}


def _awaiting(session: Session, player: Player, evidence: trust.Evidence) -> int | None:
    """The one game, of those the answered mail showed, that waits for the sender's move (None
    if none or several): our mail about several games, or a digest, invites a bare move for it."""
    waiting = [
        game.id for game in (session.get(Game, gid) for gid in sorted(evidence.shown))
        if game is not None and game.status == "active" and game.player_id(game.turn) == player.id
    ]
    return waiting[0] if len(waiting) == 1 else None
