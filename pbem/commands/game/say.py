"""`say`: words to the opponent (and the game's watchers), relayed quoted, kept with the move.

`say off` / `say on` are the sender's own setting (whether the opponents' messages reach
them): they change the player's records, so a stale mail may not flip them. The check is
made here rather than by the class flag, because a plain `say` changes no setting and must
not make the sender's older mails stale.
"""

from __future__ import annotations

import re

from pbem.commands.lines.args import split_game
from pbem.commands.lines.base import STALE, Call, Command, Context, register
from pbem.core.errors import CommandError
from pbem.core.models import Game, Player
from pbem.core.wallclock import now
from pbem.games import remarks
from pbem.games import store as G
from pbem.games.bots import is_bot
from pbem.letters import notify
from pbem.letters.views import game_view
from pbem.text.i18n import N_
from pbem_engine.common.phrases import nphrase, phrase

_SWITCH = {"off": False, "on": True}


@register
class Say(Command):
    """Send a message to your opponent: it reaches them (and the game's watchers) quoted, in
    their next mail about the game, and it is kept with your move in the game's record.

    Write: say Good luck!         (in a reply to the game's mail, or with your move)
       or: say 42 Thanks for the game.
       or: say off    (opponents' messages no longer reach you; say on to have them again)
    """

    name = "say"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("say [ID] TEXT")
    # TRANSLATORS: "say off" is a command and stays as it is
    summary = N_("a message to your opponent (say off: none to you)")
    requires_proof = True

    def run(self, ctx: Context, call: Call) -> None:
        if len(call.args) == 1 and call.args[0].lower() in _SWITCH:
            _switch(ctx, _SWITCH[call.args[0].lower()])
            return
        game_id, rest = split_game(call.args)
        if not rest:
            raise CommandError(
                phrase("Please write your message after the word {command}.", command="say"),
                phrase("Write e.g. {example}.", example="say Good luck!"),
                code="say.missing",
            )
        game = G.find_game(ctx.session, ctx.player, game_id, ctx.game_hint)
        words = re.split(r"\s+", call.line.strip(), maxsplit=2 if game_id is not None else 1)
        relay(ctx, game, remarks.clean(words[-1]))


def _switch(ctx: Context, on: bool) -> None:
    """`say on|off`: a change of the sender's own records (so refused from a stale mail)."""
    if ctx.evidence.stale:
        raise STALE
    ctx.player.relay = on
    ctx.player.version += 1  # a mail we sent before this change no longer acts on the records
    ctx.session.add(ctx.player)
    ctx.reply("said_switch.txt", relay=on)


def relay(ctx: Context, game: Game, text: str) -> None:
    """Store the remark (or add the line to this mail's remark) and relay it to whoever wants it."""
    settings, at = ctx.settings, now()
    if not text:
        raise CommandError(
            phrase("Your message has nothing left in it once made plain text."),
            phrase("Write e.g. {example}.", example="say Good luck!"),
            code="say.empty",
        )
    earlier = remarks.of_mail(ctx.session, game, ctx.player, ctx.envelope.message_id)
    whole = f"{earlier.text}\n{text}" if earlier is not None else text
    if len(whole) > settings.say_max_chars:
        raise CommandError(
            nphrase(
                "Your message is {n} character long; the most I relay is {limit}.",
                "Your message is {n} characters long; the most I relay is {limit}.",
                len(whole), limit=settings.say_max_chars,
            ),
            phrase("Nothing was stored or relayed: write it shorter, or in a few mails."),
            code="say.too_long", params={"length": len(whole), "limit": settings.say_max_chars},
        )
    if earlier is not None:  # one message of several lines: the letters already made show it all
        earlier.text = whole
        ctx.session.add(earlier)
        for letter in ctx.letters:
            if letter.data.get("remark") == earlier.id and "lines" in letter.data:
                letter.data["lines"][:] = remarks.quoted(whole)
        return
    if remarks.sent_today(ctx.session, ctx.player, at) >= settings.say_max_per_day:
        raise CommandError(
            nphrase(
                "You have relayed {n} message today, the most I relay in a day.",
                "You have relayed {n} messages today, the most I relay in a day.",
                settings.say_max_per_day,
            ),
            phrase("Nothing was stored or relayed; write it again tomorrow (UTC)."),
            code="say.too_many", params={"limit": settings.say_max_per_day},
        )
    opponent = G.opponent(ctx.session, game, ctx.player)
    pair_limit = settings.max_relays_per_pair_per_day
    if remarks.relayed_to_today(ctx.session, ctx.player, opponent, at) >= pair_limit:
        raise CommandError(
            nphrase(
                "You have relayed {n} message to {name} today, the most I relay to one opponent in a day.",
                "You have relayed {n} messages to {name} today, the most I relay to one opponent in a day.",
                pair_limit, name=opponent.name,
            ),
            phrase("Nothing was stored or relayed; write it again tomorrow (UTC)."),
            code="say.too_many_to", params={"limit": pair_limit},
        )
    remark = remarks.store(ctx.session, game, ctx.player, text, ctx.envelope.message_id, at)
    lines = remarks.quoted(text)
    letters = [
        letter
        for letter in notify.tell(ctx.session, "said", game, ctx.player, remark=remark.id, by=ctx.player.name,
                                  to=opponent.name, lines=lines)
        if _reached(letter.player) is None
    ]
    for letter in letters:
        letter.record = None  # a message sends no record, even in a finished game
    ctx.add(letters)
    watchers = sum(1 for letter in letters if letter.player.id != opponent.id)
    ctx.reply(
        "said_sent.txt", game=game_view(ctx.session, game, ctx.player), opponent=opponent.name, watchers=watchers, remark=remark.id,
        why=_reached(opponent),
    )


def _reached(player: Player) -> str | None:
    """Why a relayed message would not reach `player`, or None: "off" (they wrote `say off`),
    "bot" (a program reads no mail), "mail" (no mail goes to them: they wrote `stop`, their
    address bounces, or they are banned). The sender is told which, never that it reached them."""
    if is_bot(player):
        return "bot"
    if not player.relay:
        return "off"
    if player.silent or player.banned:
        return "mail"
    return None
