"""Records and lookers-on: record, ratings, stats, watch, unwatch."""

from __future__ import annotations

import engine
from pbem import games as G
from pbem import ratings, records
from pbem import watchers as W
from pbem.commands.args import split_game
from pbem.commands.base import Call, Command, Context, register
from pbem.commands.words import game as game_name
from pbem.errors import CommandError
from pbem.models import Game
from pbem.present import game_view
from pbem.wallclock import now


def _any_game(ctx: Context, args: list[str]) -> Game:
    """A game named by number (anyone's: games are public), else the sender's own."""
    game_id, _ = split_game(args)
    if game_id is not None:
        game = ctx.session.get(Game, game_id)
        if game is None:
            raise CommandError(f"There is no game #{game_id}.", "Write games to see yours.")
        return game
    return G.find_game(ctx.session, ctx.player, None, ctx.game_hint)


def _kind(args: list[str], syntax: str) -> str:
    if len(args) != 1:
        raise CommandError("Please name one game type.", f"Write e.g. {syntax}.")
    try:
        return engine.lookup(game_name(args[0])).name
    except engine.EngineError as exc:
        raise CommandError(str(exc), f"Write e.g. {syntax}.") from None


@register
class RecordCommand(Command):
    """Get the record of a game as an attachment: SGF for Capture Go, a text
    record for the other games (Ataxx with its start FEN).

    Write: record      (in a reply to a game's mail)
       or: record 42   (game #42)
    """

    name = "record"
    aliases = ("export", "sgf")
    syntax = "record [ID]"
    summary = "the game record, attached (SGF for Capture Go)"

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
    syntax = "ratings GAME"
    summary = "the rating list of a game type"

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        kind = _kind(args, "ratings ataxx")
        table = ratings.table(ctx.session, kind)
        ctx.reply("ratings.txt", kind=kind, title=engine.lookup(kind).title, rows=table[:50], me=ctx.player.address)


@register
class Stats(Command):
    """Games finished, wins by side and draws, for every game type or one.

    Write: stats          or: stats capturego
    """

    name = "stats"
    aliases = ("statistics",)
    syntax = "stats [GAME]"
    summary = "how many games were won by each side"

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
    syntax = "watch ID"
    summary = "get every new board of someone else's game"

    requires_proof = True
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        game = _watched(ctx, args, "watch 42")
        if game.side_of(ctx.player.id) is not None:
            raise CommandError(f"You play in game #{game.id}: you get its boards already.", "", game)
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
    syntax = "unwatch ID"
    summary = "stop getting a game's boards"

    requires_proof = True
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        game = _watched(ctx, args, "unwatch 42")
        removed = W.unwatch(ctx.session, game, ctx.player)
        if not removed:
            raise CommandError(f"You are not watching game #{game.id}.", "")
        ctx.reply("watching.txt", game=game_view(ctx.session, game, ctx.player), watching=False, already=False)


def _watched(ctx: Context, args: list[str], syntax: str) -> Game:
    game_id, rest = split_game(args)
    if game_id is None or rest:
        raise CommandError("Please name the game by its number.", f"Write e.g. {syntax}.")
    game = ctx.session.get(Game, game_id)
    if game is None:
        raise CommandError(f"There is no game #{game_id}.", "Write games to see yours.")
    return game
