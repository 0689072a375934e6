"""Round robin by Berger tables: every pair meets once (twice when double), colours balanced."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, groupby

import pytest

from pbem.tournaments.pairing import Pairing, round_robin


def _colours(rounds: list[list[Pairing]]) -> dict[int, list[int]]:
    """Each player's colours round by round: +1 white, -1 black (byes left out)."""
    found: dict[int, list[int]] = {}
    for boards in rounds:
        for p in boards:
            if p.second is not None:
                found.setdefault(p.first, []).append(1)
                found.setdefault(p.second, []).append(-1)
    return found


@pytest.mark.parametrize("double", [False, True], ids=["single", "double"])
@pytest.mark.parametrize("count", range(3, 13))
def test_every_pair_meets_once_or_twice_with_colours_balanced(count: int, double: bool) -> None:
    players = [100 + 7 * i for i in range(count)]  # ids that are not their seeds
    rounds = round_robin(players, double=double)
    legs = 2 if double else 1

    assert len(rounds) == legs * (count - 1 + count % 2)
    for boards in rounds:  # everyone is on exactly one board of every round
        assert sorted(x for p in boards for x in p.players) == sorted(players)
        assert sum(p.bye for p in boards) == count % 2
        assert boards[-1].bye or not count % 2  # the bye is the last board
    games = [p for boards in rounds for p in boards if not p.bye]
    met = Counter(frozenset(p.players) for p in games)
    assert met == {frozenset(pair): legs for pair in combinations(players, 2)}
    byes = Counter(p.first for boards in rounds for p in boards if p.bye)
    assert byes == ({p: legs for p in players} if count % 2 else {})

    for player, colours in _colours(rounds).items():
        assert abs(sum(colours)) <= 1, player
        assert max(len(list(run)) for _, run in groupby(colours)) <= 2, (player, colours)  # colours alternate, never three alike in a row
    if double:  # every pairing's colours balanced: each has white once
        assert Counter((p.first, p.second) for p in games) == {
            pair: 1 for a, b in combinations(players, 2) for pair in ((a, b), (b, a))
        }


def test_six_players_follow_the_fide_berger_table() -> None:
    """FIDE Handbook C.05, Annex 1 (Berger tables), the table for 5 or 6 players."""
    table = [
        "1-6 2-5 3-4",
        "6-4 5-3 1-2",
        "2-6 3-1 4-5",
        "6-5 1-4 2-3",
        "3-6 4-2 5-1",
    ]
    expected = [{tuple(int(x) for x in board.split("-")) for board in row.split()} for row in table]
    assert [{(p.first, p.second) for p in boards} for boards in round_robin([1, 2, 3, 4, 5, 6])] == expected
    # with five, number 6 is the bye: the same rounds, its opponent sitting out
    with_bye = [{(a,) if b == 6 else (b,) if a == 6 else (a, b) for a, b in rnd} for rnd in expected]
    assert [{p.players for p in boards} for boards in round_robin([1, 2, 3, 4, 5])] == with_bye


def test_two_players_play_one_game_and_a_double_gives_each_white() -> None:
    assert round_robin([5, 9]) == [[Pairing(5, 9)]]
    assert round_robin([5, 9], double=True) == [[Pairing(5, 9)], [Pairing(9, 5)]]


@pytest.mark.parametrize("players", [[], [1], [1, 2, 1]])
def test_a_field_of_fewer_than_two_or_with_a_repeat_is_refused(players: list[int]) -> None:
    with pytest.raises(ValueError):
        round_robin(players)
