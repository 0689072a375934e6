"""A move as a player's mail, a conditional line's owner or a bot makes it: played, told, answered.

The one path of a move after its checks: the engine plays it (`pbem.games.store.play`), a `say`
of the same mail goes with it, everyone concerned is told, the opponent's conditional lines
answer it, and the clock starts the next turn. The `move` command and the bot runner both
come here, so a bot's move is a move like any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session

from pbem.core.models import Game, Move, Player
from pbem.games import clock, remarks
from pbem.games import store as G
from pbem.letters import notify
from pbem.letters.notify import Letter
from pbem.play import conditionals


def play(
    session: Session,
    game: Game,
    player: Player,
    text: str,
    *,
    message_id: str | None,
    reminders: Sequence[float],
    letters: list[Letter],
    sender: Player | None,
    at: datetime,
) -> Move:
    """Play `text` for `player` and add the letters that tell of it to `letters` (those of the
    mail being handled; `sender` is its writer, None for the bot runner)."""
    asked = _asked_back(session, game)
    record, effects = G.play(session, game, player, text, message_id, at)
    remarks.attach(session, game, player, message_id, record.ply)  # a `say` of this mail
    # `takeback_lapsed`: the opponent moved instead of answering; the asker's your-move mail says so
    letters.extend(notify.tell(session, "moved", game, player, move=record.notation, taken=effects.taken,
                               takeback_lapsed=asked))
    conditionals.respond(session, game, record, sender, letters, at)  # the opponent's lines answer
    clock.reschedule(session, game, reminders, fresh=True)  # after the mails: their players are loaded
    return record


def _asked_back(session: Session, game: Game) -> str | None:
    """The move a take-back request waits about, when the player on move is the one asked (a
    move of theirs lets the request lapse); None when no such request waits."""
    if game.takeback_offer is None or game.takeback_offer == game.turn:
        return None  # none, or the asker's own (against a bot): they know what their move does
    last = G.last_move(session, game)
    return last.notation if last is not None else None
