"""Every template renders in a real exchange, and no mail line could be misread as a command."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem.commands import reader
from pbem.models import Outbox
from pbem.templates import Templates
from tests.service.mailer import compose, parse, reply_to

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"

SCRIPT = [
    (ALICE, "help"),
    (ALICE, "help challenge"),
    (ALICE, "rules capturego"),
    (ALICE, "name Alice Liddell"),
    (ALICE, "hello there"),
    (ALICE, "challenge capturego bob@example.org colour=black size=9"),
    (BOB, "games"),
    (CAROL, "challenge myriades"),
    (BOB, "open"),
    (CAROL, "withdraw 2"),
    (CAROL, "challenge ataxx bob@example.org"),
    (BOB, "decline 3"),
    (ALICE, "challenge infection carol@example.org"),
    (ALICE, "withdraw 4"),
    (BOB, "accept 1"),
    (ALICE, "move 1 e5"),
    (BOB, "board 1"),
    (BOB, "draw 1"),
    (ALICE, "nodraw 1"),
    (BOB, "move 1 z99"),
    (BOB, "move 1 d4"),
    (ALICE, "history 1"),
    (ALICE, "resign 1"),
]


def test_every_template_is_sent_and_reads_safely(server) -> None:
    for sender, line in SCRIPT:
        assert server.send(compose(sender, line)) == "processed"
    with Session(server.engine) as session:
        rows = session.exec(select(Outbox).order_by(Outbox.id)).all()
    used = {row.kind + ".txt" for row in rows}
    assert set(Templates().names()) - {f"rules/{n}" for n in _rules()} <= used | {"rules.txt"}
    for row in rows:
        mail = parse(row.data)
        body = mail.get_content()
        for line in body.splitlines()[1:]:
            assert len(line) <= 72, f"{row.kind}: too wide: {line!r}"
            assert reader.classify(line.strip()) is None, f"{row.kind}: {line!r} reads as a command"
        assert mail["Auto-Submitted"] == "auto-replied"
        assert mail["Reply-To"].startswith("pbem+")


def _rules() -> list[str]:
    import engine

    return [f"{name}.txt" for name in engine.names()]


def test_rules_of_every_game_render(server) -> None:
    import engine

    for name in engine.names():
        server.send(compose(ALICE, f"rules {name}"))
        text = server.last(ALICE).get_content()
        assert engine.lookup(name).title in text
        for line in text.splitlines()[1:]:
            assert reader.classify(line.strip()) is None, f"rules {name}: {line!r} reads as a command"


def test_a_reply_is_threaded_to_the_mail_it_answers(server) -> None:
    raw = compose(ALICE, "help")
    server.send(raw)
    answer = server.last(ALICE)
    assert answer["In-Reply-To"] == parse(raw)["Message-ID"]
    server.send(reply_to(ALICE, answer, "games"))
    again = server.last(ALICE)
    assert answer["Message-ID"] in again["References"]
