"""The Capture Go bots: a tactical alpha-beta that counts captures and real liberties.

States are the engine's own `GoPosition` values, played with the engine's fast `place`
(chains, captures and superko included). A move is a board index. Candidates are the empty
points near stones, minus every self-atari the bot can see (a stone whose chain is left with
one liberty and that captured nothing). The evaluation weighs captures, chains in atari
(the side to move takes the largest enemy one; its own are in danger) and short liberties.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from functools import cache
from typing import Any

from pbem_bots.ladders import caught
from pbem_bots.search import Budget, Stats, search
from pbem_engine.go.board import _OK, EDGE, EMPTY, PASS, GoPosition, Move, _geometry, place, verdict
from pbem_engine.go.game import CaptureGo

_CAPTURE = 1000  # one captured stone
_PASS = -1


@cache
def _around(size: int) -> tuple[tuple[int, ...], ...]:
    """Per board index: the on-board points within Manhattan distance 2 (where play is 'near')."""
    geo = _geometry(size)
    stride = geo.stride
    offsets = [dr * stride + dc for dr in range(-2, 3) for dc in range(-2, 3) if 0 < abs(dr) + abs(dc) <= 2]
    on = set(geo.points)
    result: list[tuple[int, ...]] = [()] * geo.length
    for p in geo.points:
        m = geo.move_at[p]
        assert m is not None
        result[p] = tuple(
            p + off for off in offsets
            if p + off in on and abs(geo.move_at[p + off].col - m.col) <= 2  # type: ignore[union-attr]
        )
    return tuple(result)


def liberties(pos: GoPosition, root: int, neighbours: list[tuple[int, int, int, int]]) -> int:
    """The real number of liberties of the chain labelled `root`."""
    board = pos._board
    seen = set()
    for s in pos._members[root]:  # type: ignore[union-attr]
        for t in neighbours[s]:
            if board[t] == EMPTY:
                seen.add(t)
    return len(seen)


class GoGame:
    """Capture Go as `pbem_bots.search.Game` sees it."""

    def __init__(self, rules: CaptureGo) -> None:
        self.rules = rules
        self.geo = _geometry(rules.size)
        self.around = _around(rules.size)
        self.target = rules.target
        #: read ladders in the evaluation (on boards up to 13x13, where they are short)
        self.ladders = rules.size <= 13

    # -- moves ----------------------------------------------------------------------------
    def candidates(self, pos: GoPosition) -> list[int]:
        """Empty points near a stone (the centre region on an empty board)."""
        board, geo, around = pos._board, self.geo, self.around
        found = [p for p in geo.points if not board[p] and any(board[q] for q in around[p])]
        if not found:
            n = self.rules.size
            centre = [geo.index_of[Move(c, r)] for c in range(n // 2 - 1, n // 2 + 2) for r in range(n // 2 - 1, n // 2 + 2)]
            found = [p for p in centre if not board[p]] or [p for p in geo.points if not board[p]]
        return found

    def self_atari(self, before: GoPosition, after: GoPosition, p: int) -> bool:
        """Whether the stone on `p` left its chain with one liberty and captured nothing."""
        if after.captures != before.captures:
            return False
        return liberties(after, after._labels[p], self.geo.neighbours) <= 1

    def children(self, pos: GoPosition, first: int | None = None) -> list[tuple[int, GoPosition]]:
        if self.terminal(pos) is not None:
            return []
        geo = self.geo
        side = pos.turn
        scored = []
        for p in self.candidates(pos):
            if verdict(geo, pos, p) != _OK:
                continue
            child = place(geo, pos, p)
            if isinstance(child, int) or self.self_atari(pos, child, p):
                continue
            taken = child.captures[side] - pos.captures[side]
            scored.append((taken * 100 + self._pressure(child, p), p, child))
        scored.sort(key=lambda item: (-item[0], item[1]))
        out: list[tuple[int, GoPosition]] = [(p, child) for _s, p, child in scored]
        if pos.passes == 1 or not out:
            out.append((_PASS, self.rules.apply(pos, PASS)))
        if first is not None:
            for index, (p, _child) in enumerate(out):
                if p == first:
                    out.insert(0, out.pop(index))
                    break
        return out

    def _pressure(self, child: GoPosition, p: int) -> int:
        """An ordering hint: enemy chains next to `p` left short of liberties, and the stone's own."""
        board, labels, neighbours = child._board, child._labels, self.geo.neighbours
        enemy = child.turn + 1  # the colour of the side to move next: the mover's enemy
        hint = 0
        done = set()
        for q in neighbours[p]:
            if board[q] == enemy and labels[q] not in done:
                done.add(labels[q])
                libs = liberties(child, labels[q], neighbours)
                hint += 30 if libs == 1 else 8 if libs == 2 else 0
        mine = liberties(child, labels[p], neighbours)
        return hint + min(mine, 4)

    # -- scores -----------------------------------------------------------------------------
    def terminal(self, pos: GoPosition) -> int | None:
        outcome = self.rules.outcome(pos)
        if not outcome.over:
            return None
        if outcome.winner is None:
            return 0
        me, them = pos.captures[pos.turn], pos.captures[1 - pos.turn]
        size = max(1, abs(me - them))
        return size if outcome.winner == pos.turn else -size

    def evaluate(self, pos: GoPosition) -> int:
        board, labels, neighbours, geo = pos._board, pos._labels, self.geo.neighbours, self.geo
        mine = pos.turn + 1
        score = _CAPTURE * (pos.captures[pos.turn] - pos.captures[1 - pos.turn])
        takeable = 0
        for p in self.geo.points:
            colour = board[p]
            if colour in (EMPTY, EDGE) or labels[p] != p:
                continue
            stones = len(pos._members[p])  # type: ignore[arg-type]
            libs = liberties(pos, p, neighbours)
            if colour == mine:
                if libs == 1:
                    score -= (900 if self.ladders and caught(geo, pos, p) else 300) * stones
                elif libs == 2:
                    score -= 60 * stones
                score += 4 * min(libs, 6)
            else:
                if libs == 1:
                    takeable = max(takeable, stones)
                elif libs == 2:
                    if self.ladders and caught(geo, pos, p):
                        takeable = max(takeable, stones)
                    else:
                        score += 60 * stones
                score -= 4 * min(libs, 6)
        return score + 700 * takeable

    def key(self, pos: GoPosition) -> Hashable:
        return (pos._hash, pos.turn, pos.captures, pos.passes)


def _to_move(game: GoGame, p: int) -> Move:
    return PASS if p == _PASS else game.geo.move_at[p]  # type: ignore[return-value]


def greedy(rules: CaptureGo, pos: GoPosition, rng: random.Random) -> Move:
    """A one-ply player: the legal move that captures the most now, ties (and no capture) at random."""
    moves = [m for m in rules.legal_moves(pos) if not m.is_pass] or [PASS]
    side = pos.turn
    scored = [(rules.apply(pos, m).captures[side] if not m.is_pass else 0, rng.random(), m) for m in moves]
    return max(scored)[2]


def choose(rules: CaptureGo, pos: GoPosition, level: int, seed: int, budget: Budget) -> tuple[Move, Stats]:
    """The bot's move at `level`: 1 takes what it can and saves what it sees, else plays near at
    random; 2 and 3 search. Never a visible self-atari (it passes when every point is one)."""
    game = GoGame(rules)
    rng = random.Random(seed)
    if level <= 1:
        children = game.children(pos)
        side = pos.turn
        best = max(child.captures[side] for _p, child in children)
        if best > pos.captures[side]:
            pool = [p for p, child in children if child.captures[side] == best]
        else:
            saving = [p for p, child in children if p != _PASS and _rescues(game, pos, child)]
            pool = saving or [p for p, _c in children if p != _PASS] or [_PASS]
        return _to_move(game, rng.choice(pool)), Stats(len(children), 1, 0)

    def shuffle(moves: Sequence[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        # keep the ordering, but let the seed decide among the quiet moves of equal guess
        head = list(moves[:4])
        tail = list(moves[4:])
        rng.shuffle(tail)
        return head + tail

    move, stats = search(game, pos, budget, shuffle)
    if move is None:
        raise ValueError("the game is over")
    return _to_move(game, move), stats


def _rescues(game: GoGame, before: GoPosition, after: GoPosition) -> bool:
    """Whether the move left fewer of the mover's stones in atari than there were."""
    return _in_atari(game, before, before.turn) > _in_atari(game, after, before.turn)


def _in_atari(game: GoGame, pos: GoPosition, side: int) -> int:
    board, labels, neighbours = pos._board, pos._labels, game.geo.neighbours
    colour = side + 1
    return sum(
        len(pos._members[p])  # type: ignore[arg-type, misc]
        for p in game.geo.points
        if board[p] == colour and labels[p] == p and liberties(pos, p, neighbours) == 1
    )


__all__ = ["GoGame", "choose", "greedy", "liberties"]
