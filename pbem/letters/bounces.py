"""Bounces acted on: a mail of ours that bounced for good, counted; an address that keeps
bouncing, suppressed until its player writes again.

A bounce is read once, when the mail is parsed (`pbem.mail.message.robots.bounce_report`: flufl.bounce
and the DSN's status). It is recorded against the player whose mail of ours it quotes (our
Message-IDs), else against the address it names. Only a permanent failure (5.x.x) of a mail of
ours that it quotes is counted: anyone can forge a report naming an address, nobody but the
recipient's servers can quote the Message-ID of a mail we sent there. At `max_hard_bounces`
the address is suppressed: no mail is queued to it (`Player.silent`, as after `stop`), the
player's clocks are paused (a vacation that spends no allowance) and each opponent is told.
Any proven mail of the player lifts it: the address works again.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlmodel import Session, select

from pbem.core.config import Settings
from pbem.core.models import Bounce, Outbox, Player
from pbem.games import clock, vacations
from pbem.games import store as G
from pbem.letters import notify, post
from pbem.mail.message.inbound import Envelope
from pbem.mail.message.robots import BounceReport
from pbem.text.templates import Templates

log = logging.getLogger(__name__)


def record(
    session: Session, settings: Settings, templates: Templates, envelope: Envelope, at: datetime
) -> Bounce:
    """Record a bounce of one of our mails (never answered); count a hard one, and suppress the
    address at `settings.max_hard_bounces`."""
    report = envelope.bounce or BounceReport()
    ours = list(report.ours)
    row = None
    if ours:
        row = session.exec(select(Outbox).where(Outbox.message_id.in_(ours[:50])).order_by(Outbox.id.desc())).first()
    player = session.get(Player, row.player_id) if row is not None and row.player_id else None
    address = player.address if player is not None else (report.addresses[0] if report.addresses else "")
    if player is None and report.addresses:
        player = session.exec(select(Player).where(Player.address.in_(report.addresses))).first()
        address = player.address if player is not None else address
    counts = (
        player is not None and row is not None and report.hard and row.recipient == player.address
        and _first_for(session, row.message_id)
    )
    bounce = Bounce(
        player_id=player.id if player is not None else None,
        address=address[:320],
        outbox_message_id=row.message_id if row is not None else None,
        inbound_message_id=envelope.message_id,
        reason=(report.reason or report.status or envelope.subject)[:400],
        created_at=at,
        hard=report.hard,
    )
    session.add(bounce)
    if counts:  # counted in SQL: two daemons reading two bounces of one player lose no count
        player.hard_bounces = Player.hard_bounces + 1
        session.add(player)
        session.flush()
        log.info("hard bounce %d of %s: %s", player.hard_bounces, player.address, bounce.reason)
        if player.hard_bounces >= settings.max_hard_bounces and player.bounced_at is None:
            suppress(session, settings, templates, player, at)
    return bounce


def _first_for(session: Session, message_id: str) -> bool:
    """Whether no hard bounce of this mail of ours was counted yet (one mail counts once)."""
    found = session.exec(select(Bounce.id).where(Bounce.outbox_message_id == message_id, Bounce.hard)).first()
    return found is None


def suppress(session: Session, settings: Settings, templates: Templates, player: Player, at: datetime) -> None:
    """No more mail to the player's address, their clocks paused, each opponent told."""
    player.bounced_at = at
    session.add(player)
    log.warning("%s suppressed after %d hard bounces", player.address, player.hard_bounces)
    vacations.pause_unreachable(session, player, at)
    _tell(session, settings, templates, player, "unreachable")


def lift(session: Session, settings: Settings, templates: Templates, player: Player, at: datetime) -> bool:
    """The player wrote a proven mail: their address works, so the count starts again and a
    suppression ends (their clocks run again, each opponent told). True when one ended."""
    if player.hard_bounces:
        player.hard_bounces = 0
        session.add(player)
    if player.bounced_at is None:
        return False
    player.bounced_at = None
    log.info("%s wrote again: mail to them resumes", player.address)
    vacations.resume_reachable(session, player, at)
    _tell(session, settings, templates, player, "reachable")
    return True


def _tell(session: Session, settings: Settings, templates: Templates, player: Player, event: str) -> None:
    clock.reschedule_player(session, player, settings.reminders)
    for game in G.active_games(session, player):
        post.post(session, settings, templates, notify.tell(session, event, game, player, away=player.name))
