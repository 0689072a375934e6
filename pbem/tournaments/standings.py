"""A tournament's table from its results: points, tie-breaks, ranks, a crosstable; withdrawals.

Pure functions of the players and their results, so the table a mail shows and the
ranking the next Swiss round is paired from are one computation. Points are 1 for a win,
1/2 for a draw, 0 for a loss; a bye scores what the rules give it (one point by default).
The tie-breaks are the usual ones: Sonneborn-Berger for round robin (the points of the
opponents one beat, and half of those one drew with), Buchholz for Swiss (the opponents'
points), and median Buchholz (without the best and the worst opponent). A bye adds to no
tie-break, having no opponent; a forfeit counts as a game against its opponent, since
the point was taken from them. A player withdrawn from the tournament keeps their place
in the table; their remaining scheduled games are scored as forfeits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from pbem.tournaments.pairing import Pairing


class Tiebreak(StrEnum):
    """The tie-breaks by the names a table shows."""

    SONNEBORN_BERGER = "sonneborn-berger"
    BUCHHOLZ = "buchholz"
    MEDIAN_BUCHHOLZ = "median-buchholz"


#: the usual order of tie-breaks per format
ROUND_ROBIN = (Tiebreak.SONNEBORN_BERGER,)
SWISS = (Tiebreak.BUCHHOLZ, Tiebreak.MEDIAN_BUCHHOLZ)


@dataclass(frozen=True)
class Result:
    """The outcome of one board of one round (`second` None for a bye).

    Both players' points are kept, not one and its complement, so a double forfeit (two
    withdrawn players, neither there to win) is a result like any other. `on_time` says a
    game ended by the loser's clock, which is what "lost on time twice in a row" counts.
    """

    round: int
    first: int
    second: int | None
    first_points: float
    second_points: float = 0.0
    forfeit: bool = False
    on_time: bool = False

    @classmethod
    def game(cls, round: int, first: int, second: int, first_points: float, *, on_time: bool = False) -> Result:
        """A game played: `first_points` is 1, 1/2 or 0, the second player has the rest of the point."""
        if first_points not in (0, 0.5, 1):
            raise ValueError(f"a game scores 1, 1/2 or 0, not {first_points}")
        return cls(round, first, second, first_points, 1 - first_points, on_time=on_time)

    @classmethod
    def bye(cls, round: int, player: int, points: float = 1.0) -> Result:
        return cls(round, player, None, points)

    @classmethod
    def forfeited(cls, round: int, pairing: Pairing, absent: Iterable[int], points: float = 1.0) -> Result:
        """A scheduled game not played: whoever is present scores `points`, the absent nothing."""
        if pairing.second is None:
            raise ValueError("a bye cannot be forfeited")
        gone = set(absent)
        return cls(
            round, pairing.first, pairing.second,
            0.0 if pairing.first in gone else points, 0.0 if pairing.second in gone else points,
            forfeit=True,
        )

    @property
    def players(self) -> tuple[int, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)

    def points(self, player: int) -> float:
        return self.first_points if player == self.first else self.second_points

    def opponent(self, player: int) -> int | None:
        return self.second if player == self.first else self.first

    def lost_on_time(self, player: int) -> bool:
        if not self.on_time or self.second is None:
            return False
        other = self.second if player == self.first else self.first
        return self.points(player) < self.points(other)


# ---------------------------------------------------------------------------- withdrawals


def withdrawn_on_time(player: int, results: Iterable[Result], times: int = 2) -> bool:
    """Whether the player's last `times` games (by round) were all lost on time: the rule for withdrawal."""
    theirs = sorted((r for r in results if player in r.players and r.second is not None), key=lambda r: r.round)
    return len(theirs) >= times and all(r.lost_on_time(player) for r in theirs[-times:])


def forfeit_remaining(
    schedule: Sequence[Sequence[Pairing]], results: Iterable[Result], withdrawn: Iterable[int], points: float = 1.0
) -> list[Result]:
    """Forfeit results for every scheduled game of a withdrawn player that has no result yet.

    `schedule` is the rounds (1 first) of a round robin, or the rounds a Swiss has paired;
    the opponent scores `points`, and two withdrawn players who were to meet both score 0.
    """
    gone = set(withdrawn)
    done = {(r.round, frozenset(r.players)) for r in results}
    found = []
    for number, boards in enumerate(schedule, start=1):
        for board in boards:
            if board.second is None or not gone & set(board.players):
                continue
            if (number, frozenset(board.players)) not in done:
                found.append(Result.forfeited(number, board, gone, points))
    return found


def annul(results: Iterable[Result], player: int) -> list[Result]:
    """The results without any of the player's games: the other rule for an early withdrawal."""
    return [r for r in results if player not in r.players]


# ---------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Standing:
    """One row of the table: every tie-break is computed, the table names those it ranks by."""

    rank: int
    player: int
    points: float
    games: int  # played over the board: not byes, not forfeits
    sonneborn_berger: float
    buchholz: float
    median_buchholz: float
    withdrawn: bool = False

    def tiebreak(self, name: Tiebreak) -> float:
        return {
            Tiebreak.SONNEBORN_BERGER: self.sonneborn_berger,
            Tiebreak.BUCHHOLZ: self.buchholz,
            Tiebreak.MEDIAN_BUCHHOLZ: self.median_buchholz,
        }[name]


@dataclass(frozen=True)
class Table:
    """The standings, best first; players equal on points and every tie-break share a rank."""

    tiebreaks: tuple[Tiebreak, ...]
    rows: tuple[Standing, ...]

    def ranking(self) -> list[int]:
        """The players still in, best first: what the next Swiss round is paired from."""
        return [s.player for s in self.rows if not s.withdrawn]

    def scores(self) -> dict[int, float]:
        return {s.player: s.points for s in self.rows}

    def row(self, player: int) -> Standing:
        return next(s for s in self.rows if s.player == player)


def table(
    players: Sequence[int],
    results: Iterable[Result],
    tiebreaks: Sequence[Tiebreak] = SWISS,
    withdrawn: Iterable[int] = (),
) -> Table:
    """The table of `players` (seed order, which also orders players tied on everything)."""
    results = list(results)
    points = {p: 0.0 for p in players}
    games = {p: 0 for p in players}
    faced: dict[int, list[tuple[int, float]]] = {p: [] for p in players}  # (opponent, points against them)
    for r in results:
        for player in r.players:
            points[player] += r.points(player)
            opponent = r.opponent(player)
            if opponent is not None:
                faced[player].append((opponent, r.points(player)))
                games[player] += not r.forfeit
    gone = set(withdrawn)
    rows = []
    for player in players:
        against = sorted(points[o] for o, _ in faced[player])
        median = against[1:-1] if len(against) >= 3 else against
        rows.append(
            Standing(
                rank=0, player=player, points=points[player], games=games[player],
                sonneborn_berger=sum(points[o] * scored for o, scored in faced[player]),
                buchholz=sum(against), median_buchholz=sum(median), withdrawn=player in gone,
            )
        )
    order = tuple(tiebreaks)

    def key(s: Standing) -> tuple[float, ...]:
        return (s.points, *(s.tiebreak(t) for t in order))

    rows.sort(key=key, reverse=True)  # stable: seed order among equals
    ranked = []
    for i, s in enumerate(rows):
        rank = ranked[-1].rank if ranked and key(ranked[-1]) == key(s) else i + 1
        ranked.append(replace(s, rank=rank))
    return Table(order, tuple(ranked))


# ---------------------------------------------------------------------------- the crosstable


@dataclass(frozen=True)
class Mark:
    """What the row player scored in one game against the column player."""

    round: int
    points: float
    first: bool  # the row player had white
    forfeit: bool = False


@dataclass(frozen=True)
class Crosstable:
    """Who scored what against whom: rows and columns in table order, a tuple of marks per cell.

    A cell holds every game of the pair (two in a double round robin), by round; byes are
    a column of their own, since a bye has no opponent to stand under.
    """

    players: tuple[int, ...]
    cells: tuple[tuple[tuple[Mark, ...], ...], ...]
    byes: tuple[tuple[Mark, ...], ...]

    def cell(self, row: int, column: int) -> tuple[Mark, ...]:
        return self.cells[self.players.index(row)][self.players.index(column)]


def crosstable(standings: Table, results: Iterable[Result]) -> Crosstable:
    players = tuple(s.player for s in standings.rows)
    index = {p: i for i, p in enumerate(players)}
    cells: list[list[list[Mark]]] = [[[] for _ in players] for _ in players]
    byes: list[list[Mark]] = [[] for _ in players]
    for r in sorted(results, key=lambda r: r.round):
        if r.second is None:
            if r.first in index:
                byes[index[r.first]].append(Mark(r.round, r.first_points, False))
            continue
        if r.first not in index or r.second not in index:
            continue
        a, b = index[r.first], index[r.second]
        cells[a][b].append(Mark(r.round, r.first_points, True, r.forfeit))
        cells[b][a].append(Mark(r.round, r.second_points, False, r.forfeit))
    return Crosstable(
        players, tuple(tuple(tuple(c) for c in row) for row in cells), tuple(tuple(b) for b in byes)
    )
