"""What templates see: plain dicts built from records, so templates never query."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from pbem import clock
from pbem import games as G
from pbem.models import Challenge, Game, Player


def game_view(session: Session, game: Game, viewer: Player | None = None) -> dict[str, Any]:
    """Everything a mail about a game may show, from the point of view of `viewer`."""
    rules = G.rules_of(game)
    pos = rules.load(game.state)
    p0, p1 = G.players(session, game)
    outcome = rules.outcome(pos)
    last = G.last_move(session, game)
    viewer_side = game.side_of(viewer.id) if viewer is not None else None
    on_move = (p0, p1)[game.turn]
    side_names = rules.sides
    view = {
        "id": game.id,
        "kind": game.kind,
        "title": rules.title,
        "describe": rules.describe(),
        "status": game.status,
        "players": [
            {"name": p.name, "address": p.address, "side": side_names[i], "score": outcome.scores[i]}
            for i, p in enumerate((p0, p1))
        ],
        "board": rules.render(pos, names=(p0.name, p1.name)),
        "ply": game.ply,
        "move_number": game.ply + 1,
        "score_unit": rules.score_unit,
        "on_move": {"name": on_move.name, "side": side_names[game.turn], "address": on_move.address},
        "your_side": side_names[viewer_side] if viewer_side is not None else None,
        "your_turn": game.status == "active" and viewer_side == game.turn,
        "last_move": (
            {"notation": last.notation, "by": (p0, p1)[last.side].name, "side": side_names[last.side]}
            if last
            else None
        ),
        "examples": rules.examples(pos) if game.status == "active" else [],
        "notation": rules.notation(),
        "draw_offer": side_names[game.draw_offer] if game.draw_offer is not None else None,
        "draw_offer_by_opponent": game.draw_offer is not None and game.draw_offer != viewer_side,
        "result": game.result,
        "reason": game.reason,
        "winner": (p0, p1)[game.winner].name if game.winner is not None else None,
        "you_won": viewer_side is not None and game.winner == viewer_side,
        "created": game.created_at.strftime("%d %b %Y"),
        "deadline": clock.view(session, game, viewer),  # None once the game is over
    }
    if viewer is not None and viewer_side is not None:
        view["you"] = viewer.name
        view["opponent"] = (p0, p1)[1 - viewer_side].name
        view["opponent_address"] = (p0, p1)[1 - viewer_side].address
    return view


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
        "opponent": {"name": opponent.name, "address": opponent.address} if opponent else None,
        "status": challenge.status,
        "created": challenge.created_at.strftime("%d %b %Y"),
    }
