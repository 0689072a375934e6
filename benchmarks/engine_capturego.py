"""Capture Go engine speed: random legal play on 19x19, superko checked on every move.

Method: complete games from the empty board with a target no game reaches, so every game
ends by two passes. Each move is chosen by a seeded random playout policy that uses only the
public API: draw empty points uniformly at random without replacement, skip a point whose
four neighbours are all the mover's own stones or the edge (filling an own eye would make
games endless), and play the first point `is_legal` accepts (occupancy, suicide and positional
superko); pass when none is left. The timed loop includes the choice, the legality checks and
`apply`, i.e. everything a playout does. The list of empty points is kept up to date from the
moves, and rebuilt after a capture.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem_engine.go.game import PASS, CaptureGo, GoPosition, Move  # noqa: E402

SIZE = 19
GAMES = 50
SEED = 2026


def _neighbours(size: int) -> dict[Move, tuple[Move, ...]]:
    around = {}
    for row in range(size):
        for col in range(size):
            steps = ((col - 1, row), (col + 1, row), (col, row - 1), (col, row + 1))
            around[Move(col, row)] = tuple(Move(c, r) for c, r in steps if 0 <= c < size and 0 <= r < size)
    return around


def play_game(rules: CaptureGo, rng: random.Random) -> tuple[GoPosition, int]:
    """One random game to its end; returns the final position and the number of plies."""
    around = _neighbours(rules.size)
    pos = rules.start()
    empty = [Move(col, row) for row in range(rules.size) for col in range(rules.size)]
    stone = rules.stone
    is_legal = rules.is_legal
    draw = rng.random
    while not rules.outcome(pos).over:
        side = pos.turn
        untried = len(empty)
        move = PASS
        while untried:
            k = int(draw() * untried)
            candidate = empty[k]
            if not all(stone(pos, q) == side for q in around[candidate]) and is_legal(pos, candidate):
                move = candidate
                break
            untried -= 1
            empty[k], empty[untried] = empty[untried], empty[k]
        captured = sum(pos.captures)
        pos = rules.apply(pos, move)
        if sum(pos.captures) != captured:
            empty = [m for m in around if stone(pos, m) is None]
        elif move is not PASS:
            empty.remove(move)
    return pos, pos.ply


def run() -> None:
    rules = CaptureGo({"size": SIZE, "target": 10**9})
    rng = random.Random(SEED)
    plies = 0
    began = time.perf_counter()
    for _ in range(GAMES):
        _, count = play_game(rules, rng)
        plies += count
    elapsed = time.perf_counter() - began
    print(
        f"capturego {SIZE}x{SIZE}: {GAMES} random games to the end, {plies} moves "
        f"({plies / GAMES:.0f} per game) in {elapsed:.2f} s = {plies / elapsed:,.0f} moves/s"
    )


if __name__ == "__main__":
    run()
