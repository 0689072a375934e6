"""From a mail's subject and reply text to command lines, each line classified once.

A line whose first word is a command is that command. A line that looks like a move (its
first word holds a digit, e.g. `c4`, `a1-c3`, `17@d4`) is a bare move, played in the game
the mail is about. A line may name its game first (`#42 c4`, `#42: pass`, `# 42 resign`),
so that one mail answers several games, a line each. Anything else is reported back as
ignored, never fatal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from pbem.commands.lines import base
from pbem.core.config import Settings
from pbem.text import lookalikes
from pbem.text.templates import Templates

MAX_LINES = 30
_OUR_SUBJECT = re.compile(r"\[pbem\b[^\]]*\]", re.IGNORECASE)
#: `#42 c4`, `#42: c4`, `# 42 c4`, `＃42 c4`: a game's number, then what to do in it
_GAME_FIRST = re.compile(r"^[#\uff03]\s?(\d{1,9})\s*(?:[:\uff1a]\s*|\s+)(\S.*)$")


@dataclass(frozen=True)
class Line:
    text: str
    words: list[str]  # after the game's number, when the line starts with one
    command: base.Command | None  # None: a bare move
    game: int | None = None  # the game the line names first (`#42 c4`), else None


def lines_of(lines: Iterable[Line], command: str) -> list[Line]:
    """The lines of `lines` that are the command named `command` (`stop`, `language`)."""
    return [line for line in lines if line.command is not None and line.command.name == command]


@dataclass
class Reading:
    """What a mail says: its command lines (at most MAX_LINES), the lines that are not
    commands, and how many command lines its body held in all."""

    lines: list[Line] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    count: int = 0


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
    """The command line `text` is, or None. After a game's number (`#42 ...`) only a move or
    a command that acts on a game counts: a game list line (`#42  ataxx 7x7 against bob`)
    or chatter (`#1 fan here`) is no command."""
    game = None
    if found := _GAME_FIRST.match(text):
        game, rest = int(found[1]), found[2]
    words = (rest if game is not None else text).split()
    if not words:
        return None
    command = base.find(words[0])
    if game is not None and command is not None and not command.takes_game:
        return None
    if command is not None and not command.reads(words):
        command = None  # prose that starts with a command's word
    if command is None and not _looks_like_move(words):
        return None
    return Line(text, words, command, game)


def reads_as_command(text: str) -> bool:
    """Whether a line of our own mails would be read back as a command (the templates'
    guard: a wrapped line must never start like one)."""
    return classify(text.strip()) is not None


def read(subject: str, body: str) -> Reading:
    """The command lines of a mail and the lines that were not commands.

    The subject is read only when it holds the mail's only command: a body with commands of
    its own says what the mail asks (a subject `rules` above `rules capturego`, an iPhone's
    `Accept` above `Accept 1`), and a subject is never run beside them, nor twice. Only CR and
    LF end a line: `say hi<U+2028>resign` is one line, never a `resign`."""
    reading = Reading()
    for raw in lookalikes.lines(body):
        text = raw.strip()
        if not text:
            continue
        line = classify(text)
        if line is None:
            if len(reading.ignored) < 200:
                reading.ignored.append(text[:120])
        else:
            reading.count += 1
            if len(reading.lines) < MAX_LINES:
                reading.lines.append(line)
    if reading.count == 0 and subject and not _OUR_SUBJECT.search(subject):
        first = classify(subject)
        if first is not None:
            reading.lines.append(first)
    return reading


def guarded_templates(settings: Settings | None = None) -> Templates:
    """The one way to make the mail templates: wrapped lines never start like a command."""
    return Templates(settings.templates_dir if settings is not None else None, guard=reads_as_command)
