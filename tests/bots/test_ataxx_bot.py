"""The Ataxx bots on positions with a known best move."""

from __future__ import annotations

import random

import pytest

import pbem_bots
from pbem_bots.ataxx import greedy
from pbem_engine.ataxx.game import PASS
from pbem_engine.registry import create

VARIANTS = ["ataxx", "infection", "assimilation"]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("level", [2, 3])
def test_the_capture_that_wins_the_game(variant: str, level: int) -> None:
    rules = create(variant)
    # x on a1 and g7; o on c1 and c2: a clone to b1 or b2 takes both and ends the game
    pos = rules.from_fen("6x/7/7/7/7/2o4/x1o4 x 0 1")
    for seed in range(5):
        move, _ = pbem_bots.choose(rules, pos, level, seed)
        after = rules.apply(pos, move)
        assert after.o == 0, rules.format(pos, move)
        assert rules.outcome(after).winner == 0


def test_the_forced_pass() -> None:
    rules = create("ataxx")
    pos = rules.from_fen("7/7/7/7/ooo4/ooo4/xoo4 x 0 1")  # x is walled in; o can still move
    for level in pbem_bots.LEVELS:
        move, _ = pbem_bots.choose(rules, pos, level, seed=1)
        assert move == PASS
        assert rules.format(pos, move) == "pass"


def test_level_three_searches_four_plies_in_the_middle_game() -> None:
    rules = create("ataxx")
    rng = random.Random(9)
    pos = rules.start()
    while rules.ply(pos) < 20:
        pos = rules.apply(pos, greedy(rules, pos, rng))
    assert not rules.outcome(pos).over and pos.empty.bit_count() > 20
    _move, stats = pbem_bots.choose(rules, pos, 3, seed=1)
    assert stats.depth >= 4


def test_level_one_prefers_a_capture_to_a_quiet_jump() -> None:
    rules = create("ataxx")
    pos = rules.from_fen("6x/7/7/7/7/2o4/x1o4 x 0 1")
    for seed in range(20):
        move, _ = pbem_bots.choose(rules, pos, 1, seed)
        taken = rules.effects(pos, rules.apply(pos, move)).taken
        assert taken >= 1, rules.format(pos, move)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_search_sees_the_rules_of_the_engine(variant: str) -> None:
    """On random games to their end: the bot's moves and the states after them are the engine's, and its
    terminal test agrees with the engine's outcome (a side without pieces counts as lost at once)."""
    from pbem_bots.ataxx import AtaxxGame, _to_move

    rules = create(variant, {"blocks": "square"} if variant == "infection" else {})
    game = AtaxxGame(rules)
    rng = random.Random(variant)
    for _ in range(6):
        pos = rules.start()
        while True:
            state = game.state(pos)
            margin = game.terminal(state)
            outcome = rules.outcome(pos)
            if outcome.over:
                assert margin is not None
                winner = None if margin == 0 else pos.turn if margin > 0 else 1 - pos.turn
                assert winner == outcome.winner
                break
            if margin is not None:
                assert not pos.x or not pos.o
                break
            children = list(game.children(state))
            assert {_to_move(m) for m, _child in children} == set(rules.legal_moves(pos))
            for move, child in children:
                assert child == game.state(rules.apply(pos, _to_move(move)))
            pos = rules.apply(pos, rng.choice(rules.legal_moves(pos)))
