"""`stop`: no more mail from us at all, until the player writes to us again.

A stranger invited by someone else must be able to end our mail with one word (or with the
List-Unsubscribe button, whose stop address `pbem.runners.inbound` reads before any command). `stop`
needs proof of receipt like any change, so a forger cannot silence anyone; it changes the
player's own records, so a mail captured before it cannot lift it later (`pbem.runners.inbound`
lifts a stop on a proven mail that is not older than it). Its answer is the last mail the
player gets (`pbem.letters.post`).
"""

from __future__ import annotations

from sqlmodel import select

from pbem.commands.lines.base import Call, Command, Context, register
from pbem.core.models import HeldMail
from pbem.core.wallclock import now
from pbem.text.i18n import N_


@register
class Stop(Command):
    """Get no more mail from this server at all: no challenges, no games' mails, no answers.

    Write: stop   (in a reply to any of my mails)
    A reply to my answer to it, or to a later mail of mine, brings my mail back.
    """

    name = "stop"
    aliases = ("unsubscribe",)
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("stop")
    summary = N_("get no more mail from this server")

    requires_proof = True
    needs_current_records = True
    max_args = 0

    def reads(self, words: list[str]) -> bool:
        """`stop` alone (or before a number, which the wrap guard keeps off a line's start):
        "stop getting a game's boards", quoted from our help, is prose, not the command."""
        return len(words) == 1 or (len(words) == 2 and words[1].isdigit())

    def run(self, ctx: Context, call: Call) -> None:
        ctx.player.stopped_at = now()
        ctx.session.add(ctx.player)
        for row in ctx.session.exec(select(HeldMail).where(HeldMail.player_id == ctx.player.id,
                                                           HeldMail.status == "held")):
            row.status = "dropped"  # nothing asked in their name is done after they said stop
            ctx.session.add(row)
        ctx.reply("stopped.txt")
