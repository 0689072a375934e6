"""Swiss rounds by maximum-weight matching: no repeat, one bye at most, score groups kept.

Tournaments of 7 to 40 players are played over five rounds with results drawn from a
seeded random generator, each round paired from the table of the rounds before, as the
tournament commands will do. For small fields every possible round is tried by brute
force and none is better; for large ones no exchange of partners between two boards is.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import partial
from itertools import groupby

import pytest

from pbem.tournaments.pairing import NoPairing, Pairing, swiss_round
from pbem.tournaments.standings import SWISS, Result, table

ROUNDS = 5


def _play(boards: Sequence[Pairing], number: int, rng: random.Random) -> list[Result]:
    """Random results: white wins 40 in 100, draws 20, loses 40; a bye scores one point."""
    found = []
    for p in boards:
        if p.second is None:
            found.append(Result.bye(number, p.first))
        else:
            found.append(Result.game(number, p.first, p.second, rng.choices([1, 0.5, 0], [4, 2, 4])[0]))
    return found


def _tournament(count: int, seed: int) -> Iterator[tuple[list[int], dict[int, float], list[Pairing], list[Pairing]]]:
    """Each round as (ranking, scores, the history before it, its boards)."""
    rng = random.Random(seed)
    players = [1000 + 3 * i for i in range(count)]
    results: list[Result] = []
    history: list[Pairing] = []
    for number in range(1, ROUNDS + 1):
        standings = table(players, results, SWISS)
        ranking, scores = standings.ranking(), standings.scores()
        boards = swiss_round(ranking, scores, history)
        yield ranking, scores, list(history), boards
        history += boards
        results += _play(boards, number, rng)


def _colour_runs(history: Sequence[Pairing]) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for p in history:
        if p.second is not None:
            found.setdefault(p.first, []).append(1)
            found.setdefault(p.second, []).append(-1)
    return found


def _absolute_faults(colours: list[int], given: int) -> int:
    """The test's own count of the absolute colour rule: past +-2, or three alike in a row."""
    return int(abs(sum(colours) + given) > 2) + int(colours[-2:] == [given, given])


def _pair_faults(a: int, b: int, runs: dict[int, list[int]]) -> int:
    ca, cb = runs.get(a, []), runs.get(b, [])
    return min(
        _absolute_faults(ca, 1) + _absolute_faults(cb, -1), _absolute_faults(ca, -1) + _absolute_faults(cb, 1)
    )


def _half(score: float) -> int:
    return round(2 * score)


def _spread(scores: dict[int, float], a: int, b: int) -> int:
    return (_half(scores[a]) - _half(scores[b])) ** 2


def _cost(boards: Sequence[Pairing], ranking: list[int], scores: dict[int, float], history: list[Pairing]):
    """What a round is judged by, most important first: absolute colour faults, how high the bye
    is in the ranking, the sum of squared score differences (in half points)."""
    runs = _colour_runs(history)
    faults = sum(_pair_faults(p.first, p.second, runs) for p in boards if p.second is not None)
    bye = [ranking.index(p.first) for p in boards if p.second is None]
    spread = sum(_spread(scores, p.first, p.second) for p in boards if p.second is not None)
    return faults, -(bye[0] if bye else 0), spread


def _rounds(players: list[int], met: set[frozenset[int]], byes: set[int]) -> Iterator[list[Pairing]]:
    """Every legal round: no repeat, the bye (if any) to a player who has had none."""
    if len(players) % 2:
        for i, p in enumerate(players):
            if p not in byes:
                for rest in _rounds(players[:i] + players[i + 1 :], met, byes):
                    yield [*rest, Pairing(p)]
        return
    if not players:
        yield []
        return
    first, others = players[0], players[1:]
    for i, q in enumerate(others):
        if frozenset((first, q)) not in met:
            for rest in _rounds(others[:i] + others[i + 1 :], met, byes):
                yield [Pairing(first, q), *rest]


def _check_round(ranking, scores, history, boards) -> None:
    met = [frozenset(p.players) for p in history if p.second is not None]
    had_bye = [p.first for p in history if p.second is None]
    assert sorted(x for p in boards for x in p.players) == sorted(ranking)
    assert not {frozenset(p.players) for p in boards if p.second is not None} & set(met), "a repeat pairing"
    bye = [p.first for p in boards if p.second is None]
    assert len(bye) == len(ranking) % 2
    assert not set(bye) & set(had_bye), "a second bye"
    assert all(not p.bye for p in boards[:-1])  # the bye is the last board


@pytest.mark.parametrize("count", range(7, 41))
def test_five_rounds_with_no_repeat_one_bye_at_most_and_colours_bounded(count: int) -> None:
    history: list[Pairing] = []
    for ranking, scores, before, boards in _tournament(count, seed=count):
        _check_round(ranking, scores, before, boards)
        history = before + boards
    assert max(Counter(p.first for p in history if p.bye).values(), default=0) <= 1
    for player, colours in _colour_runs(history).items():
        assert abs(sum(colours)) <= 2, (player, colours)
        assert max(len(list(run)) for _, run in groupby(colours)) <= 2, (player, colours)
    assert len(history) == ROUNDS * ((count + 1) // 2)


@pytest.mark.parametrize("count, seed", [(7, 1), (8, 2), (9, 3), (10, 4), (7, 5), (9, 6)])
def test_no_possible_round_is_better_for_small_fields(count: int, seed: int) -> None:
    for ranking, scores, history, boards in _tournament(count, seed):
        met = {frozenset(p.players) for p in history if p.second is not None}
        byes = {p.first for p in history if p.second is None}
        best = min(_cost(r, ranking, scores, history) for r in _rounds(ranking, met, byes))
        assert _cost(boards, ranking, scores, history) == best


@pytest.mark.parametrize("count, seed", [(16, 11), (23, 12), (32, 13), (40, 14)])
def test_no_exchange_of_partners_keeps_score_groups_better_in_large_fields(count: int, seed: int) -> None:
    """Score groups kept: trading partners between two boards never lowers the score spread
    without a repeat or an absolute colour fault (a float only where the groups force one)."""
    for _, scores, history, boards in _tournament(count, seed):
        runs = _colour_runs(history)
        met = {frozenset(p.players) for p in history if p.second is not None}
        games = [p for p in boards if p.second is not None]
        spread = partial(_spread, scores)
        for i, x in enumerate(games):
            for y in games[i + 1 :]:
                (a, b), (c, d) = x.players, y.players
                now = spread(a, b) + spread(c, d)
                faults = _pair_faults(a, b, runs) + _pair_faults(c, d, runs)
                for (p, q), (r, s) in (((a, c), (b, d)), ((a, d), (b, c))):
                    if {frozenset((p, q)), frozenset((r, s))} & met:
                        continue
                    if _pair_faults(p, q, runs) + _pair_faults(r, s, runs) > faults:
                        continue
                    assert spread(p, q) + spread(r, s) >= now, (x, y, scores)


def test_the_first_round_pairs_top_half_against_bottom_half_alternating_colours() -> None:
    assert swiss_round([1, 2, 3, 4, 5, 6, 7], {}) == [
        Pairing(1, 4), Pairing(5, 2), Pairing(3, 6), Pairing(7),
    ]


def test_score_groups_pair_inside_and_the_bye_goes_to_the_lowest_without_one() -> None:
    # round 1: 1-5 1-0, 2-6 1-0, 3-7 1-0, 4 bye; round 2: 6-1 0-1, 7-2 0-1, 4-3 0-1, 5 bye
    history = [Pairing(1, 5), Pairing(2, 6), Pairing(3, 7), Pairing(4), Pairing(6, 1), Pairing(7, 2), Pairing(4, 3), Pairing(5)]
    scores = {1: 2, 2: 2, 3: 2, 4: 1, 5: 1, 6: 0, 7: 0}
    boards = swiss_round([1, 2, 3, 4, 5, 6, 7], scores, history)
    # 7 is the lowest without a bye; of the three on 2 points two meet and one floats down to
    # the 1-point pair, whose other member floats down to 6: two floats of one point each
    assert boards[-1] == Pairing(7)
    games = [p for p in boards if not p.bye]
    assert sorted(abs(scores[p.first] - scores[p.second]) for p in games) == [0, 1, 1]
    assert any(6 in p.players and set(p.players) & {4, 5} for p in games)


def test_a_field_that_has_met_everyone_cannot_be_paired() -> None:
    history = [Pairing(1, 2), Pairing(3, 4), Pairing(1, 3), Pairing(2, 4), Pairing(1, 4), Pairing(2, 3)]
    with pytest.raises(NoPairing):
        swiss_round([1, 2, 3, 4], {1: 1, 2: 1, 3: 1, 4: 1}, history)
