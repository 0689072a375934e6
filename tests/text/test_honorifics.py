"""A bot is no person: where a language honours a person after their name (Korean `님`), a bot's
name takes the word for a bot instead, with the particles the catalog wrote after it kept right."""

from __future__ import annotations

import pbem_bots
from pbem.text.i18n import speaker
from pbem_engine.common.phrases import Phrase


def test_korean_honours_a_person_and_names_a_bot_a_bot() -> None:
    ko = speaker("ko")
    assert ko.gettext("%(by)s played %(move)s.", by="bob", move="d4") == "bob님이 d4 수를 뒀어요."
    assert ko.gettext("%(by)s played %(move)s.", by="bot-ataxx-2", move="d4") == "bot-ataxx-2 봇이 d4 수를 뒀어요."


def test_a_phrase_names_a_bot_a_bot_too() -> None:
    said = Phrase("{name}'s last move: {move}", {"name": "bot-capturego-3", "move": "d4"})
    assert speaker("ko").say(said).startswith("bot-capturego-3 봇의 ")
    assert speaker("ko").say(Phrase("{name}'s last move: {move}", {"name": "bob", "move": "d4"})).startswith("bob님의 ")


def test_only_a_real_bots_name_is_a_bot() -> None:
    assert pbem_bots.is_name(pbem_bots.name("myriades", 1))
    ko = speaker("ko")
    for person in ("bot-chess-2", "bot-ataxx-9", "Bot-Ataxx-2", "alice bot-ataxx-2"):
        assert not pbem_bots.is_name(person)
        assert ko.gettext("%(by)s played %(move)s.", by=person, move="d4").startswith(f"{person}님이 ")


def test_other_languages_write_a_bots_name_as_a_persons() -> None:
    for code in ("en", "it", "ru", "uk", "zh"):
        talk = speaker(code)
        person = talk.gettext("%(by)s played %(move)s.", by="bob", move="d4")
        assert talk.gettext("%(by)s played %(move)s.", by="bot-ataxx-2", move="d4") == person.replace("bob", "bot-ataxx-2")
