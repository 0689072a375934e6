"""Who plays whom in a tournament round: round robin by Berger tables, Swiss by matching.

Pure functions of the players (ints, in seed or rank order) and the games so far, so a
tournament command can schedule a round inside its own transaction and a test can play
thousands of rounds. Round robin is fixed in advance (the Berger tables of the FIDE
Handbook, C.05 Annex 1, with the last number as the bye when the count is odd). A Swiss
round is one maximum-weight matching (`networkx.max_weight_matching`, the method the
Dutch-system engines rest on) over every pair that has not met yet: the weights rank the
wishes one above another, so no amount of a lesser wish can outweigh a greater one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx


@dataclass(frozen=True)
class Pairing:
    """One board of a round: `first` has white (moves first); `second` is None for a bye.

    A bye is a pairing too, so a round is one list and the history of a tournament one
    list of rounds, and "had a bye" is a look-up in the same data as "met before".
    """

    first: int
    second: int | None = None

    @property
    def bye(self) -> bool:
        return self.second is None

    @property
    def players(self) -> tuple[int, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)

    def reversed(self) -> Pairing:
        """The same game with colours swapped (a bye stays a bye): the return leg of a double round robin."""
        return self if self.second is None else Pairing(self.second, self.first)


_BYE = "bye"  # the matching's extra node: whoever is matched to it has the bye


class NoPairing(ValueError):
    """No round can be paired without a repeat: the tournament has more rounds than the field allows."""


# ---------------------------------------------------------------------------- round robin


def round_robin(players: Sequence[int], *, double: bool = False) -> list[list[Pairing]]:
    """Every round of a round robin among `players` (seed order), by the Berger tables.

    With numbers 1..n (n even, the bye as number n when the field is odd) and m = n - 1,
    round r pairs i with j when i + j = r + 1 (mod m); the i with 2i = r + 1 (mod m) meets
    n instead, n having white in the even rounds; of i and j, i has white when j - i is
    odd (mod m). So colours alternate (never three alike in a row) and every player has
    as many whites as blacks, give or take one. `double` plays the rounds again with
    colours reversed.
    """
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    if len(players) < 2:
        raise ValueError("a round robin needs two players")
    numbers: list[int | None] = [None, *players]  # 1-based, as in the tables
    if len(players) % 2:
        numbers.append(None)  # the bye is the last number
    n = len(numbers) - 1
    m = n - 1
    rounds = []
    for r in range(1, n):
        target = (r + 1) % m
        games: list[tuple[int, int]] = []
        for i in range(1, n):
            if (2 * i) % m == target:
                games.insert(0, (n, i) if r % 2 == 0 else (i, n))
            for j in range(i + 1, n):
                if (i + j) % m == target:
                    games.append((i, j) if (j - i) % 2 else (j, i))
        boards = [_board(numbers[w], numbers[b]) for w, b in games]
        rounds.append(sorted(boards, key=lambda p: p.bye))  # the bye last, as in a Swiss round
    if double:
        # the Handbook's advice: the first cycle's last two rounds swap, or some would
        # have one colour three times in a row where the cycles meet
        second = [[p.reversed() for p in rnd] for rnd in rounds]
        if len(rounds) > 2:
            rounds[-2:] = rounds[:-3:-1]
        rounds += second
    return rounds


def _board(white: int | None, black: int | None) -> Pairing:
    if white is None:
        assert black is not None
        return Pairing(black)
    return Pairing(white, black)


# ---------------------------------------------------------------------------- Swiss


@dataclass(frozen=True)
class _Colours:
    """A player's colour history: whites minus blacks, and the last two colours (+1 white, -1 black)."""

    balance: int = 0
    last: tuple[int, ...] = ()

    def cost(self, colour: int) -> tuple[int, int]:
        """(absolute, preference) faults of giving this colour: absolute past +-2 or thrice in a row."""
        after = abs(self.balance + colour)
        absolute = int(after > 2) + int(self.last[-2:] == (colour, colour))
        preference = int(after == 2) + int(self.last[-1:] == (colour,))
        return absolute, preference


def _colours(history: Iterable[Pairing]) -> dict[int, _Colours]:
    found: dict[int, _Colours] = {}
    for p in history:
        if p.second is None:
            continue
        for player, colour in ((p.first, 1), (p.second, -1)):
            c = found.get(player, _Colours())
            found[player] = _Colours(c.balance + colour, (*c.last, colour)[-2:])
    return found


def _orient(a: int, b: int, colours: Mapping[int, _Colours]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The better colours for a and b, and their faults: ((white, black), (absolute, preference))."""
    ca, cb = colours.get(a, _Colours()), colours.get(b, _Colours())

    def faults(white: _Colours, black: _Colours) -> tuple[int, int]:
        w, k = white.cost(1), black.cost(-1)
        return w[0] + k[0], w[1] + k[1]

    a_white, b_white = faults(ca, cb), faults(cb, ca)
    if a_white != b_white:
        return ((a, b), a_white) if a_white < b_white else ((b, a), b_white)
    # no colour is better: the one with fewer whites (then the one who had black last) has white
    key_a, key_b = (ca.balance, ca.last[-1:]), (cb.balance, cb.last[-1:])
    return ((b, a), b_white) if key_b < key_a else ((a, b), a_white)


def _half_points(score: float) -> int:
    """Scores as whole half points, so the weights stay integers (networkx is exact on integers)."""
    return round(score * 2)


def swiss_round(
    ranking: Sequence[int], scores: Mapping[int, float], history: Iterable[Pairing] = ()
) -> list[Pairing]:
    """The next Swiss round among `ranking` (the players still in, best first).

    The matching maximises, in this order, each wish above all lesser ones together:
    no player past two more whites than blacks (or either way) or three of a colour in a
    row; the bye (when the count is odd) to the lowest-ranked player with the fewest byes,
    so nobody has a second while another has none; the smallest score differences (the sum
    of their squares, so score groups stay together and a float goes to the next group,
    not further); colour preferences (one colour twice, a balance of two); and within a
    score group, the top half against the bottom half. Pairs that met before are never
    paired. Boards come out by the rank of their better player; raises NoPairing.
    """
    ranking = list(ranking)
    if len(set(ranking)) != len(ranking):
        raise ValueError("a player is ranked twice")
    history = list(history)
    met = {frozenset(p.players) for p in history if p.second is not None}
    byes = {player: 0 for player in ranking}
    for p in history:
        if p.second is None and p.first in byes:
            byes[p.first] += 1
    colours = _colours(history)
    rank = {player: i for i, player in enumerate(ranking)}
    group = _groups(ranking, scores)
    fewest = min(byes.values(), default=0)

    edges: dict[tuple[int, int | str], tuple[int, ...]] = {}
    for i, a in enumerate(ranking):
        for b in ranking[i + 1 :]:
            if frozenset((a, b)) in met:
                continue
            _, (absolute, preference) = _orient(a, b, colours)
            diff = _half_points(scores.get(a, 0)) - _half_points(scores.get(b, 0))
            edges[(a, b)] = (absolute, 0, diff * diff, preference, _fold(a, b, group))
    if len(ranking) % 2:
        for player in ranking:
            if byes[player] == fewest:
                edges[(player, _BYE)] = (0, len(ranking) - 1 - rank[player], 0, 0, 0)

    graph = nx.Graph()
    graph.add_nodes_from(ranking)
    for (a, b), weight in _weights(edges, (len(ranking) + 1) // 2).items():
        graph.add_edge(a, b, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) < len(ranking) + len(ranking) % 2:
        raise NoPairing(f"{len(ranking)} players cannot be paired without a repeat")

    boards: list[Pairing] = []
    bye: list[Pairing] = []
    for edge in sorted(matching, key=lambda e: min(rank.get(p, len(rank)) for p in e)):
        if _BYE in edge:
            bye.append(Pairing(next(p for p in edge if p != _BYE)))
            continue
        a, b = sorted(edge, key=rank.__getitem__)
        (white, black), _ = _orient(a, b, colours)
        if a not in colours and b not in colours:
            # neither has had a colour yet: alternate by board, as the first round's lot would
            white, black = (a, b) if len(boards) % 2 == 0 else (b, a)
        boards.append(Pairing(white, black))
    return boards + bye


def _groups(ranking: Sequence[int], scores: Mapping[int, float]) -> dict[int, tuple[int, int, int]]:
    """Each player's (score, place in their score group, the group's size), in ranking order."""
    members: dict[int, list[int]] = {}
    for player in ranking:
        members.setdefault(_half_points(scores.get(player, 0)), []).append(player)
    return {p: (score, i, len(ps)) for score, ps in members.items() for i, p in enumerate(ps)}


def _fold(a: int, b: int, group: Mapping[int, tuple[int, int, int]]) -> int:
    """How far a pair of one score group is from top half against bottom half (1 v 1+g/2)."""
    (score_a, pa, size), (score_b, pb, _) = group[a], group[b]
    return abs(abs(pa - pb) - size // 2) if score_a == score_b else 0


def _weights(costs: Mapping[tuple[int, int | str], tuple[int, ...]], edges: int) -> dict[tuple[int, int | str], int]:
    """Lexicographic costs as one integer weight each, higher for cheaper.

    Every matching of the field has the same number of edges, so a weight of top - cost
    ranks matchings by total cost; each tier's radix exceeds what all edges together can
    add in the tiers below it, which is what puts one wish strictly above the next.
    """
    if not costs:
        return {}
    tiers = len(next(iter(costs.values())))
    radix = [edges * max(c[t] for c in costs.values()) + 1 for t in range(tiers)]
    combined = {}
    for key, cost in costs.items():
        total = 0
        for t in range(tiers):
            total = total * radix[t] + cost[t]
        combined[key] = total
    top = max(combined.values()) + 1
    return {key: top - value for key, value in combined.items()}
