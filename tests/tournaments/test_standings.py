"""Tables from results: points, Sonneborn-Berger, Buchholz, ranks, crosstables and withdrawals.

The small tables are computed by hand (the working is in the comments), not taken from a
handbook, so every number below can be checked with pencil and paper.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.tournaments.pairing import Pairing, round_robin
from pbem.tournaments.standings import (
    ROUND_ROBIN,
    SWISS,
    Mark,
    Result,
    Tiebreak,
    annul,
    crosstable,
    forfeit_remaining,
    table,
    withdrawn_on_time,
)

A, B, C, D = 1, 2, 3, 4

# A round robin of four: A beats B and D, loses to C; B beats C and D; C and D draw.
# Points: A 2, B 2, C 1.5, D 0.5.
# Sonneborn-Berger: A = 2 (B) + 0.5 (D) = 2.5; B = 1.5 (C) + 0.5 (D) = 2;
#                   C = 2 (A) + 0.5 * 0.5 (D) = 2.25; D = 0.5 * 1.5 (C) = 0.75.
FOUR = [
    Result.game(1, A, B, 1), Result.game(1, C, D, 0.5),
    Result.game(2, C, A, 1), Result.game(2, B, D, 1),
    Result.game(3, A, D, 1), Result.game(3, B, C, 1),
]


def test_sonneborn_berger_breaks_the_tie_of_a_round_robin() -> None:
    standings = table([A, B, C, D], FOUR, ROUND_ROBIN)
    assert standings.tiebreaks == (Tiebreak.SONNEBORN_BERGER,)
    assert [(s.rank, s.player, s.points, s.sonneborn_berger) for s in standings.rows] == [
        (1, A, 2, 2.5), (2, B, 2, 2.0), (3, C, 1.5, 2.25), (4, D, 0.5, 0.75),
    ]
    # the same results by Buchholz: A and B both faced everyone, 2 + 1.5 + 0.5 = 4 (A: B, C, D)
    # and 2 + 1.5 + 0.5 = 4 (B: A, C, D), so they share first place
    by_buchholz = table([A, B, C, D], FOUR, (Tiebreak.BUCHHOLZ,))
    assert [(s.rank, s.player, s.buchholz) for s in by_buchholz.rows] == [(1, A, 4), (1, B, 4), (3, C, 4.5), (4, D, 5.5)]


# A Swiss of five over three rounds, a bye (one point) each round:
#   1: 1-4 1-0, 5-2 0-1, 3 bye     2: 2-1 1/2, 3-5 1-0, 4 bye     3: 1-3 1-0, 4-2 0-1, 5 bye
# Points: 1 2.5, 2 2.5, 3 2, 4 1, 5 1.
# Buchholz (a bye adds nothing): 1 = 1 (4) + 2.5 (2) + 2 (3) = 5.5; 2 = 1 (5) + 2.5 (1) + 1 (4) = 4.5;
#   3 = 1 (5) + 2.5 (1) = 3.5; 4 = 2.5 (1) + 2.5 (2) = 5; 5 = 2.5 (2) + 2 (3) = 4.5.
# Median Buchholz drops the best and the worst of three or more: 1 = 2; 2 = 1; the rest as Buchholz.
FIVE = [
    Result.game(1, 1, 4, 1), Result.game(1, 5, 2, 0), Result.bye(1, 3),
    Result.game(2, 2, 1, 0.5), Result.game(2, 3, 5, 1), Result.bye(2, 4),
    Result.game(3, 1, 3, 1), Result.game(3, 4, 2, 0), Result.bye(3, 5),
]


def test_buchholz_and_median_buchholz_rank_a_swiss() -> None:
    standings = table([1, 2, 3, 4, 5], FIVE, SWISS)
    assert standings.tiebreaks == (Tiebreak.BUCHHOLZ, Tiebreak.MEDIAN_BUCHHOLZ)
    assert [(s.rank, s.player, s.points, s.games, s.buchholz, s.median_buchholz) for s in standings.rows] == [
        (1, 1, 2.5, 3, 5.5, 2), (2, 2, 2.5, 3, 4.5, 1), (3, 3, 2, 2, 3.5, 3.5),
        (4, 4, 1, 2, 5, 5), (5, 5, 1, 2, 4.5, 4.5),
    ]
    assert standings.ranking() == [1, 2, 3, 4, 5]
    assert standings.scores() == {1: 2.5, 2: 2.5, 3: 2, 4: 1, 5: 1}


def test_players_equal_on_everything_share_a_rank_in_seed_order() -> None:
    standings = table([7, 3, 9], [Result.game(1, 3, 7, 0.5), Result.bye(1, 9, 0.5)], SWISS)
    assert [(s.rank, s.player) for s in standings.rows] == [(1, 7), (1, 3), (3, 9)]


def test_a_withdrawn_players_remaining_games_are_forfeits() -> None:
    schedule = round_robin([A, B, C, D])
    played = [Result.game(1, p.first, p.second, 1) for p in schedule[0]]  # round 1, white wins
    forfeits = forfeit_remaining(schedule, played, withdrawn=[D])
    assert [(r.round, r.points(D), r.points(r.opponent(D)), r.forfeit) for r in forfeits] == [(2, 0, 1, True), (3, 0, 1, True)]
    met_in_round_one = {x for p in schedule[0] if D in p.players for x in p.players} - {D}
    assert {r.opponent(D) for r in forfeits} | met_in_round_one == {A, B, C}

    standings = table([A, B, C, D], played + forfeits, ROUND_ROBIN, withdrawn=[D])
    assert standings.row(D).withdrawn and standings.row(D).games == 1
    assert D not in standings.ranking()
    assert sum(s.points for s in standings.rows) == 4  # round 1's two games, D's two forfeits


def test_two_withdrawn_players_who_were_to_meet_both_lose() -> None:
    schedule = [[Pairing(A, B), Pairing(C, D)]]
    (forfeit,) = forfeit_remaining(schedule, [], withdrawn=[A, B])
    assert (forfeit.first, forfeit.second, forfeit.first_points, forfeit.second_points) == (A, B, 0, 0)
    assert table([A, B, C, D], [forfeit], ROUND_ROBIN).row(A).points == 0


def test_two_losses_on_time_in_a_row_withdraw_a_player() -> None:
    first = Result.game(1, A, B, 0, on_time=True)  # A lost on time
    second = Result.game(2, C, A, 1, on_time=True)  # and again
    assert withdrawn_on_time(A, [second, first])
    assert not withdrawn_on_time(B, [first, second])  # B won on A's clock
    assert not withdrawn_on_time(A, [first, second, Result.game(3, A, D, 0)])  # the last was over the board
    assert not withdrawn_on_time(A, [first, Result.bye(2, A), Result.game(3, A, D, 0)])
    assert not withdrawn_on_time(A, [first])


def test_annulled_results_leave_the_table_as_if_the_player_never_came() -> None:
    kept = annul(FOUR, D)
    assert all(D not in r.players for r in kept) and len(kept) == 3
    assert table([A, B, C], kept, ROUND_ROBIN).scores() == {A: 1, B: 1, C: 1}


def test_the_crosstable_holds_every_game_of_each_pair_from_each_side() -> None:
    results = [*FOUR, Result.game(4, B, A, 0.5)]  # a second game of A and B
    cross = crosstable(table([A, B, C, D], results, ROUND_ROBIN), results)
    assert cross.players == (A, B, C, D)
    assert cross.cell(A, B) == (Mark(1, 1, True), Mark(4, 0.5, False))
    assert cross.cell(B, A) == (Mark(1, 0, False), Mark(4, 0.5, True))
    assert cross.cell(D, C) == (Mark(1, 0.5, False),)
    assert cross.cell(A, A) == ()
    five = crosstable(table([1, 2, 3, 4, 5], FIVE, SWISS), FIVE)
    assert five.byes[five.players.index(3)] == (Mark(1, 1.0, False),)


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 9), st.booleans(), st.randoms(use_true_random=False))
def test_any_round_robin_table_adds_up(count: int, double: bool, rng) -> None:
    players = list(range(1, count + 1))
    results = [
        Result.game(n, p.first, p.second, rng.choice([0, 0.5, 1])) if p.second is not None else Result.bye(n, p.first, 0)
        for n, boards in enumerate(round_robin(players, double=double), start=1)
        for p in boards
    ]
    standings = table(players, results, ROUND_ROBIN)
    games = (2 if double else 1) * count * (count - 1) // 2
    assert sum(s.points for s in standings.rows) == games
    assert all(s.games == (2 if double else 1) * (count - 1) for s in standings.rows)
    keys = [(s.points, s.sonneborn_berger) for s in standings.rows]
    assert keys == sorted(keys, reverse=True)
    for i, s in enumerate(standings.rows):  # a rank is one more than the number strictly ahead
        assert s.rank == 1 + sum(k > keys[i] for k in keys)
    best = standings.rows[0].points
    assert all(0 <= s.sonneborn_berger <= s.points * best for s in standings.rows)
