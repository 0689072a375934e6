"""The outbox: mails are written in the message's transaction, and delivered apart from it.

Writing a mail only inserts a row (with its final bytes and Message-ID), so a crash never
loses a reply and a retry repeats the same Message-ID. The sender loop claims due rows,
sends one recipient each, and reschedules temporary failures with exponential backoff.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import Session, select

from pbem import faults, trust
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
    ours = (Outbox.game_id == game.id, Outbox.player_id == player.id)
    ends = [select(agg(Outbox.id)).where(*ours).scalar_subquery() for agg in (func.min, func.max)]
    rows = session.exec(select(Outbox.message_id).where(Outbox.id.in_(ends)).order_by(Outbox.id)).all()
    if not rows:
        return None, []
    return rows[-1], [rows[0], rows[-1]]  # the thread's first mail and the newest


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
    attachments: list[tuple[str, str, str]] = (),  # type: ignore[assignment]
) -> Outbox:
    """Render `sections` (template, data) into one mail to `player` and add it to the outbox.

    `attachments` are (file name, MIME type, text); a game-over section, or one whose data
    names `attach_record`, also attaches that game's record."""
    rendered = [templates.render(name, **data) for name, data in sections]
    subject = next((r.subject for r in rendered if r.subject), settings.name)
    if not subject.startswith("[pbem"):
        subject = f"[pbem] {subject}"  # marks our subject, so a reply's "Re: ..." is never read as a command
    subject = trust.tag_subject(subject, player)
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
        attachments=[*attachments, *_records(session, sections)],
        date=now(),
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
        game_version=game.version if game is not None else None,
    )
    session.add(row)
    return row


def _records(session: Session, sections: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str, str]]:
    """The game records the sections ask for: the game-over mail carries the game's record."""
    from pbem import records  # records reads games, which the outbox need not import at start

    wanted = [
        data.get("attach_record") or (data["game"]["id"] if name == "game_over.txt" else None)
        for name, data in sections
    ]
    files = []
    for game_id in dict.fromkeys(w for w in wanted if w):
        game = session.get(Game, game_id)
        if game is not None:
            record = records.export(session, game)
            files.append((record.filename, record.mimetype, record.text))
    return files


def _backoff(settings: Settings, attempts: int) -> timedelta:
    return timedelta(seconds=min(settings.retry_base * 2 ** max(attempts - 1, 0), 6 * 3600))


def claim(engine: Engine, limit: int, lease: float = 120.0) -> list[tuple[int, str, bytes]]:
    """Take due rows for this daemon alone: locked with SKIP LOCKED (PostgreSQL; SQLite's
    BEGIN IMMEDIATE serialises instead) and leased by moving their next attempt ahead.

    If the daemon dies while sending, the lease (seconds) runs out and a daemon sends the
    row again, with the same Message-ID: at least once, never lost."""
    with transaction(engine) as session:
        rows = session.exec(
            select(Outbox)
            .where(Outbox.status == "pending")
            .where(Outbox.next_attempt_at <= now())
            .order_by(Outbox.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        ).all()
        for row in rows:
            row.next_attempt_at = now() + timedelta(seconds=lease)
            session.add(row)
        return [(row.id, row.recipient, row.data) for row in rows]


async def deliver_due(engine: Engine, settings: Settings, limit: int = 50) -> int:
    """Send every due outbox row once, over a few SMTP connections side by side (each reused
    for many mails); returns how many were sent. A temporary failure ends the round: the
    rows not yet tried are given back at once, the failed one waits for its backoff."""
    rows = deque(claim(engine, limit, settings.outbox_lease))
    sent = 0
    halted = False

    async def worker() -> None:
        nonlocal sent, halted
        async with smtp.Connection(settings.smtp) as connection:
            while rows and not halted:
                row_id, recipient, data = rows.popleft()
                error: smtp.DeliveryError | None = None
                try:
                    await connection.send(settings.address, recipient, data)
                    faults.crash_point("after-smtp")
                except smtp.DeliveryError as exc:
                    error = exc
                _record(engine, settings, row_id, recipient, error)
                if error is None:
                    sent += 1
                elif not isinstance(error, smtp.PermanentFailure):
                    halted = True  # the server is down or refuses us: stop this round

    await asyncio.gather(*(worker() for _ in range(min(settings.smtp_connections, len(rows)))))
    _release(engine, [row_id for row_id, _, _ in rows])
    return sent


def _record(engine: Engine, settings: Settings, row_id: int, recipient: str, error: smtp.DeliveryError | None) -> None:
    """Note one attempt: sent, failed for good, or due again after a backoff."""
    with transaction(engine) as session:
        row = session.get(Outbox, row_id)
        row.attempts += 1
        if error is None:
            row.status, row.sent_at, row.last_error = "sent", now(), None
        elif isinstance(error, smtp.PermanentFailure) or row.attempts >= settings.max_attempts:
            row.status, row.last_error = "failed", str(error)[:400]
            log.error("outbox %s to %s failed for good: %s", row.message_id, recipient, error)
        else:
            row.next_attempt_at = now() + _backoff(settings, row.attempts)
            row.last_error = str(error)[:400]
            log.warning("outbox %s to %s: %s; retrying", row.message_id, recipient, error)
        session.add(row)


def _release(engine: Engine, row_ids: list[int]) -> None:
    """Give back claimed rows this round did not try: due at once, not after the lease."""
    if not row_ids:
        return
    with transaction(engine) as session:
        for row in session.exec(select(Outbox).where(Outbox.id.in_(row_ids))):
            row.next_attempt_at = now()
            session.add(row)
