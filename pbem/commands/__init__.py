"""The email commands. Importing this package registers every command."""

from pbem.commands.game import (  # noqa: F401  (importing a command's module registers it)
    conditional,
    next,
    play,
    records,
    say,
    takeback,
)
from pbem.commands.lines.base import COMMANDS, Command, Context, commands, find
from pbem.commands.player import (  # noqa: F401
    account,
    challenges,
    held,
    info,
    language,
    notify,
    stop,
    time,
    tournaments,
)
from pbem.core.errors import CommandError

__all__ = ["COMMANDS", "Command", "CommandError", "Context", "commands", "find"]
