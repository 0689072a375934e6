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
import re

from pbem.commands.lines import base
from pbem.commands.lines.args import split_game
from pbem.commands.lines.base import STALE, Call, Context
from pbem.commands.lines.reader import MAX_LINES, Line, Reading
from pbem.commands.player import held
from pbem.core import rows
from pbem.core.errors import CommandError, NotAMove
from pbem.core.models import Game
from pbem.games import store as G
from pbem.letters.views import forget, game_view
from pbem.trust import proof as trust
from pbem.trust import tokens
from pbem_engine.common import squares
from pbem_engine.common.phrases import phrase

log = logging.getLogger(__name__)

COPY = CommandError(
    phrase(
        "I have already done what this mail asks: a mail with the same lines, answering the same "
        "mail of mine, came before. So I did nothing again."
    ),
    phrase("To do it once more, write it in a reply to my latest mail."),
    code="trust.copy",
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
    own = acting(reading)
    if ctx.evidence.proof is None:
        lines = held.hold(ctx, *_check_unproven(ctx, lines, ignored))
    elif ctx.evidence.mac is not None and own and ctx.evidence.copies:
        _refused(ctx, next(line for line in lines if held.acts(line)), COPY)  # a copy of a mail already done
        return ignored
    elif held.confirms(ctx, lines):
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
                turned = _turned_square(line, exc)
                if turned is None:
                    ignored.append(line.text[:120])  # chatter that happens to start like a move
                    continue
                exc = turned
            _refused(ctx, line, exc)
        else:
            rows.write_changes(ctx.session)  # the line's UPDATE by a compiled statement, not the ORM's flush
            savepoint.commit()
            ctx.acted = ctx.acted or held.acts(line)
    if ctx.acted and ctx.evidence.mac is not None and own:  # so that a copy of it does nothing
        ctx.inbound.acts = tokens.fingerprint(ctx.envelope.sender, ctx.evidence.mac, own)
    return ignored


def acting(reading: Reading) -> list[str]:
    """The mail's own lines that would change something: what its fingerprint covers."""
    return [line.text for line in reading.lines if held.acts(line)]


MAX_SUGGESTIONS = 3


def _mistyped(ctx: Context, ignored: list[str]) -> list[str]:
    """The lines left alone, but a short line that starts with a mistyped command (`chalenge
    ataxx bob@example.org`, `hlep`) is answered with the command it most likely meant, in the
    words the player wrote (`вызв` -> `вызов`), and a line of prose with a command after the
    end of a sentence ("Hello. challenge ataxx bob@example.org") with that command, to be written
    on a line of its own: a newcomer's first mail is often such a line."""
    kept = []
    for text in ignored:
        words = text.split()
        spelling = base.nearest_word(words[0]) if len(words) <= 6 else None
        meant = base.find(spelling) if spelling is not None else None
        fits = meant is not None and (meant.max_args is None or len(words) - 1 <= meant.max_args)
        room = sum(letter.template in ("mistyped.txt", "buried.txt") for letter in ctx.letters) < MAX_SUGGESTIONS
        if meant is not None and fits and room:
            ctx.reply("mistyped.txt", line=text, word=words[0], command=spelling, syntax=meant.syntax)
            continue
        inside = buried(text)
        if inside is not None and room:
            ctx.reply("buried.txt", line=text, command=inside)
            continue
        kept.append(text)
    return kept


#: where a sentence ends inside a line: a command may start after it
_SENTENCE_END = re.compile(r"[.!?:;\u3002\uff01\uff1f\uff1a\uff1b]\s*")
MAX_BURIED_WORDS = 6


def buried(text: str) -> str | None:
    """The command that follows the end of a sentence in a line of prose, with its words, when
    it is the whole rest of the line and takes that many words ("Hi! I want to play. challenge
    ataxx bob@example.org" -> "challenge ataxx bob@example.org"), else None. A command word
    alone there is not taken ("Can you help? Thanks"): prose says such words too."""
    for end in _SENTENCE_END.finditer(text):
        rest = text[end.end():].strip().rstrip(".!。！")
        words = rest.split()
        if not 2 <= len(words) <= MAX_BURIED_WORDS:
            continue
        command = base.find(words[0])
        if command is not None and (command.max_args is None or len(words) - 1 <= command.max_args):
            return rest
    return None


def _check_unproven(ctx: Context, lines: list[Line], ignored: list[str]) -> tuple[list[Line], list[Game]]:
    """Try the lines of an unproven mail and undo them: a mistake is said at once (to the
    registered address), chatter joins the `ignored` lines, and only what would work is kept,
    to be held for confirmation; with the games those lines act on (the notice shows them)."""
    kept = []
    games: dict[int, Game] = {}
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
            if ctx.line_game is not None:
                games[ctx.line_game.id] = ctx.line_game
        elif isinstance(problem, NotAMove) and line.command is None and _turned_square(line, problem) is None:
            ignored.append(line.text[:120])
        else:
            _refused(ctx, line, _turned_square(line, problem) or problem)
    forget(ctx.session)
    return kept, list(games.values())


def _turned_square(line: Line, exc: CommandError) -> CommandError | None:
    """The error for a bare line that is a move with its squares written number first (`5c`):
    no chatter, but a move the notation did not take; else None (the line is chatter)."""
    found = squares.turned(line.words[0]) if len(line.words) == 1 else None
    if found is None:
        return None
    square, written = found
    return CommandError(
        phrase('"{line}": a square is written letter then number, e.g. {square}.', line=line.words[0],
               square=square),
        phrase("Did you mean {move}?", move=written),
        exc.game, code="move.turned_square",
    )


def _refused(ctx: Context, line: Line, exc: CommandError) -> None:
    """The error section of a refused line, with the board of the game it was about (the one
    the error names, else the one the line settled on): a reply to it acts in that game."""
    game = exc.game or ctx.line_game
    if game is not None and game.side_of(ctx.player.id) is None:
        game = None
    view = game_view(ctx.session, game, ctx.player) if game is not None else None
    ctx.reply("error.txt", line=line.text[:200], message=exc.message, hint=exc.hint, game=view)


def _run_line(ctx: Context, line: Line, trusted: bool = False) -> None:
    command = line.command or base.find("move")
    args = line.words[1:] if line.command is not None else line.words
    game, missing = None, None
    ctx.line_game = None
    if command.takes_game:
        game_id, args = (line.game, args) if line.game is not None else split_game(args)
        acting = command.name if command.needs_current_board else None  # its example: `#42 c4`
        try:
            hint = ctx.game_hint if ctx.game_hint is not None or acting != "move" else ctx.move_hint
            game = G.find_game(ctx.session, ctx.player, game_id, hint, acting=acting)
        except CommandError as exc:
            missing = exc  # said after the proof, which matters more
        ctx.line_game = game
    if line.command is None and game is not None:
        G.read_move(ctx.session, game, " ".join(args))  # chatter raises NotAMove; a wrong move is said when it is played
    if command.requires_proof and ctx.evidence.proof is None and not trusted:
        raise base.NO_PROOF
    if missing is not None:
        raise missing
    if command.needs_current_records and ctx.evidence.stale:
        raise STALE
    unseen = _unseen(ctx, game, line) if game is not None and command.requires_proof and not trusted else None
    if game is not None and command.needs_board(args):
        if line.game is None:  # `#42 c4` is about game 42 alone: the mail's other bare lines keep theirs
            ctx.game_hint = game.id
        ctx.inbound.game_id = game.id
    if unseen is not None:
        _trial(ctx, command, Call(line.text, args, game))  # a line that is wrong anyway says so first
        raise unseen
    command.run(ctx, Call(line.text, args, game))
    if game is not None and command.requires_proof and not ctx.trial:
        ctx.touched.add(game.id)  # this mail's later lines may act on what it just did
    if command.needs_current_records:
        ctx.player.version += 1  # a mail we sent before this change no longer acts on the records
        ctx.session.add(ctx.player)


def _trial(ctx: Context, command: base.Command, call: Call) -> None:
    """Run a command and undo it (what it did, what it said): its own error, if any, is raised."""
    letters = len(ctx.letters)
    savepoint = ctx.session.begin_nested()
    ctx.trial = True
    try:
        command.run(ctx, call)
    finally:
        ctx.trial = False
        savepoint.rollback()
        del ctx.letters[letters:]


def _unseen(ctx: Context, game: Game, line: Line) -> CommandError | None:
    """Why a line may not act on `game`, or None: it may only if the token that proved its mail
    came with that game's board as it is now (or an earlier line of the same mail changed it).
    A reply to game 1's mail does not prove that its sender saw game 2, nor a copy of an old
    mail the board of today."""
    if game.id in ctx.touched or ctx.evidence.covers(game):
        return None
    if trust.outdated(ctx.evidence, game.id):
        if trust.caught_up(ctx.session, ctx.envelope, ctx.evidence, ctx.player, game):
            return None
        return CommandError(
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
    return CommandError(
        phrase(
            "I act on game #{game} only in a reply to my mail that shows its board as it stands now, "
            "and your mail answers no such mail, so I did not do this.",
            game=game.id,
        ),
        phrase("Here is the board as it stands: reply to this mail with the line again: {line}", line=line.text[:80]),
        game=game,
        code="trust.unseen_board",
        params={"game": game.id},
    )


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
