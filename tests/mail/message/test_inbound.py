"""parse_message on mail as real clients send it, on robots, and on garbage."""

import email
import hashlib
from email.message import Message
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.mail.message.inbound import (
    MAX_TEXT_BYTES,
    Envelope,
    clean_subject,
    decode_text,
    html_to_text,
    parse_message,
    unwrap_flowed,
)
from pbem.mail.message.robots import REASONS

FIXTURES = Path(__file__).parent / "fixtures"
TOKEN = "game+7f3a9c2e41d0b8a5@pbem.example"
OWN = ("game@pbem.example",)
ATAXX = "[pbem #42] Ataxx: your move, Alice (move 12)"
MYRIADES = "[pbem #57] Myriades: your move, Bob (turn 24)"
INVITE = "[pbem] Alice challenges you to Ataxx (#12)"


def load(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def parse(raw: bytes, **kwargs) -> Envelope:
    kwargs.setdefault("own_addresses", OWN)
    return parse_message(raw, **kwargs)


# name: (sender, subject, automatic, text)
EXPECTED = {
    "gmail.eml": ("alice.liddell@gmail.com", ATAXX, None, "c4"),
    "gmail_de.eml": ("juergen.mueller@gmail.com", MYRIADES, None, "17@d4\n\nViele Grüße\nJürgen"),
    "gmail_fr.eml": (
        "elodie.martin@gmail.com",
        INVITE,
        None,
        "challenge ataxx bob@example.org\n\nÀ toi de jouer !",
    ),
    "gmail_es.eml": ("maria.garcia@gmail.com", ATAXX, None, "a7-c6\n\nSaludos,\nMaría"),
    "outlook.eml": ("alice@example.org", ATAXX, None, "a1-c3\n\nThat’s a nasty jump – well played, Bob.\nAlice"),
    "outlook_de.eml": ("klaus.weiss@example.de", ATAXX, None, "c4\n\nMit freundlichen Grüßen\nKlaus Weiß"),
    "outlook_fr.eml": ("francois.lefevre@example.fr", INVITE, None, "accept 12\n\nBien cordialement,\nFrançois"),
    "outlook_es.eml": ("jose.perez@example.es", MYRIADES, None, "f8-f5 xb9 4@a1\n\nUn saludo,\nJosé"),
    "outlook_original.eml": ("bob.stone@example.com", MYRIADES, None, "17@d4\n\nBob"),
    "apple_iphone.eml": (
        "alice@icloud.com",
        ATAXX,
        None,
        "a1-c3\n\nI think this jump takes the corner, and Bob will have a hard time getting it back after that.",
    ),
    "thunderbird.eml": ("alice@example.org", ATAXX, None, "a1-c3\n\nYour corner is mine now, Bob."),
    "mutt.eml": ("carol@example.net", INVITE, None, "accept 12"),
    "html_only.eml": ("dave@example.com", INVITE, None, "challenge ataxx bob@example.org\n\nCheers,\nDave"),
    "quoted_printable.eml": (
        "bob@example.net",
        MYRIADES,
        None,
        "f8-f5 xb9 4@a1\n\nI’m neutralising your 9 on b9 before it grows into something I can’t handle any"
        " more — sorry, Alice!",
    ),
    "base64.eml": ("bob@example.net", MYRIADES, None, "17@d4"),
    "latin1.eml": ("juergen@example.de", ATAXX, None, "c4\n\nViele Grüße aus Köln\nJürgen"),
    "mislabelled.eml": ("elodie@example.fr", ATAXX, None, "a1-c3\n\nJ'espère que ça marche, à bientôt !\nÉlodie"),
    "rfc2047_b.eml": ("juergen@example.de", "[pbem #57] Myriades: your move, Jürgen (turn 24) ♟", None, "4@a1"),
    "rfc2047_q.eml": ("juergen@example.de", "[pbem #42] Ataxx: Zug für Jürgen (move 12)", None, "a7-c6\n\nGrüße"),
    "attachment_only.eml": ("bob@example.net", "board photo", None, ""),
    "bounce.eml": (
        "mailer-daemon@mx.example.org",
        "Undelivered Mail Returned to Sender",
        "bounce",
        "This is the mail system at host mx.example.org.\n\n"
        "I'm sorry to have to inform you that your message could not\n"
        "be delivered to one or more recipients.\n\n"
        "<nobody@example.org>: host mx.example.org[192.0.2.25] said: 550 5.1.1\n"
        "    <nobody@example.org>: Recipient address rejected: User unknown",
    ),
    "vacation.eml": (
        "alice@example.org",
        f"Auto: {ATAXX}",
        "auto-reply",
        "I am on holiday until 14 December and will answer then.\n\nc4",
    ),
    "out_of_office.eml": (
        "klaus.weiss@example.de",
        f"Automatische Antwort: {ATAXX}",
        "auto-reply",
        "Ich bin bis zum 14.12. nicht im Büro.\nc4",
    ),
    "mailing_list.eml": (
        "dave@example.com",
        "[pbem-players] Re: Who wants a game?",
        "list",
        "challenge ataxx bob@example.org\n\nAnyone else fancy a game?\n\n"
        "_______________________________________________\n"
        "pbem-players mailing list -- pbem-players@lists.example.org\n"
        "To unsubscribe send an email to pbem-players-leave@lists.example.org",
    ),
}


def test_every_fixture_has_expectations():
    assert sorted(p.name for p in FIXTURES.glob("*.eml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture(name):
    sender, subject, automatic, text = EXPECTED[name]
    raw = load(name)
    env = parse(raw)
    assert env.sender == sender
    assert env.subject == subject
    assert env.automatic == automatic
    assert env.text == text
    assert env.size == len(raw)
    assert env.digest == hashlib.sha256(raw).hexdigest()


REPLIES = [n for n, (_s, _subj, auto, text) in EXPECTED.items() if auto is None and text]


@pytest.mark.parametrize("name", REPLIES)
def test_quoted_marker_and_example_commands_are_in_the_mail_but_not_in_the_text(name):
    texts = [
        decode_text(part.get_payload(decode=True), part.get_content_charset())
        for part in email.message_from_bytes(load(name)).walk()
        if part.get_content_maintype() == "text"
    ]
    mail_text = " ".join(" ".join(t.split()) for t in texts)  # undo wrapping and flowed breaks
    assert "write your reply above this line" in mail_text
    assert any(example in mail_text for example in ("a7-c6", "4@a1", "decline 12"))
    env = parse(load(name))
    for quoted in ("+---", "##-", "Deadline", "decline 12", "history", "| 7", "or just"):
        assert quoted not in env.text
    if "a7-c6" not in EXPECTED[name][3]:
        assert "a7-c6" not in env.text


@pytest.mark.parametrize(
    "name, html_text",
    [
        ("gmail.eml", "c4"),
        ("gmail_de.eml", "17@d4\n\nViele Grüße\nJürgen"),
        ("outlook.eml", "a1-c3\n\nThat’s a nasty jump – well played, Bob.\nAlice"),
        ("outlook_fr.eml", "accept 12\n\nBien cordialement,\nFrançois"),
        ("apple_iphone.eml", EXPECTED["apple_iphone.eml"][3]),
        ("thunderbird.eml", "a1-c3\n\nYour corner is mine now, Bob."),
    ],
)
def test_html_alternative_alone_gives_the_same_reply(name, html_text):
    """Drop the text/plain alternative: the HTML path (quote containers removed) must agree."""
    msg = email.message_from_bytes(load(name))
    msg.set_payload([p for p in msg.get_payload() if p.get_content_type() != "text/plain"])
    assert parse(msg.as_bytes()).text == html_text


def test_gmail_envelope_fields():
    env = parse(load("gmail.eml"))
    assert env.message_id == "<CAJ8f3kV0q2Lw+ZbN3kUu1pY0nQ7Xo9hE5t6mX1r=Yq4aF8cM2w@mail.gmail.com>"
    assert env.sender_name == "Alice Liddell"
    assert env.recipients == (TOKEN,)
    assert env.in_reply_to == "<pbem.42.12.alice@pbem.example>"
    assert env.references == ("<pbem.42.11.alice@pbem.example>", "<pbem.42.12.alice@pbem.example>")
    assert env.return_path == "<alice.liddell@gmail.com>"
    assert env.header("SUBJECT") == f"Re: {ATAXX}"
    assert ("Delivered-To", TOKEN) in env.headers


def test_decoded_display_names_and_return_path_of_bounce():
    assert parse(load("outlook_fr.eml")).sender_name == "François Lefèvre"
    assert parse(load("rfc2047_b.eml")).sender_name == "Jürgen Schröder"
    assert parse(load("bounce.eml")).return_path == "<>"


def test_mailing_list_recipients_include_cc():
    env = parse(load("mailing_list.eml"))
    assert env.recipients == ("pbem-players@lists.example.org", TOKEN)


# --- building mails for focused tests --------------------------------------------------------------


def mail(headers: dict[str, str] | None = None, body: str = "c4\n", *, drop: tuple[str, ...] = ()) -> bytes:
    base = {
        "From": "Alice <alice@example.org>",
        "To": TOKEN,
        "Subject": f"Re: {ATAXX}",
        "Message-ID": "<m1@example.org>",
    }
    base.update(headers or {})
    lines = [f"{k}: {v}" for k, v in base.items() if k not in drop]
    return ("\r\n".join(lines) + "\r\n\r\n" + body).encode("utf-8")


@pytest.mark.parametrize(
    "headers, reason",
    [
        ({"Auto-Submitted": "auto-generated"}, "auto-submitted"),
        ({"auto-submitted": "Auto-Replied; owner-email=x@y"}, "auto-submitted"),
        ({"Auto-Submitted": "no"}, None),
        ({"AUTO-SUBMITTED": " No "}, None),
        ({"Return-Path": "<>"}, "bounce"),
        ({"Return-Path": "<alice@example.org>"}, None),
        ({"From": "Mail Delivery Subsystem <MAILER-DAEMON@mx.example.org>"}, "bounce"),
        ({"From": "postmaster@example.org"}, "bounce"),
        ({"From": "MAILER-DAEMON (Mail Delivery System)"}, "bounce"),
        # a read receipt is not a bounce (issue 11): never answered, never recorded as a failure
        ({"Content-Type": 'multipart/report; report-type=disposition-notification; boundary="b"'}, "receipt"),
        ({"Content-Type": "text/plain; report-type=delivery-status"}, "bounce"),
        ({"X-Autoreply": "yes"}, "auto-reply"),
        ({"X-Autorespond": "Out of office"}, "auto-reply"),
        ({"X-Auto-Response-Suppress": "All"}, None),
        ({"Subject": "Out of Office: " + ATAXX}, "auto-reply"),
        ({"Subject": "Automatic reply: " + ATAXX}, "auto-reply"),
        ({"Subject": "Autosvar: " + ATAXX}, "auto-reply"),
        ({"Subject": "Abwesenheitsnotiz: " + ATAXX}, "auto-reply"),
        ({"Subject": "Re: out of office games are fun"}, None),
        ({"Precedence": "bulk"}, "list"),
        ({"Precedence": "JUNK"}, "list"),
        ({"Precedence": "list"}, "list"),
        ({"Precedence": "first-class"}, None),
        ({"List-Id": "<players.lists.example.org>"}, "list"),
        ({"list-unsubscribe": "<mailto:leave@lists.example.org>"}, "list"),
        ({"X-PBEM-Loop": "pbem.example"}, "loop"),
        ({"x-pbem-loop": "1"}, "loop"),
        ({"From": "pbem <GAME+abc123@PBEM.example>"}, "own"),
        ({"From": "game@pbem.example"}, "own"),
        ({"From": "Alice <alice@example.org>, Bob <bob@example.org>"}, "no-sender"),
        ({"From": "not an address"}, "no-sender"),
    ],
)
def test_automatic(headers, reason):
    assert parse(mail(headers)).automatic == reason


def test_no_from_at_all():
    env = parse(mail(drop=("From",)))
    assert (env.sender, env.sender_name, env.automatic) == ("", "", "no-sender")


def test_two_from_addresses_leave_no_sender():
    env = parse(mail({"From": "a@example.org, b@example.org"}))
    assert env.sender == ""


def test_custom_loop_header_and_no_own_addresses():
    raw = mail({"X-Game-Loop": "yes", "From": "game@pbem.example"})
    assert parse_message(raw, loop_header="x-game-loop").automatic == "loop"
    assert parse_message(mail({"From": "game@pbem.example"})).automatic is None


@pytest.mark.parametrize(
    "subject, clean",
    [
        ("Re: Fwd: RE: FW: x", "x"),
        ("Re[2]: x", "x"),
        ("RE(3): x", "x"),
        ("AW: WG: Aw: x", "x"),
        ("SV: VS: Sv: x", "x"),
        ("Antw: Rif: R: TR: Odp: x", "x"),
        ("RE : TR : x", "x"),
        ("回复：x", "x"),
        ("  Re:   [pbem #42]   Ataxx:\t your  move ", "[pbem #42] Ataxx: your move"),
        ("Reply to me", "Reply to me"),
        ("Rex: x", "Rex: x"),
        ("[pbem #42] Re: x", "[pbem #42] Re: x"),
    ],
)
def test_subject_prefixes(subject, clean):
    assert clean_subject(subject) == clean


def test_encoded_and_raw_8bit_subjects():
    assert parse(mail({"Subject": "=?UTF-8?B?UmU6IEdyw7zDn2U=?="})).subject == "Grüße"
    assert parse(mail({"Subject": "Re: =?iso-8859-1?Q?Gr=FC=DFe?= aus K=?bogus?Q?=F6ln?="})).subject.startswith(
        "Grüße aus K"
    )
    raw_utf8 = mail({"Subject": "Re: Grüße"})
    assert parse(raw_utf8).subject == "Grüße"
    raw_latin1 = mail({"Subject": "Re: x"}).replace(b"Re: x", "Re: Grüße".encode("latin-1"))
    assert parse(raw_latin1).subject == "Grüße"


def test_message_id_missing_or_empty_is_generated_from_the_bytes():
    raw = mail(drop=("Message-ID",))
    assert parse(raw).message_id == f"<{hashlib.sha256(raw).hexdigest()}@pbem.invalid>"
    raw = mail({"Message-ID": "   "})
    assert parse(raw).message_id == f"<{hashlib.sha256(raw).hexdigest()}@pbem.invalid>"
    assert parse(mail({"Message-ID": " <abc@x>  (comment)"})).message_id == "<abc@x>"


def test_references_then_in_reply_to():
    env = parse(mail({"References": "<a@x>\r\n <b@x> <a@x>", "In-Reply-To": "<c@x> (Alice's message)"}))
    assert env.references == ("<a@x>", "<b@x>", "<c@x>")
    assert env.in_reply_to == "<c@x>"
    env = parse(mail({"References": "<a@x> <c@x>", "In-Reply-To": "<c@x>"}))
    assert env.references == ("<a@x>", "<c@x>")
    assert parse(mail()).in_reply_to is None


def test_recipients_from_all_address_headers_lower_cased_once():
    env = parse(
        mail(
            {
                "To": "Game <Game+Tok@PBEM.example>, bob@example.org",
                "Cc": "carol@example.org, BOB@example.org",
                "Delivered-To": "game+tok@pbem.example",
                "X-Original-To": "game+tok@pbem.example",
            }
        )
    )
    assert env.recipients == ("game+tok@pbem.example", "bob@example.org", "carol@example.org")


# --- bodies ----------------------------------------------------------------------------------------


def multipart(*parts: str, subtype: str = "mixed", headers: str = "") -> bytes:
    body = "".join(f"--b\r\n{p}\r\n" for p in parts) + "--b--\r\n"
    head = f"From: a@example.org\r\nMIME-Version: 1.0\r\n{headers}Content-Type: multipart/{subtype}; boundary=b\r\n\r\n"
    return (head + body).encode("utf-8")


def test_text_inside_an_attached_message_is_not_the_reply():
    raw = multipart(
        "Content-Type: message/rfc822\r\n\r\nFrom: x@y\r\nContent-Type: text/plain\r\n\r\nresign\r\n",
        "Content-Type: text/html; charset=utf-8\r\n\r\n<p>a1-c3</p><blockquote>c4</blockquote>",
    )
    assert parse(raw).text == "a1-c3"


def test_inline_text_with_a_filename_is_an_attachment():
    raw = multipart(
        'Content-Type: text/plain; name="moves.txt"\r\nContent-Disposition: inline; filename="moves.txt"\r\n\r\nresign',
        "Content-Type: text/plain\r\n\r\nc4",
    )
    assert parse(raw).text == "c4"


def test_empty_text_part_falls_back_to_html():
    raw = multipart("Content-Type: text/plain\r\n\r\n  \r\n", "Content-Type: text/html\r\n\r\n<div>c4</div>",
                    subtype="alternative")
    assert parse(raw).text == "c4"


def test_outlook_desktop_html_header_block_is_cut_after_conversion():
    html = (
        '<div class=WordSection1><p class=MsoNormal>c4<o:p></o:p></p><p class=MsoNormal>Klaus</p>'
        '<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">'
        "<p class=MsoNormal><b>Von:</b> pbem &lt;game@pbem.example&gt; <br><b>Gesendet:</b> Montag, 30. November"
        " 2026 10:00<br><b>An:</b> Klaus<br><b>Betreff:</b> x</p></div><p class=MsoNormal>a7-c6</p></div>"
    )
    raw = mail({"Content-Type": "text/html; charset=utf-8"}, html)
    assert parse(raw).text == "c4\n\nKlaus"


@pytest.mark.parametrize(
    "html, text",
    [
        ('<div>c4</div><div class="gmail_quote"><div>On Mon wrote:</div>a7-c6</div>', "c4"),
        ('<p>c4</p><div class="moz-cite-prefix">On x wrote:</div><blockquote type="cite">a7-c6</blockquote><p>ok</p>',
         "c4\n\nok"),
        ('<div>c4</div><div id="appendonsend"></div><hr><div id="divRplyFwdMsg">From: x</div><div>a7-c6</div>', "c4"),
        ('<div><div>c4</div><div id="divRplyFwdMsg"><b>From:</b> x</div><p>a7-c6</p></div><p>resign</p>', "c4"),
        ("<p>Gr&uuml;&szlig;e</p>", "Grüße"),
        ('<?xml version="1.0" encoding="utf-8"?><html><body>c4</body></html>', "c4"),
        ("", ""),
        ("<<<>>>", "<<<>>>"),
    ],
)
def test_html_to_text_removes_quote_containers(html, text):
    assert html_to_text(html).strip() == text


@pytest.mark.parametrize(
    "data, charset, text",
    [
        ("Grüße".encode(), "utf-8", "Grüße"),
        ("Grüße".encode("latin-1"), "iso-8859-1", "Grüße"),
        ("Grüße".encode("latin-1"), "utf-8", "Grüße"),  # mislabelled
        ("Grüße".encode(), "iso-8859-1", "Grüße"),  # UTF-8 under a Latin-1 label
        ("Grüße".encode(), None, "Grüße"),
        ("Grüße".encode(), "x-no-such-charset", "Grüße"),
        ("Grüße".encode("latin-1"), "base64", "Grüße"),
        ("Привет, ход c4".encode("koi8_r"), "koi8-r", "Привет, ход c4"),
        ("c4".encode("utf-16"), "utf-16", "c4"),
    ],
)
def test_decode_text(data, charset, text):
    assert decode_text(data, charset) == text


def test_truncated_multibyte_character_at_the_cut_is_not_an_error():
    data = "ü".encode()
    assert decode_text(b"c4 " + data[:1], "utf-8", truncated=True) == "c4 "


def test_huge_body_is_truncated_before_cutting():
    body = "c4\n" + "é" * (3 * MAX_TEXT_BYTES)
    env = parse(mail({"Content-Type": "text/plain; charset=utf-8"}, body))
    assert env.text.startswith("c4\néé")
    assert len(env.text.encode()) <= MAX_TEXT_BYTES
    assert set(env.text[3:]) == {"é"}


def test_flowed_body_is_unwrapped_before_cutting():
    body = "a1-c3 is my \r\nmove.\r\n\r\n> On 30 Nov 2026, at 10:00, pbem \r\n> wrote:\r\n> c4\r\n"
    raw = mail({"Content-Type": "text/plain; charset=utf-8; format=flowed"}, body)
    assert parse(raw).text == "a1-c3 is my move."
    raw = mail({"Content-Type": "text/plain; charset=utf-8; format=flowed; delsp=yes"}, "a1-c3 is my  \r\nmo \r\nve.")
    assert parse(raw).text == "a1-c3 is my move."


@pytest.mark.parametrize(
    "flowed, delsp, text",
    [
        ("one \ntwo \nthree\nfour", False, "one two three\nfour"),
        ("one \ntwo", True, "onetwo"),
        ("one  \ntwo", True, "one two"),
        ("> quoted \n> more\nnot", False, "> quoted more\nnot"),
        ("> depth one \n>> depth two\n", False, "> depth one \n>> depth two\n"),
        (" From stuffed\n  two spaces", False, "From stuffed\n two spaces"),
        ("text \n-- \nsig", False, "text \n-- \nsig"),
        ("trailing \n", False, "trailing "),
        ("", False, ""),
    ],
)
def test_unwrap_flowed(flowed, delsp, text):
    assert unwrap_flowed(flowed, delsp=delsp) == text


# --- garbage ---------------------------------------------------------------------------------------


def check_envelope(env: Envelope, raw: bytes) -> None:
    assert isinstance(env, Envelope)
    assert env.size == len(raw)
    assert env.digest == hashlib.sha256(raw).hexdigest()
    assert env.message_id.startswith("<") and env.message_id.endswith(">")
    strings = [env.message_id, env.sender, env.sender_name, env.subject, env.text, *env.recipients,
               *env.references, *(s for pair in env.headers for s in pair)]
    for s in strings:
        assert isinstance(s, str) and "\x00" not in s
        s.encode("utf-8")  # no lone surrogates
    assert env.sender == env.sender.lower()
    assert env.automatic is None or env.automatic in REASONS


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00\xff\xfe",
        b"From: \r\n\r\n",
        b"Subject: =?utf-8?B?####?= =?x?Q?=ZZ?=\r\n\r\nbody",
        b"Content-Type: text/plain; charset=\"\x00\"\r\n\r\nc4",
        b"Content-Type: text/plain; charset=rot13\r\n\r\nc4",
        b"Content-Type: multipart/mixed\r\n\r\nno boundary at all",
        b"Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!!\r\n",
        b"Subject: " + b"a" * 2_000_000 + b"\r\n\r\nc4",
        b"From: " + b"a@b, " * 50_000 + b"\r\n\r\nc4",
    ],
)
def test_malformed_mail_degrades(raw):
    check_envelope(parse(raw), raw)


def test_deeply_nested_multipart_keeps_the_headers():
    depth = 3000
    head = "".join(f"Content-Type: multipart/mixed; boundary=b{i}\r\n\r\n--b{i}\r\n" for i in range(depth))
    raw = ("From: Alice <alice@example.org>\r\nSubject: Re: deep\r\n" + head + "\r\nc4\r\n").encode()
    env = parse(raw)
    check_envelope(env, raw)
    assert (env.sender, env.subject) == ("alice@example.org", "deep")


def test_many_parts_are_capped():
    parts = ["Content-Type: image/png\r\nContent-Disposition: attachment\r\n\r\nx"] * 5000
    raw = multipart(*parts, "Content-Type: text/plain\r\n\r\nc4")
    env = parse(raw)
    check_envelope(env, raw)
    assert env.text == ""  # beyond the part cap: not read, and not slow


def test_non_bytes_input_does_not_raise():
    env = parse_message(bytearray(b"From: a@example.org\r\n\r\nc4"))
    assert (env.sender, env.text) == ("a@example.org", "c4")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4096))
def test_random_bytes_never_raise(raw):
    check_envelope(parse(raw), raw)


FIXTURE_BYTES = [load(name) for name in sorted(EXPECTED)] + [  # and the replies to our HTML mail
    path.read_bytes() for path in sorted((FIXTURES / "html").glob("*.eml"))
]


@st.composite
def mutated_fixture(draw) -> bytes:
    data = bytearray(draw(st.sampled_from(FIXTURE_BYTES)))
    for _ in range(draw(st.integers(1, 20))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "duplicate"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[pos] = draw(st.integers(0, 255))
        elif op == "insert":
            data[pos:pos] = draw(st.sampled_from([b"\r\n", b"--", b"=?utf-8?B?", b"=", b">", b"\x00", b"\xff",
                                                  b"Content-Type: multipart/mixed; boundary=x\r\n", b"\r\n\r\n"]))
        elif op == "delete":
            del data[pos : pos + draw(st.integers(1, 200))]
        elif op == "truncate":
            del data[pos:]
        elif op == "duplicate":
            data[pos:pos] = data[pos : pos + draw(st.integers(1, 500))]
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_fixture())
def test_mutated_fixtures_never_raise(raw):
    check_envelope(parse(raw), raw)


def test_message_type_is_stdlib_compatible():
    # parse_message reads what the stdlib writes, e.g. a mail composed by the outbox
    msg = Message()
    msg["From"] = "Bob <bob@example.org>"
    msg["Subject"] = "Fwd: x"
    msg.set_payload("a7-c6\n")
    env = parse(msg.as_bytes())
    assert (env.sender, env.subject, env.text) == ("bob@example.org", "x", "a7-c6")


@pytest.mark.parametrize(
    "html, text",
    [
        ('<div>c4</div><div id="mail-editor-reference-message-container"><div>From: x</div>a7-c6</div>', "c4"),
        ('<div>c4</div><div name="quote"><b>Gesendet:</b> x<br>a7-c6</div>', "c4"),
        ('<div>c4</div><hr id="stopSpelling"><div>From: x</div><div>a7-c6</div>', "c4"),
        ('<div>c4</div><div class="gmail_extra"><div>a7-c6</div></div>', "c4"),
        # a rule above a header block ends the reply in any language; a rule alone is left out
        ("<p>c4</p><hr><p><b>Küldő:</b> pbem<br><b>Dátum:</b> 2026</p><p>a7-c6</p>", "c4"),
        ("<p>c4</p><hr><p>Alice</p>", "c4\n\nAlice"),
    ],
)
def test_more_quote_containers_and_rules(html, text):
    assert parse(mail({"Content-Type": "text/html; charset=utf-8"}, html)).text == text
