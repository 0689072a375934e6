"""The errors a player can read, python-chess style: English text plus a stable code and parameters.

`message` is the English sentence for the player; `code` (e.g. "move.occupied") and `params`
(the facts the sentence is built from) let a translator rebuild it in another language; `hint`
shows the right form with an example that is legal now (may be empty).

Two kinds of move error, so a mail reader can tell chatter from a mistake:

- `InvalidMove`: the text is not this game's move notation at all ("g2 looks good", "ok thanks"):
  it holds a word or character the notation has no place for. A reader may treat the line as
  conversation instead of answering it with an error.
- `IllegalMove`: the text is written in the game's notation (squares, numbers, its own words)
  but names a move the rules forbid now: an occupied or off-board square, a jump too far,
  suicide, superko, a turn with a part missing, a finished game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem_engine.common.phrases import Phrase


class EngineError(ValueError):
    """An error whose message is written for the player who caused it, with a code for translators.

    `message` and `hint` are `Phrase`s (an English template and its fields), which the
    service says in the reader's language; `str()` of either is the English sentence."""

    def __init__(
        self,
        message: str | Phrase,
        *,
        code: str,
        params: Mapping[str, Any] | None = None,
        hint: str | Phrase = "",
    ) -> None:
        super().__init__(str(message))
        self.message = message
        self.code = code
        if params is None and isinstance(message, Phrase):
            params = message.params
        self.params: dict[str, Any] = dict(params or {})
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r}, params={self.params!r})"


class BadOption(EngineError):
    """A game option (or game name) that is unknown or out of range."""


class MoveError(EngineError):
    """Move text the engine will not play; see `InvalidMove` and `IllegalMove`."""


class InvalidMove(MoveError):
    """The text is not this game's move notation at all: likely conversation, not a move."""


class IllegalMove(MoveError):
    """A move written in the game's notation that the rules forbid now."""
