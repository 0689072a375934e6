"""Alpha-beta with iterative deepening, shared by the bots of every game with a finite move list.

A game plugs in through `Game`: its children in a good order (best guess first), a static
evaluation and a terminal score, both from the side to move. The search counts nodes, not
seconds: a node budget makes every result a pure function of the position and the seed. A
`deadline` callable (the caller's clock; the engine and the bots know no time) may only cut
iterative deepening early: it is asked between iterations and every few hundred nodes, and a
cut iteration is thrown away, so the move is that of the last completed depth.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

#: a won game scores beyond any evaluation; nearer wins score higher
WIN = 1_000_000
_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 256  # nodes between two looks at the deadline (a Capture Go node costs up to a ms)


@dataclass(frozen=True)
class Budget:
    """How much a bot may think: `nodes` bounds the search (deterministic); `deadline`, if given,
    returns True once the caller's time is up and only stops deepening early."""

    nodes: int
    deadline: Callable[[], bool] | None = None
    max_depth: int = 64


@dataclass(frozen=True)
class Stats:
    """What a search did: nodes visited, the deepest completed iteration, its score (side to move)."""

    nodes: int = 0
    depth: int = 0
    score: int = 0


class Game(Protocol):
    """A game as the search sees it; `state` values are the adapter's own."""

    def children(self, state: Any, first: Any = None) -> Iterable[tuple[Any, Any]]:
        """(move, state after it) pairs, `first` (a move the table remembers) then the best
        guesses; none when the game is over. May be lazy: a cut leaves the rest unmade."""

    def terminal(self, state: Any) -> int | None:
        """None while the game runs; else the final margin for the side to move (>0 won, 0 drawn)."""

    def evaluate(self, state: Any) -> int:
        """A static score for the side to move, far below `WIN` in size."""

    def key(self, state: Any) -> Hashable:
        """A transposition key: equal keys mean the same position with the same side to move."""


class _OutOfBudget(Exception):
    """Raised inside the tree when the node budget or the deadline runs out."""


class Searcher:
    """One search: negamax with alpha-beta, a transposition table and iterative deepening."""

    def __init__(self, game: Game, budget: Budget) -> None:
        self.game = game
        self.budget = budget
        self.nodes = 0
        self.limit = budget.nodes
        self.table: dict[Hashable, tuple[int, int, int, Any]] = {}
        self.unbounded = False  # while the first iteration runs, nothing may cut it

    def _tick(self) -> None:
        if self.unbounded:
            return
        if self.nodes >= self.limit:
            raise _OutOfBudget
        deadline = self.budget.deadline
        if deadline is not None and self.nodes % _CHECK_EVERY == 0 and deadline():
            raise _OutOfBudget

    def _negamax(self, state: Any, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes >= self.limit or not self.nodes % _CHECK_EVERY:
            self._tick()
        game = self.game
        margin = game.terminal(state)
        if margin is not None:
            if margin > 0:
                return WIN + margin - ply
            if margin < 0:
                return -WIN + margin + ply
            return 0
        if depth <= 0:
            return game.evaluate(state)
        key = game.key(state)
        entry = self.table.get(key)
        best_move = None
        if entry is not None:
            entry_depth, flag, value, best_move = entry
            if entry_depth >= depth:
                if flag == _EXACT:
                    return value
                if flag == _LOWER and value >= beta:
                    return value
                if flag == _UPPER and value <= alpha:
                    return value
        children = game.children(state, best_move)
        original = alpha
        best = -WIN * 2
        chosen = None
        for move, child in children:
            value = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1)
            if value > best:
                best, chosen = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = _UPPER if best <= original else _LOWER if best >= beta else _EXACT
        self.table[key] = (depth, flag, best, chosen)
        return best

    def _root(self, moves: Sequence[tuple[Any, Any]], depth: int) -> tuple[int, int]:
        """One iteration at the root: the index of the best child and its score."""
        alpha, beta = -WIN * 2, WIN * 2
        best_index, best = 0, -WIN * 2
        for index, (_move, child) in enumerate(moves):
            value = -self._negamax(child, depth - 1, -beta, -alpha, 1)
            if value > best:
                best_index, best = index, value
                alpha = max(alpha, value)
        return best_index, best

    def run(self, state: Any, order: Callable[[Sequence[tuple[Any, Any]]], list[tuple[Any, Any]]] | None = None) -> tuple[Any, Stats]:
        """The best move from `state` (None if the game is over) and what the search did.

        `order` may rearrange the root's children first (the seed's shuffle of equal moves).
        Depth 1 always completes, whatever the budget says.
        """
        moves = list(self.game.children(state))
        if order is not None:
            moves = order(moves)
        if not moves:
            return None, Stats(self.nodes, 0, 0)
        if len(moves) == 1:
            return moves[0][0], Stats(self.nodes, 0, 0)
        self.unbounded = True
        index, score = self._root(moves, 1)
        self.unbounded = False
        done = 1
        deadline = self.budget.deadline
        for depth in range(2, self.budget.max_depth + 1):
            if self.nodes >= self.limit or (deadline is not None and deadline()):
                break
            moves.insert(0, moves.pop(index))  # the previous best is searched first
            try:
                index, score = self._root(moves, depth)
            except _OutOfBudget:
                index = 0  # the previous best, now first
                break
            done = depth
            if abs(score) >= WIN - 1000:
                break  # a forced result: deeper search cannot change it
        return moves[index][0], Stats(self.nodes, done, score)


def search(game: Game, state: Any, budget: Budget,
           order: Callable[[Sequence[tuple[Any, Any]]], list[tuple[Any, Any]]] | None = None) -> tuple[Any, Stats]:
    """Search `state` within `budget`; see `Searcher.run`."""
    return Searcher(game, budget).run(state, order)
