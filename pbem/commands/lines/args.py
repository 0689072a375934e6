"""Small readers for command arguments, with errors that show the right form."""

from __future__ import annotations

from pbem.commands.lines.base import CommandError
from pbem_engine.common.phrases import phrase


def game_id(word: str) -> int | None:
    """`42` or `#42` as a number, else None."""
    word = word.strip().lstrip("#")
    return int(word) if word.isdigit() and len(word) < 10 else None


def split_game(args: list[str]) -> tuple[int | None, list[str]]:
    """A leading game number, if any, and the rest."""
    if args and (number := game_id(args[0])) is not None:
        return number, args[1:]
    return None, args


def require_id(args: list[str], syntax: str, what: str = "challenge") -> int:
    number = game_id(args[0]) if args else None
    if number is None or len(args) != 1:
        raise CommandError(
            phrase("Please name the game by its number.") if what == "game"
            else phrase("Please name the challenge by its number."),
            phrase("Write e.g. {example}.", example=syntax),
        )
    return number
