"""What a player can say: one `Command` class per command, kept in one registry.

A command reads its arguments, changes the records through `pbem.games`, and adds
reply parts (for the sender) and notices (mails to others) to the `Context`. It raises
`CommandError` with a message the player can act on; the caller turns it into an
error part and nothing the command did is kept.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from sqlmodel import Session

    from pbem.mail.inbound import Envelope
    from pbem.models import Game, InboundMessage, Player
    from pbem.service import Service


class CommandError(Exception):
    """A command that cannot be done; `message` says why, `hint` how to write it right."""

    def __init__(self, message: str, hint: str = "", game: Game | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.game = game


@dataclass
class Part:
    """One section of the reply to the sender, rendered from `templates/reply/<name>.txt`."""

    template: str
    data: dict[str, Any]


@dataclass
class Notice:
    """A mail to another player (or to the sender about a game), from `templates/mail/`."""

    template: str
    player: Player
    game: Game | None
    data: dict[str, Any]


@dataclass
class Context:
    """What one inbound message's commands share: the session, the sender, the output."""

    service: Service
    session: Session
    player: Player
    envelope: Envelope
    inbound: InboundMessage
    game_hint: int | None = None
    parts: list[Part] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    trust: Any = None  # pbem.trust.Evidence: the sender's proof of receipt, set by the service

    def reply(self, template: str, **data: Any) -> None:
        self.parts.append(Part(template, data))

    def notify(self, template: str, player: Player, about: Game | None = None, **data: Any) -> None:
        """Queue a mail to `player`; `about` threads it with that game's other mails."""
        self.notices.append(Notice(template, player, about, data))


class Command:
    """The base of every command; subclasses set the class attributes and `run`.

    The class docstring is the command's help text (`help COMMAND`).
    """

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    syntax: ClassVar[str]
    summary: ClassVar[str]
    #: whether the line may name a game with a leading ID (e.g. `board 42`)
    takes_game: ClassVar[bool] = False

    def run(self, ctx: Context, args: list[str], line: str) -> None:
        raise NotImplementedError

    @classmethod
    def help(cls) -> str:
        """The docstring, its prose joined into paragraphs (the mail is wrapped to fit), its
        `Write:` / `or:` example lines kept as they are."""
        lines: list[str] = []
        prose: list[str] = []
        for line in [*inspect.cleandoc(cls.__doc__ or cls.summary).splitlines(), ""]:
            if line.strip() and not line.lstrip().startswith(("Write:", "or:")):
                prose.append(line.strip())
                continue
            if prose:
                lines.append(" ".join(prose))
                prose = []
            lines.append(line)
        return "\n".join(lines).strip()


COMMANDS: dict[str, Command] = {}
_SPELLINGS: dict[str, str] = {}


def register(cls: type[Command]) -> type[Command]:
    """Class decorator: one line adds a command to the registry and to `help`."""
    COMMANDS[cls.name] = cls()
    for spelling in (cls.name, *cls.aliases):
        _SPELLINGS[spelling] = cls.name
    return cls


def find(word: str) -> Command | None:
    """The command a word names (case and a trailing ':' ignored), or None."""
    key = word.lower().rstrip(":")
    return COMMANDS.get(_SPELLINGS.get(key, ""))


def commands() -> list[Command]:
    return list(COMMANDS.values())


