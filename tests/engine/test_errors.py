"""Errors carry a code and parameters beside their English; chatter is InvalidMove, mistakes IllegalMove."""

from __future__ import annotations

import json

import pytest

import pbem_engine
from pbem_engine import BadOption, EngineError, IllegalMove, InvalidMove, MoveError

# (game, options, text): lines that are not the game's notation at all, so a reader may take them
# for conversation.
INVALID = [
    ("ataxx", {}, "g2 looks good"),
    ("ataxx", {}, "2nd thoughts"),
    ("ataxx", {}, "ok thanks"),
    ("ataxx", {}, "Thanks for the game, see you next week."),
    ("ataxx", {}, "a1-c3-e5"),
    ("infection", {}, "hello"),
    ("capturego", {}, "g2 looks good"),
    ("capturego", {}, "2nd thoughts"),
    ("capturego", {}, "ok thanks"),
    ("capturego", {}, "4d"),
    ("capturego", {}, ""),
    ("myriades", {}, "g2 looks good"),
    ("myriades", {}, "2nd thoughts"),
    ("myriades", {}, "ok thanks"),
    ("myriades", {}, "17@h8 please"),
    ("myriades", {}, "   "),
    ("infinito", {"size": 12}, "nice move, 17@d4 next?"),
]

# (game, options, text, code): written in the notation, but the rules forbid it now.
ILLEGAL = [
    ("ataxx", {}, "a7", "move.occupied"),
    ("ataxx", {}, "d4", "move.clone_too_far"),
    ("ataxx", {}, "a7-a4", "move.jump_too_far"),
    ("ataxx", {}, "a1-b1", "move.source_theirs"),
    ("ataxx", {}, "c3-c5", "move.source_empty"),
    ("ataxx", {}, "a7-a7", "move.same_square"),
    ("ataxx", {}, "h8", "move.off_board"),
    ("ataxx", {}, "pass", "move.pass_with_moves"),
    ("ataxx", {"blocks": "b6"}, "b6", "move.blocked"),
    ("infection", {}, "pass", "move.no_passing"),
    ("capturego", {"size": 9}, "k10", "move.off_board"),
    ("capturego", {"size": 9}, "i5", "move.no_column_i"),
    ("capturego", {}, "resign", "move.resign_is_a_command"),
    ("myriades", {}, "d4", "move.one_square"),
    ("myriades", {}, "17", "move.no_square"),
    ("myriades", {}, "17@z9", "move.off_board"),
    ("myriades", {}, "1@a1 2@a2", "move.two_placements"),
    ("myriades", {}, "50@a1", "move.value_too_high"),
    ("myriades", {}, "1234567890@a1", "move.value_too_long"),
    ("myriades", {}, "a1-a2 1@b1", "move.nothing_to_move"),
    ("myriades", {}, "xa1 1@b1", "move.neutralise_without_move"),
]


@pytest.mark.parametrize(("name", "options", "text"), INVALID)
def test_text_that_is_no_move_at_all_is_invalid(name: str, options: dict, text: str) -> None:
    rules = pbem_engine.create(name, options)
    with pytest.raises(InvalidMove) as caught:
        rules.parse(rules.start(), text)
    assert not isinstance(caught.value, IllegalMove)
    _check(caught.value)


@pytest.mark.parametrize(("name", "options", "text", "code"), ILLEGAL)
def test_notation_the_rules_forbid_is_illegal(name: str, options: dict, text: str, code: str) -> None:
    rules = pbem_engine.create(name, options)
    with pytest.raises(IllegalMove) as caught:
        rules.parse(rules.start(), text)
    assert not isinstance(caught.value, InvalidMove)
    assert caught.value.code == code
    _check(caught.value)


def test_moves_refused_by_the_position_are_illegal() -> None:
    go = pbem_engine.create("capturego", {"size": 5})
    pos = go.apply(go.start(), go.parse(go.start(), "c3"))
    with pytest.raises(IllegalMove) as caught:
        go.parse(pos, "c3")
    assert (caught.value.code, caught.value.params) == ("move.occupied", {"point": "c3", "stone": "black"})
    over = go.apply(go.apply(pos, go.parse(pos, "pass")), go.parse(pos, "pass"))
    with pytest.raises(IllegalMove) as caught:
        go.parse(over, "d4")
    assert caught.value.code == "move.game_over"
    assert caught.value.params == {"termination": "both_passed", "details": {"captures": [0, 0]}}


def _check(error: MoveError) -> None:
    """Every move error: a dotted code, JSON-safe params, and str() = message then hint, as before."""
    assert isinstance(error, EngineError) and isinstance(error, ValueError)
    assert error.code.startswith("move.") and error.code == error.code.lower()
    assert json.loads(json.dumps(error.params)) == error.params
    assert str(error) == f"{error.message} {error.hint}".strip()


def test_option_and_registry_errors_have_codes() -> None:
    cases = [
        (lambda: pbem_engine.create("capturego", {"size": "big"}), "option.not_a_number", {"option": "size"}),
        (lambda: pbem_engine.create("capturego", {"size": 25}), "option.out_of_range", {"value": 25, "max": 19}),
        (lambda: pbem_engine.create("capturego", {"colour": "red"}), "option.unknown", {"option": "colour"}),
        (lambda: pbem_engine.create("ataxx", {"blocks": "a1"}), "option.blocks.start_square", {"square": "a1"}),
        (lambda: pbem_engine.lookup("chess"), "game.unknown", {"name": "chess"}),
        (lambda: pbem_engine.Ataxx.from_fen("x5o/7 z"), "fen.ranks", {"ranks": 2}),
    ]
    for call, code, some in cases:
        with pytest.raises(BadOption) as caught:
            call()
        assert caught.value.code == code
        assert some.items() <= caught.value.params.items()
        assert str(caught.value) == caught.value.message


def test_a_damaged_position_is_an_engine_error_with_a_code() -> None:
    go = pbem_engine.create("capturego")
    data = go.dump(go.start()) | {"history": ["00000000000000ff"]}
    with pytest.raises(EngineError) as caught:
        go.load(data)
    assert caught.value.code == "position.history" and not isinstance(caught.value, MoveError)
