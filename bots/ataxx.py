"""The Ataxx bots (all three variants): alpha-beta on bare bitboards, material plus mobility.

The search never builds an engine `Position`: a state is `(me, them, empty, halfmove)`, the
mover's pieces first, and a move is `(src, dst)` as single-bit masks (src 0 for a clone, both 0
for the pass). Children come ordered by what they take (clones first among equals), so
alpha-beta cuts early. Only the chosen move is turned back into the engine's `Move`.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterator, Sequence
from typing import Any

from pbem_bots.search import Budget, Stats, search
from pbem_engine.ataxx.board import JUMPS, NEIGHBOURS, _grow
from pbem_engine.ataxx.game import PASS, Ataxx, Move, Position

State = tuple[int, int, int, int]
_MATERIAL = 16  # a piece is worth this much mobility


def _bits(bb: int) -> list[int]:
    """The single-bit masks of `bb`, lowest first."""
    found = []
    while bb:
        low = bb & -bb
        found.append(low)
        bb ^= low
    return found


_INDEX = {1 << sq: sq for sq in range(49)}
_NEAR = {1 << sq: NEIGHBOURS[sq] for sq in range(49)}
_FAR = {1 << sq: JUMPS[sq] for sq in range(49)}


class AtaxxGame:
    """An Ataxx variant as `pbem_bots.search.Game` sees it."""

    def __init__(self, rules: Ataxx) -> None:
        self.can_pass = rules.can_pass
        self.quiet = rules.quiet_limit if rules.quiet_limit is not None else 1 << 30
        self.credit = rules.name == "infection"

    def state(self, pos: Position) -> State:
        me, them = pos.sides()
        return (me, them, pos.empty, pos.halfmove)

    def children(self, state: State, first: tuple[int, int] | None = None) -> Iterator[tuple[tuple[int, int], State]]:
        """Lazily: `first`, then clones by what they take, then jumps by what they take (a jump
        to a square a clone reaches is a piece worse, so it comes after every clone)."""
        me, them, empty, halfmove = state
        if self.terminal(state) is not None:
            return
        near = _NEAR
        reach = _grow(me) & empty
        if first is not None and first[1]:
            src, dst = first
            taken = near[dst] & them
            if src:
                yield first, (them ^ taken, me ^ src ^ dst | taken, empty ^ src ^ dst, halfmove + 1)
            else:
                yield first, (them ^ taken, me | dst | taken, empty ^ dst, 0)
        clones = [((near[dst] & them).bit_count(), dst) for dst in _bits(reach)]
        clones.sort(reverse=True)
        for _n, dst in clones:
            if first is not None and first == (0, dst):
                continue
            taken = near[dst] & them
            yield (0, dst), (them ^ taken, me | dst | taken, empty ^ dst, 0)
        far = _FAR
        landing = _grow(_grow(me)) & empty
        if not landing:
            if not clones:
                yield (0, 0), (them, me, empty, halfmove + 1)  # the pass (ataxx only: else terminal)
            return
        targets = [((near[dst] & them).bit_count(), dst) for dst in _bits(landing)]
        targets.sort(reverse=True)
        for _n, dst in targets:
            taken = near[dst] & them
            sources = far[dst] & me
            while sources:
                src = sources & -sources
                sources ^= src
                if first is not None and first == (src, dst):
                    continue
                yield (src, dst), (them ^ taken, me ^ src ^ dst | taken, empty ^ src ^ dst, halfmove + 1)

    def gains(self, state: State) -> list[tuple[int, tuple[int, int]]]:
        """(material after, move) for every move: what level 1 and the greedy player look at."""
        return [(c[1].bit_count() - c[0].bit_count(), m) for m, c in self.children(state)]

    def terminal(self, state: State) -> int | None:
        me, them, empty, halfmove = state
        if not me or not them:
            return me.bit_count() - them.bit_count() or (1 if me else -1)
        margin = me.bit_count() - them.bit_count()
        if not empty:
            return margin
        if halfmove >= self.quiet:
            return 0  # the draw after so many plies without a clone (ataxx only)
        if _grow(me) & empty:
            return None  # a clone is there: nobody is stuck
        if self.can_pass:
            if not _grow(_grow(me | them)) & empty:
                return margin
            return None
        if _grow(_grow(me)) & empty:
            return None
        return margin - empty.bit_count() if self.credit else margin

    def evaluate(self, state: State) -> int:
        me, them, empty, _ = state
        mobility = (_grow(me) & empty).bit_count() - (_grow(them) & empty).bit_count()
        return _MATERIAL * (me.bit_count() - them.bit_count()) + mobility

    def key(self, state: State) -> Hashable:
        return (state[0], state[1])


def _to_move(pair: tuple[int, int]) -> Move:
    src, dst = pair
    if not dst:
        return PASS
    return Move(_INDEX[src] if src else None, _INDEX[dst])


def greedy(rules: Ataxx, pos: Position, rng: random.Random) -> Move:
    """A one-ply player: the move that leaves the best material, ties broken by `rng`."""
    game = AtaxxGame(rules)
    return _to_move(max((gain, rng.random(), m) for gain, m in game.gains(game.state(pos)))[2])


def choose(rules: Ataxx, pos: Position, level: int, seed: int, budget: Budget) -> tuple[Move, Stats]:
    """The bot's move at `level` (1 random among reasonable, 2 and 3 searched)."""
    game = AtaxxGame(rules)
    state = game.state(pos)
    rng = random.Random(seed)
    if level <= 1:
        gains = game.gains(state)
        if not gains:
            raise ValueError("the game is over")
        best = max(g for g, _ in gains)
        # reasonable: within a piece of the best gain, and no jump that takes nothing
        pool = [m for g, m in gains if g >= best - 1 and (not m[0] or g >= 1)] or [m for g, m in gains if g == best]
        return _to_move(rng.choice(pool)), Stats(len(gains), 1, best)

    def shuffle(moves: Sequence[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        # keep the guessed order (clones first, by what they take), shuffled among equals
        keyed = [(rng.random(), m) for m in moves]
        keyed.sort(key=lambda pair: (-(pair[1][1][1].bit_count() - pair[1][1][0].bit_count()), pair[0]))
        return [m for _, m in keyed]

    move, stats = search(game, state, budget, shuffle)
    if move is None:
        raise ValueError("the game is over")
    return _to_move(move), stats


__all__ = ["AtaxxGame", "choose", "greedy"]
