"""Every mail in every language: complete catalogs, no English left, no line too wide.

The exchange of `test_templates.py` (every template the server sends by mail, with real
data) is played by players who read each language; every text part, every subject and the
words of every HTML part are checked. Then one whole game each in Italian, Ukrainian and
Chinese, between two players who read different languages.
"""

from __future__ import annotations

import random

import inscriptis
import pytest
from sqlmodel import Session, select

import pbem_engine
from pbem.core.models import Game, Player
from pbem.core.wallclock import now
from pbem.games import players
from pbem.mail.message.notation import MAX_SUBJECT, parse_subject
from pbem.text import catalogs
from pbem.text.i18n import LANGUAGES, speaker
from tests.languages import english_left, too_wide, without_quotes
from tests.mailer import parse, text
from tests.samples import exchange

OTHERS = [code for code in LANGUAGES if code != "en"]


def test_the_catalogs_are_complete_current_and_compiled() -> None:
    """What `pybabel compile --statistics` would say at 100%, and more: every placeholder kept,
    every plural form written, the .pot what the code says, each .mo built from its .po."""
    assert catalogs.check() == []


@pytest.mark.slow
@pytest.mark.parametrize("language", OTHERS)
def test_every_mail_speaks_the_readers_language(language, tmp_path) -> None:
    with exchange(language, tmp_path) as (server, rows):
        assert len(rows) > 40
        with Session(server.engine) as session:  # a player new to the script reads their own
            # (a bot reads no mail: its language is never used)
            reads = {p.address: p.language for p in session.exec(select(Player)) if p.bot_level is None}
        # Dora, new to the script, wrote one mail without proof: answered in Russian, stored nothing
        assert set(reads.values()) <= {language, "en"}
        titles = tuple(speaker(language).gettext(pbem_engine.create(name).title) for name in pbem_engine.names())
        for row in rows:
            mail = parse(row.message)
            language = mail["Content-Language"]
            assert language == reads[row.recipient] or (row.recipient == "dora@example.org" and language == "ru")
            body = text(mail).replace("\r\n", "\n")
            where = f"{language} {row.template}"
            assert too_wide(body) == [], f"{where}: too wide"
            left = english_left(body, language)
            assert left == [], f"{where}: English left in\n{body}\n{left}"
            assert english_left(mail["Subject"], language) == [], f"{where}: {mail['Subject']}"
            # within 78 characters, or shortened as far as it goes: its title left out (its words stay)
            shortened = not parse_subject(mail["Subject"]).text.startswith(titles)
            assert len(mail["Subject"]) <= MAX_SUBJECT or shortened, f"{where}: {mail['Subject']}"
            html = mail.get_body(("html",))
            if html is not None:
                words = inscriptis.get_text(without_quotes(html.get_content()))
                assert english_left(words, language) == [], f"{where}: English left in the HTML part"
                assert f'lang="{"zh-Hans" if language == "zh" else language}"' in html.get_content()


def _set_language(server, address: str, language: str) -> None:
    with Session(server.engine) as session:
        players.get_or_register(session, address, now()).language = language
        session.commit()


def _greedy(rules, pos, rng):
    """The Ataxx move that gains the most pieces (a random game would last long)."""
    side = rules.turn(pos)
    moves = rules.legal_moves(pos)
    if moves == ["pass"] or not moves:
        return rules.sample(pos, rng.choice)
    return max(moves, key=lambda m: rules.outcome(rules.apply(pos, m)).scores[side] + rng.random())


def _play_out(server, kind: str, options: str, seed: int) -> Game:
    """Alice challenges Bob, Bob accepts, and both play legal moves to the end, each by a
    reply to the newest mail about the game."""
    alice, bob = "alice@example.org", "bob@example.org"
    server.say(alice, f"challenge {kind} {bob} colour=first {options}")
    server.confirm(alice)
    server.say(bob, "accept 1")
    rules = pbem_engine.create(kind, dict(o.split("=") for o in options.split()))
    pos, rng = rules.start(), random.Random(seed)
    while not rules.outcome(pos).over:
        mover = (alice, bob)[rules.turn(pos)]
        move = _greedy(rules, pos, rng) if rules.family == "ataxx" else rules.sample(pos, rng.choice)
        written = rules.format(pos, move)
        pos = rules.apply(pos, move)
        assert server.say(mover, written) == "processed"
    with Session(server.engine) as session:
        game = session.get(Game, 1)
        assert game.status == "finished"
        assert rules.load(game.state) == pos
        return game


@pytest.mark.slow
@pytest.mark.parametrize(
    ("first", "second", "kind", "options"),
    [("it", "uk", "ataxx", "blocks=c3,e3,c5,e5"), ("uk", "zh", "capturego", "size=7 target=2"),
     ("zh", "it", "infinito", "size=10")],
)
def test_a_whole_game_between_two_languages(server, first, second, kind, options) -> None:
    alice, bob = "alice@example.org", "bob@example.org"
    _set_language(server, alice, first)
    _set_language(server, bob, second)
    game = _play_out(server, kind, options, seed=7)
    rules = pbem_engine.create(kind, dict(o.split("=") for o in options.split()))
    final = rules.load(game.state)
    with Session(server.engine) as session:
        names = tuple(session.get(Player, pid).name for pid in (game.player0_id, game.player1_id))
    for address, language in ((alice, first), (bob, second)):
        mails = server.mails(address)
        assert len(mails) > 5
        for mail in mails:
            body = text(mail).replace("\r\n", "\n")
            left = english_left(body, language)
            assert left == [], f"{language}: English left in\n{body}\n{left}"
            assert too_wide(body) == [], f"{language}: too wide\n{body}"
        last = text(mails[-1]).replace("\r\n", "\n")
        talk = speaker(language)
        board = rules.render(final, names=names, finished=True, say=talk.say)
        assert board in last, f"{language}: the final board is not the engine's, in {language}\n{last}"
        assert mails[-1]["Subject"].startswith(f"[pbem #{game.id}]") or f"#{game.id}" in mails[-1]["Subject"]
