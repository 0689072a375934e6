"""Reading ladders in Capture Go: can a chain short of liberties be caught, with best play?

The attacker keeps the chain in atari; the defender extends at its one liberty or captures an
attacking chain that is itself in atari. With three liberties the chain is out; with none it
is taken. Played with the engine's own `place`, so captures and superko count as in a game.
Bounded in plies: a chase longer than that is counted as an escape.
"""

from __future__ import annotations

from pbem_engine.go.board import EMPTY, GoPosition, _Geometry, place

_PLIES = 24


def _libs(geo: _Geometry, pos: GoPosition, root: int) -> list[int]:
    board, neighbours = pos._board, geo.neighbours
    found: dict[int, None] = {}
    for s in pos._members[root]:  # type: ignore[union-attr]
        for t in neighbours[s]:
            if board[t] == EMPTY:
                found[t] = None
    return list(found)


def caught(geo: _Geometry, pos: GoPosition, point: int, plies: int = _PLIES) -> bool:
    """Whether the chain on `point` is lost: taken at once or in a ladder, whoever is to move.

    The side to move attacks if the chain is the opponent's, else defends it."""
    board = pos._board
    colour = board[point]
    if colour == EMPTY:
        return True  # already taken
    libs = _libs(geo, pos, pos._labels[point])
    defending = colour == pos.turn + 1
    if len(libs) >= 3 or plies <= 0:
        return False
    if not defending:
        if len(libs) == 1:
            return True
        for p in libs:  # atari from either side
            after = place(geo, pos, p)
            if isinstance(after, int):
                continue
            if after._board[point] == EMPTY:
                return True
            mine = _libs(geo, after, after._labels[p])
            if len(mine) <= 1 and after.captures == pos.captures:
                continue  # an atari the defender could take at once
            if caught(geo, after, point, plies - 1):
                return True
        return False
    if len(libs) >= 2:
        return False  # the defender to move, with two liberties: not a ladder yet
    # in atari: take an attacker in atari next to the chain, or extend
    neighbours, labels = geo.neighbours, pos._labels
    enemy = 3 - colour
    for s in pos._members[labels[point]]:  # type: ignore[union-attr]
        for t in neighbours[s]:
            if board[t] == enemy and len(_libs(geo, pos, labels[t])) == 1:
                return False
    after = place(geo, pos, libs[0])
    if isinstance(after, int):
        return True
    return caught(geo, after, point, plies - 1)
