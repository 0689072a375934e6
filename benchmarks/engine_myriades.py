"""Myriades random full games per second (seeded): sample, format, parse and apply every turn."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem_engine.myriades.game import Infinito, Myriades  # noqa: E402


def _games_per_second(rules: Myriades, seconds: float = 2.0, seed: int = 1) -> tuple[float, int]:
    rng = random.Random(seed)
    games = turns = 0
    begin = time.perf_counter()
    while time.perf_counter() - begin < seconds:
        pos = rules.start()
        while not rules.outcome(pos).over:
            move = rules.sample(pos, rng.choice)
            pos = rules.apply(pos, rules.parse(pos, rules.format(pos, move)))
            turns += 1
        games += 1
    elapsed = time.perf_counter() - begin
    return games / elapsed, round(turns / elapsed)


def run() -> None:
    for label, rules in (("myriades 10x10", Myriades()), ("infinito 26x26", Infinito({"size": 26}))):
        games, turns = _games_per_second(rules)
        print(f"{label}: {games:.1f} random full games/s ({turns} turns/s, seed 1)")


if __name__ == "__main__":
    run()
