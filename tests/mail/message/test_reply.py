"""reply_text: the player's words survive, our quoted mail never does."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.message.reply import MARKER, reply_text

BOARD = """\
      a b c d e f g
    +---------------+
  7 | x . . . . . o | 7
  1 | o . . . . . x | 1
    +---------------+
Reply with your move on the first line, for example:
c4
or
a7-c6"""

OUR_MAIL = f"{MARKER}\n\nBob jumped b2-d4. Your move, Alice (x).\n\n{BOARD}\n"


def quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines()) + "\n"


def test_marker_is_the_documented_line():
    assert MARKER == "##- Please write your reply above this line -##"


def test_top_posted_above_unquoted_marker():
    assert reply_text(f"c4\n\n{OUR_MAIL}") == "c4"


def test_top_posted_above_quoted_marker():
    assert reply_text(f"a1-c3\n\n{quoted(OUR_MAIL)}") == "a1-c3"


@pytest.mark.parametrize(
    "marker",
    [
        "> ##- Please write your reply above this\n> line -##",
        "##- Please write your reply above\nthis line -##",
        "> ##-\n> Please write your reply above this line\n> -##",
        ">>  ##-  please  WRITE your reply above   this line  -##  ",
        "##-\u00a0Please write your reply above this line\u00a0-##",
    ],
)
def test_reflowed_quoted_or_respaced_marker(marker):
    body = f"17@d4\n\n{marker}\n\nunquoted leftover a7-c6\n" if not marker.startswith(">") else (
        f"17@d4\n\n{marker}\n> a7-c6\n"
    )
    assert reply_text(body) == "17@d4"


def test_answer_below_quoted_marker_is_kept():
    body = f"On Mon, 30 Nov 2026 at 10:00, pbem <game@pbem.example> wrote:\n{quoted(OUR_MAIL)}\naccept 12\n"
    assert reply_text(body) == "accept 12"


def test_answers_between_quotes_are_kept():
    body = "> Your move?\nc4\n> Anything else?\nhistory\n"
    assert reply_text(body) == "c4\nhistory"


def test_marker_on_reflowed_quote_leaves_no_fragment():
    body = "c4\n> ##- Please write your reply above this\nline -##\n> a7-c6\n"
    assert reply_text(body) == "c4"


ATTRIBUTIONS = [
    "On Mon, 30 Nov 2026 at 10:00, pbem <game@pbem.example> wrote:",
    "On Mon, 30 Nov 2026 at 10:00, pbem <game@pbem.example>\nwrote:",
    "On Mon, 30 Nov 2026 at 10:00, pbem <\ngame@pbem.example> wrote:",
    "On 30 Nov 2026, at 10:00, pbem <game@pbem.example> wrote:",
    "On 30/11/2026 10:00, pbem wrote:",
    "Am Mo., 30. Nov. 2026 um 10:00 Uhr schrieb pbem <game@pbem.example>:",
    "Am 30.11.2026 um 10:00 schrieb pbem:",
    "Le lun. 30 nov. 2026 à 10:00, pbem <game@pbem.example> a écrit :",
    "Le lun. 30 nov. 2026 à 10:00, pbem <game@pbem.example> a\nécrit :",
    "El lun, 30 nov 2026 a las 10:00, pbem (<game@pbem.example>) escribió:",
    "Il giorno lun 30 nov 2026 alle ore 10:00 pbem <game@pbem.example> ha scritto:",
    "Op ma 30 nov. 2026 om 10:00 schreef pbem <game@pbem.example>:",
    "Den mån 30 nov. 2026 kl 10:00 skrev pbem <game@pbem.example>:",
    "ma 30. marrask. 2026 klo 10.00 pbem <game@pbem.example> kirjoitti:",
    "W dniu 30.11.2026 o 10:00, pbem pisze:",
    "W dniu pon., 30.11.2026 o 10:00 pbem <game@pbem.example> napisał(a):",
    "Em seg., 30 de nov. de 2026 às 10:00, pbem <game@pbem.example> escreveu:",
    # issue 13, item 7: these were echoed back as "not commands"
    "30 нояб. 2026 г., в 10:00, pbem <game@pbem.example> написал:",
    "30 нояб. 2026 г., в 10:00, pbem <game@pbem.example> написал(а):",
    "30 нояб. 2026 г., в 10:00, pbem <\ngame@pbem.example> написал:",
    "30.11.2026 10:00, pbem пишет:",
    "пн, 30 нояб. 2026 г. в 10:00, pbem <game@pbem.example>:",
    "пн, 30 лист. 2026 р. о 10:00 pbem <game@pbem.example> написав:",
    "pbem <game@pbem.example> 于2026年11月30日周一 10:00写道：",
    "pbem <game@pbem.example> 於 2026年11月30日 週一 上午10:00寫道：",
    "pbem <game@pbem.example> 於 2026年11月30日 週一 上午10:00寫道:",
    "2026년 11월 30일 (월) 오전 10:00, pbem <game@pbem.example>님이 작성:",
    "30/11/2026 10:00, pbem <game@pbem.example> ha scritto:",
    "* pbem <game+g1-0123456789abcdef@pbem.example> [2026-11-30 10:00]:",
    "* Alice <alice@example.org> [2026-11-30 10:00]:",
    "* Alice <alice@example.org> [30.11.2026 10:00 +0100]:",
]


@pytest.mark.parametrize("attribution", ATTRIBUTIONS)
def test_reply_header_before_a_quote_is_dropped_top_posted(attribution):
    assert reply_text(f"c4\n\n{attribution}\n\n{quoted('a7-c6')}") == "c4"


@pytest.mark.parametrize("attribution", ATTRIBUTIONS)
def test_reply_header_before_a_quote_is_dropped_bottom_posted(attribution):
    assert reply_text(f"{attribution}\n{quoted('a7-c6')}\nc4\n") == "c4"


@pytest.mark.parametrize("attribution", ATTRIBUTIONS)
def test_reply_header_without_quote_marks_cuts_everything_after(attribution):
    assert reply_text(f"c4\n\n{attribution}\n\na7-c6\nresign\n") == "c4"


@pytest.mark.parametrize(
    "block",
    [
        "From: pbem <game@pbem.example>\nSent: Monday, November 30, 2026 10:00 AM\nTo: Alice\nSubject: Re: x",
        "________________________________\nFrom: pbem <game@pbem.example>\nSent: Monday, November 30, 2026 10:00",
        "Von: pbem <game@pbem.example>\nGesendet: Montag, 30. November 2026 10:00\nAn: Klaus\nBetreff: x",
        "De : pbem <game@pbem.example>\nEnvoyé : lundi 30 novembre 2026 10:00\nÀ : François\nObjet : x",
        "Da: pbem <game@pbem.example>\nInviato: lunedì 30 novembre 2026 10:00\nA: Gianni\nOggetto: x",
        "Från: pbem <game@pbem.example>\nSkickat: den 30 november 2026 10:00\nTill: Sven\nÄmne: x",
        "De: pbem <game@pbem.example>\nEnviado: lunes, 30 de noviembre de 2026 10:00\nPara: José",
        "From: pbem <game@pbem.example>\nDate: Mon, 30 Nov 2026 10:00\nSubject: x\nTo: Alice",
        "-----Original Message-----\nFrom: pbem [mailto:game@pbem.example]",
        "-----Ursprüngliche Nachricht-----\nVon: pbem",
        "-------- Original message --------\nFrom: pbem <game@pbem.example>",
        "---------- Forwarded message ---------\nFrom: pbem <game@pbem.example>",
        "Begin forwarded message:\n\nFrom: pbem <game@pbem.example>",
        # issue 13, item 7: Outlook's header block in more languages
        "От: pbem <game@pbem.example>\nОтправлено: 30 ноября 2026 г. 10:00\nКому: Иван\nТема: x",
        "*От:* pbem <game@pbem.example>\n*Отправлено:* 30 ноября 2026 г. 10:00",
        "Від: pbem <game@pbem.example>\nНадіслано: 30 листопада 2026 р. 10:00\nКому: Тарас",
        "Von: pbem <game@pbem.example>\nDatum: Montag, 30. November 2026 10:00\nAn: Klaus",
        "Da: pbem <game@pbem.example>\nData: lunedì 30 novembre 2026 10:00\nA: Gianni",
        "发件人: pbem <game@pbem.example>\n发送时间: 2026年11月30日 10:00\n收件人: 王\n主题: x",
        "发件人：pbem <game@pbem.example>\n日期：2026年11月30日 10:00",
        "寄件者: pbem <game@pbem.example>\n寄件日期: 2026年11月30日 上午 10:00",
        "差出人: pbem <game@pbem.example>\n送信日時: 2026年11月30日 10:00",
        "보낸 사람: pbem <game@pbem.example>\n보낸 날짜: 2026년 11월 30일 월요일 오전 10:00",
    ],
)
def test_outlook_blocks_and_separators_cut_everything_after(block):
    assert reply_text(f"a1-c3\n\nAlice\n\n{block}\n\n{OUR_MAIL}") == "a1-c3\n\nAlice"


def test_mutt_attribution_with_our_token_is_never_returned():
    """Bottom-posted under mutt's "* name <address> [date]:" line: the token in it stays out."""
    body = f"* pbem <game+g1-0123456789abcdef@pbem.example> [2026-11-30 10:00]:\n{quoted(OUR_MAIL)}\nc4\n"
    assert reply_text(body) == "c4"
    assert "0123456789abcdef" not in reply_text(f"c4\n\n{body}")


@pytest.mark.parametrize(
    "line",
    [
        "* I think c4 [is best]:",  # a list item of the player's own, no date in the brackets
        "Mario ha scritto: c4",  # not at the end of the line
        "Привет! Ход c4, а что ты написал:",  # no date or address
    ],
)
def test_sentences_like_the_new_attributions_are_kept(line):
    assert reply_text(f"{line}\nc4\n") == f"{line}\nc4"


def test_a_from_line_alone_is_not_a_quote_header():
    assert reply_text("From: my phone, sorry\nc4\n") == "From: my phone, sorry\nc4"


def test_ordinary_sentence_is_not_a_reply_header():
    assert reply_text("On second thought I wrote:\nc4\n") == "On second thought I wrote:\nc4"


@pytest.mark.parametrize("signature", ["-- ", "--"])
def test_signature_cut(signature):
    assert reply_text(f"b2-b4\n{signature}\nAlice\nc4\n") == "b2-b4"


def test_dashes_in_a_move_are_not_a_signature():
    assert reply_text("a1-c3\n---\nc4") == "a1-c3\n---\nc4"


@pytest.mark.parametrize("end", ["end", "END", "  End  "])
def test_end_line_stops_reading(end):
    assert reply_text(f"c4\n{end}\nresign\n") == "c4"


def test_end_inside_a_line_does_not_stop():
    assert reply_text("endgame soon\nc4") == "endgame soon\nc4"


@pytest.mark.parametrize(
    "footer",
    [
        "Sent from my iPhone",
        "Sent from my Galaxy",
        "Get Outlook for Android",
        "Von meinem iPhone gesendet",
        "Envoyé de mon iPhone",
        "Enviado desde mi iPhone",
        "Inviato da iPhone",
        "Verzonden vanaf mijn iPhone",
        "Skickat från min iPhone",
    ],
)
def test_trailing_mobile_footer_dropped(footer):
    assert reply_text(f"c4\n\n{footer}\n\n") == "c4"


def test_mobile_footer_only_dropped_at_the_end():
    assert reply_text("Sent from my iPhone\nc4") == "Sent from my iPhone\nc4"


def test_whitespace_and_line_endings_normalised():
    assert reply_text("\r\n\r\n  c4   \r\n\tresign\t\r\n\r\n") == "  c4\n\tresign"


def test_empty_and_quote_only_bodies():
    assert reply_text("") == ""
    assert reply_text(quoted(OUR_MAIL)) == ""
    assert reply_text(OUR_MAIL) == ""


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_raises_and_output_is_clean(body):
    text = reply_text(body)
    lines = text.split("\n")
    assert not any(line.lstrip(" \t").startswith(">") for line in lines)
    assert all(line == line.rstrip() for line in lines)
    assert text == "" or (lines[0].strip() and lines[-1].strip())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([MARKER, "> " + MARKER, "c4", "", "> a7-c6", "-- ", "end", "On 1 Jan 2026, x wrote:",
                                 "From: a@b", "Sent: now", "##-", "-##", "> ", "Sent from my iPhone"]), max_size=30))
def test_never_raises_on_structured_noise(lines):
    text = reply_text("\n".join(lines))
    assert MARKER not in text
    assert "a7-c6" not in text


@pytest.mark.parametrize(
    "block",
    [
        # GMX and Web.de: Sent before From
        'Gesendet: Montag, 30. November 2026 um 10:00 Uhr\nVon: "pbem" <game@pbem.example>\nAn: klaus@gmx.de',
        "Sent: Monday, November 30, 2026 at 10:00 AM\nFrom: pbem <game@pbem.example>",
        # Outlook's rule above a header block in a language we have no words for
        "________________________________\nKüldő: pbem <game@pbem.example>\nDátum: 2026. november 30.",
        "________________________________\n\n*Gönderen:* pbem <game@pbem.example>",
    ],
)
def test_header_blocks_in_any_order_or_language_cut_everything_after(block):
    assert reply_text(f"a1-c3\n\n{block}\n\nc4\n\n{BOARD}") == "a1-c3"


FLATTENED_AXES = [
    "      a b c d e f g",  # our ASCII board
    "\ta\tb\tc\td\te\tf\tg",  # a table, cells joined by tabs
    "| a | b | c | d | e |",
    "A B C D E F G H J K L M N O P Q R S T",  # Go's axis skips I
    "a\nb\nc\nd\ne\nf\ng",  # a table flattened one cell a line
    "a\n\nb\n\nc\n\nd",
]


@pytest.mark.parametrize("axis", FLATTENED_AXES)
def test_a_boards_axis_ends_the_reply(axis):
    """A quoted board with nothing else to show it is quoted (no marker, header or `>`)."""
    assert reply_text(f"b2-c3\n\n{axis}\n7\nx\no\n7\nc4\nchallenge ataxx bob@example.org\n") == "b2-c3"


@pytest.mark.parametrize(
    "text",
    ["a b c", "a\nb\nc", "a b d e", "a B c d", "a bc d e", "a1 b2 c3 d4", "a\nc4\nb\nc\nd", "a la carte\nb\nc\nd"],
)
def test_what_is_no_axis_is_kept(text):
    assert reply_text(f"c4\n{text}\n") == f"c4\n{text}"


@pytest.mark.parametrize(
    "attribution",
    [
        "pbem <game+7f3a9c2e41d0b8a5@pbem.example> ezt írta (időpont: 2026. nov. 30., H, 10:00):",
        "pbem <game+7f3a9c2e41d0b8a5@pbem.example> ezt írta (időpont: 2026. nov.\n30., H, 10:00):",
        "2026. 11. 30. 10:00 keltezéssel, pbem írta:",
        "pbem <game+7f3a9c2e41d0b8a5@pbem.example>, 30 Kas 2026 Pzt, 10:00 tarihinde şunu yazdı:",
    ],
)
def test_a_reply_header_in_unknown_words_before_a_quote_goes_with_it(attribution):
    for body in (f"c4\n\n{attribution}\n{quoted(OUR_MAIL)}", f"{attribution}\n\n{quoted(OUR_MAIL)}\nc4\n"):
        assert reply_text(body) == "c4"
        assert "7f3a9c2e41d0b8a5" not in reply_text(body)


@pytest.mark.parametrize(
    "line",
    [
        "challenge ataxx bob@example.org",  # right above a header of its own, with no blank line
        "a7-c6, as on 30 Nov 2026 at 10:00",
    ],
)
def test_a_players_line_above_an_unknown_header_is_kept(line):
    body = f"{line}\n2026. 11. 30. 10:00 keltezéssel, pbem írta:\n{quoted(OUR_MAIL)}"
    assert reply_text(body) == line


@pytest.mark.parametrize("line", ["Look at this:", "My move is at 10:00:", "Since 2026:"])
def test_a_line_ending_in_a_colon_before_a_quote_is_kept_unless_it_is_dated_or_addressed(line):
    assert reply_text(f"c4\n{line}\n> a7-c6\n") == f"c4\n{line}"


def test_an_addressed_line_ending_in_a_colon_before_a_quote_goes_with_it():
    """The price of the rule above: such a line is taken for a reply header (it holds no command)."""
    assert reply_text("c4\nI wrote to bob@example.org:\n> a7-c6\n") == "c4"


@pytest.mark.parametrize(
    "block",
    [
        "Od: pbem <game+7f3a9c2e41d0b8a5@pbem.example>\nOdesláno: 30. listopadu 2026 10:00\nKomu: Alice\nPředmět: x",
        "*Lähettäjä:* pbem <game+7f3a9c2e41d0b8a5@pbem.example>\n*Lähetetty:* 30. marraskuuta 2026\n*Vastaanottaja:* A",
        "Nadawca: pbem <game+7f3a9c2e41d0b8a5@pbem.example>\nWysłane: poniedziałek\nDo: Alice\nTemat: x",
    ],
)
def test_a_header_block_in_unknown_words_cuts_everything_after(block):
    """Outlook for Windows puts no rule above it: three header lines, one with an address, suffice."""
    body = f"c4\n\n{block}\n\n{OUR_MAIL}"
    assert reply_text(body) == "c4"
    assert reply_text(body.replace(MARKER, "")) == "c4"


@pytest.mark.parametrize(
    "text",
    [
        "Note: c4 is forced\nAsk: bob@example.org",  # two lines are not a block
        "Note: c4 is forced\nPlan: take the corner\nThen: the edge",  # no address
        "Me: c4\nYou: a7-c6\nMe: resign",  # repeated labels: a dialogue, not a header
        "From: me\nTo: you\nRe: the game",  # no address
    ],
)
def test_label_lines_of_the_players_own_are_kept(text):
    assert reply_text(f"c4\n{text}\n") == f"c4\n{text}"
