"""Bots for every game of the engine: a move for a position, a level and a seed, with no I/O.

`choose(rules, pos, level, seed, budget)` returns the bot's move (the engine's own move value,
which `rules.format` writes) and `Stats` (nodes searched, depth reached). Results depend only on
the arguments: a node budget per level and game bounds the work; a caller who must answer in
time passes `Budget(nodes, deadline)`, whose deadline only cuts iterative deepening early.
`deadline(clock)` is the one the service and the benchmark use: `CPU_SECONDS` on the caller's
clock, so that a slow or busy machine still gets its move in time (the node budgets bind first
on a quick one).
Level 1 plays a random reasonable move (a beginner can win), level 3 the strongest.
`accepts_draw` and `accepts_takeback` are the bots' answers to their opponent's offers
(`pbem_bots.manners`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem_bots import ataxx, capturego, myriades
from pbem_bots.manners import accepts_draw, accepts_takeback
from pbem_bots.search import Budget, Stats
from pbem_engine.ataxx.game import Ataxx
from pbem_engine.common.base import Rules
from pbem_engine.go.game import CaptureGo
from pbem_engine.myriades.game import Myriades

__all__ = [
    "CPU_SECONDS", "FAMILIES", "LEVELS", "Budget", "Stats", "accepts_draw", "accepts_takeback", "budget_for", "choose",
    "NAMES", "deadline", "is_name", "name",
]

#: the levels a bot plays at
LEVELS = (1, 2, 3)

#: nodes per level and family, calibrated so level 3 stays well under 2 s of CPU a move
_NODES = {
    "ataxx": {1: 0, 2: 3_000, 3: 250_000},
    "capturego": {1: 0, 2: 600, 3: 6_000},
    # Myriades and Infinito: how many candidate turns are judged against the best reply
    "myriades": {1: 0, 2: 8, 3: 60},
}

#: the game families a bot plays (`Rules.family`)
FAMILIES = tuple(_NODES)


#: the most CPU a bot's move may take (the goal is 2 s at the 95th percentile); the caller's clock
CPU_SECONDS = 1.5


def budget_for(rules: Rules[Any, Any], level: int, deadline: Callable[[], bool] | None = None) -> Budget:
    """The default node budget of `level` in the game of `rules`, cut short by `deadline` if given."""
    _check(level)
    return Budget(_NODES[rules.family][level], deadline)


def deadline(clock: Callable[[], float], seconds: float = CPU_SECONDS) -> Callable[[], bool]:
    """True once `seconds` have passed on `clock` (the caller's: `time.thread_time` for the CPU
    of the thread that searches), counted from now."""
    until = clock() + seconds
    return lambda: clock() >= until


def _check(level: int) -> None:
    if level not in LEVELS:
        raise ValueError(f"a bot level is one of {LEVELS}, not {level!r}")


def choose(rules: Rules[Any, Any], pos: Any, level: int, seed: int, budget: Budget | None = None) -> tuple[Any, Stats]:
    """The bot's move in `pos` and what its search did; raises ValueError if the game is over."""
    _check(level)
    if rules.outcome(pos).over:
        raise ValueError("the game is over")
    if budget is None:
        budget = budget_for(rules, level)
    if isinstance(rules, Ataxx):
        return ataxx.choose(rules, pos, level, seed, budget)
    if isinstance(rules, CaptureGo):
        return capturego.choose(rules, pos, level, seed, budget)
    if isinstance(rules, Myriades):
        return myriades.choose(rules, pos, level, seed, budget)
    raise ValueError(f"no bot plays {rules.name}")


def name(kind: str, level: int) -> str:
    """The bot's player name for a game kind and level: `name("ataxx", 3) == "bot-ataxx-3"`."""
    _check(level)
    return f"bot-{kind}-{level}"


#: every bot's player name (`name`)
NAMES = tuple(name(family, level) for family in FAMILIES for level in LEVELS)


def is_name(text: str) -> bool:
    """Whether `text` is a bot's player name (`name`): no person may take one (the service's
    rule for names), so a mail that shows it shows a bot."""
    return text in NAMES
