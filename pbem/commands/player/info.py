"""Commands that only look: help, rules, games, open, board, history."""

from __future__ import annotations

import inspect

from sqlmodel import or_, select

import pbem_engine
from pbem.commands.lines import base, words
from pbem.commands.lines.base import Call, Command, Context, register
from pbem.commands.lines.words import WORDS
from pbem.core.errors import CommandError
from pbem.core.models import Challenge
from pbem.core.wallclock import now
from pbem.games import bots as bots_players
from pbem.games import clock, remarks, vacations
from pbem.games import store as G
from pbem.letters.views import challenge_view, game_view, title
from pbem.text.i18n import N_
from pbem_engine.common.phrases import phrase


@register
class Help(Command):
    """List the commands, or explain one of them.

    Write: help            (the commands you need most)
       or: help challenge  (one command in detail)
       or: help all        (every command)
    """

    name = "help"
    aliases = ("?", "hilfe", "aide", "ayuda", "aiuto")
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("help [COMMAND | all]")
    summary = N_("this list, or the details of one command")

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        listed = sorted(base.commands(), key=_section)
        if args and args[0].lower() == "all":  # the whole list; the short one leads with what matters
            ctx.reply("help_all.txt", commands=listed, games=_game_list(), words=WORDS,
                      bots=_bots(ctx))
            return
        if args:
            command = base.find(args[0])
            if command is None:
                raise CommandError(
                    phrase('There is no command "{command}".', command=args[0][:40]),
                    phrase("Write {command} for the list.", command="help"),
                )
            ctx.reply(
                "help_command.txt", command=command, help=command.help(), words=WORDS,
                games=", ".join(pbem_engine.names()), variants=base.variants(),
            )
            return
        ctx.reply("help.txt", commands=listed, games=_game_list(), words=WORDS,
                  bots=_bots(ctx))


def _bots(ctx: Context) -> bool:
    """Whether the help tells how to play a bot: only while bots play."""
    return bots_players.enabled(ctx.session, ctx.settings)


# The help lists commands by what they are for: looking, starting, playing, records, time, you.
_SECTIONS = (
    "info", "challenges", "play", "takeback", "conditional", "next", "say", "tournaments", "records", "time", "notify",
    "account",
)


def _section(command: base.Command) -> int:
    module = type(command).__module__.rpartition(".")[2]
    return _SECTIONS.index(module) if module in _SECTIONS else len(_SECTIONS)


def _game_list() -> list[dict[str, str]]:
    return [{"name": n, "title": title(pbem_engine.lookup(n))} for n in pbem_engine.names()]


@register
class Rules(Command):
    """Send the rules of a game and the options a challenge can set.

    Write: rules ataxx    (the games: {games})
    """

    name = "rules"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("rules GAME")
    summary = N_("the rules of a game and its options")

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        if len(args) != 1:
            raise CommandError(phrase("Please name one game."), phrase("Write e.g. {example}.", example="rules ataxx"))
        try:
            cls = pbem_engine.lookup(words.game(args[0]))
        except pbem_engine.EngineError as exc:
            raise CommandError(exc.message, exc.hint or phrase("Write e.g. {example}.", example="rules ataxx")) from None
        rules = cls()
        options = [{"name": o.name, "default": o.default, "help": o.help} for o in cls.option_specs]
        ctx.reply(
            "rules.txt",
            game={"name": cls.name, "title": title(cls), "sides": cls.sides},
            rules_text=f"rules/{cls.name}.txt",
            description=inspect.cleandoc(cls.__doc__ or cls.title),  # for a game with no rules text yet
            options=options,
            notation=rules.notation(),
            example=rules.examples(rules.start())[0],
        )


@register
class Games(Command):
    """List your games in progress, with whose move it is, and your open challenges.

    The games waiting for your move come first, soonest deadline first; each shows its
    deadline in your time zone.
    """

    name = "games"
    aliases = ("mygames",)
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("games")
    summary = N_("your games in progress and whose move it is")

    max_args = 0

    def run(self, ctx: Context, call: Call) -> None:
        views = [game_view(ctx.session, g, ctx.player) for g in clock.by_urgency(ctx.session, ctx.player)]
        pending = ctx.session.exec(
            select(Challenge)
            .where(Challenge.status == "open")
            .where(or_(Challenge.challenger_id == ctx.player.id, Challenge.opponent_id == ctx.player.id))
            .order_by(Challenge.id)
        )
        challenges = [challenge_view(ctx.session, c) for c in pending]
        allowance = ctx.settings.vacation_days_per_year
        vacation = {"allowance": allowance, "left": allowance - vacations.days_used(ctx.session, ctx.player, now().year)}
        ctx.reply("games.txt", games=views, challenges=challenges, me=ctx.player.address, vacation=vacation)


@register
class Open(Command):
    """List the open challenges that anyone may accept."""

    name = "open"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("open")
    summary = N_("the open challenges anyone may take")

    max_args = 0

    def run(self, ctx: Context, call: Call) -> None:
        query = (
            select(Challenge)
            .where(Challenge.status == "open")
            .where(Challenge.opponent_id.is_(None))
            .order_by(Challenge.id)
            .limit(50)
        )
        views = [challenge_view(ctx.session, c) for c in ctx.session.exec(query)]
        ctx.reply("open.txt", challenges=views, bots=_bots(ctx))


@register
class Board(Command):
    """Send the current board of a game.

    Write: board      (in a reply to a game's mail, or if you have one game)
       or: board 42   (game #42)
    """

    name = "board"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("board [ID]")
    summary = N_("the current board of a game")
    takes_game = True

    def run(self, ctx: Context, call: Call) -> None:
        game = call.game
        ctx.reply("board.txt", game=game_view(ctx.session, game, ctx.player))


SHORT_HISTORY = 10  # moves a plain `history` shows: a phone screen, not the whole game


@register
class History(Command):
    """Send the last moves of a game, or all of them with "full".

    Write: history      or: history 42
       or: history 42 full   (every move since the start)
    """

    name = "history"
    aliases = ("moves",)
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("history [ID] [full]")
    summary = N_("the moves of a game so far")
    takes_game = True

    def run(self, ctx: Context, call: Call) -> None:
        game = call.game
        p0, p1 = G.players(ctx.session, game)
        said = remarks.by_ply(ctx.session, game)  # each after its move; ply 0: before the first
        moves = [
            {"ply": m.ply, "by": (p0, p1)[m.side].name, "notation": m.notation, "at": m.created_at,
             "remarks": _remarks(said.get(m.ply, []))}
            for m in G.moves(ctx.session, game)
        ]
        full = any(word.lower() in ("full", "all") for word in call.args)
        shown = moves if full else moves[-SHORT_HISTORY:]
        ctx.reply(
            "history.txt", game=game_view(ctx.session, game, ctx.player), moves=shown,
            hidden=len(moves) - len(shown), before=_remarks(said.get(0, [])) if len(shown) == len(moves) else [],
        )


def _remarks(said: list[tuple[str, str]]) -> list[dict]:
    """The remarks of one move as `history` shows them: who, and their words quoted."""
    return [{"by": name, "lines": remarks.quoted(text, width=60)} for name, text in said]
