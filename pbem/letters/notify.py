"""Who is told about a game event, and with which mail: one table for every event.

Commands, the clock and the admin hand `(event, game, data)` to `tell`; it decides who
hears of it (the player who acted, the opponent, both players, the player on move, the
watchers), builds each one's view of the game and returns the letters as data. Nothing
is rendered or queued here: `pbem.letters.post` does that once per mail, so a command that is
refused later in the same mail leaves no letter behind.

When an event leaves the game finished, every player's letter carries the game record,
the one to the player who made the last move included, and the watchers are told too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from pbem.core.models import Game, Player
from pbem.games import store as G
from pbem.games.watchers import watchers
from pbem.letters.views import game_view

#: event -> role -> template. Roles: `actor` (who acted: a section of the reply to their mail),
#: `opponent` (the actor's opponent), `players` (both), `mover` (the player on move), `watchers`.
EVENTS: dict[str, dict[str, str]] = {
    "started": {"actor": "accepted.txt", "opponent": "game_started.txt"},
    "paired": {"players": "tournament_game.txt"},  # a tournament's round began with this game
    "ladder_challenge": {"actor": "tournament_game.txt", "opponent": "tournament_game.txt"},  # a ladder's game
    "moved": {"actor": "moved.txt", "opponent": "your_move.txt", "watchers": "watched_move.txt"},
    "resigned": {"actor": "game_over.txt", "opponent": "game_over.txt", "watchers": "watched_move.txt"},
    "draw_agreed": {"actor": "game_over.txt", "opponent": "game_over.txt", "watchers": "watched_move.txt"},
    "draw_offered": {"actor": "draw_offered.txt", "opponent": "draw_offer.txt"},
    "draw_refused": {"actor": "draw_refused.txt", "opponent": "draw_refused.txt"},
    "takeback_asked": {"actor": "takeback_asked.txt", "opponent": "takeback_asked.txt"},
    "takeback_accepted": {
        "actor": "takeback_accepted.txt", "opponent": "takeback_accepted.txt", "watchers": "takeback_accepted.txt",
    },
    "takeback_refused": {"actor": "takeback_refused.txt", "opponent": "takeback_refused.txt"},
    "away": {"opponent": "opponent_away.txt"},
    "back": {"opponent": "opponent_back.txt"},
    "unreachable": {"opponent": "opponent_unreachable.txt"},  # their address bounces (pbem.letters.bounces)
    "reachable": {"opponent": "opponent_reachable.txt"},  # they wrote again
    "reminder": {"mover": "reminder.txt"},
    "timed_out": {"players": "game_over.txt", "watchers": "watched_move.txt"},
    "extended": {"players": "extended.txt"},
    "adjudicated": {"players": "adjudicated.txt", "watchers": "watched_move.txt"},
    "cancelled": {"players": "cancelled.txt", "watchers": "watched_move.txt"},
    "undone": {"players": "undone.txt", "watchers": "watched_move.txt"},
    "resent": {"players": "board.txt"},
    "said": {"opponent": "said.txt", "watchers": "said.txt"},
}

#: sections that ride along with a mail's news (a relayed message, its receipt): placed after
#: the others of their mail, so a move's mail keeps the move's subject and opens with the move
ASIDES = frozenset({"said.txt", "said_sent.txt", "address.txt"})

#: what the opponent reads instead when the event ended the game (a move that ends it)
_ENDED = {"your_move.txt": "game_over.txt"}
#: the mails per move that a player in digest mode does not get (`pbem.letters.post` drops them, whoever
#: wrote them): the digest shows the board and what was said instead (the start, the end, draw
#: offers and reminders still come)
DIGESTED = ("your_move.txt", "said.txt")


@dataclass
class Letter:
    """One section of a mail to one player, as data: rendered and queued by `pbem.letters.post`.

    `reply`: a section of the reply to the mail being handled (all such sections make one
    mail); `game`: the game the mail is about (threading, the subject's tag); `record`: the
    id of a game whose record is attached."""

    player: Player
    template: str
    data: dict[str, Any] = field(default_factory=dict)
    game: Game | None = None
    reply: bool = False
    record: int | None = None

    @property
    def game_id(self) -> int | None:
        """The game this section shows, for the subject's `[pbem #N]` tag."""
        if self.game is not None:
            return self.game.id
        shown = self.data.get("game")
        return shown.get("id") if isinstance(shown, dict) else None


def tell(
    session: Session, event: str, game: Game, actor: Player | None = None, **data: Any
) -> list[Letter]:
    """The letters that tell everyone concerned about `event` in `game`.

    `actor` is the player whose mail caused the event (None for the clock and the admin);
    their letter becomes part of the reply to that mail."""
    roles = EVENTS[event]
    ended = game.status == "finished"
    letters: list[Letter] = []
    for role, template in roles.items():
        if ended and role == "opponent":
            template = _ENDED.get(template, template)
        for player in _recipients(session, role, game, actor):
            if role == "watchers" and not player.watch_mail and game.status == "active":
                continue  # `notify off`: no mail per move of a watched game; its end still comes
            view = game_view(session, game, player)
            letters.append(
                Letter(
                    player,
                    template,
                    {"game": view, **data},
                    game=game,
                    reply=role == "actor",
                    record=game.id if ended and role != "watchers" else None,
                )
            )
    return letters


def digested(player: Player, template: str) -> bool:
    """Whether a letter (not a reply) with `template` waits for `player`'s digest instead."""
    return player.notify == "digest" and template in DIGESTED


def _recipients(session: Session, role: str, game: Game, actor: Player | None) -> list[Player]:
    if role == "actor":
        return [actor] if actor is not None else []
    if role == "opponent":
        return [G.opponent(session, game, actor)] if actor is not None else []
    if role == "players":
        return [p for p in G.players(session, game) if not p.banned]
    if role == "mover":
        return [session.get(Player, game.player_id(game.turn))]
    if role == "watchers":
        return watchers(session, game)
    raise ValueError(f"unknown role {role!r}")
