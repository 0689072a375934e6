"""`Rules.effects(before, after)`: what one move took, per game."""

from __future__ import annotations

import pbem_engine
from pbem_engine import Effects
from pbem_engine.ataxx.game import Ataxx, from_fen


def _play(rules: pbem_engine.Rules, *texts: str, pos=None):
    pos = rules.start() if pos is None else pos
    for text in texts:
        before, pos = pos, rules.apply(pos, rules.parse(pos, text))
    return before, pos


def test_ataxx_counts_and_names_the_turned_pieces() -> None:
    rules = Ataxx()
    pos = from_fen("7/7/7/2oo3/2x4/7/7 x 0 1")
    before, after = _play(rules, "d3", pos=pos)  # clone next to c4 and d4
    assert rules.effects(before, after) == Effects(2, ("c4", "d4"))
    assert rules.effects(*_play(rules, "f2")) == Effects()  # nothing next to f2 to turn
    jump_before, jump_after = _play(rules, "c3-b5", pos=pos)  # a jump turns the pieces by b5 (c4)
    assert rules.effects(jump_before, jump_after) == Effects(1, ("c4",))


def test_capture_go_counts_and_names_the_captured_stones() -> None:
    rules = pbem_engine.create("capturego", {"size": 5, "target": 3})
    before, after = _play(rules, "b1", "a1", "a2")  # a2 takes a1
    assert rules.effects(before, after) == Effects(1, ("a1",))
    assert rules.effects(*_play(rules, "c3")) == Effects()
    pos = rules.setup([".....", ".....", ".....", "XX...", "OO..."])
    before, after = _play(rules, "c1", pos=pos)  # the white pair a1 b1 had only c1
    assert rules.effects(before, after) == Effects(2, ("a1", "b1"))
    assert rules.effects(*_play(rules, "pass", pos=pos)) == Effects()


def test_myriades_takes_nothing_but_may_neutralise() -> None:
    rules = pbem_engine.create("myriades")
    before, after = _play(rules, "10@c3", "5@c5", "1@a1", "6@j10")
    assert rules.effects(before, after) == Effects()
    before, after = _play(rules, "c3-c4 xa1 2@j9", pos=after)  # c4 lands next to Black's lower 5
    assert rules.effects(before, after) == Effects(0, ("a1",), 1)
