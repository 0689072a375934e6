"""Ataxx move generation speed: perft from the start, as the Ataxx community measures it.

Run `python benchmarks/engine_ataxx.py` (or `python -m benchmarks.engine_ataxx`) from the repository.
Targets: perft(5) with bulk counting under 2 s, perft(4) playing every leaf under 1 s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem_engine.ataxx.game import Ataxx, perft  # noqa: E402

CASES = [
    # (depth, bulk counting, expected nodes, target seconds)
    (5, True, 4_752_668, 2.0),
    (4, False, 155_888, 1.0),
]


def run() -> None:
    rules = Ataxx()
    start = rules.start()
    for depth, bulk, expected, target in CASES:
        began = time.perf_counter()
        nodes = perft(rules, start, depth, bulk=bulk)
        seconds = time.perf_counter() - began
        mode = "bulk counting" if bulk else "every leaf played"
        verdict = "ok" if nodes == expected and seconds < target else "FAIL"
        print(
            f"ataxx perft({depth}) {mode}: {nodes:,} nodes in {seconds:.3f} s, "
            f"{nodes / seconds:,.0f} nodes/s (expected {expected:,}, target < {target} s) {verdict}"
        )
        if nodes != expected:
            raise SystemExit(f"perft({depth}) gave {nodes}, expected {expected}")


if __name__ == "__main__":
    run()
