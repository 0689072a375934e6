"""What a move mail costs the daemon in machine instructions, counted by valgrind: the same
figure however busy the machine is, so two versions of the code compare to a fraction of a
percent where the seconds of the throughput benchmark move by a fifth between runs.

Games of Ataxx 7x7 (the throughput benchmark's) are started through the daemon's own `process`,
then each move mail goes through it; valgrind's callgrind counts the instructions run inside
`process` only (the mail's parse, its transaction, the replies rendered and written to the
outbox), not this script's own work in writing the mails. Sending over SMTP is not in it, and
neither is the kernel's work (system calls, switches between threads), which valgrind does not
see: on PostgreSQL, whose statements are round trips, that is where much of the difference
from SQLite lies (see benchmarks/README.md).

    python benchmarks/move_instructions.py [--database sqlite|postgresql|both] [--games 10] [--moves 120]

It needs valgrind (Debian's package), and runs about 15 times slower than the code itself.
"""

from __future__ import annotations

import argparse
import asyncio
import email
import email.policy
import functools
import os
import re
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

from sqlmodel import Session, select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pbem_engine as rules_engine  # noqa: E402
from pbem.core.config import Settings  # noqa: E402
from pbem.core.db import make_engine  # noqa: E402
from pbem.core.models import Outbox  # noqa: E402
from pbem.runners.daemon import Daemon  # noqa: E402
from tests.mailer import GAME, compose, reply_to  # noqa: E402

_CHILD = "PBEM_MOVE_INSTRUCTIONS_CHILD"
#: valgrind counts inside this C function only: `process` is called through it, nothing else on
#: the move path calls it (Jinja's compiler does, on a template's first use, before the moves)
_MARK = "functools_reduce"


def _play(database: str, games: int, moves: int) -> int:
    """Start `games` games, then play `moves` move mails through `Daemon.process` (each called
    through `functools.reduce`, the mark valgrind counts within); how many were played."""
    with ExitStack() as stack:
        home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pbem-bench-")))
        settings = replace(Settings(), address=GAME, home=home,
                           max_replies_per_thread=10**6, max_replies_per_day=10**6)
        url = settings.db_url
        if database == "postgresql":
            from tests.databases import throwaway
            url = stack.enter_context(throwaway("postgresql", home))
        db = make_engine(url)
        daemon = Daemon(replace(settings, imap=object(), smtp=None), db, source=object())  # no sandbox server
        daemon._loop = asyncio.new_event_loop()
        keys = iter(range(10**9))

        def last(address: str) -> email.message.EmailMessage | None:
            with Session(db) as session:
                found = session.exec(select(Outbox.message).where(Outbox.recipient == address)
                                     .order_by(Outbox.id.desc())).first()
            return email.message_from_bytes(found, policy=email.policy.default) if found else None  # type: ignore[return-value]

        def say(address: str, body: str, counted: bool = False) -> None:
            mail = last(address)
            raw = reply_to(address, mail, body) if mail is not None else compose(address, body)
            key = f"k{next(keys)}"
            if counted:
                functools.reduce(lambda _a, _b: daemon.process(key, raw), [None], None)
            else:
                daemon.process(key, raw)

        rules = rules_engine.create("ataxx", {})
        players = [(f"a{g}@example.org", f"b{g}@example.org") for g in range(games)]
        for number, (first, second) in enumerate(players, start=1):
            say(first, f"challenge ataxx {second} colour=x")
            if "Did you write" in (last(first)["Subject"] or ""):  # type: ignore[index]
                say(first, "confirm")
            say(second, f"accept {number}")
        positions = [rules.start() for _ in players]
        played, ply = 0, 0
        while played < moves:
            for g, position in enumerate(positions):
                legal = rules.legal_moves(position)
                if not legal or played >= moves:
                    continue
                move = legal[(ply * 7 + g) % len(legal)]
                say(players[g][ply % 2], f"move {g + 1} {rules.format(position, move)}", counted=True)
                positions[g] = rules.apply(position, move)
                played += 1
            ply += 1
        daemon.journal.close()
        db.dispose()
        return played


def _count(database: str, games: int, moves: int) -> tuple[int, int]:
    """(instructions inside `process`, move mails), from a run of this script under valgrind."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--toggle-collect={_MARK}",
         "--callgrind-out-file=/dev/null", sys.executable, __file__,
         "--database", database, "--games", str(games), "--moves", str(moves)],
        capture_output=True, text=True, env={**os.environ, _CHILD: "1", "PYTHONHASHSEED": "0"}, check=False,
    )
    collected = re.search(r"Collected\s*:\s*(\d+)", done.stderr)
    played = re.search(r"^played (\d+)$", done.stdout, re.M)
    if done.returncode != 0 or collected is None or played is None:
        raise SystemExit(f"the run under valgrind failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return int(collected.group(1)), int(played.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--moves", type=int, default=120)
    args = parser.parse_args()
    if os.environ.get(_CHILD):
        print(f"played {_play(args.database, args.games, args.moves)}")
        return
    for database in ("sqlite", "postgresql") if args.database == "both" else (args.database,):
        instructions, played = _count(database, args.games, args.moves)
        print(f"{database}: {instructions / played / 1e6:.2f} million instructions per move mail "
              f"inside Daemon.process ({played} move mails of Ataxx 7x7 in {args.games} games)")


if __name__ == "__main__":
    main()
