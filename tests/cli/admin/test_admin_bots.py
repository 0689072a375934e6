"""`pbem admin bots off|on`: audited; while off a challenge to a bot is refused and the runner waits."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem.core.models import AdminAction, Game, Move, Outbox
from pbem.runners import bots as botrunner
from pbem.runners.inbound import Service
from tests.cli.admin.conftest import run
from tests.mailer import proven

ALICE = "alice@example.org"


def _last_text(db) -> str:
    import email
    import email.policy

    with Session(db.engine) as session:
        row = session.exec(select(Outbox).where(Outbox.recipient == ALICE).order_by(Outbox.id.desc())).first()
    mail = email.message_from_bytes(row.message, policy=email.policy.default)
    return " ".join(mail.get_body(("plain",)).get_content().split())


def test_bots_off_then_on(db) -> None:
    service = Service(db.settings, db.engine)
    db.game("ataxx")  # game #1 between people: alice is registered
    service.handle(proven(db.settings, db.engine, ALICE, "challenge ataxx bot level=1 colour=second"))
    with Session(db.engine) as session:
        assert session.get(Game, 2).bot_due_at is not None  # the bot is on move

    assert "bots are off" in run("bots", "off", "--reason", "maintenance", "--by", "ops")
    assert botrunner.round_(db.engine, db.settings) == 0  # the game waits
    service.handle(proven(db.settings, db.engine, ALICE, "challenge capturego bot"))
    assert "The bots are switched off on this server for now" in _last_text(db)
    with Session(db.engine) as session:
        assert session.exec(select(Move)).all() == [] and session.get(Game, 3) is None
        entry = session.exec(select(AdminAction)).one()
        assert (entry.actor, entry.action, entry.reason) == ("ops", "bots off", "maintenance")

    assert "bots are on" in run("bots", "on")
    assert botrunner.round_(db.engine, db.settings) == 1
    with Session(db.engine) as session:
        assert len(session.exec(select(Move)).all()) == 1
        assert [a.action for a in session.exec(select(AdminAction).order_by(AdminAction.id))] == ["bots off", "bots on"]
