"""The `pbem` command: serve, try it in the sandbox, administer.

Imports are lazy: `pbem --help` and the sandbox commands must not pay for the database layer,
and `pbem serve` must answer SIGTERM from the process's first line on: run as `pbem` (`run`)
or `python -m pbem.cli.main`, the start-up guard of `pbem.core.startguard` is installed before the
rest of this module is imported.
"""

from __future__ import annotations

import sys

from pbem.core.startguard import Stopped, guard_start_up, stop_signals

if __name__ == "__main__":  # `python -m pbem.cli.main ...`: guarded before the imports below
    guard_start_up(sys.argv[1:])

import logging
import os
import signal
import time
from typing import TYPE_CHECKING

import click

from pbem import __version__
from pbem.cli.lazygroup import LazyGroup

if TYPE_CHECKING:
    import email.message
    from collections.abc import Callable

    from pbem.core.config import Settings

log = logging.getLogger("pbem.cli.main")

#: the sandbox's SMTP port for `serve` and `sandbox send` alike, over the configuration's
SANDBOX_PORT_ENV = "PBEM_SANDBOX_PORT"


def load_settings(ctx: click.Context, path: str | None = None, sandbox_port: int | None = None) -> Settings:
    """The settings of `path` or of the `--config` given to `pbem`; a wrong one ends the command
    with one message (the setting, its value, what is allowed) and exit status 1. The sandbox
    port is `sandbox_port` when given, else $PBEM_SANDBOX_PORT when set (two sandboxes on one
    machine, or a port the default collides with, need no configuration file)."""
    from dataclasses import replace

    from pbem.core import config

    try:
        settings = config.load(path if path is not None else ctx.find_root().obj["config"])
    except config.ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    if sandbox_port is None and os.environ.get(SANDBOX_PORT_ENV):
        text = os.environ[SANDBOX_PORT_ENV].strip()
        if not (text.isdigit() and 1 <= int(text) <= 65535):
            raise click.ClickException(f"{SANDBOX_PORT_ENV}={text[:20]!r}: allowed is a TCP port from 1 to 65535")
        sandbox_port = int(text)
    return settings if sandbox_port is None else replace(settings, sandbox_port=sandbox_port)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="pbem", message="%(prog)s %(version)s")
@click.option(
    "--config",
    "-c",
    type=click.Path(exists=True, dir_okay=False),
    envvar="PBEM_CONFIG",
    help="TOML configuration (see deploy/pbem.toml). Without one, pbem runs as a local sandbox.",
)
@click.option("-v", "--verbose", is_flag=True, help="Log every message handled.")
@click.pass_context
def main(ctx: click.Context, config: str | None, verbose: bool) -> None:
    """pbem: a play-by-email server for Ataxx, Capture Go, Myriades and Infinito.

    \b
    Try it with no configuration at all:
      pbem serve                      # the sandbox: SQLite and a local SMTP listener
      pbem sandbox send --from alice@example.org "challenge ataxx bob@example.org"
      pbem sandbox inbox bob@example.org
    """
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    ctx.obj = {"config": config}


def _admin() -> click.Command:
    from pbem.cli.admin.group import admin

    return admin


# Imported only when it runs, so that `pbem --help` pays for no database layer.
main.lazy["admin"] = (_admin, "Inspect and fix the records (the daemon may keep running).")


# Imported one by one by `serve`, a stop check before each, so that a signal during the imports
# (most of the start-up) ends it within one of them; the last is what `serve` needs.
WARM_UP = ("sqlalchemy", "sqlmodel", "alembic", "pbem.core.models", "pbem.runners.inbound", "pbem.runners.daemon")


@main.command()
@click.option("--sandbox-port", type=click.IntRange(1, 65535), default=None,
              help=f"The sandbox's SMTP port on 127.0.0.1 (default: sandbox_port, 2525; or ${SANDBOX_PORT_ENV}).")
@click.pass_context
def serve(ctx: click.Context, sandbox_port: int | None) -> None:
    """Run the daemon: read the mailbox, play the moves, send the replies.

    With a configuration, mail comes by IMAP (IDLE where offered) and goes by SMTP.
    Without one, pbem serves a sandbox on 127.0.0.1 (see `pbem sandbox --help`).
    Stops cleanly on SIGTERM or Ctrl-C at any moment, start-up included: exit status 0
    and one log line, "pbem stopped".
    """
    how = ""
    try:
        check = stop_signals()  # installed already when started as `pbem` or `python -m pbem.cli.main`
        logging.getLogger("pbem").setLevel(logging.INFO)
        log.info("pbem starting (pid %d)", os.getpid())
        check()
        settings = load_settings(ctx, sandbox_port=sandbox_port)
        _serve(settings, check)
    except Stopped as stop:
        how = f" by {stop.name} while starting"
    finally:  # the event loop hands the signals back to their defaults when it closes
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        signal.setitimer(signal.ITIMER_REAL, 0)
    log.info("pbem stopped%s", how)


def _serve(settings: Settings, check: Callable[[], None]) -> None:
    import errno
    import importlib

    for module in WARM_UP:
        check()
        importlib.import_module(module)
    check()
    from pbem.runners.daemon import sandbox_root
    from pbem.runners.daemon import serve as run
    from pbem.runners.metrics import PortTaken

    if settings.sandbox:
        click.echo(
            f"pbem sandbox: game address {settings.address}, SMTP on 127.0.0.1:{settings.sandbox_port}\n"
            f"  database {settings.db_url}\n  mailboxes in {sandbox_root(settings)}\n"
            f'  try: pbem sandbox send --from alice@example.org "challenge ataxx bob@example.org"'
        )
    check()
    try:
        run(settings)  # builds the daemon inside its event loop; a signal from here on stops the loop
    except PortTaken as exc:
        raise click.ClickException(f"{exc.strerror} Stop it, or set metrics_port under [server] to a free port.") from None
    except OSError as exc:
        if settings.sandbox and exc.errno == errno.EADDRINUSE:
            raise click.ClickException(
                f"127.0.0.1:{settings.sandbox_port} is taken: is another `pbem serve` running? "
                f"Stop it, or choose another port: pbem serve --sandbox-port PORT (or ${SANDBOX_PORT_ENV})."
            ) from None
        raise


@main.group("config")
def config_group() -> None:
    """Check a configuration file before the daemon uses it."""


@config_group.command("check")
@click.option(
    "--config", "-c", "path", type=click.Path(exists=True, dir_okay=False),
    help="The file to check (default: the one given to pbem, or $PBEM_CONFIG).",
)
@click.pass_context
def config_check(ctx: click.Context, path: str | None) -> None:
    """Print the settings in force, secrets masked; exit status 1 when the file is wrong."""
    from pbem.core import config

    settings = load_settings(ctx, path)
    source = path or ctx.find_root().obj["config"] or "no file: the sandbox defaults"
    click.echo(f"# pbem settings ({source})")
    click.echo(config.render(config.effective(settings)), nl=False)


@main.group()
def sandbox() -> None:
    """Play in the sandbox: send mail to the server and read what it sent back.

    `pbem serve` must be running (with no configuration) in another terminal.
    """


def _latest(settings: Settings, address: str) -> email.message.EmailMessage | None:
    import email
    import email.policy

    from pbem.mail.transport.sandbox import read_mailbox
    from pbem.runners.daemon import sandbox_root

    raw = read_mailbox(sandbox_root(settings), address)
    return email.message_from_bytes(raw[-1], policy=email.policy.default) if raw else None


@sandbox.command("send")
@click.option("--from", "sender", required=True, help="The player's address, e.g. alice@example.org.")
@click.option("--name", default="", help="The player's display name.")
@click.option("--subject", default=None, help="Subject (default: the first line).")
@click.option(
    "--reply", is_flag=True, help="Answer the newest mail in your sandbox inbox, as a mail client would."
)
@click.option("--wait", default=10.0, show_default=True, help="Seconds to wait for the answer (0: don't).")
@click.argument("lines", nargs=-1, required=True)
@click.pass_context
def sandbox_send(
    ctx: click.Context,
    sender: str,
    name: str,
    subject: str | None,
    reply: bool,
    wait: float,
    lines: tuple[str, ...],
) -> None:
    """Send LINES (one command per argument) to the game server from --from, and show the answer.

    \b
    Examples:
      pbem sandbox send --from alice@example.org "challenge ataxx bob@example.org"
      pbem sandbox send --from bob@example.org "accept 1"
      pbem sandbox send --from alice@example.org --reply f2
    """
    import smtplib
    from email.message import EmailMessage
    from email.utils import make_msgid

    from pbem.mail.transport.sandbox import read_mailbox
    from pbem.runners.daemon import sandbox_root

    settings = load_settings(ctx)
    _mailbox_or_fail(sender, "--from")
    msg = EmailMessage()
    msg["From"] = f"{name} <{sender}>" if name else sender
    msg["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or "sandbox.test")
    body = "\n".join(lines) + "\n"
    msg["To"] = settings.address
    msg["Subject"] = subject if subject is not None else lines[0]
    if reply:
        last = _latest(settings, sender)
        if last is None:
            raise click.ClickException(f"{sender} has no mail to reply to yet.")
        msg.replace_header("To", last["Reply-To"] or settings.address)
        msg.replace_header("Subject", f"Re: {last['Subject']}")
        msg["In-Reply-To"] = last["Message-ID"]
        msg["References"] = f"{last.get('References', '')} {last['Message-ID']}".strip()
        body_part = last.get_body(preferencelist=("plain",)) or last  # game-over mails carry a record
        quoted = "\n".join(f"> {line}" for line in body_part.get_content().splitlines())
        body += f"\nOn {last['Date']}, {last['From']} wrote:\n{quoted}\n"
    msg.set_content(body)
    root = sandbox_root(settings)
    before = len(read_mailbox(root, sender))
    try:
        with smtplib.SMTP("127.0.0.1", settings.sandbox_port, timeout=10) as smtp:
            smtp.send_message(msg, from_addr=sender, to_addrs=[msg["To"]])
    except smtplib.SMTPException as exc:  # the listener answered, and refused the mail
        raise click.ClickException(f"the sandbox refused the mail: {_smtp_reason(exc)}") from None
    except OSError as exc:
        raise click.ClickException(
            f"cannot reach the sandbox on 127.0.0.1:{settings.sandbox_port} ({exc}); is `pbem serve` running?"
        ) from None
    click.echo(f"sent to {msg['To']}: {msg['Subject']}")
    if wait <= 0:
        return
    deadline = time.monotonic() + wait
    fate = None
    while time.monotonic() < deadline:
        mails = read_mailbox(root, sender)
        if len(mails) > before:
            click.echo("The answer:\n")
            _print_mail(mails[before])
            return
        fate = _fate(settings, msg["Message-ID"])
        if fate is not None and fate[0] != "processed":
            break  # read, and it will not be answered: no use waiting
        time.sleep(0.2)
    click.echo(_no_answer(fate, wait, sender))


def _mailbox_or_fail(address: str, what: str) -> None:
    """A sandbox address, or one line saying what is wrong with it (no traceback)."""
    from pbem.mail.transport.sandbox import mailbox_name

    try:
        mailbox_name(address)
    except ValueError:
        raise click.BadParameter(f"{address!r} is not an address like alice@example.org", param_hint=what) from None


def _smtp_reason(exc: Exception) -> str:
    import smtplib

    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "; ".join(f"{rcpt}: {error.decode(errors='replace')}" for rcpt, (_, error) in exc.recipients.items())
    if isinstance(exc, smtplib.SMTPResponseException):
        return f"{exc.smtp_code} {exc.smtp_error.decode(errors='replace')}"
    return str(exc)


def _fate(settings: Settings, message_id: str) -> tuple[str, str] | None:
    """(status, note) the server recorded for the mail we sent, or None while it has not read it."""
    try:
        from sqlmodel import Session, select

        from pbem.core.db import make_engine
        from pbem.core.models import InboundMessage

        engine = make_engine(settings.db_url)
        try:
            with Session(engine) as session:
                row = session.exec(
                    select(InboundMessage.status, InboundMessage.note).where(
                        InboundMessage.message_id.in_([message_id, message_id.strip("<>")])
                    )
                ).first()
        finally:
            engine.dispose()
    except Exception:  # noqa: BLE001 - no database yet, or not one we can read: we only cannot tell
        return None
    return (row[0], row[1] or "") if row is not None else None


def _no_answer(fate: tuple[str, str] | None, wait: float, sender: str) -> str:
    """Why no answer came, as far as the records tell."""
    if fate is None:
        return f"No answer within {wait:g} s: the server has not read the mail yet. Is `pbem serve` running?"
    status, note = fate
    if status == "silenced":
        return (
            f"No answer: the server read the mail, but it has sent {sender} all the answers it sends "
            "to one address in a day (its last one said so). Moves are still played; answers come "
            "again after midnight (UTC)."
        )
    if status == "processed":
        return f"No answer within {wait:g} s: the server read the mail; see `pbem sandbox inbox {sender}` later."
    return f"No answer: the server read the mail and does not answer it ({status}{': ' + note if note else ''})."


def _print_mail(raw: bytes) -> None:
    import email
    import email.policy

    msg = email.message_from_bytes(raw, policy=email.policy.default)
    click.echo(f"From: {msg['From']}\nDate: {msg['Date']}\nSubject: {msg['Subject']}\n")
    body = (msg.get_body(preferencelist=("plain",)) or msg).get_content()
    click.echo(body.replace("\r\n", "\n").rstrip("\n"))  # the wire's CRLF is not the terminal's
    for part in msg.iter_attachments():
        click.echo(f"[attached: {part.get_filename()}, {part.get_content_type()}]")
    click.echo("=" * 72)


@sandbox.command("inbox")
@click.argument("address")
@click.option("--last", "last", default=1, show_default=True, help="How many of the newest mails to show.")
@click.option("--count", is_flag=True, help="Only print how many mails there are.")
@click.pass_context
def sandbox_inbox(ctx: click.Context, address: str, last: int, count: bool) -> None:
    """Show the newest mails the server sent to ADDRESS."""
    from pbem.mail.transport.sandbox import read_mailbox
    from pbem.runners.daemon import sandbox_root

    settings = load_settings(ctx)
    _mailbox_or_fail(address, "ADDRESS")
    mails = read_mailbox(sandbox_root(settings), address)
    if count:
        click.echo(len(mails))
        return
    if not mails:
        click.echo(f"No mail for {address} yet.")
    for raw in mails[-last:]:
        _print_mail(raw)


def run() -> None:
    """The `pbem` console script: the start-up guard first (for `serve`), then the command."""
    guard_start_up(sys.argv[1:])
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
