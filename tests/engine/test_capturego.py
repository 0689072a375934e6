"""Capture Go rules (RULES.md section 2) as tables of ASCII diagrams.

Diagrams list rows from the top (row N) down to row 1, columns a, b, c, ... with no i;
`X` is Black, `O` is White, `.` is empty.
"""

from __future__ import annotations

import json
import random

import pytest

from pbem_engine.common.base import BadOption, EngineError, IllegalMove, MoveError
from pbem_engine.go.game import PASS, CaptureGo, GoPosition, Move
from tests.engine.sentences import sentence


def board(diagram: str) -> list[str]:
    """Rows of a diagram without spaces, as `CaptureGo.diagram` returns them."""
    return [row.replace(" ", "") for row in diagram.strip().splitlines()]


def position(diagram: str, *, turn: int = 0, size: int | None = None, target: int = 1, captures=(0, 0)):
    rows = board(diagram)
    rules = CaptureGo({"size": size or len(rows), "target": target})
    return rules, rules.setup(rows, turn=turn, captures=captures)


def play(rules: CaptureGo, pos: GoPosition, *texts: str) -> GoPosition:
    for text in texts:
        pos = rules.apply(pos, rules.parse(pos, text))
    return pos


# -- captures ------------------------------------------------------------------------

CAPTURES = [
    pytest.param(
        """
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .
        """,
        "d3",
        """
        . . . . .
        . . X . .
        . X . X .
        . . X . .
        . . . . .
        """,
        1,
        id="single stone",
    ),
    pytest.param(
        """
        . X . X .
        X O . O X
        . X . X .
        . . . . .
        . . . . .
        """,
        "c4",
        """
        . X . X .
        X . X . X
        . X . X .
        . . . . .
        . . . . .
        """,
        2,
        id="two chains at once",
    ),
    pytest.param(
        """
        . X X X . . .
        X O O O X . .
        X O O O X . .
        . X X . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        "d4",
        """
        . X X X . . .
        X . . . X . .
        X . . . X . .
        . X X X . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        6,
        id="a chain of six",
    ),
    pytest.param(
        """
        O O X . .
        . . X . .
        . . . . .
        . . . . .
        . . . . .
        """,
        "a4",
        None,  # nothing captured (b4 is still free): the board just gains a4
        0,
        id="no capture while a liberty remains",
    ),
    pytest.param(
        """
        . . . . .
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        """,
        "c3",
        """
        . . . . .
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        """,
        1,
        id="a capture comes before the suicide check (ko shape)",
    ),
]


@pytest.mark.parametrize(("before", "point", "after", "taken"), CAPTURES)
def test_captures(before: str, point: str, after: str | None, taken: int) -> None:
    rules, pos = position(before, target=99)
    result = play(rules, pos, point)
    assert result.captures == (taken, 0)
    if after is not None:
        assert rules.diagram(result) == board(after)
    else:
        expected = [list(row) for row in board(before)]
        col, row = "abcdefghj".index(point[0]), int(point[1:])
        expected[rules.size - row][col] = "X"
        assert rules.diagram(result) == ["".join(r) for r in expected]


HUGE = """
    X X X X X
    X X X X X
    X X X X X
    X X X X X
    X X X X .
    """


def test_filling_the_last_liberty_of_a_huge_chain_captures_it_all() -> None:
    rules, pos = position(HUGE, turn=1, target=99)
    after = play(rules, pos, "e1")  # no liberty of its own, but it captures first
    assert after.captures == (0, 24)
    assert rules.diagram(after) == board(
        """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . O
        """
    )
    assert len(rules.legal_moves(after)) == 24 + 1
    # with a second liberty at c3 the same move captures nothing and is suicide
    rules, pos = position(HUGE.replace("X X X X X\n    X X X X X\n    X X X X X\n    X X X X X\n    X X X X .",
                                       "X X X X X\n    X X X X X\n    X X . X X\n    X X X X X\n    X X X X ."),
                          turn=1)
    with pytest.raises(IllegalMove, match='"e1" would leave your stones without liberties'):
        rules.parse(pos, "e1")


# -- illegal placements and their messages -----------------------------------------------

REFUSALS = [
    pytest.param(
        """
        . O . . .
        O . O . .
        . O . . .
        . . . . .
        . . . . .
        """,
        "b4",
        '"b4" would leave your stones without liberties',
        id="single-stone suicide",
    ),
    pytest.param(
        """
        . O . . .
        O . . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        "a5",
        '"a5" would leave your stones without liberties',
        id="corner suicide",
    ),
    pytest.param(
        """
        . X O . .
        X X O . .
        O O . . .
        . . . . .
        . . . . .
        """,
        "a5",
        '"a5" would leave your stones without liberties',
        id="multi-stone suicide",
    ),
    pytest.param(
        """
        . X . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        "B 5",
        '"b5" is occupied by a black stone',
        id="occupied",
    ),
]


@pytest.mark.parametrize(("diagram", "text", "message"), REFUSALS)
def test_refusals(diagram: str, text: str, message: str) -> None:
    rules, pos = position(diagram)
    with pytest.raises(IllegalMove) as caught:
        rules.parse(pos, text)
    assert str(caught.value.message).startswith(message)
    assert "e.g." in str(caught.value.hint)
    for example in rules.examples(pos):
        rules.parse(pos, example)
    # apply refuses the same move with the same words, and the position is untouched
    move = rules.parse(CaptureGo({"size": rules.size}).start(), text)
    with pytest.raises(IllegalMove, match=message.split('"')[2].strip()):
        rules.apply(pos, move)
    assert rules.diagram(pos) == board(diagram)


KO = """
    . . . . .
    . X O . .
    X O . O .
    . X O . .
    . . . . .
    """


def test_simple_ko_is_refused_by_superko() -> None:
    rules, pos = position(KO, target=9)
    taken = play(rules, pos, "c3")
    assert taken.captures == (1, 0)
    with pytest.raises(IllegalMove) as caught:
        rules.parse(taken, "b3")
    assert caught.value.message == '"b3" would repeat an earlier board position (superko).'
    assert "b3" not in [rules.format(taken, m) for m in rules.legal_moves(taken)]
    # after a move elsewhere by each side, the recapture is a new board and legal
    later = play(rules, taken, "e5", "a5")
    assert play(rules, later, "b3").captures == (1, 1)


def test_a_pass_neither_creates_nor_forgets_positions() -> None:
    rules, pos = position(KO, turn=1, target=9)
    passed = play(rules, pos, "pass")
    assert passed.history == pos.history and rules.diagram(passed) == rules.diagram(pos)
    assert passed.passes == 1 and rules.turn(passed) == 0
    taken = play(rules, passed, "c3")
    assert taken.passes == 0 and len(taken.history) == len(pos.history) + 1
    # the board from before White's pass still counts
    with pytest.raises(IllegalMove, match="superko"):
        rules.parse(taken, "b3")


TRIPLE_KO = """
    . . . . . . . . .
    . . . . . . . . .
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
    . . . . . . . . .
    . X O . . . X O .
    X O . O . X . X O
    . X O . . . X O .
    """


def test_triple_ko_cycle_is_refused_only_by_positional_superko() -> None:
    rules, start = position(TRIPLE_KO, target=99)
    boards = [rules.diagram(start)]
    pos = start
    for text in ("c2", "g2", "c6", "b2", "h2"):  # each move takes one stone in one of the kos
        pos = play(rules, pos, text)
        boards.append(rules.diagram(pos))
    assert pos.captures == (3, 2)
    # White b6 would bring back the starting board, six moves later: simple ko (which only
    # forbids undoing the previous move) would allow it, positional superko does not.
    assert boards[-2] != boards[0]
    with pytest.raises(IllegalMove, match='"b6" would repeat an earlier board position'):
        rules.parse(pos, "b6")
    assert Move(1, 5) not in rules.legal_moves(pos)


def test_the_history_holds_the_empty_start_and_one_board_per_placement() -> None:
    rules = CaptureGo({"size": 5, "target": 9})
    pos = rules.start()
    assert pos.history == (0,) and pos.seen(0)
    later = play(rules, pos, "c3", "pass", "d3", "c2")
    assert len(later.history) == 4 and later.history[0] == 0 and len(set(later.history)) == 4
    assert all(later.seen(h) for h in later.history) and not pos.seen(later.history[-1])


# -- ending the game ------------------------------------------------------------------------

OVERSHOOT = """
    . X X . .
    X O O . .
    . X X . .
    . . . . .
    . . . . .
    """


@pytest.mark.parametrize(
    ("target", "over", "winner", "reason"),
    [
        (1, True, 0, "Black reached 2 captures"),
        (2, True, 0, "Black reached 2 captures"),
        (3, False, None, ""),
    ],
)
def test_the_mover_wins_on_reaching_the_target(target: int, over: bool, winner, reason: str) -> None:
    rules, pos = position(OVERSHOOT, target=target)
    after = play(rules, pos, "d4")
    outcome = rules.outcome(after)
    assert (outcome.over, outcome.winner, sentence(rules, outcome), outcome.scores) == (over, winner, reason, (2, 0))
    assert (rules.legal_moves(after) == []) == over


def test_overshooting_the_target_wins() -> None:
    rules, pos = position(
        """
        . X X X .
        X O O O X
        . X X . .
        . . . . .
        . . . . .
        """,
        target=2,
    )
    after = play(rules, pos, "d3")
    assert rules.outcome(after) .winner == 0 and after.captures == (3, 0)
    assert sentence(rules, rules.outcome(after)) == "Black reached 3 captures"
    with pytest.raises(IllegalMove, match="The game is over"):
        rules.parse(after, "e1")
    with pytest.raises(IllegalMove, match="The game is over"):
        rules.apply(after, PASS)


@pytest.mark.parametrize(
    ("captures", "winner", "reason"),
    [
        ((0, 0), None, "both players passed with 0 captures each"),
        ((2, 2), None, "both players passed with 2 captures each"),
        ((1, 0), 0, "both players passed; Black has more captures (1 to 0)"),
        ((1, 3), 1, "both players passed; White has more captures (3 to 1)"),
    ],
)
def test_two_passes_end_the_game(captures, winner, reason: str) -> None:
    rules = CaptureGo({"size": 5, "target": 5})
    pos = rules.setup(["....."] * 5, captures=captures)
    once = play(rules, pos, "pass")
    assert not rules.outcome(once).over
    twice = play(rules, once, "PASS")
    outcome = rules.outcome(twice)
    assert (outcome.over, outcome.winner, sentence(rules, outcome), outcome.draw) == (True, winner, reason, winner is None)
    assert rules.legal_moves(twice) == [] and rules.examples(twice) == []


def test_a_placement_between_passes_resets_the_count() -> None:
    rules = CaptureGo({"size": 5})
    pos = play(rules, rules.start(), "pass", "c3", "pass")
    assert pos.passes == 1 and not rules.outcome(pos).over


# -- reading moves ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("size", "text", "move"),
    [
        (9, "d4", Move(3, 3)),
        (9, "D4", Move(3, 3)),
        (9, " D 4 ", Move(3, 3)),
        (9, "j9", Move(8, 8)),
        (19, "k10", Move(9, 9)),
        (19, "T19", Move(18, 18)),
        (19, "t 1", Move(18, 0)),
        (9, "Pass", PASS),
        (5, "a1", Move(0, 0)),
    ],
)
def test_parse_is_lenient(size: int, text: str, move: Move) -> None:
    rules = CaptureGo({"size": size})
    pos = rules.start()
    assert rules.parse(pos, text) == move
    assert rules.parse(pos, rules.format(pos, move)) == move
    assert rules.format(pos, move) == text.strip().replace(" ", "").lower()


@pytest.mark.parametrize(
    ("size", "text", "message"),
    [
        (9, "i5", '"i5": there is no column i in Go coordinates; the columns are a-h, j.'),
        (19, "I10", '"I10": there is no column i in Go coordinates; the columns are a-h, j-t.'),
        (13, "i1", '"i1": there is no column i in Go coordinates; the columns are a-h, j-n.'),
        (5, "i1", '"i1": there is no column i in Go coordinates; the columns are a-e.'),
        (9, "k10", '"k10" is off this 9x9 board; the columns are a-h, j and the rows 1-9.'),
        (9, "k5", '"k5" is off this 9x9 board; the columns are a-h, j and the rows 1-9.'),
        (9, "a0", '"a0" is off this 9x9 board; the columns are a-h, j and the rows 1-9.'),
        (5, "f1", '"f1" is off this 5x5 board; the columns are a-e and the rows 1-5.'),
        (9, "4d", '"4d" is not a Go move; a move is a point such as d4, or pass.'),
        (9, "", '"" is not a Go move; a move is a point such as d4, or pass.'),
        (9, "resign", '"resign" is not a move.'),
    ],
)
def test_unreadable_moves_say_what_is_wrong(size: int, text: str, message: str) -> None:
    rules = CaptureGo({"size": size})
    with pytest.raises(MoveError) as caught:
        rules.parse(rules.start(), text)
    assert caught.value.message == message
    assert caught.value.hint


def test_hints_offer_moves_that_are_legal_now() -> None:
    rules, pos = position(
        """
        X X X X X
        X X X X X
        X X . X X
        X X X X X
        X X X . .
        """,
        turn=1,
    )
    assert rules.examples(pos) == ["d1", "e1"]  # c3, the centre, would be suicide for White
    with pytest.raises(IllegalMove) as caught:
        rules.parse(pos, "c3")
    assert caught.value.hint == "Points you can play now: e.g. d1, e1 (or pass)."


def test_legal_moves_on_the_empty_board() -> None:
    rules = CaptureGo({"size": 5})
    moves = rules.legal_moves(rules.start())
    assert len(moves) == 26 and moves[-1] == PASS
    assert rules.examples(rules.start()) == ["c3", "b2", "c2"]
    assert CaptureGo({"size": 19}).examples(CaptureGo({"size": 19}).start()) == ["d4", "q16", "k10"]


# -- options and description ----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": 4}, "size=4 is out of range; size must be from 5 to 19."),
        ({"size": 20}, "size=20 is out of range; size must be from 5 to 19."),
        ({"size": "nine"}, "size=nine is not a whole number"),
        ({"target": 0}, "target=0 is out of range; target must be at least 1."),
        ({"komi": 6}, "Capture Go has no option 'komi'; its options are: size, target."),
    ],
)
def test_bad_options(options: dict, message: str) -> None:
    with pytest.raises(BadOption) as caught:
        CaptureGo(options)
    assert str(caught.value).startswith(message)


def test_options_and_description() -> None:
    assert CaptureGo().options == {"size": 9, "target": 1}
    assert CaptureGo({"size": "13", "target": "5"}).describe() == "capture go 13x13, first to 5 captures"
    assert CaptureGo().describe() == "capture go 9x9, first to 1 capture"
    assert "no column i" in str(CaptureGo().notation())


# -- positions are values ------------------------------------------------------------------------

def test_apply_never_changes_its_input_and_branches_stay_apart() -> None:
    rules, pos = position(KO, target=9)
    dumped = json.dumps(rules.dump(pos))
    first = rules.apply(pos, Move(2, 2))  # c3 takes the ko
    second = rules.apply(pos, Move(2, 2))  # the same move again, from the same position
    assert first == second and hash(first) == hash(second)
    other = rules.apply(pos, Move(4, 4))  # a branch: its history must not hold c3's board
    assert json.dumps(rules.dump(pos)) == dumped
    assert not other.seen(first.history[-1]) and first.seen(first.history[-1])
    assert len(other.history) == len(first.history) == len(pos.history) + 1
    # play on in the branch; the first line is unaffected
    deeper = play(rules, other, "c3")
    assert deeper.captures == (0, 0) and first.captures == (1, 0)
    with pytest.raises(IllegalMove, match="superko"):
        rules.parse(first, "b3")
    with pytest.raises(AttributeError):
        first.ply = 7  # type: ignore[misc]


def test_dump_and_load_keep_the_history() -> None:
    rules, pos = position(TRIPLE_KO, target=99)
    pos = play(rules, pos, "c2", "g2", "c6", "b2")
    pos = play(rules, rules.load(json.loads(json.dumps(rules.dump(pos)))), "h2")
    data = rules.dump(pos)
    loaded = rules.load(json.loads(json.dumps(data)))
    assert loaded == pos and loaded.history == pos.history and rules.diagram(loaded) == rules.diagram(pos)
    assert data["captures"] == [3, 2] and data["last"] == "h2" and len(data["history"]) == 2 + 5
    assert (data["turn"], data["ply"], data["passes"]) == (1, 5, 0)
    # the loaded position refuses what the original refuses
    with pytest.raises(IllegalMove, match="superko"):
        rules.parse(loaded, "b6")
    passed = play(rules, loaded, "pass")
    again = rules.load(json.loads(json.dumps(rules.dump(passed))))
    assert again == passed and again.passes == 1 and again.last == PASS and again != loaded


def test_load_refuses_a_damaged_position() -> None:
    rules = CaptureGo({"size": 5})
    data = rules.dump(play(rules, rules.start(), "c3"))
    with pytest.raises(EngineError, match="does not match its board history"):
        rules.load({**data, "history": data["history"][:1]})
    with pytest.raises(EngineError, match="damaged"):
        rules.load({**data, "captures": None})
    with pytest.raises(EngineError, match="not 9x9"):
        CaptureGo().load(data)


# -- rendering ------------------------------------------------------------------------------------

def test_render_marks_the_last_move_and_fits() -> None:
    rules = CaptureGo({"size": 9, "target": 3})
    pos = play(rules, rules.start(), "e5", "d5", "j9")
    text = rules.render(pos, names=("Alice", "Bob"))
    lines = text.splitlines()
    assert lines[0] == "     a b c d e f g h j" == lines[-1]
    assert lines[2].startswith(" 9 | . . . . . . . .(X)| 9")
    assert lines[6].startswith(" 5 | . . + O X . + . . | 5")
    assert "X  Black (Alice)  captures: 0 of 3" in text
    assert "(X) last move: j9" in text and "White to play" in text
    assert text.isascii()


@pytest.mark.parametrize("size", range(5, 20))
def test_render_fits_72_columns(size: int) -> None:
    rules = CaptureGo({"size": size, "target": 123456})
    pos = play(rules, rules.start(), "a1", rules.point_name(Move(size - 1, size - 1)))
    text = rules.render(pos, names=("A" * 40, "Bartholomew Longname-Smythe"))
    assert max(len(line) for line in text.splitlines()) <= 72
    assert f" {size} |" in text or f"{size} |" in text
    assert "i" not in text.splitlines()[0]


# -- internal consistency against a plain reference implementation ------------------------------


def reference_legal(size: int, stones: dict, turn: int, seen: set) -> dict:
    """Every legal point with its resulting stones: flood fills and a set of whole boards."""
    def chain(st: dict, start: tuple) -> tuple[set, bool]:
        colour, group, todo, free = st[start], {start}, [start], False
        while todo:
            c, r = todo.pop()
            for q in ((c - 1, r), (c + 1, r), (c, r - 1), (c, r + 1)):
                if not (0 <= q[0] < size and 0 <= q[1] < size):
                    continue
                if q not in st:
                    free = True
                elif st[q] == colour and q not in group:
                    group.add(q)
                    todo.append(q)
        return group, free

    result = {}
    for point in ((c, r) for c in range(size) for r in range(size)):
        if point in stones:
            continue
        after = {**stones, point: turn}
        for q in ((point[0] - 1, point[1]), (point[0] + 1, point[1]), (point[0], point[1] - 1),
                  (point[0], point[1] + 1)):
            if after.get(q) == 1 - turn:
                group, free = chain(after, q)
                if not free:
                    for s in group:
                        del after[s]
        if not chain(after, point)[1] or frozenset(after.items()) in seen:
            continue
        result[point] = after
    return result


@pytest.mark.parametrize(("size", "seed"), [(5, 1), (5, 2), (6, 3), (7, 4)])
def test_random_games_agree_with_a_reference(size: int, seed: int) -> None:
    rules = CaptureGo({"size": size, "target": 10**6})
    rng = random.Random(seed)
    pos = rules.start()
    stones: dict = {}
    seen = {frozenset()}
    for _ in range(160 if size < 7 else 110):
        expected = reference_legal(size, stones, pos.turn, seen)
        legal = rules.legal_moves(pos)
        assert {(m.col, m.row) for m in legal if not m.is_pass} == set(expected)
        move = PASS if rng.random() < 0.04 else rng.choice(legal[:-1] or [PASS])
        before = pos.captures[pos.turn]
        mover = pos.turn
        pos = rules.apply(pos, move)
        if not move.is_pass:
            removed = len(stones) + 1 - len(expected[(move.col, move.row)])
            stones = expected[(move.col, move.row)]
            seen.add(frozenset(stones.items()))
            assert pos.captures[mover] - before == removed
        cells = {(c, r): side for c in range(size) for r in range(size)
                 if (side := rules.stone(pos, Move(c, r))) is not None}
        assert cells == stones
        if rules.outcome(pos).over:
            break
