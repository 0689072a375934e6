"""Test helpers that write mails as players' clients do, and read the server's outbox."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from email.utils import make_msgid

GAME = "pbem@games.test"


def compose(sender: str, body: str, subject: str = "", **headers: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = headers.pop("to", GAME)
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid(domain="client.test")
    for key, value in headers.items():
        msg[key.replace("_", "-")] = value
    msg.set_content(body)
    return msg.as_bytes(policy=email.policy.SMTP)  # CRLF, as clients put it on the wire


def parse(raw: bytes) -> email.message.EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)


def reply_to(sender: str, mail: email.message.EmailMessage, body: str) -> bytes:
    """A top-posted reply to `mail`, quoting it below as Gmail does."""
    quoted = "\n".join("> " + line for line in text(mail).splitlines())
    written = f"{body}\n\nOn Mon, 30 Nov 2026 at 10:00, pbem <{GAME}> wrote:\n{quoted}\n"
    refs = f"{mail.get('References', '')} {mail['Message-ID']}".strip()
    return compose(
        sender, written, subject=f"Re: {mail['Subject']}", to=mail["Reply-To"], In_Reply_To=mail["Message-ID"],
        References=refs,
    )


def text(mail: email.message.EmailMessage) -> str:
    """The plain-text body of a mail, also when it carries attachments, as our lines were
    written: a format=flowed part's stuffing and soft-break spaces taken off, its lines not
    joined (`flowed` joins them, as a flowed reader shows them)."""
    part = mail.get_body(preferencelist=("plain",)) or mail
    content = part.get_content()
    if (part.get_param("format") or "").lower() != "flowed":
        return content
    lines = []
    for line in content.splitlines(keepends=True):
        words = line.rstrip("\r\n")
        end = line[len(words):]
        words = words.removeprefix(" ")
        lines.append((words if words == "-- " else words.rstrip(" ")) + end)
    return "".join(lines)


def flowed(mail: email.message.EmailMessage) -> str:
    """The plain-text body as a format=flowed reader shows it: paragraphs joined, boards kept."""
    from pbem.mail.message.body import unwrap_flowed

    return unwrap_flowed((mail.get_body(preferencelist=("plain",)) or mail).get_content())


def proven(settings, engine, sender: str, body: str, game: int | None = None, **headers: str) -> bytes:  # noqa: ANN001
    """A mail from `sender` to the address our next mail to them would give as Reply-To: it
    carries their token, as any reply of theirs would (a player who already has an address);
    with `game`, the token of a mail that shows that game's board as it stands."""
    from sqlmodel import Session, select

    from pbem.core.models import Game, Player
    from pbem.trust import proof as trust

    with Session(engine) as session:
        player = session.exec(select(Player).where(Player.address == sender.rpartition("<")[2].strip(">"))).one()
        shown = session.get(Game, game) if game is not None else None
        return compose(sender, body, to=trust.reply_to(settings, player, shown), **headers)


def replayed(raw: bytes) -> bytes:
    """A captured mail re-sent as an attacker would: a new Message-ID, no In-Reply-To/References."""
    msg = parse(raw)
    for header in ("Message-ID", "In-Reply-To", "References"):
        del msg[header]
    msg["Message-ID"] = make_msgid(domain="replay.test")
    return msg.as_bytes(policy=email.policy.SMTP)


def dsn(recipient: str, message_id: str, status: str = "5.1.1", to: str = GAME) -> bytes:
    """A delivery status report (RFC 3464) as a receiving server sends it: our mail
    `message_id` to `recipient` failed with `status` (5.x.x for good, 4.x.x for now)."""
    action = "failed" if status.startswith("5") else "delayed"
    return (
        f"From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\nTo: {to}\r\n"
        f"Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: {make_msgid(domain='mx.example.org')}\r\n"
        "Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        f"--b\r\nContent-Type: text/plain\r\n\r\nYour mail to {recipient} could not be delivered.\r\n\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n"
        f"Final-Recipient: rfc822; {recipient}\r\nAction: {action}\r\nStatus: {status}\r\n"
        f"Diagnostic-Code: smtp; {status[0]}50 {status} mailbox unavailable\r\n\r\n"
        f"--b\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: {message_id}\r\nTo: {recipient}\r\n\r\n--b--\r\n"
    ).encode()
