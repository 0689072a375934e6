"""Myriades and Infinito (RULES.md sections 3 and 4) as rule tables over ASCII diagrams.

A diagram row is a rank number followed by cells from file a: `.` empty, `::` neutral,
`W12` a White stone of value 12, `b3` a Black one. Rows not given are empty, and so are
the files to the right of the last cell written; a line of file letters is only decoration.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from pbem_engine.common.base import BadOption, IllegalMove, MoveError
from pbem_engine.myriades.game import NEUTRAL, Infinito, Move, Myriades, Position
from tests.engine.sentences import sentence

MYRIADES = Myriades()


def board(diagram: str, rules: Myriades = MYRIADES, to_move: str = "white") -> Position:
    n = rules.size
    cells: list = [None] * (n * n)
    for line in diagram.strip().splitlines():
        tokens = line.split()
        if not tokens or not tokens[0].isdigit():
            continue
        rank = int(tokens[0])
        for file, token in enumerate(tokens[1:]):
            index = (rank - 1) * n + file
            if token == "::":
                cells[index] = NEUTRAL
            elif token != ".":
                cells[index] = ("wb".index(token[0].lower()), int(token[1:]))
    return Position(n, tuple(cells), 0 if to_move == "white" else 1)


def full(stones: dict[str, str], rules: Myriades = MYRIADES) -> Position:
    """A full board: neutral stones everywhere except `stones` ({"a1": "W5"})."""
    n = rules.size
    cells: list = [NEUTRAL] * (n * n)
    for square, token in stones.items():
        index = (int(square[1:]) - 1) * n + ord(square[0]) - ord("a")
        cells[index] = ("wb".index(token[0].lower()), int(token[1:]))
    return Position(n, tuple(cells), n * n)


def legal(pos: Position, text: str, rules: Myriades = MYRIADES) -> bool:
    try:
        rules.parse(pos, text)
    except IllegalMove:
        return False
    return True


def cell(pos: Position, square: str):
    return pos.cells[(int(square[1:]) - 1) * pos.size + ord(square[0]) - ord("a")]


# -- the trigger ------------------------------------------------------------------------
# White moves c3-c5 (W20). It keeps three other stones on a1, b1, e1 to neutralise.
TRIGGERS = [
    (
        "a lower enemy newly next to the destination",
        """
        6  .   .   .   b07
        5  .   .   .   .
        4  .   .   .   .
        3  .   .   W20 .
        1  W01 W02 .   .   W03
        """,
        1,
    ),
    (
        "already next to the start square: no trigger",
        """
        6  .   .   .   .
        5  .   .   .   .
        4  .   .   .   b07
        3  .   .   W20 .
        1  W01 W02 .   .   W03
        """,
        0,
    ),
    (
        "equal value: no trigger (strictly lower only)",
        """
        6  .   .   .   b20
        5  .   .   .   .
        4  .   .   .   .
        3  .   .   W20 .
        1  W01 W02 .   .   W03
        """,
        0,
    ),
    (
        "higher value: no trigger",
        """
        6  .   .   .   b25
        3  .   .   W20 .
        1  W01 W02 .   .   W03
        """,
        0,
    ),
    (
        "three lower enemies around the destination",
        """
        6  .   b19 b00 b07
        5  .   .   .   .
        4  .   .   .   .
        3  .   .   W20 .
        1  W01 W02 .   .   W03
        """,
        3,
    ),
    (
        "one new, one already adjacent (b4)",
        """
        6  .   .   .   b07
        5  .   .   .   .
        4  .   b05 .   .
        3  .   .   W20 .
        1  W01 W02 .   .   W03
        """,
        1,
    ),
    (
        "own and neutral stones never trigger",
        """
        6  .   ::  .   W07
        5  .   .   .   .
        4  .   .   .   .
        3  .   .   W20 .
        1  W01 W02 .   .   W03
        """,
        0,
    ),
    (
        "two squares away is not adjacent",
        """
        7  .   .   .   b07
        6  .   .   .   .
        5  .   .   .   .
        4  .   .   .   .
        3  .   .   W20 .
        1  W01 W02 .   .   W03
        """,
        0,
    ),
]


@pytest.mark.parametrize(("why", "diagram", "required"), TRIGGERS, ids=[t[0] for t in TRIGGERS])
def test_triggers_count_only_newly_adjacent_strictly_lower_enemies(why: str, diagram: str, required: int) -> None:
    pos = board(diagram)
    names = ["xa1", "xb1", "xe1"]
    for named in range(len(names) + 1):
        text = " ".join(["c3-c5", *names[:named], "10@j10"])
        assert legal(pos, text) == (named == required), f"{why}: {text}"


def test_replacement_is_compulsory_and_names_the_enemies() -> None:
    pos = board(TRIGGERS[4][1])
    with pytest.raises(IllegalMove) as error:
        MYRIADES.parse(pos, "c3-c5 10@j10")
    assert error.value.message == (
        "moving c3-c5 next to 19, 7 and 0 means you must neutralise 3 stones but named 0."
    )


SURPLUS = """
 6  .   b05 .   b07
 5  .   .   .   .
 4  .   .   .   .
 3  .   .   W20 .
 1  W01
"""


def test_surplus_triggers_lapse_when_too_few_friendly_stones() -> None:
    pos = board(SURPLUS)  # two triggers, but only a1 besides the moved stone
    assert legal(pos, "c3-c5 xa1 1@j10")
    with pytest.raises(IllegalMove, match="you have only 1 stone besides the one you moved, so name it"):
        MYRIADES.parse(pos, "c3-c5 10@j10")
    alone = board(SURPLUS.replace("W01", "."))
    assert legal(alone, "c3-c5 1@j10")  # the only stone moved: every trigger lapses


def test_neutralised_value_returns_to_supply_at_once() -> None:
    pos = board(SURPLUS)
    after = MYRIADES.apply(pos, MYRIADES.parse(pos, "c3-c5 xa1 1@c3"))
    assert cell(after, "a1") == NEUTRAL
    assert cell(after, "c3") == (0, 1)  # the 1 just freed, on the square just left
    assert cell(after, "c5") == (0, 20)
    assert MYRIADES.outcome(after).scores == (21, 12)
    assert MYRIADES.turn(after) == 1 and MYRIADES.ply(after) == 1
    assert pos == board(SURPLUS), "apply must not change its input"


# -- queen moves --------------------------------------------------------------------------
PATH = """
 7  .   .   .   .   .   .   .
 6  .   .   .   .   .   .   .
 5  .   .   .   .   {blocker} .   .
 4  .   .   .   .   .   .   .
 3  .   .   W20 .   .   .   .
 1  W01
    a   b   c   d   e   f   g
"""


@pytest.mark.parametrize("blocker", ["W09", "b09", "::"], ids=["own", "enemy", "neutral"])
def test_queen_paths_are_blocked_by_any_stone(blocker: str) -> None:
    pos = board(PATH.format(blocker=blocker))
    with pytest.raises(IllegalMove) as error:
        MYRIADES.parse(pos, "c3-g7 2@a2")
    assert error.value.message == '"c3-g7": the path from c3 to g7 is blocked at e5.'
    assert legal(pos, "c3-c10 2@a2") and legal(pos, "c3-j3 2@a2") and legal(pos, "c3-a5 2@a2")


def test_queen_moves_along_every_line_through_empty_squares() -> None:
    pos = board(PATH.format(blocker="."))
    reachable = {
        f"{chr(ord('a') + f)}{r}"
        for f in range(10)
        for r in range(1, 11)
        if legal(pos, f"c3-{chr(ord('a') + f)}{r} 2@a2")
    }
    assert len(reachable) == 9 + 9 + 7 + 1 + 2 + 2  # rank, file, then the diagonals (a1 is ours)
    assert {"c10", "j3", "a3", "c1", "h8", "a5", "e1", "b2"} <= reachable
    assert not legal(pos, "c3-d5 2@a2")


# -- placement and the supply -------------------------------------------------------------
def test_first_turn_has_nothing_to_move_for_either_side() -> None:
    start = MYRIADES.start()
    with pytest.raises(IllegalMove, match="you have no stones on the board yet"):
        MYRIADES.parse(start, "a1-a2 0@b1")
    second = MYRIADES.apply(start, MYRIADES.parse(start, "17@d4"))
    with pytest.raises(IllegalMove, match="you have no stones on the board yet"):
        MYRIADES.parse(second, "d4-d5 0@b1")
    assert MYRIADES.examples(start) == ["0@a1"]


def test_a_side_never_runs_out_of_stones_and_the_game_lasts_100_turns() -> None:
    for seed in range(4):
        rng, pos = random.Random(seed), MYRIADES.start()
        while not MYRIADES.outcome(pos).over:
            assert len(MYRIADES.on_board(pos, MYRIADES.turn(pos))) < 50, "the supply is never empty"
            pos = MYRIADES.apply(pos, MYRIADES.sample(pos, rng.choice))
        assert MYRIADES.ply(pos) == 100


def test_the_last_free_value_is_the_only_placement() -> None:
    cells: list = [None] * 100
    for value in range(49):  # White holds 0..48 on ranks 1-5; only 49 is left
        cells[value] = (0, value)
    pos = Position(10, tuple(cells), 98)
    assert MYRIADES.sample(pos, lambda seq: seq[0]).value == 49
    with pytest.raises(IllegalMove) as error:
        MYRIADES.parse(pos, "3@j10")
    assert error.value.message == (
        '"3@j10": you already have 3 on the board, on d1; place a value from your supply, e.g. 49.'
    )
    assert legal(pos, "49@j10")
    exhausted = Position(10, tuple([*cells[:49], (0, 49), *cells[50:]]), 98)  # not reachable by play
    with pytest.raises(IllegalMove, match="White has no stone left"):
        MYRIADES.sample(exhausted, random.Random(1).choice)
    assert MYRIADES.examples(exhausted) == []


# -- the end ------------------------------------------------------------------------------
WHITE_WINS = """
10  ::  ::  ::  ::  ::  ::  ::  ::  ::  ::
 9  ::  ::  ::  ::  ::  ::  ::  ::  ::  ::
 8  ::  ::  ::  ::  ::  ::  ::  ::  ::  ::
 7  ::  ::  ::  ::  ::  ::  ::  ::  ::  ::
 6  ::  ::  ::  ::  ::  ::  ::  ::  ::  ::
 5  ::  ::  ::  ::  ::  ::  ::  ::  ::  ::
 4  ::  ::  ::  ::  ::  ::  ::  ::  ::  ::
 3  ::  ::  ::  ::  ::  ::  ::  ::  ::  ::
 2  ::  ::  ::  ::  ::  ::  ::  ::  ::  ::
 1  W30 W12 b40 b03  ::  ::  ::  ::  ::  ::
"""


TABLE_WINNER = {"a1": "W30", "b1": "W12", "c1": "b40", "d1": "b03"}  # WHITE_WINS as a table


@pytest.mark.parametrize(
    ("stones", "winner", "scores"),
    [
        (TABLE_WINNER, 0, (42, 43)),
        ({"a1": "W30", "b1": "W12", "c1": "b40", "d1": "b02"}, None, (42, 42)),
        ({"a1": "W49", "j10": "b0"}, 1, (49, 0)),
        ({}, None, (0, 0)),
    ],
)
def test_full_board_lower_sum_wins_and_equal_draws(stones: dict, winner: int | None, scores: tuple) -> None:
    pos = full(stones)
    outcome = MYRIADES.outcome(pos)
    assert outcome.over and sentence(MYRIADES, outcome) == "the board is full"
    assert outcome.winner == winner and outcome.scores == scores
    assert outcome.draw == (winner is None)
    assert MYRIADES.outcome(board(WHITE_WINS)) == MYRIADES.outcome(full(TABLE_WINNER))


def test_a_full_board_takes_no_more_turns() -> None:
    pos = board(WHITE_WINS)
    assert MYRIADES.outcome(pos).over
    with pytest.raises(IllegalMove, match="The game is over: the board is full."):
        MYRIADES.parse(pos, "1@a1")
    with pytest.raises(IllegalMove):
        MYRIADES.sample(pos, random.Random(1).choice)
    assert MYRIADES.examples(pos) == []
    assert not MYRIADES.outcome(board(WHITE_WINS.replace("W12", " . "))).over


# -- notation -----------------------------------------------------------------------------
TWO = """
10  W03
 9  .
 6  .   b05 .   b07
 5  .   .   .   .
 4  .   .   .   .
 3  .   .   W20 .
 2  .
 1  W01 .   .   .   .   .   .   .   .   W02
    a   b   c   d   e   f   g   h   i   j
"""


@pytest.mark.parametrize(
    "text",
    [
        "c3-c5 xa10 xj1 17@d4",
        "c3-c5 xj1 xa10 17@d4",
        "C3-C5 XJ1 XA10 17@D4",
        "c3c5 xa10 xj1 17@d4",
        "c3 c5, xa10, xj1, 17@d4",
        "  c3 - c5   x a10  x j1   17 @ d4  ",
        "move c3 c5 replace j1 a10 place 17 d4",
        "Move c3 c5, Replace a10 j1, Place 17 d4.",
        "c3\u2013c5 xa10 xj1 17 at d4",
    ],
)
def test_every_accepted_spelling_reads_as_the_same_turn(text: str) -> None:
    pos = board(TWO)  # c3-c5 lands next to b05 and b07: two of a10, a1, j1 must go
    move = MYRIADES.parse(pos, text)
    assert move == Move(17, 33, (22, 42), frozenset({90, 9}))
    assert MYRIADES.format(pos, move) == "c3-c5 xa10 xj1 17@d4"


def test_two_triggers_need_two_names_in_any_order() -> None:
    pos = board(TWO)
    with pytest.raises(IllegalMove) as error:
        MYRIADES.parse(pos, "c3-c5 xa10 17@d4")
    assert error.value.message == "moving c3-c5 next to 7 and 5 means you must neutralise 2 stones but named 1."
    assert MYRIADES.parse(pos, "c3-c5 xa1 xj1 17@d4") == MYRIADES.parse(pos, "c3-c5 xj1 xa1 17@d4")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("0@a1", "0@a1"),
        ("place 7 j10", "7@j10"),
        ("007@b2", "7@b2"),
        ("d1-d9 12@a1", "d1-d9 12@a1"),
    ],
)
def test_canonical_forms(text: str, canonical: str) -> None:
    pos = board("1  .   .   .   W20")
    assert MYRIADES.format(pos, MYRIADES.parse(pos, text)) == canonical


# -- every error, in the player's terms ---------------------------------------------------
ERRORS_BOARD = """
 7  .    .    .    .    .    .    .    .
 6  .    .    .    b12  .    .    .    .
 5  .    .    .    .    .    b07  .    .
 4  .    .    .    .    .    .    .    .
 3  .    .    W20  .    .    .    .    .
 2  .    ::   .    .    .    .    .    .
 1  W41  .    .    W05  b03  .    .    .
    a    b    c    d    e    f    g    h
"""
ERRORS = [
    ("c3-e5", '"c3-e5" has no placement: every turn ends by placing a stone, e.g. 17@d4.'),
    ("   ", "The turn is empty: every turn ends by placing a stone, e.g. 17@d4."),
    ("c3-e5 xa1 xd1 20@h8", '"20@h8": you already have 20 on the board, on e5; place a value from your '
     "supply, e.g. 0."),
    ("41@h8", '"41@h8": you already have 41 on the board, on a1; place a value from your supply, e.g. 0.'),
    ("50@h8", '"50@h8": Myriades stones are valued 0 to 49.'),
    ("1@d6", '"1@d6": d6 is occupied by Black\'s 12.'),
    ("1@c3", '"1@c3": c3 is occupied by your 20.'),
    ("1@b2", '"1@b2": b2 is occupied by a neutral stone.'),
    ("c3-e5 xa1 xd1 1@e5", '"1@e5": e5 is occupied by the stone you just moved there.'),
    ("d6-d7 1@h8", '"d6-d7": d6 holds Black\'s 12, not one of your stones.'),
    ("b2-b3 1@h8", '"b2-b3": b2 holds a neutral stone, and neutral stones never move.'),
    ("c4-c5 1@h8", '"c4-c5": there is no stone on c4.'),
    ("c3-c3 1@h8", '"c3-c3": a move must go somewhere; leave the move out to only place.'),
    ("c3-d5 1@h8", '"c3-d5": d5 is not on a line from c3; a stone moves like a chess queen, along a rank, '
     "file or diagonal."),
    ("a1-f1 1@h8", '"a1-f1": the path from a1 to f1 is blocked at d1.'),
    ("c3-a1 1@h8", '"c3-a1": the path from c3 to a1 is blocked at b2.'),
    ("d1-e1 1@h8", '"d1-e1": e1 is occupied by Black\'s 3.'),
    ("c3-e5 xa1 1@h8", "moving c3-e5 next to 12 and 7 means you must neutralise 2 stones but named 1."),
    ("c3-c4 xa1 1@h8", "moving c3-c4 lands next to no lower enemy stone that was not already next to c3, so "
     "there is nothing to neutralise; you named 1."),
    ("c3-e5 xa1 xe5 1@h8", '"xe5": e5 is the stone you just moved; neutralise another of yours.'),
    ("c3-e5 xa1 xd6 1@h8", '"xd6": d6 holds Black\'s 12; you neutralise your own stones only.'),
    ("c3-e5 xa1 xb2 1@h8", '"xb2": b2 is already neutral; neutralise one of your own stones.'),
    ("c3-e5 xa1 xa1 1@h8", '"xa1": you named a1 twice; each neutralised stone is a different one.'),
    ("c3-e5 xc3 xa1 1@h8", '"xc3": c3 is empty once your stone has left it.'),
    ("c3-e5 xh8 xa1 1@h8", '"xh8": h8 is empty so there is nothing to neutralise.'),
    ("xa1 1@h8", '"xa1": only a move next to lower enemy stones makes you neutralise; this turn has no move.'),
    ("1@k1", '"k1" is not on the 10x10 board; squares run from a1 to j10.'),
    ("1@a11", '"a11" is not on the 10x10 board; squares run from a1 to j10.'),
    ("1234567890@h8", '"1234567890" is too big: a stone value has at most 9 digits.'),
    ("17@h8 please", 'I cannot read "please" in "17@h8 please".'),
    ("c3-e5 c4-c5 1@h8", '"c3-e5 c4-c5 1@h8" has two moves; a turn moves at most one stone.'),
    ("c3-e5 a1 d1 1@h8", '"c3-e5 a1 d1 1@h8": after the move c3-e5, what is "a1"? Write xa1 to neutralise it '
     "or 17@a1 to place a stone there."),
    ("1@h8 2@h7", '"1@h8 2@h7" places two stones; a turn places exactly one.'),
    ("c3 1@h8", '"c3": a move needs a start and an end square, e.g. c3-c1.'),
    ("place 17", '"17": say where to place it, e.g. 17@d4.'),
    ("place h8", '"h8": say which value to place there, e.g. 17@h8.'),
]


@pytest.mark.parametrize(("text", "message"), ERRORS, ids=[e[0] for e in ERRORS])
def test_every_error_says_what_is_wrong_with_a_legal_example(text: str, message: str) -> None:
    pos = board(ERRORS_BOARD)
    with pytest.raises(MoveError) as error:
        MYRIADES.parse(pos, text)
    assert error.value.message == message
    assert error.value.hint == "For example: 0@b1 or c3-c5 xa1 0@b1."
    for example in MYRIADES.examples(pos):
        MYRIADES.parse(pos, example)


def test_errors_name_the_owner_from_blacks_side() -> None:
    pos = board(ERRORS_BOARD, to_move="black")
    with pytest.raises(IllegalMove, match=r'"c3-c4": c3 holds White\'s 20, not one of your stones.'):
        MYRIADES.parse(pos, "c3-c4 1@h8")
    assert legal(pos, "d6-d8 1@h8")
    assert not legal(pos, "d6-d8 12@h8")  # the moved stone keeps its value on the board


# -- Infinito -----------------------------------------------------------------------------
@pytest.mark.parametrize("size", range(10, 27))
def test_infinito_sizes_play_and_render_within_72_columns(size: int) -> None:
    rules = Infinito({"size": size})
    assert rules.describe() == f"infinito {size}x{size}"
    rng, pos = random.Random(size), rules.start()
    assert len(pos.cells) == size * size
    for _ in range(size * 3):
        pos = rules.apply(pos, rules.sample(pos, rng.choice))
    big = rules.apply(pos, rules.parse(pos, f"999999999@{rules.examples(pos)[0].split('@')[1]}"))
    for shown in (pos, big):
        lines = rules.render(shown, names=("Alice", "Bob")).splitlines()
        assert max(len(line) for line in lines) <= 72
        assert sum(1 for line in lines if line.endswith(f"| {size}")) == 1
    assert "999999999@" in rules.render(big)


@pytest.mark.parametrize("bad", ["9", "27", "ten"])
def test_infinito_refuses_sizes_out_of_range(bad: str) -> None:
    with pytest.raises(BadOption, match="size"):
        Infinito({"size": bad})


def test_myriades_has_no_size_option() -> None:
    with pytest.raises(BadOption, match="no option 'size'"):
        Myriades({"size": 12})


@pytest.mark.parametrize(
    ("size", "row", "shown"),
    [
        (10, "1  W5 b123 ::", "  1 | W005 b123   ::   .  "),  # up to 4 digits fit on 10x10
        (13, "1  W5 b12 ::", "  1 | W05 b12  ::  .  "),
        (16, "1  W5 b7 ::", "  1 | W5 b7 ::  . "),  # one digit: narrow cells
        (16, "1  W5 b17 ::", "  1 | W b # . . "),  # two digits do not fit: colours only, and a table
        (26, "1  W5 b7 ::", "  1 | W b # . . "),
    ],
)
def test_cells_narrow_with_the_board_and_values(size: int, row: str, shown: str) -> None:
    rules = Infinito({"size": size})
    lines = rules.render(board(row, rules)).splitlines()
    assert lines[size + 1].startswith(shown)
    assert ("Stones by value" in "\n".join(lines)) == ("#" in shown)


def test_infinito_game_lasts_exactly_n_squared_turns() -> None:
    rules = Infinito({"size": 11})
    rng, pos = random.Random(5), rules.start()
    while not rules.outcome(pos).over:
        pos = rules.apply(pos, rules.sample(pos, rng.choice))
    assert rules.ply(pos) == 121


def test_a_full_26x26_board_renders_in_a_compact_form() -> None:
    rules = Infinito({"size": 26})
    rng, pos = random.Random(26), rules.start()
    while not rules.outcome(pos).over:
        pos = rules.apply(pos, rules.sample(pos, rng.choice))
    text = rules.render(pos, names=("A very long player name indeed", "Bob"))
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 72
    assert lines[0].split() == [chr(ord("a") + f) for f in range(26)]
    assert lines[2].startswith(" 26 | ") and lines[2].endswith(" | 26")
    listed = {word for line in lines for word in line.split() if re.fullmatch(r"\d+@[a-z]\d+", word)}
    stones = {
        f"{c[1]}@{chr(ord('a') + i % 26)}{i // 26 + 1}"
        for i, c in enumerate(pos.cells)
        if c is not None and c != NEUTRAL
    }
    assert listed == stones  # every stone on the board is in the table below the grid
    assert "The board is full." in text


def test_nine_digit_values_parse_and_ten_are_refused() -> None:
    rules = Infinito()
    start = rules.start()
    move = rules.parse(start, "999999999@E5")
    assert move == Move(999_999_999, 44) and rules.format(start, move) == "999999999@e5"
    after = rules.apply(start, move)
    assert rules.outcome(after).scores == (999_999_999, 0)
    assert "999999999@e5" in rules.render(after)
    with pytest.raises(IllegalMove, match="at most 9 digits"):
        rules.parse(start, "1000000000@e5")
    with pytest.raises(IllegalMove, match="valued 0 to 49"):
        MYRIADES.parse(MYRIADES.start(), "999999999@e5")


@pytest.mark.parametrize(
    ("rules", "diagram", "white", "black"),
    [
        (MYRIADES, "1 .", "0-49", "0-49"),
        (MYRIADES, "1 W0 W1 W2 W5 b49", "3-4, 6-49", "0-48"),
        (MYRIADES, "1 W3 W7 W12 W20 W33", "0-49 except 3, 7, 12, 20, 33", "0-49"),
        (Infinito(), "1 .", "every value from 0 up", "every value from 0 up"),
        (Infinito(), "1 W0 W1 W2 b3 b7", "from 3 up", "every value except 3, 7"),
        (Infinito(), "1 b0 b1 b2 b4 b7 b8", "every value from 0 up", "3, 5-6, from 9 up"),
        (Infinito(), "1 W0 W1 W2 W5 W6 W7", "3-4, from 8 up", "every value from 0 up"),
    ],
)
def test_supply_is_listed_in_ranges(rules: Myriades, diagram: str, white: str, black: str) -> None:
    pos = board(diagram, rules)
    assert (rules.supply_text(pos, 0), rules.supply_text(pos, 1)) == (white, black)
    assert f"White's supply: {white}" in rules.render(pos)


# -- presentation and storage -------------------------------------------------------------
def test_render_marks_every_square_of_the_last_turn() -> None:
    pos = board(SURPLUS)
    after = MYRIADES.apply(pos, MYRIADES.parse(pos, "c3-c5 xa1 1@c4"))
    lines = MYRIADES.render(after, names=("Alice", "Bob")).splitlines()
    assert lines[0] == "       a   b   c   d   e   f   g   h   i   j"
    assert lines[1] == "    +-----------------------------------------+"
    assert lines[7] == "  5 |  .   . [W20] .   .   .   .   .   .   .  | 5"
    assert lines[8] == "  4 |  .   . [W01] .   .   .   .   .   .   .  | 4"
    assert lines[9] == "  3 |  .   . [ . ] .   .   .   .   .   .   .  | 3"
    assert lines[11] == "  1 |[ ::] .   .   .   .   .   .   .   .   .  | 1"
    assert "  W   White (Alice): sum 21, 2 stones on the board" in lines
    assert "  b   Black (Bob): sum 12, 2 stones on the board" in lines
    assert "  [ ] White's last turn: c3-c5 xa1 1@c4" in lines
    assert "  Black to move, turn 2 of 100." in lines
    side_by_side = MYRIADES.apply(pos, MYRIADES.parse(pos, "c3-b3 2@c3"))
    assert "  3 |  . [W20|W02] .   .   .   .   .   .   .  | 3" in MYRIADES.render(side_by_side)


def test_dump_is_json_and_loads_back_with_the_last_turn() -> None:
    pos = board(SURPLUS)
    after = MYRIADES.apply(pos, MYRIADES.parse(pos, "c3-c5 xa1 1@c4"))
    data = MYRIADES.dump(after)
    assert json.loads(json.dumps(data)) == data
    assert data["neutral"] == ["a1"] and data["white"] == {"c4": 1, "c5": 20}
    assert data["last"] == "c3-c5 xa1 1@c4" and data["ply"] == 1
    assert MYRIADES.load(data) == after
    assert MYRIADES.last_move(MYRIADES.load(data)) == Move(1, 32, (22, 42), frozenset({0}))
    with pytest.raises(ValueError, match="does not fit"):
        Infinito({"size": 12}).load(data)


def test_sample_and_examples_follow_the_rules() -> None:
    pos = board(TWO)
    assert MYRIADES.examples(pos) == ["0@b1", "c3-c5 xa1 xj1 0@b1"]
    seen_moves = 0
    for seed in range(30):
        move = MYRIADES.sample(pos, random.Random(seed).choice)
        assert MYRIADES.parse(pos, MYRIADES.format(pos, move)) == move
        if move.step == (22, 42):
            assert len(move.neutralised) == 2
        seen_moves += move.step is not None
    assert 0 < seen_moves < 30  # moving is optional: sample does both
