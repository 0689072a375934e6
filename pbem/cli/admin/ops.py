"""`pbem admin status|backup|prune`: running the service for years.

`status` answers a monitor (exit 0 ok, 1 degraded, 2 down); `backup` copies a live SQLite
database with SQLite's online backup API; `prune` deletes what the service no longer
needs (sent mails' bytes, old inbound records) and keeps what game records refer to.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pbem.cli.admin.common import (
    SchemaProblem,
    admin,
    database,
    echo,
    echo_json,
    fail,
    plural,
    settings,
    shown_url,
    sqlite_path,
)
from pbem.core.wallclock import now

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from pbem.mail.transport.imap import ImapSettings

# The database layer is imported by the functions that use it, so that `pbem admin status
# --help` (and the other commands' help) costs no SQLAlchemy.

OK, DEGRADED, DOWN = 0, 1, 2
STALE_OUTBOX = timedelta(minutes=15)  # a mail unsent for longer means delivery is stuck


def probe_mailbox(imap: ImapSettings, timeout: float) -> tuple[bool, str]:
    """Log in to the configured mailbox and select its folder; (reachable, what happened)."""
    import ssl

    from imap_tools import MailBox, MailBoxStartTls, MailBoxUnencrypted

    where = f"{imap.host}:{imap.port}"
    try:
        if imap.security == "tls":
            box = MailBox(imap.host, imap.port, timeout=timeout, ssl_context=ssl.create_default_context())
        elif imap.security == "starttls":
            box = MailBoxStartTls(imap.host, imap.port, timeout=timeout, ssl_context=ssl.create_default_context())
        else:
            box = MailBoxUnencrypted(imap.host, imap.port, timeout=timeout)
        if imap.oauth2 is not None:  # Gmail, Microsoft 365: an access token, as the daemon logs in
            box.xoauth2(imap.username, imap.oauth2.token(), initial_folder=imap.folder)
        else:
            box.login(imap.username, imap.password or "", initial_folder=imap.folder)
        box.logout()
    except Exception as exc:  # noqa: BLE001 - whatever fails, the answer is "unreachable, because ..."
        return False, f"{where}: {type(exc).__name__}: {exc}"
    return True, f"{where}: logged in as {imap.username}, folder {imap.folder}"


def _age(at: datetime | None, moment: datetime) -> float | None:
    if at is None:
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=moment.tzinfo)
    return round((moment - at).total_seconds(), 1)


def records_status(engine: Engine) -> dict[str, Any]:
    """The counts a monitor watches, and the daemons' heartbeats, read in one short session."""
    from sqlmodel import Session, func, select

    from pbem.core import heartbeat
    from pbem.core.models import Game, InboundMessage, Outbox, Quarantine

    with Session(engine) as session:
        beats = heartbeat.latest(session)
        pending = session.exec(select(func.count(Outbox.id), func.min(Outbox.created_at))
                               .where(Outbox.status == "pending")).one()
        return {
            "outbox_pending": pending[0],
            "oldest_unsent": pending[1],
            "outbox_failed": session.exec(select(func.count(Outbox.id)).where(Outbox.status == "failed")).one(),
            "quarantined": session.exec(select(func.count(Quarantine.id))
                                        .where(Quarantine.status == "quarantined")).one(),
            "last_mail_in": session.exec(select(func.max(InboundMessage.received_at))).one(),
            "last_imap_contact": beats[heartbeat.MAILBOX],
            "last_clock_round": beats[heartbeat.CLOCK],
            # The clock's own backlog: the earliest reminder or deadline still waiting (indexed).
            "next_clock_event": session.exec(select(func.min(Game.clock_due_at)).where(Game.status == "active")).one(),
        }


def clock_lag(last_round: datetime | None, moment: datetime, interval: float) -> float | None:
    """How late the clock's next round is: seconds past when it was due, 0 when on time,
    None when no daemon ever ended one. A round's heartbeat may be `heartbeat.EVERY` old by
    design, so the round is due that long after it at the least."""
    from pbem.core import heartbeat

    age = _age(last_round, moment)
    return None if age is None else round(max(0.0, age - max(interval, heartbeat.EVERY)), 1)


def overdue(event: datetime | None, moment: datetime, interval: float) -> float | None:
    """How long the earliest due clock event has waited beyond one round: a clock that runs
    but falls behind (too many games due per round) shows here, not in its heartbeat."""
    age = _age(event, moment)
    return None if age is None else round(max(0.0, age - interval), 1)


def _minutes(seconds: float) -> str:
    return plural(round(seconds / 60), "minute")


def heartbeat_problems(report: dict[str, Any], stale_after: float) -> list[str]:
    """A daemon that stopped talking to its mailbox, or whose clock is late (stale_after seconds)."""
    problems = []
    contact = report["last_imap_contact_age_s"]
    if contact is not None and contact > stale_after:
        problems.append(f"no daemon has reached the mailbox for {_minutes(contact)} (is pbem serve running?)")
    lag = report["clock_lag_s"]
    if lag is not None and lag > stale_after:
        problems.append(f"the clock is {_minutes(lag)} late (reminders and forfeits wait)")
    behind = report.get("clock_overdue_s")
    if behind is not None and behind > stale_after:
        problems.append(f"a reminder or deadline has waited {_minutes(behind)} for the clock")
    return problems


@admin.command("status")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=5.0, show_default=True,
              help="Seconds to wait for the IMAP server.")
@click.pass_context
def admin_status(ctx: click.Context, as_json: bool, timeout: float) -> None:
    """Is the service healthy? Exit 0 ok, 1 degraded (mail stuck, failed or quarantined, no daemon
    heard from or its clock late), 2 down."""
    from sqlalchemy.exc import SQLAlchemyError

    conf = settings(ctx)
    moment = now()
    report: dict[str, Any] = {"checked_at": moment, "problems": []}
    code = OK
    if conf.imap is None:
        # nothing to probe: what is known is when a daemon last beat (the sandbox has no IMAP server)
        report["mailbox"] = {"reachable": None, "detail": "sandbox: no IMAP mailbox; no daemon heartbeat known"}
    else:
        reachable, detail = probe_mailbox(conf.imap, timeout)
        report["mailbox"] = {"reachable": reachable, "detail": detail}
        if not reachable:
            report["problems"].append(f"mailbox unreachable: {detail}")
            code = DOWN
    try:
        counts = records_status(database(ctx))
    except (SchemaProblem, SQLAlchemyError) as exc:
        report["database"] = {"reachable": False, "detail": str(getattr(exc, "message", exc))[:400]}
        report["problems"].append("database unusable")
        code = DOWN
    else:
        report["database"] = {"reachable": True, "detail": shown_url(conf.db_url)}
        counts["oldest_unsent_age_s"] = _age(counts["oldest_unsent"], moment)
        counts["last_mail_in_age_s"] = _age(counts["last_mail_in"], moment)
        counts["last_imap_contact_age_s"] = _age(counts["last_imap_contact"], moment)
        counts["clock_lag_s"] = clock_lag(counts["last_clock_round"], moment, conf.clock_interval)
        counts["clock_overdue_s"] = overdue(counts["next_clock_event"], moment, conf.clock_interval)
        report.update(counts)
        if conf.imap is None:
            beat = counts["last_imap_contact"]
            report["mailbox"]["detail"] = "sandbox: no IMAP mailbox; last daemon heartbeat " + (
                f"{beat:%Y-%m-%d %H:%M:%S} UTC" if beat else "never (is pbem serve running?)")
        if counts["outbox_failed"]:
            report["problems"].append(f"{counts['outbox_failed']} mails failed for good (pbem admin outbox --failed)")
        if counts["quarantined"]:
            report["problems"].append(f"{counts['quarantined']} messages quarantined (pbem admin quarantine list)")
        age = counts["oldest_unsent_age_s"]
        if age is not None and age > STALE_OUTBOX.total_seconds():
            report["problems"].append(f"the oldest unsent mail waits for {_minutes(age)}")
        report["problems"].extend(heartbeat_problems(report, conf.stale_after))
        if report["problems"] and code == OK:
            code = DEGRADED
    report["status"] = {OK: "ok", DEGRADED: "degraded", DOWN: "down"}[code]
    if as_json:
        echo_json(report)
    else:
        _print_status(report)
    ctx.exit(code)


def _print_status(r: dict[str, Any]) -> None:
    echo(f"status: {r['status']}")
    reachable = r["mailbox"]["reachable"]
    shown = "not probed" if reachable is None else "reachable" if reachable else "UNREACHABLE"
    echo(f"  mailbox: {shown} ({r['mailbox']['detail']})")
    echo(f"  database: {'reachable' if r['database']['reachable'] else 'UNUSABLE'} ({r['database']['detail']})")
    if r["database"]["reachable"]:
        oldest = r["oldest_unsent"]
        echo(f"  outbox: {r['outbox_pending']} waiting" + (f", oldest since {oldest:%Y-%m-%d %H:%M} UTC" if oldest
                                                          else ""))
        echo(f"  failed mails: {r['outbox_failed']}; quarantined messages: {r['quarantined']}")
        last = r["last_mail_in"]
        echo(f"  last mail read: {f'{last:%Y-%m-%d %H:%M} UTC' if last else 'never'}")
        contact = r["last_imap_contact"]
        shown = f"{contact:%Y-%m-%d %H:%M:%S} UTC ({r['last_imap_contact_age_s']:g} s ago)" if contact else "never"
        echo(f"  last mailbox contact: {shown}")
        lag = r["clock_lag_s"]
        echo(f"  clock lag: {'no round yet' if lag is None else f'{lag:g} s'}")
        behind = r["clock_overdue_s"]
        echo(f"  clock backlog: {'nothing waits' if not behind else f'the earliest due event waits {behind:g} s'}")
    for problem in r["problems"]:
        echo(f"  problem: {problem}")


# --- backup --------------------------------------------------------------------------------------------


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy a live SQLite database with the online backup API; the bytes written.

    The copy is made beside `target` and renamed into place only once it checks out, so a
    failed backup never leaves a half file where a good one is expected. It is the players'
    addresses and mail: only its owner may read it (0600, whatever the umask)."""
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # SQLite fills the empty file
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    try:
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)
            check = dst.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"the copy does not check out: {check}")
        finally:
            dst.close()
    finally:
        src.close()
    os.replace(partial, target)
    return target.stat().st_size


@admin.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@click.pass_context
def admin_backup(ctx: click.Context, file: Path, force: bool) -> None:
    """Copy the SQLite database to FILE while the daemon runs (for PostgreSQL: use pg_dump)."""
    url = settings(ctx).db_url
    source = sqlite_path(url)
    if source is None:
        raise fail(
            "this database is not a SQLite file; back it up with its own tools, e.g.\n"
            f"  pg_dump --format=custom --file {file} <the database_url of the configuration>\n"
            "and restore it with pg_restore. pg_dump takes a consistent snapshot while the daemon runs."
        )
    if not source.exists():
        raise fail(f"there is no database at {source}")
    if file.exists() and not force:
        raise fail(f"{file} exists; give --force to overwrite it")
    if file.resolve() == source.resolve():
        raise fail("the backup must not overwrite the database itself")
    try:
        size = backup_sqlite(source, file)
    except (sqlite3.Error, OSError) as exc:
        raise fail(f"backup failed: {exc}") from None
    echo(f"backed up {source} to {file} ({size} bytes, checked)")


# --- prune ---------------------------------------------------------------------------------------------

CHUNK = 2000  # rows deleted per transaction, so the daemon never waits long for the write lock


@dataclass(frozen=True)
class Pruned:
    outbox: int
    inbound: int


def _thread_ends() -> Any:
    """The first and newest mail to each player about each game: the thread's In-Reply-To/References."""
    from sqlalchemy import union
    from sqlmodel import func, select

    from pbem.core.models import Outbox

    firsts = select(func.min(Outbox.id)).group_by(Outbox.game_id, Outbox.player_id)
    lasts = select(func.max(Outbox.id)).group_by(Outbox.game_id, Outbox.player_id)
    return union(firsts, lasts)


def _prunable_outbox(cutoff: datetime) -> Any:
    from sqlalchemy import and_, not_
    from sqlmodel import select

    from pbem.core.models import Bounce, Outbox

    bounced = select(Bounce.outbox_message_id).where(Bounce.outbox_message_id.is_not(None))
    return and_(Outbox.status == "sent", Outbox.sent_at < cutoff, not_(Outbox.id.in_(_thread_ends())),
                not_(Outbox.message_id.in_(bounced)))


def _prunable_inbound(cutoff: datetime) -> Any:
    from sqlalchemy import and_, not_
    from sqlmodel import select

    from pbem.core.models import Bounce, InboundMessage, Move, Quarantine

    moved = select(Move.message_id).where(Move.message_id.is_not(None))
    bounced = select(Bounce.inbound_message_id)
    held = select(Quarantine.message_id)
    return and_(InboundMessage.received_at < cutoff, not_(InboundMessage.message_id.in_(moved)),
                not_(InboundMessage.message_id.in_(bounced)), not_(InboundMessage.message_id.in_(held)))


def prune(engine: Engine, cutoff: datetime, dry_run: bool = False) -> Pruned:
    """Delete sent mails and inbound records older than `cutoff`, in short transactions.

    Kept whatever its age: mails not yet sent or failed, each thread's first and newest mail
    (future mails thread to them, and a player we wrote to stays known), anything a bounce
    names, inbound records of moves (a move's Message-ID) and of quarantined messages; and
    of course games, moves, ratings and the audit log, which are never pruned. The heartbeats
    of daemons silent since `cutoff` go too."""
    from sqlalchemy import delete
    from sqlmodel import Session, func, select

    from pbem.core import heartbeat
    from pbem.core.db import transaction
    from pbem.core.models import InboundMessage, Outbox

    counts = []
    for table, column, where in ((Outbox, Outbox.id, _prunable_outbox(cutoff)),
                                 (InboundMessage, InboundMessage.id, _prunable_inbound(cutoff))):
        total = 0
        if dry_run:
            with Session(engine) as session:
                total = session.exec(select(func.count(column)).where(where)).one()
        else:
            while True:
                with transaction(engine) as session:
                    ids = list(session.exec(select(column).where(where).order_by(column).limit(CHUNK)))
                    if ids:
                        session.exec(delete(table).where(column.in_(ids)))
                total += len(ids)
                if len(ids) < CHUNK:
                    break
        counts.append(total)
    if not dry_run:
        heartbeat.forget_before(engine, cutoff)
    return Pruned(*counts)


@admin.command("prune")
@click.option("--older-than", "days", type=click.IntRange(min=1), help="Days to keep (default: retention_days).")
@click.option("--dry-run", is_flag=True, help="Only count what would be deleted.")
@click.pass_context
def admin_prune(ctx: click.Context, days: int | None, dry_run: bool) -> None:
    """Delete sent mails and inbound records older than the retention, keeping what game records need."""
    days = days if days is not None else settings(ctx).retention_days
    cutoff = now() - timedelta(days=days)
    result = prune(database(ctx), cutoff, dry_run)
    verb = "would delete" if dry_run else "deleted"
    echo(f"{verb} {plural(result.outbox, 'sent mail')} and {plural(result.inbound, 'inbound record')} older than"
         f" {plural(days, 'day')} "
         f"(before {cutoff:%Y-%m-%d %H:%M} UTC)")

