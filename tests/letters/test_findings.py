"""What players noticed in whole games by mail (issue 26), each in the six languages where
words are involved: bots easy to find, wording that says what happened, subjects that fit."""

from __future__ import annotations

import pytest
from sqlmodel import Session

import pbem_engine
from pbem.core.wallclock import now
from pbem.games import players
from pbem.mail.message.notation import parse_subject
from pbem.text.i18n import LANGUAGES, speaker
from pbem.tournaments import tournament as T
from tests.mailer import compose
from tests.players import ALICE, BOB, flat

ALL = list(LANGUAGES)


def _speaks(server, address: str, language: str) -> None:
    with Session(server.engine) as session:
        players.get_or_register(session, address, now()).language = language
        session.commit()


def _squeezed(text: str) -> str:
    """Text without its blanks: a Chinese or Korean line may break anywhere, a wrap adds none."""
    return "".join(text.split())


def _holds(mail, said: str) -> bool:
    return _squeezed(said) in _squeezed(flat(mail))


# -- item 2: bots easy to find -------------------------------------------------------------------

@pytest.mark.parametrize("language", ALL)
@pytest.mark.parametrize("line", ["help", "help all"])
def test_help_tells_how_to_play_a_bot(server, language, line) -> None:
    _speaks(server, ALICE, language)
    server.send(compose(ALICE, line))
    said = speaker(language).gettext(
        'A bot will play you at any time, at level 1, 2 or 3: write e.g. "%(example)s".',
        example="challenge ataxx bot level=1")
    assert _holds(server.last(ALICE), said)


@pytest.mark.parametrize("language", ALL)
def test_the_challenge_mail_shows_the_time_control_board_size_and_target(server, language) -> None:
    _speaks(server, BOB, language)
    server.say(ALICE, f"challenge capturego {BOB} size=7 target=3 days=3 weekends=off")
    server.confirm(ALICE)
    talk = speaker(language)
    mail = server.last(BOB)
    described = talk.say(pbem_engine.create("capturego", {"size": 7, "target": 3}).describe())
    assert _holds(mail, described)  # "capture go 7x7, first to 3 captures", in the reader's words
    time_control = talk.ngettext("Time control: %(count)s day per move.", "Time control: %(count)s days per move.",
                                 3, count=3)
    assert _holds(mail, f"{time_control} {talk.gettext('Weekends off.')}")


@pytest.mark.parametrize("language", ALL)
def test_the_tournament_list_shows_the_board_size_and_target(server, language) -> None:
    with Session(server.engine) as session:
        T.create(session, "Autumn Cup", "roundrobin", "capturego", now(), options={"size": 13, "target": 2}, days=4)
        session.commit()
    _speaks(server, ALICE, language)
    server.send(compose(ALICE, "tournaments"))
    talk = speaker(language)
    mail = server.last(ALICE)
    assert _holds(mail, talk.say(pbem_engine.create("capturego", {"size": 13, "target": 2}).describe()))
    assert _holds(mail, "#1 Autumn Cup")


# -- item 4: wording ------------------------------------------------------------------------------

def _start(server, kind: str = "ataxx", options: str = "colour=first") -> None:
    """Game #1: Alice challenges Bob, Bob accepts (tests.players.start_game)."""
    from tests.players import start_game

    start_game(server, kind, options)


@pytest.mark.parametrize("language", ALL)
def test_a_conditional_answer_answered_in_turn_says_it_is_your_move(server, language) -> None:
    from sqlmodel import select

    from pbem.core.models import Conditional, Game

    _speaks(server, ALICE, language)
    _start(server)
    server.say(ALICE, "f2")
    server.say(ALICE, "if b1 then e1")
    with Session(server.engine) as session:  # Bob's line answers Alice's answer
        line = session.exec(select(Conditional)).one()
        session.add(Conditional(game_id=1, player_id=session.get(Game, 1).player1_id, ply=3, moves=["e1", "c1"],
                                raw="if e1 then c1", created_at=line.created_at))
        session.commit()
    before = len(server.mails(ALICE))
    server.say(BOB, "b1")
    (mail,) = server.mails(ALICE)[before:]
    talk = speaker(language)
    assert _holds(mail, talk.gettext(
        "%(name)s played %(move)s, and your conditional line answered it at once with %(answer)s. "
        "Then it was your move again, as below.", name="bob", move="b1", answer="e1"))
    you_played = talk.gettext("%(title)s: you played %(move)s", title=talk.gettext("Ataxx"), move="e1")
    assert you_played not in mail["Subject"]
    assert talk.gettext("%(title)s: your move, %(you)s (move %(number)s)", title=talk.gettext("Ataxx"), you="alice",
                        number=5) in mail["Subject"]
    on_move = talk.gettext("Now %(name)s (%(side)s) is on move; I will write to you when it is your turn.",
                           name="bob", side=talk.side("o"))
    assert not _holds(mail, on_move)


@pytest.mark.parametrize("language", ALL)
def test_a_take_back_request_that_lapses_is_reported_to_the_asker(server, language) -> None:
    _speaks(server, ALICE, language)
    _start(server)
    server.say(ALICE, "f2")
    server.say(ALICE, "takeback")
    server.answer(BOB, 1, "b1")  # Bob moves instead of answering
    said = speaker(language).gettext(
        "%(opponent)s moved instead of answering your request to take back %(move)s, so the request lapsed.",
        opponent="bob", move="f2")
    assert _holds(server.last(ALICE), said)


@pytest.mark.parametrize("language", ALL)
def test_an_accepted_take_back_keeps_the_askers_conditional_lines_to_the_asker(server, language) -> None:
    _speaks(server, ALICE, language)
    _speaks(server, BOB, language)
    _start(server)
    server.say(ALICE, "f2")
    server.say(ALICE, "if b1 then e1")
    server.say(ALICE, "takeback")
    server.answer(BOB, 1, "takeback accept")
    dropped = speaker(language).gettext(
        "The conditional moves waiting in this game were dropped: the position they answered is gone.")
    assert not _holds(server.last(BOB), dropped)  # Bob had none: Alice's lines are hers
    assert "b1" not in flat(server.last(BOB)).split()
    assert _holds(server.last(ALICE), dropped)


@pytest.mark.parametrize("language", ALL)
def test_the_last_movers_game_over_mail_says_you_won_and_offers_a_return_match(server, language) -> None:
    _speaks(server, ALICE, language)
    _start(server, "capturego", "size=5 target=1 colour=black")
    server.say(ALICE, "a2")
    server.answer(BOB, 1, "a1")
    server.answer(ALICE, 1, "b1")  # captures a1: Alice wins
    mail = server.last(ALICE)
    talk = speaker(language)
    title = talk.gettext("Capture Go")
    said = talk.gettext("%(title)s: game over, %(result)s, you won", title=title, result="1-0")
    subject = parse_subject(mail["Subject"]).text  # the title goes first when the subject is long
    assert subject in (said, said.removeprefix(title).lstrip(" :："))
    assert _holds(mail, talk.gettext("For a return match, write e.g.  %(example)s",
                                     example=f"challenge capturego {BOB}"))


@pytest.mark.parametrize("language", ALL)
def test_the_digest_of_one_game_says_answer_it(language) -> None:
    from pbem.text.templates import Templates

    talk = speaker(language)
    one = Templates().render("digest.txt", language, count=1, games=[], remarks=[]).body
    two = Templates().render("digest.txt", language, count=2, games=[], remarks=[]).body
    all_of_them = talk.gettext("You can answer them all in one reply to this mail: one line per game, each naming "
                               "its game as shown below.")
    it = talk.gettext("You can answer it in a reply to this mail: a line that names the game as shown below.")
    assert _squeezed(it) in _squeezed(one) and _squeezed(all_of_them) not in _squeezed(one)
    assert _squeezed(all_of_them) in _squeezed(two)


@pytest.mark.parametrize("language", ALL)
def test_a_square_written_number_first_gets_the_moves_error(server, language) -> None:
    _speaks(server, ALICE, language)
    _start(server)
    server.answer(ALICE, 1, "5c")
    talk = speaker(language)
    mail = server.last(ALICE)
    assert _holds(mail, talk.gettext('"{line}": a square is written letter then number, e.g. {square}.')
                  .format(line="5c", square="c5"))
    assert not _holds(mail, talk.gettext("I found no command in your mail"))


@pytest.mark.parametrize("language", ALL)
def test_a_myriades_square_alone_says_what_a_turn_is(server, language) -> None:
    _speaks(server, ALICE, language)
    _start(server, "myriades")
    server.answer(ALICE, 1, "e7")
    talk = speaker(language)
    mail = server.last(ALICE)
    assert not _holds(mail, talk.gettext('"{square}": a move needs a start and an end square, e.g. {example}.')
                      .format(square="e7", example="e7-e1"))
    assert _holds(mail, "17@e7")


@pytest.mark.parametrize("language", ALL)
def test_ok_to_a_challenge_names_accept_with_its_number(server, language) -> None:
    _speaks(server, BOB, language)
    server.say(ALICE, "help")
    server.say(ALICE, f"challenge ataxx {BOB}")
    server.confirm(ALICE)
    server.say(ALICE, f"challenge myriades {BOB}")  # a second one: the number must be the one answered
    server.say(BOB, "help")
    from tests.mailer import reply_to

    received = [m for m in server.mails(BOB) if m["Feedback-ID"].startswith("challenge_received:")][0]  # #1
    server.send(reply_to(BOB, received, "ok"))
    mail = server.last(BOB)
    talk = speaker(language)
    assert _holds(mail, talk.gettext("To play, reply with:   %(example)s", example="accept 1"))
    assert "challenge ataxx bob@example.org" not in flat(mail)


@pytest.mark.parametrize("language", [code for code in ALL if code != "en"])
def test_the_stats_mail_names_each_game_in_the_readers_language(server, language) -> None:
    _speaks(server, ALICE, language)
    _start(server, "capturego", "size=5 target=1 colour=black")
    server.say(ALICE, "a2")
    server.answer(BOB, 1, "a1")
    server.answer(ALICE, 1, "b1")  # a finished game: the stats count it
    server.say(ALICE, "stats")
    mail = server.last(ALICE)
    body = " ".join(mail.get_body(("plain",)).get_content().split())
    title = speaker(language).gettext("Capture Go")
    assert title != "Capture Go" and (f"{title}:" in body or f"{title}：" in body), body
    assert "Capture Go" not in body and "Capture Go" not in mail["Subject"]
