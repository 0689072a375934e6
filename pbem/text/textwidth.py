"""How wide text is on a fixed-width screen, and wrapping that counts it.

A Korean or Chinese letter takes two columns where a Latin one takes one, and Chinese
puts no space between words, so `len` and `textwrap` both misjudge a line of it. Lines
holding only narrow letters go through `textwrap` as always (the English mails stay
byte for byte what they were); a line with wide letters is wrapped here: at spaces, and
between two wide letters, never before a closing mark (，。) nor after an opening one,
and never inside a span the caller holds together.
"""

from __future__ import annotations

import textwrap
import unicodedata
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


def _all_narrow(line: str) -> bool:
    if line.isascii():
        return True
    for char in set(line).difference(_NARROW):
        if is_wide(char):
            return False
        if len(_NARROW) < 65536:
            _NARROW.add(char)
    return True


def _is_hangul(char: str) -> bool:
    """Korean puts spaces between its words and breaks only there."""
    return "\uac00" <= char <= "\ud7a3" or "\u1100" <= char <= "\u11ff" or "\u3130" <= char <= "\u318f"


def ljust(text: str, columns: int) -> str:
    """`text` padded with spaces to `columns` display columns."""
    return text + " " * max(0, columns - width(text))


def _pieces(word: str) -> list[str]:
    """A word cut where a line may break inside it: between wide letters that no mark holds
    together (`JOIN`, or any other of pbem's marks)."""
    pieces = [word[0]]
    for i in range(1, len(word)):
        before, char = word[i - 1], word[i]
        breakable = (
            (is_wide(before) or is_wide(char))
            and not _is_hangul(before) and not _is_hangul(char)
            and before not in _MARKS and char not in _MARKS and before != "\ue000" and char != "\ue000"
            and char not in _NO_START and before not in _NO_END
        )
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
    lead = len(line) - len(line.lstrip(" "))
    lines: list[str] = []
    current, fresh, gap = line[:lead], True, ""
    i = lead
    while i < len(line):
        j = i
        while j < len(line) and line[j] != " ":
            j += 1
        for n, piece in enumerate(_pieces(line[i:j])):
            joined = piece if fresh or n else gap + piece
            if fresh or width(current) + width(joined) <= columns:
                current += joined
            else:
                lines.append(current)
                current = indent + piece
            fresh = False
        k = j
        while k < len(line) and line[k] == " ":
            k += 1
        gap, i = line[j:k], k
    if current.strip():
        lines.append(current)
    return lines or [line]
