"""Commands held for confirmation: what a mail without proof of receipt asked for.

Anyone can put a player's address in From, so such a mail changes nothing: its lines that
would change something are kept, and the player gets one notice ("someone wrote as you;
nothing changed; reply to this mail to confirm"). A proven reply to that notice (any
reply, or one with the word `confirm`) runs them then. This is how a newcomer starts:
their first challenge goes out once they have shown that they receive our mail, as a
mailing list confirms a subscription.
"""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from pbem import players, trust
from pbem.commands import base
from pbem.commands.base import Call, Command, Context, register
from pbem.commands.reader import Line, classify
from pbem.i18n import DEFAULT, N_
from pbem.models import HeldMail
from pbem.wallclock import now

#: session.info: the row this mail's held commands went into
HELD = "pbem.held"
#: how long held commands wait for their confirmation
KEEP = timedelta(days=7)


@register
class Confirm(Command):
    """Confirm the commands of a mail I could not trust: reply to my notice about it.

    Write: confirm   (in a reply to that notice; any reply to it works too)
    """

    name = "confirm"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("confirm")
    summary = N_("do what a mail held for confirmation asked")
    requires_proof = True
    max_args = 0

    def run(self, ctx: Context, call: Call) -> None:
        ctx.reply("confirmed.txt", lines=[])  # reached only when nothing was waiting


CONFIRM = base.find("confirm")


def acts(line: Line) -> bool:
    """Whether a line would change something (and so needs proof)."""
    command = line.command or base.find("move")
    return command.requires_proof and command is not CONFIRM


def hold(ctx: Context, lines: list[Line]) -> list[Line]:
    """Keep the lines of an unproven mail that would change something; return the others."""
    acting = [line for line in lines if acts(line)]
    if acting:
        row = HeldMail(
            player_id=ctx.player.id,
            lines="\n".join(line.text for line in acting)[:4000],
            name=ctx.envelope.sender_name[:80],
            created_at=now(),
        )
        ctx.session.add(row)
        ctx.session.info[HELD] = row  # its language is read after the commands (`language.settle`)
        ctx.reply("held.txt", lines=[line.text[:120] for line in acting], address=ctx.player.address)
    return [line for line in lines if not acts(line)]


def _waiting(ctx: Context) -> list[HeldMail]:
    return list(
        ctx.session.exec(
            select(HeldMail)
            .where(HeldMail.player_id == ctx.player.id, HeldMail.status == "held")
            .where(HeldMail.created_at >= now() - KEEP)
            .order_by(HeldMail.id)
        )
    )


def confirms(ctx: Context, lines: list[Line]) -> bool:
    """Whether a proven mail confirms held commands: it says `confirm`, or it answers our notice."""
    if any(line.command is CONFIRM for line in lines):
        return bool(_waiting(ctx))
    ours = trust.answered(ctx.session, ctx.envelope)
    return ours is not None and ours[0] == "held" and bool(_waiting(ctx))


def release(ctx: Context) -> list[Line]:
    """The held lines, to run now (each held mail once)."""
    released: list[Line] = []
    for row in _waiting(ctx):
        row.status = "confirmed"
        ctx.session.add(row)
        players.proven(ctx.player, row.name, now())  # now the name they wrote with is theirs
        if row.language and ctx.player.language == DEFAULT:  # and the language they wrote in
            ctx.player.language = row.language
        released += [line for text in row.lines.splitlines() if (line := classify(text)) is not None]
    if released:
        ctx.reply("confirmed.txt", lines=[line.text[:120] for line in released])
    return released
