"""Glicko-2 against Glickman's worked example, and which endings rate."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from pbem.core.models import Game, Rating
from pbem.games import ratings, records
from pbem.games import store as G
from pbem.games.ratings import Glicko, update
from tests.cli.admin.conftest import NOW


def test_glickmans_example() -> None:
    """The example in "Example of the Glicko-2 system" (Glickman 2013), tau 0.5."""
    after = update(Glicko(1500, 200, 0.06), [(Glicko(1400, 30), 1), (Glicko(1550, 100), 0), (Glicko(1700, 300), 0)])
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = update(Glicko(1600, 100, 0.06), [])
    assert after.rating == 1600 and after.deviation == pytest.approx((100**2 + (0.06 * 173.7178) ** 2) ** 0.5)


def _ratings(db, kind: str) -> dict[int, tuple[float, int]]:
    with Session(db.engine) as session:
        return {r.player_id: (r.rating, r.games) for r in session.exec(select(Rating).where(Rating.kind == kind))}


def test_a_finished_game_rates_both_players_and_a_cancelled_one_does_not(db) -> None:
    won = db.random_game("capturego", {"size": 7, "target": 1}, seed=4)
    winner = db.get(won).winner
    table = _ratings(db, "capturego")
    assert len(table) == 2
    winner_id = db.get(won).player_id(winner)
    assert table[winner_id][0] > 1500 > table[db.get(won).player_id(1 - winner)][0]
    assert {games for _, games in table.values()} == {1}

    cancelled = db.game("capturego", ["d4"], {"size": 7})
    with Session(db.engine) as session, session.begin():
        G.cancel(session, session.get(Game, cancelled), "test", NOW)
    assert _ratings(db, "capturego") == table

    drawn = db.game("ataxx", ["f2"])
    with Session(db.engine) as session, session.begin():
        G.adjudicate(session, session.get(Game, drawn), None, "agreed by mail", NOW)
    assert [r for r, _ in _ratings(db, "ataxx").values()] == [1500.0, 1500.0]  # equal players, a draw


def test_statistics_use_each_games_side_names(db) -> None:
    for winner in (0, 0, 1, None):
        game_id = db.game("myriades", [])
        with Session(db.engine) as session, session.begin():
            G.adjudicate(session, session.get(Game, game_id), winner, "test", NOW)
    db.game("myriades", [])  # in progress: not counted
    with Session(db.engine) as session:
        (row,) = records.statistics(session, "myriades")
        assert row["games"] == 4
        assert row["line"] == "white 2 (50.00%), black 1 (25.00%), draw 1 (25.00%)"
        assert records.statistics(session, "ataxx")[0]["line"] == "x 0 (0.00%), o 0 (0.00%), draw 0 (0.00%)"
        table = ratings.table(session, "myriades")
    assert [r["games"] for r in table] == [4, 4] and table[0]["rating"] > table[1]["rating"]
