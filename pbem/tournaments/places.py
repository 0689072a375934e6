"""A ladder: players in places, a challenge up to `reach` places above, the winner takes the higher place.

Kept as an immutable list of places (first place first), so every change is a new
ladder a command can store in one go and a test can compare. A challenge that the
lower player wins swaps the two players; a win of the higher player or a draw leaves the
ladder as it was. A newcomer starts at the bottom; a player who leaves opens their place
and everyone below moves up one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ladder:
    """The players in place order (place 1 first) and how many places above one may challenge."""

    players: tuple[int, ...] = ()
    reach: int = 3

    def __post_init__(self) -> None:
        if len(set(self.players)) != len(self.players):
            raise ValueError("a player holds two places")
        if self.reach < 1:
            raise ValueError("a ladder's reach is at least one place")

    def place(self, player: int) -> int:
        """The player's place, 1 for the top."""
        return self.players.index(player) + 1

    def place_of(self, player: int) -> int | None:
        """The player's place, or None for one not on the ladder."""
        return self.place(player) if player in self.players else None

    def refusal(self, challenger: int, defender: int) -> str | None:
        """Why the challenger may not challenge the defender (a code for the command's error), or None.

        "absent": one is not on the ladder; "self"; "below": the defender is not above;
        "beyond": the defender is more than `reach` places above.
        """
        if challenger not in self.players or defender not in self.players:
            return "absent"
        if challenger == defender:
            return "self"
        gap = self.place(challenger) - self.place(defender)
        if gap <= 0:
            return "below"
        if gap > self.reach:
            return "beyond"
        return None

    def may_challenge(self, challenger: int, defender: int) -> bool:
        return self.refusal(challenger, defender) is None

    def targets(self, challenger: int) -> tuple[int, ...]:
        """Whom the challenger may challenge, nearest first."""
        at = self.place(challenger) - 1
        return tuple(reversed(self.players[max(0, at - self.reach) : at]))

    def after(self, challenger: int, defender: int, winner: int | None) -> Ladder:
        """The ladder after a challenge game: `winner` None for a draw."""
        reason = self.refusal(challenger, defender)
        if reason is not None:
            raise ValueError(f"not a challenge of this ladder ({reason})")
        if winner not in (challenger, defender, None):
            raise ValueError("the winner is neither player")
        if winner != challenger:
            return self
        places = list(self.players)
        low, high = places.index(challenger), places.index(defender)
        places[low], places[high] = defender, challenger
        return Ladder(tuple(places), self.reach)

    def settle(self, one: int, other: int, winner: int | None) -> Ladder:
        """The ladder after a game of the two, as it stands when the game ends: the winner takes
        the higher place if they held the lower one; a draw, or a win of the higher player,
        changes nothing. Other results may have moved both since the challenge, so unlike
        `after` this asks nothing of the reach; a player no longer on the ladder (withdrawn
        meanwhile) changes nothing either."""
        if winner not in (one, other, None):
            raise ValueError("the winner is neither player")
        if winner is None or one not in self.players or other not in self.players:
            return self
        loser = other if winner == one else one
        if self.place(winner) < self.place(loser):
            return self
        places = list(self.players)
        low, high = places.index(winner), places.index(loser)
        places[low], places[high] = loser, winner
        return Ladder(tuple(places), self.reach)

    def join(self, player: int) -> Ladder:
        """A newcomer at the bottom."""
        if player in self.players:
            raise ValueError("already on the ladder")
        return Ladder((*self.players, player), self.reach)

    def leave(self, player: int) -> Ladder:
        """Without the player; those below move up one place."""
        return Ladder(tuple(p for p in self.players if p != player), self.reach)
