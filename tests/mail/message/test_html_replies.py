"""Replies to our HTML mails, as seven clients quote them: only the player's own line is read.

The quoted mail holds a board table, example commands in `<code>` (one alone on its line, a whole
`challenge` command in a `<pre>`), the footer and the player's token in the attribution; none of it
may come back as a command, as a line "that was not a command", or as an echo of the token.
"""

from dataclasses import replace

import pytest

from pbem.commands.lines.reader import read
from pbem.mail.message.inbound import parse_message
from tests.mail.message.html_replies import CASES, FIXTURES, MOVE, OurMail, fixtures, reply

OWN = ("game@pbem.example",)
TOKEN = "7f3a9c2e41d0b8a5"
QUOTED = ("a7-c6", "challenge", "c4", "help", "Deadline", "Game #42", "##-", "\u25cf", "\u25cb", "pbem", TOKEN)


def text_of(raw: bytes) -> str:
    env = parse_message(raw, own_addresses=OWN)
    assert env.automatic is None and not env.garbled
    return env.text


def test_fixture_files_are_what_the_helper_makes():
    """The .eml files are there to be opened in a mail client; they must not drift from the helper."""
    made = fixtures()
    assert sorted(p.name for p in FIXTURES.glob("*.eml")) == sorted(made)
    for name, data in made.items():
        assert (FIXTURES / name).read_bytes() == data, f"run python -m tests.mail.message.html_replies ({name})"


def test_our_mail_holds_what_a_reply_must_not_read():
    """The traps are really in the mail being quoted (else the tests below prove nothing)."""
    reading = read("", OurMail().text())
    commands = [line.text for line in reading.lines]
    assert {"c4", "challenge ataxx bob@example.org"} <= set(commands)
    html = OurMail().html()
    assert "<table" in html and "<code>c4</code>" in html and "-- <br>" in html


@pytest.mark.parametrize("marker", [True, False], ids=["marker", "no-marker"])
@pytest.mark.parametrize("client, form", CASES)
def test_the_players_line_alone_is_read(client, form, marker):
    move = MOVE.get(client, "b2-c3")
    mail = replace(OurMail(), marker=marker)
    text = text_of(reply(client, form, move, mail))
    assert text == move
    reading = read(f"Re: {mail.subject}", text)
    assert [line.text for line in reading.lines] == [move]
    assert reading.ignored == []


@pytest.mark.parametrize("marker", [True, False], ids=["marker", "no-marker"])
@pytest.mark.parametrize("client, form", CASES)
def test_a_reply_with_only_the_quote_reads_nothing(client, form, marker):
    mail = replace(OurMail(), marker=marker)
    text = text_of(reply(client, form, "", mail))
    assert text == ""
    reading = read(f"Re: {mail.subject}", text)
    assert reading.lines == [] and reading.ignored == []


@pytest.mark.parametrize("client, form", CASES)
def test_a_longer_reply_keeps_the_players_words_and_nothing_quoted(client, form):
    top = "b2-c3\n\nThat corner is mine now, Bob."
    text = text_of(reply(client, form, top))
    assert text.replace("\n\n", "\n") == top.replace("\n\n", "\n")
    for quoted in QUOTED:
        assert quoted not in text


@pytest.mark.parametrize("client, form", CASES)
def test_the_committed_fixture_reads_the_same(client, form):
    move = MOVE.get(client, "b2-c3")
    assert text_of((FIXTURES / f"{client}_{form}.eml").read_bytes()) == move
    assert text_of((FIXTURES / f"{client}_{form}_empty.eml").read_bytes()) == ""


@pytest.mark.parametrize("form", ["html", "alternative"])
def test_a_mail_pasted_without_any_header_is_cut_at_our_marker(form):
    assert text_of(reply("pasted", form, "b2-c3")) == "b2-c3"


@pytest.mark.parametrize("form", ["html", "alternative"])
def test_without_marker_or_header_the_flattened_board_still_ends_the_reply(form):
    """The last line of defence: the board's axis of column letters starts the quote, so no cell,
    no example command and no footer below it is read; only the sentence above the board is left."""
    text = text_of(reply("pasted", form, "b2-c3", replace(OurMail(), marker=False)))
    reading = read("", text)
    assert [line.text for line in reading.lines] == ["b2-c3"]
    assert reading.ignored == ["Bob jumped b2-d4 and took 3 of your pieces. Your move, Alice (\u25cf)."]


@pytest.mark.parametrize("top", ["b2-c3", ""], ids=["move", "empty"])
@pytest.mark.parametrize("client, form", CASES)
def test_a_client_in_a_language_we_have_no_words_for(client, form, top):
    """A Hungarian attribution, and no marker in our mail: in HTML only the quote containers, in
    text only the `>` marks, Outlook's rule and the board's axis show where the quote starts."""
    mail = replace(OurMail(), marker=False)
    text = text_of(reply(client, form, top, mail, lang="hu"))
    assert text == top
    assert read(f"Re: {mail.subject}", text).ignored == []
