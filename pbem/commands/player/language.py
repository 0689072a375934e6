"""The player's language: chosen with `language`, or found in a new player's first mail."""

from __future__ import annotations

from datetime import UTC
from functools import cache

from babel import Locale

from pbem.commands.lines import words
from pbem.commands.lines.base import Call, Command, Context, register
from pbem.commands.lines.reader import Reading, lines_of
from pbem.core.errors import CommandError
from pbem.core.wallclock import now
from pbem.mail.message import language as detection
from pbem.text.i18n import DEFAULT, LANGUAGES, N_
from pbem_engine.common.phrases import phrase

#: extra names players use for a language, beside its code and its names in our languages
_OTHER_NAMES = {
    "en": ("eng",),
    "it": ("ita",),
    "ru": ("russkij", "russkiy", "rus"),
    "uk": ("ukr",),
    "ko": ("kor", "조선어", "韩文", "韓國語", "한글"),
    "zh": ("chinese", "汉语", "漢語", "普通话", "简体中文", "简体", "中国语", "中國語", "zho", "chi"),
}


@cache
def _names() -> dict[str, str]:
    """Every name of each of our languages (folded) -> its code: the code, the language's own
    name, and its name in each of our languages (Babel's), `russian`, `русский`, `러시아어`..."""
    names: dict[str, str] = {}
    for code in LANGUAGES:
        spoken = [code, LANGUAGES[code], *_OTHER_NAMES.get(code, ())]
        for other in LANGUAGES:
            spoken.append(Locale.parse(other).languages.get(code, ""))
        for name in spoken:
            if name:
                names.setdefault(words.fold(name), code)
    return names


def language_code(text: str) -> str | None:
    """The code of the language a player named (`it`, `Italiano`, `russian`, `中文`, `zh-CN`), or None."""
    key = words.fold(" ".join(text.split())).strip(" .,:;!\"'")
    if not key:
        return None
    names = _names()
    if key in names:
        return names[key]
    tag = key.replace("_", "-").split("-")[0]
    return tag if tag in LANGUAGES else None


def _choices() -> list[dict[str, str]]:
    return [{"code": code, "name": name} for code, name in LANGUAGES.items()]


@register
class LanguageCommand(Command):
    """Choose the language of my mails to you; "language" alone shows the one I use and the others.

    Write: language it
       or: language русский
    """

    name = "language"
    aliases = ("lang",)
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("language CODE")
    summary = N_("the language of my mails to you (en it ru uk ko zh)")
    max_args = 2

    requires_proof = True  # a setting of the sender's own, as name, format and timezone are
    needs_current_records = True

    def run(self, ctx: Context, call: Call) -> None:
        old = ctx.player.language
        if not call.args:
            ctx.reply("language.txt", old=old, new=old, changed=False, chosen=LANGUAGES.get(old, old),
                      before=LANGUAGES.get(old, old), languages=_choices())
            return
        code = language_code(" ".join(call.args)) or language_code(call.args[0])
        if code is None:
            raise CommandError(
                phrase('I do not write in "{given}". I write in: {languages}.',
                       given=" ".join(call.args)[:40], languages=list(LANGUAGES)),
                phrase("Write e.g. {example}.", example="language it"),
                code="language.unknown",
                params={"given": " ".join(call.args)[:40], "languages": list(LANGUAGES)},
            )
        ctx.player.language, ctx.player.language_at = code, now()
        ctx.session.add(ctx.player)
        ctx.reply("language.txt", old=old, new=code, changed=old != code, chosen=LANGUAGES[code],
                  before=LANGUAGES.get(old, old), languages=_choices())


def _from_words(reading: Reading) -> tuple[str | None, set[str] | None]:
    """What the command words of a mail say: a language (only one has them all), or the
    languages still possible (words two languages share). A command's English name says
    nothing: every language's mails show it in their examples (`help`, `accept 1`)."""
    possible: set[str] | None = None
    for line in reading.lines:
        if line.command is None:
            continue  # a bare move says nothing
        word = line.words[0]
        found = words.languages_of(word)
        if not found:
            continue  # the command's English name (or an alias all languages use)
        possible = found if possible is None else possible & found
        if not possible:
            return None, None  # words of different languages: the words do not decide
    if possible is not None and len(possible) == 1:
        return next(iter(possible)), None
    return None, possible


def _unsettled(ctx: Context) -> bool:
    """Whether the player has no language of their own yet: none chosen, and no proven mail of
    theirs was written in one (`Player.language_at`). Until then each of their mails is answered
    in the language of its own words (a newcomer who wrote in Chinese and then replies in
    Chinese is not answered in English), or of the mail of ours it answers when its words say
    none (`help`, a move), and the first proven one whose words say one settles it."""
    return ctx.player.language_at is None


def _newcomer(ctx: Context) -> bool:
    """Whether no mail of the player's proved their address before this one: only then may an
    unproven mail choose the language of its answer (anyone can put a known address in From)."""
    proven = ctx.player.proven_at
    if proven is None:
        return True
    proven = proven if proven.tzinfo is not None else proven.replace(tzinfo=UTC)
    return proven >= ctx.inbound.received_at


def detect(ctx: Context, reading: Reading) -> str | None:
    """A new player's language, from the words of their mails until a proven one says it
    (`_unsettled`; an unproven one only before any proved their address); None: the words say
    none."""
    if not _unsettled(ctx) or (ctx.evidence.proof is None and not _newcomer(ctx)):
        return None
    if lines_of(reading.lines, "language"):
        return None  # they say which they want
    code, possible = _from_words(reading)
    if code is not None:
        return code
    among = possible or LANGUAGES.keys()
    header = ctx.envelope.header("Content-Language")
    return detection.detect(_prose(reading), header, among)


def _prose(reading: Reading) -> str:
    """The words of a mail that can tell its language: its lines of prose, and the words of its
    command lines that are not ASCII (`правила`, `help вызов`, `challenge 同化棋`); not the command lines'
    English words, which every language's mails show in their examples (`challenge ataxx bot
    level=1` is no English sentence)."""
    spoken = [word for line in reading.lines for word in line.words if not word.isascii()]
    return "\n".join([*reading.ignored, " ".join(spoken)])


def asked(ctx: Context, reading: Reading) -> str | None:
    """The language a new player's unproven mail asks for in a `language` line of its own, which waits
    for the confirmation with the rest: the notice that asks for it is written in that language
    (a mail that says "language ko" is best answered in Korean, not in the default)."""
    lines = lines_of(reading.lines, "language")
    if not lines or ctx.evidence.proof is not None or len(lines[0].words) < 2 or not _unsettled(ctx) \
            or not _newcomer(ctx):
        return None
    args = lines[0].words[1:]
    return language_code(" ".join(args)) or language_code(args[0])


def _stops(reading: Reading) -> bool:
    """Whether the mail says `stop`: a stranger who stops the mails a forger drew on them
    takes on no language by it."""
    return bool(lines_of(reading.lines, "stop"))


def settle(ctx: Context, reading: Reading) -> None:
    """Answer a new player's mails in the language they are written in, until one proves their
    address and says a language (`_unsettled`), and tell them (in that language) which one I
    chose and how to change it. The language is stored as theirs only from a mail with proof
    of receipt whose words say it: a forger who writes in Russian From a stranger's address
    must not choose the stranger's language, and a reply that says none (`help`, a move) is
    answered in the language of the mail it answers, which their mails keep, unsettled, until
    their words say one (`stop` keeps none). An unproven first mail is answered in its
    language, and its held commands keep it (`pbem.commands.player.held`): confirming them
    stores it; one that asks for a language in a line of its own is answered in that one
    (`asked`). A known player's language changes only by `language`."""
    wanted = asked(ctx, reading)
    if wanted is not None:
        ctx.language = wanted  # this answer only: confirming the mail runs its `language` line
        return
    code = detect(ctx, reading)
    proven = ctx.evidence.proof is not None
    answered = ctx.evidence.language if proven and ctx.evidence.language in LANGUAGES else None
    if code is None or code not in LANGUAGES:
        if answered is not None and _unsettled(ctx) and not _stops(reading):
            # they read the mail they answer: its language is theirs until their words say one
            # (their other mails too: the opponent's moves), but it is not settled
            ctx.language = ctx.player.language = answered
            ctx.session.add(ctx.player)
        return
    if not proven:
        if code == DEFAULT:
            return
        ctx.language = code  # this answer only
        row, ctx.work.held = ctx.work.held, None
        if row is not None and row.player_id == ctx.player.id:
            row.language = code  # stored as theirs if they confirm the mail
            ctx.session.add(row)
    else:
        was = answered or ctx.player.language  # what the mail they answer was written in
        ctx.player.language, ctx.player.language_at = code, now()
        ctx.session.add(ctx.player)
        if code == was:
            return  # the language they read already, which that mail named: nothing to tell
    if not any(letter.reply for letter in ctx.letters):
        ctx.reply("nothing.txt", me=ctx.player.address)  # what the mail would have had: the section comes below it
    ctx.reply("language_chosen.txt", code=code, chosen=LANGUAGES[code])
