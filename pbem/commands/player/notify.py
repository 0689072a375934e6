"""`notify`: a mail per move, or one digest a day; and the mails of watched games."""

from __future__ import annotations

from pbem.commands.lines.base import Call, Command, Context, register
from pbem.core.errors import CommandError
from pbem.core.wallclock import aware, now
from pbem.games import zones
from pbem.letters import digest
from pbem.text.i18n import N_
from pbem_engine.common.phrases import phrase

MODES = ("each", "digest", "off")


@register
class Notify(Command):
    """Choose when my mails about your games come: "each" (the default) sends a mail after
    every move; "digest" sends one mail a day, at the time you give (in your time zone), with
    every game where it is your move; "off" stops the mail per move of the games you watch.
    Game starts and ends, draw offers and deadline reminders always come.

    Write: notify digest 08:00
       or: notify each
       or: notify off
       or: notify
    """

    name = "notify"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("notify [each|digest HH:MM|off]")
    summary = N_("a mail per move, one digest a day, or no mail of watched games")
    max_args = 2

    requires_proof = True  # a setting of the sender's own, as format and timezone are
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        args = [a.lower() for a in call.args]
        player, at = ctx.player, now()
        if not args:
            self._reply(ctx)
            return
        mode = args[0]
        if mode not in MODES or (mode != "digest" and len(args) > 1):
            raise CommandError(
                phrase("Please say how you want my mails: {each}, {digest} with a time, or {off}.",
                       each="each", digest="digest", off="off"),
                phrase("Write e.g. {example} or {other}.", example="notify digest 08:00", other="notify each"),
                code="notify.unknown", params={"given": " ".join(call.args)[:40]},
            )
        if mode == "digest":
            hhmm = digest.parse_time(args[1]) if len(args) == 2 else None
            if hhmm is None:
                raise CommandError(
                    phrase("Please give the time of day for your digest, as hours and minutes."),
                    phrase("Write e.g. {example}.", example="notify digest 08:00"),
                    code="notify.time", params={"given": " ".join(call.args[1:])[:40]},
                )
            if player.notify != "digest":
                player.digest_sent_at = at  # what came before came mail by mail
            player.notify, player.digest_at = "digest", hhmm
        elif mode == "each":
            player.notify, player.digest_at, player.watch_mail = "each", None, True
        else:
            player.watch_mail = False
        digest.schedule(player, at)
        ctx.session.add(player)
        self._reply(ctx)

    @staticmethod
    def _reply(ctx: Context) -> None:
        player = ctx.player
        due = aware(player.digest_due_at)
        ctx.reply(
            "notify.txt",
            mode=player.notify,
            at=player.digest_at,
            zone=player.timezone,
            next=zones.local(due, zones.zone(player.timezone)) if due is not None else None,
            watch=player.watch_mail,
        )
