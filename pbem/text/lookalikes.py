"""Look-alike text: what a string reads as, so that a check cannot be dodged by its letters.

A player may write our subject tag with fullwidth brackets (`［pbem #1］`), our marker with a
Cyrillic "е", or call themself "рbem" with a Cyrillic "р": each reads as ours and passes a
check on the code points. `skeleton` maps a text to what it looks like, after the idea of
Unicode's confusables skeleton (UTS #39): NFKC, combining marks and invisible format
characters dropped, every letter that looks like an ASCII one made that letter (the pairs
come from Unicode's confusables.txt, as the `confusable_homoglyphs` package ships it), lower
case, and a few ASCII look-alikes folded (`rn` as `m`, `0` as `o`). A skeleton is for
comparing only, never shown; `remove` cuts what a pattern finds in the skeleton out of the
original text. `lines` splits a player's text the one way every reader of it must: only CR
and LF end a line (Python's `splitlines` also ends one at U+2028, U+0085, \\v, \\f...).
"""

from __future__ import annotations

import functools
import re
import unicodedata

#: categories that show nothing of their own: combining marks and format characters (zero-width, bidi)
_INVISIBLE = frozenset({"Mn", "Me", "Cf"})
#: the other line and paragraph separators: inside a player's line they are blanks
_BLANKS = str.maketrans(dict.fromkeys("\v\f\x1c\x1d\x1e\x85\u2028\u2029", " "))
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: ASCII that reads as other ASCII, folded after the mapping
_ASCII_FOLDS = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("|", "l"))


@functools.lru_cache(maxsize=4096)
def _char(c: str) -> str:
    """The skeleton of one character (several for a ligature, none for an invisible one)."""
    if c.isascii():
        return c.lower()
    out = []
    for k in unicodedata.normalize("NFKC", c):
        if k.isascii():
            out.append(k.lower())
        elif unicodedata.category(k) in _INVISIBLE:
            continue
        elif unicodedata.category(k) == "Ps":
            out.append("[")  # any opening bracket reads as ours
        elif unicodedata.category(k) == "Pe":
            out.append("]")
        elif k.isspace():
            out.append(" ")
        else:
            out.append(_homoglyph(k))
    return "".join(out)


def _homoglyph(c: str) -> str:
    """The ASCII letter or sign that `c` (or its other case) looks like, else `c` in lower case."""
    from confusable_homoglyphs.confusables import confusables_data  # 9,000 pairs: loaded on first use

    for variant in (c, c.upper(), c.lower()):
        found = [g["c"] for g in confusables_data.get(variant, ()) if g["c"].isascii() and g["c"].isprintable()]
        if found:
            found.sort(key=lambda g: (len(g) != 1 or not g.isalnum(), len(g)))
            return found[0].lower()
    return c.casefold()


def mapped(text: str) -> tuple[str, list[int]]:
    """The skeleton of `text`, and for each of its characters the index of the one it came from."""
    chars: list[str] = []
    origin: list[int] = []
    for i, c in enumerate(text):
        for k in _char(c):
            chars.append(k)
            origin.append(i)
    return "".join(chars), origin


def skeleton(text: str) -> str:
    """What `text` looks like: equal skeletons read alike."""
    seen = mapped(text)[0]
    for ascii_, fold in _ASCII_FOLDS:
        seen = seen.replace(ascii_, fold)
    return seen


def remove(text: str, pattern: re.Pattern[str]) -> str:
    """`text` without the characters under each match of `pattern` in its skeleton (before the
    ASCII folds, so the pattern may use any ASCII); `text` itself when nothing matches."""
    seen, origin = mapped(text)
    cut: set[int] = set()
    for found in pattern.finditer(seen):
        if found.end() > found.start():
            cut.update(range(origin[found.start()], origin[found.end() - 1] + 1))
    return "".join(c for i, c in enumerate(text) if i not in cut) if cut else text


def words(text: str) -> list[str]:
    """The skeleton's words: its runs of letters and digits."""
    return re.findall(r"[^\W_]+", skeleton(text))


def lines(text: str) -> list[str]:
    """The lines of a player's text: split at CR and LF only, every other separator a blank."""
    return _LINE_BREAK.split(text.translate(_BLANKS))
