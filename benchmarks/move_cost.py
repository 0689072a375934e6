"""What one move mail costs the daemon, counted: parses, transactions, statements, flushes and
position decodes per move, through the daemon's own `process` (quarantine bookkeeping included),
on a SQLite file. Counts, not seconds: they do not depend on how busy the machine is.

    python benchmarks/move_cost.py [--moves 40]
"""

from __future__ import annotations

import argparse
import asyncio
import email
import email.policy
import sys
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pbem.mail.message.inbound  # noqa: E402
import pbem_engine as rules_engine  # noqa: E402
from pbem.core.config import Settings  # noqa: E402
from pbem.core.db import make_engine  # noqa: E402
from pbem.core.models import Outbox  # noqa: E402
from pbem.runners.daemon import Daemon  # noqa: E402
from tests.mailer import GAME, compose, reply_to  # noqa: E402

ALICE, BOB = "alice@example.org", "bob@example.org"


def _count(counts: Counter, db) -> None:  # noqa: ANN001
    """Install the counters: every statement and transaction of the engine, every flush, every
    parse of a raw message and every decoded position, wherever it is called from."""
    event.listen(db, "before_cursor_execute", lambda *a, **k: counts.update(["statements"]))
    event.listen(db, "begin", lambda *a, **k: counts.update(["transactions"]))
    event.listen(OrmSession, "after_flush", lambda *a, **k: counts.update(["flushes"]))
    original = pbem.mail.message.inbound.parse_message

    def parse(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        counts.update(["parses"])
        return original(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("pbem") and getattr(module, "parse_message", None) is original:
            module.parse_message = parse
    for name in rules_engine.names():
        cls = rules_engine.lookup(name)
        load = cls.load

        def counted(self, data, _load=load):  # noqa: ANN001, ANN202
            counts.update(["position loads"])
            return _load(self, data)

        cls.load = counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    settings = replace(Settings(), address=GAME, home=home, max_replies_per_thread=10**6, max_replies_per_day=10**6) \
        if hasattr(Settings(), "max_replies_per_day") else replace(Settings(), address=GAME, home=home)
    db = make_engine(settings.db_url)
    daemon = Daemon(replace(settings, imap=object(), smtp=None), db, source=object())  # no sandbox server
    daemon._loop = asyncio.new_event_loop()
    sequence = [0]

    def last(address: str):  # noqa: ANN202
        with Session(db) as session:
            row = session.exec(select(Outbox).where(Outbox.recipient == address).order_by(Outbox.id.desc())).first()
        return email.message_from_bytes(row.message if hasattr(row, "message") else row.data,
                                        policy=email.policy.default) if row else None

    def say(address: str, body: str) -> None:
        mail = last(address)
        raw = reply_to(address, mail, body) if mail is not None else compose(address, body)
        sequence[0] += 1
        daemon.process(f"k{sequence[0]}", raw)

    say(ALICE, f"challenge capturego {BOB} size=19 colour=black")
    if "Did you write" in (last(ALICE)["Subject"] or ""):
        say(ALICE, "confirm")
    say(BOB, "accept 1")
    rules = rules_engine.create("capturego", {"size": 19})
    pos = rules.start()
    moves = []
    for ply in range(args.moves):
        move = rules.legal_moves(pos)[(ply * 37) % 300]
        moves.append(rules.format(pos, move))
        pos = rules.apply(pos, move)
    counts: Counter = Counter()
    spent: Counter = Counter()
    _count(counts, db)
    for ply, text in enumerate(moves):
        player = (ALICE, BOB)[ply % 2]
        mail = last(player)  # the benchmark's own look-up is not the daemon's cost
        seen = Counter(counts)
        sequence[0] += 1
        daemon.process(f"k{sequence[0]}", reply_to(player, mail, text))
        spent.update(counts - seen)
    print(f"per move mail, over {args.moves} moves of Capture Go 19x19 (daemon.process, SQLite):")
    for key in ("parses", "transactions", "statements", "flushes", "position loads"):
        print(f"  {key:<15} {spent[key] / args.moves:6.1f}")
    print("  (was 3 transactions, 30 statements, 5 flushes; the goal: 1 transaction, at most 15 statements)")
    daemon.journal.close()


if __name__ == "__main__":
    main()
