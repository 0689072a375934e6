"""Commands held for confirmation: what a mail without proof of receipt asked for.

Anyone can put a player's address in From, so such a mail changes nothing: its lines that
would change something are kept, and the player gets one notice ("someone wrote as you;
nothing changed; reply to this mail to confirm"). A proven reply to that notice (any
reply, or one with the word `confirm`) runs them then. This is how a newcomer starts:
their first challenge goes out once they have shown that they receive our mail, as a
mailing list confirms a subscription.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta

from sqlmodel import select

from pbem.commands.lines import base
from pbem.commands.lines.base import Call, Command, Context, register
from pbem.commands.lines.reader import Line, classify, lines_of
from pbem.core.models import Game, HeldMail
from pbem.core.wallclock import now
from pbem.games import players
from pbem.letters.views import game_view
from pbem.text.i18n import N_

#: how long held commands wait for their confirmation
KEEP = timedelta(days=7)


@register
class Confirm(Command):
    """Confirm the commands of a mail I could not trust: reply to my notice about it.

    Write: confirm   (in a reply to that notice; any reply to it works too)
    """

    name = "confirm"
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("confirm")
    summary = N_("do what a mail held for confirmation asked")
    requires_proof = True
    max_args = 0

    def run(self, ctx: Context, call: Call) -> None:
        ctx.reply("confirmed.txt", lines=[])  # reached only when nothing was waiting


CONFIRM = base.find("confirm")


def acts(line: Line) -> bool:
    """Whether a line would change something (and so needs proof)."""
    command = line.command or base.find("move")
    return command.requires_proof and command is not CONFIRM


def hold(ctx: Context, lines: list[Line], games: Sequence[Game] = ()) -> list[Line]:
    """Keep the lines of an unproven mail that would change something; return the others.

    Each held mail gets a notice of its own, which lists its lines and nothing else, and the
    games they act on as those stand now: a reply to that notice runs exactly those lines, in
    games that have not changed since (`release`)."""
    acting = [line for line in lines if acts(line)]
    if acting:
        row = HeldMail(
            player_id=ctx.player.id,
            lines="\n".join(line.text for line in acting)[:4000],
            name=ctx.envelope.sender_name[:80],
            created_at=now(),
        )
        ctx.session.add(row)
        ctx.session.flush()  # its id goes into the notice, which its confirmation names
        ctx.work.held = row  # its language is read after the commands (`language.settle`)
        views = [game_view(ctx.session, game, ctx.player) for game in games]
        ctx.reply("held.txt", lines=[quote(line) for line in acting], address=ctx.player.address, held=row.id,
                  games=views)
    return [line for line in lines if not acts(line)]


#: commands whose words after the game are free text: quoted by their name alone
_FREE_TEXT = ("say", "name")
_LINK = re.compile(r"://|^www\.|\.[a-z]{2,}(?:[/:?#]|$)", re.I)
_ADDRESS = re.compile(r"^[^@\s/:]+@[^@\s/:]+\.[a-z]{2,}$", re.I)  # an opponent's address: named to be recognised


def quote(line: Line) -> str:
    """A held line as its notice shows it: enough to recognise it, never a forger's text.

    The notice goes to the address in From, whoever wrote the mail, so it must not carry a
    forger's message: free text and anything like a link are left out, words are short."""
    command = line.command or base.find("move")
    head = f"#{line.game} " if line.game is not None else ""
    words = line.words[:1] if command.name in _FREE_TEXT else line.words[:6]
    shown = [w if _ADDRESS.match(w) or not _LINK.search(w) else "…" for w in words]
    shown = [w if len(w) <= 40 else w[:39] + "…" for w in shown]
    more = len(line.words) > len(words)
    return (head + " ".join(shown) + (" …" if more else ""))[:100]


def _waiting(ctx: Context, ids: list[int]) -> list[HeldMail]:
    if not ids:
        return []
    return list(
        ctx.session.exec(
            select(HeldMail)
            .where(HeldMail.id.in_(ids), HeldMail.player_id == ctx.player.id, HeldMail.status == "held")
            .where(HeldMail.created_at >= now() - KEEP)
        )
    )


def _chosen(ctx: Context) -> list[int]:
    """The held mail a proven mail may confirm: the one whose notice it answers, else the one
    its token's notice listed. Never several: a notice confirms only what it showed."""
    evidence = ctx.evidence
    if evidence.answers_held is not None:
        return [evidence.answers_held]
    return evidence.held[-1:] if len(evidence.held) == 1 else []


def confirms(ctx: Context, lines: list[Line]) -> bool:
    """Whether a proven mail confirms held commands: it answers our notice of them (any reply:
    `confirm`, `ok`, or nothing at all), or says `confirm` with that notice's token; never
    when it says `stop`, which drops what was held instead."""
    if lines_of(lines, "stop"):
        return False
    return bool(_waiting(ctx, _chosen(ctx)))


def release(ctx: Context) -> list[Line]:
    """The lines of the held mail that the proven mail confirms, to run now (once)."""
    released: list[Line] = []
    for row in _waiting(ctx, _chosen(ctx)):
        row.status = "confirmed"
        ctx.session.add(row)
        # now the name they wrote with is theirs, if the `name` command would take it
        players.proven(ctx.player, row.name, now(), players.reserved_names(ctx.settings))
        if row.language and ctx.player.language_at is None:
            ctx.player.language, ctx.player.language_at = row.language, now()  # and the language they wrote in
        released += [line for text in row.lines.split("\n") if (line := classify(text)) is not None]
    if released:
        ctx.reply("confirmed.txt", lines=[quote(line) for line in released])
    return released
