"""`outbound.build` writes a mail's bytes from its finished parts: the very bytes the standard
library's compat32 classes and generator make of the same mail (the reference below, which
`build` was before), over names, addresses, subjects, bodies and attachments of every kind."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email import charset, encoders, quoprimime
from email.header import Header
from email.message import Message
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import format_datetime
from typing import Any

import pytest

from pbem.mail.message import outbound
from pbem.mail.message.headers import ascii_address

NAMES = ["", "pbem", "Alice", "Zoë Ünïcødé", "李小龍", 'A "quoted" name', "O'Brien, Jr.", "x" * 90,
         "Long name with many words " * 4, "tab\tand\nnewline", "=?utf-8?q?x?=", "a@b", "Иван Петров"]
ADDRESSES = ["alice@example.org", "jörg@bücher.example", "bob@bücher.example", "Ñandú@example.org",
             "very.long.local.part.of.an.address.that.goes.on+and.on+and.on@example.org", "李@例子.测试"]
SUBJECTS = ["[pbem] hello", "[pbem #12] Ataxx: your move, Alice (move 5) [k:0.1.abcdef0123456789abcdef]",
            "[pbem #3] Скакун: ваш ход, Иван (ход 12) [k:0.1.abcdef0123]", "[pbem] 李小龍 你好", "x" * 200,
            "word " * 40, "", "mixed ascii then ünïcødé " * 5]
BODIES = ["Hello.\n", "plain ascii body\nwith lines\n" * 30, "ünïcødé body\nязык\n中文\n" * 10, "x" * 1200 + "\n",
          "=3D equals = and trailing space \nline\n", "a lone\rcarriage return\r\n and CRLF\n"]
HTMLS = [None, "<html><body><p>hi</p></body></html>", "<p>" + "a=b " * 400 + "</p>", "<p>" + "long" * 300 + "</p>\n<p>x</p>"]
RECORDS = [(), (("game-1.sgf", "application/x-go-sgf", "(;GM[1]SZ[19];B[aa])\n" * 20),),
           (("game-2.pgn", "text/plain", "1. a1 ü\n"), ("b.txt", "text/plain", "x"))]


def _charset(quoted: bool) -> charset.Charset:
    cs = charset.Charset("utf-8")
    cs.body_encoding = charset.QP if quoted else None
    return cs


def reference(**kw: Any) -> bytes:
    """The mail as the standard library's compat32 classes build it (what `build` did before)."""
    body, html, attachments = kw["body"], kw.get("html"), kw.get("attachments", ())
    text: Message = MIMEText(body, "plain", _charset(outbound._body_quoted(body)))
    texts = (body, html or "", *(content for _, _, content in attachments))
    if html is not None:
        alternative = MIMEMultipart("alternative", outbound._boundary(*texts))
        alternative.attach(text)
        alternative.attach(MIMEText(html, "html", _charset(outbound._html_quoted(html))))
        text = alternative
    msg: Message = text
    if attachments:
        msg = MIMEMultipart("mixed", outbound._boundary(*texts, text.get_boundary() or ""))
        msg.attach(text)
        for filename, mimetype, content in attachments:
            maintype, _, subtype = mimetype.partition("/")
            part = MIMEBase(maintype, subtype)
            part.set_payload(content.encode("utf-8"))
            encoders.encode_base64(part)
            part.add_header("Content-Disposition", "attachment", filename=filename)
            msg.attach(part)
    msg["From"] = outbound.address_header(*kw["sender"])
    msg["To"] = outbound.address_header(*kw["recipient"])
    msg["Reply-To"] = outbound.address_header("", kw["reply_to"])
    subject = kw["subject"]
    msg["Subject"] = subject if subject.isascii() else Header(subject, "utf-8", header_name="Subject")
    msg["Date"] = format_datetime(kw["date"])
    msg["Message-ID"] = kw["message_id"]
    if kw.get("language"):
        msg["Content-Language"] = kw["language"]
    if kw.get("in_reply_to"):
        msg["In-Reply-To"] = kw["in_reply_to"]
    refs = [r for r in dict.fromkeys(kw.get("references", ())) if r]
    if refs:
        msg["References"] = " ".join(refs[-10:])
    if kw.get("unsubscribe"):
        if kw.get("unsubscribe_url"):
            msg["List-Unsubscribe"] = f"<{kw['unsubscribe_url']}>, <mailto:{ascii_address(kw['unsubscribe'])}>"
            msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        else:
            msg["List-Unsubscribe"] = f"<mailto:{ascii_address(kw['unsubscribe'])}>"
    msg["Auto-Submitted"] = "auto-replied" if kw.get("answers") else "auto-generated"
    if kw.get("feedback_id"):
        msg["Feedback-ID"] = kw["feedback_id"]
    msg["X-Auto-Response-Suppress"] = "All"
    msg[outbound.LOOP_HEADER] = kw["loop_marker"]
    return msg.as_bytes(policy=outbound._WIRE)


def _mails(count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    mails = []
    for n in range(count):
        unsubscribe = rng.choice([None, "pbem+stop.1@games.test", "pbem+stop.1@spiele.bücher.example"])
        mails.append({
            "message_id": f"<pbem.{n:024x}@games.test>",
            "sender": (rng.choice(["pbem", "", "Ünïcødé Server"]), rng.choice(["pbem@games.test", "pbem@spiele.bücher.example"])),
            "recipient": (rng.choice(NAMES), rng.choice(ADDRESSES)),
            "reply_to": rng.choice(["pbem+x.1234@games.test", "pbem+alice.abcdef@spiele.bücher.example"]),
            "subject": rng.choice(SUBJECTS), "body": rng.choice(BODIES), "html": rng.choice(HTMLS),
            "in_reply_to": rng.choice([None, "<a@b>", "<pbem.1@games.test>"]),
            "references": rng.choice([(), ("<a@b>",), tuple(f"<r{i}.{'z' * 30}@games.test>" for i in range(14)),
                                      ("<a@b>", "<a@b>", "")]),
            "loop_marker": "pbem@games.test", "attachments": rng.choice(RECORDS),
            "date": datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.randrange(10**8)),
            "language": rng.choice([None, "en", "zh"]), "unsubscribe": unsubscribe,
            "unsubscribe_url": rng.choice([None, "https://games.example.org/u/abc"]) if unsubscribe else None,
            "answers": rng.choice([True, False]), "feedback_id": rng.choice([None, "your_move:pbem:games.test"]),
        })
    return mails


@pytest.mark.parametrize("seed", range(4))
def test_the_bytes_are_the_standard_librarys(seed: int) -> None:
    for mail in _mails(100, seed):
        random.seed(seed)  # the same multipart boundaries for both
        expected = reference(**mail)
        random.seed(seed)
        assert outbound.build(**mail) == expected, mail


def test_an_address_that_cannot_be_written_fails_as_before() -> None:
    mail = _mails(1, 0)[0]
    with pytest.raises(ValueError, match="not a valid internationalised domain"):
        outbound.build(**{**mail, "recipient": ("Bad", "bad@ü..example")})


def test_quoted_printable_is_the_standard_librarys() -> None:
    """The quick encoder writes what `quoprimime.body_encode` writes: quoted letters, soft
    breaks at 76 (never inside an escape), a space or tab at a line's end, every line end."""
    rng = random.Random(31)
    pieces = ["a", "b c", "=", "==", " ", "\t", ".", "é", "—", "中", "\x00", "\x7f", "\n", "\r\n", "\r", "x" * 70,
              "y" * 74, "<td style=\"padding:0\">"]
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        for form in (text, text.encode("ascii", "ignore").decode("ascii")):
            latin = form.encode("utf-8").decode("latin-1")
            assert outbound.quoted_printable(latin) == quoprimime.body_encode(latin)


def test_the_quick_look_for_letters_to_quote_is_the_patterns() -> None:
    """`_qp_safe` answers what a search for `_QP_UNSAFE` answers, for every kind of letter:
    tab and line ends, printable ASCII, other control letters, DEL, Latin-1, wider ones."""
    rng = random.Random(17)
    letters = [chr(c) for c in (0, 9, 10, 11, 12, 13, 28, 31, 32, 61, 65, 126, 127, 0x85, 0xA0, 0xE9, 0x2028, 0x4E2D)]
    for _ in range(4000):
        text = "".join(rng.choice(letters) for _ in range(rng.randint(0, 12)))
        assert outbound._qp_safe(text) == (outbound._QP_UNSAFE.search(text) is None), repr(text)
