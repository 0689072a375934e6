"""Records and lookers-on: record, ratings, stats, watch, unwatch."""

from __future__ import annotations

import pbem_engine
from pbem.commands.lines.args import split_game
from pbem.commands.lines.base import Call, Command, Context, register
from pbem.commands.lines.words import game as game_name
from pbem.core.errors import CommandError
from pbem.core.models import Game
from pbem.core.wallclock import now
from pbem.games import ratings, records
from pbem.games import store as G
from pbem.games import watchers as W
from pbem.letters.views import game_view, title
from pbem.text.i18n import N_
from pbem_engine.common.phrases import phrase


def _any_game(ctx: Context, args: list[str]) -> Game:
    """A game named by number (anyone's: games are public), else the sender's own."""
    game_id, _ = split_game(args)
    if game_id is not None:
        game = ctx.session.get(Game, game_id)
        if game is None:
            raise CommandError(
                phrase("There is no game #{game}.", game=game_id), phrase("Write {command} to see yours.", command="games")
            )
        return game
    return G.find_game(ctx.session, ctx.player, None, ctx.game_hint)


def _kind(args: list[str], syntax: str) -> str:
    if len(args) != 1:
        raise CommandError(phrase("Please name one game type."), phrase("Write e.g. {example}.", example=syntax))
    try:
        return pbem_engine.lookup(game_name(args[0])).name
    except pbem_engine.EngineError as exc:
        raise CommandError(exc.message, exc.hint or phrase("Write e.g. {example}.", example=syntax)) from None


@register
class RecordCommand(Command):
    """Get the record of a game as an attachment: SGF for Capture Go, a text
    record for the other games (Ataxx with its start FEN).

    Write: record      (in a reply to a game's mail)
       or: record 42   (game #42)
    """

    name = "record"
    aliases = ("export", "sgf")
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("record [ID]")
    summary = N_("the game record, attached (SGF for Capture Go)")

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        game = _any_game(ctx, args)
        record = records.export(ctx.session, game)
        ctx.reply("record.txt", game=game_view(ctx.session, game, ctx.player), file=record.filename, attach=game.id)


@register
class Ratings(Command):
    """The Glicko-2 rating list of one game type; finished games count, cancelled ones not.

    Write: ratings ataxx
    """

    name = "ratings"
    aliases = ("rating",)
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("ratings GAME")
    summary = N_("the rating list of a game type")

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        kind = _kind(args, "ratings ataxx")
        table = ratings.table(ctx.session, kind)
        ctx.reply("ratings.txt", kind=kind, title=title(pbem_engine.lookup(kind)), rows=table[:50], me=ctx.player.address)


@register
class Stats(Command):
    """Games finished, wins by side and draws, for every game type or one.

    Write: stats          or: stats capturego
    """

    name = "stats"
    aliases = ("statistics",)
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("stats [GAME]")
    summary = N_("how many games were won by each side")

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        kind = _kind(args, "stats ataxx") if args else None
        ctx.reply("stats.txt", rows=records.statistics(ctx.session, kind), kind=kind)


@register
class Watch(Command):
    """Follow a game you do not play: you get each of its new boards.

    Write: watch 42
    Stop with "unwatch 42".
    """

    name = "watch"
    aliases = ("observe", "follow")
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("watch ID")
    summary = N_("get every new board of someone else's game")

    requires_proof = True
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        game = _watched(ctx, args, "watch 42")
        if game.side_of(ctx.player.id) is not None:
            raise CommandError(phrase("You play in game #{game}: you get its boards already.", game=game.id), "", game)
        G.require_active(game)
        added = W.watch(ctx.session, game, ctx.player, now())
        ctx.reply("watching.txt", game=game_view(ctx.session, game, ctx.player), watching=True, already=not added)


@register
class Unwatch(Command):
    """Stop following a game.

    Write: unwatch 42
    """

    name = "unwatch"
    aliases = ("unobserve", "unfollow")
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("unwatch ID")
    summary = N_("stop getting a game's boards")

    requires_proof = True
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        game = _watched(ctx, args, "unwatch 42")
        removed = W.unwatch(ctx.session, game, ctx.player)
        if not removed:
            raise CommandError(phrase("You are not watching game #{game}.", game=game.id), "")
        ctx.reply("watching.txt", game=game_view(ctx.session, game, ctx.player), watching=False, already=False)


def _watched(ctx: Context, args: list[str], syntax: str) -> Game:
    game_id, rest = split_game(args)
    if game_id is None or rest:
        raise CommandError(phrase("Please name the game by its number."), phrase("Write e.g. {example}.", example=syntax))
    game = ctx.session.get(Game, game_id)
    if game is None:
        raise CommandError(
            phrase("There is no game #{game}.", game=game_id), phrase("Write {command} to see yours.", command="games")
        )
    return game
