"""Command words in every language, and the player's language: chosen, detected, used."""

from __future__ import annotations

import unicodedata

import pytest
from sqlmodel import Session, select

import pbem.commands  # noqa: F401  (registers every command)
import pbem_engine
from pbem.commands.lines import base, reader, words
from pbem.commands.player.language import language_code
from pbem.core.models import Challenge, Game, Outbox, Player
from pbem.mail.message import language as detection
from pbem.text.i18n import LANGUAGES, speaker
from pbem_engine.common.phrases import phrase
from tests.mailer import compose, parse, reply_to, text
from tests.players import ALICE, BOB, flat, start_game

ALL_WORDS = [(command, code, word) for command, languages in words.WORDS.items()
             for code, spoken in languages.items() for word in spoken]


def _accented(word: str) -> str:
    """The word as a careless or a careful writer may type it: е as ё, a vowel with an accent."""
    out = word.replace("е", "ё").replace("Е", "Ё")
    for vowel in "aeiou":
        if vowel in out:
            return out.replace(vowel, unicodedata.normalize("NFC", vowel + "\u0300"), 1)
    return out


def _mixed(word: str) -> str:
    return "".join(c.upper() if i % 2 == 0 else c.lower() for i, c in enumerate(word))


@pytest.mark.parametrize(("command", "code", "word"), ALL_WORDS)
def test_every_word_names_its_command_in_any_case_and_accent(command: str, code: str, word: str) -> None:
    assert command in base.COMMANDS, f"{command!r} ({code}) is not a command"
    for spelling in (word, word.upper(), _mixed(word), _accented(word), word + ":", word.title()):
        found = base.find(spelling)
        assert found is not None and found.name == command, (spelling, code)
    assert reader.reads_as_command(f"{word} 1"), word  # the wrap guard knows it
    assert base.nearest(word) is None  # found, so not a typo of something else


def test_no_word_is_another_commands_word_in_any_language() -> None:
    owners: dict[str, set[str]] = {}
    for command in base.commands():
        for spelling in (command.name, *command.aliases):
            owners.setdefault(words.fold(spelling), set()).add(command.name)
    for folded, commands in words.spellings().items():
        owners.setdefault(folded, set()).update(commands)
    shared = {word: names for word, names in owners.items() if len(names) > 1}
    assert not shared


@pytest.mark.parametrize("kind", pbem_engine.names())
def test_no_word_is_a_move(kind: str) -> None:
    rules = pbem_engine.create(kind)
    pos = rules.start()
    spoken = [word for _, _, word in ALL_WORDS] + [w for g in words.GAMES.values() for s in g.values() for w in s]
    for word in spoken:
        assert words.fold(word) != "pass" or base.find(word).name == "pass"
        assert not reader._looks_like_move([word]), word
        with pytest.raises(pbem_engine.EngineError):
            rules.parse(pos, word)


def test_game_names_of_every_language_reach_the_engine() -> None:
    for kind, languages in words.GAMES.items():
        for spoken in languages.values():
            for name in spoken:
                for spelling in (name, name.upper(), _accented(name)):
                    assert pbem_engine.lookup(words.game(spelling)).name == kind, spelling
                assert base.find(name) is None, name  # never a command word
    assert words.game("ataxx") == "ataxx"
    assert words.game("nonesuch") == "nonesuch"


@pytest.mark.parametrize(
    ("given", "code"),
    [("it", "it"), ("RU", "ru"), ("zh-CN", "zh"), ("русский", "ru"), ("Italiano", "it"), ("russian", "ru"),
     ("中文", "zh"), ("한국어", "ko"), ("українська", "uk"), ("Ukrainian", "uk"), ("english", "en"),
     ("Korean", "ko"), ("Chinese", "zh"), ("итальянский", "it"), ("러시아어", "ru"), ("俄语", "ru")],
)
def test_languages_by_code_and_by_name(given: str, code: str) -> None:
    assert language_code(given) == code


def test_an_unknown_language() -> None:
    assert language_code("klingon") is None
    assert language_code("de") is None


# --- detection --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "code"),
    [("сдаюсь", "ru"), ("здаюся", "uk"), ("accetto", "it"), ("도움말", "ko"), ("帮助", "zh"),
     ("c4", "en"), ("resign", "en"), ("help", "en"), ("ПРАВИЛА", "ru"),
     ("Привет! Хочу сыграть партию, подскажите, как начать?", "ru"),
     ("Привіт! Хочу зіграти партію, підкажіть, як почати?", "uk"),
     ("Ciao, vorrei giocare una partita con un amico, come si comincia?", "it"),
     ("Hello, I would like to play a game with a friend, how do I start?", "en")],
)
def test_a_new_players_first_mail_is_answered_in_its_language(server, body: str, code: str) -> None:
    server.send(compose(ALICE, body))
    with Session(server.engine) as session:  # a first mail has no proof: it chooses nothing (a forger's might)
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == "en"
    assert server.last(ALICE)["Content-Language"] == code
    said = flat(server.last(ALICE))
    chosen = speaker(code).gettext("I write to you in %(name)s, the language of your mail.", name=LANGUAGES[code])
    if code == "en":
        assert chosen not in said
    else:
        assert chosen in said  # in the language chosen
        assert "language en" in said


def test_the_content_language_header_decides_when_the_words_do_not(server) -> None:
    raw = compose(ALICE, "c4").replace(b"MIME-Version:", b"Content-Language: it\r\nMIME-Version:")
    server.send(raw)
    assert server.last(ALICE)["Content-Language"] == "it"


@pytest.mark.parametrize(("body", "code"), [("вызов ataxx", "ru"), ("виклик ataxx", "uk"), ("sfida ataxx", "it"),
                                            ("도전 ataxx", "ko"), ("挑战 ataxx", "zh")])
def test_the_language_of_a_held_first_mail_is_stored_when_it_is_confirmed(server, body: str, code: str) -> None:
    server.send(compose(ALICE, body))
    held = server.last(ALICE)
    assert held["Content-Language"] == code
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == "en"
    server.confirm(ALICE)
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == code
    assert server.last(ALICE)["Content-Language"] == code


@pytest.mark.parametrize(("line", "code"), [("language ko", "ko"), ("language italiano", "it"), ("lang 中文", "zh")])
def test_a_held_first_mail_that_asks_for_a_language_is_answered_in_it(server, line: str, code: str) -> None:
    server.send(compose(ALICE, f"{line}\nchallenge ataxx {BOB}"))
    held = server.last(ALICE)
    assert held["Content-Language"] == code  # the notice that asks for the confirmation
    assert speaker(code).gettext("Did you write to me? Reply to confirm") in str(held["Subject"])
    with Session(server.engine) as session:  # nothing is stored before the confirmation
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == "en"
    server.confirm(ALICE)
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == code
    assert server.last(ALICE)["Content-Language"] == code


def test_an_unproven_language_line_from_a_known_player_changes_no_notice(server) -> None:
    server.say(ALICE, "help")
    server.say(ALICE, "help")  # Alice reads English, and proved her address
    server.send(compose(ALICE, "language ko"))  # anyone can put her address in From
    assert server.last(ALICE)["Content-Language"] == "en"


def test_a_newcomer_is_answered_in_their_own_words_until_their_first_proven_mail_stores_it(server) -> None:
    server.send(compose(ALICE, "你好，我想下棋，怎么开始？"))  # no command: nothing to hold, nothing stored
    assert server.last(ALICE)["Content-Language"] == "zh"
    server.send(reply_to(ALICE, server.last(ALICE), f"挑战 ataxx {BOB}"))  # her reply proves her address
    assert server.last(ALICE)["Content-Language"] == "zh"
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == "zh"


def test_a_newcomers_proven_reply_in_english_command_words_is_answered_in_the_language_it_answers(server) -> None:
    server.send(compose(ALICE, "你好，我想下棋，怎么开始？"))
    server.send(reply_to(ALICE, server.last(ALICE), "help"))  # the word our Chinese mail told her to write
    assert server.last(ALICE)["Content-Language"] == "zh"
    with Session(server.engine) as session:
        alice = session.exec(select(Player).where(Player.address == ALICE)).one()
        assert alice.language == "zh" and alice.language_at is None  # she reads it; her words did not say it
    server.send(reply_to(ALICE, server.last(ALICE), "challenge ataxx bot level=1"))  # English words: no sentence
    assert server.last(ALICE)["Content-Language"] == "zh"
    server.say(BOB, "help")
    server.say(BOB, f"challenge ataxx {ALICE}")  # a mail to her that answers nothing of hers: in her language too
    assert server.last(ALICE)["Content-Language"] == "zh" and "挑战" in server.last(ALICE)["Subject"]
    server.send(reply_to(ALICE, server.last(ALICE), "帮助"))  # her words say it: settled, and no second notice
    answer = server.last(ALICE)
    assert answer["Content-Language"] == "zh" and "语言" not in answer["Subject"]
    with Session(server.engine) as session:
        alice = session.exec(select(Player).where(Player.address == ALICE)).one()
        assert alice.language == "zh" and alice.language_at is not None


def test_a_command_word_with_words_of_a_language_stores_that_language(server) -> None:
    server.send(compose(ALICE, "Здравствуйте!\nвызв атакс bob@example.org"))  # answered: did you mean вызов?
    server.send(reply_to(ALICE, server.last(ALICE), "help вызов"))  # as that answer tells her
    assert server.last(ALICE)["Content-Language"] == "ru"
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == "ru"


def test_a_newcomers_proven_reply_in_english_prose_stores_english_and_says_so(server) -> None:
    server.send(compose(ALICE, "你好，我想下棋，怎么开始？"))
    server.send(reply_to(ALICE, server.last(ALICE), "help\nSorry, I cannot read Chinese, please write in English"))
    answer = server.last(ALICE)
    assert answer["Content-Language"] == "en" and "I write to you in English" in " ".join(text(answer).split())
    with Session(server.engine) as session:
        alice = session.exec(select(Player).where(Player.address == ALICE)).one()
        assert alice.language == "en" and alice.language_at is not None


def test_a_forged_first_mail_chooses_no_language_for_a_stranger(server) -> None:
    forged = compose(BOB, "Привет! Хочу сыграть партию, подскажите, как начать? вызов ataxx", Return_Path=f"<{ALICE}>")
    server.send(forged)
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == BOB)).one().language == "en"
    # Bob's own first proven mail (a reply to the notice, in English) keeps English and confirms nothing
    server.send(reply_to(BOB, server.last(BOB), "stop"))
    with Session(server.engine) as session:
        bob = session.exec(select(Player).where(Player.address == BOB)).one()
        assert bob.language == "en" and bob.stopped_at is not None


def test_detection_never_changes_a_known_players_language(server) -> None:
    server.say(ALICE, "help")
    server.say(ALICE, "help\nThank you, I would like to play a game of ataxx soon")  # proven, in English
    server.say(ALICE, "сдаюсь")
    server.send(compose(ALICE, "帮助"))
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == "en"


def test_a_player_whose_words_never_said_a_language_gets_the_first_that_does(server) -> None:
    server.say(ALICE, "help")
    server.say(ALICE, "help")  # proven, but "help" is every language's example: nothing settled
    server.send(compose(ALICE, "помощь"))  # unproven: anyone can write From her address, it chooses nothing
    assert server.last(ALICE)["Content-Language"] == "en"
    server.say(ALICE, "помощь")  # her own reply, in Russian words
    assert server.last(ALICE)["Content-Language"] == "ru"
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == "ru"


def test_an_invited_players_first_mail_sets_their_language(server) -> None:
    server.say(ALICE, f"challenge ataxx {BOB}")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accetto 1"))
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == BOB)).one().language == "it"
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == "en"


def test_text_detection_alone() -> None:
    assert detection.detect("c4") is None
    assert detection.detect("hello there") is None  # too short to tell
    assert detection.detect("c4", "it-IT") == "it"
    assert detection.detect("c4", "de, zh-Hans") == "zh"
    assert detection.detect("안녕하세요") == "ko"
    assert detection.detect("你好") == "zh"
    assert detection.detect("Їжак") == "uk"
    assert detection.detect("Съешь же ещё этих мягких булок") == "ru"
    assert detection.detect("ありがとう") is None  # Japanese is not ours
    assert detection.from_header("fr") is None


# --- the command ------------------------------------------------------------------------------


def test_language_shows_and_changes_the_language(server) -> None:
    server.say(ALICE, "help")
    server.say(ALICE, "language")
    shown = text(server.last(ALICE))
    assert "I write to you in English." in " ".join(shown.split())
    for code, name in LANGUAGES.items():
        assert f"  {code}  {name}" in shown
    server.say(ALICE, "language Русский")
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == "ru"
    assert speaker("ru").gettext("My mails to you are now in %(name)s", name="русский") in server.last(ALICE)["Subject"]
    server.say(ALICE, "язык it")
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == ALICE)).one().language == "it"
    server.say(ALICE, "language klingon")
    assert speaker("it").say(phrase('I do not write in "{given}". I write in: {languages}.', given="klingon",
                                    languages=list(LANGUAGES))) in flat(server.last(ALICE))


def test_each_player_reads_their_own_language(server, monkeypatch) -> None:
    start_game(server)
    templates = server.service.templates
    seen: list[tuple[str, str]] = []
    original = templates.sketch

    def sketch(name, language="en", **context):  # noqa: ANN001, ANN202
        seen.append((name, language))
        return original(name, language, **context)

    monkeypatch.setattr(templates, "sketch", sketch)
    server.say(BOB, "language uk")
    now_in = speaker("uk").gettext("My mails to you are now in %(name)s", name="українська")
    assert now_in in server.last(BOB)["Subject"], flat(server.last(BOB))
    seen.clear()
    server.say(ALICE, "f2")  # ataxx: Alice moves first
    assert {lang for _, lang in seen} == {"en", "uk"}, (seen, flat(server.last(ALICE)))


@pytest.mark.parametrize("code", ["en", "it", "ru", "uk", "ko", "zh"])
def test_accept_alone_in_any_language_answers_the_challenge_its_mail_showed(server, code: str) -> None:
    """`Принимаю` alone, in reply to the challenge's mail: the challenge is read from what that
    mail showed (kept with it), never from its subject's words, which are the reader's language."""
    accept = "accept" if code == "en" else words.WORDS["accept"][code][0]
    server.say(BOB, "help")  # Bob writes first, and reads our mails in his language
    server.say(BOB, f"language {code}")
    server.say(ALICE, f"challenge ataxx {BOB}")
    server.confirm(ALICE)
    server.say(ALICE, f"challenge capturego {BOB}")  # a second one waits too: the mail says which
    with Session(server.engine) as session:
        first = session.exec(select(Outbox.message).where(Outbox.recipient == BOB, Outbox.template == "challenge_received")
                             .order_by(Outbox.id)).first()
    server.send(reply_to(BOB, parse(first), accept.capitalize()))
    with Session(server.engine) as session:
        assert session.get(Challenge, 1).status == "accepted" and session.get(Challenge, 2).status == "open"
        assert [g.kind for g in session.exec(select(Game))] == ["ataxx"]


@pytest.mark.parametrize("line", ["挑战 ataxx 机器人", "도전 ataxx 봇", "вызов ataxx бот", "виклик ataxx бот",
                                  "sfida ataxx computer", "challenge ataxx BOT"])
def test_a_challenge_names_the_bot_in_the_players_words(server, line: str) -> None:
    server.say(ALICE, line)
    server.confirm(ALICE)  # a first mail is held until she confirms it
    with Session(server.engine) as session:
        game = session.exec(select(Game)).one()
        sides = [session.get(Player, game.player0_id), session.get(Player, game.player1_id)]
        (bot,) = [player for player in sides if player is not None and player.address != ALICE]
        assert bot.bot_level is not None and bot.name.startswith("bot-ataxx-")


@pytest.mark.parametrize(("line", "level", "first", "days"), [
    ("sfida ataxx computer livello=1 colore=first giorni=3", 1, True, 3),
    ("вызов атакс бот уровень=3 цвет=second дни=4", 3, False, 4),
    ("виклик ataxx бот рівень=1 колір=first днів=5", 1, True, 5),
    ("도전 아택스 봇 레벨=3 색=second 일수=6", 3, False, 6),
    ("挑战 同化棋 机器人 级别=1 颜色=first 天数=2", 1, True, 2),
    ("challenge ataxx bot Level=3 COLOR=second Days=9", 3, False, 9),
])
def test_a_challenge_reads_its_options_in_the_players_words(server, line: str, level: int, first: bool,
                                                            days: int) -> None:
    server.say(ALICE, line)
    server.confirm(ALICE)
    with Session(server.engine) as session:
        game = session.exec(select(Game)).one()
        alice = session.exec(select(Player).where(Player.address == ALICE)).one()
        bot = session.get(Player, game.player1_id if game.player0_id == alice.id else game.player0_id)
        assert bot.bot_level == level
        assert (game.player0_id == alice.id) is first  # the first side moves first
        assert session.exec(select(Challenge)).one().days == days


def test_an_option_named_in_no_language_is_refused_by_its_name(server) -> None:
    server.say(ALICE, "sfida ataxx computer livelo=1")  # refused at once: nothing is held to confirm
    with Session(server.engine) as session:
        assert session.exec(select(Game)).first() is None
    said = text(server.last(ALICE))
    assert "'livelo'" in said and "blocks" in said  # the word as she wrote it, and the options there are


def test_every_option_word_names_one_option_and_no_english_name_of_another() -> None:
    seen: dict[str, str] = {}
    for name, languages in words.OPTIONS.items():
        for spoken in languages.values():
            for word in spoken:
                key = words.fold(word)
                assert seen.setdefault(key, name) == name, f"{word!r} names {seen[key]!r} and {name!r}"
                assert key not in words.OPTIONS or key == name, f"{word!r} is the English name of another option"
                assert words.option(_mixed(word)) == name
