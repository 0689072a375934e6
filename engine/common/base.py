"""The contract every game implements, and the errors a player can read.

A game is a `Rules` subclass: a class-level description (name, sides, options) plus an
instance bound to validated options. Positions are immutable values; every operation is
a pure function of (rules, position[, move]). The service stores `dump(position)` and the
canonical move texts, and never re-implements a rule.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, TypeVar

from pbem_engine.common.errors import BadOption, EngineError, IllegalMove, InvalidMove, MoveError
from pbem_engine.common.phrases import Phrase, phrase

__all__ = [
    "BadOption", "Effects", "EngineError", "IllegalMove", "InvalidMove", "MoveError", "Option",
    "Outcome", "Rules", "Termination", "int_option",
]

P = TypeVar("P")  # a game's position type (immutable)
M = TypeVar("M")  # a game's move type (immutable, hashable)


class Termination(StrEnum):
    """Why a game ended by its rules; the values are stable lower-case strings (stored, translated).

    `Outcome.details` holds the facts a sentence about it needs (see templates/_termination.txt).
    """

    #: no empty square is left ({})
    BOARD_FULL = "board_full"
    #: a side has no pieces ({"side": s}; Infection adds {"squares": n, "to": s} for the credit)
    NO_PIECES = "no_pieces"
    #: the side to move cannot move and may not pass ({"side": s}, credit as for NO_PIECES)
    NO_MOVES = "no_moves"
    #: empty squares remain, but none is within reach of any piece ({})
    OUT_OF_REACH = "out_of_reach"
    #: the draw after so many plies without a clone ({"plies": n})
    QUIET_PLIES = "quiet_plies"
    #: a side captured the target number of stones ({"side": s, "captures": n})
    TARGET_CAPTURES = "target_captures"
    #: two passes in a row ({"captures": [b, w]}, plus {"side": s} for the winner)
    BOTH_PASSED = "both_passed"


@dataclass(frozen=True)
class Outcome:
    """Everything a result mail needs, derived in one place per game.

    `winner` is a side index (0 moves first) or None for a draw or an unfinished game.
    `termination` says why a finished game ended (None while it runs) and `details` the facts
    of that ending (JSON-safe), so templates write the sentence, in any language.
    `scores` are per side in the game's own unit (`score_unit`); `credited` holds the
    empty squares awarded at the end (Infection only, otherwise zeros).
    """

    over: bool
    winner: int | None
    termination: Termination | None
    scores: tuple[int, int]
    credited: tuple[int, int] = (0, 0)
    details: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def draw(self) -> bool:
        return self.over and self.winner is None


@dataclass(frozen=True)
class Effects:
    """What one move took, for the sentence about it ("and took 2 of your pieces").

    `taken`: the opponent's pieces a move turned (Ataxx) or stones it captured (Capture Go), 0
    where the game has no such loss. `squares`: where they were, canonical names in board order.
    `neutralised`: the mover's own stones made neutral (Myriades and Infinito).
    """

    taken: int = 0
    squares: tuple[str, ...] = ()
    neutralised: int = 0


@dataclass(frozen=True)
class Option:
    """One game option: its default, how a text value becomes a value, and a help line (a
    phrase, said in the reader's language)."""

    name: str
    default: Any
    help: str | Phrase
    convert: Callable[[Any], Any] = field(repr=False, default=lambda v: v)


def int_option(name: str, lo: int, hi: int | None) -> Callable[[Any], int]:
    """A converter for an integer option in [lo, hi] with a message a player can act on."""

    def convert(value: Any) -> int:
        try:
            number = int(str(value).strip())
        except ValueError:
            raise BadOption(
                phrase(
                    "{option}={value} is not a whole number; write e.g. {option}={example}.",
                    option=name, value=str(value), example=str(lo),
                ),
                code="option.not_a_number",
                params={"option": name, "value": str(value), "example": lo},
            ) from None
        if number < lo or (hi is not None and number > hi):
            if hi is not None:
                said = phrase(
                    "{option}={value} is out of range; {option} must be from {min} to {max}.",
                    option=name, value=number, min=lo, max=hi,
                )
            else:
                said = phrase(
                    "{option}={value} is out of range; {option} must be at least {min}.",
                    option=name, value=number, min=lo,
                )
            raise BadOption(
                said,
                code="option.out_of_range",
                params={"option": name, "value": number, "min": lo, "max": hi},
            )
        return number

    return convert


class Rules(ABC, Generic[P, M]):
    """A game bound to its options. Subclass once per game; variants subclass the game."""

    #: registry name, lower case (e.g. "ataxx")
    name: ClassVar[str]
    #: other names accepted in a challenge (e.g. "capture-go")
    aliases: ClassVar[tuple[str, ...]] = ()
    #: a human title ("Capture Go")
    title: ClassVar[str]
    #: the family a `variant=` option may switch within (e.g. "ataxx" for infection)
    family: ClassVar[str]
    #: side names, index 0 moves first (e.g. ("x", "o"), ("black", "white"))
    sides: ClassVar[tuple[str, str]]
    #: what the scores count ("pieces", "captures", "sum")
    score_unit: ClassVar[str]
    #: True when the lower score wins (Myriades)
    lower_wins: ClassVar[bool] = False
    #: the options this game accepts, by name
    option_specs: ClassVar[tuple[Option, ...]] = ()
    #: how the records layer exports a game: "text" (tag lines, then one move per line in the
    #: game's notation, plus `record_tags`) or "sgf" (a game on a square grid of `options["size"]`
    #: whose rules also give `sgf_point(move)`, `from_sgf_point(point)` and the classmethod
    #: `record_options(size, root_properties)`; see CaptureGo)
    record_format: ClassVar[str] = "text"

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        given = dict(options or {})
        known = {o.name: o for o in self.option_specs}
        unknown = sorted(set(given) - set(known))
        if unknown:
            if known:
                said = phrase(
                    "{title} has no option '{option}'; its options are: {options}.",
                    title=self.title, option=unknown[0], options=list(known),
                )
            else:
                said = phrase(
                    "{title} has no option '{option}'; its options are: none.",
                    title=self.title, option=unknown[0],
                )
            raise BadOption(
                said,
                code="option.unknown",
                params={"game": self.name, "option": unknown[0], "known": list(known)},
            )
        self.options: dict[str, Any] = {
            o.name: o.convert(given[o.name]) if o.name in given else o.default for o in self.option_specs
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"

    def describe(self) -> str | Phrase:
        """A one-line description for mails ("infection 7x7, 4 blocks"), as a phrase."""
        return self.name

    # -- positions -------------------------------------------------------------------
    @abstractmethod
    def start(self) -> P:
        """The initial position."""

    @abstractmethod
    def turn(self, pos: P) -> int:
        """The side to move: 0 or 1."""

    @abstractmethod
    def ply(self, pos: P) -> int:
        """How many moves (turns, passes included) led to this position."""

    @abstractmethod
    def last_move(self, pos: P) -> M | None:
        """The move that led to this position, for marking it on the board."""

    # -- moves -----------------------------------------------------------------------
    @abstractmethod
    def parse(self, pos: P, text: str) -> M:
        """Read a player's move leniently; return a legal move, or raise InvalidMove (not this
        game's notation: likely chatter) or IllegalMove (notation the rules forbid now)."""

    @abstractmethod
    def format(self, pos: P, move: M) -> str:
        """The canonical text of a move played from `pos`; `parse(pos, ...)` reads it back."""

    def legal_moves(self, pos: P) -> Sequence[M] | None:
        """All legal moves, or None where they are not a finite list (Myriades)."""
        return None

    def sample(self, pos: P, pick: Callable[[Sequence[Any]], Any]) -> M:
        """One legal move chosen by `pick` (e.g. `random.Random(7).choice`), step by step
        where moves are not a finite list. The engine owns no randomness; callers do."""
        moves = self.legal_moves(pos)
        if not moves:
            raise IllegalMove(phrase("There is no legal move in this position."), code="move.none_legal")
        move: M = pick(moves)
        return move

    @abstractmethod
    def examples(self, pos: P) -> list[str]:
        """A few canonical moves that are legal now, for "e.g." lines in mails."""

    @abstractmethod
    def notation(self) -> Phrase:
        """How to write a move in this game, in one or two sentences (one phrase)."""

    @abstractmethod
    def apply(self, pos: P, move: M) -> P:
        """The position after a legal move; `pos` is never changed."""

    def play(self, pos: P, text: str) -> tuple[P, M]:
        """Parse then apply: the common path of the service."""
        move = self.parse(pos, text)
        return self.apply(pos, move), move

    # -- results ---------------------------------------------------------------------
    @abstractmethod
    def outcome(self, pos: P) -> Outcome:
        """Over or not, winner or draw, the termination and its details, and both scores."""

    def effects(self, before: P, after: P) -> Effects:
        """What the move from `before` to `after` took (`after` = `apply(before, move)`).

        The default says nothing was taken; games with captures or conversions override it."""
        return Effects()

    # -- records (the hook the records layer exports through) ------------------------
    def record_tags(self) -> list[tuple[str, str]]:
        """Setup tags a record of this game carries and checks on replay (e.g. Ataxx's start FEN).

        For an "sgf" game: extra root properties (identifier, value) beside SZ."""
        return []

    # -- presentation and storage ----------------------------------------------------
    @abstractmethod
    def render(
        self,
        pos: P,
        names: tuple[str, str] | None = None,
        finished: bool = False,
        *,
        say: Callable[[Phrase], str] = str,
    ) -> str:
        """A fixed-width board of at most 72 display columns: coordinates on four sides, legend,
        scores, the last move marked. `names` labels the sides in the legend; `finished`
        says the game ended off the board (a resignation, time, an agreement), so the
        legend names no one to move. Every word of the legend is a `Phrase` passed through
        `say` (English by default; the service passes a speaker's `say`); the grid stays
        ASCII, and a legend too wide to stand beside it goes below it."""

    @abstractmethod
    def dump(self, pos: P) -> dict[str, Any]:
        """A JSON-safe dict; `load(dump(p)) == p`."""

    @abstractmethod
    def load(self, data: Mapping[str, Any]) -> P:
        """The inverse of `dump`."""
