"""Draw offers and take-back requests, made and answered: one path for a person's command and
for the bot runner's answer.

The commands (`draw`, `nodraw`, `takeback`) check what a person may do and then come here; the
bot runner (`pbem.runners.bots`) answers a person's offer to a bot through the same functions, so
the game, the mails and the audit trail are those of a person's answer. Making an offer in a
game against a bot makes the game due for the bot runner (`bots_players.mark`).
Each function returns the letters that tell of it; the caller posts them.

A take-back request covers one ply (the requester's last move, while the opponent has not
answered it) or, against a bot, which answers within seconds, two: the requester's last move
and the bot's answer, asked while the requester is on move again (`answered`). Which one a
pending request is, is read from the game (`plies`): every move and every undo clears the
request, so a requester on move has asked for two plies, one not on move for one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlmodel import Session, select

from pbem.core import audit
from pbem.core.models import Game, Move, Player
from pbem.games import bots as bots_players
from pbem.games import clock
from pbem.games import store as G
from pbem.letters import notify
from pbem.letters.notify import Letter
from pbem.play import conditionals


def offer_draw(session: Session, game: Game, player: Player, at: datetime) -> list[Letter]:
    """`player` offers a draw; the offer stands until it is answered or the opponent moves."""
    game.draw_offer = game.side_of(player.id)
    G.touch(game, at)
    bots_players.mark(session, game, at)  # a bot opponent answers it
    return notify.tell(session, "draw_offered", game, player)


def agree_draw(session: Session, game: Game, player: Player, at: datetime) -> list[Letter]:
    """`player` accepts the opponent's draw offer: the game ends drawn."""
    G.finish(session, game, None, "draw agreed", at, ending="agreement")
    return notify.tell(session, "draw_agreed", game, player)


def refuse_draw(session: Session, game: Game, player: Player, at: datetime) -> list[Letter]:
    """`player` refuses the opponent's draw offer; the game goes on."""
    game.draw_offer = None
    G.touch(game, at)
    bots_players.mark(session, game, at)
    return notify.tell(session, "draw_refused", game, player)


def plies(game: Game) -> int:
    """How many plies the pending take-back request covers: two when the requester is on move
    (their move and the bot's answer, `answered`), else one (their move, not yet answered)."""
    return 2 if game.takeback_offer is not None and game.takeback_offer == game.turn else 1


def answered(session: Session, game: Game, side: int) -> tuple[Move, Move] | None:
    """`side`'s last move and the bot's answer to it, when `side` plays a bot, is on move and
    the last two moves are theirs and then the bot's: what a two-ply request takes back; else None."""
    opponent = session.get(Player, game.player_id(1 - side))
    if not bots_players.is_bot(opponent) or game.turn != side or game.ply < 2:
        return None
    query = select(Move).where(Move.game_id == game.id).order_by(Move.ply.desc()).limit(2)
    rows = list(session.exec(query))
    if len(rows) < 2 or rows[0].side != 1 - side or rows[1].side != side:
        return None
    return rows[1], rows[0]


def asked(session: Session, game: Game) -> tuple[Move | None, Move | None]:
    """The pending request's moves: the requester's and, for two plies, the bot's answer (else None)."""
    if plies(game) == 2:
        pair = answered(session, game, game.takeback_offer)
        if pair is not None:
            return pair
    return G.last_move(session, game), None


def takebacks_today(game: Game, side: int, at: datetime) -> int:
    """How many take-backs `side` has asked in the game today (UTC): the daily cap's count."""
    asks = game.takeback_asks or {}
    return int(asks.get("sides", [0, 0])[side]) if asks.get("day") == _day(at) else 0


def _day(at: datetime) -> str:
    return at.astimezone(UTC).date().isoformat()


def ask_takeback(
    session: Session, game: Game, player: Player, last: Move, at: datetime, answer: Move | None = None
) -> list[Letter]:
    """`player` asks to take back their last move `last`, which the opponent has not answered;
    or, with `answer` (the bot's answer to `last`, `answered`), both."""
    side = game.side_of(player.id)
    sides = [takebacks_today(game, 0, at), takebacks_today(game, 1, at)]
    sides[side] += 1
    game.takeback_asks = {"day": _day(at), "sides": sides}  # a new dict: the JSON column sees the change
    game.takeback_offer = side
    G.touch(game, at)
    bots_players.mark(session, game, at)  # a bot opponent answers it
    return notify.tell(session, "takeback_asked", game, player, move=last.notation, by=player.name,
                       answer=answer.notation if answer is not None else "")


def accept_takeback(
    session: Session, game: Game, player: Player, at: datetime, reminders: Sequence[float]
) -> list[Letter]:
    """`player` lets the opponent take back their last ply (or, for a two-ply request, their
    last move and `player`'s answer): it is undone and the requester has the move again, on a
    fresh turn; their conditional lines are dropped, and the audit trail keeps the undone moves."""
    side = game.side_of(player.id)
    requester = session.get(Player, game.player_id(1 - side))
    undone, *answer = G.undo(session, game, plies(game), at)
    game.turn_started_at, game.clock_credit = at, 0  # the requester's turn starts anew
    # Conditional lines answer moves from the position that is gone: none of them holds any more,
    # and their owners are told (in the mail about the take-back: one mail per player and game).
    notices = conditionals.drop_all(session, game)
    for letter in notices:  # the one who accepts reads theirs in the reply to this mail
        letter.reply = letter.player.id == player.id
    dropped = sum(len(letter.data["lines"]) for letter in notices)
    audit.record(
        session, f"player {requester.address}", "takeback", at,
        detail=f"took back {undone.notation} (move {undone.ply})"
        + "".join(f" and the answer {m.notation} (move {m.ply})" for m in answer),
        reason=f"accepted by {player.address}", game=game, player=requester,
    )
    letters = notify.tell(session, "takeback_accepted", game, player, move=undone.notation, by=requester.name,
                          dropped=dropped, answer=answer[0].notation if answer else "")
    owned = {letter.player.id: len(letter.data["lines"]) for letter in notices}
    for letter in letters:  # each reads of their own lines only: the other's are none of their business
        letter.data["dropped"] = owned.get(letter.player.id, 0)
    clock.reschedule(session, game, reminders, fresh=True)  # after the mails: their players are loaded
    return letters + notices


def refuse_takeback(session: Session, game: Game, player: Player, at: datetime) -> list[Letter]:
    """`player` refuses the opponent's take-back request; the game goes on from the same position."""
    side = game.side_of(player.id)
    last, answer = asked(session, game)
    game.takeback_offer = None
    G.touch(game, at)
    bots_players.mark(session, game, at)
    requester = session.get(Player, game.player_id(1 - side))
    return notify.tell(session, "takeback_refused", game, player, move=last.notation if last else "",
                       by=requester.name, answer=answer.notation if answer is not None else "")
