"""The Capture Go bots: the winning capture, and never a self-atari they can see."""

from __future__ import annotations

import random

import pytest

import pbem_bots
from pbem_bots import Budget
from pbem_bots.ladders import caught
from pbem_engine.go.game import Move
from pbem_engine.registry import create


def liberties_after(rules, pos, move: Move) -> tuple[int, bool]:
    """The liberties of the chain of the stone `move` places, found by a flood fill of the
    diagram after it, and whether the move captured anything."""
    after = rules.apply(pos, move)
    rows = rules.diagram(after)
    n = rules.size
    grid = {(c, n - 1 - r): ch for r, row in enumerate(rows) for c, ch in enumerate(row)}
    colour = grid[(move.col, move.row)]
    chain, todo, libs = {(move.col, move.row)}, [(move.col, move.row)], set()
    while todo:
        c, r = todo.pop()
        for q in ((c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1)):
            if q not in grid:
                continue
            if grid[q] == ".":
                libs.add(q)
            elif grid[q] == colour and q not in chain:
                chain.add(q)
                todo.append(q)
    return len(libs), after.captures != pos.captures


@pytest.mark.parametrize("level", pbem_bots.LEVELS)
def test_the_capture_that_wins(level: int) -> None:
    rules = create("capturego", {"size": 5, "target": 1})
    pos = rules.setup([".....", ".....", ".....", ".XOX.", "..X.."])  # white c2 has one liberty: c3
    for seed in range(5):
        move, _ = pbem_bots.choose(rules, pos, level, seed)
        assert rules.format(pos, move) == "c3"
        assert rules.outcome(rules.apply(pos, move)).winner == 0


@pytest.mark.parametrize("level", pbem_bots.LEVELS)
def test_a_stone_in_atari_runs_away(level: int) -> None:
    rules = create("capturego", {"size": 7, "target": 1})
    # black d4 touched by white on three sides; black to move must extend to d5 (or lose at once)
    pos = rules.setup(
        [".......", ".......", ".......", "..OXO..", "...O...", ".......", "......."], turn=0
    )
    move, _ = pbem_bots.choose(rules, pos, level, seed=3)
    assert rules.format(pos, move) == "d5"


@pytest.mark.parametrize("level", pbem_bots.LEVELS)
def test_a_visible_self_atari_is_never_played(level: int) -> None:
    rules = create("capturego", {"size": 9, "target": 5})
    rng = random.Random(level)
    checked = 0
    for game in range(4):
        pos = rules.start()
        for _ in range(rng.randint(10, 50)):
            if rules.outcome(pos).over:
                break
            pos = rules.apply(pos, rules.sample(pos, rng.choice))
        if rules.outcome(pos).over:
            continue
        move, _ = pbem_bots.choose(rules, pos, level, seed=game, budget=Budget(60 if level > 1 else 0))
        if move.is_pass:
            continue
        libs, captured = liberties_after(rules, pos, move)
        assert libs >= 2 or captured, (rules.diagram(pos), rules.format(pos, move))
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("level", pbem_bots.LEVELS)
def test_the_forced_pass(level: int) -> None:
    rules = create("capturego", {"size": 5, "target": 3})
    # white fills the board but a1 and e5: either point would be suicide for black
    pos = rules.setup(["OOOO.", "OOOOO", "OOOOO", "OOOOO", ".OOOO"], turn=0)
    move, _ = pbem_bots.choose(rules, pos, level, seed=1)
    assert move.is_pass


LADDER = [".......", ".......", ".......", "...X...", "..XO...", "....X..", "......."]
OPEN = [".......", ".......", ".......", "...X...", "..XO...", ".......", "......."]


def test_a_ladder_is_read_to_the_end() -> None:
    rules = create("capturego", {"size": 7, "target": 1})
    white = rules._geo.index_of[Move(3, 2)]  # d3: two liberties, e3 and d2
    assert caught(rules._geo, rules.setup(LADDER, turn=0), white)  # e3, then the chase to the edge
    assert not caught(rules._geo, rules.setup(OPEN, turn=0), white)  # d2 is open: it runs out
    assert not caught(rules._geo, rules.setup(LADDER, turn=1), white)  # white to move extends first


def test_the_bot_starts_the_ladder_that_works() -> None:
    rules = create("capturego", {"size": 7, "target": 1})
    pos = rules.setup(LADDER, turn=0)
    move, _ = pbem_bots.choose(rules, pos, 3, seed=1)
    after = rules.apply(pos, move)
    assert caught(rules._geo, after, rules._geo.index_of[Move(3, 2)]), rules.format(pos, move)
