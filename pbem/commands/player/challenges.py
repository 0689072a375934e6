"""Starting games: challenge (a person, anyone, or a bot), accept, decline, withdraw."""

from __future__ import annotations

import difflib
import random
import shlex

import pbem_engine
from pbem.commands.lines.args import require_id
from pbem.commands.lines.base import Call, Command, Context, register
from pbem.commands.lines.words import game as game_name
from pbem.commands.lines.words import is_bot as names_bot
from pbem.commands.lines.words import option as option_name
from pbem.commands.player.time import time_control
from pbem.core.errors import CommandError
from pbem.core.models import Challenge, Player
from pbem.core.wallclock import now
from pbem.games import bots as bots_players
from pbem.games import clock, players
from pbem.games import store as G
from pbem.letters import notify
from pbem.letters.views import challenge_view, title
from pbem.text.i18n import N_
from pbem.trust import proof as trust
from pbem_engine.common.phrases import Phrase, nphrase, phrase

SERVICE_OPTIONS = ("variant", "colour", "days", "clock", "weekends", "takebacks")


def _split_options(words: list[str]) -> tuple[list[str], dict[str, str]]:
    plain, options = [], {}
    for word in words:
        if "=" in word:
            key, _, value = word.partition("=")
            options[option_name(key)] = value.strip()
        else:
            plain.append(word)
    return plain, options


def _choose_kind(name: str, variant: str | None) -> type[pbem_engine.Rules]:
    cls = pbem_engine.lookup(game_name(name))
    if variant is None:
        return cls
    chosen = pbem_engine.lookup(game_name(variant))
    if chosen.family != cls.family:
        same = [n for n in pbem_engine.names() if pbem_engine.lookup(n).family == cls.family]
        raise CommandError(
            phrase("{variant} is not a variant of {title}.", variant=title(chosen), title=title(cls)),
            phrase("The variants of {title} are: {variants}.", title=title(cls), variants=", ".join(same)),
        )
    return chosen


def _colour(cls: type[pbem_engine.Rules], wish: str) -> str:
    wish = wish.lower()
    allowed = ("random", "first", "second", *cls.sides)
    if wish not in allowed:
        raise CommandError(
            phrase("{option} is not a colour in {title}.", option=f"colour={wish[:20]}", title=title(cls)),
            phrase("Write {option} one of: {choices}.", option="colour=", choices=", ".join(allowed)),
        )
    return wish


def _takebacks(value: str | None) -> bool:
    """The `takebacks=` option: whether the players may ask to take back a move (on unless off).
    A service option like `days=`, so the engine never sees it."""
    if value is None:
        return True
    word = value.strip().lower()
    if word not in ("off", "on"):
        raise CommandError(
            phrase("{option} means nothing to me.", option=f"takebacks={value[:10]}"),
            phrase(
                "Write {off} to allow no take-backs in the game ({on} is the default).",
                off="takebacks=off", on="takebacks=on",
            ),
            code="challenge.takebacks", params={"value": value[:10]},
        )
    return word == "on"


def _hint(exc: pbem_engine.EngineError, plain: list[str]) -> Phrase:
    """What to write instead: the nearest game to an unknown name (pointing to its rules would
    fail too), else the rules of the named game, which list its options."""
    if exc.code == "game.unknown":
        wrong = str(exc.params.get("name", plain[0])).lower()
        near = [n for n in pbem_engine.names() if len(wrong) > 1 and wrong in n]
        near = near or difflib.get_close_matches(wrong, pbem_engine.names(), n=1, cutoff=0.6)
        rest = " ".join(["challenge", near[0] if near else pbem_engine.names()[0], *plain[1:2]])
        if near:
            return phrase("Did you mean {game}? Write e.g. {example}.", game=near[0], example=rest)
        return phrase("Write e.g. {example}.", example=rest)
    return phrase("Write {example} to see the options.", example=f"rules {plain[0][:20]}")


@register
class ChallengeCommand(Command):
    """Invite someone to a game, or post an open challenge that anyone may accept.

    Write: challenge ataxx bob@example.org
       or: challenge capturego bob@example.org size=13 target=5 colour=black
       or: challenge ataxx variant=infection blocks=cross   (open to anyone)
       or: challenge ataxx bot level=2   (a bot, level 1 to 3, accepts at once)
    Options: variant= ({variants}), colour= (your
    side, or first, second, random), days= (per move, 1 to 30, default 7), weekends=off (the
    clock stops on Saturdays and Sundays), takebacks=off (no take-back may be asked in the
    game), and the game's own options, which "rules GAME" lists.
    """

    name = "challenge"
    aliases = ("newgame",)
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("challenge GAME [OPPONENT] [option=value ...]")
    summary = N_("invite someone to a game, or anyone")

    requires_proof = True
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        try:
            words = shlex.split(call.line)[1:]
        except ValueError:
            words = call.args
        plain, options = _split_options(words)
        if not plain:
            raise CommandError(
                phrase("Please name the game."), phrase("Write e.g. {example}.", example="challenge ataxx bob@example.org")
            )
        if len(plain) == 2 and names_bot(plain[1]):
            _challenge_bot(ctx, plain, options)
            return
        addresses = [w.strip("<>,;").lower() for w in plain[1:]]
        if len(addresses) > 1 or (addresses and not players.is_address(addresses[0])):
            raise CommandError(
                phrase('I read "{given}" as the opponent, but it is not one email address.', given=" ".join(plain[1:])[:80]),
                phrase(
                    "Write e.g. {example}, or leave the address out for an open challenge.",
                    example="challenge ataxx bob@example.org",
                ),
            )
        days, weekends_off, takebacks, cls, colour, rules, notation = _terms(ctx, plain, options)
        opponent: Player | None = None
        if addresses:
            target = addresses[0]
            if target == ctx.player.address:
                raise CommandError(phrase("You cannot challenge yourself."), phrase("Name another player's address."))
            if target == ctx.settings.address.lower():
                raise CommandError(phrase("I do not play myself; challenge a person."), "")
            if bots_players.is_bot_address(target):
                raise CommandError(
                    phrase("{address} is a bot: it takes no challenge by its address.", address=target[:80]),
                    phrase("Write e.g. {example}.", example=f"challenge {plain[0][:20]} bot level=2"),
                    code="challenge.bot_address",
                )
            _may_invite(ctx, target, cls)
            if ctx.trial:
                return  # checked; numbers that players see are not spent on a trial
            opponent = players.get_or_register(ctx.session, target, now())
        if ctx.trial:
            return
        challenge = Challenge(
            kind=cls.name,
            options=rules.options,
            colour=colour,
            challenger_id=ctx.player.id,
            opponent_id=opponent.id if opponent else None,
            created_at=now(),
            days=days,
            weekends_off=weekends_off,
            takebacks=takebacks,
            clock=notation,
        )
        ctx.session.add(challenge)
        ctx.session.flush()
        view = challenge_view(ctx.session, challenge)
        ctx.reply("challenged.txt", challenge=view)
        if opponent is not None:
            ctx.send("challenge_received.txt", opponent, challenge=view)


def _may_invite(ctx: Context, address: str, cls: type[pbem_engine.Rules]) -> None:
    """Refuse a challenge that would make us mail someone who did not ask for it: an address
    that said `stop` or that bounces, and beyond the caps on addresses that never wrote (`trust.invitations_left`)."""
    target = players.find(ctx.session, address)
    instead = phrase("You can post an open challenge instead: write {example}.", example=f"challenge {cls.name}")
    if target is not None and target.stopped_at is not None:
        raise CommandError(
            phrase("{address} has asked to get no mail from this server, so I send them no challenge.",
                   address=address[:80]),
            instead, code="challenge.stopped", params={"address": address[:80]},
        )
    if target is not None and target.bounced_at is not None:  # pbem.letters.bounces: the invitation would not arrive
        raise CommandError(
            phrase("Our mails to {address} keep coming back undelivered, so I send them no challenge.",
                   address=address[:80]),
            instead, code="challenge.unreachable", params={"address": address[:80]},
        )
    if not trust.stranger(target):
        return
    allowed = trust.invitations_left(ctx.session, ctx.settings, ctx.player, target, now())
    if allowed.waiting is not None:
        raise CommandError(
            phrase("{address} has never written to me and has not yet answered challenge #{challenge}: I send "
                   "one invitation at a time to such an address.", address=address[:80], challenge=allowed.waiting),
            phrase("Nothing was sent. Once they answer it, or write to me, they can be challenged again."),
            code="challenge.waiting", params={"address": address[:80], "challenge": allowed.waiting},
        )
    if allowed.left <= 0:
        limit = ctx.settings.max_invitations_per_day
        raise CommandError(
            nphrase("You have invited {n} address that never wrote to me today, the most I send for one player "
                    "in a day.",
                    "You have invited {n} addresses that never wrote to me today, the most I send for one player "
                    "in a day.", limit),
            phrase("Nothing was sent. You can invite a new address again after midnight (UTC); players who have "
                   "written to me can be challenged at any time."),
            code="challenge.invitations", params={"limit": limit},
        )


def _terms(ctx: Context, plain: list[str], options: dict[str, str]) -> tuple:
    """The challenge's time control, take-backs, game, colour, rules and `clock=`, from its words."""
    days, weekends_off, notation = time_control(ctx, options)
    takebacks = _takebacks(options.pop("takebacks", options.pop("takeback", None)))
    try:
        cls = _choose_kind(plain[0], options.pop("variant", None))
        colour = _colour(cls, options.pop("colour", "random"))
        rules = cls(options)
    except pbem_engine.EngineError as exc:
        raise CommandError(exc.message, exc.hint or _hint(exc, plain), code=exc.code, params=exc.params) from None
    return days, weekends_off, takebacks, cls, colour, rules, notation


def _level(value: str | None) -> int:
    """The `level=` of a challenge to a bot: 1 (a beginner can win) to 3 (the strongest)."""
    if value is None:
        return bots_players.DEFAULT_LEVEL
    if value.strip() not in ("1", "2", "3"):
        raise CommandError(
            phrase("{option} is not a level a bot plays.", option=f"level={value[:10]}"),
            phrase("Write {option} 1, 2 or 3 (3 plays the strongest).", option="level="),
            code="challenge.bot_level", params={"value": value[:10]},
        )
    return int(value)


def _challenge_bot(ctx: Context, plain: list[str], options: dict[str, str]) -> None:
    """`challenge GAME bot [level=N]`: the bot accepts at once, and the game starts with the
    challenge's options, colour and time control. A bot never challenges: bots never meet."""
    if not bots_players.enabled(ctx.session, ctx.settings):
        raise CommandError(
            phrase("The bots are switched off on this server for now, so I cannot start a game against one."),
            phrase("Challenge a person, or write {open} to see open challenges.", open="open"),
            code="challenge.bots_off",
        )
    level = _level(options.pop("level", None))
    days, weekends_off, takebacks, cls, colour, rules, notation = _terms(ctx, plain, options)
    if not bots_players.plays(rules):
        raise CommandError(
            phrase("No bot plays {title} yet.", title=title(cls)),
            phrase("Challenge a person, or write {open} to see open challenges.", open="open"),
            code="challenge.no_bot",
        )
    if ctx.trial:
        return  # checked; numbers that players see are not spent on a trial
    at = now()
    bot = bots_players.bot_player(ctx.session, cls.name, level, at)
    challenge = Challenge(
        kind=cls.name, options=rules.options, colour=colour, challenger_id=ctx.player.id, opponent_id=bot.id,
        created_at=at, days=days, weekends_off=weekends_off, takebacks=takebacks, clock=notation,
    )
    ctx.session.add(challenge)
    ctx.session.flush()
    first = ctx.player if _challenger_first(cls, colour) else bot
    game = G.start(ctx.session, challenge, bot, first, at)
    ctx.game_hint = game.id
    letters = notify.tell(ctx.session, "started", game, bot, challenge_id=challenge.id)
    for letter in letters:
        letter.reply = letter.player.id == ctx.player.id  # the game's first mail answers the challenge
    ctx.add(letters)
    clock.reschedule(ctx.session, game, ctx.settings.reminders, fresh=True)  # the bot on move: the runner plays


def _challenger_first(cls: type[pbem_engine.Rules], wish: str) -> bool:
    """Whether the challenger moves first, as they wished (a random wish drawn here)."""
    if wish == "random":
        wish = random.SystemRandom().choice(("first", "second"))
    return wish == "first" or wish == cls.sides[0]


def _challenge(ctx: Context, args: list[str], syntax: str) -> Challenge:
    if not args and (shown := trust.challenge_shown(ctx.session, ctx.player, ctx.envelope, ctx.evidence)) is not None:
        args = [str(shown)]
    number = require_id(args, syntax)
    challenge = ctx.session.get(Challenge, number)
    if challenge is None:
        raise CommandError(
            phrase("There is no challenge #{challenge}.", challenge=number),
            phrase("Write {open} or {games} to see challenges.", open="open", games="games"),
        )
    if challenge.status != "open":
        raise CommandError(
            phrase("Challenge #{challenge} is no longer open (it was accepted).", challenge=number)
            if challenge.status == "accepted"
            else phrase("Challenge #{challenge} is no longer open (it was declined).", challenge=number)
            if challenge.status == "declined"
            else phrase("Challenge #{challenge} is no longer open (it was withdrawn).", challenge=number)
            if challenge.status == "withdrawn"
            else phrase("Challenge #{challenge} is no longer open (it was {status}).", challenge=number, status=challenge.status),
            "",
        )
    return challenge


@register
class Accept(Command):
    """Say yes to a challenge: the game starts and both players get the board.

    Write: accept 12     (the challenge's number, from its mail or from open)
    """

    name = "accept"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("accept ID")
    summary = N_("take up a challenge; the game starts")
    requires_proof = True

    def run(self, ctx: Context, call: Call) -> None:
        challenge = _challenge(ctx, call.args, "accept 12")
        if challenge.challenger_id == ctx.player.id:
            raise CommandError(
                phrase("Challenge #{challenge} is your own.", challenge=challenge.id),
                phrase("Write {example} to take it back.", example=f"withdraw {challenge.id}"),
            )
        if challenge.opponent_id not in (None, ctx.player.id):
            raise CommandError(
                phrase("Challenge #{challenge} is addressed to someone else.", challenge=challenge.id),
                phrase("Write {command} to see open ones.", command="open"),
            )
        challenger = ctx.session.get(Player, challenge.challenger_id)
        cls = pbem_engine.lookup(challenge.kind)
        first = challenger if _challenger_first(cls, challenge.colour) else ctx.player
        if ctx.trial:
            return  # checked; numbers that players see are not spent on a trial
        game = G.start(ctx.session, challenge, ctx.player, first, now())
        ctx.game_hint = game.id
        ctx.add(notify.tell(ctx.session, "started", game, ctx.player, challenge_id=challenge.id))
        clock.reschedule(ctx.session, game, ctx.settings.reminders, fresh=True)  # after the mails: their players are loaded


@register
class Decline(Command):
    """Say no to a challenge addressed to you.

    Write: decline 12
    """

    name = "decline"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("decline ID")
    summary = N_("turn down a challenge to you")

    requires_proof = True

    def run(self, ctx: Context, call: Call) -> None:
        challenge = _challenge(ctx, call.args, "decline 12")
        if challenge.opponent_id != ctx.player.id:
            raise CommandError(phrase("Challenge #{challenge} is not addressed to you.", challenge=challenge.id), "")
        challenge.status = "declined"
        ctx.session.add(challenge)
        view = challenge_view(ctx.session, challenge)
        ctx.reply("declined.txt", challenge=view)
        ctx.send("challenge_declined.txt", ctx.session.get(Player, challenge.challenger_id), challenge=view)


@register
class Withdraw(Command):
    """Take back a challenge of yours that nobody has accepted yet.

    Write: withdraw 12
    """

    name = "withdraw"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("withdraw ID")
    summary = N_("take back a challenge of yours")

    requires_proof = True

    def run(self, ctx: Context, call: Call) -> None:
        challenge = _challenge(ctx, call.args, "withdraw 12")
        if challenge.challenger_id != ctx.player.id:
            raise CommandError(phrase("Challenge #{challenge} is not yours.", challenge=challenge.id), "")
        challenge.status = "withdrawn"
        ctx.session.add(challenge)
        view = challenge_view(ctx.session, challenge)
        ctx.reply("withdrawn.txt", challenge=view)
        if challenge.opponent_id:
            ctx.send("challenge_withdrawn.txt", ctx.session.get(Player, challenge.opponent_id), challenge=view)
