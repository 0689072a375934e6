"""A bot's answers to its opponent's offers: a draw when it is not ahead, a take-back at level 1.

`accepts_draw(rules, pos, side, level)` judges the position for the bot's `side` with the same
evaluation and search its moves use, on a small node budget: levels 2 and 3 accept when their
score is not above 0; level 1 (a beginner's partner) accepts unless it is clearly winning.
`accepts_takeback(level)` is the take-back policy: level 1 lets a person practise, levels 2 and
3 play rated games and refuse. Both depend only on their arguments: no I/O, no clock.
"""

from __future__ import annotations

from typing import Any

from pbem_bots.ataxx import AtaxxGame
from pbem_bots.capturego import GoGame
from pbem_bots.myriades import _lowest_free, best_gain
from pbem_bots.search import WIN, Budget, Game, search
from pbem_engine.ataxx.game import Ataxx
from pbem_engine.common.base import Rules
from pbem_engine.go.game import CaptureGo
from pbem_engine.myriades.game import Myriades
from pbem_engine.myriades.notation import NEUTRAL

#: nodes of the search that judges a draw offer (far below a level-3 move)
DRAW_NODES = {"ataxx": 2_000, "capturego": 300}
#: a lead this large (in each game's evaluation units) is "clearly winning" for a level-1 bot:
#: three Ataxx pieces, a Capture Go stone about to be taken, ten points of Myriades sum
CLEAR = {"ataxx": 48, "capturego": 700, "myriades": 10}
#: the levels that let their opponent take back a move
TAKEBACK_LEVELS = frozenset({1})


def accepts_takeback(level: int) -> bool:
    """Whether a bot of `level` lets its opponent take back a move: level 1 only (levels 2 and
    3 play rated games as they stand)."""
    return level in TAKEBACK_LEVELS


def accepts_draw(rules: Rules[Any, Any], pos: Any, side: int, level: int) -> bool:
    """Whether the bot playing `side` accepts a draw in `pos`: when it is not ahead (level 1:
    when it is not clearly winning)."""
    value = score(rules, pos, side)
    if level <= 1:
        return value < CLEAR[rules.family]
    return value <= 0


def score(rules: Rules[Any, Any], pos: Any, side: int) -> int:
    """How far `side` is ahead in `pos` (> 0 ahead, < 0 behind), by the bots' own evaluation
    and a small search; a decided game scores beyond any evaluation."""
    outcome = rules.outcome(pos)
    if outcome.over:
        return 0 if outcome.winner is None else WIN if outcome.winner == side else -WIN
    if isinstance(rules, Myriades):
        return _myriades(rules, pos, side)
    if isinstance(rules, Ataxx):
        game: Game = AtaxxGame(rules)
        state = game.state(pos)  # type: ignore[attr-defined]
    elif isinstance(rules, CaptureGo):
        game, state = GoGame(rules), pos
    else:
        raise ValueError(f"no bot plays {rules.name}")
    value = _searched(game, state, DRAW_NODES[rules.family])
    return value if rules.turn(pos) == side else -value


def _searched(game: Game, state: Any, nodes: int) -> int:
    """The score of `state` for the side to move: the search's, or the static evaluation
    where the search has nothing to choose between."""
    _move, stats = search(game, state, Budget(nodes))
    return stats.score if stats.depth else game.evaluate(state)


def _myriades(rules: Myriades, pos: Any, side: int) -> int:
    """The opponent's sum minus the bot's (the lower sum wins), the side to move counted with
    the stone it must place and the most its best step can neutralise."""
    sums = [0, 0]
    for cell in pos.cells:
        if cell is not None and cell != NEUTRAL:
            sums[cell[0]] += cell[1]
    mover = rules.turn(pos)
    sums[mover] += _lowest_free(rules, pos.cells, mover)[0] - best_gain(pos.cells, pos.size, mover)
    return sums[1 - side] - sums[side]


__all__ = ["CLEAR", "DRAW_NODES", "accepts_draw", "accepts_takeback", "score"]
