"""`next`: the board of the game that most urgently waits for the sender's move."""

from __future__ import annotations

from pbem.commands.lines.base import Call, Command, Context, register
from pbem.games import clock
from pbem.letters.views import game_view
from pbem.text.i18n import N_


@register
class Next(Command):
    """Send the board of your most urgent game: where it is your move and the deadline comes
    first. Reply to that mail with your move.

    Write: next
    """

    name = "next"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("next")
    summary = N_("the board of your most urgent game, where it is your move")
    max_args = 0  # "Next Monday I am away" is prose, not the command

    def run(self, ctx: Context, call: Call) -> None:
        games = clock.by_urgency(ctx.session, ctx.player)
        waiting = [g for g in games if g.side_of(ctx.player.id) == g.turn]
        if not waiting:
            ctx.reply("next.txt", game=None, waiting=0, playing=len(games))
            return
        game = waiting[0]
        ctx.game_hint = game.id  # the reply's Reply-To names the game: a move alone answers it
        ctx.reply("next.txt", game=game_view(ctx.session, game, ctx.player), waiting=len(waiting), playing=len(games))
