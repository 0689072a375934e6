"""The HTML part beside the text, without a browser: the MIME shape, the same words, the
player's choice of format, the display sample, and nothing of a player's text unescaped."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime

from sqlmodel import Session, select

from pbem.core.models import Player
from pbem.mail.message.outbound import build
from pbem.text.htmlmail import tokens
from pbem.text.templates import MOVE_CLOSE, MOVE_OPEN
from pbem.text.templates import mark as keep  # as a template's keep() prints it in a sketch
from tests.mailer import compose, reply_to, text

ALICE, BOB = "alice@example.org", "bob@example.org"


def _build(**extra) -> email.message.EmailMessage:
    raw = build(
        message_id="<pbem.0123456789abcdef01234567@pbem.example>",
        sender=("pbem", "game@pbem.example"),
        recipient=("Jörg", "jorg@example.org"),
        reply_to="game+g1-0123456789abcdef@pbem.example",
        subject="[pbem #1] Ataxx: your move",
        body="Your move.\n",
        loop_marker="game@pbem.example",
        date=datetime(2026, 11, 30, 10, 0, tzinfo=UTC),
        **extra,
    )
    return email.message_from_bytes(raw, policy=email.policy.default)


def test_with_html_the_mail_is_an_alternative_text_first() -> None:
    mail = _build(html="<p>Your move, J&#246;rg.</p>\n")
    assert mail.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in mail.iter_parts()] == ["text/plain", "text/html"]
    assert mail.get_body(("plain",)).get_content().splitlines() == ["Your move."]
    assert mail.get_body(("html",)).get_content().splitlines() == ["<p>Your move, J&#246;rg.</p>"]
    assert mail.get_body(("html",))["Content-Transfer-Encoding"] == "7bit"


def test_with_attachments_the_alternative_is_the_first_part_of_a_mixed_mail() -> None:
    mail = _build(html="<p>é</p>", attachments=[("game-1.pgn", "application/x-chess-pgn", "1. f2 *\n")])
    assert mail.get_content_type() == "multipart/mixed"
    first, record = mail.iter_parts()
    assert first.get_content_type() == "multipart/alternative"
    assert record.get_filename() == "game-1.pgn"
    assert mail.get_body(("html",)).get_content() == "<p>é</p>"  # not ASCII: quoted-printable
    assert mail.get_body(("html",))["Content-Transfer-Encoding"] == "quoted-printable"


def test_without_html_the_mail_is_plain_text_as_before() -> None:
    assert _build().get_content_type() == "text/plain"


def test_example_moves_and_commands_become_code() -> None:
    line = f"Reply with your move on the first line, e.g.  {MOVE_OPEN}b1{MOVE_CLOSE}   or   {MOVE_OPEN}a1-c1{MOVE_CLOSE}"
    assert [(t, kind) for t, kind in tokens(line) if kind] == [("b1", "move"), ("a1-c1", "move")]
    assert tokens(line)[0] == ("Reply with your move on the first line, e.g. ", "")  # the text part's gap: one space
    # the commands a template marked with keep(), whatever the words around them: quotes go with them
    assert tokens(f'write "{keep("draw")}" to accept it') == [("write ", ""), ("draw", "code"), (" to accept it", "")]
    assert tokens(f"scrivi \u00ab{keep('draw')}\u00bb") == [("scrivi ", ""), ("draw", "code")]
    listed = f"You can also write: {keep('board')}, {keep('history')}, {keep('help')}."
    assert [t for t, code in tokens(listed) if code] == ["board", "history", "help"]
    assert [t for t, code in tokens(f"For a return match, write e.g.  {keep('challenge', 'ataxx', 'bob@example.org')}")
            if code] == ["challenge ataxx bob@example.org"]
    assert tokens(keep(f"{MOVE_OPEN}c4{MOVE_CLOSE}")) == [("c4", "move")]  # an example move kept stays a move
    # no English word makes a command of what follows it
    assert [t for t, code in tokens("You can also write: board, history, help.") if code] == []
    assert tokens('I could not do "move z9":') == [("I could not do ", ""), ("move z9", "code"), (":", "")]
    assert "".join(t for t, _ in tokens("Nothing to mark here.")) == "Nothing to mark here."


def _game(server) -> None:
    server.say(ALICE, "challenge ataxx bob@example.org colour=x")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))


def test_a_move_mail_has_the_board_as_a_table_and_the_text_part_unchanged(server) -> None:
    _game(server)
    server.send(reply_to(ALICE, server.last(ALICE), "f2"))
    mail = server.last(BOB)
    assert mail.get_content_type() == "multipart/alternative"
    html = mail.get_body(("html",)).get_content()
    assert html.count('<table class="board') == 1
    assert html.count("<td") >= 49
    assert "alice played f2. Your move, bob (o)." in html
    assert "<script" not in html
    example = text(mail).split("e.g.", 1)[1].split()[0]  # the legal move the text part suggests
    assert '<code class="move"' in html and f">{example}</code>" in html  # shown boldly in the HTML part
    assert "@media (prefers-color-scheme: dark)" in html
    assert "[k:" in mail["Subject"] and "[k:" not in html  # the title is the words: no tag, no token
    assert "<title>" in html and "[pbem" not in html.split("</title>")[0]
    with_html = text(mail)
    server.say(BOB, "board")
    board_html = text(server.last(BOB))
    server.say(BOB, "format text")
    assert server.last(BOB).get_content_type() == "text/plain"
    server.say(BOB, "board")
    board_text = server.last(BOB)
    assert board_text.get_content_type() == "text/plain"
    assert text(board_text) == board_html  # the text part is the very text a text-only mail carries
    assert "  7 | x . . . . . o | 7" in with_html


def test_format_is_a_setting_that_needs_proof_and_can_be_undone(server) -> None:
    assert server.send(compose("Carol <carol@example.org>", "format text")) == "processed"
    assert server.last("carol@example.org")["Subject"].startswith("[pbem] Did you write to me?")
    server.confirm("carol@example.org")
    with Session(server.engine) as session:
        assert session.exec(select(Player.format).where(Player.address == "carol@example.org")).one() == "text"
    assert server.last("carol@example.org").get_content_type() == "text/plain"
    server.say("carol@example.org", "format html")
    assert server.last("carol@example.org").get_content_type() == "multipart/alternative"
    server.say("carol@example.org", "format pretty")
    assert "html or text" in text(server.last("carol@example.org"))
    with Session(server.engine) as session:
        assert session.exec(select(Player.format).where(Player.address == "carol@example.org")).one() == "html"


def test_display_sends_a_sample_board_of_every_game_in_both_parts(server) -> None:
    server.send(compose("Dan <dan@example.org>", "test"))
    mail = server.last("dan@example.org")
    body = text(mail)
    assert "the columns line up" in body
    assert body.count("+---") == 12  # six boards, a frame line above and below each
    html = mail.get_body(("html",)).get_content()
    assert html.count('<table class="board') == 6


def test_what_a_player_wrote_is_escaped_in_the_html(server) -> None:
    server.send(compose("Eve <eve@example.org>", 'help\n<script>alert("x")</script> & <b>bold</b>'))
    html = parse_html(server.last("eve@example.org"))
    assert "<script" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html and "&amp;" in html


def parse_html(mail) -> str:  # noqa: ANN001
    return mail.get_body(("html",)).get_content()


def test_the_marker_line_leads_the_html_part_too(server) -> None:
    server.send(compose("Fay <fay@example.org>", "help"))
    html = parse_html(server.last("fay@example.org"))
    body = html[html.index("<body"):]
    assert body.index("Please write your reply above this line") < body.index("<p", body.index("reply above") + 1)


def test_a_templates_dir_without_html_uses_the_packaged_layout(tmp_path) -> None:
    from pbem.text.templates import Templates

    (tmp_path / "_mail.txt").write_text("{{ marker }}\n{% for s in sections %}{{ s }}{% endfor %}\n", encoding="utf-8")
    page = Templates(tmp_path).html("_mail.html", blocks=[{"kind": "p", "lines": [[("Hello", "")]]}], subject="Hi")
    assert "<p>Hello</p>" in page and "prefers-color-scheme: dark" in page
