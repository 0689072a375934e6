"""Processing one inbound message: one transaction from its raw bytes to its replies.

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

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem import outbox, players, trust
from pbem.clock import now
from pbem.commands import reader
from pbem.commands.base import Context
from pbem.config import Settings
from pbem.db import transaction
from pbem.mail.inbound import Envelope, parse_message
from pbem.mail.outbound import LOOP_HEADER
from pbem.models import Game, InboundMessage, Outbox
from pbem.templates import Templates

log = logging.getLogger(__name__)

_DETAIL = re.compile(r"^(?:g(\d+)-)?([0-9a-f]{16})$")
_SUBJECT_GAME = re.compile(r"#(\d{1,9})\b")


@dataclass(frozen=True)
class Result:
    """What became of one message: processed, duplicate or robot (no reply)."""

    status: str
    message_id: str


class Service:
    """The mail-to-records core; the daemon and the tests call `handle` with raw bytes."""

    def __init__(self, settings: Settings, engine: Engine, templates: Templates | None = None) -> None:
        self.settings = settings
        self.engine = engine
        self.templates = templates or Templates(settings.templates_dir, guard=lambda line: reader.classify(line) is not None)

    def parse(self, raw: bytes) -> Envelope:
        return parse_message(raw, own_addresses=[self.settings.address], loop_header=LOOP_HEADER)

    def handle(self, raw: bytes) -> Result:
        envelope = self.parse(raw)
        try:
            with transaction(self.engine) as session:
                return self._handle(session, envelope, raw)
        except IntegrityError:  # another daemon recorded the same message first
            return Result("duplicate", envelope.message_id)

    def set_aside(self, raw: bytes, why: str) -> None:
        """Record a message that keeps failing, so it is not read again; the admin sees it."""
        with contextlib.suppress(IntegrityError), transaction(self.engine) as session:
            session.add(_inbound(self.parse(raw), "failed", why))

    def _handle(self, session: Session, envelope: Envelope, raw: bytes = b"") -> Result:
        seen = session.exec(
            select(InboundMessage.id).where(InboundMessage.message_id == envelope.message_id)
        ).first()
        if seen is not None:
            return Result("duplicate", envelope.message_id)
        record = _inbound(envelope, "processed")
        session.add(record)
        session.flush()
        if envelope.automatic:
            record.status, record.note = "robot", envelope.automatic
            log.info("no reply to %s from %s: %s", envelope.message_id, envelope.sender, envelope.automatic)
            if envelope.automatic == "bounce":  # one of our mails did not arrive: the admin sees it
                trust.record_bounce(session, self.settings, envelope, raw, now())
            return Result("robot", envelope.message_id)
        player = players.get_or_register(session, envelope.sender, now(), envelope.sender_name)
        if player.banned:  # `pbem admin ban`: no reply, no commands
            record.status, record.note = "banned", "the sender is banned"
            log.info("no reply to %s: %s is banned", envelope.message_id, envelope.sender)
            return Result("banned", envelope.message_id)
        ctx = Context(
            service=self,
            session=session,
            player=player,
            envelope=envelope,
            inbound=record,
            game_hint=self._game_hint(session, envelope),
            trust=trust.evidence(session, self.settings, envelope, player),
        )
        lines, ignored = reader.read(envelope.subject, envelope.text)
        if not trust.screen(ctx, self.settings, trust.command_lines(envelope.text)):
            lines, ignored = [], []  # too big or too many commands: one short error instead
        reader.execute(ctx, lines)
        self._send(ctx, ignored)
        return Result("processed", envelope.message_id)

    def _game_hint(self, session: Session, envelope: Envelope) -> int | None:
        """The game a reply is about: our plus-address, then the thread, then `#42`."""
        local, domain = self.settings.local_part.lower(), self.settings.domain.lower()
        for address in envelope.recipients:
            name, _, dom = address.partition("@")
            base, _, detail = name.partition("+")
            if base == local and dom == domain and (m := _DETAIL.match(detail)) and m.group(1):
                return int(m.group(1))
        ids = [*envelope.references, *([envelope.in_reply_to] if envelope.in_reply_to else [])]
        if ids:
            found = session.exec(
                select(Outbox.game_id)
                .where(Outbox.message_id.in_(ids[-20:]))
                .where(Outbox.game_id.is_not(None))
                .order_by(Outbox.id.desc())
            ).first()
            if found is not None:
                return found
        if m := _SUBJECT_GAME.search(envelope.subject):
            return int(m.group(1))
        return None

    def _send(self, ctx: Context, ignored: list[str]) -> None:
        """Queue the reply to the sender (all parts in one mail) and the notices to others."""
        session, settings = ctx.session, self.settings
        parts = [(p.template, p.data) for p in ctx.parts] or [("nothing.txt", {})]
        if trust.over_budget(session, settings, ctx.player, [name for name, _ in parts], now()):
            ctx.inbound.status, ctx.inbound.note = "silenced", "error replies for today used up"
            return
        game = session.get(Game, ctx.game_hint) if ctx.game_hint else None
        if game is not None and game.side_of(ctx.player.id) is None:
            game = None
        outbox.queue(
            session,
            settings,
            self.templates,
            ctx.player,
            parts,
            game=game,
            ignored=ignored,
            in_reply_to=ctx.envelope.message_id,
            references=list(ctx.envelope.references),
        )
        for notice in ctx.notices:
            outbox.queue(
                session, settings, self.templates, notice.player, [(notice.template, notice.data)], game=notice.game
            )


def _inbound(envelope: Envelope, status: str, note: str = "") -> InboundMessage:
    """The record of one inbound message; its unique message_id makes handling exactly-once."""
    return InboundMessage(
        message_id=envelope.message_id,
        digest=envelope.digest,
        sender=envelope.sender[:320],
        subject=envelope.subject[:400],
        status=status,
        note=note[:400],
        received_at=now(),
    )
