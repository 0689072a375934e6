"""The game mails say every word through the catalog (issue 14).

The templates are rendered in a made-up language whose catalog wraps every msgid in «»
(its fields filled as usual), with data that holds no English word. Whatever Latin word is
left once the «» parts and the example commands are taken out was written into a template
outside a trans block: a word a translator would never see.
"""

from __future__ import annotations

import gettext
import itertools
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from pbem.text import htmlmail, i18n
from pbem.text.templates import Templates

FAKE = "zh"  # a real locale for the numbers and dates (no Latin letters in them), our catalog
KEPT_OPEN, KEPT_CLOSE = "\u27e6", "\u27e7"
ALLOWED = {"UTC"}  # the zone's name after a moment


class Wrapped(gettext.NullTranslations):
    """Every msgid comes back in «»: a word outside them did not go through the catalog."""

    def gettext(self, message: str) -> str:
        return f"\u00ab{message}\u00bb"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"\u00ab{singular if n == 1 else plural}\u00bb"

    def pgettext(self, context: str, message: str) -> str:
        return f"\u00ab{message}\u00bb"

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return self.ngettext(singular, plural, n)


@pytest.fixture
def templates(monkeypatch: pytest.MonkeyPatch) -> Iterator[Templates]:
    real = i18n.translations
    monkeypatch.setattr(i18n, "translations", lambda code: Wrapped() if code == FAKE else real(code))
    i18n.speaker.cache_clear()
    yield Templates()
    monkeypatch.undo()
    i18n.speaker.cache_clear()


def kept(*words: object) -> str:
    """`keep` for the test: the example command marked, so it is left out of the check."""
    return KEPT_OPEN + " ".join(str(w) for w in words) + KEPT_CLOSE


def leftover(text: str) -> set[str]:
    """The Latin words of `text` outside «» (nested too) and outside example commands."""
    text = re.sub(f"{KEPT_OPEN}[^{KEPT_CLOSE}]*{KEPT_CLOSE}", " ", text)
    while True:
        shorter = re.sub("\u00ab[^\u00ab\u00bb]*\u00bb", " ", text)
        if shorter == text:
            break
        text = shorter
    return set(re.findall(r"[A-Za-z]{2,}", text)) - ALLOWED


# -- data without an English word: Cyrillic names and words, moves of one letter -----------

AT = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)


def game(status: str = "active", your_turn: bool = True, **changes: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": 12, "kind": "ataxx", "title": "Атакс", "describe": "Атакс 7×7", "status": status,
        "sides": ["black", "white"],
        "players": [{"name": "Ада", "address": "ада@пример.рф", "side": "black", "score": 3},
                    {"name": "Бо", "address": "бо@пример.рф", "side": "white", "score": 2}],
        "board": "▦ ▦ ▦", "ply": 7, "move_number": 8, "score_unit": "pieces",
        "on_move": {"name": "Ада" if your_turn else "Бо", "side": "black" if your_turn else "white",
                    "address": "ада@пример.рф"},
        "last_move": {"notation": "f2", "by": "Бо", "side": "white"},
        "examples": ["c4", "a7-c6"], "notation": "ход: с4", "draw_offer": None,
        "result": None, "reason": None, "ending": None, "termination": None, "details": {},
        "loser": None, "winner": None, "created": "7 дек 2026",
        "your_side": "black", "your_turn": your_turn and status == "active",
        "draw_offer_by_opponent": True, "you_won": False,
        "deadline": {"when": AT, "left": "3 дня", "remaining": "3 дня", "days": 3, "weekends_off": True, "away_until": AT}
        if status == "active" else None,
        "you": "Ада", "opponent": "Бо", "opponent_address": "бо@пример.рф", "opponent_bot": None,
    }
    return {**view, **changes}


ACTIVE = [game(), game(your_turn=False), game(examples=["c4"]),
          game(examples=[], last_move=None, draw_offer_by_opponent=False),
          game(deadline={"when": AT, "left": "3 дня", "remaining": "3 дня", "days": 3, "weekends_off": False, "away_until": None})]
TERMINATIONS = [
    ("board_full", {}), ("no_pieces", {"side": 0}), ("no_pieces", {"side": 0, "squares": 1, "to": 1}),
    ("no_pieces", {"side": 1, "squares": 5, "to": 0}), ("no_moves", {"side": 0}),
    ("no_moves", {"side": 0, "squares": 3, "to": 1}), ("out_of_reach", {}), ("quiet_plies", {"plies": 100}),
    ("target_captures", {"side": 0, "captures": 1}), ("target_captures", {"side": 1, "captures": 5}),
    ("both_passed", {"side": 0, "captures": [4, 2]}), ("both_passed", {"captures": [3, 3]}),
    ("sudden_death", {"words": "внезапно"}), ("sudden_death", {}),
]
OVER = [
    game("finished", result="1-0", winner="Ада", loser="Бо", you_won=True, ending="resignation"),
    game("finished", result="0-1", winner="Бо", loser="Ада", ending="time"),
    game("finished", result="½-½", ending="agreement"),
    game("finished", result="1-0", winner="Ада", loser="Бо", ending="adjudicated", reason="решение"),
    game("cancelled", ending="cancelled", reason="отменено", last_move=None),
    *(game("finished", result="1-0", winner="Ада", loser="Бо", ending="rules", termination=code, details=details)
      for code, details in TERMINATIONS),
]
ANY = ACTIVE + OVER


def cases() -> Iterator[tuple[str, dict[str, Any]]]:
    """(template, context): every template of the game mails, through its branches."""
    def each(name: str, games: list[dict[str, Any]], **choices: list[Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        keys = list(choices)
        for g in games:
            for values in itertools.product(*(choices[k] for k in keys)) if keys else [()]:
                yield name, {"game": g, **dict(zip(keys, values, strict=True))}

    yield from each("accepted.txt", ACTIVE, challenge_id=[3])
    yield from each("game_started.txt", ACTIVE, challenge_id=[3])
    yield from each("game_started.txt", [game(opponent_bot=3), game(opponent_bot=1, your_turn=False)], challenge_id=[3])
    yield from each("adjudicated.txt", OVER[:4], why=["так решено"])
    yield from each("cancelled.txt", [OVER[4]], why=["так решено"])
    yield from each("board.txt", ANY)
    yield from each("draw_offer.txt", ACTIVE)
    yield from each("draw_offered.txt", ACTIVE)
    yield from each("draw_refused.txt", ACTIVE)
    yield from each("error.txt", [*ANY, None], line=["ход z9"], message=["нельзя"], hint=["", "подсказка"])
    yield from each("extended.txt", ACTIVE, days=[1, 1.5, 3, 0.5], reason=["", "болезнь"])
    yield from each("game_over.txt", OVER)
    yield from each("game_over.txt", [{k: v for k, v in OVER[0].items() if k != "opponent_address"}])
    yield from each("history.txt", ANY, hidden=[0, 5], moves=[
        [], [{"ply": 1, "notation": "f2", "by": "Ада", "at": AT}, {"ply": 2, "notation": "b6", "by": "Бо", "at": AT}]
    ])
    yield from each("history.txt", ACTIVE[:1], hidden=[0], before=[[{"by": "Ада", "lines": ["> привет"]}]], moves=[
        [{"ply": 1, "notation": "f2", "by": "Ада", "at": AT, "remarks": [{"by": "Ада", "lines": ["> ну"]}]}]
    ])
    watching = {**ACTIVE[0], "your_side": None}
    yield from each("said.txt", [ACTIVE[0], watching], by=["Ада"], to=["Бо"], lines=[["> привет", ">"]])
    yield from each("said_sent.txt", ACTIVE[:1], opponent=["Бо"], watchers=[0, 1, 3], why=[None, "off", "bot", "mail"])
    yield from each("said_switch.txt", [None], relay=[True, False])
    yield from each("moved.txt", ACTIVE + OVER[:3], move=["f2"], taken=[0, 1, 3])
    yield from each("moved.txt", [game(score_unit="captures")], move=["f2"], taken=[1, 2])
    yield from each("opponent_away.txt", ACTIVE, away=["Бо"], until=[AT])
    yield from each("opponent_back.txt", ACTIVE, away=["Бо"])
    yield from each("record.txt", ANY, file=["партия-12.sgf", "партия-12.pgn"])
    yield from each("reminder.txt", ACTIVE[:1])
    yield from each("undone.txt", ACTIVE, taken=[["f2"], ["f2", "b6", "c3"]], why=["ошибка"])
    yield from each("watched_move.txt", [g for g in ANY if g["last_move"] or g["status"] != "active"])
    yield from each("your_move.txt", ACTIVE[:2], taken=[0, 1, 4])
    yield from each("your_move.txt", [game(score_unit="captures")], taken=[1, 2])
    yield from [
        ("held.txt", {"address": "ада@пример.рф", "lines": ["ход f2"], "games": []}),
        ("confirmed.txt", {"lines": ["ход f2"]}), ("confirmed.txt", {"lines": []}),
        ("mistyped.txt", {"command": "помощь", "word": "пмщ", "line": "пмщ 2", "syntax": "помощь [тема]"}),
        ("mistyped.txt", {"command": "help", "word": "hlp", "line": "hlp", "syntax": "help"}),
        ("buried.txt", {"line": "Привет! Сыграем? вызов атакс ада@пример.рф", "command": "вызов атакс ада@пример.рф"}),
        ("nothing.txt", {}), ("quiet.txt", {"unproven": False}), ("quiet.txt", {"unproven": True}),
        ("address.txt", {"address": "игры+ада.0123456789012345@пример.рф", "first": True, "new": False}),
        ("address.txt", {"address": "игры+ада.0123456789012345@пример.рф", "first": False, "new": True}),
        *(("refused.txt", {"why": why, "limit": limit}) for why in ("size", "garbled", "lines") for limit in (1, 256)),
        ("_mail.txt", {"sections": ["раздел"], "ignored": []}),
        ("_mail.txt", {"sections": ["раздел", "ещё"], "ignored": [f"строка {n}" for n in range(12)]}),
        ("_mail.txt", {"sections": ["раздел"], "ignored": [f"строка {n}" for n in range(11)]}),
    ]


#: the mails rendered on their own (the partials are rendered inside them)
MAILS = [
    "_mail", "accepted", "adjudicated", "board", "cancelled", "draw_offer", "draw_offered", "draw_refused",
    "error", "extended", "game_over", "game_started", "held", "confirmed", "history", "mistyped", "buried", "moved",
    "nothing", "opponent_away", "opponent_back", "quiet", "record", "refused", "reminder", "undone",
    "watched_move", "your_move", "said", "said_sent", "said_switch", "address",
]


def test_every_word_of_the_game_mails_goes_through_the_catalog(templates: Templates) -> None:
    rendered, found = set(), {}
    for name, context in cases():
        # the marker line is the reply reader's, not the mail's words (pbem.mail.message.reply.MARKER)
        mail = templates.render(name, language=FAKE, keep=kept, marker="—" * 10, **context)
        rendered.add(name)
        words = leftover(mail.subject + "\n" + mail.body)
        if words:
            found.setdefault(name, set()).update(words)
        assert "\u00ab" in mail.body, name
    assert found == {}
    assert {n.removesuffix(".txt") for n in rendered} == set(MAILS)


def test_the_ending_for_the_records_stays_english() -> None:
    from pbem.text import endings as words

    assert words.termination("no_pieces", {"side": 0, "squares": 3, "to": 1}, ["x", "o"]) == (
        "x has no pieces left; 3 empty squares go to o"
    )
    assert words.termination("no_moves", {"side": 1, "squares": 1, "to": 0}, ["x", "o"]) == (
        "o cannot move; 1 empty square goes to x"
    )
    assert words.termination("target_captures", {"side": 0, "captures": 1}, ["black", "white"]) == (
        "Black reached 1 capture"
    )
    assert words.termination("both_passed", {"side": 1, "captures": [2, 5]}, ["black", "white"]) == (
        "both players passed; White has more captures (5 to 2)"
    )


def test_the_sentence_with_a_capture_is_whole_in_each_language(templates: Templates) -> None:
    context = {"game": game(score_unit="captures"), "taken": 2}
    english = templates.render("your_move.txt", **context).body.splitlines()[0]
    assert english == "Бо played f2 and captured 2 of your stones. Your move, Ада (black)."
    fake = " ".join(templates.render("your_move.txt", language=FAKE, **context).body.split())
    assert fake.startswith("\u00abБо played f2 and captured 2 of your stones.\u00bb \u00abYour move, Ада (")


def test_the_html_part_speaks_the_language_and_marks_the_kept_commands(templates: Templates) -> None:
    sections = [("your_move.txt", {"game": game(), "taken": 0}), ("board.txt", {"game": game()})]
    frame = {"ignored": []}
    page = htmlmail.render(templates, sections, frame, "Атакс", language=FAKE)
    assert '<html lang="zh-Hans"' in page
    assert "played" in page and "&#171;" in page  # the words are the catalog's («» as references)
    code = re.findall(r"<code[^>]*>([^<]*)</code>", page)
    # keep() marks the commands, not an English word before them; the example moves as well
    assert {"draw", "nodraw", "board", "history", "resign", "help", "c4", "a7-c6"} <= set(code)
    english = htmlmail.render(templates, sections, frame, "Атакс")
    assert '<html lang="en"' in english and "&#171;" not in english
    assert re.search(r'write <code[^>]*>draw</code> to accept', english)  # the quotes go with the code
