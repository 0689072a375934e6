"""Playing: move, pass, resign, draw, nodraw."""

from __future__ import annotations

from pbem.commands.lines.base import Call, Command, Context, register
from pbem.core.errors import CommandError, GameError
from pbem.core.wallclock import now
from pbem.games import store as G
from pbem.letters import notify
from pbem.play import moves, offers
from pbem.text.i18n import N_
from pbem_engine.common.phrases import phrase


class _GameAction(Command):
    """A command that acts on one of the sender's games as it stands now."""

    takes_game = True
    requires_proof = True
    needs_current_board = True


@register
class MoveCommand(_GameAction):
    """To play a move: in a reply to a game's mail, the move alone on a line is enough.

    Write: c4             (in a reply to the game's mail)
       or: move 42 a1-c3  (game #42, in any mail)
       or: #42 a1-c3      (the same: a line for each game, in any mail)
    Each game's notation is in its rules: write "rules GAME".
    """

    name = "move"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("move [ID] MOVE")
    summary = N_("play a move (a move alone on a line works too)")

    def run(self, ctx: Context, call: Call) -> None:
        if not call.args:
            raise CommandError(
                phrase("Please write the move after the word {command}.", command="move"),
                phrase("Write e.g. {example}.", example="move 42 c4"),
                code="move.missing",
            )
        play_move(ctx, call.game, " ".join(call.args))


def play_move(ctx: Context, game, text: str) -> None:  # noqa: ANN001
    """Play one move and tell everyone concerned; the shared path of `move` and `pass`."""
    moves.play(
        ctx.session, game, ctx.player, text, message_id=ctx.envelope.message_id,
        reminders=ctx.settings.reminders, letters=ctx.letters, sender=ctx.player, at=now(),
    )


@register
class Pass(_GameAction):
    """Skip your turn, where the game allows it (Ataxx without a move, Capture Go).

    Write: pass    or: pass 42
    """

    name = "pass"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("pass [ID]")
    summary = N_("skip your turn, where the rules allow it")

    def run(self, ctx: Context, call: Call) -> None:
        play_move(ctx, call.game, "pass")


@register
class Resign(_GameAction):
    """Give up a game: your opponent wins. Allowed at any time, on move or not.

    Write: resign    or: resign 42
    """

    name = "resign"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("resign [ID]")
    summary = N_("give up a game")

    def run(self, ctx: Context, call: Call) -> None:
        game = call.game
        G.require_active(game)
        side = game.side_of(ctx.player.id)
        G.finish(ctx.session, game, 1 - side, f"{ctx.player.name} resigned", now(), ending="resignation")
        ctx.add(notify.tell(ctx.session, "resigned", game, ctx.player))


@register
class Draw(_GameAction):
    """Offer a draw, or accept the draw your opponent offered.

    Write: draw    or: draw 42
    The offer stands until your opponent accepts it (draw), refuses it (nodraw) or moves.
    """

    name = "draw"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("draw [ID]")
    summary = N_("offer a draw, or accept one")

    def run(self, ctx: Context, call: Call) -> None:
        game = call.game
        G.require_active(game)
        side = game.side_of(ctx.player.id)
        if game.draw_offer == 1 - side:
            ctx.add(offers.agree_draw(ctx.session, game, ctx.player, now()))
            return
        if game.draw_offer == side:
            raise GameError(
                phrase("You have already offered a draw in game #{game}.", game=game.id), "", game,
                code="draw.already_offered", params={"game": game.id},
            )
        ctx.add(offers.offer_draw(ctx.session, game, ctx.player, now()))


@register
class NoDraw(_GameAction):
    """Refuse the draw your opponent offered; the game goes on.

    Write: nodraw    or: nodraw 42
    """

    name = "nodraw"
    aliases = ("no-draw", "decline-draw")
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("nodraw [ID]")
    summary = N_("refuse a draw offer")

    def run(self, ctx: Context, call: Call) -> None:
        game = call.game
        G.require_active(game)
        side = game.side_of(ctx.player.id)
        if game.draw_offer != 1 - side:
            raise GameError(
                phrase("There is no draw offer to refuse in game #{game}.", game=game.id), "", game,
                code="draw.none", params={"game": game.id},
            )
        ctx.add(offers.refuse_draw(ctx.session, game, ctx.player, now()))
