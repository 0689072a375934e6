"""Time: the player's zone, vacations, and the time-control options of a challenge."""

from __future__ import annotations

from datetime import datetime

from pbem.commands.lines.base import Call, Command, Context, register
from pbem.core.errors import CommandError
from pbem.core.wallclock import now
from pbem.games import clock, vacations, zones
from pbem.games import store as G
from pbem.letters import digest, notify
from pbem.letters.views import game_view
from pbem.text.i18n import N_
from pbem_engine.common.phrases import phrase


def time_control(ctx: Context, options: dict[str, str]) -> tuple[int, bool, str | None]:
    """Take `days=`, `clock=` and `weekends=` out of a challenge's options: (days per move,
    weekends off, the `clock=` notation or None for days per move)."""
    days, notation = options.pop("days", None), None
    if "clock" in options:
        chosen, notation = clock.parse_clock(options.pop("clock"), days)
        days = str(chosen) if chosen is not None else None
    per_move, weekends_off = clock.time_control(days, options.pop("weekends", None), ctx.settings.default_days)
    return per_move, weekends_off, notation


def _tell_opponents(ctx: Context, event: str, until: datetime | None = None) -> int:
    """Tell the opponent of each of the player's games (in their zone); returns how many games."""
    active = G.active_games(ctx.session, ctx.player)
    for game in active:
        opponent = G.opponent(ctx.session, game, ctx.player)
        shown = zones.local(until, zones.zone(opponent.timezone)) if until is not None else None
        ctx.add(notify.tell(ctx.session, event, game, ctx.player, away=ctx.player.name, until=shown))
    return len(active)


@register
class Timezone(Command):
    """Set your time zone: deadlines are shown in it, and weekends off follow it.

    Write: timezone Europe/Rome
       or: timezone America/New_York
    Until you set one, times are in UTC.
    """

    name = "timezone"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("timezone ZONE")
    summary = N_("show deadlines in your time zone")

    requires_proof = True
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        if len(args) != 1:
            raise CommandError(
                phrase("Please give one time zone, written as Region/City."),
                phrase("Write e.g. {example} or {other}.", example="timezone Europe/Rome", other="timezone America/New_York"),
            )
        name = zones.parse_zone(args[0])
        ctx.player.timezone = name
        ctx.session.add(ctx.player)
        ctx.session.flush()
        clock.reschedule_player(ctx.session, ctx.player, ctx.settings.reminders)  # weekends off follow the zone
        digest.schedule(ctx.player, now())  # the digest keeps its time on the new zone's clock
        games = [game_view(ctx.session, g, ctx.player) for g in G.active_games(ctx.session, ctx.player)]
        ctx.reply("timezone.txt", zone=name, local=zones.local(now(), zones.zone(name)), games=games)


@register
class Vacation(Command):
    """Pause the clocks of all your games for some days, starting now.

    Write: vacation 10
    You may still move while away; your opponents are told. Write back to end it early:
    the days you did not use go back to your allowance for the year.
    """

    name = "vacation"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("vacation DAYS")
    summary = N_("pause your clocks for some days")

    requires_proof = True
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        if len(args) != 1 or not args[0].isdigit():
            raise CommandError(
                phrase("Please give the number of days, as a whole number."),
                phrase("Write e.g. {example}.", example="vacation 10"),
            )
        settings, at = ctx.settings, now()
        allowance = settings.vacation_days_per_year
        vacation = vacations.start_vacation(ctx.session, ctx.player, int(args[0]), at, allowance)
        clock.reschedule_player(ctx.session, ctx.player, settings.reminders)
        until = zones.local(vacation.ends_at, zones.zone(ctx.player.timezone))
        games = _tell_opponents(ctx, "away", vacation.ends_at)
        ctx.reply(
            "vacation.txt",
            days=int(args[0]),
            until=until,
            games=games,
            remaining=allowance - vacations.days_used(ctx.session, ctx.player, at.year),
        )


@register
class Back(Command):
    """End your vacation early: your clocks run again from now.

    Write: back
    """

    name = "back"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("back")
    summary = N_("end your vacation early")

    requires_proof = True
    needs_current_records = True
    max_args = 0

    def run(self, ctx: Context, call: Call) -> None:
        at = now()
        vacations.end_vacation(ctx.session, ctx.player, at)
        clock.reschedule_player(ctx.session, ctx.player, ctx.settings.reminders)
        games = _tell_opponents(ctx, "back")
        ctx.reply(
            "back.txt",
            games=games,
            remaining=ctx.settings.vacation_days_per_year - vacations.days_used(ctx.session, ctx.player, at.year),
        )
