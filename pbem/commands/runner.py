"""The command runner: settles each line once, then runs it in a savepoint.

For every line the runner decides, before the command runs, which command it is (a bare
move is `move`), whether the sender has shown proof of receipt where the command needs it,
and which game it is about (found and locked once): the game its `#42` names, else its
own number, else the game the mail answers. A mail may carry lines for several games,
each settled against its own game's current board; every line's answer is a section of
the one reply. A refused line changes nothing (of its own: the others stand) and says
why; a bare line that the game's notation does not know is chatter ("g2 looks good"): it
is listed with the lines that were not commands instead of drawing an error.
"""

from __future__ import annotations

import logging

from engine.phrases import phrase
from pbem import games as G
from pbem import trust
from pbem.commands import base, held
from pbem.commands.args import split_game
from pbem.commands.base import Call, Context
from pbem.commands.reader import MAX_LINES, Line, Reading
from pbem.errors import CommandError, NotAMove
from pbem.present import forget, game_view

log = logging.getLogger(__name__)

NO_PROOF = CommandError(
    phrase(
        "This mail does not show that it answers one of my mails, so I did not act on it "
        "(anyone can put your address in From)."
    ),
    phrase("Reply to my latest mail about the game, keeping its subject and sending it to its Reply-To address."),
    code="trust.no_proof",
)
STALE = CommandError(
    phrase(
        "This mail answers an older mail of mine, and your settings have changed since, so I did not "
        "act on it (a copy of an old mail must not undo what you did later)."
    ),
    phrase("Reply to my latest mail, or to this one, and write the command again."),
    code="trust.stale",
)


def run(ctx: Context, reading: Reading) -> list[str]:
    """Run a mail's command lines; returns the lines left alone (not commands, chatter).

    Without proof of receipt, the lines that would change something are held, and the
    player is asked to confirm them by replying to our notice; a proven mail that confirms
    runs them then, as if they had come with it."""
    if not _screen(ctx, reading):
        return []
    ignored = _mistyped(ctx, reading.ignored)
    lines = reading.lines
    if ctx.evidence.proof is None:
        lines = held.hold(ctx, _check_unproven(ctx, lines, ignored))
    elif held.confirms(ctx, lines) and not any(line.command is not None and line.command.name == "stop" for line in lines):  # `stop` confirms nothing
        lines = [*held.release(ctx), *(line for line in lines if line.command is not held.CONFIRM)]
    for line in lines:
        if line.command is not None and line.command.max_args is not None and len(line.words) - 1 > line.command.max_args:
            ignored.append(line.text[:120])  # prose that starts with a command word
            continue
        letters, about = len(ctx.letters), ctx.inbound.game_id
        forget(ctx.session)
        savepoint = ctx.session.begin_nested()
        try:
            _run_line(ctx, line)
        except CommandError as exc:
            savepoint.rollback()
            del ctx.letters[letters:]
            ctx.inbound.game_id = about  # the record is written last, so the savepoint cannot undo it
            if isinstance(exc, NotAMove) and line.command is None:
                ignored.append(line.text[:120])  # chatter that happens to start like a move
                continue
            _refused(ctx, line, exc)
        else:
            savepoint.commit()
            ctx.acted = ctx.acted or held.acts(line)
    return ignored


MAX_SUGGESTIONS = 3


def _mistyped(ctx: Context, ignored: list[str]) -> list[str]:
    """The lines left alone, but a short line that starts with a mistyped command (`chalenge
    ataxx bob@example.org`, `hlep`) is answered with the command it most likely meant."""
    kept = []
    for text in ignored:
        words = text.split()
        meant = base.nearest(words[0]) if len(words) <= 6 else None
        fits = meant is not None and (meant.max_args is None or len(words) - 1 <= meant.max_args)
        if fits and sum(letter.template == "mistyped.txt" for letter in ctx.letters) < MAX_SUGGESTIONS:
            ctx.reply("mistyped.txt", line=text, word=words[0], command=meant.name, syntax=meant.syntax)
            continue
        kept.append(text)
    return kept


def _check_unproven(ctx: Context, lines: list[Line], ignored: list[str]) -> list[Line]:
    """Try the lines of an unproven mail and undo them: a mistake is said at once (to the
    registered address), chatter joins the `ignored` lines, and only what would work is kept,
    to be held for confirmation."""
    kept = []
    for line in lines:
        if not held.acts(line):
            kept.append(line)
            continue
        letters, about = len(ctx.letters), ctx.inbound.game_id
        savepoint = ctx.session.begin_nested()
        ctx.trial = True
        try:
            _run_line(ctx, line, trusted=True)
            problem = None
        except CommandError as exc:
            problem = exc
        ctx.trial = False
        savepoint.rollback()  # a trial: whatever it did is undone, whatever it said unsaid
        del ctx.letters[letters:]
        ctx.inbound.game_id = about
        if problem is None:
            kept.append(line)
        elif isinstance(problem, NotAMove) and line.command is None:
            ignored.append(line.text[:120])
        else:
            _refused(ctx, line, problem)
    forget(ctx.session)
    return kept


def _refused(ctx: Context, line: Line, exc: CommandError) -> None:
    view = game_view(ctx.session, exc.game, ctx.player) if exc.game is not None else None
    ctx.reply("error.txt", line=line.text[:200], message=exc.message, hint=exc.hint, game=view)


def _run_line(ctx: Context, line: Line, trusted: bool = False) -> None:
    command = line.command or base.find("move")
    args = line.words[1:] if line.command is not None else line.words
    game, missing = None, None
    if command.takes_game:
        game_id, args = (line.game, args) if line.game is not None else split_game(args)
        acting = command.name if command.needs_current_board else None  # its example: `#42 c4`
        try:
            game = G.find_game(ctx.session, ctx.player, game_id, ctx.game_hint, acting=acting)
        except CommandError as exc:
            missing = exc  # said after the proof, which matters more
    if line.command is None and game is not None:
        G.read_move(game, " ".join(args))  # chatter raises NotAMove; a wrong move is said when it is played
    if command.requires_proof and ctx.evidence.proof is None and not trusted:
        raise NO_PROOF
    if missing is not None:
        raise missing
    if command.needs_current_records and ctx.evidence.stale:
        raise STALE
    if game is not None and command.needs_board(args):
        if trust.outdated(ctx.evidence, game.id):
            raise CommandError(
                phrase(
                    "Your mail answers an older board of game #{game}; the game has changed since, "
                    "so I did not apply it to a position you have not seen.",
                    game=game.id,
                ),
                phrase("Here is the board as it stands: reply to this mail if you still want to play."),
                game=game,
                code="trust.outdated_board",
                params={"game": game.id},
            )
        if line.game is None:  # `#42 c4` is about game 42 alone: the mail's other bare lines keep theirs
            ctx.game_hint = game.id
        ctx.inbound.game_id = game.id
    command.run(ctx, Call(line.text, args, game))
    if command.needs_current_records:
        ctx.player.version += 1  # a mail we sent before this change no longer acts on the records
        ctx.session.add(ctx.player)


def _screen(ctx: Context, reading: Reading) -> bool:
    """Whether to run the commands at all: a mail that is not text, an oversized one or one
    with too many command lines gets one short error instead, quoting nothing of it."""
    limit = ctx.settings.max_message_bytes
    if ctx.envelope.garbled:
        ctx.reply("refused.txt", why="garbled", limit=0)
        return False
    if ctx.envelope.size > limit:
        ctx.reply("refused.txt", why="size", limit=limit // 1024)
        return False
    if reading.count > MAX_LINES:
        ctx.reply("refused.txt", why="lines", limit=MAX_LINES)
        return False
    return True
