"""Scale: does a move cost more when the database holds many games?

The service runs in-process (no mail servers: the per-move cost is the database and the
templates). The same batch of moves is played once beside a few stored games and once
beside many; stored games are mostly finished, filled in bulk with their moves. Also
prints the database bytes per stored move: for the bulk-filled rows (game + move rows),
and for the moves the service itself processed (with their inbound and outbox rows).
"""

from __future__ import annotations

import argparse
import gc
import random
import tempfile
import time
from pathlib import Path

from sqlalchemy import Engine, insert, text

import pbem_engine
from benchmarks import service_common as C
from pbem.core.config import Settings
from pbem.core.db import make_engine, migrate, transaction
from pbem.core.models import Game, Move
from pbem.games.clock import now
from pbem.runners.inbound import Service
from tests.databases import throwaway
from tests.integration.lines import script
from tests.mailrig import MailRig

CHUNK = 5000


def fill(db: Engine, stored: int, plies: int, people: list[int]) -> int:
    """`stored` games, 9 in 10 finished, each with `plies` moves; returns the rows' move count."""
    rules = pbem_engine.create(C.KIND, {})
    texts = script(rules, random.Random(5), plies)
    pos = rules.start()
    for t in texts:
        pos, _ = rules.play(pos, t)
    moment = now()
    base = Game(kind=C.KIND, options={}, player0_id=people[0], player1_id=people[1], state=rules.dump(pos),
                status="finished", ply=plies, turn=rules.turn(pos), winner=0, result="1-0", reason="benchmark",
                created_at=moment, updated_at=moment).model_dump(exclude={"id"})
    move_base = Move(game_id=0, ply=0, side=0, player_id=people[0], notation="", raw="",
                     message_id=None, created_at=moment).model_dump(exclude={"id"})
    with db.begin() as conn:
        first = conn.execute(text("SELECT coalesce(max(id), 0) FROM game")).scalar() + 1
    for start in range(0, stored, CHUNK):
        ids = range(first + start, first + min(start + CHUNK, stored))
        game_rows, move_rows = [], []
        for gid in ids:
            a, b = people[gid % len(people)], people[(gid + 1) % len(people)]
            status = "active" if gid % 10 == 0 else "finished"
            game_rows.append({**base, "id": gid, "player0_id": a, "player1_id": b, "status": status})
            for ply, notation in enumerate(texts, 1):
                move_rows.append({**move_base, "game_id": gid, "ply": ply, "side": (ply - 1) % 2,
                                  "player_id": a if ply % 2 else b, "notation": notation, "raw": notation,
                                  "message_id": f"<{gid}.{ply}@client.test>"})
        with db.begin() as conn:
            conn.execute(insert(Game.__table__), game_rows)
            conn.execute(insert(Move.__table__), move_rows)
    if db.dialect.name == "postgresql":
        with db.begin() as conn:
            conn.execute(text(f"SELECT setval('game_id_seq', {first + stored})"))
            conn.execute(text("ANALYZE"))
    return stored * plies


def size(db: Engine) -> int:
    with db.begin() as conn:
        if db.dialect.name == "postgresql":
            return conn.execute(text("SELECT pg_database_size(current_database())")).scalar()
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
        return pages * conn.exec_driver_sql("PRAGMA page_size").scalar()


def per_move(url: str, stored: int, games: int, plies: int, fill_plies: int) -> dict[str, float]:
    """Seconds and CPU seconds per move with `stored` games in the database."""
    rig = MailRig()  # only for addresses: nothing is started
    db = make_engine(url)
    migrate(db)
    prepared = C.prepare_games(db, rig, games, plies)
    with transaction(db) as session:
        people = [row[0] for row in session.exec(text("SELECT id FROM player ORDER BY id"))]
    started = time.perf_counter()
    filled = fill(db, stored, fill_plies, people) if stored > games else 0
    fill_seconds = time.perf_counter() - started
    before = size(db)
    settings = Settings(address=rig.address("game"), database_url=url, home=Path(url.rsplit("/", 1)[-1]).parent)
    service = Service(settings, db)
    mails = [C.move_mail(rig, g, ply)[1] for ply in range(plies) for g in prepared]
    for raw in mails[: games]:  # warm caches (templates, engine) on the first round
        service.handle(raw)
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    for raw in mails[games:]:
        result = service.handle(raw)
        if result.status != "processed":
            raise RuntimeError(f"move not processed: {result}")
    measured = len(mails) - games
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    after = size(db)
    db.dispose()
    return {
        "stored": max(stored, games),
        "fill_s": fill_seconds,
        "ms_per_move": 1000 * wall / measured,
        "cpu_ms_per_move": 1000 * cpu / measured,
        "bytes_per_filled_move": before / filled if filled else 0.0,
        "bytes_per_processed_move": (after - before) / measured,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=1000, help="stored games in the small database")
    parser.add_argument("--stored", type=int, default=100_000, help="stored games in the large one (issue: 1000000)")
    parser.add_argument("--fill-plies", type=int, default=20, help="moves per bulk-filled game")
    parser.add_argument("--games", type=int, default=100, help="games that receive the measured moves")
    parser.add_argument("--plies", type=int, default=6, help="moves per measured game (the first is warm-up)")
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    args = parser.parse_args(argv)
    results = []
    for stored in (args.small, args.stored):
        with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp, throwaway(args.database, Path(tmp)) as url:
            results.append(per_move(url, stored, args.games, args.plies, args.fill_plies))
    print(f"machine: {C.machine()}")
    print(f"scale ({args.database}): {args.games * (args.plies - 1)} measured moves, in-process Service.handle")
    for r in results:
        print(f"  {r['stored']:>9,} stored games (filled in {r['fill_s']:.0f} s): {r['ms_per_move']:.2f} ms/move, "
              f"{r['cpu_ms_per_move']:.2f} CPU ms/move; {r['bytes_per_filled_move']:.0f} bytes per stored move "
              f"(game + move rows), {r['bytes_per_processed_move']:.0f} bytes per processed move (all its rows)")
    small, large = results
    print(f"  large / small: {large['ms_per_move'] / small['ms_per_move']:.2f}x wall, "
          f"{large['cpu_ms_per_move'] / small['cpu_ms_per_move']:.2f}x CPU")



if __name__ == "__main__":
    main()
