"""Capture Go (RULES.md section 2): Go in which the first player to capture `target` stones wins.

Notation: a point is its column letter and row number as Go players write them, `d4`, `k10`:
the columns run a b c d e f g h j k ... t with **no i**, row 1 is at the bottom (Black's side),
and `pass` passes. Input is case-insensitive and may contain a space (`D 4`); the canonical
form is lower case. Resigning is a service command, not a move.

Rules in short: Black first; a placement removes every enemy chain left without liberties
(their stones count to the mover's captures), and only then is the placed chain checked for
suicide. Positional superko forbids a board (stones only) equal to the board after any earlier
move of the game or the empty start; passes create no new position. The mover wins at once on
reaching the target; after two consecutive passes more captures win and equal is a draw.

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

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
from typing import Any, NamedTuple

from engine.base import EngineError, IllegalMove, Option, Outcome, Rules, int_option

EMPTY, BLACK, WHITE, EDGE = 0, 1, 2, 3
COLUMNS = "abcdefghjklmnopqrst"  # Go columns skip i
MIN_SIZE, MAX_SIZE = 5, 19
_STONE_CHARS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
_SIDE_NAMES = ("Black", "White")
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

    def _key(self) -> tuple:
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


def _columns_text(size: int) -> str:
    last = COLUMNS[size - 1]
    return f"a-{last}" if size <= 8 else ("a-h, j" if size == 9 else f"a-h, j-{last}")


_POINT_RE = re.compile(r"^([a-z])[\s\-]*(\d{1,3})$")
_SGF_PROP_RE = re.compile(r"[A-Za-z]+")


class CaptureGo(Rules[GoPosition, Move]):
    """Capture Go: first to `target` captured stones wins (see the module docstring)."""

    name = "capturego"
    aliases = ("capture-go", "capture go", "atari-go", "atarigo", "first-capture", "first capture go")
    title = "Capture Go"
    family = "capturego"
    sides = ("black", "white")
    score_unit = "captures"
    option_specs = (
        Option("size", 9, "board size, 5 to 19", int_option("size", MIN_SIZE, MAX_SIZE)),
        Option("target", 1, "captured stones that win, at least 1", int_option("target", 1, None)),
    )

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.size: int = self.options["size"]
        self.target: int = self.options["target"]
        self._geo = _geometry(self.size)
        self._order: list[Move] | None = None

    def describe(self) -> str:
        unit = "capture" if self.target == 1 else "captures"
        return f"capture go {self.size}x{self.size}, first to {self.target} {unit}"

    # -- positions -------------------------------------------------------------------
    def start(self) -> GoPosition:
        geo = self._geo
        return _make(
            self.size, geo.empty, 0, 0, (0, 0), 0, None, 0, _Trail([0]), 1,
            [0] * geo.length, [0] * geo.length, [None] * geo.length,
        )

    def setup(
        self, diagram: str | Sequence[str], turn: int = 0, captures: tuple[int, int] = (0, 0)
    ) -> GoPosition:
        """A position from rows of `X` (black), `O` (white) and `.` (empty), top row first.

        Spaces are ignored, so `X . O` and `X.O` are the same row; any other character
        (`+`) counts as empty. The history holds the empty board and this one, as if the
        stones had been placed by earlier moves. For tests, problems and adjudication.
        """
        if turn not in (0, 1) or min(captures) < 0:
            raise EngineError("A position needs turn 0 (Black) or 1 (White) and captures of at least 0.")
        rows = diagram.strip().splitlines() if isinstance(diagram, str) else list(diagram)
        rows = [row.replace(" ", "") for row in rows if row.strip()]
        if len(rows) != self.size or any(len(row) != self.size for row in rows):
            raise EngineError(f"A {self.size}x{self.size} diagram needs {self.size} rows of {self.size} points.")
        geo = self._geo
        board = bytearray(geo.empty)
        for r, row in enumerate(rows):
            for col, char in enumerate(row.upper()):
                color = BLACK if char == "X" else WHITE if char == "O" else EMPTY
                board[geo.index_of[Move(col, self.size - 1 - r)]] = color
        stones = bytes(board)
        labels, libs, members = _chains(geo, stones)
        if any(members[root] and not libs[root] for root in range(geo.length)):
            raise EngineError("A chain in this diagram has no liberty.")
        board_hash = self._hash_of(stones)
        hashes = [0] if board_hash == 0 else [0, board_hash]
        return _make(
            self.size, stones, turn, 0, (int(captures[0]), int(captures[1])), 0, None, board_hash,
            _Trail(hashes), len(hashes), labels, libs, members,
        )

    def _hash_of(self, board: bytes) -> int:
        keys = self._geo.keys
        h = 0
        for p in self._geo.points:
            if board[p] != EMPTY:
                h ^= keys[board[p]][p]
        return h

    def turn(self, pos: GoPosition) -> int:
        return pos.turn

    def ply(self, pos: GoPosition) -> int:
        return pos.ply

    def last_move(self, pos: GoPosition) -> Move | None:
        return pos.last

    def stone(self, pos: GoPosition, point: Move) -> int | None:
        """The side (0 black, 1 white) of the stone on `point`, or None if it is empty."""
        color = pos._board[self._geo.index_of[point]]
        return None if color == EMPTY else color - 1

    def diagram(self, pos: GoPosition) -> list[str]:
        """The board as rows of `X`, `O` and `.`, top row first: what tests compare."""
        geo, board = self._geo, pos._board
        return [
            "".join(_STONE_CHARS[board[geo.index_of[Move(col, row)]]] for col in range(self.size))
            for row in range(self.size - 1, -1, -1)
        ]

    # -- moves -----------------------------------------------------------------------
    def point_name(self, point: Move) -> str:
        """The canonical text of a point ("d4", "k10") or "pass"."""
        return "pass" if point.is_pass else f"{COLUMNS[point.col]}{point.row + 1}"

    def _read_point(self, text: str, pos: GoPosition | None = None) -> Move:
        """The point a text names, or IllegalMove for what no board of this size has."""
        raw = text.strip()
        word = raw.lower().strip(".!")
        if word == "pass":
            return PASS
        if word in ("resign", "resigns", "i resign"):
            raise IllegalMove(
                f'"{raw}" is not a move.', "To resign, write the command resign on a line of its own."
            )
        match = _POINT_RE.match(word)
        if not match:
            shown = raw if len(raw) <= 30 else raw[:27] + "..."
            raise IllegalMove(
                f'"{shown}" is not a Go move; a move is a point such as d4, or pass.',
                f"Write the column letter then the row number. {self._hint_examples(pos)}",
            )
        letter, number = match.group(1), int(match.group(2))
        if letter == "i":
            raise IllegalMove(
                f'"{raw}": there is no column i in Go coordinates; the columns are '
                f"{_columns_text(self.size)}.",
                self._hint_examples(pos),
            )
        col = COLUMNS.find(letter)
        if col < 0 or col >= self.size or not 1 <= number <= self.size:
            raise IllegalMove(
                f'"{raw}" is off this {self.size}x{self.size} board; the columns are '
                f"{_columns_text(self.size)} and the rows 1-{self.size}.",
                self._hint_examples(pos),
            )
        return Move(col, number - 1)

    def parse(self, pos: GoPosition, text: str) -> Move:
        outcome = self.outcome(pos)
        if outcome.over:
            raise IllegalMove(f"The game is over ({outcome.reason}); no more moves can be played.")
        move = self._read_point(text, pos)
        if move.is_pass:
            return PASS
        verdict = self._verdict(pos, self._geo.index_of[move])
        if verdict != _OK:
            raise IllegalMove(self._refusal(pos, move, verdict), self._hint_examples(pos))
        return move

    def _refusal(self, pos: GoPosition, move: Move, verdict: int) -> str:
        name = self.point_name(move)
        if verdict == _OCCUPIED:
            whose = "black" if pos._board[self._geo.index_of[move]] == BLACK else "white"
            return f'"{name}" is occupied by a {whose} stone.'
        if verdict == _SUICIDE:
            return f'"{name}" would leave your stones without liberties (suicide is not allowed).'
        return f'"{name}" would repeat an earlier board position (superko).'

    def _hint_examples(self, pos: GoPosition | None = None) -> str:
        shown = self.examples(pos) if pos is not None else ["c3", "d4"]
        points = [text for text in shown if text != "pass"]
        if not points:
            return "No point is legal now; write pass."
        return f"Points you can play now: e.g. {', '.join(points)} (or pass)."

    def format(self, pos: GoPosition, move: Move) -> str:
        return self.point_name(move)

    def is_legal(self, pos: GoPosition, move: Move) -> bool:
        """Whether `move` may be played now: the fast test behind legal_moves and playouts."""
        if pos.passes >= 2 or max(pos.captures) >= self.target:
            return False
        if move.is_pass:
            return True
        p = self._geo.index_of.get(move)
        return p is not None and self._verdict(pos, p) == _OK

    def legal_moves(self, pos: GoPosition) -> list[Move]:
        if self.outcome(pos).over:
            return []
        verdict = self._verdict
        geo = self._geo
        board = pos._board
        moves = [geo.moves[i] for i, p in enumerate(geo.points) if not board[p] and verdict(pos, p) == _OK]
        moves.append(PASS)
        return moves

    def examples(self, pos: GoPosition) -> list[str]:
        """Up to three legal points, star points first, so hints look like real moves."""
        if self.outcome(pos).over:
            return []
        geo, found = self._geo, []
        for move in self._preferred():
            p = geo.index_of[move]
            if not pos._board[p] and self._verdict(pos, p) == _OK:
                found.append(self.point_name(move))
                if len(found) == 3:
                    break
        return found or ["pass"]

    def _preferred(self) -> list[Move]:
        """Points in the order examples are looked for: star points, then outwards from the centre."""
        if self._order is None:
            n = self.size
            edge = 2 if n < 13 else 3
            stars = [(edge, edge), (n - 1 - edge, n - 1 - edge), (n // 2, n // 2), (n - 1 - edge, edge)]
            first = list(dict.fromkeys(Move(c, r) for c, r in stars))
            centre = (n - 1) / 2
            rest = sorted(
                (m for m in self._geo.moves if m not in first),
                key=lambda m: (max(abs(m.col - centre), abs(m.row - centre)), m.row, m.col),
            )
            self._order = first + rest
        return self._order

    def notation(self) -> str:
        return (
            f"Name a point by its column letter and row number, e.g. d4 (the columns are "
            f"{_columns_text(self.size)}: Go has no column i), or write pass."
        )

    def _verdict(self, pos: GoPosition, p: int) -> int:
        """Occupied, suicide, superko or fine: the placement's result without building it."""
        board = pos._board
        if board[p]:
            return _OCCUPIED
        color = pos.turn + 1
        labels, libs = pos._labels, pos._libs
        a, b, c, d = self._geo.neighbours[p]
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
        keys = self._geo.keys
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

    def apply(self, pos: GoPosition, move: Move) -> GoPosition:
        if pos.passes >= 2 or max(pos.captures) >= self.target:
            raise IllegalMove(f"The game is over ({self.outcome(pos).reason}); no more moves can be played.")
        if move.is_pass:
            return _make(
                pos.size, pos._board, 1 - pos.turn, pos.ply + 1, pos.captures, pos.passes + 1, PASS,
                pos._hash, pos._trail, pos._depth, pos._labels, pos._libs, pos._members,
            )
        geo = self._geo
        p = geo.index_of.get(move)
        if p is None:
            raise IllegalMove(f"{move} is off this {self.size}x{self.size} board.", self._hint_examples(pos))
        color = pos.turn + 1
        enemy = 3 - color
        board = bytearray(pos._board)
        if board[p]:
            raise IllegalMove(self._refusal(pos, move, _OCCUPIED), self._hint_examples(pos))
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
            raise IllegalMove(self._refusal(pos, move, _SUICIDE), self._hint_examples(pos))
        if pos.seen(h):
            raise IllegalMove(self._refusal(pos, move, _SUPERKO), self._hint_examples(pos))
        captures = pos.captures
        if taken:
            captures = (captures[0] + taken, captures[1]) if color == BLACK else (captures[0], captures[1] + taken)
        trail = pos._trail.grow(pos._depth, h)
        return _make(
            pos.size, bytes(board), 1 - pos.turn, pos.ply + 1, captures, 0, move,
            h, trail, pos._depth + 1, labels, libs, members,
        )

    # -- results ---------------------------------------------------------------------
    def outcome(self, pos: GoPosition) -> Outcome:
        black, white = pos.captures
        scores = (black, white)
        for side, count in enumerate(scores):
            if count >= self.target:
                unit = "capture" if count == 1 else "captures"
                return Outcome(True, side, f"{_SIDE_NAMES[side]} reached {count} {unit}", scores)
        if pos.passes >= 2:
            if black == white:
                return Outcome(True, None, f"both players passed with {black} captures each", scores)
            winner = 0 if black > white else 1
            high, low = max(scores), min(scores)
            reason = f"both players passed; {_SIDE_NAMES[winner]} has more captures ({high} to {low})"
            return Outcome(True, winner, reason, scores)
        return Outcome(False, None, "", scores)

    # -- presentation and storage ----------------------------------------------------
    def _star_points(self) -> set[Move]:
        n = self.size
        if n not in (9, 13, 19):
            return set()
        edge = 2 if n == 9 else 3
        lines = sorted({edge, n // 2, n - 1 - edge})
        return {Move(c, r) for c in lines for r in lines}

    def render(self, pos: GoPosition, names: tuple[str, str] | None = None) -> str:
        n, geo, board = self.size, self._geo, pos._board
        stars = self._star_points()
        last = pos.last if pos.last is not None and not pos.last.is_pass else None
        header = "     " + " ".join(COLUMNS[:n])
        rule = "   +" + "-" * (2 * n + 1) + "+"
        rows = [header, rule]
        for row in range(n - 1, -1, -1):
            cells = []
            for col in range(n):
                move = Move(col, row)
                color = board[geo.index_of[move]]
                cells.append(_STONE_CHARS[color] if color or move not in stars else "+")
            seps = [" "] * (n + 1)
            if last is not None and last.row == row:
                seps[last.col], seps[last.col + 1] = "(", ")"
            line = "".join(sep + cell for sep, cell in zip(seps, cells, strict=False)) + seps[n]
            rows.append(f"{row + 1:2d} |{line}| {row + 1}")
        rows += [rule, header]
        legend = self._legend(pos, names)
        width = max(len(r) for r in rows)
        if width + 3 + max(len(line) for line in legend) <= 72:
            top = 2
            for i, text in enumerate(legend):
                rows[top + i] = rows[top + i].ljust(width) + "   " + text
            return "\n".join(line.rstrip() for line in rows)
        return "\n".join([*(line.rstrip() for line in rows), "", *("  " + text for text in legend)])

    def _legend(self, pos: GoPosition, names: tuple[str, str] | None) -> list[str]:
        labels = []
        for side in (0, 1):
            who = _SIDE_NAMES[side]
            if names is not None:
                name = names[side] if len(names[side]) <= 24 else names[side][:21] + "..."
                who = f"{who} ({name})"
            labels.append(who)
        pad = max(len(label) for label in labels)
        lines = []
        for side, mark in ((0, "X"), (1, "O")):
            count = pos.captures[side]
            lines.append(f"{mark}  {labels[side].ljust(pad)}  captures: {count} of {self.target}")
        if pos.last is None:
            lines.append("   no move yet")
        elif pos.last.is_pass:
            lines.append(f"   last move: {_SIDE_NAMES[1 - pos.turn]} passed")
        else:
            mark = _STONE_CHARS[pos._board[self._geo.index_of[pos.last]]]
            lines.append(f"({mark}) last move: {self.point_name(pos.last)}")
        if not self.outcome(pos).over:
            lines.append(f"   {_SIDE_NAMES[pos.turn]} to play")
        return lines

    def dump(self, pos: GoPosition) -> dict[str, Any]:
        return {
            "size": pos.size,
            "board": self.diagram(pos),
            "turn": pos.turn,
            "ply": pos.ply,
            "captures": list(pos.captures),
            "passes": pos.passes,
            "last": None if pos.last is None else self.point_name(pos.last),
            "history": [f"{h:016x}" for h in pos._trail.hashes[: pos._depth]],
        }

    def load(self, data: Mapping[str, Any]) -> GoPosition:
        try:
            if int(data["size"]) != self.size:
                raise EngineError(f"This position is {data['size']}x{data['size']}, not {self.size}x{self.size}.")
            rows = [str(row) for row in data["board"]]
            base = self.setup(rows)
            hashes = [int(h, 16) for h in data["history"]]
            last_text = data.get("last")
            last = None if last_text is None else self._read_point(str(last_text))
            turn, ply, passes = int(data["turn"]), int(data["ply"]), int(data["passes"])
            captures = (int(data["captures"][0]), int(data["captures"][1]))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise EngineError(f"This stored Capture Go position is damaged ({exc}).") from None
        if not hashes or hashes[-1] != base._hash:
            raise EngineError("This stored Capture Go position does not match its board history.")
        return _make(
            self.size, base._board, turn, ply, captures, passes, last, base._hash,
            _Trail(hashes), len(hashes), base._labels, base._libs, base._members,
        )

    # -- SGF -------------------------------------------------------------------------
    def to_sgf(
        self,
        moves: Sequence[Move | str],
        *,
        black: str = "Black",
        white: str = "White",
        result: str | None = None,
        date: str | None = None,
        comment: str | None = None,
    ) -> str:
        """An SGF FF[4] record of a game played from the start by `moves` (or their texts).

        The target is written twice: in words in GC[] and as the private property CT[n]
        that `from_sgf` reads. When `result` is None and the moves end the game, RE[] is
        derived ("B+" for a win by captures, "0" for a draw); otherwise RE[] is `result`
        (e.g. "W+R" for a resignation) or absent for an unfinished game.
        """
        pos = self.start()
        nodes = []
        for number, item in enumerate(moves, start=1):
            move = item if isinstance(item, Move) else self._replay_parse(pos, item, number)
            colour = "B" if pos.turn == 0 else "W"
            nodes.append(f";{colour}[{self._sgf_point(move)}]")
            pos = self.apply(pos, move)
        if result is None:
            outcome = self.outcome(pos)
            if outcome.over:
                result = "0" if outcome.winner is None else ("B+" if outcome.winner == 0 else "W+")
        unit = "stone" if self.target == 1 else "stones"
        game_comment = f"Capture Go: the first player to capture {self.target} {unit} wins."
        props = [
            "FF[4]", "GM[1]", "CA[UTF-8]", "AP[pbem:1]", f"SZ[{self.size}]", "KM[0]",
            f"PB[{_sgf_text(black)}]", f"PW[{_sgf_text(white)}]", f"CT[{self.target}]",
            f"GC[{_sgf_text(game_comment)}]",
        ]
        if date:
            props.append(f"DT[{_sgf_text(date)}]")
        if result:
            props.append(f"RE[{_sgf_text(result)}]")
        if comment:
            props.append(f"C[{_sgf_text(comment, simple=False)}]")
        lines = ["(;" + "".join(props)]
        lines += ["".join(nodes[i : i + 10]) for i in range(0, len(nodes), 10)]
        return "\n".join(lines) + ")\n"

    def _replay_parse(self, pos: GoPosition, text: str, number: int) -> Move:
        try:
            return self.parse(pos, text)
        except IllegalMove as exc:
            raise IllegalMove(f"Move {number} ({text!r}) cannot be replayed: {exc.message}") from None

    def _sgf_point(self, move: Move) -> str:
        if move.is_pass:
            return ""
        return chr(97 + move.col) + chr(97 + self.size - 1 - move.row)

    @classmethod
    def from_sgf(cls, text: str | bytes, *, target: int | None = None) -> tuple[CaptureGo, list[Move]]:
        """The rules and main-line moves of an SGF record, checked by replaying them.

        Reads FF[1]-FF[4]; unknown properties, comments and variations (only the first is
        followed) are ignored. The target comes from `target`, else CT[], else the default.
        Setup stones (AB, AW, AE) are refused: Capture Go starts from the empty board.
        """
        if isinstance(text, bytes):
            text = _decode_sgf(text)
        nodes = _parse_sgf(text)
        if not nodes:
            raise EngineError("This SGF record holds no game.")
        root = nodes[0]
        if root.get("GM", ["1"])[0].strip() not in ("1", ""):
            raise EngineError(f"This SGF record is not a Go game (GM[{root['GM'][0]}]).")
        options: dict[str, Any] = {}
        size_text = root.get("SZ", ["19"])[0].strip()
        width, _, height = size_text.partition(":")
        if height and height.strip() != width.strip():
            raise EngineError(f"This SGF record is for a {width}x{height} board; Capture Go boards are square.")
        options["size"] = width
        if target is not None:
            options["target"] = target
        elif "CT" in root:
            options["target"] = root["CT"][0].strip()
        rules = cls(options)
        pos = rules.start()
        moves: list[Move] = []
        for node in nodes:
            for setup in ("AB", "AW", "AE"):
                if setup in node:
                    raise EngineError(f"This SGF record places stones with {setup}[]; Capture Go starts empty.")
            for colour, side in (("B", 0), ("W", 1)):
                for value in node.get(colour, []):
                    if pos.turn != side:
                        raise EngineError(f"Move {len(moves) + 1} in this SGF record is played out of turn.")
                    move = rules._read_sgf_point(value, len(moves) + 1)
                    try:
                        pos = rules.apply(pos, move)
                    except IllegalMove as exc:
                        raise IllegalMove(f"Move {len(moves) + 1} of this SGF record is illegal: {exc.message}") from None
                    moves.append(move)
        return rules, moves

    def _read_sgf_point(self, value: str, number: int) -> Move:
        value = value.strip()
        if value == "" or (value == "tt" and self.size <= 19):
            return PASS
        if len(value) != 2 or not value.isalpha():
            raise EngineError(f"Move {number} of this SGF record has an unreadable point [{value}].")
        col, row = ord(value[0]) - 97, self.size - 1 - (ord(value[1]) - 97)
        if not (0 <= col < self.size and 0 <= row < self.size):
            raise EngineError(f"Move {number} of this SGF record, [{value}], is off the board.")
        return Move(col, row)


def _sgf_text(value: str, simple: bool = True) -> str:
    """Escape an SGF text value; SimpleText turns line breaks into spaces."""
    value = value.replace("\\", "\\\\").replace("]", "\\]")
    return " ".join(value.split()) if simple else value


def _decode_sgf(data: bytes) -> str:
    match = re.search(rb"CA\s*\[([^\]]*)\]", data)
    charset = match.group(1).decode("ascii", "replace").strip() if match else "utf-8"
    try:
        return data.decode(charset or "utf-8")
    except (LookupError, UnicodeDecodeError):
        return data.decode("latin-1")


def _parse_sgf(text: str) -> list[dict[str, list[str]]]:
    """The main line of the first game tree: one dict per node, property -> raw values.

    A hand-written reader so the engine needs no SGF library. The main line always enters
    the first variation at a branch, so it is every node before the first `)`. Values are
    bracketed with backslash escapes; lower-case letters of old FF[3] identifiers are dropped.
    """
    i = text.find("(")
    if i < 0:
        raise EngineError("This is not an SGF record: it has no '('.")
    nodes: list[dict[str, list[str]]] = []
    node: dict[str, list[str]] | None = None
    prop: str | None = None
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == ")":
            return nodes
        if ch == ";":
            node = {}
            nodes.append(node)
            prop = None
            i += 1
        elif ch == "[":
            value, i = _sgf_value(text, i + 1)
            if node is not None and prop:
                node.setdefault(prop, []).append(value)
        elif ch.isascii() and ch.isalpha():
            match = _SGF_PROP_RE.match(text, i)
            assert match is not None
            prop = "".join(c for c in match.group(0) if c.isupper())
            i = match.end()
        else:
            i += 1
    raise EngineError("This SGF record is cut short: its game tree is never closed with ')'.")


def _sgf_value(text: str, i: int) -> tuple[str, int]:
    """Read a bracketed value from just after '[': escapes resolved, soft line breaks removed."""
    out: list[str] = []
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            if i + 1 < n:
                nxt = text[i + 1]
                if nxt in "\r\n":  # a soft line break: drop it (and its \r\n or \n\r pair)
                    i += 2
                    if i < n and text[i] in "\r\n" and text[i] != nxt:
                        i += 1
                    continue
                out.append(nxt)
            i += 2
            continue
        if ch == "]":
            return "".join(out), i + 1
        out.append(ch)
        i += 1
    raise EngineError("This SGF record is cut short: a '[' value is never closed.")


def replay(rules: CaptureGo, moves: Iterable[Move | str]) -> GoPosition:
    """The position after playing `moves` (or their texts) from the start."""
    pos = rules.start()
    for item in moves:
        move = item if isinstance(item, Move) else rules.parse(pos, item)
        pos = rules.apply(pos, move)
    return pos


__all__ = ["PASS", "CaptureGo", "GoPosition", "Move", "replay"]
