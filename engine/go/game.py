"""Capture Go (RULES.md section 2): Go in which the first player to capture `target` stones wins.

Notation: a point is its column letter and row number as Go players write them, `d4`, `k10`:
the columns run a b c d e f g h j k ... t with **no i**, row 1 is at the bottom (Black's side),
and `pass` passes. Input is case-insensitive and may contain a space (`D 4`); the canonical
form is lower case. Resigning is a service command, not a move. Text that is not a point at all
("g2 looks good") raises `InvalidMove`; a point off the board, in column i, occupied, suicidal
or repeating a board (superko), and any move once the game is over, raise `IllegalMove`.

Rules in short: Black first; a placement removes every enemy chain left without liberties
(their stones count to the mover's captures), and only then is the placed chain checked for
suicide. Positional superko forbids a board (stones only) equal to the board after any earlier
move of the game or the empty start; passes create no new position. The mover wins at once on
reaching the target; after two consecutive passes more captures win and equal is a draw.
The board mechanics live in `pbem_engine.go.board`; SGF records are the records layer's business.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pbem_engine.common import squares
from pbem_engine.common.base import Effects, Option, Outcome, Rules, Termination, int_option
from pbem_engine.common.errors import EngineError, IllegalMove, InvalidMove
from pbem_engine.common.grid import below, beside, fits_beside, ljust, render_grid, width
from pbem_engine.common.phrases import Phrase, nphrase, phrase
from pbem_engine.go.board import (
    _OCCUPIED,
    _OK,
    _SUICIDE,
    BLACK,
    EMPTY,
    MAX_SIZE,
    MIN_SIZE,
    PASS,
    WHITE,
    GoPosition,
    Move,
    _chains,
    _geometry,
    _make,
    _Trail,
    board_hash,
    place,
    verdict,
)

_STONE_CHARS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
_SIDE_NAMES = ("Black", "White")  # the engine's own English (tests, records); legends use phrases
REACHED_FORMS = 4  # the ways the legend says a count past its target (`CaptureGo._captures`)
_POINT_RE = re.compile(r"^([a-z])[\s\-]*(\d{1,3})$")


class CaptureGo(Rules[GoPosition, Move]):
    """Capture Go: first to `target` captured stones wins (see the module docstring)."""

    name = "capturego"
    aliases = ("capture-go", "capture go", "atari-go", "atarigo", "first-capture", "first capture go")
    title = "Capture Go"
    family = "capturego"
    sides = ("black", "white")
    score_unit = "captures"
    option_specs = (
        Option("size", 9, phrase("board size, 5 to 19"), int_option("size", MIN_SIZE, MAX_SIZE)),
        Option("target", 1, phrase("captured stones that win, at least 1"), int_option("target", 1, None)),
    )

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.size: int = self.options["size"]
        self.target: int = self.options["target"]
        self._geo = _geometry(self.size)
        self._order: list[Move] | None = None

    def describe(self) -> Phrase:
        return nphrase(
            "capture go {size}x{size}, first to {n} capture", "capture go {size}x{size}, first to {n} captures",
            self.target, size=self.size,
        )

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
            raise EngineError(
                phrase("A position needs turn 0 (Black) or 1 (White) and captures of at least 0."),
                code="setup.turn_or_captures", params={"turn": turn, "captures": list(captures)},
            )
        rows = diagram.strip().splitlines() if isinstance(diagram, str) else list(diagram)
        rows = [row.replace(" ", "") for row in rows if row.strip()]
        if len(rows) != self.size or any(len(row) != self.size for row in rows):
            raise EngineError(
                phrase("A {size}x{size} diagram needs {size} rows of {size} points.", size=self.size),
                code="setup.shape",
            )
        geo = self._geo
        board = bytearray(geo.empty)
        for r, row in enumerate(rows):
            for col, char in enumerate(row.upper()):
                color = BLACK if char == "X" else WHITE if char == "O" else EMPTY
                board[geo.index_of[Move(col, self.size - 1 - r)]] = color
        stones = bytes(board)
        labels, libs, members = _chains(geo, stones)
        if any(members[root] and not libs[root] for root in range(geo.length)):
            raise EngineError(phrase("A chain in this diagram has no liberty."), code="setup.no_liberty")
        stones_hash = board_hash(self._geo, stones)
        hashes = [0] if stones_hash == 0 else [0, stones_hash]
        return _make(
            self.size, stones, turn, 0, (int(captures[0]), int(captures[1])), 0, None, stones_hash,
            _Trail(hashes), len(hashes), labels, libs, members,
        )

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
        return "pass" if point.is_pass else squares.square_name(point.col, point.row, skip_i=True)

    def _read_point(self, text: str, pos: GoPosition | None = None) -> Move:
        """The point a text names, or IllegalMove for what no board of this size has."""
        raw = text.strip()
        word = raw.lower().strip(".!")
        if word == "pass":
            return PASS
        if word in ("resign", "resigns", "i resign"):
            # IllegalMove, not InvalidMove: a reader must answer it, or the player thinks they resigned.
            raise IllegalMove(
                phrase('"{text}" is not a move.', text=raw),
                code="move.resign_is_a_command",
                hint=phrase("To resign, write the command resign on a line of its own."),
            )
        match = _POINT_RE.match(word)
        if not match:
            shown = raw if len(raw) <= 30 else raw[:27] + "..."
            raise InvalidMove(
                phrase('"{text}" is not a Go move; a move is a point such as d4, or pass.', text=shown),
                code="move.not_notation",
                hint=self._hint_examples(pos, how=True),
            )
        letter, number = match.group(1), int(match.group(2))
        columns = squares.columns_text(self.size, skip_i=True)
        if letter == "i":
            raise IllegalMove(
                phrase('"{text}": there is no column i in Go coordinates; the columns are {columns}.',
                       text=raw, columns=columns),
                code="move.no_column_i",
                hint=self._hint_examples(pos),
            )
        point = squares.point(f"{letter}{number}", self.size, skip_i=True)
        if point is None:
            raise IllegalMove(
                phrase('"{text}" is off this {size}x{size} board; the columns are {columns} and the rows 1-{size}.',
                       text=raw, size=self.size, columns=columns),
                code="move.off_board",
                params={"text": raw, "size": self.size, "columns": columns},
                hint=self._hint_examples(pos),
            )
        return Move(*point)

    def parse(self, pos: GoPosition, text: str) -> Move:
        outcome = self.outcome(pos)
        if outcome.over:
            raise self._game_over(outcome)
        move = self._read_point(text, pos)
        if move.is_pass:
            return PASS
        found = verdict(self._geo, pos, self._geo.index_of[move])
        if found != _OK:
            raise self._refusal(pos, move, found)
        return move

    def _refusal(self, pos: GoPosition, move: Move, found: int) -> IllegalMove:
        """The error for a placement the rules refuse: occupied, suicide or superko."""
        name = self.point_name(move)
        hint = self._hint_examples(pos)
        if found == _OCCUPIED:
            whose = "black" if pos._board[self._geo.index_of[move]] == BLACK else "white"
            said = (
                phrase('"{point}" is occupied by a black stone.', point=name) if whose == "black"
                else phrase('"{point}" is occupied by a white stone.', point=name)
            )
            return IllegalMove(said, code="move.occupied", params={"point": name, "stone": whose}, hint=hint)
        if found == _SUICIDE:
            return IllegalMove(
                phrase('"{point}" would leave your stones without liberties (suicide is not allowed).', point=name),
                code="move.suicide", hint=hint,
            )
        return IllegalMove(
            phrase('"{point}" would repeat an earlier board position (superko).', point=name),
            code="move.superko", hint=hint,
        )

    def _game_over(self, outcome: Outcome) -> IllegalMove:
        return IllegalMove(
            _ending_text(outcome),
            code="move.game_over",
            params={"termination": str(outcome.termination), "details": dict(outcome.details)},
        )

    def _hint_examples(self, pos: GoPosition | None = None, how: bool = False) -> Phrase:
        """The points one may play now; `how` puts how to write a point first."""
        shown = self.examples(pos) if pos is not None else ["c3", "d4"]
        points = [text for text in shown if text != "pass"]
        if how:
            if not points:
                return phrase("Write the column letter then the row number. No point is legal now; write pass.")
            return phrase(
                "Write the column letter then the row number. Points you can play now: e.g. {points} (or pass).",
                points=points,
            )
        if not points:
            return phrase("No point is legal now; write pass.")
        return phrase("Points you can play now: e.g. {points} (or pass).", points=points)

    def format(self, pos: GoPosition, move: Move) -> str:
        return self.point_name(move)

    def is_legal(self, pos: GoPosition, move: Move) -> bool:
        """Whether `move` may be played now: the fast test behind legal_moves and playouts."""
        if pos.passes >= 2 or max(pos.captures) >= self.target:
            return False
        if move.is_pass:
            return True
        p = self._geo.index_of.get(move)
        return p is not None and verdict(self._geo, pos, p) == _OK

    def legal_moves(self, pos: GoPosition) -> list[Move]:
        if self.outcome(pos).over:
            return []
        geo = self._geo
        board = pos._board
        moves = [geo.moves[i] for i, p in enumerate(geo.points) if not board[p] and verdict(geo, pos, p) == _OK]
        moves.append(PASS)
        return moves

    def examples(self, pos: GoPosition) -> list[str]:
        """Up to three legal points, star points first, so hints look like real moves."""
        if self.outcome(pos).over:
            return []
        geo, found = self._geo, []
        for move in self._preferred():
            p = geo.index_of[move]
            if not pos._board[p] and verdict(self._geo, pos, p) == _OK:
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

    def notation(self) -> Phrase:
        return phrase(
            "Name a point by its column letter and row number, e.g. d4 (the columns are "
            "{columns}: Go has no column i), or write pass.",
            columns=squares.columns_text(self.size, skip_i=True),
        )

    def apply(self, pos: GoPosition, move: Move) -> GoPosition:
        if pos.passes >= 2 or max(pos.captures) >= self.target:
            raise self._game_over(self.outcome(pos))
        if move.is_pass:
            return _make(
                pos.size, pos._board, 1 - pos.turn, pos.ply + 1, pos.captures, pos.passes + 1, PASS,
                pos._hash, pos._trail, pos._depth, pos._labels, pos._libs, pos._members,
            )
        geo = self._geo
        p = geo.index_of.get(move)
        if p is None:
            raise IllegalMove(
                phrase("{point} is off this {size}x{size} board.", point=str(move), size=self.size),
                code="move.off_board", params={"point": list(move), "size": self.size},
                hint=self._hint_examples(pos),
            )
        if pos._board[p]:
            raise self._refusal(pos, move, _OCCUPIED)
        after = place(geo, pos, p)
        if isinstance(after, int):
            raise self._refusal(pos, move, after)
        return after

    # -- results ---------------------------------------------------------------------
    def outcome(self, pos: GoPosition) -> Outcome:
        black, white = pos.captures
        scores = (black, white)
        for side, count in enumerate(scores):
            if count >= self.target:
                return Outcome(True, side, Termination.TARGET_CAPTURES, scores, details={"side": side, "captures": count})
        if pos.passes >= 2:
            winner = None if black == white else 0 if black > white else 1
            details: dict[str, Any] = {"captures": [black, white]}
            if winner is not None:
                details["side"] = winner
            return Outcome(True, winner, Termination.BOTH_PASSED, scores, details=details)
        return Outcome(False, None, None, scores)

    def effects(self, before: GoPosition, after: GoPosition) -> Effects:
        """The stones the move captured, and the points they stood on."""
        side = before.turn
        taken = after.captures[side] - before.captures[side]
        if not taken:
            return Effects()
        geo, enemy = self._geo, 2 - side
        gone = [
            self.point_name(move) for move, p in zip(geo.moves, geo.points, strict=True)
            if before._board[p] == enemy and after._board[p] == EMPTY
        ]
        return Effects(taken, tuple(gone))

    # -- records ---------------------------------------------------------------------
    record_format = "sgf"

    def record_tags(self) -> list[tuple[str, str]]:
        """SGF root properties beside SZ: no komi, the target (CT, our own) and the rule in words."""
        unit = "stone" if self.target == 1 else "stones"
        comment = f"Capture Go: the first player to capture {self.target} {unit} wins."
        return [("KM", "0"), ("CT", str(self.target)), ("GC", comment)]

    @classmethod
    def record_options(cls, size: int, tags: Mapping[str, str]) -> dict[str, Any]:
        """The options of a game read from a record: its board size and the target in CT[]."""
        options: dict[str, Any] = {"size": size}
        if "CT" in tags:
            options["target"] = tags["CT"].strip()
        return options

    def sgf_point(self, move: Move) -> tuple[int, int] | None:
        """The move as (row, column) from the bottom left, as sgfmill writes points; None passes."""
        return None if move.is_pass else (move.row, move.col)

    def from_sgf_point(self, point: tuple[int, int] | None) -> Move:
        """The inverse of `sgf_point`."""
        return PASS if point is None else Move(point[1], point[0])

    # -- presentation and storage ----------------------------------------------------
    def star_points(self) -> set[Move]:
        """The hoshi a board of this size marks (none on sizes other than 9, 13 and 19)."""
        n = self.size
        if n not in (9, 13, 19):
            return set()
        edge = 2 if n == 9 else 3
        lines = sorted({edge, n // 2, n - 1 - edge})
        return {Move(c, r) for c in lines for r in lines}

    def render(
        self,
        pos: GoPosition,
        names: tuple[str, str] | None = None,
        finished: bool = False,
        *,
        say: Callable[[Phrase], str] = str,
    ) -> str:
        n, geo, board = self.size, self._geo, pos._board
        stars = self.star_points()
        last = pos.last if pos.last is not None and not pos.last.is_pass else None

        def cell(col: int, row: int) -> str:
            move = Move(col, row)
            color = board[geo.index_of[move]]
            return _STONE_CHARS[color] if color or move not in stars else "+"

        def between(col: int, row: int) -> str:
            if last is None or last.row != row:
                return " "
            return "(" if col == last.col else ")" if col == last.col + 1 else " "

        rows = render_grid(squares.columns(n, skip_i=True), n, cell, label_width=2, between=between)
        # Where the legend goes is decided with the plain count ("captures: 8 of 3"); then a
        # count past its target reads as reached, in the longest words that keep the line in.
        if not fits_beside(rows, self._legend(pos, names, finished, say), 3):
            return "\n".join(below(rows, self._legend(pos, names, finished, say, 0)))
        for reached in range(REACHED_FORMS):
            legend = self._legend(pos, names, finished, say, reached)
            if fits_beside(rows, legend, 3):
                break
        else:
            legend = self._legend(pos, names, finished, say)
        return "\n".join(line.rstrip() for line in beside(rows, legend, 2, 3))

    def _captures(self, count: int, reached: int | None) -> Phrase:
        """A side's captures in the legend: "captures: 2 of 5", or past the target in the
        `reached`-th of its forms, longest first (a mail shows the longest that fits)."""
        n, target = count, self.target
        if reached is None or n < target:
            return phrase("captures: {n} of {target}", n=n, target=target)
        forms = (
            lambda: phrase("captures: {n} (target {target} reached)", n=n, target=target),
            lambda: phrase("captures: {n}, target {target}", n=n, target=target),
            lambda: phrase("captures: {n} (won)", n=n),
            lambda: phrase("captures: {n}", n=n),
        )
        return forms[reached]()

    def _legend(
        self,
        pos: GoPosition,
        names: tuple[str, str] | None,
        finished: bool = False,
        say: Callable[[Phrase], str] = str,
        reached: int | None = None,
    ) -> list[str]:
        labels = []
        for side in (0, 1):
            if names is not None:
                name = names[side] if len(names[side]) <= 24 else names[side][:21] + "..."
                who = phrase("Black ({name})", name=name) if side == 0 else phrase("White ({name})", name=name)
            else:
                who = phrase("Black") if side == 0 else phrase("White")
            labels.append(say(who))
        pad = max(width(label) for label in labels)
        lines = []
        for side, mark in ((0, "X"), (1, "O")):
            count = pos.captures[side]
            lines.append(f"{mark}  {ljust(labels[side], pad)}  {say(self._captures(count, reached))}")
        if pos.last is None:
            lines.append("   " + say(phrase("no move yet")))
        elif pos.last.is_pass:
            passed = phrase("last move: Black passed") if pos.turn == 1 else phrase("last move: White passed")
            lines.append(f"   {say(passed)}")
        else:
            mark = _STONE_CHARS[pos._board[self._geo.index_of[pos.last]]]
            last = phrase("last move: {move}", move=self.point_name(pos.last))
            lines.append(f"({mark}) " + say(last))
        if not finished and not self.outcome(pos).over:
            lines.append("   " + say(phrase("Black to play") if pos.turn == 0 else phrase("White to play")))
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
                raise EngineError(
                    phrase("This position is {size}x{size}, not {expected}x{expected}.",
                           size=data["size"], expected=self.size),
                    code="position.size", params={"size": data["size"], "expected": self.size},
                )
            rows = [str(row) for row in data["board"]]
            base = self.setup(rows)
            hashes = [int(h, 16) for h in data["history"]]
            last_text = data.get("last")
            last = None if last_text is None else self._read_point(str(last_text))
            turn, ply, passes = int(data["turn"]), int(data["ply"]), int(data["passes"])
            captures = (int(data["captures"][0]), int(data["captures"][1]))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise EngineError(
                phrase("This stored Capture Go position is damaged ({problem}).", problem=str(exc)),
                code="position.damaged",
            ) from None
        if not hashes or hashes[-1] != base._hash:
            raise EngineError(
                phrase("This stored Capture Go position does not match its board history."), code="position.history"
            )
        return _make(
            self.size, base._board, turn, ply, captures, passes, last, base._hash,
            _Trail(hashes), len(hashes), base._labels, base._libs, base._members,
        )


def _ending_text(outcome: Outcome) -> Phrase:
    """The sentence that refuses a move once the game is over, one whole sentence per ending."""
    details = outcome.details
    if outcome.termination is Termination.TARGET_CAPTURES:
        count = details["captures"]
        if details["side"] == 0:
            return nphrase(
                "The game is over (Black reached {n} capture); no more moves can be played.",
                "The game is over (Black reached {n} captures); no more moves can be played.", count,
            )
        return nphrase(
            "The game is over (White reached {n} capture); no more moves can be played.",
            "The game is over (White reached {n} captures); no more moves can be played.", count,
        )
    black, white = details["captures"]
    if outcome.winner is None:
        return nphrase(
            "The game is over (both players passed with {n} captures each); no more moves can be played.",
            "The game is over (both players passed with {n} captures each); no more moves can be played.",
            black,
        )
    high, low = max(black, white), min(black, white)
    if outcome.winner == 0:
        return phrase(
            "The game is over (both players passed; Black has more captures ({high} to {low})); "
            "no more moves can be played.", high=high, low=low,
        )
    return phrase(
        "The game is over (both players passed; White has more captures ({high} to {low})); "
        "no more moves can be played.", high=high, low=low,
    )


def replay(rules: CaptureGo, moves: Iterable[Move | str]) -> GoPosition:
    """The position after playing `moves` (or their texts) from the start."""
    pos = rules.start()
    for item in moves:
        move = item if isinstance(item, Move) else rules.parse(pos, item)
        pos = rules.apply(pos, move)
    return pos


__all__ = ["PASS", "CaptureGo", "GoPosition", "Move", "replay"]
