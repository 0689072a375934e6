"""Cut what the player wrote out of a reply body.

This is hand-written on purpose: no reply-parsing library was safe alone on real samples (MAIL.md).
email-reply-parser is English-only, mail-parser-reply keeps the quote of bottom-posted replies,
talon is unmaintained and huge, quotequail loses answers written below the quote. A wrong cut is
costly here: a quoted board or a quoted example move read as a command plays a move the player never
chose. So the rules are few, ordered and conservative:

1. Every mail we send starts with `MARKER`. Where a client left it unquoted (Outlook, HTML parts),
   everything from it on is the quote and goes; where it is `>`-quoted, only the quote lines go, so
   an answer written below the quote survives.
2. Reply headers ("On ... wrote:" and its translations) in front of a `>` quote are dropped with it;
   in front of anything else (Outlook's From/Sent block, "-----Original Message-----", a header
   whose quote was already removed from HTML) they start the quote and everything after goes.
   A reply header in words we do not know is known by its shape only where a `>` quote follows
   it: one line (or a long one wrapped) ending in a colon, with an address or a dated time in it.
3. `>` lines go; the signature line `-- ` and a line `end` stop the reading; trailing
   "Sent from my iPhone" lines go.
4. A mail pasted below the reply without `>` (Outlook's text part, a client's text made from our
   HTML) also ends the reply where its header block starts: From and Sent/Date lines in either
   order (GMX writes Sent first), a rule of underscores followed by any "Word: value" line, or
   three "Label: value" lines in a row with an address among them; and, failing all else, where
   a board's axis of column letters starts (`a b c d`, or a table flattened to one cell a line),
   since nothing after a quoted board is the player's.
"""

from __future__ import annotations

import bisect
import logging
import re

log = logging.getLogger(__name__)

#: the first line of our mails, in the reader's language. Written here, not in the catalogs:
#: the reader must know every language's marker, whatever language the player reads now.
MARKERS = {
    "en": "##- Please write your reply above this line -##",
    "it": "##- Scrivi la tua risposta sopra questa riga -##",
    "ru": "##- Пишите ответ над этой строкой -##",
    "uk": "##- Пишіть відповідь над цим рядком -##",
    "ko": "##- 이 줄 위에 답장을 써 주세요 -##",
    "zh": "##- 请在此行上方回复 -##",
}
MARKER = MARKERS["en"]

# The marker's words, separated by anything a client may put between them when it quotes
# (">") or reflows (newlines, spaces). Only whitespace and ">" sit between fixed words, so the
# pattern cannot backtrack badly on long input. Chinese has no spaces: a reflow may break
# between any two of its letters.
_GAP = r"[\s>]+"


def _marker_words(marker: str) -> str:
    words = marker.strip("#- ").split()
    if len(words) == 1:  # Chinese
        return r"[\s>]*".join(re.escape(c) for c in words[0])
    return _GAP.join(re.escape(w) for w in words)


_MARKER_WORDS_RE = re.compile("|".join(f"(?:{_marker_words(m)})" for m in MARKERS.values()), re.I)
_MARKER_HEAD_RE = re.compile(r"^[\s>]*#+\s*-*\s*$")  # "##-" left alone on a line by a reflow
_MARKER_TAIL_RE = re.compile(r"^[\s>]*-*\s*#+\s*$")  # "-##" left alone on a line by a reflow

_QUOTED_RE = re.compile(r"^[ \t]*>")

# Attribution lines written in front of a quote, by language. Each must match a whole line (or up to
# three lines joined, for the two-line form Gmail produces), and contain a digit or "@" (a date or an
# address) so that ordinary sentences do not match.
_ATTRIBUTION_RES = [
    re.compile(p, re.I)
    for p in (
        r"^on\s.*\bwrote\s*:$",  # English: Gmail, Apple Mail, Thunderbird, mutt
        r"^am\s.*\bschrieb\b.*:$",  # German
        r"^le\s.*\ba\s+[ée]crit\s*:$",  # French
        r"^el\s.*\bescribi[óo]\s*:$",  # Spanish
        r"^(il\s+giorno|il|in\s+data)\s.*\bha\s+scritto\s*:$",  # Italian
        r"^op\s.*\bschreef\b.*:$",  # Dutch
        r"^den\s.*\bskrev\b.*:$",  # Swedish, Danish, Norwegian
        r"^w\s+dniu\s.*\b(pisze|napisał\(a\)|napisała|napisał)\s*:$",  # Polish
        r"^em\s.*\bescreveu\s*:$",  # Portuguese
    )
]
# Attributions that only end in a fixed word: "<date>, <name> <address> написал:". On one line, or
# on two when the first holds a date or time (Gmail wraps long ones), so a sentence of the player's
# own is never joined onto the attribution that follows it.
_END_ATTRIBUTION_RES = [
    re.compile(p, re.I)
    for p in (
        r"^.*\bkirjoitti\s*:$",  # Finnish
        r"^.*(?:написал|написала|написал\(а\)|пишет)\s*:$",  # Russian
        r"^.*(?:написав|написала|написав\(ла\)|пише)\s*:$",  # Ukrainian
        r"^.*(?:写道|寫道|寫到|写到)\s*[:：]$",  # Chinese, simplified and traditional
        r"^.*のメッセージ\s*[:：]$|^.*は書きました\s*[:：]$",  # Japanese
        r"^.*님이\s*작성\s*[:：]$|^.*님이\s*씀\s*[:：]$",  # Korean
        r"^.*\bha\s+scritto\s*:$",  # Italian, without "Il giorno" in front
        r"^.*\bschrieb\s*:$",  # German, without "Am" in front
        r"^(?:пн|вт|ср|чт|пт|сб|вс),\s.*<[^<>\s]+@[^<>\s]+>\s*:$",  # Gmail in Russian: no verb at all
        r"^\*\s+.*\[[^\[\]]*\d[^\[\]]*\]\s*:$",  # mutt: "* Alice <alice@example.org> [2026-11-30 10:00]:"
    )
]
# A reply header in any language, known only by its shape: it ends in a colon and holds an address,
# or a year and a time of day.
_ADDRESS_RE = re.compile(r"[^\s<>()\[\]]+@[^\s<>()\[\]]+\.\w+")
_YEAR_RE = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_TIME_RE = re.compile(r"(?<!\d)\d{1,2}[:.]\d{2}(?!\d)")
_WRAPPED_MIN_CHARS = 50
_DATE_OR_TIME_RE = re.compile(r"\d{1,2}:\d{2}|\d{4}|\d{1,2}[./-]\d{1,2}[./-]\d{2}")
_ATTRIBUTION_MAX_CHARS = 400

# Quote separators that need no following quote to be recognised.
_SEPARATOR_RE = re.compile(
    r"^\s*(?:-{2,}\s*(?:original\s+message|ursprüngliche\s+nachricht|message\s+d'origine|"
    r"mensaje\s+original|messaggio\s+originale|oorspronkelijk\s+bericht|ursprungligt\s+meddelande|"
    r"mensagem\s+original|forwarded\s+message|weitergeleitete\s+nachricht|message\s+transféré)\s*-{2,}"
    r"|begin\s+forwarded\s+message\s*:|anfang\s+der\s+weitergeleiteten\s+nachricht\s*:"
    r"|début\s+du\s+message\s+réexpédié\s*:)\s*$",
    re.I,
)

# Outlook's header block: a From line followed closely by a Sent/Date line, in several languages.
_FROM_RE = re.compile(
    r"^\s*\*?(?:from|von|de|da|från|van|fra|od|lähettäjä|от|від|kimden|feladó|od\s+koho"
    r"|发件人|寄件者|寄件人|差出人|보낸\s*사람)\s*\*?\s*[:：]\*?\s*\S",
    re.I,
)
_SENT_RE = re.compile(
    r"^\s*\*?(?:sent|date|gesendet|datum|envoyé|inviato|data|skickat|enviado|fecha|enviada|"
    r"verzonden|sendt|wysłano|lähetetty|päivämäärä|отправлено|дата|надіслано|gönderildi|tarih|elküldve"
    r"|发送时间|发送日期|日期|寄件日期|傳送時間|送信日時|日付|보낸\s*날짜|날짜)\s*\*?\s*[:：]\*?",
    re.I,
)

_END_WORD = "end"

_MOBILE_FOOTER_RE = re.compile(
    r"^\s*(?:sent\s+from\s+(?:my\s+)?\S.*|sent\s+(?:via|with)\s+\S.*|get\s+outlook\s+for\s+\S.*"
    r"|von\s+meinem\s+\S.*\s+gesendet|gesendet\s+von\s+(?:meinem\s+)?\S.*|envoyé\s+(?:de|depuis)\s+\S.*"
    r"|enviado\s+(?:desde|do|de)\s+\S.*|inviato\s+da\s+\S.*|verzonden\s+(?:vanaf|met)\s+\S.*"
    r"|skickat\s+från\s+\S.*|sendt\s+fra\s+\S.*|lähetetty\s+\S.*|wysłane\s+z\s+\S.*)\s*$",
    re.I,
)
_MOBILE_FOOTER_MAX_CHARS = 80
_RULE_RE = re.compile(r"^\s*[_\-=]{5,}\s*$")  # "______" Outlook puts above its header block
_UNDERSCORES_RE = re.compile(r"^\s*_{10,}\s*$")  # Outlook's own rule: 32 underscores
# Any header line of a pasted mail, in any language: a short label, a colon, a value.
_HEADER_LINE_RE = re.compile(r"^\s*\*?[^\W\d][\w .'-]{0,24}?\*?\s*[:：]\*?\s*\S")
_AXIS_MIN = 4  # a board has at least this many columns: a b c d
_BLOCK_MIN = 3  # header lines in a row that make a pasted mail's header block, words unknown
# A header label: one to three words ("From", "Od koho", "보낸 사람"), a colon, a value.
_LABEL_RE = re.compile(r"^\s*\*?([^\W\d][\w'-]*(?: [\w'-]+){0,2})\*?\s*[:：]\*?\s*\S")


def reply_text(body: str) -> str:
    """Keep only what the player wrote in reply; never raises."""
    try:
        return _reply_text(body)
    except (ValueError, TypeError, IndexError, RecursionError) as exc:
        # a cut that fails must not lose the mail; an empty reply is answered with help
        log.warning("reply text could not be cut: %s: %s", type(exc).__name__, exc)
        return ""


def _reply_text(body: str) -> str:
    text = str(body).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\u00a0", " ").replace("\u202f", " ").replace("\ufeff", "")
    lines = _cut_at_marker(text.split("\n"))

    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _QUOTED_RE.match(line):
            i += 1
            continue
        stripped = line.strip()
        if stripped == "--" or stripped.lower() == _END_WORD:
            break
        if _SEPARATOR_RE.match(line) or _is_outlook_block(lines, i) or is_ruled_header(lines, i):
            break
        if _is_any_header_block(lines, i):
            break
        if _is_board_axis(lines, i):
            break
        span = _attribution_span(lines, i)
        if span:
            if _quote_follows(lines, i + span):
                i += span
                continue
            break
        span = _any_attribution_span(lines, i)
        if span:  # a reply header in words we do not know, in front of a `>` quote
            i += span
            continue
        kept.append(line.rstrip())
        i += 1

    while kept and (
        not kept[-1].strip()
        or _RULE_RE.match(kept[-1])
        or (len(kept[-1]) <= _MOBILE_FOOTER_MAX_CHARS and _MOBILE_FOOTER_RE.match(kept[-1]))
    ):
        kept.pop()
    start = next((n for n, line in enumerate(kept) if line.strip()), len(kept))
    return "\n".join(kept[start:])


def _cut_at_marker(lines: list[str]) -> list[str]:
    """Remove every quoted marker; stop at the first unquoted one."""
    text = "\n".join(lines)
    starts = [0]  # offset of each line in text
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    dropped: set[int] = set()
    for match in _MARKER_WORDS_RE.finditer(text):
        first = bisect.bisect_right(starts, match.start()) - 1
        last = bisect.bisect_right(starts, match.end()) - 1
        before = text[starts[first] : match.start()]
        if first > 0 and not before.strip(" \t>") and _MARKER_HEAD_RE.match(lines[first - 1]):
            first -= 1
        if last + 1 < len(lines) and _MARKER_TAIL_RE.match(lines[last + 1]):
            last += 1
        if not _QUOTED_RE.match(lines[first]):
            return [line for n, line in enumerate(lines[:first]) if n not in dropped]
        dropped.update(range(first, last + 1))
    return [line for n, line in enumerate(lines) if n not in dropped]


def _attribution_span(lines: list[str], i: int) -> int:
    """How many lines, from line i, form a reply header such as "On ... wrote:" (0 if none)."""
    line = lines[i].strip()
    if not line or len(line) > _ATTRIBUTION_MAX_CHARS:
        return 0
    joined = line
    for span in (1, 2, 3):
        if span > 1:
            nxt = lines[i + span - 1].strip() if i + span - 1 < len(lines) else ""
            if not nxt or _QUOTED_RE.match(lines[i + span - 1]):
                return 0
            joined = f"{joined} {nxt}"
            if len(joined) > _ATTRIBUTION_MAX_CHARS:
                return 0
        if not re.search(r"[\d@]", joined):
            continue
        if any(r.match(joined) for r in _ATTRIBUTION_RES):
            return span
        dated = _DATE_OR_TIME_RE.search(joined) or "@" in joined
        if dated and (span == 1 or (span == 2 and _DATE_OR_TIME_RE.search(line))) and any(
            r.match(joined) for r in _END_ATTRIBUTION_RES
        ):
            return span
    return 0


def _any_attribution_span(lines: list[str], i: int) -> int:
    """How many lines from i (one, or two when a client wrapped it) form a line that ends in a
    colon, holds an address or a dated time, and stands right above a `>` quote: a reply header
    in a language we have no words for (Hungarian, Turkish...). 0 if none."""
    first = lines[i].strip()
    if len(first) < _WRAPPED_MIN_CHARS and not first.endswith((":", "：")):
        return 0  # the common case, decided at once
    joined = ""
    for span in (1, 2):
        if i + span - 1 >= len(lines):
            return 0
        line = lines[i + span - 1].strip()
        if not line or _QUOTED_RE.match(lines[i + span - 1]):
            return 0
        joined = f"{joined} {line}".strip()
        if len(joined) > _ATTRIBUTION_MAX_CHARS:
            return 0
        if not joined.endswith((":", "：")):
            if len(line) < _WRAPPED_MIN_CHARS:  # a line a client wrapped is long; a command is not
                return 0
            continue
        dated = _ADDRESS_RE.search(joined) or (_YEAR_RE.search(joined) and _TIME_RE.search(joined))
        if dated and _quote_follows(lines, i + span):
            return span
        return 0
    return 0


def _quote_follows(lines: list[str], i: int) -> bool:
    """Is the next non-blank line from i a `>` quote?"""
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i < len(lines) and bool(_QUOTED_RE.match(lines[i]))


def _is_outlook_block(lines: list[str], i: int) -> bool:
    """A From: line and a Sent:/Date: line, in either order and within a few lines, start a
    quoted mail (Outlook writes From first, GMX and Web.de write Sent first)."""
    if _FROM_RE.match(lines[i]):
        other = _SENT_RE
    elif _SENT_RE.match(lines[i]):
        other = _FROM_RE
    else:
        return False
    seen = 0
    for line in lines[i + 1 : i + 6]:
        if not line.strip():
            continue
        if other.match(line):
            return True
        seen += 1
        if seen >= 2:  # Outlook puts To: or Sent: right after From:; allow one line in between
            return False
    return False


def is_ruled_header(lines: list[str], i: int) -> bool:
    """Whether line i is Outlook's rule of underscores with a header line ("Word: value") right
    below it: the header block of a pasted mail, in a language whose words we do not know."""
    if not _UNDERSCORES_RE.match(lines[i]):
        return False
    following = [line for line in lines[i + 1 : i + 4] if line.strip()]
    return bool(following) and bool(_HEADER_LINE_RE.match(following[0]))


def _is_any_header_block(lines: list[str], i: int) -> bool:
    """Three or more "Label: value" lines in a row, with distinct labels and an address in one of
    them: the header block of a mail pasted below the reply (Outlook for Windows in a language we
    have no words for writes it with no rule above it)."""
    labels = []
    addressed = False
    for line in lines[i : i + 8]:
        match = _LABEL_RE.match(line)
        if not match:
            break
        labels.append(match.group(1).lower())
        addressed = addressed or bool(_ADDRESS_RE.search(line))
    return len(labels) >= _BLOCK_MIN and len(set(labels)) == len(labels) and addressed


def _is_board_axis(lines: list[str], i: int) -> bool:
    """A board's row of column letters (`a b c d ...`, `| A | B | C |`), or the same letters one a
    line as a client flattens a table's cells: a quoted board, of the ASCII or the HTML mail."""
    stripped = lines[i].lstrip(" \t|>")
    if stripped[:1] not in ("a", "A"):
        return False
    letters = [w for w in re.split(r"[\s|>]+", stripped.strip()) if w]
    if len(letters) >= _AXIS_MIN:
        return _is_axis(letters)
    if letters != ["a"] and letters != ["A"]:
        return False
    column = [line.strip() for line in lines[i : i + 3 * _AXIS_MIN] if line.strip()]
    return _is_axis(column[:_AXIS_MIN])


def _is_axis(words: list[str]) -> bool:
    """Single letters in order from a, as board columns are named (Go's axis skips i)."""
    if len(words) < _AXIS_MIN or words[0].lower() != "a":
        return False
    for prev, word in zip(words, words[1:], strict=False):
        if len(word) != 1 or not word.isascii() or not word.isalpha() or word.islower() != prev.islower():
            return False
        step = ord(word.lower()) - ord(prev.lower())
        if step != 1 and not (step == 2 and prev.lower() == "h"):
            return False
    return True
