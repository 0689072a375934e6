"""An operator's undo changes the position: the conditional lines written for it are dropped,
and their owner is told in the mail that brings the new board."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem.core.models import Conditional, Game, Player
from tests.cli.admin.conftest import NOW, run
from tests.cli.admin.test_admin_cli import ALICE, _mails, _safe, _text


def test_undo_drops_the_lines_and_tells_their_owner(db) -> None:
    gid = db.game("ataxx", ["f2"])
    with Session(db.engine) as session:
        alice = session.exec(select(Player).where(Player.address == ALICE)).one()
        session.add(Conditional(game_id=gid, player_id=alice.id, ply=2, moves=["b1", "e1"], raw="if b1 then e1",
                                created_at=NOW))
        session.get(Game, gid).lines_waiting = True  # as `if` marks it
        session.commit()
    run("undo", str(gid), "1", "--reason", "misread move", "--by", "ops")
    with Session(db.engine) as session:
        assert session.exec(select(Conditional)).all() == []
    (mail,) = _mails(db, ALICE)
    said = " ".join(_text(mail).split())
    assert "took back the last move of game #1" in said
    assert "Some moves were taken back, so your conditional line no longer fits the game and I dropped it: 1. b1 -> e1" in said
    _safe(mail)
