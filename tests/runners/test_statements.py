"""What a move mail costs the database: counted through the daemon's own processing (quarantine
bookkeeping included) on a SQLite file, with SQLAlchemy's events. One transaction and a handful
of statements per move; the counts do not depend on how busy the machine is."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import replace

from sqlalchemy import event
from sqlmodel import Session, func, select

import pbem_engine as rules_engine
from pbem.core.models import Game, Move, Outbox, Quarantine
from pbem.runners import quarantine
from pbem.runners.daemon import Daemon
from tests.mailer import compose, parse, reply_to

ALICE, BOB = "alice@example.org", "bob@example.org"
#: one UPDATE of the game per move (a Core read flushes only the changes of what it reads); a
#: game without conditional lines asks nothing about them (Game.lines_waiting); the opponent,
#: the watchers and the vacations come with the read of the boards the mail answers
#: (`pbem.core.work.with_game_facts`)
MAX_STATEMENTS = 11


class _Counted:
    """The daemon over the test's database, and what each mail it processes costs."""

    def __init__(self, server) -> None:  # noqa: ANN001
        settings = replace(server.service.settings, imap=object(), smtp=None)  # no sandbox server
        self.engine = server.engine
        self.daemon = Daemon(settings, self.engine, source=object())
        self.daemon._loop = asyncio.new_event_loop()
        self.keys = 0
        self.counts: Counter[str] = Counter()
        event.listen(self.engine, "before_cursor_execute", self._statement)
        event.listen(self.engine, "begin", self._begin)

    def _statement(self, *args: object, **kwargs: object) -> None:
        self.counts["statements"] += 1

    def _begin(self, *args: object, **kwargs: object) -> None:
        self.counts["transactions"] += 1

    def last(self, address: str):  # noqa: ANN201
        with Session(self.engine) as session:
            row = session.exec(select(Outbox).where(Outbox.recipient == address).order_by(Outbox.id.desc())).first()
        return parse(row.message) if row is not None else None

    def say(self, address: str, body: str) -> Counter[str]:
        """Reply to the newest mail of `address` (or write anew); what processing it cost."""
        mail = self.last(address)
        raw = reply_to(address, mail, body) if mail is not None else compose(address, body)
        self.keys += 1
        before = Counter(self.counts)
        assert self.daemon.process(f"k{self.keys}", raw)
        return self.counts - before

    def close(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self._statement)
        event.remove(self.engine, "begin", self._begin)
        self.daemon.journal.close()
        self.daemon._loop.close()


def _start_game(counted: _Counted) -> None:
    """Game #1, Capture Go 9x9: Alice (black) challenges, confirming if asked; Bob accepts."""
    counted.say(ALICE, f"challenge capturego {BOB} size=9 colour=black")
    if "Did you write" in (counted.last(ALICE)["Subject"] or ""):
        counted.say(ALICE, "confirm")
    counted.say(BOB, "accept 1")


def test_a_move_mail_is_one_transaction_of_at_most_11_statements(server) -> None:
    counted = _Counted(server)
    try:
        _start_game(counted)
        rules = rules_engine.create("capturego", {"size": 9})
        pos = rules.start()
        costs = []
        for ply in range(6):
            move = rules.legal_moves(pos)[(ply * 7) % 40]
            text = rules.format(pos, move)
            pos = rules.apply(pos, move)
            costs.append(counted.say((ALICE, BOB)[ply % 2], text))
    finally:
        counted.close()
    with Session(server.engine) as session:
        assert session.exec(select(func.count()).select_from(Move)).one() == 6  # every move was played
        assert session.get(Game, 1).ply == 6
        assert session.exec(select(func.count()).select_from(Quarantine)).one() == 0
        assert session.exec(select(func.count()).select_from(Outbox)).one() >= 2 * 6  # reply and notice each
    for cost in costs:
        assert cost["transactions"] == 1, costs
        assert cost["statements"] <= MAX_STATEMENTS, costs


def test_a_retried_move_mail_forgets_its_count_in_the_same_one_transaction(server) -> None:
    counted = _Counted(server)
    try:
        _start_game(counted)
        raw = reply_to(ALICE, counted.last(ALICE), "e5")
        assert not quarantine.failed(server.engine, counted.daemon.service.parse(raw), raw, "boom")
        before = Counter(counted.counts)
        assert counted.daemon.process("again", raw)
        cost = counted.counts - before
    finally:
        counted.close()
    assert cost["transactions"] == 1 and cost["statements"] <= MAX_STATEMENTS + 1, cost
    with Session(server.engine) as session:
        assert session.exec(select(func.count()).select_from(Quarantine)).one() == 0
        assert session.exec(select(func.count()).select_from(Move)).one() == 1
