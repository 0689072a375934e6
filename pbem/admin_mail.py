"""`pbem admin quarantine|outbox|bounces`: the mail that could not be handled or delivered."""

from __future__ import annotations

from datetime import timedelta

import click
from sqlmodel import Session, select

from pbem import quarantine as Q
from pbem.admin import admin, database, settings
from pbem.clock import now
from pbem.db import transaction
from pbem.models import Bounce, Outbox, Player, Quarantine
from pbem.service import Service


@admin.group("quarantine")
def quarantine_group() -> None:
    """Messages whose processing kept failing: list, show, retry or drop them."""


@quarantine_group.command("list")
@click.pass_context
def quarantine_list(ctx: click.Context) -> None:
    """List the quarantined messages."""
    rows = Q.quarantined(database(ctx))
    for row in rows:
        click.echo(f"{row.id:<5} {row.updated_at:%Y-%m-%d %H:%M} {row.sender:<30} {row.subject[:30]:<30} {row.error[:60]}")
    if not rows:
        click.echo("no quarantined messages")


@quarantine_group.command("show")
@click.argument("row_id", type=int)
@click.pass_context
def quarantine_show(ctx: click.Context, row_id: int) -> None:
    """Show one quarantined message: why, and its raw text."""
    with Session(database(ctx)) as session:
        row = session.get(Quarantine, row_id)
        if row is None:
            raise click.ClickException(f"there is no quarantined message #{row_id}")
        click.echo(f"#{row.id} {row.message_id} from {row.sender}, {row.tries} tries, {row.status}: {row.error}")
        click.echo(row.raw.decode("utf-8", errors="replace"))


@quarantine_group.command("retry")
@click.argument("row_id", type=int)
@click.pass_context
def quarantine_retry(ctx: click.Context, row_id: int) -> None:
    """Process a quarantined message again (e.g. after a fix); the daemon sends the replies."""
    engine = database(ctx)
    try:
        raw = Q.release(engine, row_id)
    except LookupError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        result = Service(settings(ctx), engine).handle(raw)
    except Exception as exc:
        Q.admit(engine, raw, max_tries=0)  # back into quarantine, with the new error
        Q.failed(engine, raw, f"{type(exc).__name__}: {exc}", max_tries=0)
        Service(settings(ctx), engine).set_aside(raw, "quarantined")
        raise click.ClickException(f"message #{row_id} failed again: {exc}") from None
    click.echo(f"message {result.message_id}: {result.status}")


@quarantine_group.command("drop")
@click.argument("row_id", type=int)
@click.pass_context
def quarantine_drop(ctx: click.Context, row_id: int) -> None:
    """Forget a quarantined message; it is never read again."""
    try:
        Q.drop(database(ctx), row_id)
    except LookupError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"dropped #{row_id}")


@admin.group("outbox", invoke_without_command=True)
@click.option("--failed", is_flag=True, help="Only mails that failed for good (5xx or too many tries).")
@click.pass_context
def outbox_group(ctx: click.Context, failed: bool) -> None:
    """List the outbox (newest first); `outbox retry ID` sends a failed mail again."""
    if ctx.invoked_subcommand is not None:
        return
    with Session(database(ctx)) as session:
        query = select(Outbox).order_by(Outbox.id.desc()).limit(200)
        if failed:
            query = query.where(Outbox.status == "failed")
        rows = list(session.exec(query))
        for row in rows:
            click.echo(f"{row.id:<6} {row.status:<8} {row.attempts:>2} tries  {row.recipient:<30} {row.kind:<14} "
                       f"{row.last_error or ''}")
    if not rows:
        click.echo("no mails")


@outbox_group.command("retry")
@click.argument("row_id", type=int)
@click.pass_context
def outbox_retry(ctx: click.Context, row_id: int) -> None:
    """Put a failed mail back in the queue (same Message-ID), to be sent at once."""
    with transaction(database(ctx)) as session:
        row = session.get(Outbox, row_id)
        if row is None or row.status != "failed":
            raise click.ClickException(f"there is no failed mail #{row_id}")
        row.status, row.attempts, row.next_attempt_at = "pending", 0, now() - timedelta(seconds=1)
        session.add(row)
    click.echo(f"mail #{row_id} queued again")


@admin.command("bounces")
@click.pass_context
def bounces(ctx: click.Context) -> None:
    """Bounces of our mails, by player: an address that bounces may be mistyped or gone."""
    with Session(database(ctx)) as session:
        rows = list(session.exec(select(Bounce).order_by(Bounce.id)))
        for row in rows:
            player = session.get(Player, row.player_id) if row.player_id else None
            who = player.address if player is not None else (row.address or "?")
            click.echo(f"{row.created_at:%Y-%m-%d %H:%M} {who:<30} {row.reason[:70]}")
    if not rows:
        click.echo("no bounces")


