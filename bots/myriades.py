"""The Myriades and Infinito bots: a heuristic search over moves, neutralisations and placements.

What keeps a sum low: place the lowest free value; move a stone next to lower enemy stones it
was not next to, so the rules make you neutralise your own stones, and neutralise the highest
(they go back to the supply and count for nothing); and place where the opponent cannot do the
same to you: a low stone with empty squares around it invites an enemy stone next to it.
A turn is judged by what it gains minus the stone it places, then (levels 2 and 3) minus the
best gain the opponent's reply can make. The budget's `nodes` is how many turns are judged
against a reply; a deadline only stops that early.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from pbem_bots.search import Budget, Stats
from pbem_engine.myriades.game import Move, Myriades, Position
from pbem_engine.myriades.notation import NEUTRAL, Cell, _neighbours, _rays, free_values

_PLACES = 6  # the least exposed squares tried for the placement of each candidate turn
_SPOILED = 3  # the opponent's best steps whose way the placement may block


def _stones(cells: Sequence[Cell], side: int) -> list[tuple[int, int]]:
    """(value, square) of `side`'s stones, highest value first."""
    return sorted(((c[1], i) for i, c in enumerate(cells) if c is not None and c[0] == side), reverse=True)


def _top(stones: list[tuple[int, int]], count: int, skip: int) -> list[tuple[int, int]]:
    """The `count` highest stones but the one on `skip`."""
    out = []
    for value, square in stones:
        if square != skip:
            out.append((value, square))
            if len(out) == count:
                break
    return out


def steps(cells: Sequence[Cell], size: int, side: int) -> list[tuple[int, int, int, list[int]]]:
    """Every queen step of `side` that triggers: (gain, origin, target, squares to neutralise),
    neutralising the highest own stones; the gain is their sum."""
    near, rays = _neighbours(size), _rays(size)
    mine = _stones(cells, side)
    if len(mine) < 2:
        return []
    enemy = 1 - side
    # per empty square: the values of the enemy stones next to it (the triggers it could give)
    lows: dict[int, list[tuple[int, int]]] = {}
    for j, c in enumerate(cells):
        if c is not None and c[0] == enemy:
            for t in near[j]:
                if cells[t] is None:
                    lows.setdefault(t, []).append((c[1], j))
    found = []
    for value, origin in mine:
        start = near[origin]
        for line in rays[origin]:
            for t in line:
                if cells[t] is not None:
                    break
                around = lows.get(t)
                if not around:
                    continue
                count = sum(1 for v, j in around if v < value and j not in start)
                if count:
                    chosen = _top(mine, count, origin)
                    found.append((sum(v for v, _ in chosen), origin, t, [s for _, s in chosen]))
    return found


def best_gain(cells: Sequence[Cell], size: int, side: int) -> int:
    """The most `side` can neutralise of its own sum with one move."""
    return max((gain for gain, *_ in steps(cells, size, side)), default=0)


class _Turn:
    """A candidate turn: its parts, the board after it and its score so far."""

    __slots__ = ("cells", "move", "score")

    def __init__(self, move: Move, cells: list[Cell], score: float) -> None:
        self.move, self.cells, self.score = move, cells, score


def _lowest_free(rules: Myriades, cells: Sequence[Cell], side: int, count: int = 1) -> list[int]:
    taken = [c[1] for c in cells if c is not None and c[0] == side]
    free = free_values(taken, rules.max_value, count if rules.max_value is None else None)
    return free[:count]


def _exposure(cells: Sequence[Cell], size: int, square: int) -> int:
    """How open a square is: its empty neighbours (where an enemy stone could land beside it)."""
    return sum(1 for t in _neighbours(size)[square] if cells[t] is None)


def _after_step(cells: Sequence[Cell], origin: int, target: int, neutralised: list[int]) -> list[Cell]:
    board = list(cells)
    board[target], board[origin] = board[origin], None
    for square in neutralised:
        board[square] = NEUTRAL
    return board


def _candidates(rules: Myriades, pos: Position, breadth: int, rng: random.Random) -> list[_Turn]:
    """Turns worth judging: no step or one of the best triggering steps, then the lowest free
    value on the least exposed squares; scored by gain minus the value placed."""
    size, side = pos.size, pos.turn
    options: list[tuple[int, tuple[int, int] | None, list[int]]] = [(0, None, [])]
    ranked = sorted(steps(pos.cells, size, side), key=lambda s: (-s[0], s[1], s[2]))
    options += [(gain, (origin, target), chosen) for gain, origin, target, chosen in ranked[:breadth]]
    turns = []
    for gain, step, chosen in options:
        cells = _after_step(pos.cells, *step, chosen) if step else list(pos.cells)
        value = _lowest_free(rules, cells, side)[0]
        empty = [i for i, c in enumerate(cells) if c is None]
        rng.shuffle(empty)
        empty.sort(key=lambda i: _exposure(cells, size, i))
        for square in dict.fromkeys(empty[:_PLACES] + _spoilers(cells, size, 1 - side)):
            after = list(cells)
            after[square] = (side, value)
            move = Move(value, square, step, frozenset(chosen))
            turns.append(_Turn(move, after, gain - value - 0.5 * _exposure(cells, size, square)))
    turns.sort(key=lambda t: -t.score)
    return turns


def _spoilers(cells: Sequence[Cell], size: int, side: int) -> list[int]:
    """Squares that block the best triggering steps of `side`: their targets and the squares
    on the way there."""
    found: list[int] = []
    ranked = sorted(steps(cells, size, side), key=lambda s: (-s[0], s[1], s[2]))[:_SPOILED]
    rays = _rays(size)
    for _gain, origin, target, _chosen in ranked:
        for line in rays[origin]:
            if target in line:
                found.extend(line[: line.index(target) + 1])
                break
    return found


def greedy(rules: Myriades, pos: Position, rng: random.Random) -> Move:
    """A one-ply player: the turn with the best immediate gain, no thought of the reply."""
    return _candidates(rules, pos, 4, rng)[0].move


def choose(rules: Myriades, pos: Position, level: int, seed: int, budget: Budget) -> tuple[Move, Stats]:
    """The bot's turn: level 1 a random reasonable one, 2 and 3 judged against the best reply."""
    rng = random.Random(seed)
    if level <= 1:
        return _beginner(rules, pos, rng), Stats(1, 1, 0)
    turns = _candidates(rules, pos, 3 if level == 2 else 8, rng)
    if not turns:
        raise ValueError("the game is over")
    best, judged = turns[0], 0
    best_score = None
    for turn in turns[: max(1, budget.nodes)]:
        if judged and budget.deadline is not None and budget.deadline():
            break
        judged += 1
        score = turn.score - (best_gain(turn.cells, pos.size, 1 - pos.turn) if not _full(turn.cells) else 0)
        if best_score is None or score > best_score:
            best, best_score = turn, score
    return best.move, Stats(judged, 2, round(best_score or 0))


def _full(cells: Sequence[Cell]) -> bool:
    return None not in cells


def _beginner(rules: Myriades, pos: Position, rng: random.Random) -> Move:
    """One of the few lowest free values on a random square, and now and then a triggering step."""
    size, side = pos.size, pos.turn
    chosen: list[Any] = []
    step, cells = None, list(pos.cells)
    found = steps(pos.cells, size, side)
    if found and rng.random() < 0.5:
        _gain, origin, target, chosen = rng.choice(found)
        step = (origin, target)
        cells = _after_step(pos.cells, origin, target, chosen)
    value = rng.choice(_lowest_free(rules, cells, side, 3))
    square = rng.choice([i for i, c in enumerate(cells) if c is None])
    return Move(value, square, step, frozenset(chosen))


__all__ = ["best_gain", "choose", "greedy", "steps"]
