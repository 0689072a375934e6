"""What templates see: plain dicts built from records (views), so templates never query.

A game's view has a part that is the same for every reader (the board, the scores, the
last move) and a part seen from the reader's side (whose turn, the deadline in their zone).
The shared part is built once per version of the game and session, so the five mails one
move may cause decode and render the position once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sqlmodel import Session

import engine
from pbem import boards, clock
from pbem import games as G
from pbem.models import Challenge, Game, Player


def game_view(session: Session, game: Game, viewer: Player | None = None) -> dict[str, Any]:
    """Everything a mail about a game may show, from the point of view of `viewer`."""
    shared = _shared(session, game)
    p0, p1 = _players(session, game)
    side_names = shared["sides"]
    viewer_side = game.side_of(viewer.id) if viewer is not None else None
    view = {
        **shared,
        "your_side": side_names[viewer_side] if viewer_side is not None else None,
        "your_turn": game.status == "active" and viewer_side == game.turn,
        "draw_offer_by_opponent": game.draw_offer is not None and game.draw_offer != viewer_side,
        "you_won": viewer_side is not None and game.winner == viewer_side,
        "deadline": _deadline(session, game, viewer),  # None once the game is over
    }
    if viewer is not None and viewer_side is not None:
        view["you"] = viewer.name
        view["opponent"] = (p0, p1)[1 - viewer_side].name
        view["opponent_address"] = (p0, p1)[1 - viewer_side].address
    return view


def _cache(session: Session) -> dict[tuple, Any]:
    return session.info.setdefault("pbem.views", {})


def memo(session: Session, key: tuple, make: Callable[[], Any]) -> Any:
    """`make()`, made once per session and `key` (which names the game's version): kept with the
    views, so `forget` drops it with them."""
    cache = _cache(session)
    if key not in cache:
        cache[key] = make()
    return cache[key]


def forget(session: Session) -> None:
    """Drop the views built so far: a change that does not touch the game's version (a
    vacation, a new name) may follow, and the next views must see it."""
    session.info.pop("pbem.views", None)


def _players(session: Session, game: Game) -> tuple[Player, Player]:
    """The game's two players, looked up once for all the views of a session: the records
    themselves, so a change to one is seen (a lookup in the identity map costs more than this)."""
    key = ("players", game.id, game.player0_id, game.player1_id)
    cache = _cache(session)
    if key not in cache:
        cache[key] = G.players(session, game)
    return cache[key]


def _shared(session: Session, game: Game) -> dict[str, Any]:
    key = ("game", game.id, game.version, game.status)
    cache = _cache(session)
    if key in cache:
        return cache[key]
    rules = G.rules_of(game)
    pos = G.position(game)
    p0, p1 = _players(session, game)
    outcome = rules.outcome(pos)
    last = G.last_move(session, game) if game.ply else None  # no move is stored before the first
    on_move = (p0, p1)[game.turn]
    side_names = rules.sides
    shared = {
        "id": game.id,
        "kind": game.kind,
        "title": rules.title,
        "describe": rules.describe(),
        "status": game.status,
        "sides": side_names,
        "players": [
            {"name": p.name, "address": p.address, "side": side_names[i], "score": outcome.scores[i]}
            for i, p in enumerate((p0, p1))
        ],
        "board": board_text(rules.render(pos, names=(p0.name, p1.name), finished=game.status != "active")),
        "ply": game.ply,
        "move_number": game.ply + 1,
        "score_unit": rules.score_unit,
        "on_move": {"name": on_move.name, "side": side_names[game.turn], "address": on_move.address},
        "last_move": (
            {"notation": last.notation, "by": (p0, p1)[last.side].name, "side": side_names[last.side]}
            if last
            else None
        ),
        "examples": rules.examples(pos) if game.status == "active" else [],
        "notation": rules.notation(),
        "draw_offer": side_names[game.draw_offer] if game.draw_offer is not None else None,
        "result": game.result,
        "reason": game.reason,
        "ending": game.ending,
        "termination": game.termination,
        "details": game.details or {},
        "loser": (p0, p1)[1 - game.winner].name if game.winner is not None else None,
        "winner": (p0, p1)[game.winner].name if game.winner is not None else None,
        "created": game.created_at.strftime("%d %b %Y"),
    }
    shared["grid"] = boards.grid(rules, pos, shared["board"])  # the cells, for the HTML part
    cache[key] = shared
    return shared


_CAPTURES = re.compile(r"captures: (\d+) of (\d+)")
BOARD_WIDTH = 72  # the engines' boards fit this; so must what a mail makes of them


def board_text(board: str) -> str:
    """The engine's board as a mail shows it: a count past its target reads as reached, not
    "8 of 3"."""

    def captures(line: str) -> str:
        m = _CAPTURES.search(line)
        if m is None or int(m.group(1)) < int(m.group(2)):
            return line
        count, target = m.group(1), m.group(2)
        for words in (f"{count} (target {target} reached)", f"{count}, target {target}", f"{count} (won)", count):
            shown = line[: m.start()] + f"captures: {words}" + line[m.end() :]
            if len(shown) <= BOARD_WIDTH:  # the legend beside a board must not push it past the mail's width
                return shown
        return line

    return "\n".join(captures(line) for line in board.splitlines())


def _deadline(session: Session, game: Game, viewer: Player | None) -> dict[str, Any] | None:
    key = ("deadline", game.id, game.version, game.clock_credit, viewer.timezone if viewer else None)
    cache = _cache(session)
    if key not in cache:
        cache[key] = clock.view(session, game, viewer)
    return cache[key]


def challenge_view(session: Session, challenge: Challenge) -> dict[str, Any]:
    rules = G.rules_of(challenge)
    challenger = session.get(Player, challenge.challenger_id)
    opponent = session.get(Player, challenge.opponent_id) if challenge.opponent_id else None
    return {
        "id": challenge.id,
        "kind": challenge.kind,
        "title": rules.title,
        "describe": rules.describe(),
        "options": challenge.options,
        "colour": challenge.colour,
        "challenger": {"name": challenger.name, "address": challenger.address},
        "sides": rules.sides,
        "opponent": (
            # until their own mail proves the address, the name is only a guess from it
            {"name": opponent.name, "address": opponent.address,
             "called": opponent.name if opponent.proven_at is not None else opponent.address}
            if opponent
            else None
        ),
        "status": challenge.status,
        "created": challenge.created_at.strftime("%d %b %Y"),
    }


def sample_views(plies: int = 4, names: tuple[str, str] = ("Alice", "Bob")) -> list[dict[str, Any]]:
    """A small position of every game (its first example move, `plies` times from the start),
    as the `display` command shows them: the text board and its cells, nothing from the records."""
    views = []
    for kind in engine.names():
        rules = engine.create(kind)
        pos = rules.start()
        for _ in range(plies):
            pos = rules.apply(pos, rules.parse(pos, rules.examples(pos)[0]))
        board = rules.render(pos, names=names)
        views.append(
            {"kind": kind, "title": rules.title, "describe": rules.describe(), "board": board,
             "grid": boards.grid(rules, pos, board), "examples": rules.examples(pos)[:1]}
        )
    return views
