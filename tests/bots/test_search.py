"""The shared alpha-beta on a game small enough to know: take 1-3 from a pile, the last taker wins."""

from __future__ import annotations

import pytest

from pbem_bots.search import WIN, Budget, search


class Pile:
    """The subtraction game: leaving a multiple of 4 wins."""

    def children(self, n: int, first: int | None = None):
        moves = [k for k in (1, 2, 3) if k <= n]
        if first in moves:
            moves.remove(first)
            moves.insert(0, first)
        return [(k, n - k) for k in moves]

    def terminal(self, n: int) -> int | None:
        return -1 if n == 0 else None  # the side to move took nothing: the other took the last

    def evaluate(self, n: int) -> int:
        return 0

    def key(self, n: int) -> int:
        return n


@pytest.mark.parametrize("pile", [5, 6, 7, 9, 10, 11, 13, 14, 15])
def test_the_winning_move_leaves_a_multiple_of_four(pile: int) -> None:
    move, stats = search(Pile(), pile, Budget(100_000))
    assert (pile - move) % 4 == 0
    assert stats.score > WIN - 1000  # found as a forced win


def test_a_lost_pile_is_known_lost() -> None:
    _move, stats = search(Pile(), 12, Budget(100_000))
    assert stats.score < -WIN + 1000


def test_the_node_budget_stops_deepening_but_the_first_ply_completes() -> None:
    move, stats = search(Pile(), 30, Budget(1))
    assert move in (1, 2, 3) and stats.depth == 1


def test_a_deadline_that_has_passed_stops_after_the_first_ply() -> None:
    asked = []

    def deadline() -> bool:
        asked.append(1)
        return True

    _move, stats = search(Pile(), 30, Budget(10**6, deadline=deadline))
    assert stats.depth == 1 and asked
