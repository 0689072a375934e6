"""Three daemons share one PostgreSQL database and one IMAP mailbox.

Every daemon reads the same folder (polling it often), so each move mail is picked up by several of them at
once; one in five is even delivered twice. The unique message id must let exactly one
transaction apply each move, the game row lock must keep the plies in order, and the
outbox (claimed with SKIP LOCKED) must hand every reply and notice to SMTP at least once.
"""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest
from sqlalchemy import func
from sqlmodel import Session, select

import pbem_engine
from pbem.core.db import make_engine, migrate, transaction
from pbem.core.models import Challenge, Game, InboundMessage, Move, Outbox
from pbem.games import players
from pbem.games import store as G
from pbem.games.clock import now
from tests.databases import throwaway
from tests.integration.daemon import POLLING, DaemonProcess
from tests.integration.lines import move_address, script
from tests.integration.waits import Deadline
from tests.mailer import compose, parse

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DAEMONS = 3
GAMES = 10
PLIES = 30  # per game: 300 moves in all
PAIRS = [("alice", "bob"), ("carol", "dave"), ("alice", "carol"), ("bob", "dave"), ("dave", "alice")]


def _prepare(db, rig) -> list[tuple[int, list[tuple[str, str]]]]:
    """Players and games straight in the database; per game its (address, secret) by side."""
    prepared = []
    with transaction(db) as session:
        people = {u: players.get_or_register(session, rig.address(u), now()) for u in ("alice", "bob", "carol", "dave")}
        for i in range(GAMES):
            first, second = (people[u] for u in PAIRS[i % len(PAIRS)])
            challenge = Challenge(kind="ataxx", options={}, challenger_id=first.id, opponent_id=second.id,
                                  colour="first", created_at=now())
            session.add(challenge)
            session.flush()
            game = G.start(session, challenge, second, first, now())
            prepared.append((game.id, [(first.address, first.secret), (second.address, second.secret)]))
    return prepared


@pytest.fixture
def database_url(tmp_path):
    with throwaway("postgresql", tmp_path) as url:
        yield url


def test_three_daemons_apply_each_move_once_and_deliver_every_mail(mailrig, tmp_path, database_url) -> None:
    db = make_engine(database_url)
    migrate(db)
    prepared = _prepare(db, mailrig)
    rng = random.Random(7)
    rules = pbem_engine.create("ataxx", {})
    scripts = {gid: script(rules, rng, PLIES) for gid, _ in prepared}
    sides = dict(prepared)
    # Polling (see POLLING): the moves of a game follow one another without Dovecot's IDLE delay.
    daemons = [DaemonProcess(mailrig, tmp_path / f"pbem{i}", database_url, extra_imap=POLLING) for i in range(DAEMONS)]
    for daemon in daemons:
        daemon.start()
    sent: dict[int, list[str]] = {gid: [] for gid in scripts}  # Message-IDs of the move mails
    doubled = 0
    try:
        deadline = Deadline(60)
        with Session(db) as session:
            while True:
                applied = dict(session.exec(select(Game.id, Game.ply)).all())
                session.rollback()  # a fresh snapshot next round
                if all(applied[gid] == PLIES for gid in scripts):
                    break
                assert not deadline.passed(), f"stuck at {applied}\n{daemons[0].log_tail()}"
                for gid, line in scripts.items():
                    ply = applied[gid]
                    if ply < PLIES and len(sent[gid]) == ply:  # the last move is in: send the next one
                        address, secret = sides[gid][ply % 2]
                        raw = compose(address, line[ply], subject=f"Re: [pbem #{gid}] ataxx")
                        target = move_address("game", mailrig.domain, secret, gid, ply)
                        mailrig.deliver(target, raw, sender=address)
                        if rng.random() < 0.2:  # the same mail twice, as a retrying MTA may
                            mailrig.deliver(target, raw, sender=address)
                            doubled += 1
                        sent[gid].append(parse(raw)["Message-ID"])
                time.sleep(0.02)
        outbox_deadline = Deadline(30)
        while True:
            with Session(db) as session:
                pending = session.exec(select(func.count()).select_from(Outbox).where(Outbox.status != "sent")).one()
            if not pending:
                break
            assert not outbox_deadline.passed(), f"{pending} outbox rows unsent\n{daemons[0].log_tail()}"
            time.sleep(0.1)
    finally:
        codes = [daemon.stop() for daemon in daemons]
    assert codes == [0] * DAEMONS, [d.log_tail() for d in daemons]
    assert doubled > 0
    applied_by = [d.log.read_text(errors="replace").count(": processed") for d in daemons]
    assert sum(applied_by) == GAMES * PLIES and all(applied_by), applied_by  # the work was shared

    with Session(db) as session:
        # Exactly once: one Move per mail, per (game, ply), and every state equals its replay.
        moves = session.exec(select(Move).order_by(Move.game_id, Move.ply)).all()
        assert len(moves) == GAMES * PLIES
        assert not [k for k, n in Counter((m.game_id, m.ply) for m in moves).items() if n > 1]
        assert not [k for k, n in Counter(m.message_id for m in moves).items() if n > 1]
        for gid, line in scripts.items():
            mine = [m for m in moves if m.game_id == gid]
            assert [m.notation for m in mine] == line, f"game {gid}: moves differ from what was sent"
            assert [m.message_id for m in mine] == sent[gid]
            game = session.get(Game, gid)
            assert game.ply == PLIES and rules.load(game.state) == G.replay(game, line)
        inbound = session.exec(select(InboundMessage.message_id)).all()
        assert sorted(inbound) == sorted(mid for ids in sent.values() for mid in ids)
        # At least once: every outbox row sent, and each one is in its recipient's mailbox.
        rows = session.exec(select(Outbox.message_id, Outbox.recipient, Outbox.status)).all()
    assert len(rows) == 2 * GAMES * PLIES  # the mover's reply and the opponent's notice
    assert {status for _, _, status in rows} == {"sent"}
    wanted: dict[str, set[str]] = {}
    for message_id, recipient, _ in rows:
        wanted.setdefault(recipient.split("@")[0], set()).add(message_id)
    for user, ids in wanted.items():
        got = Counter(parse(raw)["Message-ID"] for raw in mailrig.messages(user))
        missing = ids - set(got)
        assert not missing, f"{user}: {len(missing)} of {len(ids)} mails never arrived"
    db.dispose()
