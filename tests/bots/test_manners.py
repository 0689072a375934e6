"""A bot's answers to its opponent's offers: a draw only when it is not ahead, a take-back at level 1."""

from __future__ import annotations

import pytest

import pbem_bots
from pbem_bots.manners import score
from pbem_engine.registry import create

# x (side 0) has most of the board, o one piece; and the same the other way round
ATAXX_X_AHEAD = "xxxxxxx/xxxxxxx/xxxxxxx/7/7/7/6o o 0 1"
ATAXX_X_BEHIND = "ooooooo/ooooooo/ooooooo/7/7/7/6x x 0 1"


@pytest.mark.parametrize("level", pbem_bots.LEVELS)
@pytest.mark.parametrize("variant", ["ataxx", "infection", "assimilation"])
def test_ataxx_refuses_when_clearly_winning_and_accepts_when_losing(variant: str, level: int) -> None:
    rules = create(variant)
    ahead, behind = rules.from_fen(ATAXX_X_AHEAD), rules.from_fen(ATAXX_X_BEHIND)
    # the bot plays x, on move or not
    assert not pbem_bots.accepts_draw(rules, ahead, 0, level)
    assert pbem_bots.accepts_draw(rules, behind, 0, level)
    # the same positions seen by a bot playing o
    assert pbem_bots.accepts_draw(rules, ahead, 1, level)
    assert not pbem_bots.accepts_draw(rules, behind, 1, level)


def test_the_score_is_the_bots_whoever_is_on_move() -> None:
    rules = create("ataxx")
    pos = rules.from_fen(ATAXX_X_AHEAD)
    assert rules.turn(pos) == 1
    assert score(rules, pos, 0) > 0 > score(rules, pos, 1)
    assert score(rules, pos, 0) == -score(rules, pos, 1)


def test_a_small_lead_is_refused_above_level_one_and_accepted_by_level_one() -> None:
    rules = create("ataxx")
    # x two pieces up, each side in its own corner, o on move: ahead, not "clearly winning"
    pos = rules.from_fen("xxx4/x6/7/7/7/7/5oo o 0 1")
    assert 0 < score(rules, pos, 0) < pbem_bots.manners.CLEAR["ataxx"]
    assert not pbem_bots.accepts_draw(rules, pos, 0, 2)
    assert not pbem_bots.accepts_draw(rules, pos, 0, 3)
    assert pbem_bots.accepts_draw(rules, pos, 0, 1)


@pytest.mark.parametrize("level", pbem_bots.LEVELS)
def test_capturego_refuses_with_a_capture_at_hand_and_accepts_in_atari(level: int) -> None:
    rules = create("capturego", {"size": 5, "target": 1})
    # white c2 has one liberty, c3: black to move takes it and wins
    pos = rules.setup([".....", ".....", ".....", ".XOX.", "..X.."], turn=0)
    assert not pbem_bots.accepts_draw(rules, pos, 0, level)  # black, the bot, is winning
    assert pbem_bots.accepts_draw(rules, pos, 1, level)  # white, the bot, is lost


@pytest.mark.parametrize("level", pbem_bots.LEVELS)
def test_capturego_accepts_an_even_empty_board_only_when_not_ahead(level: int) -> None:
    rules = create("capturego", {"size": 5, "target": 3})
    pos = rules.start()
    ahead = score(rules, pos, 0)
    assert abs(ahead) < pbem_bots.manners.CLEAR["capturego"]
    assert pbem_bots.accepts_draw(rules, pos, 0, level) is (level == 1 or ahead <= 0)


def _myriades(rules, white: dict[str, int], black: dict[str, int], ply: int):
    return rules.load({"size": rules.size, "ply": ply, "white": white, "black": black, "neutral": [], "last": None})


@pytest.mark.parametrize("level", pbem_bots.LEVELS)
@pytest.mark.parametrize("kind", ["myriades", "infinito"])
def test_myriades_refuses_with_the_lower_sum_and_accepts_with_the_higher(kind: str, level: int) -> None:
    rules = create(kind)
    # white's stones sum to 3, black's to 90 (the lower sum wins); no step triggers anything
    pos = _myriades(rules, {"a1": 1, "a10": 2}, {"j1": 45, "j10": 45}, ply=4)
    assert rules.turn(pos) == 0
    assert not pbem_bots.accepts_draw(rules, pos, 0, level)
    assert pbem_bots.accepts_draw(rules, pos, 1, level)


def test_a_finished_game_scores_its_result() -> None:
    rules = create("ataxx")
    pos = rules.from_fen("xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxo x 0 1")
    assert rules.outcome(pos).over
    assert not pbem_bots.accepts_draw(rules, pos, 0, 1) and pbem_bots.accepts_draw(rules, pos, 1, 3)


def test_the_judgement_is_the_same_every_time() -> None:
    rules = create("ataxx")
    pos = rules.start()
    assert len({score(rules, pos, 0) for _ in range(3)}) == 1


def test_take_backs_at_level_one_only() -> None:
    assert [pbem_bots.accepts_takeback(level) for level in pbem_bots.LEVELS] == [True, False, False]
