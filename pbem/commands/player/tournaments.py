"""Tournaments by mail: the list open for sign-up, join, leave, one tournament's table, a ladder's challenge."""

from __future__ import annotations

import pbem_engine
from pbem.commands.lines.args import game_id
from pbem.commands.lines.base import Call, Command, CommandError, Context, register
from pbem.core.models import Tournament
from pbem.core.wallclock import now
from pbem.games import clock
from pbem.letters.views import title
from pbem.text.i18n import N_
from pbem.tournaments import ladder as ladders
from pbem.tournaments import tournament as T
from pbem.tournaments.table import entries, view
from pbem_engine.common.phrases import phrase


def _tournament(ctx: Context, call: Call, example: str, *, lock: bool = False) -> Tournament:
    """The tournament the line names by number, else a reply that shows the form."""
    number = game_id(call.args[0]) if len(call.args) == 1 else None
    if number is None:
        raise CommandError(
            phrase("Please name the tournament by its number."),
            phrase("Write e.g. {example}; {command} lists those open for sign-up.", example=example,
                   command="tournaments"),
            code="tournament.number",
        )
    return T.get(ctx.session, number, lock=lock)


def _game(tournament: Tournament) -> object:
    """The tournament's game as its list shows it: with the board size and the capture target
    where the game has them ("capture go 9x9, first to 3 captures")."""
    try:
        return pbem_engine.create(tournament.kind, tournament.options).describe()
    except pbem_engine.EngineError:  # options a newer engine no longer takes: the game's name alone
        return title(pbem_engine.lookup(tournament.kind))


def _summary(ctx: Context, tournament: Tournament) -> dict:
    return {
        "id": tournament.id, "name": tournament.name, "format": tournament.format, "status": tournament.status,
        "title": _game(tournament), "days": tournament.days, "clock": clock.control(tournament).describe() if tournament.clock else None, "rounds": tournament.rounds,
        "reach": tournament.reach, "players": sum(not e.withdrawn for e in entries(ctx.session, tournament)),
    }


@register
class Tournaments(Command):
    """The tournaments open for sign-up: their game, format, time control and players so far.

    Write: tournaments
    """

    name = "tournaments"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("tournaments")
    summary = N_("the tournaments open for sign-up")
    max_args = 0

    def run(self, ctx: Context, call: Call) -> None:
        found = [_summary(ctx, t) for t in T.open_for_signup(ctx.session)]
        ctx.reply("tournaments.txt", tournaments=found)


@register
class Join(Command):
    """Sign up for a tournament that is open; its games begin when the operator starts it.

    Write: join 3
    """

    name = "join"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("join TOURNAMENT")
    summary = N_("sign up for a tournament")
    requires_proof = True
    needs_current_records = True
    max_args = 1

    def run(self, ctx: Context, call: Call) -> None:
        tournament = _tournament(ctx, call, "join 3", lock=True)
        entry = T.join(ctx.session, tournament, ctx.player, now())
        ctx.reply("tournament_joined.txt", tournament=_summary(ctx, tournament), place=entry.seed)


@register
class Leave(Command):
    """Take your name off a tournament you joined; once it has started, withdraw from it (your
    game in progress goes to your opponent, the rest are forfeits).

    Write: leave 3
    """

    name = "leave"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("leave TOURNAMENT")
    summary = N_("take your name off a tournament, or withdraw from it")
    requires_proof = True
    needs_current_records = True
    max_args = 1

    def run(self, ctx: Context, call: Call) -> None:
        tournament = _tournament(ctx, call, "leave 3", lock=True)
        letters = T.leave(ctx.session, tournament, ctx.player, now())
        if letters:  # it had started: withdrawn, the reply among the letters
            ctx.add(letters)
        else:
            ctx.reply("tournament_left.txt", tournament=_summary(ctx, tournament))


@register
class TournamentCommand(Command):
    """A tournament's standings, its crosstable and the games of the current round.

    Write: tournament 3
    """

    name = "tournament"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("tournament TOURNAMENT")
    summary = N_("the standings and games of a tournament")
    max_args = 1

    def run(self, ctx: Context, call: Call) -> None:
        tournament = _tournament(ctx, call, "tournament 3")
        ctx.reply("tournament.txt", tournament=view(ctx.session, tournament, ctx.player),
                  summary=_summary(ctx, tournament))


@register
class LadderChallenge(Command):
    """A challenge to a player above you on a ladder, by their place, address or name: the
    game starts at once. Alone, the ladder's places and whom you may challenge.

    Write: ladder 3 5     (on ladder 3, the player in place 5)
    or:    ladder 3
    """

    name = "ladder"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("ladder TOURNAMENT [PLACE]")
    summary = N_("a challenge up the ladder: a game with a player above you")
    requires_proof = True
    needs_current_records = True  # a replayed old challenge must not start a game again
    max_args = 4  # a name of up to three words

    def run(self, ctx: Context, call: Call) -> None:
        if not call.args:
            raise CommandError(
                phrase("Please name the ladder by its number, and whom you challenge."),
                phrase("Write e.g. {example}; {command} lists those open for sign-up.", example="ladder 3 5",
                       command="tournaments"),
                code="tournament.number",
            )
        tournament = _tournament(ctx, Call(call.line, call.args[:1]), "ladder 3 5", lock=True)
        if len(call.args) == 1:
            ctx.reply("tournament.txt", tournament=view(ctx.session, tournament, ctx.player),
                      summary=_summary(ctx, tournament))
            return
        game, letters = ladders.challenge(ctx.session, tournament, ctx.player, " ".join(call.args[1:]),
                                          ctx.settings.reminders, now(), trial=ctx.trial,
                                          per_day=ctx.settings.max_ladder_challenges_per_pair_per_day)
        if game is not None:
            ctx.game_hint = game.id
            ctx.add(letters)
