"""The mails' bytes are written without the standard library's generator (`outbound.flat`):
they must be the very bytes the generator writes, for every shape of mail `build` makes."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes

import pytest

from pbem.mail import outbound

HTML = "<html><body><p style=\"color:#222\">Your move.</p>" + "<td>x</td>" * 150 + "</body></html>"
RECORD = ("game-1.sgf", "application/x-go-sgf", "(;GM[1]FF[4];B[aa];W[bb])\n")


def mail(**changes: object) -> dict[str, object]:
    fields: dict[str, object] = {
        "message_id": "<pbem.0123456789abcdef01234567@pbem.example>",
        "sender": ("pbem", "game@pbem.example"),
        "recipient": ("Alice", "alice@example.org"),
        "reply_to": "game+g1-0123456789abcdef@pbem.example",
        "subject": "[pbem #1] Ataxx: your move",
        "body": "Your move.\n\n  a b c\n1 . . .\n",
        "in_reply_to": "<pbem.00@pbem.example>",
        "references": ["<pbem.00@pbem.example>", "<pbem.01@pbem.example>"],
        "loop_marker": "game@pbem.example",
        "date": datetime(2026, 11, 30, 10, 0, tzinfo=UTC),
        "language": "en",
    }
    fields.update(changes)
    return fields


SHAPES = {
    "text": {},
    "text and HTML": {"html": HTML},
    "HTML with a line too long for SMTP": {"html": HTML.replace("<td>", "<td>\u00e9")},
    "a record attached": {"html": HTML, "attachments": [RECORD]},
    "text and a record": {"attachments": [RECORD, ("game-1.pgn", "application/x-chess-pgn", "1. e4 *\n")]},
    "words in Russian": {"subject": "[pbem #1] Атакс: ваш ход", "body": "Ваш ход.\r\nПартия #1\n", "language": "ru"},
    "a name in Korean and a local part in UTF-8": {"recipient": ("김철수", "jörg@example.org")},
    "no thread, no language": {"in_reply_to": None, "references": [], "language": None},
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_bytes_are_the_generators(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    built = outbound.build(**mail(**SHAPES[shape]))
    parsed = []
    monkeypatch.setattr(outbound, "flat", lambda msg: parsed.append(msg) or msg.as_bytes(policy=outbound._WIRE))
    outbound.build(**mail(**SHAPES[shape]))  # the same mail through the generator (its boundaries differ)
    generated = parsed[0].as_bytes(policy=outbound._WIRE)
    assert outbound._flatten(parsed[0], out := [])
    assert b"".join(out) == generated
    assert message_from_bytes(built).get_payload() is not None


def test_a_message_of_another_shape_goes_through_the_generator() -> None:
    msg = message_from_bytes(b"Subject: hi\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\npre\r\n--b\r\n\r\nx\r\n--b--\r\n")
    assert outbound.flat(msg) == msg.as_bytes(policy=outbound._WIRE)
