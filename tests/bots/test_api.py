"""The bots' public API: names, levels, determinism, and legal moves in every game at every level."""

from __future__ import annotations

import random

import pytest

import pbem_bots
from pbem_bots import Budget
from pbem_engine.registry import create

KINDS = [
    ("ataxx", {}),
    ("infection", {"blocks": "cross"}),
    ("assimilation", {}),
    ("capturego", {"size": 9, "target": 5}),
    ("capturego", {"size": 7, "target": 1}),
    ("myriades", {}),
    ("infinito", {"size": 12}),
]
#: small budgets: these tests are about legality and determinism, not strength
SMALL = {"ataxx": 400, "capturego": 40, "myriades": 3}


def random_positions(rules, seed: int, count: int = 3, plies: tuple[int, int] = (0, 40)):
    """A few positions reached by random play, none of them over."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        pos = rules.start()
        for _ in range(rng.randint(*plies)):
            if rules.outcome(pos).over:
                break
            pos = rules.apply(pos, rules.sample(pos, rng.choice))
        if not rules.outcome(pos).over:
            found.append(pos)
    return found


def test_name_and_levels() -> None:
    assert pbem_bots.name("ataxx", 3) == "bot-ataxx-3"
    assert pbem_bots.name("capturego", 1) == "bot-capturego-1"
    assert pbem_bots.LEVELS == (1, 2, 3)
    with pytest.raises(ValueError):
        pbem_bots.name("ataxx", 4)


def test_a_finished_game_has_no_bot_move() -> None:
    rules = create("infection")
    over = rules.from_fen("7/7/7/7/ooo4/ooo4/xoo4 x 0 1")  # x cannot move: over in infection
    assert rules.outcome(over).over
    with pytest.raises(ValueError):
        pbem_bots.choose(rules, over, 2, seed=1)


def test_a_bad_level_is_refused() -> None:
    rules = create("ataxx")
    with pytest.raises(ValueError):
        pbem_bots.choose(rules, rules.start(), 0, seed=1)


@pytest.mark.parametrize(("kind", "options"), KINDS, ids=[f"{k}{o}" for k, o in KINDS])
@pytest.mark.parametrize("level", pbem_bots.LEVELS)
def test_every_level_plays_legal_moves_on_random_positions(kind: str, options: dict, level: int) -> None:
    rules = create(kind, options)
    budget = Budget(SMALL[rules.family])
    for pos in random_positions(rules, seed=level * 31 + len(kind)):
        move, stats = pbem_bots.choose(rules, pos, level, seed=7, budget=budget)
        text = rules.format(pos, move)
        after = rules.apply(pos, move)  # raises on an illegal move
        assert rules.play(pos, text)[0] == after  # the text the service would store reads back
        assert stats.nodes >= 0 and stats.depth >= 0


@pytest.mark.parametrize(("kind", "options"), KINDS, ids=[f"{k}{o}" for k, o in KINDS])
@pytest.mark.parametrize("level", pbem_bots.LEVELS)
def test_the_same_seed_gives_the_same_move(kind: str, options: dict, level: int) -> None:
    rules = create(kind, options)
    budget = Budget(SMALL[rules.family])
    pos = random_positions(rules, seed=5, count=1, plies=(6, 20))[0]
    first = pbem_bots.choose(rules, pos, level, seed=42, budget=budget)
    again = pbem_bots.choose(rules, pos, level, seed=42, budget=budget)
    assert first == again


@pytest.mark.parametrize(("kind", "options"), KINDS, ids=[f"{k}{o}" for k, o in KINDS])
def test_level_one_varies_with_the_seed_and_stays_legal(kind: str, options: dict) -> None:
    rules = create(kind, options)
    pos = random_positions(rules, seed=11, count=1, plies=(4, 10))[0]
    moves = set()
    for seed in range(20):
        move, _ = pbem_bots.choose(rules, pos, 1, seed=seed)
        rules.apply(pos, move)
        moves.add(rules.format(pos, move))
    assert len(moves) > 1


def test_a_whole_game_between_two_bots_finishes() -> None:
    rules = create("capturego", {"size": 5, "target": 2})
    pos = rules.start()
    for ply in range(200):
        if rules.outcome(pos).over:
            break
        move, _ = pbem_bots.choose(rules, pos, 1 + ply % 2 * 2, seed=ply, budget=Budget(60))
        pos = rules.apply(pos, move)
    assert rules.outcome(pos).over


def test_an_expired_deadline_still_gives_a_searched_move() -> None:
    rules = create("ataxx")
    pos = random_positions(rules, seed=3, count=1, plies=(10, 20))[0]
    move, stats = pbem_bots.choose(rules, pos, 3, seed=1, budget=Budget(10**9, deadline=lambda: True))
    rules.apply(pos, move)
    assert stats.depth == 1
