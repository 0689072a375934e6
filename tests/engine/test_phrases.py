"""Every word the engine gives a player is a `Phrase` (one whole sentence per template), its
English is the text it always was, and a board's legend said in wide letters still fits a mail."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

import pbem_engine
from pbem_engine import EngineError
from pbem_engine.common.grid import WIDTH, width
from pbem_engine.common.phrases import Phrase, nphrase, phrase

ENGINE = Path(pbem_engine.__file__).resolve().parent
ERRORS = {"EngineError", "BadOption", "MoveError", "InvalidMove", "IllegalMove"}


def _raises() -> list[tuple[str, int, ast.Call]]:
    """Every construction of an engine error in the engine's source (raised or returned)."""
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ERRORS:
                found.append((path.name, node.lineno, node))
    return found


def test_no_raise_site_writes_its_message_as_a_bare_string() -> None:
    """A message (and a hint) is a phrase, never an English string or f-string of its own."""
    sites = _raises()
    assert len(sites) > 60
    for name, line, call in sites:
        texts = list(call.args[:1]) + [k.value for k in call.keywords if k.arg in ("message", "hint")]
        for text in texts:
            bare = isinstance(text, ast.JoinedStr) or (isinstance(text, ast.Constant) and text.value != "")
            assert not bare, f"{name}:{line}: a message written as a string"


def _error(call: Callable[[], object]) -> EngineError:
    with pytest.raises(EngineError) as caught:
        call()
    return caught.value


def _parse(name: str, text: str, options: dict | None = None, moves: tuple[str, ...] = ()) -> Callable[[], object]:
    def run() -> object:
        rules = pbem_engine.create(name, options)
        pos = rules.start()
        for move in moves:
            pos = rules.apply(pos, rules.parse(pos, move))
        return rules.parse(pos, text)

    return run


# (what raises, the English message and hint the engine wrote before its words became phrases)
OLD = [
    (_parse("ataxx", "hello"),
     '"hello" is not a move: write the square to clone to, like c4, or a jump from one square to another, like a7-c5.',
     'Legal now, e.g. f1 (clone) or g1-e1 (jump).'),
    (_parse("ataxx", "a7"),
     '"a7": a7 is occupied.',
     'Legal now, e.g. f1 (clone) or g1-e1 (jump).'),
    (_parse("ataxx", "h8"),
     '"h8": h8 is off the board; files run from a to g and ranks from 1 to 7.',
     'Legal now, e.g. f1 (clone) or g1-e1 (jump).'),
    (_parse("ataxx", "d4"),
     '"d4": no piece of yours (x) is next to d4, so you cannot clone there.',
     'Legal now, e.g. f1 (clone) or g1-e1 (jump).'),
    (_parse("ataxx", "a1-b1"),
     '"a1-b1": a1 holds an o piece, not one of yours (x).',
     'Legal now, e.g. f1 (clone) or g1-e1 (jump).'),
    (_parse("ataxx", "c3-c5"),
     '"c3-c5": there is no piece on c3.',
     'Legal now, e.g. f1 (clone) or g1-e1 (jump).'),
    (_parse("ataxx", "a7-a4"),
     '"a7-a4" is 3 squares away; a jump goes exactly 2.',
     'Jumps from a7 that work now: a7-a5, a7-b5, a7-c5, a7-c6, a7-c7.'),
    (_parse("ataxx", "pass"),
     '"pass": you may pass only when you have no move, and you have 16.',
     'Legal now, e.g. f1 (clone) or g1-e1 (jump).'),
    (_parse("infection", "pass"),
     '"pass": there is no passing in infection; you must move while you can, and the game ends when you cannot.',
     'Legal now, e.g. f1 (clone) or g1-e1 (jump).'),
    (_parse("capturego", "resign"),
     '"resign" is not a move.',
     'To resign, write the command resign on a line of its own.'),
    (_parse("capturego", "i5"),
     '"i5": there is no column i in Go coordinates; the columns are a-h, j.',
     'Points you can play now: e.g. c3, g7, e5 (or pass).'),
    (_parse("capturego", "hello"),
     '"hello" is not a Go move; a move is a point such as d4, or pass.',
     'Write the column letter then the row number. Points you can play now: e.g. c3, g7, e5 (or pass).'),
    (_parse("capturego", "c3", {"size": 5}, ("c3",)),
     '"c3" is occupied by a black stone.',
     'Points you can play now: e.g. b2, c2, d2 (or pass).'),
    (_parse("capturego", "d4", {"size": 5}, ("pass", "pass")),
     'The game is over (both players passed with 0 captures each); no more moves can be played.',
     ''),
    (_parse("myriades", "d4"),
     '"d4" alone is no turn: a turn places a stone of your supply, e.g. 17@d4, after moving one of '
     'yours first if you wish, e.g. d4-d1 17@d4.',
     'For example: 0@a1.'),
    (_parse("myriades", "17"),
     '"17": say where to place it, e.g. 17@d4.',
     'For example: 0@a1.'),
    (_parse("myriades", "50@a1"),
     '"50@a1": Myriades stones are valued 0 to 49.',
     'For example: 0@a1.'),
    (_parse("myriades", "g2 looks good"),
     'I cannot read "looks" in "g2 looks good".',
     'For example: 0@a1.'),
    (_parse("myriades", "1@a1 2@a2"),
     '"1@a1 2@a2" places two stones; a turn places exactly one.',
     'For example: 0@a1.'),
    (_parse("myriades", "5@b2", moves=("5@a1", "5@a2")),
     '"5@b2": you already have 5 on the board, on a1; place a value from your supply, e.g. 0.',
     'For example: 0@b1 or a1-b1 0@a1.'),
    (_parse("myriades", "a1-a2 1@b1"),
     '"a1-a2": you have no stones on the board yet, so there is nothing to move; this turn is a placement only.',
     'For example: 0@a1.'),
    (_parse("myriades", "1@a1", moves=("5@a1",)),
     '"1@a1": a1 is occupied by White\'s 5.',
     'For example: 0@b1.'),
    (lambda: pbem_engine.create("capturego", {"size": "big"}),
     'size=big is not a whole number; write e.g. size=5.',
     ''),
    (lambda: pbem_engine.create("capturego", {"size": 25}),
     'size=25 is out of range; size must be from 5 to 19.',
     ''),
    (lambda: pbem_engine.create("capturego", {"target": 0}),
     'target=0 is out of range; target must be at least 1.',
     ''),
    (lambda: pbem_engine.create("capturego", {"komi": 6}),
     "Capture Go has no option 'komi'; its options are: size, target.",
     ''),
    (lambda: pbem_engine.lookup("chess"),
     "I do not know a game called 'chess'. The games are: ataxx, infection, assimilation, capturego, myriades, infinito.",
     ''),
    (lambda: pbem_engine.create("ataxx", {"blocks": "a1"}),
     'blocks: a1 is a start square and must stay free (a1, a7, g1, g7).',
     ''),
    (lambda: pbem_engine.Ataxx.from_fen("x5o/7 z"),
     '"x5o/7 z" has 2 ranks; an Ataxx FEN has 7, separated by "/".',
     ''),
    (lambda: pbem_engine.Ataxx.from_fen("x5o/7/7/7/7/7/o5q x"),
     '"x5o/7/7/7/7/7/o5q x": rank 1 ("o5q") is wrong: "q" is not x, o, - or a digit from 1 to 7.',
     ''),
]


@pytest.mark.parametrize(("call", "english", "hint"), OLD)
def test_errors_are_phrases_with_their_old_english(call: Callable[[], object], english: str, hint: str) -> None:
    error = _error(call)
    assert isinstance(error.message, Phrase)
    assert error.hint == "" or isinstance(error.hint, Phrase)
    assert str(error.message) == english
    assert str(error.hint) == hint
    assert str(error) == f"{error.message} {error.hint}".strip()
    assert error.params, "the facts a translation needs"


def test_a_phrase_is_its_english_and_joins_a_list_with_commas() -> None:
    said = phrase("The games are: {games}.", games=["ataxx", "capturego"])
    assert str(said) == "The games are: ataxx, capturego." == said
    assert str(nphrase("{n} stone", "{n} stones", 1)) == "1 stone"
    assert str(nphrase("{n} stone", "{n} stones", 3)) == "3 stones"


def test_texts_are_phrases() -> None:
    for name in pbem_engine.names():
        rules = pbem_engine.create(name)
        assert isinstance(rules.describe(), Phrase)
        assert isinstance(rules.notation(), Phrase)
        for option in rules.option_specs:
            assert isinstance(option.help, Phrase)
    assert pbem_engine.create("ataxx", {"blocks": "cross"}).describe() == "ataxx 7x7, 5 blocked squares"
    assert pbem_engine.create("infinito", {"size": 12}).describe() == "infinito 12x12"


def _korean(said: Phrase) -> str:
    """A stand-in translation as wide as Korean is: two columns per letter, as long as the English."""
    english = str(said)
    return "".join("가" if c.isalpha() else c for c in english)


POSITIONS = [
    ("ataxx", {"blocks": "cross"}, 6),
    ("infection", {}, 9),
    ("capturego", {"size": 9}, 6),
    ("capturego", {"size": 19, "target": 3}, 4),
    ("myriades", {}, 7),
    ("infinito", {"size": 26}, 5),
]


def _played(name: str, options: dict, plies: int) -> tuple[pbem_engine.Rules, object]:
    rules = pbem_engine.create(name, options)
    pos = rules.start()
    for _ in range(plies):
        pos = rules.apply(pos, rules.parse(pos, rules.examples(pos)[-1]))
    return rules, pos


@pytest.mark.parametrize(("name", "options", "plies"), POSITIONS)
@pytest.mark.parametrize("names", [None, ("김철수", "Bob"), ("王小明的账户名字很长很长", "이영희")])
def test_a_wide_legend_fits_72_columns_and_the_grid_stays_aligned(
    name: str, options: dict, plies: int, names: tuple[str, str] | None
) -> None:
    rules, pos = _played(name, options, plies)
    english = rules.render(pos, names=names)
    board = rules.render(pos, names=names, say=_korean)
    lines = board.splitlines()
    assert max(width(line) for line in lines) <= WIDTH, board
    frame = [line for line in lines if line.lstrip().startswith("+-")]
    assert len(frame) == 2
    start, end = lines.index(frame[0]), lines.index(frame[1])
    edge = frame[0].rindex("+")
    for line in lines[start + 1 : end]:
        assert line[edge] == "|", board  # the grid is ASCII: every row's right frame in one column
    assert lines[: start + 1][0].strip() == english.splitlines()[0].strip()  # the same column names
    assert "가" in board


def test_the_english_legend_is_unchanged_by_an_english_say() -> None:
    for name, options, plies in POSITIONS:
        rules, pos = _played(name, options, plies)
        assert rules.render(pos, names=("Alice", "Bob"), say=str) == rules.render(pos, names=("Alice", "Bob"))


def test_a_reached_target_reads_as_reached_in_the_legend() -> None:
    rules = pbem_engine.create("capturego", {"size": 5})
    pos = rules.setup(
        """
        . X . . .
        X O X . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    pos = rules.apply(pos, rules.parse(pos, "b3"))
    board = rules.render(pos, names=("Alice", "Bob"))
    assert "captures: 1 (target 1 reached)" in board
