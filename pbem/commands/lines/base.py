"""What a player can say: one `Command` class per command, kept in one registry.

A command declares what the runner must settle before it runs (`takes_game`: the line
may name a game, which the runner finds and locks once; `requires_proof`: the sender
must show that they receive our mail), then `run` changes the records through the
domain and adds letters (data, rendered later) to the `Context`. It raises
`CommandError` with a message the player can act on; the runner turns it into an error
section and nothing the command did is kept.
"""

from __future__ import annotations

import difflib
import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import pbem_engine
from pbem.commands.lines import words
from pbem.core.errors import CommandError
from pbem.core.work import Work, work_of
from pbem.letters.notify import Letter
from pbem_engine.common.phrases import phrase

#: A mail that answers an older one of ours after the player's settings changed: refused, by
#: the runner for any line and by `say` for its own.
STALE = CommandError(
    phrase(
        "This mail answers an older mail of mine, and your settings have changed since, so I did not "
        "act on it (a copy of an old mail must not undo what you did later)."
    ),
    phrase("Reply to my latest mail, or to this one, and write the command again."),
    code="trust.stale",
)

if TYPE_CHECKING:
    from sqlmodel import Session

    from pbem.core.config import Settings
    from pbem.core.models import Game, InboundMessage, Player
    from pbem.mail.message.inbound import Envelope
    from pbem.trust.proof import Evidence

__all__ = ["NO_PROOF", "COMMANDS", "Call", "Command", "CommandError", "Context", "commands", "find", "nearest", "register"]


#: what a line that needs proof of receipt gets in a mail that shows none
NO_PROOF = CommandError(
    phrase(
        "This mail does not show that it answers one of my mails, so I did not act on it "
        "(anyone can put your address in From)."
    ),
    phrase("Reply to my latest mail about the game, keeping its subject and sending it to its Reply-To address."),
    code="trust.no_proof",
)


@dataclass
class Context:
    """What one inbound message's commands share: the session, the sender, the letters."""

    settings: Settings
    session: Session
    player: Player
    envelope: Envelope
    inbound: InboundMessage
    evidence: Evidence
    game_hint: int | None = None
    #: in a reply to our mail about several games (which names none), the one of them that
    #: waits for the sender's move: a bare move there means it, as the mail invited
    move_hint: int | None = None
    letters: list[Letter] = field(default_factory=list)
    #: a command with proof changed something: its answer is never rationed (a loop cannot
    #: make valid changes, and a player must hear that their move was played)
    acted: bool = False
    #: the lines of a mail without proof are tried and undone: a command skips what would spend
    #: a number players see (a challenge's, a game's), which a database sequence does not give back
    trial: bool = False
    #: the games that an earlier line of this mail changed: its later lines may act on them
    touched: set[int] = field(default_factory=set)
    #: the game the line being run is about, once settled: its error shows that game's board
    line_game: Game | None = None
    #: the language of the reply when it is not the player's own: what an unproven first mail
    #: was written in (answered in it, stored only when confirmed)
    language: str | None = None

    @property
    def work(self) -> Work:
        """The transaction's unit of work: every cache it keeps, and the held mail's row."""
        return work_of(self.session)

    def reply(self, template: str, *, attach: int | None = None, **data: Any) -> None:
        """A section of the one reply to the sender; `attach` names a game whose record goes with it."""
        self.letters.append(Letter(self.player, template, data, reply=True, record=attach))

    def send(self, template: str, player: Player, about: Game | None = None, **data: Any) -> None:
        """A mail to `player`; `about` threads it with that game's other mails."""
        self.letters.append(Letter(player, template, data, game=about))

    def add(self, letters: list[Letter]) -> None:
        """Letters the notifier chose for a game event."""
        self.letters.extend(letters)


@dataclass(frozen=True)
class Call:
    """One command line as the runner settled it: the words after the command (and after
    the game number, for a command that takes a game) and the game it is about."""

    line: str
    args: list[str]
    game: Game | None = None


class Command:
    """The base of every command; subclasses set the class attributes and `run`.

    `help COMMAND` shows `templates/commands/<name>.txt`, the translatable help; the class
    docstring says the same for developers, and is shown where a command has no template.
    `syntax` and `summary` are msgids (`N_`), translated where `help` shows them.
    """

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    syntax: ClassVar[str]
    summary: ClassVar[str]
    #: the line may name one of the sender's games with a leading ID (`board 42`); the runner
    #: finds it (else the game the mail answers, else the sender's only game) and locks it
    takes_game: ClassVar[bool] = False
    #: the command changes something, so the sender must prove they receive our mail
    requires_proof: ClassVar[bool] = False
    #: the command acts on the game's current position: a reply to an older board is refused
    needs_current_board: ClassVar[bool] = False
    #: the command changes the sender's own records (settings, challenges, watch list), where a
    #: replayed old mail would undo a later change: a mail older than the last such change is
    #: refused, and running it makes older mails stale
    needs_current_records: ClassVar[bool] = False
    #: the most words the command takes after its name; a line with more is prose that happens to
    #: start with the word ("Open Monday to Friday", "Back on Monday"), not the command
    max_args: ClassVar[int | None] = None

    def run(self, ctx: Context, call: Call) -> None:
        raise NotImplementedError

    def needs_board(self, args: list[str]) -> bool:
        """Whether this line acts on the game's current position: `needs_current_board`, unless
        a command's forms differ (`takeback refuse` changes no position, `takeback` does).
        `args` are the line's words after the command and its game number."""
        return self.needs_current_board

    def reads(self, words: list[str]) -> bool:
        """Whether a line of these words (the command's word first) is the command at all, and
        not prose that starts with its word ("If you need a break, ..."): most commands are."""
        return True

    @classmethod
    def help(cls) -> str:
        """The docstring, its prose joined into paragraphs (the mail is wrapped to fit), its
        `Write:` / `or:` example lines kept as they are. `{games}` and `{variants}` in it
        stand for the registered games, so a new game needs no edit here."""
        lines: list[str] = []
        prose: list[str] = []
        text = inspect.cleandoc(cls.__doc__ or cls.summary)
        text = text.replace("{games}", ", ".join(pbem_engine.names())).replace("{variants}", variants())
        for line in [*text.splitlines(), ""]:
            if line.strip() and not line.lstrip().startswith(("Write:", "or:")):
                prose.append(line.strip())
                continue
            if prose:
                lines.append(" ".join(prose))
                prose = []
            lines.append(line)
        return "\n".join(lines).strip()


def variants() -> str:
    """The games by family, as a challenge's `variant=` may switch among them."""
    families: dict[str, list[str]] = {}
    for name in pbem_engine.names():
        families.setdefault(pbem_engine.lookup(name).family, []).append(name)
    return "; ".join(", ".join(names) for names in families.values())


COMMANDS: dict[str, Command] = {}
_SPELLINGS: dict[str, str] = {}
_WRITTEN: dict[str, str] = {}  # a folded spelling -> the word as the table writes it (accents and all)


def register(cls: type[Command]) -> type[Command]:
    """Class decorator: one line adds a command to the registry and to `help`, with its words
    in every language (`pbem.commands.lines.words.WORDS`).

    A name or alias that another command already has, in any language, is a programming error."""
    translated = [word for language in words.WORDS.get(cls.name, {}).values() for word in language]
    spellings = list(dict.fromkeys(words.fold(s) for s in (cls.name, *cls.aliases, *translated)))
    for spelling in spellings:
        owner = _SPELLINGS.get(spelling)
        if owner is not None and owner != cls.name:
            raise ValueError(f"command word {spelling!r} of {cls.name!r} is taken by {owner!r}")
    if cls.name in COMMANDS and type(COMMANDS[cls.name]) is not cls:
        raise ValueError(f"command {cls.name!r} is registered twice")
    COMMANDS[cls.name] = cls()
    for spelling in spellings:
        _SPELLINGS[spelling] = cls.name
    for written in (cls.name, *cls.aliases, *translated):
        _WRITTEN.setdefault(words.fold(written), written)
    return cls


def _key(word: str, strip: str) -> str:
    return words.fold(word).rstrip(strip)  # a full-width colon is folded to ':' first


def find(word: str) -> Command | None:
    """The command a word names in any language (case, accents and a trailing ':' ignored), or None."""
    return COMMANDS.get(_SPELLINGS.get(_key(word, ":"), ""))


def nearest(word: str) -> Command | None:
    """The command a mistyped word most likely meant (`chalenge`, `hlep`, `сдаюс`), or None: close
    spellings only, and no word under four letters, so prose is seldom taken for a command."""
    meant = nearest_word(word)
    return None if meant is None else find(meant)


def nearest_word(word: str) -> str | None:
    """The command word a mistyped word most likely meant, as the table writes it, in the
    player's own language when that is the closest (`вызв` -> `вызов`, `chalenge` -> `challenge`)."""
    key = _key(word, ":,.")
    if len(key) < 4 or find(key) is not None:
        return None
    match = difflib.get_close_matches(key, list(_SPELLINGS), n=1, cutoff=0.75)
    return _WRITTEN.get(match[0], match[0]) if match else None


def commands() -> list[Command]:
    return list(COMMANDS.values())
