"""The email commands. Importing this package registers every command."""


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
from pbem.commands.lines.base import COMMANDS, Command, Context, commands, find
from pbem.core.errors import CommandError

__all__ = ["COMMANDS", "Command", "CommandError", "Context", "commands", "find"]
