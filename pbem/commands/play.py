"""Playing: move, pass, resign, draw, nodraw."""

from __future__ import annotations

from pbem import games as G
from pbem.clock import now
from pbem.commands.args import split_game
from pbem.commands.base import Command, CommandError, Context, register
from pbem.models import Game
from pbem.present import game_view
from pbem.watchers import watchers


def play_move(ctx: Context, game: Game, text: str) -> None:
    """Play one move and tell both players; the shared path of `move`, `pass` and a bare move."""
    ctx.game_hint = game.id
    rules = G.rules_of(game)
    before = rules.outcome(rules.load(game.state)).scores
    record = G.play(ctx.session, game, ctx.player, text, ctx.envelope.message_id, now())
    taken = _taken(rules, record.side, before, rules.outcome(rules.load(game.state)).scores)
    ctx.inbound.game_id = game.id
    opponent = G.opponent(ctx.session, game, ctx.player)
    ctx.reply("moved.txt", game=game_view(ctx.session, game, ctx.player), move=record.notation, taken=taken)
    template = "game_over.txt" if game.status == "finished" else "your_move.txt"
    ctx.notify(template, opponent, game, game=game_view(ctx.session, game, opponent), taken=taken)
    for watcher in watchers(ctx.session, game):
        ctx.notify("watched_move.txt", watcher, game, game=game_view(ctx.session, game, watcher))


def _taken(rules, side: int, before: tuple[int, int], after: tuple[int, int]) -> int:  # noqa: ANN001
    """How many of the opponent's pieces a move turned (Ataxx) or stones it captured (Go), as the
    engine's scores tell; 0 where the score is not a count of the opponent's losses."""
    if rules.score_unit == "pieces":
        return max(before[1 - side] - after[1 - side], 0)
    if rules.score_unit == "captures":
        return max(after[side] - before[side], 0)
    return 0


@register
class MoveCommand(Command):
    """To play a move: in a reply to a game's mail, the move alone on a line is enough.

    Write: c4             (in a reply to the game's mail)
       or: move 42 a1-c3  (game #42, in any mail)
    Each game's notation is in its rules: write "rules GAME".
    """

    name = "move"
    syntax = "move [ID] MOVE"
    summary = "play a move (a move alone on a line works too)"
    takes_game = True

    def run(self, ctx: Context, args: list[str], line: str) -> None:
        game_id, rest = split_game(args)
        if not rest:
            raise CommandError("Please write the move after the word move.", "Write e.g. move 42 c4.")
        game = G.find_game(ctx.session, ctx.player, game_id, ctx.game_hint)
        play_move(ctx, game, " ".join(rest))


@register
class Pass(Command):
    """Skip your turn, where the game allows it (Ataxx without a move, Capture Go).

    Write: pass    or: pass 42
    """

    name = "pass"
    syntax = "pass [ID]"
    summary = "skip your turn, where the rules allow it"
    takes_game = True

    def run(self, ctx: Context, args: list[str], line: str) -> None:
        game_id, _ = split_game(args)
        play_move(ctx, G.find_game(ctx.session, ctx.player, game_id, ctx.game_hint), "pass")


def _my_game(ctx: Context, args: list[str]) -> Game:
    game_id, _ = split_game(args)
    game = G.find_game(ctx.session, ctx.player, game_id, ctx.game_hint)
    G.require_active(game)
    ctx.game_hint = game.id
    ctx.inbound.game_id = game.id
    return game


def _end(ctx: Context, game: Game) -> None:
    opponent = G.opponent(ctx.session, game, ctx.player)
    ctx.reply("game_over.txt", game=game_view(ctx.session, game, ctx.player))
    ctx.notify("game_over.txt", opponent, game, game=game_view(ctx.session, game, opponent))


@register
class Resign(Command):
    """Give up a game: your opponent wins. Allowed at any time, on move or not.

    Write: resign    or: resign 42
    """

    name = "resign"
    syntax = "resign [ID]"
    summary = "give up a game"
    takes_game = True

    def run(self, ctx: Context, args: list[str], line: str) -> None:
        game = _my_game(ctx, args)
        side = game.side_of(ctx.player.id)
        G.finish(ctx.session, game, 1 - side, f"{ctx.player.name} resigned", now(), ending="resignation")
        ctx.session.add(game)
        _end(ctx, game)


@register
class Draw(Command):
    """Offer a draw, or accept the draw your opponent offered.

    Write: draw    or: draw 42
    The offer stands until your opponent accepts it (draw), refuses it (nodraw) or moves.
    """

    name = "draw"
    syntax = "draw [ID]"
    summary = "offer a draw, or accept one"
    takes_game = True

    def run(self, ctx: Context, args: list[str], line: str) -> None:
        game = _my_game(ctx, args)
        side = game.side_of(ctx.player.id)
        if game.draw_offer == 1 - side:
            G.finish(ctx.session, game, None, "draw agreed", now(), ending="agreement")
            ctx.session.add(game)
            _end(ctx, game)
            return
        if game.draw_offer == side:
            raise CommandError(f"You have already offered a draw in game #{game.id}.", "", game)
        game.draw_offer = side
        G.touch(game, now())
        ctx.session.add(game)
        opponent = G.opponent(ctx.session, game, ctx.player)
        ctx.reply("draw_offered.txt", game=game_view(ctx.session, game, ctx.player))
        ctx.notify("draw_offer.txt", opponent, game, game=game_view(ctx.session, game, opponent))


@register
class NoDraw(Command):
    """Refuse the draw your opponent offered; the game goes on.

    Write: nodraw    or: nodraw 42
    """

    name = "nodraw"
    aliases = ("no-draw", "decline-draw")
    syntax = "nodraw [ID]"
    summary = "refuse a draw offer"
    takes_game = True

    def run(self, ctx: Context, args: list[str], line: str) -> None:
        game = _my_game(ctx, args)
        side = game.side_of(ctx.player.id)
        if game.draw_offer != 1 - side:
            raise CommandError(f"There is no draw offer to refuse in game #{game.id}.", "", game)
        game.draw_offer = None
        G.touch(game, now())
        ctx.session.add(game)
        opponent = G.opponent(ctx.session, game, ctx.player)
        ctx.reply("draw_refused.txt", game=game_view(ctx.session, game, ctx.player))
        ctx.notify("draw_refused.txt", opponent, game, game=game_view(ctx.session, game, opponent))
