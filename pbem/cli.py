"""The `pbem` command: serve, try it in the sandbox, administer."""

from __future__ import annotations

import email
import email.policy
import errno
import logging
import smtplib
import sys
import time
from email.message import EmailMessage
from email.utils import make_msgid

import click

from pbem import admin_changes, admin_games, admin_mail, admin_ops  # noqa: F401  (their commands)
from pbem.admin import admin
from pbem.admin import settings as _settings
from pbem.config import Settings
from pbem.mail.sandbox import read_mailbox


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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


@main.command()
@click.pass_context
def serve(ctx: click.Context) -> None:
    """Run the daemon: read the mailbox, play the moves, send the replies.

    With a configuration, mail comes by IMAP (IDLE where offered) and goes by SMTP.
    Without one, pbem serves a sandbox on 127.0.0.1 (see `pbem sandbox --help`).
    Stops cleanly on SIGTERM or Ctrl-C.
    """
    from pbem.daemon import sandbox_root
    from pbem.daemon import serve as run

    settings = _settings(ctx)
    logging.getLogger("pbem").setLevel(logging.INFO)
    if settings.sandbox:
        click.echo(
            f"pbem sandbox: game address {settings.address}, SMTP on 127.0.0.1:{settings.sandbox_port}\n"
            f"  database {settings.db_url}\n  mailboxes in {sandbox_root(settings)}\n"
            f'  try: pbem sandbox send --from alice@example.org "challenge ataxx bob@example.org"'
        )
    try:
        run(settings)
    except OSError as exc:
        if settings.sandbox and exc.errno == errno.EADDRINUSE:
            raise click.ClickException(
                f"127.0.0.1:{settings.sandbox_port} is taken: is another `pbem serve` running? "
                "Stop it, or set sandbox_port under [server] in a configuration file."
            ) from None
        raise


@main.group()
def sandbox() -> None:
    """Play in the sandbox: send mail to the server and read what it sent back.

    `pbem serve` must be running (with no configuration) in another terminal.
    """


def _latest(settings: Settings, address: str) -> email.message.EmailMessage | None:
    from pbem.daemon import sandbox_root

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
    settings = _settings(ctx)
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
    from pbem.daemon import sandbox_root

    root = sandbox_root(settings)
    before = len(read_mailbox(root, sender))
    try:
        with smtplib.SMTP("127.0.0.1", settings.sandbox_port, timeout=10) as smtp:
            smtp.send_message(msg, from_addr=sender, to_addrs=[msg["To"]])
    except OSError as exc:
        raise click.ClickException(
            f"cannot reach the sandbox on 127.0.0.1:{settings.sandbox_port} ({exc}); is `pbem serve` running?"
        ) from None
    click.echo(f"sent to {msg['To']}: {msg['Subject']}")
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        mails = read_mailbox(root, sender)
        if len(mails) > before:
            click.echo("The answer:\n")
            _print_mail(mails[before])
            return
        time.sleep(0.1)


def _print_mail(raw: bytes) -> None:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    click.echo(f"From: {msg['From']}\nDate: {msg['Date']}\nSubject: {msg['Subject']}\n")
    click.echo((msg.get_body(preferencelist=("plain",)) or msg).get_content())
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
    from pbem.daemon import sandbox_root

    mails = read_mailbox(sandbox_root(_settings(ctx)), address)
    if count:
        click.echo(len(mails))
        return
    if not mails:
        click.echo(f"No mail for {address} yet.")
    for raw in mails[-last:]:
        _print_mail(raw)


main.add_command(admin)


if __name__ == "__main__":
    sys.exit(main())
