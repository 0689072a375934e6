"""A ladder: challenges up to N places above, the winner takes the higher place."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.tournaments.places import Ladder

LADDER = Ladder((10, 20, 30, 40, 50, 60), reach=2)


def test_a_player_may_challenge_up_to_reach_places_above() -> None:
    assert LADDER.place(10) == 1 and LADDER.place(60) == 6
    assert LADDER.targets(50) == (40, 30)  # nearest first
    assert LADDER.targets(20) == (10,) and LADDER.targets(10) == ()
    assert LADDER.may_challenge(50, 30)
    assert LADDER.refusal(50, 20) == "beyond"
    assert LADDER.refusal(30, 50) == "below"
    assert LADDER.refusal(30, 30) == "self"
    assert LADDER.refusal(30, 99) == "absent"


def test_the_winner_takes_the_higher_place() -> None:
    assert LADDER.after(50, 30, winner=50).players == (10, 20, 50, 40, 30, 60)
    assert LADDER.after(50, 30, winner=30) == LADDER  # the defender keeps the place
    assert LADDER.after(50, 30, winner=None) == LADDER  # and a draw changes nothing
    with pytest.raises(ValueError):
        LADDER.after(60, 10, winner=60)  # not a challenge this ladder allows
    with pytest.raises(ValueError):
        LADDER.after(50, 30, winner=10)


def test_newcomers_start_at_the_bottom_and_leavers_open_their_place() -> None:
    assert LADDER.join(70).players[-1] == 70
    assert LADDER.leave(30).players == (10, 20, 40, 50, 60)
    with pytest.raises(ValueError):
        LADDER.join(10)
    with pytest.raises(ValueError):
        Ladder((1, 1))
    with pytest.raises(ValueError):
        Ladder((1, 2), reach=0)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 12),
    st.integers(1, 4),
    st.lists(st.tuples(st.integers(0, 100), st.integers(1, 4), st.sampled_from(["up", "down", "draw"])), max_size=30),
)
def test_any_run_of_challenges_keeps_every_player_once_and_the_winner_above(
    count: int, reach: int, challenges: list[tuple[int, int, str]]
) -> None:
    ladder = Ladder(tuple(range(count)), reach)
    for who, gap, outcome in challenges:
        challenger = ladder.players[1 + who % (count - 1)]
        targets = ladder.targets(challenger)
        assert len(targets) == min(reach, ladder.place(challenger) - 1)
        defender = targets[(gap - 1) % len(targets)]
        winner = {"up": challenger, "down": defender, "draw": None}[outcome]
        before = ladder
        ladder = ladder.after(challenger, defender, winner)
        assert sorted(ladder.players) == list(range(count))
        if winner is not None:
            loser = defender if winner == challenger else challenger
            assert ladder.place(winner) < ladder.place(loser)
            assert ladder.place(winner) == min(before.place(challenger), before.place(defender))
        moved = [p for p in ladder.players if ladder.place(p) != before.place(p)]
        assert set(moved) in (set(), {challenger, defender})


def test_a_game_settled_after_the_places_moved_still_gives_the_winner_the_higher_place() -> None:
    # 50 challenged 30 from place 5; meanwhile 30 fell to place 4 and 50 stayed at 5
    moved = Ladder((10, 20, 40, 30, 50, 60), reach=2)
    assert moved.settle(50, 30, winner=50).players == (10, 20, 40, 50, 30, 60)
    assert moved.settle(50, 30, winner=30) == moved  # the higher player won: nothing moves
    assert moved.settle(50, 30, winner=None) == moved
    # the challenger climbed above the defender meanwhile: a win keeps things as they are
    above = Ladder((10, 50, 20, 30, 40, 60), reach=2)
    assert above.settle(50, 30, winner=50) == above
    assert above.settle(50, 30, winner=30).players == (10, 30, 20, 50, 40, 60)
    # far apart now: the swap needs no reach
    assert Ladder((30, 1, 2, 3, 4, 50)).settle(50, 30, winner=50).players == (50, 1, 2, 3, 4, 30)
    # one left the ladder meanwhile: nothing moves
    assert LADDER.settle(50, 99, winner=50) == LADDER
    with pytest.raises(ValueError):
        LADDER.settle(50, 30, winner=10)
