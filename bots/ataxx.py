"""The Ataxx bots (all three variants): alpha-beta on bare bitboards, material plus mobility.

The search never builds an engine `Position`: a state is `(me, them, empty, halfmove)`, the
mover's pieces first, and a move is `(src, dst)` as single-bit masks (src 0 for a clone, both 0
for the pass). Children come ordered by what they take (clones first among equals), so
alpha-beta cuts early. Only the chosen move is turned back into the engine's `Move`.
"""

from __future__ import annotations

import random
from collections.abc import Hashable

from bots.search import Budget, Stats, search
from engine.ataxx import PASS, Ataxx, Move, Position
from engine.ataxx_board import JUMPS, NEIGHBOURS, _grow

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
    """An Ataxx variant as `bots.search.Game` sees it."""

    def __init__(self, rules: Ataxx) -> None:
        self.can_pass = rules.can_pass
        self.quiet = rules.quiet_limit if rules.quiet_limit is not None else 1 << 30
        self.credit = rules.name == "infection"

    def state(self, pos: Position) -> State:
        me, them = pos.sides()
        return (me, them, pos.empty, pos.halfmove)

    def moves(self, state: State) -> list[tuple[int, int, int]]:
        """(score, src, dst) for every clone and jump, unsorted; the score guesses its worth."""
        me, them, empty, _ = state
        near = _NEAR
        found = []
        for dst in _bits(_grow(me) & empty):
            found.append((2 * (near[dst] & them).bit_count() + 1, 0, dst))
        far = _FAR
        for src in _bits(me):
            targets = far[src] & empty
            if not targets:
                continue
            around = near[src] & me  # friends the jump leaves behind, exposed
            for dst in _bits(targets):
                taken = (near[dst] & them).bit_count()
                found.append((2 * taken - 1 - (around.bit_count() > 3), src, dst))
        return found

    def children(self, state: State) -> list[tuple[tuple[int, int], State]]:
        me, them, empty, halfmove = state
        if self.terminal(state) is not None:
            return []
        moves = self.moves(state)
        if not moves:
            return [((0, 0), (them, me, empty, halfmove + 1))]  # the pass (ataxx only: else terminal)
        moves.sort(reverse=True)
        near = _NEAR
        out = []
        for _score, src, dst in moves:
            taken = near[dst] & them
            if src:
                out.append(((src, dst), (them ^ taken, me ^ src ^ dst | taken, empty ^ src ^ dst, halfmove + 1)))
            else:
                out.append(((0, dst), (them ^ taken, me | dst | taken, empty ^ dst, 0)))
        return out

    def terminal(self, state: State) -> int | None:
        me, them, empty, halfmove = state
        if not me or not them:
            return me.bit_count() - them.bit_count() or (1 if me else -1)
        margin = me.bit_count() - them.bit_count()
        if not empty:
            return margin
        if self.can_pass:
            if halfmove >= self.quiet:
                return 0
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
    children = game.children(game.state(pos))
    scored = [(-(_MATERIAL * (c[1].bit_count() - c[0].bit_count())), rng.random(), m) for m, c in children]
    return _to_move(min(scored)[2])


def choose(rules: Ataxx, pos: Position, level: int, seed: int, budget: Budget) -> tuple[Move, Stats]:
    """The bot's move at `level` (1 random among reasonable, 2 and 3 searched)."""
    game = AtaxxGame(rules)
    state = game.state(pos)
    rng = random.Random(seed)
    if level <= 1:
        children = game.children(state)
        if not children:
            raise ValueError("the game is over")
        gains = [(c[1].bit_count() - c[0].bit_count(), m) for m, c in children]
        best = max(g for g, _ in gains)
        # reasonable: within a piece of the best gain, and no jump that takes nothing
        pool = [m for g, m in gains if g >= best - 1 and (not m[0] or g >= 1)] or [m for g, m in gains if g == best]
        return _to_move(rng.choice(pool)), Stats(len(children), 1, best)

    def shuffle(moves: list) -> list:
        keyed = [(rng.random(), m) for m in moves]
        # keep the guessed order, shuffled among moves of equal guess
        guess = {(src, dst): score for score, src, dst in game.moves(state)}
        keyed.sort(key=lambda pair: (-guess.get(pair[1][0], 0), pair[0]))
        return [m for _, m in keyed]

    move, stats = search(game, state, budget, shuffle)
    if move is None:
        raise ValueError("the game is over")
    return _to_move(move), stats


__all__ = ["AtaxxGame", "choose", "greedy"]
