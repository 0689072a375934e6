"""The outbox: mails are written in the message's transaction, and delivered apart from it.

Writing a mail only inserts a row (with its final bytes and Message-ID), so a crash never
loses a reply and a retry repeats the same Message-ID. The sender loop claims due rows,
sends one recipient each, and reschedules temporary failures with exponential backoff.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.clock import now
from pbem.config import Settings
from pbem.db import transaction
from pbem.mail import outbound, smtp
from pbem.models import Game, Outbox, Player
from pbem.templates import Templates

log = logging.getLogger(__name__)


def reply_to(settings: Settings, player: Player, game: Game | None) -> str:
    """`game+g42-SECRET@domain`: names the game and proves the replier got our mail."""
    detail = f"g{game.id}-{player.secret}" if game is not None and game.id else player.secret
    return settings.plus_address(detail)


def _thread(session: Session, player: Player, game: Game | None) -> tuple[str | None, list[str]]:
    """In-Reply-To and References that keep a player's mails about one game in one thread."""
    if game is None or game.id is None:
        return None, []
    rows = session.exec(
        select(Outbox.message_id)
        .where(Outbox.game_id == game.id)
        .where(Outbox.player_id == player.id)
        .order_by(Outbox.id)
    ).all()
    if not rows:
        return None, []
    return rows[-1], [rows[0], rows[-1]]


def queue(
    session: Session,
    settings: Settings,
    templates: Templates,
    player: Player,
    sections: list[tuple[str, dict[str, Any]]],
    *,
    game: Game | None = None,
    ignored: list[str] = (),  # type: ignore[assignment]
    in_reply_to: str | None = None,
    references: list[str] = (),  # type: ignore[assignment]
) -> Outbox:
    """Render `sections` (template, data) into one mail to `player` and add it to the outbox."""
    rendered = [templates.render(name, **data) for name, data in sections]
    subject = next((r.subject for r in rendered if r.subject), settings.name)
    frame = templates.render(
        "_mail.txt",
        sections=[r.body for r in rendered],
        ignored=list(ignored),
        player=player,
        game_id=game.id if game is not None else None,
    )
    thread_reply, thread_refs = _thread(session, player, game)
    message_id = outbound.new_message_id(settings.domain)
    data = outbound.build(
        message_id=message_id,
        sender=(settings.name, settings.address),
        recipient=(player.name, player.address),
        reply_to=reply_to(settings, player, game),
        subject=subject,
        body=frame.body,
        in_reply_to=in_reply_to or thread_reply,
        references=[*references, *thread_refs] if in_reply_to else thread_refs,
        loop_marker=settings.address,
    )
    row = Outbox(
        message_id=message_id,
        recipient=player.address,
        kind=sections[0][0].removesuffix(".txt"),
        game_id=game.id if game is not None else None,
        player_id=player.id,
        data=data,
        next_attempt_at=now(),
        created_at=now(),
    )
    session.add(row)
    return row


def _backoff(settings: Settings, attempts: int) -> timedelta:
    return timedelta(seconds=min(settings.retry_base * 2 ** max(attempts - 1, 0), 6 * 3600))


async def deliver_due(engine: Engine, settings: Settings, limit: int = 50) -> int:
    """Send every due outbox row once; returns how many were sent."""
    with Session(engine) as session:
        due = session.exec(
            select(Outbox.id)
            .where(Outbox.status == "pending")
            .where(Outbox.next_attempt_at <= now())
            .order_by(Outbox.id)
            .limit(limit)
        ).all()
    sent = 0
    for row_id in due:
        with Session(engine) as session:
            row = session.get(Outbox, row_id)
            if row is None or row.status != "pending":
                continue
            recipient, data = row.recipient, row.data
        error: smtp.DeliveryError | None = None
        try:
            await smtp.send(settings.smtp, settings.address, recipient, data)
        except smtp.DeliveryError as exc:
            error = exc
        with transaction(engine) as session:
            row = session.get(Outbox, row_id)
            row.attempts += 1
            if error is None:
                row.status, row.sent_at, row.last_error = "sent", now(), None
                sent += 1
            elif isinstance(error, smtp.PermanentFailure) or row.attempts >= settings.max_attempts:
                row.status, row.last_error = "failed", str(error)[:400]
                log.error("outbox %s to %s failed for good: %s", row.message_id, recipient, error)
            else:
                row.next_attempt_at = now() + _backoff(settings, row.attempts)
                row.last_error = str(error)[:400]
                log.warning("outbox %s to %s: %s; retrying", row.message_id, recipient, error)
            session.add(row)
        if error is not None and not isinstance(error, smtp.PermanentFailure):
            break  # the server is down or refuses us: stop this round, keep the order
    return sent
