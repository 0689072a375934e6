"""How strong and how fast the bots are, on demand: `python -m benchmarks.bots [--games N] [--jobs N] ...`.

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
import multiprocessing
import platform
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pbem_bots  # noqa: E402
from pbem_bots import ataxx as ataxx_bot  # noqa: E402
from pbem_bots import capturego as go_bot  # noqa: E402
from pbem_bots import myriades as myriades_bot  # noqa: E402
from pbem_engine.ataxx.game import Ataxx, perft  # noqa: E402
from pbem_engine.common.base import Rules  # noqa: E402
from pbem_engine.registry import create  # noqa: E402

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
    """A bot as the service plays it: its node budget, cut at `pbem_bots.CPU_SECONDS` of this thread's CPU."""
    def play(rules: Rules, pos: Any, rng: random.Random) -> Any:
        began = time.thread_time()
        budget = pbem_bots.budget_for(rules, level, pbem_bots.deadline(time.thread_time))
        move, stats = pbem_bots.choose(rules, pos, level, rng.randrange(1 << 30), budget)
        spent = time.thread_time() - began
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


PLAYERS: dict[str, Callable[[], tuple[Player, Player]]] = {
    "L1 vs random": lambda: (bot(1), random_player),
    "L2 vs random": lambda: (bot(2), random_player),
    "L3 vs random": lambda: (bot(3), random_player),
    "L3 vs L1": lambda: (bot(3), bot(1)),
    "L3 vs greedy": lambda: (bot(3), greedy_player),
}


def one_game(task: tuple[str, str, int]) -> tuple[str, str, bool, dict, dict]:
    """One game of a match (the colours alternate with the index): whether the hero won, and the
    CPU per move and the search's nodes it took (a worker process sends them back)."""
    kind, label, index = task
    times.clear()
    search_nodes.clear()
    rules = create(kind, KINDS[kind])
    hero, villain = PLAYERS[label]()
    if index % 2 == 0:
        won = game(rules, hero, villain, 1000 + index) == 0
    else:
        won = game(rules, villain, hero, 1000 + index) == 1
    return kind, label, won, dict(times), dict(search_nodes)


def matches_of(kind: str, wanted: list[str] | None) -> list[str]:
    rules = create(kind, KINDS[kind])
    labels = [label for label in PLAYERS if label != "L3 vs greedy" or rules.family in ("ataxx", "capturego")]
    return [label for label in labels if wanted is None or label in wanted]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def perft_rate() -> float:
    """The engine's perft(4) from the start, every leaf played: nodes per second."""
    rules = Ataxx()
    began = time.process_time()
    nodes = perft(rules, rules.start(), 4, bulk=False)
    return nodes / (time.process_time() - began)


def run(games: int, kinds: list[str], jobs: int = 1, wanted: list[str] | None = None) -> None:
    print(f"bots benchmark: {games} games per match, {jobs} process(es), Python {platform.python_version()}, "
          f"{platform.machine()}")
    rows = []
    with multiprocessing.Pool(jobs) as pool:
        for kind in kinds:
            for label in matches_of(kind, wanted):
                began = time.monotonic()
                won = 0
                for _kind, _label, hero_won, spent, nodes in pool.imap_unordered(
                        one_game, [(kind, label, index) for index in range(games)]):
                    won += hero_won
                    for key, values in spent.items():
                        times[key].extend(values)
                    for key, values in nodes.items():
                        search_nodes[key].extend(values)
                share = 100.0 * won / games
                goal = GOALS[label]
                verdict = "" if goal is None else ("ok" if share >= goal else f"BELOW {goal}%")
                rows.append((kind, label, share, verdict))
                print(f"  {kind:<13} {label:<13} {share:5.1f}% {verdict:<10} ({time.monotonic() - began:.0f} s)",
                      flush=True)
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
    parser.add_argument("--matches", nargs="+", choices=list(PLAYERS), help="only these matches")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once, one process each (default 1)")
    args = parser.parse_args(argv)
    run(args.games, args.kinds, args.jobs, args.matches)


if __name__ == "__main__":
    main()
