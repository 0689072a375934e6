"""Every registered game, played at random to the end, keeps the engine's contract."""

from __future__ import annotations

import copy
import json
import random

import pytest

import pbem_engine
from tests.engine.sentences import sentence

# (game, options): each registered game at its defaults, plus the option corners.
CASES = [(name, {}) for name in pbem_engine.names()] + [
    ("ataxx", {"blocks": "c3 e3 c5 e5"}),
    ("infection", {"blocks": "d4"}),
    ("capturego", {"size": 5, "target": 3}),
    ("capturego", {"size": 19, "target": 5}),
    ("infinito", {"size": 12}),
]
MAX_PLIES = 1500  # the seed Ataxx variants have no automatic draw; a random shuttle is cut here


def _taken_by_scores(rules: pbem_engine.Rules, side: int, before: tuple[int, int], after: tuple[int, int]) -> int:
    """What the service derived from score deltas before `Rules.effects` said it."""
    if rules.score_unit == "pieces":
        return max(before[1 - side] - after[1 - side], 0)
    if rules.score_unit == "captures":
        return max(after[side] - before[side], 0)
    return 0


def _check_position(rules: pbem_engine.Rules, pos) -> None:
    data = rules.dump(pos)
    assert json.loads(json.dumps(data)) == data, "dump must be JSON-safe"
    assert rules.load(data) == pos, "load(dump(p)) must equal p"
    board = rules.render(pos, names=("Alice", "Bob"))
    assert max(len(line) for line in board.splitlines()) <= 72
    assert rules.turn(pos) in (0, 1)


@pytest.mark.parametrize(("name", "options"), CASES, ids=lambda c: str(c))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_playout_keeps_the_contract(name: str, options: dict, seed: int) -> None:
    rules = pbem_engine.create(name, options)
    rng = random.Random(f"{name}{options}{seed}")
    pos = rules.start()
    for ply in range(MAX_PLIES):
        _check_position(rules, pos)
        outcome = rules.outcome(pos)
        legal = rules.legal_moves(pos)
        if legal is not None:
            assert (len(legal) == 0) == outcome.over, f"ply {ply}: outcome and move list disagree"
        if outcome.over:
            with pytest.raises(pbem_engine.IllegalMove):
                rules.sample(pos, rng.choice)
            assert outcome.termination in pbem_engine.Termination and sentence(rules, outcome)
            assert json.loads(json.dumps(dict(outcome.details))) == outcome.details
            break
        move = rules.sample(pos, rng.choice)
        text = rules.format(pos, move)
        assert rules.parse(pos, text) == move, f"format/parse of {text!r}"
        assert rules.format(pos, rules.parse(pos, text.upper())) == text
        before = copy.deepcopy(rules.dump(pos))
        after = rules.apply(pos, move)
        assert rules.dump(pos) == before, "apply must not change its input"
        assert rules.ply(after) == rules.ply(pos) + 1
        assert rules.last_move(after) == move
        effects = rules.effects(pos, after)
        assert effects.taken == _taken_by_scores(rules, rules.turn(pos), outcome.scores, rules.outcome(after).scores)
        assert len(effects.squares) == (effects.taken or effects.neutralised)
        for example in rules.examples(after) if not rules.outcome(after).over else []:
            rules.parse(after, example)  # every example offered is legal
        pos = after
    else:
        assert name in ("infection", "assimilation"), f"{name} did not end in {MAX_PLIES} plies"


def test_registry_names_and_aliases() -> None:
    assert pbem_engine.names() == ["ataxx", "infection", "assimilation", "capturego", "myriades", "infinito"]
    assert pbem_engine.lookup("Capture-Go") is pbem_engine.CaptureGo
    assert pbem_engine.lookup("atari go") is pbem_engine.CaptureGo
    with pytest.raises(pbem_engine.BadOption, match="chess"):
        pbem_engine.lookup("chess")


def test_unknown_option_is_refused_with_the_known_ones() -> None:
    with pytest.raises(pbem_engine.BadOption, match="size"):
        pbem_engine.create("capturego", {"colour": "red"})
