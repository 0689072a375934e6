"""Property-based fuzzing of everything that reads outside input: no exception escapes.

The inbound parser (`PBEM_FUZZ_PARSER` inputs), the command reader and each game's move parser
(`PBEM_FUZZ_MOVES`) get 4,000 generated inputs each by default, drawn in batches so that
hypothesis' own overhead stays small; the whole service (reader, commands, store) gets
`PBEM_FUZZ_SERVICE` (default 400) mails, each ending in one reply or, for robots, silence,
and never changing a game. The defaults keep the suite's time on a busy 2-core machine; a deeper
run sets them higher (10,000, 10,000 and 1,000 found nothing more when they were the defaults:
generating the mails is most of the time).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session, func, select

import pbem_engine
from pbem.commands.lines import reader
from pbem.core.config import Settings
from pbem.core.db import make_engine, migrate
from pbem.core.models import Game, InboundMessage, Move, Outbox
from pbem.mail.message.inbound import parse_message
from pbem.runners.inbound import Service
from tests.mailer import GAME

BATCH = 10  # inputs per hypothesis example
PARSER_INPUTS = int(os.environ.get("PBEM_FUZZ_PARSER", "4000"))
MOVE_INPUTS = int(os.environ.get("PBEM_FUZZ_MOVES", "4000"))
FAST = settings(deadline=None, suppress_health_check=list(HealthCheck), database=None)
SERVICE_EXAMPLES = int(os.environ.get("PBEM_FUZZ_SERVICE", "400"))

CHARSETS = ["utf-8", "us-ascii", "iso-8859-1", "windows-1252", "koi8-r", "shift_jis", "bogus-42", ""]
WORDS = ["help", "move", "pass", "resign", "draw", "accept", "challenge", "ataxx", "c4", "a1-c3", "17@d4",
         "#1", "1", "board", "0000", ">", "--", "=?utf-8?b?w6k=?=", "\u00e9", "\x00", "\r", "\t"]
text = st.one_of(st.text(max_size=200), st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join))
header_name = st.sampled_from(["From", "To", "Subject", "Message-ID", "In-Reply-To", "References", "Content-Type",
                               "Content-Transfer-Encoding", "Auto-Submitted", "Precedence", "Return-Path",
                               "X-PBEM-Loop", "List-Id", "Content-Disposition", "Authentication-Results"])


@st.composite
def mime(draw, depth: int = 0) -> bytes:
    """Mail-shaped bytes: real and broken headers, charsets, encodings, nested multiparts."""
    lines = [f"From: {draw(st.sampled_from(['alice@example.org', 'Bob <bob@example.org>', '', '<>', 'x', 'a@b@c']))}"]
    for _ in range(draw(st.integers(0, 6))):
        value = draw(text)
        if draw(st.booleans()):
            value = value * draw(st.integers(1, 50))  # huge headers
        lines.append(f"{draw(header_name)}: {value}")
    kind = draw(st.sampled_from(["text/plain", "text/html", "multipart/mixed", "multipart/alternative",
                                 "application/octet-stream", "message/rfc822", "garbage"]))
    charset = draw(st.sampled_from(CHARSETS))
    encoding = draw(st.sampled_from(["7bit", "8bit", "base64", "quoted-printable", "x-unknown"]))
    if kind.startswith("multipart") and depth < 3:
        boundary = draw(st.sampled_from(["b", "", "b b", "--"]))
        lines.append(f'Content-Type: {kind}; boundary="{boundary}"')
        head = "\r\n".join(lines).encode("utf-8", "surrogateescape") + b"\r\n\r\n"
        parts = [draw(mime(depth + 1)) for _ in range(draw(st.integers(0, 3)))]
        body = b"".join(b"--" + boundary.encode() + b"\r\n" + p + b"\r\n" for p in parts)
        if draw(st.booleans()):
            body += b"--" + boundary.encode() + b"--\r\n"
        return head + body
    lines.append(f"Content-Type: {kind}; charset={charset}")
    lines.append(f"Content-Transfer-Encoding: {encoding}")
    head = "\r\n".join(lines).encode("utf-8", "surrogateescape") + b"\r\n\r\n"
    body = draw(st.one_of(st.binary(max_size=300), text.map(lambda t: t.encode("utf-8", "surrogatepass"))))
    return head + body


inputs = st.one_of(st.binary(max_size=600), mime())


@pytest.mark.slow
@settings(FAST, max_examples=PARSER_INPUTS // BATCH)
@given(st.lists(inputs, min_size=BATCH, max_size=BATCH))
def test_the_inbound_parser_never_raises(batch: list[bytes]) -> None:
    for raw in batch:
        envelope = parse_message(raw, own_addresses=[GAME])
        assert envelope.message_id and len(envelope.message_id) <= 400
        assert len(envelope.sender) <= 320 and envelope.size == len(raw)


lines = st.one_of(text, st.lists(st.sampled_from(WORDS), max_size=10).map(" ".join))


@pytest.mark.slow
@settings(FAST, max_examples=MOVE_INPUTS // BATCH)
@given(st.lists(lines, min_size=BATCH, max_size=BATCH), st.lists(lines, min_size=BATCH, max_size=BATCH))
def test_the_command_reader_never_raises(subjects: list[str], bodies: list[str]) -> None:
    for subject, body in zip(subjects, bodies, strict=True):
        reading = reader.read(subject, body + "\n" + subject)
        commands, ignored = reading.lines, reading.ignored
        assert len(commands) <= reader.MAX_LINES
        assert all(line.text.strip() and line.words for line in commands)
        assert all(isinstance(line, str) for line in ignored)


def _positions(rules: pbem_engine.Rules) -> list:
    """The start and a position a few moves in, so that parsing meets pieces on the board."""
    pos, picks = rules.start(), iter(range(10**6))
    for _ in range(6):
        if rules.outcome(pos).over:
            break
        pos = rules.apply(pos, rules.sample(pos, lambda options: options[next(picks) % len(options)]))
    return [rules.start(), pos]


@pytest.mark.slow
@pytest.mark.parametrize("name", pbem_engine.names())
def test_every_games_move_parser_only_raises_illegal_move(name: str) -> None:
    rules = pbem_engine.create(name)
    positions = _positions(rules)

    @settings(FAST, max_examples=MOVE_INPUTS // BATCH // len(positions))
    @given(st.lists(st.one_of(st.text(max_size=40), st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join)),
                    min_size=BATCH, max_size=BATCH))
    def parse(move_texts: list[str]) -> None:
        for pos in positions:
            for move_text in move_texts:
                try:
                    move = rules.parse(pos, move_text)
                except pbem_engine.MoveError as exc:
                    assert str(exc)  # a message the player can act on
                else:
                    rules.apply(pos, move)

    parse()


@pytest.mark.slow
def test_the_whole_service_answers_politely_and_changes_no_game() -> None:
    home = Path(tempfile.mkdtemp(prefix="pbem-fuzz-"))
    service_settings = replace(Settings(), address=GAME, home=home, max_error_replies_per_day=10**9)
    db = make_engine(service_settings.db_url)
    migrate(db)
    service = Service(service_settings, db)

    def counts() -> tuple[int, int, int, int]:
        with Session(db) as session:
            return tuple(session.exec(select(func.count(m.id))).one() for m in (Game, Move, InboundMessage, Outbox))

    @settings(max_examples=SERVICE_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(inputs)
    def handle(raw: bytes) -> None:
        games, moves, inbound, out = counts()
        result = service.handle(raw)
        after = counts()
        assert after[:2] == (games, moves), "rejected input changed a game"
        if result.status == "robot":
            assert after[2:] == (inbound + 1, out)
        elif result.status == "processed":
            assert after[2:] == (inbound + 1, out + 1)  # exactly one reply, to the sender
        elif result.status == "silenced":
            assert after[2:] == (inbound + 1, out)  # that address had its answer today
        else:
            assert result.status == "duplicate" and after[2:] == (inbound, out)

    try:
        handle()
    finally:
        db.dispose()


HOSTILE = [
    "\u202eevil\u202c", "a\u200bb", "bell\x07", "\x1b[31mred\x1b[0m", "=?utf-8?b?4oCuZXZpbA==?=", "=?x-unknown?q?zz?=",
    '"quoted \\" name"', "Jörg Ünïcødé", "名前", "a" * 500, "<>", "", "=?utf-8?q?=0D=0AX-Evil:_1?=",
]
ADDRESSES = [
    "alice@example.org", "jörg@example.org", "user@xn--bcher-kva.example", "a@b@c", "<>", "noreply@example.org",
    "x" * 300 + "@example.org", "alice@example.org\r\nBcc: eve@example.org", "\u202ealice@example.org",
]


@pytest.mark.slow
def test_hostile_headers_never_stop_the_service_answering_the_next_genuine_mail(tmp_path) -> None:
    service_settings = replace(Settings(), address=GAME, home=tmp_path)
    db = make_engine(service_settings.db_url)
    migrate(db)
    service = Service(service_settings, db)
    count = [0]

    @settings(max_examples=SERVICE_EXAMPLES // 4, deadline=None, suppress_health_check=list(HealthCheck),
              database=None)
    @given(st.sampled_from(HOSTILE), st.sampled_from(ADDRESSES), st.sampled_from(HOSTILE),
           st.sampled_from(CHARSETS), text)
    def hostile(name: str, address: str, subject: str, charset: str, body: str) -> None:
        count[0] += 1
        raw = (f"From: {name} <{address}>\r\nTo: {GAME}\r\nSubject: {subject}\r\n"
               f"Message-ID: <hostile{count[0]}@fuzz.test>\r\n"
               f"Content-Type: text/plain; charset={charset}\r\n\r\n").encode("utf-8", "surrogatepass")
        raw += body.encode("utf-8", "surrogatepass")
        result = service.handle(raw)
        assert result.status in ("processed", "silenced", "robot", "banned", "duplicate")
        genuine = f"From: carol{count[0]}@example.org\r\nTo: {GAME}\r\nSubject: help\r\n" \
                  f"Message-ID: <genuine{count[0]}@fuzz.test>\r\n\r\nhelp\r\n"
        assert service.handle(genuine.encode()).status == "processed"
        with Session(db) as session:
            (last,) = session.exec(select(Outbox).order_by(Outbox.id.desc()).limit(1)).all()
            assert last.recipient == f"carol{count[0]}@example.org" and last.template == "help"
            for row in session.exec(select(Outbox).where(Outbox.id > last.id - 3)):
                head = row.message.split(b"\r\n\r\n", 1)[0]
                assert b"X-Evil" not in head and b"Bcc" not in head and b"\x1b" not in head

    try:
        hostile()
    finally:
        db.dispose()
