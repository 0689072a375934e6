"""Ataxx, Infection and Assimilation: moves, end rules, notation, FEN and perft, as rule tables."""

from __future__ import annotations

import json
import textwrap

import pytest

from pbem_engine.ataxx.game import (
    LAYOUTS,
    PASS,
    Assimilation,
    Ataxx,
    Infection,
    Move,
    Position,
    format_uai,
    perft,
)
from pbem_engine.common.base import BadOption, IllegalMove, MoveError
from tests.engine.sentences import sentence

VARIANTS = {"ataxx": Ataxx, "infection": Infection, "assimilation": Assimilation}
START = "x5o/7/7/7/7/7/o5x x 0 1"


def board(diagram: str, turn: str = "x", halfmove: int = 0, fullmove: int = 1) -> Position:
    """A position from a diagram: rank 7 on top, `x`, `o`, `#` (gap) and `.` (empty)."""
    rows = [line.split() for line in textwrap.dedent(diagram).strip().splitlines()]
    assert len(rows) == 7 and all(len(row) == 7 for row in rows), diagram
    ranks = []
    for row in rows:
        text, run = "", 0
        for cell in row:
            if cell == ".":
                run += 1
                continue
            text += (str(run) if run else "") + {"x": "x", "o": "o", "#": "-"}[cell]
            run = 0
        ranks.append(text + (str(run) if run else ""))
    return Ataxx.from_fen(f"{'/'.join(ranks)} {turn} {halfmove} {fullmove}")


def picture(pos: Position) -> str:
    """The diagram of a position, in the format `board` reads."""
    fen = Ataxx.fen(pos).split()[0]
    rows = []
    for rank in fen.split("/"):
        cells = []
        for char in rank:
            cells.extend(["."] * int(char) if char.isdigit() else ["#" if char == "-" else char])
        rows.append(" ".join(cells))
    return "\n".join(rows)


def diagram(text: str) -> str:
    return "\n".join(line.strip() for line in textwrap.dedent(text).strip().splitlines())


def play(rules: Ataxx, pos: Position, *texts: str) -> Position:
    for text in texts:
        pos = rules.apply(pos, rules.parse(pos, text))
    return pos


# -- perft -----------------------------------------------------------------------------------------

PERFT = [
    ("ataxx", START, [16, 256, 6460, 155888]),
    ("ataxx", "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1", [14, 196, 4184, 86528]),
    ("ataxx", "x5o/7/3-3/2-1-2/3-3/7/o5x x 0 1", [16, 256, 5948, 133264]),
    ("ataxx", "x5o/7/2-1-2/3-3/2-1-2/7/o5x x 0 1", [14, 196, 4100, 83104]),
    ("ataxx", "7/7/7/2x1o2/7/7/7 x 0 1", [23, 419, 7887, 168317]),
    ("ataxx", "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1", [1, 75, 249, 14270]),
    ("infection", "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1", [0, 0]),
    ("assimilation", "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1", [0, 0]),
    ("infection", START, [16, 256, 6460]),
]


@pytest.mark.parametrize(("variant", "fen", "counts"), PERFT)
def test_perft_matches_the_published_counts(variant: str, fen: str, counts: list[int]) -> None:
    rules = VARIANTS[variant]()
    pos = Ataxx.from_fen(fen)
    assert [perft(rules, pos, depth) for depth in range(1, len(counts) + 1)] == counts


@pytest.mark.parametrize(("variant", "fen", "counts"), PERFT)
def test_perft_playing_every_leaf_agrees_with_bulk_counting(
    variant: str, fen: str, counts: list[int]
) -> None:
    rules = VARIANTS[variant]()
    pos = Ataxx.from_fen(fen)
    assert [perft(rules, pos, depth, bulk=False) for depth in range(1, 4)] == (counts + [0, 0])[:3]


@pytest.mark.parametrize("variant", VARIANTS)
def test_perft_depth_one_is_the_legal_move_list_and_depth_two_sums_it(variant: str) -> None:
    rules = VARIANTS[variant]({"blocks": "cross"})
    pos = play(rules, rules.start(), "f2", "b1", "a7-c6")
    moves = rules.legal_moves(pos)
    assert perft(rules, pos, 1) == len(moves) == len(set(moves))
    assert perft(rules, pos, 2) == sum(len(rules.legal_moves(rules.apply(pos, m))) for m in moves)


def test_perft_sees_the_100_ply_draw_in_ataxx_only() -> None:
    pos = Ataxx.from_fen("x5o/7/7/7/7/7/o5x x 99 50")
    # every jump ends the game at 100 plies; the 6 clones go on
    assert perft(Ataxx(), pos, 2) == 6 * 16
    assert perft(Infection(), pos, 2) == 256


# -- moves -----------------------------------------------------------------------------------------

MOVES = [
    (  # a clone adds a piece, keeps its neighbour, and converts every enemy piece next to it
        "x",
        "c4",
        """
        . . . . . . .
        . . . . . . .
        . o o . . . .
        . . . o . . .
        . x o . . . .
        . . . . . . .
        . . . . o . .
        """,
        """
        . . . . . . .
        . . . . . . .
        . x x . . . .
        . . x x . . .
        . x x . . . .
        . . . . . . .
        . . . . o . .
        """,
    ),
    (  # a jump leaves its source; only pieces next to the destination convert
        "x",
        "b3-d4",
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . o . .
        o x . . . . .
        o o . . . . .
        . . . . . . .
        """,
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . x x . .
        o . . . . . .
        o o . . . . .
        . . . . . . .
        """,
    ),
    (  # a jump passes over a gap
        "x",
        "a1-c1",
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        # o . . . . .
        x # . o . . o
        """,
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        # x . . . . .
        . # x x . . o
        """,
    ),
    (  # a jump passes over a piece, which converts only because it touches the destination
        "x",
        "a1-c3",
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . o . . . . .
        x . . . . . o
        """,
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . x . . . .
        . x . . . . .
        . . . . . . o
        """,
    ),
    (  # a knight-shaped jump is a distance-2 jump
        "x",
        "a1-b3",
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . o . . . .
        . . . . . . .
        x . . . . . o
        """,
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . x x . . . .
        . . . . . . .
        . . . . . . o
        """,
    ),
    (  # o converts x pieces the same way, diagonals included
        "o",
        "e5",
        """
        . . . . . . .
        . . . x x . .
        . . . . . . .
        . . . . o x .
        . . . . . . x
        . . . . . . .
        . . . . . . .
        """,
        """
        . . . . . . .
        . . . o o . .
        . . . . o . .
        . . . . o o .
        . . . . . . x
        . . . . . . .
        . . . . . . .
        """,
    ),
]


@pytest.mark.parametrize(("turn", "move", "before", "after"), MOVES)
def test_moves_change_the_board_as_drawn(turn: str, move: str, before: str, after: str) -> None:
    rules = Ataxx()
    pos = board(before, turn=turn)
    result = rules.apply(pos, rules.parse(pos, move))
    assert picture(result) == diagram(after)
    assert picture(pos) == diagram(before), "apply must not change its input"
    assert (result.turn, rules.last_move(result)) == (1 - pos.turn, rules.parse(pos, move))


def test_clone_is_one_move_however_many_pieces_touch_it() -> None:
    rules = Ataxx()
    pos = board(
        """
        . . . . . . o
        . . . . . . .
        . . . . . . .
        . . x . x . .
        . . . . . . .
        . . x . x . .
        . . . . . . .
        """
    )
    moves = rules.legal_moves(pos)
    assert moves.count(Move(None, rules.parse(pos, "d3").dst)) == 1
    clones = [m for m in moves if m.is_clone]
    assert len(clones) == 5 * 5 - 4  # the 3x3 boxes around the four pieces cover b1-f5
    # jumps: 16 ring squares from c4 and e4, 11 from c2 and e2 (edge), less the 3 other pieces each
    assert perft(rules, pos, 1) == len(moves) == 21 + (16 - 3) * 2 + (11 - 3) * 2


def test_clone_resets_the_halfmove_counter_and_jumps_and_passes_count() -> None:
    rules = Ataxx()
    pos = Ataxx.from_fen("x5o/7/7/7/7/7/o5x x 7 1")
    assert play(rules, pos, "a7-c5").halfmove == 8
    assert play(rules, pos, "b6").halfmove == 0
    stuck = Ataxx.from_fen("7/7/7/7/ooooooo/ooooooo/xxxxxxx x 5 3")
    after = play(rules, stuck, "pass")
    assert (after.halfmove, after.fullmove, after.turn, after.x, after.o) == (6, 3, 1, stuck.x, stuck.o)


def test_ply_and_move_number_advance_like_the_community_fen() -> None:
    rules = Ataxx()
    pos = rules.start()
    fens = []
    for text in ("f2", "b1", "a7-c5", "g7-e6"):
        before = rules.ply(pos)
        pos = play(rules, pos, text)
        assert rules.ply(pos) == before + 1
        fens.append(Ataxx.fen(pos).split(" ", 1)[1])
    assert fens == ["o 0 1", "x 0 2", "o 1 2", "x 2 3"]


# -- end rules -------------------------------------------------------------------------------------

FULL = """
    x x x x x x x
    x x x x x x x
    x x x x x x x
    x x x x o o o
    o o o o o o o
    o o o o o o o
    o o o o o o o
"""
# x to move is walled in: every square within distance 2 of an x piece is full or a gap
X_STUCK = """
    . . . . . . .
    . . . . . . .
    . . . . . . .
    o o o o o o o
    o o o o o o o
    o o # # o o o
    x x # # o o o
"""
# x has no pieces at all
X_GONE = """
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . o . .
    . . . . . . .
    . . . . . . .
"""
# empty squares remain, but none within distance 2 of any piece
UNREACHABLE = """
    . . . . . . .
    . . . . . . .
    # # # # # # #
    # # # # # # #
    x x x x x x x
    o o o o o o o
    x x x x o o o
"""

ENDINGS = [
    # variant, position, side to move, over, winner, reason, scores, credited
    ("ataxx", FULL, "x", True, 0, "the board is full", (25, 24), (0, 0)),
    ("infection", FULL, "o", True, 0, "the board is full", (25, 24), (0, 0)),
    ("assimilation", FULL, "x", True, 0, "the board is full", (25, 24), (0, 0)),
    ("ataxx", X_STUCK, "x", False, None, "", (2, 22), (0, 0)),
    ("infection", X_STUCK, "x", True, 1, "x cannot move; 21 empty squares go to o", (2, 22), (0, 21)),
    ("assimilation", X_STUCK, "x", True, 1, "x cannot move", (2, 22), (0, 0)),
    ("ataxx", X_STUCK, "o", False, None, "", (2, 22), (0, 0)),
    ("infection", X_STUCK, "o", False, None, "", (2, 22), (0, 0)),
    ("ataxx", X_GONE, "x", True, 1, "x has no pieces left", (0, 1), (0, 0)),
    ("ataxx", X_GONE, "o", True, 1, "x has no pieces left", (0, 1), (0, 0)),
    ("infection", X_GONE, "x", True, 1, "x has no pieces left; 48 empty squares go to o", (0, 1), (0, 48)),
    ("infection", X_GONE, "o", False, None, "", (0, 1), (0, 0)),
    ("assimilation", X_GONE, "x", True, 1, "x has no pieces left", (0, 1), (0, 0)),
    ("ataxx", UNREACHABLE, "o", True, 0, "no empty square is within reach of any piece", (11, 10), (0, 0)),
    ("infection", UNREACHABLE, "o", True, 0, "o cannot move; 14 empty squares go to x", (11, 10), (14, 0)),
    ("assimilation", UNREACHABLE, "x", True, 0, "x cannot move", (11, 10), (0, 0)),
]


@pytest.mark.parametrize(
    ("variant", "drawn", "turn", "over", "winner", "reason", "scores", "credited"), ENDINGS
)
def test_end_rules_per_variant(variant, drawn, turn, over, winner, reason, scores, credited) -> None:
    rules = VARIANTS[variant]()
    pos = board(drawn, turn=turn)
    result = rules.outcome(pos)
    assert (result.over, result.winner, sentence(rules, result)) == (over, winner, reason)
    assert (result.scores, result.credited) == (scores, credited)
    assert (rules.legal_moves(pos) == []) == over


def test_infection_credit_can_turn_the_result_where_assimilation_does_not() -> None:
    # o (to move) has 9 pieces walled in; x has 3 pieces; 15 squares are empty
    pos = board(
        """
        . . . . . . .
        . . . . . . .
        # # # # # # #
        # # # # # # #
        x . # # o o o
        x x # # o o o
        # # # # o o o
        """,
        turn="o",
    )
    infection = Infection().outcome(pos)
    assert (infection.over, infection.scores, infection.credited) == (True, (3, 9), (15, 0))
    assert (infection.winner, sentence(Infection(), infection)) == (0, "o cannot move; 15 empty squares go to x")
    assimilation = Assimilation().outcome(pos)
    assert (assimilation.over, assimilation.winner, assimilation.credited) == (True, 1, (0, 0))
    assert not Ataxx().outcome(pos).over  # o passes, x plays on


def test_equal_counts_are_a_draw() -> None:
    pos = board(FULL.replace("x x x x o o o", "x x x # o o o"), turn="x")
    for rules in (Ataxx(), Infection(), Assimilation()):
        result = rules.outcome(pos)
        assert (result.over, result.winner, result.draw, result.scores) == (True, None, True, (24, 24))


def test_ataxx_side_without_a_move_must_pass_and_the_game_goes_on() -> None:
    rules = Ataxx()
    pos = board(X_STUCK, turn="x")
    assert rules.legal_moves(pos) == [PASS]
    assert rules.examples(pos) == ["pass"]
    assert rules.parse(pos, "PASS") == rules.parse(pos, "0000") == PASS
    with pytest.raises(IllegalMove) as error:
        rules.parse(pos, "a3")
    assert error.value.hint == "You have no move now: write pass."
    after = rules.apply(pos, PASS)
    assert (after.turn, after.x, after.o, rules.last_move(after)) == (1, pos.x, pos.o, PASS)
    assert len(rules.legal_moves(after)) > 1


def test_ataxx_draws_after_100_plies_without_a_clone() -> None:
    rules = Ataxx()
    pos = Ataxx.from_fen("x5o/7/7/7/7/7/o5x x 99 50")
    assert not rules.outcome(pos).over
    after_jump = play(rules, pos, "a7-c5")
    result = rules.outcome(after_jump)
    assert (result.over, result.winner, sentence(rules, result)) == (True, None, "100 plies passed without a clone")
    assert rules.legal_moves(after_jump) == []
    assert not rules.outcome(play(rules, pos, "b6")).over


@pytest.mark.parametrize("variant", ["infection", "assimilation"])
def test_seed_variants_have_no_clone_less_draw(variant: str) -> None:
    rules = VARIANTS[variant]()
    pos = Ataxx.from_fen("x5o/7/7/7/7/7/o5x x 400 200")
    assert not rules.outcome(play(rules, pos, "a7-c5")).over


def test_elimination_by_a_jump_ends_ataxx_at_once() -> None:
    rules = Ataxx()
    pos = board(
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . o . . .
        . . . . . . .
        . x . . . . .
        . . . . . . .
        """
    )
    after = play(rules, pos, "b2-d3")
    result = rules.outcome(after)
    assert (result.over, result.winner, sentence(rules, result), result.scores) == (
        True,
        0,
        "o has no pieces left",
        (2, 0),
    )


# -- notation and parse errors ---------------------------------------------------------------------


@pytest.mark.parametrize("text", ["b6", "B6", " b6 ", "b 6", "clone b6", "a7-b6", "a7b6"])
def test_clone_spellings(text: str) -> None:
    rules = Ataxx()
    move = rules.parse(rules.start(), text)
    assert move == Move(None, 36) and rules.format(rules.start(), move) == "b6"


@pytest.mark.parametrize(
    "text", ["a7-c5", "A7-C5", "a7c5", "a7 c5", "a7,c5", "a7 - c5", "a7 to c5", "jump a7 c5"]
)
def test_jump_spellings(text: str) -> None:
    rules = Ataxx()
    move = rules.parse(rules.start(), text)
    assert rules.format(rules.start(), move) == "a7-c5"
    assert format_uai(move) == "a7c5"


def test_uai_forms() -> None:
    assert [format_uai(m) for m in (PASS, Move(None, 0), Move(48, 32))] == ["0000", "a1", "g7e5"]


ERRORS = [
    ("hello", '"hello" is not a move: write the square to clone to, like c4'),
    ("c", '"c" is not a move'),
    ("a1-c3-e5", '"a1-c3-e5" is not a move'),
    ("h3", '"h3": h3 is off the board; files run from a to g and ranks from 1 to 7.'),
    ("a8", '"a8": a8 is off the board'),
    ("a7-a10", '"a7-a10": a10 is off the board'),
    ("a7", '"a7": a7 is occupied.'),
    ("g1-e3", '"g1-e3": e3 is occupied.'),
    ("d4", '"d4": d4 is a blocked square.'),
    ("b7-d5", '"b7-d5": d5 is a blocked square.'),
    ("a1-c1", '"a1-c1": a1 holds an o piece, not one of yours (x).'),
    ("e4-c4", '"e4-c4": there is no piece on e4.'),
    ("d4-d2", '"d4-d2": d4 is a blocked square.'),
    ("a7-a4", '"a7-a4" is 3 squares away; a jump goes exactly 2.'),
    ("g1-a7", '"g1-a7" is 6 squares away; a jump goes exactly 2.'),
    ("a7-a7", '"a7-a7" names the same square twice.'),
    ("e4", '"e4": no piece of yours (x) is next to e4, so you cannot clone there.'),
    ("pass", '"pass": you may pass only when you have no move, and you have'),
    ("0000", '"0000": you may pass only when you have no move'),
]
ERROR_POSITION = """
    x x . . . . o
    . . . . . . .
    . . . # . . .
    . . . # . . .
    . . . . o . .
    . . . . . . x
    o . . . . . x
"""


@pytest.mark.parametrize(("text", "message"), ERRORS)
def test_parse_errors_say_what_is_wrong(text: str, message: str) -> None:
    rules = Ataxx()
    pos = board(ERROR_POSITION)
    with pytest.raises(MoveError) as error:
        rules.parse(pos, text)
    assert str(error.value.message).startswith(message)
    assert error.value.hint, "every error shows what would work"
    for example in rules.examples(pos):
        assert rules.format(pos, rules.parse(pos, example)) == example


def test_parse_error_hints_are_specific_and_legal() -> None:
    rules = Ataxx()
    pos = board(ERROR_POSITION)
    with pytest.raises(MoveError) as error:
        rules.parse(pos, "g1-g4")
    assert error.value.hint == "Jumps from g1 that work now: g1-e1, g1-e2, g1-f3, g1-g3."
    with pytest.raises(MoveError) as error:
        rules.parse(pos, "c5")
    assert error.value.hint == "A jump can reach it: a7-c5, b7-c5."
    with pytest.raises(MoveError) as error:
        rules.parse(pos, "hello")
    assert error.value.hint == "Legal now, e.g. f1 (clone) or g1-e1 (jump)."


@pytest.mark.parametrize("variant", ["infection", "assimilation"])
def test_seed_variants_refuse_pass(variant: str) -> None:
    rules = VARIANTS[variant]()
    with pytest.raises(IllegalMove, match=f'"pass": there is no passing in {variant}'):
        rules.parse(rules.start(), "pass")


def test_no_move_is_accepted_once_the_game_is_over() -> None:
    rules = Infection()
    pos = board(X_STUCK)
    with pytest.raises(IllegalMove, match="the game is over"):
        rules.parse(pos, "a3")
    assert rules.examples(pos) == []
    with pytest.raises(IllegalMove):
        rules.sample(pos, lambda moves: moves[0])


def test_notation_mentions_pass_only_where_there_is_one() -> None:
    assert "pass" in str(Ataxx().notation()) and "pass" not in str(Infection().notation())
    assert "a7-c5" in str(Assimilation().notation())


# -- options ---------------------------------------------------------------------------------------

BLOCKS = [
    (None, "", "ataxx 7x7"),
    ("none", "", "ataxx 7x7"),
    ("center", "d4", "ataxx 7x7, 1 blocked square"),
    ("Cross", "d3 c4 d4 e4 d5", "ataxx 7x7, 5 blocked squares"),
    ("c3 e3, c5 e5", "c3 e3 c5 e5", "ataxx 7x7, 4 blocked squares"),
    (["E5", "c3"], "c3 e5", "ataxx 7x7, 2 blocked squares"),
    ("c3;c3", "c3", "ataxx 7x7, 1 blocked square"),
]


@pytest.mark.parametrize(("value", "canonical", "description"), BLOCKS)
def test_blocks_option(value, canonical: str, description: str) -> None:
    rules = Ataxx({"blocks": value})
    assert rules.options["blocks"] == canonical
    assert rules.describe() == description
    assert Ataxx({"blocks": canonical}).options["blocks"] == canonical


@pytest.mark.parametrize(
    ("name", "fen"),
    [
        ("square", "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"),
        ("diamond", "x5o/7/3-3/2-1-2/3-3/7/o5x x 0 1"),
        ("quincunx", "x5o/7/2-1-2/3-3/2-1-2/7/o5x x 0 1"),
    ],
)
def test_named_layouts_give_the_libataxx_positions(name: str, fen: str) -> None:
    assert Ataxx.fen(Infection({"blocks": name}).start()) == fen
    assert name in LAYOUTS


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("maze", "blocks=maze is neither a layout nor a list of squares. The layouts are: none, center"),
        ("c3 z9", 'blocks: "z9" is not a square of the 7x7 board; squares run from a1 to g7.'),
        ("h1", 'blocks: "h1" is not a square'),
        ("c3 a7", "blocks: a7 is a start square and must stay free (a1, a7, g1, g7)."),
        (["g1"], "blocks: g1 is a start square"),
    ],
)
def test_blocks_option_errors(value, message: str) -> None:
    with pytest.raises(BadOption) as error:
        Ataxx({"blocks": value})
    assert str(error.value).startswith(message)


def test_unknown_option_names_the_known_one() -> None:
    with pytest.raises(BadOption, match="blocks"):
        Infection({"size": 9})


def test_class_facts() -> None:
    assert [(c.name, c.family, c.sides, c.score_unit) for c in VARIANTS.values()] == [
        ("ataxx", "ataxx", ("x", "o"), "pieces"),
        ("infection", "ataxx", ("x", "o"), "pieces"),
        ("assimilation", "ataxx", ("x", "o"), "pieces"),
    ]
    assert "ataxx-infection" in Infection.aliases and "ataxx-assimilation" in Assimilation.aliases


# -- FEN and storage -------------------------------------------------------------------------------

FENS = [
    START,
    "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
    "7/7/7/2x1o2/7/7/7 o 17 42",
    "-------/-x---o-/7/7/7/7/7 x 3 2",
    "xoxoxox/oxoxoxo/xoxoxox/oxoxoxo/xoxoxox/oxoxoxo/xoxoxox o 100 80",
]


@pytest.mark.parametrize("fen", FENS)
def test_fen_round_trips(fen: str) -> None:
    pos = Ataxx.from_fen(fen)
    assert Ataxx.fen(pos) == fen
    assert Ataxx.from_fen(fen.upper()) == pos


def test_fen_defaults_and_start() -> None:
    assert Ataxx.from_fen("x5o/7/7/7/7/7/o5x") == Ataxx().start() == Ataxx.from_fen(START)
    assert Ataxx.fen(Ataxx({"blocks": "d4"}).start()) == "x5o/7/7/3-3/7/7/o5x x 0 1"


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("", "is not an Ataxx FEN"),
        ("x5o/7/7/7/7/o5x x 0 1", "has 6 ranks; an Ataxx FEN has 7"),
        ("x5o/7/7/7/7/7/o6x x 0 1", 'rank 1 ("o6x") is wrong: it is too long'),
        ("x5o/7/7/7/7/7/o4x x 0 1", 'rank 1 ("o4x") covers 6 squares instead of 7'),
        ("x5o/7/7/7/7/7/o5b x 0 1", '"b" is not x, o, - or a digit from 1 to 7'),
        ("x5o/7/7/7/7/7/o5x w 0 1", "the side to move must be x or o"),
        ("x5o/7/7/7/7/7/o5x x -1 1", "must be whole numbers"),
        ("x5o/7/7/7/7/7/o5x x 0 0", "the move number at least 1"),
    ],
)
def test_bad_fen_is_refused_clearly(fen: str, message: str) -> None:
    with pytest.raises(BadOption, match=message.replace("(", r"\(").replace(")", r"\)")):
        Ataxx.from_fen(fen)


@pytest.mark.parametrize("texts", [(), ("f2",), ("f2", "a1-c3"), ("f2", "b1", "a7-c5")])
def test_dump_and_load_keep_the_last_move(texts: tuple[str, ...]) -> None:
    rules = Infection({"blocks": "cross"})
    pos = play(rules, rules.start(), *texts)
    data = rules.dump(pos)
    assert json.loads(json.dumps(data)) == data
    assert rules.load(data) == pos
    assert str(rules.last_move(rules.load(data))) == (texts[-1] if texts else "None")


def test_dump_of_a_pass() -> None:
    rules = Ataxx()
    pos = rules.apply(board(X_STUCK), PASS)
    assert rules.dump(pos)["last"] == "pass"
    assert rules.load(rules.dump(pos)) == pos


# -- render ----------------------------------------------------------------------------------------


def test_render_matches_the_mail_layout() -> None:
    rules = Infection({"blocks": "d2"})
    pos = play(rules, rules.start(), "f2", "a1-c2")
    assert rules.render(pos, names=("Alice", "Bob")) == "\n".join(
        [
            "      a b c d e f g",
            "    +---------------+",
            "  7 | x . . . . . o | 7",
            "  6 | . . . . . . . | 6",
            "  5 | . . . . . . . | 5",
            "  4 | . . . . . . . | 4      x  Alice  3 pieces",
            "  3 | . . . . . . . | 3      o  Bob    2 pieces",
            "  2 | . . O # . x . | 2      O  Bob's last move: a1-c2",
            "  1 | . . . . . . x | 1      #  blocked",
            "    +---------------+",
            "      a b c d e f g",
        ]
    )


def test_render_without_names_and_with_credit_and_pass() -> None:
    pos = board(X_STUCK)
    infection = Infection().render(pos)
    assert "x  2 pieces" in infection and "o  22 pieces + 21 credited" in infection
    passed = Ataxx().render(Ataxx().apply(pos, PASS), names=("Alice", "Bob"))
    assert "Alice (x) passed" in passed
    assert passed.splitlines()[8].endswith("#  blocked")


def test_render_fits_72_columns_with_long_names() -> None:
    rules = Ataxx({"blocks": "cross"})
    pos = play(rules, rules.start(), "f2", "g7-e6")
    text = rules.render(pos, names=("A" * 60, "B" * 60))
    assert max(len(line) for line in text.splitlines()) <= 72
    assert text.isascii()
    assert text.splitlines()[3] == "  6 | . . . . O . . | 6"  # e6 is marked as o's last move
