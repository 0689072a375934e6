"""Wrapping by display width: Chinese breaks only where a word ends, never between a number and
its unit; Korean only at spaces; English as `textwrap` does; a word wider than a line is cut."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import threading
import types

import pytest

from pbem.text import catalogs, textwidth
from pbem.text.templates import Templates
from pbem.text.textwidth import width, word_ends, wrap
from tests.samples import exchange

_FIELD = re.compile(r"%\(\w+\)[sd]|\{\w+\}")
WIDTHS = (16, 20, 27, 40, 56, 72)


def _is_han(char: str) -> bool:
    return "\u3400" <= char <= "\u9fff"


def _chinese_lines() -> list[str]:
    """Every line of the Chinese catalog, each field a number (so "%(n)s 天" reads "12 天")."""
    lines = []
    for message in catalogs.read(catalogs.po_path("zh"), "zh"):
        strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
        for text in strings:
            lines.extend(_FIELD.sub("12", text or "").splitlines())
    return [line for line in lines if any(_is_han(c) for c in line)]


def _breaks(line: str, lines: list[str], indent: str) -> list[tuple[int, int]]:
    """Where `lines` broke `line`: (the end of one line's text, the start of the next's)."""
    at = len(lines[0])
    assert line.startswith(lines[0])
    found = []
    for later in lines[1:]:
        assert later.startswith(indent)
        text = later[len(indent):]
        start = at
        while line[start] == " ":
            start += 1
        assert line[start:start + len(text)] == text, (line, lines)
        found.append((at, start))
        at = start + len(text)
    assert not line[at:].strip()
    return found


def _word_at(line: str, i: int, ends: frozenset[int]) -> tuple[int, int]:
    """Where the Chinese word holding `line[i]` starts and ends."""
    start, end = i, i + 1
    while start > 0 and _is_han(line[start - 1]) and start not in ends:
        start -= 1
    while end < len(line) and _is_han(line[end]) and end not in ends:
        end += 1
    return start, end


def _number_before(text: str) -> str | None:
    """The number `text` ends with, if it is one ("12", "还剩12") and not a name's digits ("#12")."""
    found = re.search(r"(?:^|(?<=[^\x00-\x7f])|(?<= ))\d[\d.,:]*$", text)
    return found.group() if found else None


def _held(line: str, left: int, right: int, ends: frozenset[int]) -> str:
    """`line[left:right]` with what no line may break from it: an opening mark and "第" before,
    the rest of a date ("年12月6日") and closing marks after."""
    while left > 0 and (line[left - 1] in textwidth._NO_END or line[left - 1] == "第"
                        or (line[left - 1] == " " and line[left - 2] == "第")):
        left -= 2 if line[left - 1] == " " else 1
    while right < len(line) and line[right].isdigit():
        while right < len(line) and line[right].isdigit():
            right += 1
        if right < len(line) and _is_han(line[right]):
            right = _word_at(line, right, ends)[1]
    while right < len(line) and line[right] in textwidth._NO_START:
        right += 1
    return line[left:right]


def _check(line: str, columns: int, indent: str = "") -> list[str]:
    """`line` wrapped, with every rule of Chinese breaking checked; the wrapped lines."""
    lines = wrap(line, columns, indent)
    room = columns - width(indent)
    ends = word_ends(line)
    for end, start in _breaks(line, lines, indent):
        before, after = line[end - 1], line[start]
        where = f"{line!r} at {columns}: {lines}"
        if end == start and _is_han(before) and _is_han(after):  # inside a run of Chinese
            word = line[slice(*_word_at(line, end, ends))]
            assert end in ends or width(word) > room, f"inside the word {word!r}: {where}"
        if _is_han(after) and (number := _number_before(line[:end])):
            held = _held(line, end - len(number), _word_at(line, start, ends)[1], ends)
            assert width(held) > room, f"between {number!r} and its unit: {where}"
        if end == start and _is_han(before) and after.isdigit():  # "12月" | "6日"
            unit = _word_at(line, end - 1, ends)[0]
            if unit > 0 and line[unit - 1].isdigit():
                number = _number_before(line[:unit]) or line[unit - 1]
                held = _held(line, unit - len(number), end, ends)
                assert width(held) > room, f"inside a date or span of time: {where}"
    for part in lines:
        text = part[len(indent):] if part is not lines[0] else part
        # wider than the line only when it is one token nothing may break
        assert width(part) <= columns or wrap(text.strip(), 1) == [text.strip()], f"{part!r} too wide: {lines}"
    return lines


def test_every_chinese_sentence_of_the_catalog_breaks_between_words_only() -> None:
    lines = _chinese_lines()
    assert len(lines) > 1000
    for line in lines:
        for columns in WIDTHS:
            _check(line, columns)
            _check(line, columns, "   ")


@pytest.mark.parametrize(("line", "columns", "expected"), [
    # the dates and spans of time players found broken: "12月" / "6日", "3" / "天"
    ("截止时间是2026年12月6日周日 14:30，还剩 3 天。", 26, ["截止时间是2026年12月6日", "周日 14:30，还剩 3 天。"]),
    ("截止时间是2026年12月6日周日 14:30，还剩 3 天。", 22, ["截止时间是", "2026年12月6日周日", "14:30，还剩 3 天。"]),
    ("你的对局已经走了 3 步，还剩 3 天。", 16, ["你的对局已经走了", "3 步，还剩", "3 天。"]),
    ("你的对局已经走了第 3 步", 16, ["你的对局已经走了", "第 3 步"]),
    ("请放 2 枚备用棋子", 8, ["请放", "2 枚备用", "棋子"]),
    ("每步的天数，1 到 30，默认 7", 20, ["每步的天数，1 到", "30，默认 7"]),
    # a game's number is a name, not a count: the line may break after it
    ("你的对局 #12 已经开始", 12, ["你的对局 #12", "已经开始"]),
    # the game words the dictionary lacks: 提和 (offer a draw), 着法 (a move), 中立子 (a neutral piece)
    ("对手请求提和", 10, ["对手请求", "提和"]),
    ("这是一个不合法的着法", 18, ["这是一个不合法的", "着法"]),
    ("把你的一枚棋子变为中立子", 22, ["把你的一枚棋子变为", "中立子"]),
    # a word wider than the line is still cut, between its letters
    ("中华人民共和国成立了", 8, ["中华人民", "共和国", "成立了"]),
    ("截止 2026年12月6日", 10, ["截止 2026", "年12月6日"]),
])
def test_chinese_breaks_where_a_reader_would(line: str, columns: int, expected: list[str]) -> None:
    assert _check(line, columns) == expected


def test_a_line_with_an_undecodable_byte_wraps_too() -> None:
    line = "对手说：你好\udcff，我们下一局吧。"  # surrogateescape's stand-in for a byte no charset read
    assert "".join(_check(line, 12)) == line


def test_closing_marks_stay_after_their_word_and_opening_ones_before_it() -> None:
    line = "如果对手走的不是某组条件着法针对的那一步（例如“c4”），这组就会被删除。"
    for columns in range(8, 40):
        for part in _check(line, columns):
            assert part[0] not in "，。）”" and part[-1] not in "（“"


def test_korean_breaks_at_spaces_only_and_english_as_textwrap_does() -> None:
    korean = "상대가 무승부를 제안했습니다. 수락하려면 draw 라고 쓰세요; 12 수 남았습니다."
    for columns in range(10, 60):
        lines = wrap(korean, columns)
        assert " ".join(lines) == korean
        assert all(width(part) <= columns for part in lines if " " in part or width(part) <= columns)
    english = "Bob offers a draw in game #12 after 3 moves; write draw 12 to accept it, or go on playing."
    for columns in range(10, 60):
        assert wrap(english, columns, "  ") == textwrap.wrap(
            english, columns, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)


def test_cut_never_splits_a_wide_letter() -> None:
    assert textwidth.cut("김철수님", 5) == "김철"
    assert textwidth.cut("张伟abc", 5) == "张伟a"
    assert textwidth.cut("alice", 3) == "ali"
    assert textwidth.cut("张伟", 4) == "张伟"


def test_the_dictionary_is_loaded_only_for_a_chinese_line() -> None:
    script = (
        "import sys\n"
        "from pbem.text.textwidth import wrap\n"
        "wrap('상대가 무승부를 제안했습니다. 수락하려면 draw 라고 쓰세요.', 20)\n"
        "wrap('Bob offers a draw in game 12.', 10)\n"
        "assert 'rjieba' not in sys.modules\n"
        "wrap('你的对局已经走了 3 步，还剩 3 天。', 10)\n"
        "assert 'rjieba' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


def test_threads_that_meet_a_chinese_line_at_once_load_the_dictionary_once(monkeypatch) -> None:
    loads: list[str] = []
    gate = threading.Event()

    def add_word(word, freq, tag):  # what loading does once per game word
        loads.append(word)
        gate.wait(0.05)
        return 0

    fake = types.SimpleNamespace(add_word=add_word, cut=lambda text: list(text))
    monkeypatch.setitem(sys.modules, "rjieba", fake)
    monkeypatch.setattr(textwidth, "_CUT", None)
    word_ends.cache_clear()
    try:
        lines = [f"第{n}行：你的对局已经走了很多步，还剩几天。" for n in range(8)]
        threads = [threading.Thread(target=wrap, args=(line, 10)) for line in lines]
        for thread in threads:
            thread.start()
        gate.set()
        for thread in threads:
            thread.join()
        assert loads == list(textwidth._GAME_WORDS)
    finally:
        word_ends.cache_clear()  # the fake's cuts are not the dictionary's


@pytest.mark.slow
def test_the_chinese_mails_break_between_words_only(tmp_path, monkeypatch) -> None:
    """Every line the mails of the whole script wrap, as they wrap it, checked as above."""
    calls: list[tuple[str, int, str]] = []
    real = textwidth.wrap

    def recording(line: str, columns: int, indent: str = "") -> list[str]:
        if any(_is_han(c) for c in line):
            calls.append((line, columns, indent))
        return real(line, columns, indent)

    monkeypatch.setattr(textwidth, "wrap", recording)
    with exchange("zh", tmp_path) as (_, rows):
        assert len(rows) > 40
    assert len(calls) > 50
    for line, columns, indent in calls:
        _check(line, columns, indent)


def test_a_note_after_a_name_takes_a_space_but_not_before_a_wide_bracket() -> None:
    assert textwidth.aside("(you)") == " (you)"
    assert textwidth.aside("(봇)") == " (봇)"  # Korean writes ASCII brackets, spaced
    assert textwidth.aside("（你）") == "（你）"  # a Chinese bracket carries its own space
    assert textwidth.aside("") == " "


@pytest.mark.parametrize(("language", "line"), [
    ("en", "alice (bot) (you)"), ("zh", "alice（机器人）（你）"), ("ko", "alice (봇) (회원님)"),
])
def test_the_ratings_list_marks_the_reader_and_the_bots_as_each_language_spaces_it(language, line) -> None:
    rows = [{"rank": 1, "rating": 1500, "deviation": 350, "games": 2, "name": "alice", "address": "a@x.org", "bot": True}]
    body = Templates().render("ratings.txt", language=language, title="Ataxx", me="a@x.org", rows=rows).body
    assert body.splitlines()[3].rstrip().endswith(line), body
