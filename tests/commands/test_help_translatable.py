"""The help, the rules and the command replies say every English word through the catalog.

A fake catalog turns every msgid into capitals (its fields untouched), so a lower-case
English word left in a rendered mail is one that no translator could reach. Values stand
in capitals or digits too; the words a player types back (`keep()`) and the command and
game names, which stay as they are in every language, are taken out before looking.
"""

from __future__ import annotations

import gettext
import re
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import pbem.commands  # noqa: F401  (registers the commands)
import pbem_engine
from pbem.commands.lines import base
from pbem.commands.player import info
from pbem.text import i18n
from pbem.text.templates import CODE_CLOSE, CODE_OPEN, TEMPLATES, Templates

FAKE = "it"  # a language we speak, its catalog replaced by the capitals
_FIELD = re.compile(r"(%\([a-z_0-9]+\)s|%%|\{[a-z_0-9]+\})")


def _capitals(message: str) -> str:
    return "".join(part if _FIELD.fullmatch(part) else part.upper() for part in _FIELD.split(message))


class Capitals(gettext.NullTranslations):
    def gettext(self, message: str) -> str:
        return _capitals(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return _capitals(singular if n == 1 else plural)

    def pgettext(self, context: str, message: str) -> str:
        return _capitals(message)

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return _capitals(singular if n == 1 else plural)


WORDS = {"challenge": {FAKE: ("sfida",)}, "help": {FAKE: ("guida", "aiutami")}}


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Templates:
    """Templates speaking the capitals; the partials of the game mails (worded elsewhere) empty."""
    monkeypatch.setattr(i18n, "translations", lambda code: Capitals() if code == FAKE else gettext.NullTranslations())
    i18n.speaker.cache_clear()
    root = tmp_path / "templates"
    shutil.copytree(TEMPLATES, root)
    for partial in ("_board.txt", "_game_facts.txt", "_deadline.txt"):
        (root / partial).write_text("BOARD\n")
    yield Templates(root)
    i18n.speaker.cache_clear()


_KEPT = re.compile(f"{CODE_OPEN}[^{CODE_CLOSE}]*{CODE_CLOSE}")  # an example command, as keep() marks it
_WORD = re.compile(r"(?<![\w@.])[a-z][a-z'-]{2,}")
# words that stay as they are: what a player types (command and game names, option values)
TYPED = {
    *(w for c in base.commands() for w in (c.name, *c.aliases)),
    *pbem_engine.names(),
    *(o.name for n in pbem_engine.names() for o in pbem_engine.lookup(n).option_specs),
    *(s for n in pbem_engine.names() for s in pbem_engine.lookup(n).sides),  # as colour= takes them
    "first", "second", "random", "sfida", "guida", "aiutami",
}


def _english(templates: Templates, name: str, **context: Any) -> list[str]:
    """The lower-case words of a rendered template that are neither typed words nor values."""
    module = templates.environment(FAKE).get_template(name).make_module(context)
    text = _KEPT.sub(" ", f"{getattr(module, 'subject', '')}\n{module}")
    return [w for w in _WORD.findall(text) if w not in TYPED]


PERSON = {"name": "ZED", "address": "Z@Z.Z", "called": "ZED"}
OTHER = {"name": "YAN", "address": "Y@Y.Y", "called": "YAN"}


def _challenge(**changes: Any) -> dict[str, Any]:
    return {
        "id": 7, "kind": "ataxx", "describe": "DESC", "title": "TITLE", "colour": "random",
        "sides": ("x", "o"), "challenger": PERSON, "opponent": OTHER, "created": "1 DEC 2026", "takebacks": True,
        "days": 7, "weekends_off": True,
        **changes,
    }


GAME = {
    "id": 42, "title": "TITLE", "describe": "DESC", "opponent": "YAN", "your_turn": True,
    "on_move": OTHER, "move_number": 3, "deadline": {"when": "MONDAY", "left": "3 DAYS"},
    "players": [{**PERSON, "side": "black"}, {**OTHER, "side": "white"}], "board": "BOARD",
}

CASES: list[tuple[str, dict[str, Any]]] = [
    ("back.txt", {"games": 2, "remaining": 3}),
    ("back.txt", {"games": 0, "remaining": 1}),
    ("challenge_declined.txt", {"challenge": _challenge()}),
    ("challenge_received.txt", {"challenge": _challenge()}),
    ("challenge_withdrawn.txt", {"challenge": _challenge()}),
    ("challenged.txt", {"challenge": _challenge()}),
    ("challenged.txt", {"challenge": _challenge(opponent=None, colour="first")}),
    ("challenged.txt", {"challenge": _challenge(colour="o")}),
    ("declined.txt", {"challenge": _challenge()}),
    ("withdrawn.txt", {"challenge": _challenge()}),
    ("display.txt", {"format": "text", "samples": [{"title": "TITLE", "describe": "DESC", "examples": ["c4"],
                                                    "board": "BOARD"}]}),
    ("display.txt", {"format": "html", "samples": []}),
    ("format.txt", {"new": "html", "old": "TEXT"}),
    ("format.txt", {"new": "text", "old": "text"}),
    ("games.txt", {"games": [GAME, {**GAME, "your_turn": False}], "me": "Z@Z.Z",
                   "challenges": [_challenge(), _challenge(challenger=OTHER), _challenge(opponent=None)]}),
    ("games.txt", {"games": [], "challenges": [], "me": "Z@Z.Z"}),
    ("named.txt", {"new": "ZED", "old": "YAN"}),
    ("next.txt", {"game": {**GAME, "you": "ZED", "your_side": "black", "draw_offer_by_opponent": True,
                           "last_move": {"notation": "c4", "by": "YAN"}, "examples": ["c4"],
                           "notation": "NOTATION"}, "waiting": 2, "playing": 3}),
    ("next.txt", {"game": None, "waiting": 0, "playing": 2}),
    ("next.txt", {"game": None, "waiting": 0, "playing": 0}),
    ("open.txt", {"challenges": [_challenge(opponent=None)], "bots": True}),
    ("open.txt", {"challenges": [], "bots": False}),
    ("open.txt", {"challenges": [_challenge(opponent=None, takebacks=False)], "bots": True}),
    ("challenged.txt", {"challenge": _challenge(takebacks=False)}),
    ("challenge_received.txt", {"challenge": _challenge(takebacks=False)}),
    ("ratings.txt", {"title": "TITLE", "me": "Z@Z.Z", "rows": [
        {"rank": 1, "rating": 1500, "deviation": 350, "games": 2, "name": "ZED", "address": "Z@Z.Z", "bot": False},
        {"rank": 2, "rating": 1400, "deviation": 350, "games": 2, "name": "YAN", "address": "Y@Y.Y", "bot": True}]}),
    ("ratings.txt", {"title": "TITLE", "me": "Z@Z.Z", "rows": []}),
    ("stats.txt", {"kind": None, "rows": []}),
    ("timezone.txt", {"zone": "EUROPE/ROME", "local": "12:00", "games": [GAME, {**GAME, "your_turn": False}]}),
    ("vacation.txt", {"days": 3, "until": "MONDAY", "games": 2, "remaining": 5}),
    ("vacation.txt", {"days": 1, "until": "MONDAY", "games": 0, "remaining": 1}),
    ("watching.txt", {"watching": True, "already": False, "game": GAME}),
    ("watching.txt", {"watching": True, "already": True, "game": GAME}),
    ("watching.txt", {"watching": False, "already": False, "game": GAME}),
]
# the take-back mails, each branch: asker and asked (or watcher), one ply or a move and the bot's answer
_TAKEBACK_GAME = {**GAME, "you": "ZED", "your_side": "black", "examples": ["c4"], "notation": "NOTATION",
                  "on_move": {**OTHER, "side": "white"}, "takebacks": True}
CASES += [
    (name, {"game": {**_TAKEBACK_GAME, "your_turn": turn, "your_side": side}, "move": "D5", "answer": answer,
            "by": "YAN", "dropped": 1})
    for name in ("takeback_asked.txt", "takeback_accepted.txt", "takeback_refused.txt")
    for turn, side in ((True, "black"), (False, "black"), (False, None))
    for answer in ("C4", "")
]


@pytest.mark.parametrize(("name", "context"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_the_replies_say_every_word_through_the_catalog(fake: Templates, name: str, context: dict) -> None:
    assert _english(fake, name, **context) == []


def test_stats_speak_the_figures_and_sides(fake: Templates) -> None:
    rows = [{"kind": "ataxx", "title": "TITLE", "games": 13500, "results": [
        {"name": "x", "count": 6929, "percent": 51.33}, {"name": "o", "count": 6000, "percent": 44.44},
        {"name": "draw", "count": 571, "percent": 4.23}]}]
    module = fake.environment(FAKE).get_template("stats.txt").make_module({"kind": "ataxx", "rows": rows})
    assert "X 6.929 (51,33 %), O 6.000 (44,44 %), DRAW 571 (4,23 %)" in str(module)
    assert _english(fake, "stats.txt", kind="ataxx", rows=rows) == []


def _helps(templates: Templates, language: str) -> list[tuple[str, str]]:
    """Every help mail: the short list, the long one, each command's."""

    class Ctx:
        def __init__(self) -> None:
            self.replies: list[tuple[str, dict]] = []
            # bots play (no operator's switch is stored): the help tells how to challenge one
            self.settings = SimpleNamespace(bots=True)
            self.session = SimpleNamespace(get=lambda *_: None)

        def reply(self, template: str, **data: Any) -> None:
            self.replies.append((template, data))

    ctx = Ctx()
    for line in ("", "all", *(c.name for c in base.commands())):
        info.Help().run(ctx, base.Call(line=f"help {line}", args=line.split()))
    out = []
    for template, data in ctx.replies:
        module = templates.environment(language).get_template(template).make_module({**data, "words": WORDS})
        out.append((template, f"{getattr(module, 'subject', '')}\n{module}"))
    return out


def test_every_help_text_is_translatable(fake: Templates) -> None:
    for command in base.commands():
        assert fake.exists(f"commands/{command.name}.txt"), f"{command.name} has no help template"
    for template, text in _helps(fake, FAKE):
        words = [w for w in _WORD.findall(_KEPT.sub(" ", text)) if w not in TYPED]
        assert words == [], f"{template}: {words}"


def test_help_names_the_commands_words_of_the_language(fake: Templates) -> None:
    helps = _helps(fake, FAKE)
    short, full = helps[0][1], helps[1][1]
    assert "challenge (sfida)" in short and "help (guida, aiutami)" in short
    assert "(sfida)" in full
    assert "(sfida)" in next(text for _, text in helps[2:] if "CHALLENGE GAME" in text)
    for _, text in _helps(fake, "en"):
        assert "sfida" not in text and "guida" not in text


@pytest.mark.parametrize("game", pbem_engine.names())
def test_the_rules_are_translatable(fake: Templates, game: str) -> None:
    cls = pbem_engine.lookup(game)

    class Ctx:
        def reply(self, template: str, **data: Any) -> None:
            data["options"] = [{**o, "help": "HELP"} for o in data["options"]]
            self.words = _english(fake, template, **{**data, "notation": "NOTATION", "description": "DESC"})

    ctx = Ctx()
    info.Rules().run(ctx, base.Call(line=f"rules {game}", args=[game]))
    if fake.exists(f"rules/{cls.name}.txt"):
        assert ctx.words == []
