"""Every Termination member becomes, through templates/_termination.txt, the sentence the engine
used to write into `Outcome.reason` (the service's mails and tests quote those sentences)."""

from __future__ import annotations

import pytest

import pbem_engine
from pbem_engine import Termination
from tests.engine.sentences import render

XO, BW = ["x", "o"], ["black", "white"]

# (code, details, sides, the sentence the old engine wrote)
SENTENCES = [
    (Termination.BOARD_FULL, {}, XO, "the board is full"),
    (Termination.BOARD_FULL, {}, ["white", "black"], "the board is full"),
    (Termination.NO_PIECES, {"side": 1}, XO, "o has no pieces left"),
    (Termination.NO_PIECES, {"side": 0, "squares": 48, "to": 1}, XO, "x has no pieces left; 48 empty squares go to o"),
    (Termination.NO_PIECES, {"side": 0, "squares": 1, "to": 1}, XO, "x has no pieces left; 1 empty square goes to o"),
    (Termination.NO_MOVES, {"side": 1}, XO, "o cannot move"),
    (Termination.NO_MOVES, {"side": 1, "squares": 15, "to": 0}, XO, "o cannot move; 15 empty squares go to x"),
    (Termination.OUT_OF_REACH, {}, XO, "no empty square is within reach of any piece"),
    (Termination.QUIET_PLIES, {"plies": 100}, XO, "100 plies passed without a clone"),
    (Termination.TARGET_CAPTURES, {"side": 0, "captures": 1}, BW, "Black reached 1 capture"),
    (Termination.TARGET_CAPTURES, {"side": 1, "captures": 5}, BW, "White reached 5 captures"),
    (Termination.BOTH_PASSED, {"captures": [2, 2]}, BW, "both players passed with 2 captures each"),
    (Termination.BOTH_PASSED, {"captures": [0, 0]}, BW, "both players passed with 0 captures each"),
    (
        Termination.BOTH_PASSED,
        {"captures": [1, 3], "side": 1},
        BW,
        "both players passed; White has more captures (3 to 1)",
    ),
]


@pytest.mark.parametrize(("code", "details", "sides", "expected"), SENTENCES)
def test_the_macro_writes_the_old_sentence(code: Termination, details: dict, sides: list, expected: str) -> None:
    assert render(code, details, sides) == expected
    assert render(code.value, details, sides) == expected  # as stored: the plain string


def test_every_member_has_a_sentence() -> None:
    covered = {code for code, *_ in SENTENCES}
    assert covered == set(Termination)
    for code in Termination:
        assert code.value == code.name.lower() and str(code) == code.value


def test_the_engine_endings_render_as_the_old_reasons() -> None:
    """Real outcomes, not hand-written details: the engine's details feed the macro."""
    go = pbem_engine.create("capturego", {"size": 5})
    pos = go.start()
    for text in ("b1", "a1", "a2"):  # a2 takes a1
        pos = go.apply(pos, go.parse(pos, text))
    outcome = go.outcome(pos)
    assert outcome.termination is Termination.TARGET_CAPTURES and outcome.details == {"side": 0, "captures": 1}
    assert render(outcome.termination, dict(outcome.details), list(go.sides)) == "Black reached 1 capture"
