"""Commands about the player themself."""

from __future__ import annotations

from pbem.commands.base import Call, Command, Context, register
from pbem.errors import CommandError


@register
class Name(Command):
    """Set the name other players see in your games' mails.

    Write: name Alice Smith
    The name may have letters, digits, spaces and - . ' (at most 40 characters).
    """

    name = "name"
    syntax = "name NEW NAME"
    summary = "set the name shown to other players"

    requires_proof = True
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        new = " ".join(args)
        if not new:
            raise CommandError("Please give the name you want.", "Write e.g. name Alice Smith.")
        if len(new) > 40 or not all(c.isalnum() or c in " -.'" for c in new):
            raise CommandError(
                f'"{new[:60]}" cannot be a name here: use at most 40 letters, digits, spaces and - . \'',
                "Write e.g. name Alice Smith.",
            )
        old, ctx.player.name = ctx.player.name, new
        ctx.session.add(ctx.player)
        ctx.reply("named.txt", old=old, new=new)
