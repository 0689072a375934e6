"""The email commands. Importing this package registers every command."""

from pbem.commands import (  # noqa: F401  (registration)
    account,
    challenges,
    conditional,
    held,
    info,
    language,
    next,
    notify,
    play,
    records,
    say,
    stop,
    takeback,
    time,
    tournaments,
)
from pbem.commands.base import COMMANDS, Command, Context, commands, find
from pbem.errors import CommandError

__all__ = ["COMMANDS", "Command", "CommandError", "Context", "commands", "find"]
