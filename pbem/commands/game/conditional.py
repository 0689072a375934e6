"""Conditional moves: `if [ID] X then Y ...`, `if [ID] list`, `if [ID] clear`."""

from __future__ import annotations

from pbem.commands.lines import base
from pbem.commands.lines.base import Call, Command, Context, register
from pbem.core.errors import GameError
from pbem.core.models import Game
from pbem.core.wallclock import now
from pbem.games import store as G
from pbem.letters.views import game_view
from pbem.play import conditionals
from pbem.text.i18n import N_
from pbem_engine.common.phrases import phrase

#: `if list` and `if clear`, in the languages the players write
LIST = frozenset({"list", "elenco", "lista", "список", "перелік", "목록", "列表"})
CLEAR = frozenset({"clear", "cancella", "очистить", "очистити", "삭제", "清除"})


@register
class If(Command):
    """Answer your opponent's next move in advance: when they play the first move, I play your
    answer at once. Several lines in one mail are alternatives; a longer line answers the moves
    after it too.

    Write: if e5 then d4
       or: if 42 e5 then d4 if c3 then c4
       or: if list    or: if clear
    Write it while your opponent is on move; a new line for the same move replaces the old one.
    """

    name = "if"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("if [ID] MOVE then MOVE ..., if [ID] list, if [ID] clear")
    summary = N_("answer your opponent's next move in advance")
    takes_game = True
    requires_proof = True
    needs_current_board = True

    def reads(self, words: list[str]) -> bool:
        return conditionals.looks_like_line(words[1:], self._is_if)

    def _is_if(self, word: str) -> bool:
        return base.find(word) is self

    def run(self, ctx: Context, call: Call) -> None:
        game = call.game
        G.require_active(game)
        word = call.args[0].casefold() if len(call.args) == 1 else ""
        if word in LIST:
            ctx.reply("conditional.txt", game=_view(ctx, game), action="list", lines=_listed(ctx, game))
            return
        if word in CLEAR:
            count = conditionals.clear(ctx.session, game, ctx.player)
            ctx.reply("conditional.txt", game=_view(ctx, game), action="clear", count=count, lines=[])
            return
        written = conditionals.parse(call.args, self._is_if)
        if game.turn == game.side_of(ctx.player.id):
            raise GameError(
                phrase("It is your move in game #{game}: a conditional line answers your opponent's move.",
                       game=game.id),
                phrase("Play your move first, on a line above the {command} line in the same mail.", command="if"),
                game, code="if.your_move", params={"game": game.id},
            )
        conditionals.require_length(written, ctx.settings.max_conditional_chain)
        moves = conditionals.check(game, ctx.player, written)
        stored = conditionals.store(
            ctx.session, game, ctx.player, moves, call.line, ctx.envelope.message_id, now(),
            most_lines=ctx.settings.max_conditional_lines, longest=ctx.settings.max_conditional_chain,
        )
        ctx.reply(
            "conditional.txt", game=_view(ctx, game), action="stored", replaced=stored.replaced,
            line=conditionals.shown(stored.line), lines=_listed(ctx, game),
        )


def _view(ctx: Context, game: Game) -> dict:
    return game_view(ctx.session, game, ctx.player)


def _listed(ctx: Context, game: Game) -> list[dict]:
    """The sender's lines in the game, as the reply lists them."""
    return [conditionals.shown(line) for line in conditionals.lines(ctx.session, game, ctx.player)]
