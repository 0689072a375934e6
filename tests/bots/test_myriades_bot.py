"""The Myriades and Infinito bots: the neutralisation that saves the sum, the lowest stone placed."""

from __future__ import annotations

import pytest

import pbem_bots
from pbem_bots.myriades import best_gain
from pbem_engine.myriades.notation import _square_index
from pbem_engine.registry import create


def position(rules, white: dict[str, int], black: dict[str, int], ply: int):
    return rules.load({"size": rules.size, "ply": ply, "white": white, "black": black, "neutral": [], "last": None})


@pytest.mark.parametrize("kind", ["myriades", "infinito"])
@pytest.mark.parametrize("level", [2, 3])
def test_the_neutralisation_that_saves_the_sum(kind: str, level: int) -> None:
    rules = create(kind)
    # White to move. 40 on a1 may step to b2, next to black's 5 on c3, and so neutralise 45 on j10;
    # 45 could reach d4 beside the 5 as well, but would then neutralise only the 40.
    pos = position(rules, {"a1": 40, "j10": 45, "j1": 30}, {"c3": 5}, ply=4)
    assert rules.turn(pos) == 0
    move, _ = pbem_bots.choose(rules, pos, level, seed=1)
    after = rules.apply(pos, move)
    assert move.step is not None and _square_index("j10", 10) in move.neutralised
    assert move.value == 0
    assert rules.outcome(after).scores[0] == 40 + 30 + 0


@pytest.mark.parametrize("kind", ["myriades", "infinito"])
@pytest.mark.parametrize("level", pbem_bots.LEVELS)
def test_the_first_turn_places_a_low_stone(kind: str, level: int) -> None:
    rules = create(kind)
    move, _ = pbem_bots.choose(rules, rules.start(), level, seed=3)
    assert move.step is None and move.value <= 2
    rules.apply(rules.start(), move)


def test_the_reply_is_spoiled_where_it_can_be() -> None:
    rules = create("myriades")
    # Black to move. White's 49 on f6 can step down the diagonal to i2, beside black's 0 on j1,
    # and neutralise its 48: level 3 judges turns by the best reply and blocks the way.
    pos = position(rules, {"f6": 49, "b10": 48}, {"j1": 0}, ply=3)
    assert rules.turn(pos) == 1 and best_gain(pos.cells, 10, 0) == 48
    for seed in range(3):
        move, _ = pbem_bots.choose(rules, pos, 3, seed=seed)
        after = rules.apply(pos, move)
        assert best_gain(after.cells, 10, 0) == 0, rules.format(pos, move)
