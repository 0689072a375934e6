"""The text part as format=flowed (RFC 3676): a phone's client rewraps its paragraphs to the
screen instead of breaking each 72-column line again, and leaves the boards as drawn."""

from __future__ import annotations

from pbem.mail.message.body import SOFT_BREAK, format_flowed, unwrap_flowed
from tests.mailer import flowed, text
from tests.players import ALICE, start_game


def test_soft_breaks_end_in_a_space_and_lines_that_start_like_a_quote_are_stuffed() -> None:
    written = f"one two{SOFT_BREAK}\nthree\n  a | board\n> quoted\nFrom here\n-- \nfooter"
    sent = format_flowed(written)
    assert sent == "one two \nthree\n   a | board\n > quoted\n From here\n-- \nfooter"
    assert unwrap_flowed(sent) == "one two three\n  a | board\n> quoted\nFrom here\n-- \nfooter"


def test_a_move_mail_reflows_its_paragraphs_and_keeps_its_board(server) -> None:
    start_game(server)
    server.answer(ALICE, 1, "f2")
    mail = server.about(ALICE, 1)
    part = mail.get_body(preferencelist=("plain",))
    assert part.get_param("format") == "flowed"
    raw = part.get_content().replace("\r\n", "\n")
    assert all(len(line) <= 78 for line in raw.splitlines())
    wrapped = [line[:-1] for line in raw.splitlines() if line.endswith(" ") and line != "-- "]
    assert "You played f2 in game #1. Now bob (o) is on move; I will write to you" in wrapped
    shown = flowed(mail)
    board = [line for line in text(mail).splitlines() if line.startswith("  ") and "|" in line]
    assert board and all(line in shown.splitlines() for line in board)  # the board stays as drawn
    for line in wrapped:  # each wrapped line runs on into the next in a flowed reader
        assert line not in shown.splitlines() and line in shown
