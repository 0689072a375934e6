"""How strong and how fast the bots are, run on demand: `python -m benchmarks.bots [--games N] [--kinds ...]`.

Per game kind: every level against random play, level 3 against level 1, and (Ataxx variants
and Capture Go) level 3 against a one-ply greedy player; each match over N seeded games with
the colours alternating. Then the CPU time per bot move (p50 and p95 per level and kind) and
the Ataxx search's nodes per second beside the engine's own perft rate, measured in this run.
Capture Go is played on 9x9 to 5 captures. Goals: level 1 wins >= 70% against random, level 3
>= 98%; level 3 beats level 1 >= 90% and greedy >= 80%; level 3 <= 2 s CPU per move (p95),
level 1 under 50 ms.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bots  # noqa: E402
from bots import ataxx as ataxx_bot  # noqa: E402
from bots import capturego as go_bot  # noqa: E402
from bots import myriades as myriades_bot  # noqa: E402
from engine.ataxx import Ataxx, perft  # noqa: E402
from engine.base import Rules  # noqa: E402
from engine.registry import create  # noqa: E402

KINDS: dict[str, dict[str, Any]] = {
    "ataxx": {},
    "infection": {},
    "assimilation": {},
    "capturego": {"size": 9, "target": 5},
    "myriades": {},
    "infinito": {},
}
MAX_PLIES = 400  # a game longer than this counts as a draw (the seed variants know no draw rule)
GOALS = {"L1 vs random": 70, "L2 vs random": None, "L3 vs random": 98, "L3 vs L1": 90, "L3 vs greedy": 80}

Player = Callable[[Rules, Any, random.Random], Any]
times: dict[tuple[str, int], list[float]] = defaultdict(list)
search_nodes: dict[str, list[tuple[int, float]]] = defaultdict(list)


def bot(level: int) -> Player:
    def play(rules: Rules, pos: Any, rng: random.Random) -> Any:
        began = time.process_time()
        move, stats = bots.choose(rules, pos, level, rng.randrange(1 << 30))
        spent = time.process_time() - began
        times[(rules.name, level)].append(spent)
        if level == 3:
            search_nodes[rules.family].append((stats.nodes, spent))
        return move
    return play


def random_player(rules: Rules, pos: Any, rng: random.Random) -> Any:
    return rules.sample(pos, rng.choice)


def greedy_player(rules: Rules, pos: Any, rng: random.Random) -> Any:
    module = {"ataxx": ataxx_bot, "capturego": go_bot, "myriades": myriades_bot}[rules.family]
    return module.greedy(rules, pos, rng)  # type: ignore[attr-defined]


def game(rules: Rules, first: Player, second: Player, seed: int) -> int | None:
    """One game; the winner (0 for `first`, 1 for `second`) or None for a draw."""
    rng = random.Random(seed)
    pos = rules.start()
    players = (first, second)
    while not rules.outcome(pos).over:
        if rules.ply(pos) >= MAX_PLIES:
            return None
        pos = rules.apply(pos, players[rules.turn(pos)](rules, pos, rng))
    return rules.outcome(pos).winner


def match(rules: Rules, hero: Player, villain: Player, games: int, seed: int) -> float:
    """The hero's share of wins in percent, the colours alternating."""
    wins = 0
    for index in range(games):
        if index % 2 == 0:
            wins += game(rules, hero, villain, seed + index) == 0
        else:
            wins += game(rules, villain, hero, seed + index) == 1
    return 100.0 * wins / games


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def perft_rate() -> float:
    """The engine's perft(4) from the start, every leaf played: nodes per second."""
    rules = Ataxx()
    began = time.process_time()
    nodes = perft(rules, rules.start(), 4, bulk=False)
    return nodes / (time.process_time() - began)


def run(games: int, kinds: list[str]) -> None:
    print(f"bots benchmark: {games} games per match, Python {platform.python_version()}, {platform.machine()}")
    rows = []
    for kind in kinds:
        rules = create(kind, KINDS[kind])
        matches = {
            "L1 vs random": (bot(1), random_player),
            "L2 vs random": (bot(2), random_player),
            "L3 vs random": (bot(3), random_player),
            "L3 vs L1": (bot(3), bot(1)),
        }
        if rules.family in ("ataxx", "capturego"):
            matches["L3 vs greedy"] = (bot(3), greedy_player)
        for label, (hero, villain) in matches.items():
            began = time.monotonic()
            share = match(rules, hero, villain, games, seed=1000)
            goal = GOALS[label]
            verdict = "" if goal is None else ("ok" if share >= goal else f"BELOW {goal}%")
            rows.append((kind, label, share, verdict))
            print(f"  {kind:<13} {label:<13} {share:5.1f}% {verdict:<10} ({time.monotonic() - began:.0f} s)", flush=True)
    print("\nwins:")
    print(f"  {'kind':<13} {'match':<13} {'won':>6}")
    for kind, label, share, verdict in rows:
        print(f"  {kind:<13} {label:<13} {share:5.1f}% {verdict}")
    print("\nCPU per bot move (ms):")
    print(f"  {'kind':<13} level {'moves':>6} {'p50':>8} {'p95':>8} {'max':>8}")
    for (kind, level), spent in sorted(times.items()):
        print(
            f"  {kind:<13} {level:>5} {len(spent):>6} {1000 * percentile(spent, 0.5):8.1f} "
            f"{1000 * percentile(spent, 0.95):8.1f} {1000 * max(spent):8.1f}"
        )
    rate = perft_rate()
    print(f"\nengine perft(4), every leaf played: {rate:,.0f} nodes/s")
    for family, samples in sorted(search_nodes.items()):
        nodes = sum(n for n, _ in samples)
        spent = sum(s for _, s in samples)
        if family != "myriades" and spent:
            print(f"level-3 search, {family}: {nodes / spent:,.0f} nodes/s ({nodes / spent / rate:.2f} x perft)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per match (default 100)")
    parser.add_argument("--kinds", nargs="+", choices=list(KINDS), default=list(KINDS))
    args = parser.parse_args(argv)
    run(args.games, args.kinds)


if __name__ == "__main__":
    main()
