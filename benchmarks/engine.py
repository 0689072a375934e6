"""Engine speed, run on demand: `python benchmarks/engine.py` prints every figure.

Ataxx perft(5) from the start (bulk counting) and perft(4) playing every leaf; Capture Go
random legal play on 19x19 with superko checks; Myriades random full games.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import engine_ataxx, engine_capturego, engine_myriades  # noqa: E402

if __name__ == "__main__":
    for bench in (engine_ataxx, engine_capturego, engine_myriades):
        bench.run()
