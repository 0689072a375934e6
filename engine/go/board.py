"""Capture Go's board: points, the padded byte board, chains, Zobrist hashes and the superko trail.

How it is fast: the board is a flat byte string with one shared padding column per row (the
left neighbour of column a is the padding of the row below), every chain keeps its member
stones and a pseudo-liberty count (empty neighbours counted once per adjacent stone, which is
zero exactly when the chain has no liberty), and boards are identified by a 64-bit Zobrist hash
of their stones. The hashes of all earlier boards live in one append-only trail shared by a line
of positions (each position sees its own prefix), so a superko check is one dict lookup and
`apply` never replays the game. A false superko refusal needs a 64-bit hash collision among the
game's boards (odds below 1e-13 for a thousand moves).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Any, NamedTuple

from pbem_engine.common import squares

EMPTY, BLACK, WHITE, EDGE = 0, 1, 2, 3
COLUMNS = "".join(squares.columns(19, skip_i=True))  # Go columns skip i
MIN_SIZE, MAX_SIZE = 5, 19
_ZOBRIST_SEED = 0x5EED_C0DE_60_60  # changing it (or the generator) invalidates stored games


class Move(NamedTuple):
    """A stone on (col, row), both 0-based from a1; `PASS` passes."""

    col: int
    row: int

    @property
    def is_pass(self) -> bool:
        return self.col < 0


PASS = Move(-1, -1)

# Verdicts of a placement, from the cheap check used by parse and legal_moves.
_OK, _OCCUPIED, _SUICIDE, _SUPERKO = 0, 1, 2, 3


def _splitmix64(seed: int) -> Iterable[int]:
    """A fixed, well-mixed 64-bit sequence (Steele et al.), so the keys never change."""
    mask = (1 << 64) - 1
    state = seed & mask
    while True:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        yield z ^ (z >> 31)


@lru_cache(maxsize=1)
def _base_keys() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One key per (colour, point) of a 19x19 board, indexed row * 19 + col."""
    stream = iter(_splitmix64(_ZOBRIST_SEED))
    black = tuple(next(stream) for _ in range(MAX_SIZE * MAX_SIZE))
    white = tuple(next(stream) for _ in range(MAX_SIZE * MAX_SIZE))
    return black, white


class _Geometry:
    """Everything that depends only on the board size, computed once per size."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.stride = stride = size + 1
        self.length = length = (size + 2) * stride + 1
        self.points = [(row + 1) * stride + col for row in range(size) for col in range(size)]
        self.moves = [Move(col, row) for row in range(size) for col in range(size)]
        self.index_of = {move: p for move, p in zip(self.moves, self.points, strict=True)}
        self.move_at: list[Move | None] = [None] * length
        for move, p in self.index_of.items():
            self.move_at[p] = move
        board = bytearray([EDGE]) * length
        for p in self.points:
            board[p] = EMPTY
        self.empty = bytes(board)
        self.neighbours = [(p - 1, p + 1, p - stride, p + stride) for p in range(length)]
        black, white = _base_keys()
        self.keys: tuple[list[int], list[int], list[int]] = ([0] * length, [0] * length, [0] * length)
        for move, p in self.index_of.items():
            self.keys[BLACK][p] = black[move.row * MAX_SIZE + move.col]
            self.keys[WHITE][p] = white[move.row * MAX_SIZE + move.col]


@cache
def _geometry(size: int) -> _Geometry:
    return _Geometry(size)


class _Trail:
    """The hashes of a line of boards, append-only and shared by the positions on that line.

    A position sees the first `depth` entries. Each entry is a board no earlier entry equals
    (superko guarantees it), so `index` maps a hash to its one place. Positions are values
    for readers on any thread; growing one line from two threads at once is not supported.
    """

    __slots__ = ("hashes", "index")

    def __init__(self, hashes: Iterable[int]) -> None:
        self.hashes = list(hashes)
        self.index = {h: i for i, h in enumerate(self.hashes)}

    def grow(self, depth: int, new_hash: int) -> _Trail:
        """The trail seen by a child at `depth + 1`: this one when `depth` is its tip, else a copy."""
        trail = self if len(self.hashes) == depth else _Trail(self.hashes[:depth])
        trail.index[new_hash] = depth
        trail.hashes.append(new_hash)
        return trail


class GoPosition:
    """An immutable Capture Go position: the stones, whose turn, captures and board history.

    Read the stones with `CaptureGo.stone` or `CaptureGo.diagram`. The padded board and the
    chain tables (`_labels`, `_libs`, `_members`) never change after construction; the chain
    tables depend on the order stones were played, so they are excluded from equality.
    """

    __slots__ = (
        "size", "_board", "turn", "ply", "captures", "passes", "last",
        "_hash", "_trail", "_depth", "_labels", "_libs", "_members",
    )

    size: int
    _board: bytes
    turn: int
    ply: int
    captures: tuple[int, int]
    passes: int
    last: Move | None
    _hash: int
    _trail: _Trail
    _depth: int
    _labels: list[int]
    _libs: list[int]
    _members: list[tuple[int, ...] | None]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Capture Go position is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Capture Go position is immutable")

    @property
    def history(self) -> tuple[int, ...]:
        """The hashes of every board so far (the empty start first, the current board last)."""
        return tuple(self._trail.hashes[: self._depth])

    def seen(self, board_hash: int) -> bool:
        """Whether a board with this hash occurred in this game so far."""
        where = self._trail.index.get(board_hash)
        return where is not None and where < self._depth

    def _key(self) -> tuple[Any, ...]:
        return (self.size, self._board, self.turn, self.ply, self.captures, self.passes, self.last, self._depth)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GoPosition):
            return NotImplemented
        if self._key() != other._key():
            return False
        return self._trail is other._trail or (
            self._trail.hashes[: self._depth] == other._trail.hashes[: other._depth]
        )

    def __hash__(self) -> int:
        return hash((self._key(), self._hash))

    def __repr__(self) -> str:
        return (
            f"GoPosition(size={self.size}, ply={self.ply}, turn={self.turn}, "
            f"captures={self.captures}, passes={self.passes}, last={self.last})"
        )


def _make(
    size: int, board: bytes, turn: int, ply: int, captures: tuple[int, int], passes: int,
    last: Move | None, board_hash: int, trail: _Trail, depth: int,
    labels: list[int], libs: list[int], members: list[tuple[int, ...] | None],
) -> GoPosition:
    pos = object.__new__(GoPosition)
    put = object.__setattr__
    put(pos, "size", size)
    put(pos, "_board", board)
    put(pos, "turn", turn)
    put(pos, "ply", ply)
    put(pos, "captures", captures)
    put(pos, "passes", passes)
    put(pos, "last", last)
    put(pos, "_hash", board_hash)
    put(pos, "_trail", trail)
    put(pos, "_depth", depth)
    put(pos, "_labels", labels)
    put(pos, "_libs", libs)
    put(pos, "_members", members)
    return pos


def _chains(geo: _Geometry, board: bytes) -> tuple[list[int], list[int], list[tuple[int, ...] | None]]:
    """Chain tables of a board from scratch (load and setup only)."""
    labels = [0] * geo.length
    libs = [0] * geo.length
    members: list[tuple[int, ...] | None] = [None] * geo.length
    neighbours = geo.neighbours
    for p in geo.points:
        color = board[p]
        if color == EMPTY or labels[p]:
            continue
        stones = [p]
        labels[p] = p
        pseudo = 0
        for s in stones:
            for t in neighbours[s]:
                v = board[t]
                if v == EMPTY:
                    pseudo += 1
                elif v == color and not labels[t]:
                    labels[t] = p
                    stones.append(t)
        members[p] = tuple(stones)
        libs[p] = pseudo
    return labels, libs, members


def verdict(geo: _Geometry, pos: GoPosition, p: int) -> int:
    """Occupied, suicide, superko or fine: the placement's result without building it."""
    board = pos._board
    if board[p]:
        return _OCCUPIED
    color = pos.turn + 1
    labels, libs = pos._labels, pos._libs
    a, b, c, d = geo.neighbours[p]
    liberty = False
    captured: list[int] = []
    for q in (a, b, c, d):
        v = board[q]
        if v == EMPTY:
            liberty = True
        elif v != EDGE:
            r = labels[q]
            touching = (labels[a] == r) + (labels[b] == r) + (labels[c] == r) + (labels[d] == r)
            if v == color:
                if libs[r] > touching:
                    liberty = True
            elif libs[r] == touching and r not in captured:
                captured.append(r)
    keys = geo.keys
    h = pos._hash ^ keys[color][p]
    if captured:
        enemy_keys = keys[3 - color]
        members = pos._members
        for r in captured:
            for s in members[r]:  # type: ignore[union-attr]
                h ^= enemy_keys[s]
    elif not liberty:
        return _SUICIDE
    return _SUPERKO if pos.seen(h) else _OK


def place(geo: _Geometry, pos: GoPosition, p: int) -> GoPosition | int:
    """The position after the side to move puts a stone on the empty point `p`, or the verdict
    (_SUICIDE, _SUPERKO) that forbids it: chains merge, dead enemy chains go, the trail grows."""
    move = geo.move_at[p]
    color = pos.turn + 1
    enemy = 3 - color
    board = bytearray(pos._board)
    labels = pos._labels[:]
    libs = pos._libs[:]
    members = pos._members[:]
    neighbours = geo.neighbours
    board[p] = color
    around = neighbours[p]

    # Every neighbouring chain loses the liberty p (once per touching stone).
    empties = 0
    own: list[int] = []
    for q in around:
        v = board[q]
        if v == EMPTY:
            empties += 1
        elif v != EDGE:
            r = labels[q]
            libs[r] -= 1
            if v == color and r not in own:
                own.append(r)

    # Join the new stone and its own neighbours into the largest of those chains.
    if own:
        root = own[0]
        for r in own:
            if len(members[r]) > len(members[root]):  # type: ignore[arg-type]
                root = r
        stones = members[root]
        pseudo = libs[root] + empties
        for r in own:
            if r != root:
                other = members[r]
                for s in other:  # type: ignore[union-attr]
                    labels[s] = root
                stones += other  # type: ignore[operator]
                pseudo += libs[r]
                members[r] = None
                libs[r] = 0
        members[root] = stones + (p,)  # type: ignore[operator]
        libs[root] = pseudo
        labels[p] = root
    else:
        root = p
        labels[p] = p
        members[p] = (p,)
        libs[p] = empties

    # Remove enemy chains left without liberties; their neighbours regain liberties.
    keys = geo.keys
    h = pos._hash ^ keys[color][p]
    taken = 0
    for q in around:
        if board[q] == enemy and libs[labels[q]] == 0:
            r = labels[q]
            dead = members[r]
            members[r] = None
            enemy_keys = keys[enemy]
            for s in dead:  # type: ignore[union-attr]
                board[s] = EMPTY
                labels[s] = 0
                h ^= enemy_keys[s]
            for s in dead:  # type: ignore[union-attr]
                for t in neighbours[s]:
                    if board[t] == color:
                        libs[labels[t]] += 1
            taken += len(dead)  # type: ignore[arg-type]

    if libs[root] == 0:
        return _SUICIDE
    if pos.seen(h):
        return _SUPERKO
    captures = pos.captures
    if taken:
        captures = (captures[0] + taken, captures[1]) if color == BLACK else (captures[0], captures[1] + taken)
    trail = pos._trail.grow(pos._depth, h)
    return _make(
        pos.size, bytes(board), 1 - pos.turn, pos.ply + 1, captures, 0, move,
        h, trail, pos._depth + 1, labels, libs, members,
    )


def board_hash(geo: _Geometry, board: bytes) -> int:
    """The Zobrist hash of a board's stones, from scratch (setup and load only)."""
    keys = geo.keys
    h = 0
    for p in geo.points:
        if board[p] != EMPTY:
            h ^= keys[board[p]][p]
    return h
