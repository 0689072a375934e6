"""The email commands. Importing this package registers every command."""

from pbem.commands import account, challenges, info, play, records, time  # noqa: F401  (registration)
from pbem.commands.base import COMMANDS, Command, CommandError, Context, commands, find

__all__ = ["COMMANDS", "Command", "CommandError", "Context", "commands", "find"]
