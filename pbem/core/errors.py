"""The errors a player reads: each has a code and parameters beside its English text.

The domain raises them and never imports the command layer; the command runner turns
them into an error section of the reply. `code` and `params` say what went wrong in a
form a program can tell apart; `message` and `hint` are `Phrase`s (an English template
and its fields, from `pbem_engine.common.phrases`) that the reply says in the reader's language, and
`str()` gives the English.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pbem_engine.common.phrases import Phrase

if TYPE_CHECKING:
    from pbem.core.models import Game


class PlayerError(Exception):
    """Something a player asked for that cannot be done; nothing it began is kept."""

    default_code = "error"

    def __init__(
        self,
        message: str | Phrase,
        hint: str | Phrase = "",
        game: Game | None = None,
        *,
        code: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(str(message))
        self.message = message
        self.hint = hint
        self.game = game
        self.code = code or self.default_code
        if params is None and isinstance(message, Phrase):
            params = dict(message.params)
        self.params = dict(params or {})

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()


class CommandError(PlayerError):
    """A command that cannot be done: a wrong argument, a game that is not the player's."""

    default_code = "command"


class GameError(CommandError):
    """A game action the game's state refuses: not your move, the game is over."""

    default_code = "game"


class NotAMove(CommandError):
    """Text that is no move in the game's notation at all: a bare line of chatter, not a mistake."""

    default_code = "move.invalid"


class ClockError(CommandError):
    """A time control, zone or vacation that cannot be; `hint` says what would work."""

    default_code = "clock"
