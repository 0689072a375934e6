"""Every error a player reads is a `Phrase`: a whole-sentence msgid with fields, said in the
reader's language; only the operator's errors stay plain English."""

from __future__ import annotations

import ast
import gettext
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

import pbem_engine
from pbem.commands.lines import args
from pbem.commands.player import challenges
from pbem.core.errors import ClockError, CommandError, GameError, PlayerError
from pbem.games import clock, zones
from pbem.games import store as G
from pbem.text import i18n
from pbem.text import templates as T
from pbem_engine.common.phrases import Phrase, nphrase

ROOT = Path(__file__).resolve().parents[2]
ERRORS = {"PlayerError", "CommandError", "GameError", "NotAMove", "ClockError"}

#: (file, function) whose errors only the operator reads (`pbem admin ...`): plain English
OPERATOR_ONLY = {
    ("pbem/cli/admin/changes.py", "admin_adjudicate.change"),
    ("pbem/cli/admin/changes.py", "admin_undo.change"),
    ("pbem/games/clock.py", "add_time"),
    ("pbem/games/store.py", "undo"),
    ("pbem/games/store.py", "_require_active"),
}


def _calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    """Every call of an error class in the tree, with the function it is in ("a.b" nested)."""
    found: list[tuple[str, ast.Call]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                visit(child, f"{where}.{child.name}" if where else child.name)
                continue
            if isinstance(child, ast.Call):
                name = child.func.id if isinstance(child.func, ast.Name) else getattr(child.func, "attr", "")
                if name in ERRORS:
                    found.append((where, child))
            visit(child, where)

    visit(tree, "")
    return found


def _english(node: ast.AST | None) -> bool:
    """Whether an argument is English text written in place: a string, an f-string, `str(...)`
    or a sum of them (an empty string, no hint, is fine); either side of a condition counts."""
    if node is None:
        return False
    if isinstance(node, ast.IfExp):
        return _english(node.body) or _english(node.orelse)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value != ""
    if isinstance(node, ast.JoinedStr | ast.BinOp):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str"


def _sources() -> list[Path]:
    return sorted(p for p in (ROOT / "pbem").rglob("*.py") if "migrations" not in p.parts)


def test_every_error_a_player_reads_is_a_phrase() -> None:
    english, operator = [], set()
    for path in _sources():
        name = str(path.relative_to(ROOT))
        for where, call in _calls(ast.parse(path.read_text(), name)):
            message = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "message"), None)
            hint = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "hint"), None)
            if (name, where) in OPERATOR_ONLY:
                operator.add((name, where))
            elif _english(message) or _english(hint):
                english.append(f"{name}:{call.lineno} ({where or 'module'})")
    assert not english, "errors a player reads, written as English text instead of a phrase:\n" + "\n".join(english)
    assert operator == OPERATOR_ONLY, "an operator-only entry names no error any more: drop it"


def test_every_phrase_in_the_service_has_a_literal_msgid() -> None:
    """The catalog extractor reads the msgid where `phrase`/`nphrase` is called: a literal."""
    wrong = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("phrase", "nphrase"):
                literal = node.args[: 2 if node.func.id == "nphrase" else 1]
                if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in literal):
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not wrong, wrong


class Marked(gettext.NullTranslations):
    """A fake language: every msgid comes back in «», its fields kept."""

    def gettext(self, message: str) -> str:
        return f"«{message}»"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"«{singular if n == 1 else plural}»"

    def pgettext(self, context: str, message: str) -> str:
        return f"«{message}»"


@pytest.fixture
def marked(monkeypatch: pytest.MonkeyPatch) -> i18n.Speaker:
    english = i18n.Speaker("en")
    monkeypatch.setattr(i18n, "translations", lambda code: Marked())
    talk = i18n.Speaker("it")
    monkeypatch.setattr(T, "speaker", lambda code: talk if code == "it" else english)
    return talk


def _raised(call, *arguments) -> PlayerError:  # noqa: ANN001
    with pytest.raises(PlayerError) as caught:
        call(*arguments)
    return caught.value


def _errors() -> list[tuple[PlayerError, str, str]]:
    """Errors as the service raises them, with the English each one has always had."""
    ataxx = pbem_engine.lookup("ataxx")
    over = SimpleNamespace(id=42, status="finished", result="1-0", reason="o resigned")
    cancelled = SimpleNamespace(id=43, status="cancelled", result=None, reason="cancelled: a test")
    return [
        (_raised(zones.parse_zone, "Europe/Roma"), '"Europe/Roma" is not a time zone I know.',
         "Did you mean Europe/Rome or Europe/Riga or Europe/Sofia? Write the zone as Region/City, "
         "e.g. timezone Europe/Rome or timezone America/New_York."),
        (_raised(zones.parse_zone, "Pacific/Ocland"), '"Pacific/Ocland" is not a time zone I know.',
         "Did you mean Pacific/Auckland? Write the zone as Region/City, e.g. timezone Europe/Rome or "
         "timezone America/New_York."),
        (_raised(zones.parse_zone, "CEST+2"), '"CEST+2" is not a time zone I know.',
         "Write the zone as Region/City, e.g. timezone Europe/Rome or timezone America/New_York."),
        (_raised(clock.time_control, "99", None, 7),
         "days=99 is not a time control I offer: a move may take from 1 to 30 days.",
         "Write e.g. days=3 (the default is 7)."),
        (_raised(clock.time_control, None, "maybe", 7), "weekends=maybe means nothing to me.",
         "Write weekends=off to stop the clock on Saturdays and Sundays (weekends=on is the default)."),
        (_raised(G.require_active, over), "Game #42 is over (1-0, o resigned).", ""),
        (_raised(G.require_active, cancelled), "Game #43 is not in progress (cancelled).", ""),
        (_raised(args.require_id, [], "accept 12"), "Please name the challenge by its number.", "Write e.g. accept 12."),
        (_raised(challenges._colour, ataxx, "purple"), "colour=purple is not a colour in Ataxx.",
         "Write colour= one of: random, first, second, x, o."),
    ]


def test_the_errors_keep_their_english() -> None:
    for error, message, hint in _errors():
        assert isinstance(error.message, Phrase)
        assert (str(error.message), str(error.hint)) == (message, hint)
        assert str(error) == f"{message} {hint}".strip()


def test_the_errors_are_said_in_the_readers_language(marked: i18n.Speaker) -> None:
    for error, message, hint in _errors():
        said = marked.say(error.message)
        assert said == f"«{message}»".replace(" in Ataxx.", " in «Ataxx».")  # the title is said too
        if hint:
            assert marked.say(error.hint) == f"«{hint}»"


def test_counts_choose_the_plural_and_numbers_are_the_locales(marked: i18n.Speaker) -> None:
    at = datetime(2026, 3, 2, 10, tzinfo=UTC)
    assert marked.say(clock.left(at.replace(day=9), at)) == "«7 days left»"
    assert marked.say(clock.left(at.replace(hour=11, minute=30), at)) == "«1 hour left»"
    assert marked.say(clock.remaining(at.replace(hour=20), at)) == "«10 hours»"
    assert marked.say(clock.left(at, at)) == "«no time left»"
    error = ClockError(nphrase("{n} day", "{n} days", 1234))
    assert marked.say(error.message) == "«1.234 days»"  # Italian groups thousands with a dot


def test_the_error_mail_says_the_phrases(marked: i18n.Speaker) -> None:
    error = _raised(clock.time_control, "99", None, 7)
    said = {"line": "challenge ataxx days=99", "game": None}
    mail = T.Templates().render("error.txt", language="it", message=error.message, hint=error.hint, **said)
    words = " ".join(mail.body.split())
    assert "«days=99 is not a time control I offer: a move may take from 1 to 30 days.»" in words
    assert "«Write e.g. days=3 (the default is 7).»" in words
    english = T.Templates().render("error.txt", message=error.message, hint=error.hint, **said)
    assert english == T.Templates().render("error.txt", message=str(error.message), hint=str(error.hint), **said)


def test_a_game_error_keeps_its_code_and_fields() -> None:
    game = SimpleNamespace(id=7, status="active", turn=1, side_of=lambda player_id: 0)
    error = _raised(G.require_turn, game, SimpleNamespace(id=1))
    assert isinstance(error, GameError) and isinstance(error, CommandError)
    assert (error.code, error.params) == ("game.not_your_move", {"game": 7})
    assert error.message.params == {"game": 7}  # an identifier: never written 1.234
