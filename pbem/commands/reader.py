"""From a mail's subject and reply text to commands, one per line, and running them.

A line whose first word is a command runs that command. A line that looks like a move
(its first word holds a digit, e.g. `c4`, `a1-c3`, `17@d4`) is played in the game the mail
is about. Anything else is reported back as ignored, never fatal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem import games as G
from pbem import trust
from pbem.commands import base
from pbem.commands.base import CommandError, Context
from pbem.commands.play import play_move
from pbem.present import game_view

MAX_LINES = 30
_OUR_SUBJECT = re.compile(r"\[pbem\b[^\]]*\]", re.IGNORECASE)


@dataclass(frozen=True)
class Line:
    text: str
    words: list[str]
    command: base.Command | None  # None: a bare move


def _looks_like_move(words: list[str]) -> bool:
    """A square and a digit in the first word (`c4`, `a1-c3`, `17@d4`), or UAI's null move.

    Board rows (`7 | x . o`), dates and game numbers never match, so a quoted board that
    escaped the cut is not read as moves."""
    first = words[0]
    if first == "0000":
        return True
    return (
        len(words) <= 8
        and len(first) <= 12
        and any(c.isdigit() for c in first)
        and any(c.isalpha() for c in first)
        and not first.startswith("#")
    )


def classify(text: str) -> Line | None:
    words = text.split()
    if not words:
        return None
    command = base.find(words[0])
    if command is None and not _looks_like_move(words):
        return None
    return Line(text, words, command)


def read(subject: str, body: str) -> tuple[list[Line], list[str]]:
    """The command lines of a mail (subject first) and the lines that were not commands."""
    lines: list[Line] = []
    ignored: list[str] = []
    first = classify(subject) if subject and not _OUR_SUBJECT.search(subject) else None
    if first is not None:
        lines.append(first)
    for raw in body.splitlines():
        text = raw.strip()
        if not text:
            continue
        line = classify(text)
        if line is None:
            ignored.append(text[:120])
        elif first is not None and len(lines) == 1 and text.lower() == first.text.lower():
            continue  # the body repeats the subject's command
        else:
            lines.append(line)
        if len(lines) >= MAX_LINES:
            break
    return lines, ignored


def execute(ctx: Context, lines: list[Line]) -> None:
    """Run each line in its own savepoint: a refused line changes nothing and says why."""
    for line in lines:
        parts, notices = len(ctx.parts), len(ctx.notices)
        savepoint = ctx.session.begin_nested()
        try:
            trust.guard(ctx, line)
            if line.command is None:
                game = G.find_game(ctx.session, ctx.player, None, ctx.game_hint)
                play_move(ctx, game, line.text)
            else:
                line.command.run(ctx, line.words[1:], line.text)
        except CommandError as exc:
            savepoint.rollback()
            del ctx.parts[parts:]
            del ctx.notices[notices:]
            view = game_view(ctx.session, exc.game, ctx.player) if exc.game is not None else None
            ctx.reply("error.txt", line=line.text[:200], message=exc.message, hint=exc.hint, game=view)
        else:
            savepoint.commit()
