"""Deliverability headers (issue 27): Auto-Submitted as RFC 3834 says, a stable Feedback-ID."""

from __future__ import annotations

import email
from datetime import UTC, datetime

import pytest

from pbem.mail.message import outbound


def _built(**changes: object) -> email.message.Message:
    fields = {
        "message_id": "<pbem.0123456789abcdef01234567@games.test>",
        "sender": ("pbem", "pbem@games.test"), "recipient": ("Alice", "alice@example.org"),
        "reply_to": "pbem+x@games.test", "subject": "[pbem] hello", "body": "Hello.\n",
        "loop_marker": "pbem@games.test", "date": datetime(2026, 12, 1, tzinfo=UTC),
    }
    return email.message_from_bytes(outbound.build(**{**fields, **changes}))


@pytest.mark.parametrize(("answers", "expected"), [(True, "auto-replied"), (False, "auto-generated")])
def test_auto_submitted_says_whether_the_mail_answers_one(answers: bool, expected: str) -> None:
    msg = _built(answers=answers)
    assert msg.get_all("Auto-Submitted") == [expected]


def test_feedback_id_names_the_kind_of_mail_and_nothing_personal() -> None:
    assert outbound.feedback_id("your_move", "games.test") == "your_move:pbem:games.test"
    assert outbound.feedback_id("Said: <x@y>\r\nBcc", "spiele.bücher.example") == (
        "saidxybcc:pbem:spiele.xn--bcher-kva.example")
    assert outbound.feedback_id("", "games.test") == "mail:pbem:games.test"
    msg = _built(feedback_id=outbound.feedback_id("digest", "games.test"))
    assert msg["Feedback-ID"] == "digest:pbem:games.test"
    assert _built()["Feedback-ID"] is None
