"""`pbem admin quarantine|outbox|bounces`: the mail that could not be handled or delivered."""

from __future__ import annotations

from datetime import timedelta

import click
from sqlmodel import Session, select

from pbem.cli.admin.common import (
    Page,
    admin,
    database,
    echo,
    echo_json,
    fail,
    more_hint,
    paged,
    settings,
    visible,
)
from pbem.core.db import transaction
from pbem.core.models import Bounce, Outbox, Player, Quarantine
from pbem.core.wallclock import now
from pbem.runners import quarantine as Q
from pbem.text import textwidth


def _cell(text: str | None, width: int, cut: bool = False) -> str:
    """`text` padded to `width` display columns (a wide letter takes two), and cut to them if told."""
    text = text or ""
    return textwidth.ljust(visible(textwidth.cut(text, width) if cut else text), width)


@admin.group("quarantine")
def quarantine_group() -> None:
    """Messages whose processing kept failing: list, show, retry or drop them."""


@quarantine_group.command("list")
@click.option("--player", "sender", help="Only messages from this address.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@paged
@click.pass_context
def quarantine_list(ctx: click.Context, sender: str | None, as_json: bool, page: Page) -> None:
    """List the quarantined messages: the newest 50 unless told otherwise, newest last."""
    with Session(database(ctx)) as session:
        query = select(Quarantine).where(Quarantine.status == "quarantined")
        if sender:
            query = query.where(Quarantine.sender == sender.strip().lower())
        found, more = page.cut(list(session.exec(page.query(query, Quarantine.id, Quarantine.updated_at))))
    rows = [{"id": r.id, "at": r.updated_at.strftime("%Y-%m-%d %H:%M"), "message_id": r.message_id,
             "sender": r.sender, "subject": r.subject, "tries": r.tries, "error": r.error} for r in reversed(found)]
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        click.echo(f"{r['id']:<5} {r['at']} {_cell(r['sender'], 30)} {_cell(r['subject'], 30, cut=True)} "
                   f"{visible(textwidth.cut(r['error'], 60))}".rstrip())
    more_hint(more, rows)
    if not rows:
        echo("no quarantined messages")


@quarantine_group.command("show")
@click.argument("row_id", type=int)
@click.pass_context
def quarantine_show(ctx: click.Context, row_id: int) -> None:
    """Show one quarantined message: why, and its raw text (control characters made visible)."""
    with Session(database(ctx)) as session:
        row = session.get(Quarantine, row_id)
        if row is None:
            raise fail(f"there is no quarantined message #{row_id}")
        echo(f"#{row.id} {row.message_id} from {row.sender}, {row.tries} tries, {row.status}: {row.error}")
        text = row.raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
        click.echo(visible(text, keep="\n\t"))


@quarantine_group.command("retry")
@click.argument("row_id", type=int)
@click.pass_context
def quarantine_retry(ctx: click.Context, row_id: int) -> None:
    """Process a quarantined message again (after a fix, say); the daemon sends the replies.

    A retry that fails again leaves the message quarantined, with the new error."""
    from pbem.runners.inbound import Service

    engine = database(ctx)
    try:
        raw, tries = Q.reopen(engine, row_id)
    except LookupError as exc:
        raise fail(str(exc)) from None
    service = Service(settings(ctx), engine)
    envelope = service.parse(raw)
    try:
        result = service.handle(raw, envelope, Q.Gate(max_tries=tries + 1))
    except Exception as exc:
        Q.failed(engine, envelope, raw, f"{type(exc).__name__}: {exc}", max_tries=1)  # quarantined again
        service.set_aside(raw, "quarantined", envelope)
        raise fail(f"message #{row_id} failed again: {exc}") from None
    Q.forget(engine, envelope.message_id)  # gone already unless it was handled before (a duplicate)
    echo(f"message {result.message_id}: {result.status}")


@quarantine_group.command("drop")
@click.argument("row_id", type=int)
@click.pass_context
def quarantine_drop(ctx: click.Context, row_id: int) -> None:
    """Forget a quarantined message; it is never read again."""
    try:
        Q.drop(database(ctx), row_id)
    except LookupError as exc:
        raise fail(str(exc)) from None
    echo(f"dropped #{row_id}")


@admin.group("outbox", invoke_without_command=True)
@click.option("--failed", is_flag=True, help="Only mails that failed for good (5xx or too many tries).")
@click.option("--status", type=click.Choice(["pending", "sent", "failed"]), help="Only mails in this state.")
@click.option("--player", "recipient", help="Only mails to this address.")
@click.option("--game", "game_id", type=int, help="Only mails about this game.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@paged
@click.pass_context
def outbox_group(ctx: click.Context, failed: bool, status: str | None, recipient: str | None,
                 game_id: int | None, as_json: bool, page: Page) -> None:
    """List the outbox: the newest 50 unless told otherwise, newest first; `outbox retry ID` resends."""
    if ctx.invoked_subcommand is not None:
        return
    with Session(database(ctx)) as session:
        query = select(Outbox.id, Outbox.status, Outbox.attempts, Outbox.recipient, Outbox.template, Outbox.game_id,
                       Outbox.last_error, Outbox.created_at, Outbox.sent_at)  # not the mails' bytes
        if failed or status:
            query = query.where(Outbox.status == ("failed" if failed else status))
        if recipient:
            query = query.where(Outbox.recipient == recipient.strip().lower())
        if game_id is not None:
            query = query.where(Outbox.game_id == game_id)
        found, more = page.cut(list(session.exec(page.query(query, Outbox.id, Outbox.created_at))))
    rows = [{"id": r.id, "status": r.status, "attempts": r.attempts, "recipient": r.recipient, "template": r.template,
             "game": r.game_id, "error": r.last_error, "created": r.created_at, "sent": r.sent_at} for r in found]
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        click.echo(f"{r['id']:<6} {r['status']:<8} {r['attempts']:>2} tries  {_cell(r['recipient'], 30)} "
                   f"{_cell(r['template'], 14)} {visible(r['error'] or '')}".rstrip())
    more_hint(more, rows)
    if not rows:
        echo("no mails")


@outbox_group.command("retry")
@click.argument("row_id", type=int)
@click.pass_context
def outbox_retry(ctx: click.Context, row_id: int) -> None:
    """Put a failed mail back in the queue (same Message-ID), to be sent at once."""
    with transaction(database(ctx)) as session:
        row = session.get(Outbox, row_id, with_for_update=True)
        if row is None or row.status != "failed":
            raise fail(f"there is no failed mail #{row_id}")
        row.status, row.attempts, row.next_attempt_at = "pending", 0, now() - timedelta(seconds=1)
        session.add(row)
    echo(f"mail #{row_id} queued again")


@admin.command("bounces")
@click.option("--player", "address", help="Only bounces of this address.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@paged
@click.pass_context
def bounces(ctx: click.Context, address: str | None, as_json: bool, page: Page) -> None:
    """Bounces of our mails, by player: an address that bounces may be mistyped or gone (newest 50, newest last).

    First the addresses suppressed for bouncing (no mail goes to them until they write again),
    each with the reason of its last hard bounce."""
    with Session(database(ctx)) as session:
        query = select(Bounce)
        wanted = address.strip().lower() if address else None
        if wanted:
            player = session.exec(select(Player).where(Player.address == wanted)).first()
            query = query.where((Bounce.player_id == player.id) if player is not None else (Bounce.address == wanted))
        found, more = page.cut(list(session.exec(page.query(query, Bounce.id, Bounce.created_at))))
        ids = {b.player_id for b in found if b.player_id}
        who = {p.id: p for p in session.exec(select(Player).where(Player.id.in_(ids)))} if ids else {}
        suppressed = _suppressed(session, wanted)
    rows = [{"id": b.id, "at": b.created_at.strftime("%Y-%m-%d %H:%M"),
             "address": (who[b.player_id].address if b.player_id in who else "") or b.address or "?",
             "reason": b.reason, "hard": b.hard,
             "suppressed": b.player_id in who and who[b.player_id].bounced_at is not None,
             "outbox_message_id": b.outbox_message_id} for b in reversed(found)]
    if as_json:
        echo_json(rows)
        return
    for gone in suppressed:
        click.echo(f"suppressed {_cell(gone['address'], 30)} since {gone['since']} after {gone['hard']} hard"
                   f" bounces: {visible(textwidth.cut(gone['reason'], 70))}".rstrip())
    for r in rows:
        kind = "hard" if r["hard"] else "soft"
        click.echo(f"{r['at']} {_cell(r['address'], 30)} {kind} {visible(textwidth.cut(r['reason'], 70))}".rstrip())
    more_hint(more, rows)
    if not rows:
        echo("no bounces")


def _suppressed(session: Session, address: str | None) -> list[dict]:
    """The addresses suppressed for bouncing (`pbem.letters.bounces`), each with its last hard bounce's reason."""
    query = select(Player).where(Player.bounced_at.is_not(None)).order_by(Player.bounced_at).limit(50)
    if address:
        query = query.where(Player.address == address)
    found = []
    for player in session.exec(query):
        last = session.exec(select(Bounce.reason).where(Bounce.player_id == player.id, Bounce.hard)
                            .order_by(Bounce.id.desc())).first()
        found.append({"address": player.address, "since": player.bounced_at.strftime("%Y-%m-%d %H:%M"),
                      "hard": player.hard_bounces, "reason": last or ""})
    return found
