"""How wide text is on a fixed-width screen, and wrapping that counts it.

A Korean or Chinese letter takes two columns where a Latin one takes one, and Chinese
puts no space between words, so `len` and `textwrap` both misjudge a line of it. Lines
holding only narrow letters go through `textwrap` as always (the English mails stay
byte for byte what they were); a line with wide letters is wrapped here: at spaces (Korean
breaks only there), between two Chinese letters only where a word ends, never between a
number and its unit ("3 步", "12月6日"), never before a closing mark (，。) nor after an
opening one, and never inside a span the caller holds together. A word wider than a whole
line is still cut between its letters.

Chinese words are found by rjieba (jieba's dictionary and HMM in Rust): it cuts our catalog's
sentences as jieba does, where ICU's dictionary splits words such as 对局 and 页面, and it
loads in about half a second and 33 MiB against jieba's two seconds and 72 MiB, from a wheel
for every Python. It is loaded once, on the first Chinese line to wrap.
"""

from __future__ import annotations

import itertools
import re
import textwrap
import threading
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from wcwidth import wcswidth, wcwidth

JOIN = "\ue003"  # between two letters that must stay on one line; it takes no column
_MARKS = {chr(c) for c in range(0xE001, 0xE010)}  # pbem's own marks inside a line: no column

_NO_START = set("，。、！？：；）」』”’》〉】．,.!?:;)]}%·…")  # a line never starts with these
_NO_END = set("（「『“‘《〈【([{")  # nor ends with these


@lru_cache(maxsize=4096)
def width(text: str) -> int:
    """Columns `text` takes; a character of unknown width (private use, control) counts one."""
    if text.isascii():
        return len(text)
    if any(c in _MARKS for c in text):
        text = "".join(c for c in text if c not in _MARKS)
    measured = wcswidth(text)
    if measured >= 0:
        return measured
    return sum(max(wcwidth(c), 1) if c != "\u200b" else 0 for c in text)


def is_wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


_NARROW: set[str] = set()  # the letters found narrow so far: a line of them needs no look at each
_NARROW_LOCK = threading.Lock()  # shared by the daemon's threads


def _all_narrow(line: str) -> bool:
    if line.isascii():
        return True
    with _NARROW_LOCK:
        unknown = set(line).difference(_NARROW)
    for char in unknown:
        if is_wide(char):
            return False
    with _NARROW_LOCK:
        if len(_NARROW) < 65536:
            _NARROW.update(unknown)
    return True


def _is_hangul(char: str) -> bool:
    """Korean puts spaces between its words and breaks only there."""
    return "\uac00" <= char <= "\ud7a3" or "\u1100" <= char <= "\u11ff" or "\u3130" <= char <= "\u318f"


def _is_han(char: str) -> bool:
    """A Chinese character (a hanzi): Chinese breaks between words of them, not between any two."""
    return (
        "\u4e00" <= char <= "\u9fff" or "\u3400" <= char <= "\u4dbf" or "\uf900" <= char <= "\ufaff"
        or "\U00020000" <= char <= "\U0003134f"
    )


def ljust(text: str, columns: int) -> str:
    """`text` padded with spaces to `columns` display columns."""
    return text + " " * max(0, columns - width(text))


def aside(text: str) -> str:
    """A note after a word ("alice (you)") with the space before it, but none before a wide
    opening bracket ("alice（你）"): Chinese brackets carry their own space."""
    if text and unicodedata.category(text[0]) == "Ps" and unicodedata.east_asian_width(text[0]) in "WF":
        return text
    return " " + text


def cut(text: str, columns: int) -> str:
    """`text` cut to at most `columns` display columns, never through a wide letter."""
    if width(text) <= columns:
        return text
    ends = itertools.accumulate(width(char) for char in text)  # the column each letter ends at
    return text[: sum(1 for _ in itertools.takewhile(lambda end: end <= columns, ends))]


#: game words of the catalog that the segmenter's dictionary lacks (it would cut "提和", offer a
#: draw, into "提" and "和")
_GAME_WORDS = ("提和", "着法", "中立子")
_CUT: Callable[[str], list[str]] | None = None
_CUT_LOCK = threading.Lock()  # the daemon's threads load the dictionary once between them


def _segmenter() -> Callable[[str], list[str]]:
    """rjieba's cut, its dictionary loaded on the first call (half a second) and kept."""
    global _CUT
    if _CUT is None:
        with _CUT_LOCK:
            if _CUT is None:
                import rjieba  # loads its dictionary on import: only once a Chinese line needs it

                for word in _GAME_WORDS:
                    rjieba.add_word(word, None, None)
                _CUT = rjieba.cut
    return _CUT


@lru_cache(maxsize=512)
def word_ends(line: str) -> frozenset[int]:
    """Where the Chinese words of `line` end (indices into it): a line of Chinese breaks only
    there. The segmenter reads the whole line, so a word is judged in its context."""
    try:
        words = _segmenter()(line)
    except UnicodeEncodeError:  # a lone surrogate (a byte no charset read): U+FFFD, one letter too
        words = _segmenter()(re.sub("[\ud800-\udfff]", "\ufffd", line))
    ends, at = set(), 0
    for word in words:
        at += len(word)
        ends.add(at)
    return frozenset(ends)


#: a piece that ends in a number, not in the digits of a name ("#12", "bot-2")
_NUMBER = re.compile(r"(?:^|(?<=[^\x00-\x7f])|(?<= ))\d[\d.,:]*$")
_ORDINAL = "第"  # "第 3 步": the third move


def _unit_chain(line: str, at: int, ends: frozenset[int]) -> bool:
    """Whether the Chinese word ending at `at`, before a digit, is a unit after a number
    ("12月6日", "3天2小时") or the ordinal prefix: the number after it stays on the same line."""
    start = at - 1
    while start > 0 and _is_han(line[start - 1]) and start not in ends:
        start -= 1
    return line[at - 1] == _ORDINAL or (start > 0 and line[start - 1].isdigit())


def _pieces(line: str, start: int, end: int, ends: frozenset[int] | None) -> list[str]:
    """The word `line[start:end]` cut where a line may break inside it: between wide letters that
    no mark holds together (`JOIN`, or any other of pbem's marks); between two Chinese letters
    only where a word of the segmentation (`ends`) ends, and never between a number and its unit."""
    pieces = [line[start]]
    for i in range(start + 1, end):
        before, char = line[i - 1], line[i]
        breakable = (
            (is_wide(before) or is_wide(char))
            and not _is_hangul(before) and not _is_hangul(char)
            and before not in _MARKS and char not in _MARKS and before != "\ue000" and char != "\ue000"
            and char not in _NO_START and before not in _NO_END
        )
        if breakable and ends is not None:
            if _is_han(char):
                breakable = not before.isdigit() and (not _is_han(before) or i in ends)
            elif _is_han(before) and char.isdigit():
                breakable = not _unit_chain(line, i, ends)
        if breakable:
            pieces.append(char)
        else:
            pieces[-1] += char
    return pieces


def wrap(line: str, columns: int, indent: str = "") -> list[str]:
    """`line` in lines of at most `columns` display columns (a piece that cannot be cut may be
    wider), later lines starting with `indent`."""
    if _all_narrow(line):
        return textwrap.wrap(
            line, columns, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
        ) or [line]
    ends = word_ends(line) if any(_is_han(c) for c in line) else None
    room = columns - width(indent)
    lead = len(line) - len(line.lstrip(" "))
    units: list[tuple[str, str]] = []  # (the spaces before a piece, the piece)
    gap, i = "", lead
    while i < len(line):
        j = i
        while j < len(line) and line[j] != " ":
            j += 1
        pieces = _pieces(line, i, j, ends)
        if ends is not None and any(width(p) > room for p in pieces):  # a word wider than a line
            pieces = [q for p in pieces for q in (_pieces(p, 0, len(p), None) if width(p) > room else [p])]
        for n, piece in enumerate(pieces):
            held = n == 0 and gap and ends is not None and (
                (_is_han(piece[0]) and _NUMBER.search(units[-1][1]))  # "3 步": a number and its unit
                or (piece[0].isdigit() and units[-1][1].endswith(_ORDINAL))  # "第 3 步"
            )
            if held and width(units[-1][1] + gap + piece) <= room:
                units[-1] = (units[-1][0], units[-1][1] + gap + piece)
            else:
                units.append((gap if n == 0 else "", piece))
        k = j
        while k < len(line) and line[k] == " ":
            k += 1
        gap, i = line[j:k], k
    lines: list[str] = []
    current = line[:lead]
    for n, (gap, piece) in enumerate(units):
        joined = piece if n == 0 else gap + piece
        if n == 0 or width(current) + width(joined) <= columns:
            current += joined
        else:
            lines.append(current)
            current = indent + piece
    if current.strip():
        lines.append(current)
    return lines or [line]
