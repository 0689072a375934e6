"""The email commands. Importing this package registers every command."""

from pbem.commands import account, challenges, held, info, language, next, play, records, time  # noqa: F401  (registration)
from pbem.commands.base import COMMANDS, Command, Context, commands, find
from pbem.errors import CommandError

__all__ = ["COMMANDS", "Command", "CommandError", "Context", "commands", "find"]
