"""Commands about the player themself."""

from __future__ import annotations

from pbem.commands.lines.base import NO_PROOF, Call, Command, Context, register
from pbem.core.errors import CommandError
from pbem.games import players
from pbem.letters.views import sample_views
from pbem.text.i18n import N_
from pbem.trust import proof as trust
from pbem_engine.common.phrases import phrase


@register
class Name(Command):
    """Set the name other players see in your games' mails.

    Write: name Alice Smith
    The name may have letters, digits, spaces and - . ' (at most 40 characters).
    """

    name = "name"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("name NEW NAME")
    summary = N_("set the name shown to other players")

    requires_proof = True
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        args = call.args
        new = " ".join(args)
        if not new:
            raise CommandError(
                phrase("Please give the name you want."), phrase("Write e.g. {example}.", example="name Alice Smith")
            )
        fault = players.name_fault(new, players.reserved_names(ctx.settings))
        if fault == "shape":
            raise CommandError(
                phrase('"{name}" cannot be a name here: use at most 40 letters, digits, spaces and - . \'', name=new[:60]),
                phrase("Write e.g. {example}.", example="name Alice Smith"),
            )
        if fault == "reserved":
            raise CommandError(
                phrase('"{name}" reads like the name of this server: please choose another.', name=new[:60]),
                phrase("Write e.g. {example}.", example="name Alice Smith"),
                code="name.reserved",
            )
        if fault == "bot":
            raise CommandError(
                phrase('"{name}" reads like the name of one of my bots: please choose another.', name=new[:60]),
                phrase("Write e.g. {example}.", example="name Alice Smith"),
                code="name.bot",
            )
        old, ctx.player.name = ctx.player.name, new
        ctx.session.add(ctx.player)
        ctx.reply("named.txt", old=old, new=new)


@register
class Address(Command):
    """Your personal address: a mail you write to it from scratch is trusted as a reply to one of
    my mails is. Keep it as a contact, and tell it to nobody: "address new" gives you a new one
    and the old one stops working at once.

    Write: address
       or: address new
    """

    name = "address"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("address [new]")
    summary = N_("your personal address, to write to me from scratch")
    max_args = 1

    def run(self, ctx: Context, call: Call) -> None:
        renew = [a.lower() for a in call.args] == ["new"]
        if call.args and not renew:
            raise CommandError(
                phrase("Write {address} to see your personal address, or {new} for a new one.",
                       address="address", new="address new"),
                phrase("Write e.g. {example}.", example="address new"),
                code="address.unknown", params={"given": " ".join(call.args)[:40]},
            )
        if renew:
            if ctx.evidence.proof is None:
                raise NO_PROOF  # the reply goes to the From address, but a forger must not replace it
            ctx.player.contact = None
        ctx.reply("address.txt", address=trust.personal_address(ctx.settings, ctx.player), new=renew, first=False)
        ctx.session.add(ctx.player)


FORMATS = ("html", "text")


@register
class Format(Command):
    """Choose how my mails come: "html" (the default) sends each mail as plain text with an HTML
    version beside it, where the boards are drawn as tables; "text" sends the plain text alone.

    Write: format html
       or: format text
    """

    name = "format"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("format html|text")
    summary = N_("mails with an HTML board (html), or plain text only (text)")
    max_args = 1

    requires_proof = True  # a setting of the sender's own, as name and timezone are
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        args = [a.lower() for a in call.args]
        if len(args) != 1 or args[0] not in FORMATS:
            raise CommandError(
                phrase("Please say which format you want: {html} or {text}.", html="html", text="text"),
                phrase("Write e.g. {example}.", example="format text"),
                code="format.unknown", params={"given": " ".join(call.args)[:40]},
            )
        old, ctx.player.format = ctx.player.format, args[0]
        ctx.session.add(ctx.player)
        ctx.reply("format.txt", old=old, new=args[0])


#: `public yes|no`: the words for yes and no, in every language (compared folded)
PUBLIC_WORDS = {
    "yes": ("yes", "on", "si", "sì", "да", "так", "예", "네", "是"),
    "no": ("no", "off", "нет", "ні", "아니요", "아니오", "否"),
}


@register
class Public(Command):
    """Choose whether your games may be listed on the web pages: on your player page, in
    the feeds, in the tournament tables. A game is listed only when both its players said yes;
    it is "no" until you say otherwise. Each game's own page can always be opened by whoever
    has its link (it is in every mail about the game), and no page ever shows an address.

    Write: public yes
       or: public no
    """

    name = "public"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("public yes|no")
    summary = N_("whether your games are listed on the web pages")
    max_args = 1

    requires_proof = True  # a setting of the sender's own, as format is
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        given = call.args[0].casefold() if len(call.args) == 1 else ""
        choice = next((key for key, words in PUBLIC_WORDS.items() if given in words), None)
        if choice is None:
            raise CommandError(
                phrase("Please say {yes} or {no}.", yes="public yes", no="public no"),
                phrase("Write e.g. {example}.", example="public yes"),
                code="public.unknown", params={"given": " ".join(call.args)[:40]},
            )
        ctx.player.public = choice == "yes"
        ctx.session.add(ctx.player)
        ctx.reply("public.txt", public=ctx.player.public)


@register
class Display(Command):
    """Send a sample board of each game, to check that my mails look right in your mail program.

    Write: display
    """

    name = "display"
    aliases = ("test",)
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("display")
    summary = N_("a sample board of each game, to check how my mails look")
    max_args = 0

    def run(self, ctx: Context, call: Call) -> None:
        ctx.reply("display.txt", samples=sample_views(), format=ctx.player.format)
