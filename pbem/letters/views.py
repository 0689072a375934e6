"""What templates see: plain dicts built from records (views), so templates never query.

A game's view has a part that is the same for every reader (the board, the scores, the
last move) and a part seen from the reader's side (whose turn, the deadline in their zone).
The shared part is built once per version of the game and session, so the five mails one
move may cause decode and render the position once.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from sqlmodel import Session

import pbem_engine
from pbem.core.models import Challenge, Game, Player
from pbem.core.work import work_of
from pbem.games import clock
from pbem.games import store as G
from pbem.text import boards
from pbem.text.i18n import DEFAULT, N_, NP_, Speaker
from pbem_engine.common.phrases import Phrase

#: the words of the views that come from the engine as names, marked for the catalogs:
#: the games' titles, and the side names of the games with coloured sides (Ataxx's x and
#: o are marks, the same in every language)
TITLES = (N_("Ataxx"), N_("Infection"), N_("Assimilation"), N_("Capture Go"), N_("Myriades"), N_("Infinito"))
SIDES = (NP_("side", "black"), NP_("side", "white"))


def title(rules: pbem_engine.Rules | type[pbem_engine.Rules]) -> Phrase:
    """A game's title as a phrase: its own name, which a catalog may translate."""
    return Phrase(rules.title)


class Day:
    """A calendar day a view shows ("started 01 Dec 2026"): `str()` is the English form
    mails have always had, `spoken(speaker)` the day as the speaker's language writes it."""

    def __init__(self, moment: datetime | date) -> None:
        self.day = moment.date() if isinstance(moment, datetime) else moment

    def spoken(self, talk: Speaker) -> str:
        return str(self) if talk.code == DEFAULT else talk.date(self.day)

    def __str__(self) -> str:
        return self.day.strftime("%d %b %Y")

    def __repr__(self) -> str:
        return f"Day({self.day!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return str(self) == other
        return isinstance(other, Day) and other.day == self.day

    def __hash__(self) -> int:
        return hash(self.day)


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
        "takeback_offer_by_opponent": game.takeback_offer is not None and game.takeback_offer != viewer_side,
        "you_won": viewer_side is not None and game.winner == viewer_side,
        "deadline": _deadline(session, game, viewer),  # None once the game is over
        "clock": _clock(session, game),  # a time control beyond days per move (pbem.games.timecontrol); else None
    }
    if viewer is not None and viewer_side is not None:
        view["you"] = viewer.name
        view["opponent"] = (p0, p1)[1 - viewer_side].name
        view["opponent_address"] = (p0, p1)[1 - viewer_side].address
        view["opponent_bot"] = (p0, p1)[1 - viewer_side].bot_level  # the bot's level; None: a person
    return view


def _cache(session: Session) -> dict[tuple, Any]:
    return work_of(session).views


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
    work_of(session).forget_views()


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
        "version": game.version,  # what a mail that shows this view proves its reader saw
        "kind": game.kind,
        "title": title(rules),
        "describe": rules.describe(),
        "status": game.status,
        "sides": side_names,
        "players": [
            {"name": p.name, "address": p.address, "side": side_names[i], "score": outcome.scores[i]}
            for i, p in enumerate((p0, p1))
        ],
        "board": boards.Board(rules, pos, names=(p0.name, p1.name), finished=game.status != "active"),
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
        "takebacks": game.takebacks,  # `takebacks=off` at the challenge: none may be asked
        "takeback_offer": side_names[game.takeback_offer] if game.takeback_offer is not None else None,
        "result": game.result,
        "reason": game.reason,
        "ending": game.ending,
        "termination": game.termination,
        "details": game.details or {},
        "loser": (p0, p1)[1 - game.winner].name if game.winner is not None else None,
        "winner": (p0, p1)[game.winner].name if game.winner is not None else None,
        "created": Day(game.created_at),
    }
    # the cells, for the HTML part in English; `boards.grid_for(view, language)` in another
    shared["grid"] = shared["board"].grid()
    cache[key] = shared
    return shared


BOARD_WIDTH = 72  # the engines' boards fit this; so must what a mail makes of them


def _deadline(session: Session, game: Game, viewer: Player | None) -> dict[str, Any] | None:
    key = ("deadline", game.id, game.version, game.clock_credit, viewer.timezone if viewer else None)
    cache = _cache(session)
    if key not in cache:
        cache[key] = clock.view(session, game, viewer)
    return cache[key]


def _clock(session: Session, game: Game) -> dict[str, Any] | None:
    if game.clock is None:
        return None
    key = ("clock", game.id, game.version, game.status, game.clock_credit)
    cache = _cache(session)
    if key not in cache:
        cache[key] = clock.clock_view(session, game)
    return cache[key]


def challenge_view(session: Session, challenge: Challenge) -> dict[str, Any]:
    rules = G.rules_of(challenge)
    challenger = session.get(Player, challenge.challenger_id)
    opponent = session.get(Player, challenge.opponent_id) if challenge.opponent_id else None
    return {
        "id": challenge.id,
        "kind": challenge.kind,
        "title": title(rules),
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
        "takebacks": challenge.takebacks,
        "clock": clock.control(challenge).describe() if challenge.clock else None,
        "days": challenge.days,  # the time control the game will have
        "weekends_off": challenge.weekends_off,
        "created": Day(challenge.created_at),
    }


def sample_views(plies: int = 4, names: tuple[str, str] = ("Alice", "Bob")) -> list[dict[str, Any]]:
    """A small position of every game (its first example move, `plies` times from the start),
    as the `display` command shows them: the text board and its cells, nothing from the records."""
    views = []
    for kind in pbem_engine.names():
        rules = pbem_engine.create(kind)
        pos = rules.start()
        for _ in range(plies):
            pos = rules.apply(pos, rules.parse(pos, rules.examples(pos)[0]))
        board = boards.Board(rules, pos, names=names)
        views.append(
            {"kind": kind, "title": title(rules), "describe": rules.describe(), "board": board,
             "grid": board.grid(), "examples": rules.examples(pos)[:1]}
        )
    return views
