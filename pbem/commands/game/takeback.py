"""Take-backs: `takeback [ID]` asks the opponent to take back the sender's last move, and
the opponent answers `takeback [ID] accept` or `takeback [ID] refuse` (or simply moves,
which lets the request lapse).

A request is about one ply: the sender's own last move, while the opponent has not moved
since. Against a bot, which answers within seconds, it may also be about two, asked on the
sender's own move: their last move and the bot's answer to it (`offers.answered`). Accepting
undoes the plies through `pbem.games.store.undo` (the engine replays the rest),
gives the move back to the sender with a fresh turn on the clock, drops the game's pending
conditional lines (the position they answer is gone) and keeps the undone move in the
audit trail, where `pbem admin game` shows it beside the operator's changes. The checks are
here; what a request and its answer do is in `pbem.play.offers`, which the bot runner shares.
"""

from __future__ import annotations

from typing import Literal, NoReturn

from sqlmodel import select

from pbem.commands.lines import words
from pbem.commands.lines.base import Call, Command, Context, register
from pbem.core.errors import CommandError, GameError
from pbem.core.models import Game, Move
from pbem.core.wallclock import now
from pbem.games import store as G
from pbem.play import offers
from pbem.text.i18n import N_
from pbem_engine.common.phrases import nphrase, phrase

Verb = Literal["ask", "accept", "refuse"]


def _folded(*commands: str) -> frozenset[str]:
    """The words of `commands` in every language, folded: an answer may be written in the
    reader's words of accept/decline (`takeback принимаю`, `takeback rifiuto`)."""
    found = set()
    for command in commands:
        found.add(words.fold(command))
        for spellings in words.WORDS.get(command, {}).values():
            found.update(words.fold(w) for w in spellings)
    return frozenset(found)


ACCEPTS = _folded("accept", "yes", "ok")
REFUSES = _folded("refuse", "decline", "no")


def verb(args: list[str]) -> Verb | None:
    """What a line asks: no word is a request, else an answer; None for a word it does not know."""
    if not args:
        return "ask"
    if len(args) == 1:
        word = words.fold(args[0]).strip(".,;:!")
        if word in ACCEPTS:
            return "accept"
        if word in REFUSES:
            return "refuse"
    return None


@register
class Takeback(Command):
    """Ask your opponent to take back your last move, before they have moved (against a bot,
    also after it: with its answer); or answer their request.

    Write: takeback          (or: takeback 42)
       or: takeback accept   (or: takeback 42 refuse)
    A request lapses when your opponent moves. A challenge with takebacks=off allows none.
    """

    name = "takeback"
    aliases = ("take-back",)
    # TRANSLATORS: the capital words are placeholders; the command's own words stay as they are
    syntax = N_("takeback [ID] [accept|refuse]")
    summary = N_("ask to take back your last move, or answer such a request")

    takes_game = True
    requires_proof = True
    needs_current_board = True
    max_args = 2  # a game number and an answer; a longer line is prose ("takeback was kind of them")

    def needs_board(self, args: list[str]) -> bool:
        """Asking and accepting act on the position the sender has seen; a refusal changes none."""
        return verb(args) != "refuse"

    def run(self, ctx: Context, call: Call) -> None:
        chosen = verb(call.args)
        if chosen is None:
            raise CommandError(
                phrase('I do not know "{word}" after {command}.', word=" ".join(call.args)[:40], command="takeback"),
                phrase(
                    "Write {ask} to ask for one, {accept} or {refuse} to answer your opponent's request.",
                    ask="takeback", accept="takeback accept", refuse="takeback refuse",
                ),
                code="takeback.unknown", params={"word": " ".join(call.args)[:40]},
            )
        game = call.game
        G.require_active(game)
        if not game.takebacks:
            raise GameError(
                phrase("Take-backs are off in game #{game}: its challenge said {option}.", game=game.id,
                       option="takebacks=off"),
                "", game, code="takeback.off", params={"game": game.id},
            )
        side = game.side_of(ctx.player.id)
        {"ask": _ask, "accept": _accept, "refuse": _refuse}[chosen](ctx, game, side)


def _ask(ctx: Context, game: Game, side: int) -> None:
    """The sender's last move, while the opponent is on move and has not answered it; against
    a bot, also on the sender's own move: their last move and the bot's answer."""
    session = ctx.session
    limit = ctx.settings.max_takebacks_per_game_per_day
    if offers.takebacks_today(game, side, now()) >= limit:
        raise GameError(
            nphrase("You have asked for {n} take-back in game #{game} today, the most one player may ask in a "
                    "game in a day.",
                    "You have asked for {n} take-backs in game #{game} today, the most one player may ask in a "
                    "game in a day.", limit, game=game.id),
            phrase("Nothing was asked. You may ask again after midnight (UTC)."),
            game, code="takeback.too_many", params={"game": game.id, "limit": limit},
        )
    if not _has_moved(ctx, game, side):
        raise GameError(
            phrase("You have not played a move in game #{game} yet, so there is none to take back.", game=game.id),
            "", game, code="takeback.no_move", params={"game": game.id},
        )
    last = G.last_move(session, game)
    if game.turn == side or last is None or last.side != side:
        pair = offers.answered(session, game, side)  # against a bot, which has answered already
        if pair is None:
            _answered_already(game, side)
        mine, answer = pair
        if game.takeback_offer == side:
            raise GameError(
                phrase("You have already asked to take back your move {move} and the bot's answer {answer} in "
                       "game #{game}.", move=mine.notation, answer=answer.notation, game=game.id),
                phrase("The bot has not answered yet; the request lapses if you move."),
                game, code="takeback.already_asked", params={"game": game.id},
            )
        ctx.add(offers.ask_takeback(session, game, ctx.player, mine, now(), answer=answer))
        return
    if game.takeback_offer == side:
        raise GameError(
            phrase("You have already asked to take back your move {move} in game #{game}.",
                   move=last.notation, game=game.id),
            phrase("Your opponent has not answered yet; the request lapses when they move."),
            game, code="takeback.already_asked", params={"game": game.id},
        )
    ctx.add(offers.ask_takeback(session, game, ctx.player, last, now()))


def _answered_already(game: Game, side: int) -> NoReturn:
    """Between people, a move answered cannot be taken back: the error that says so."""
    if game.takeback_offer == 1 - side:
        hint = phrase(
            "Your opponent asks to take back their last move: to let them, write {accept}; to say no, "
            "write {refuse}.",
            accept="takeback accept", refuse="takeback refuse",
        )
    else:
        hint = phrase("A take-back is asked before your opponent answers your move.")
    raise GameError(
        phrase("It is your move in game #{game}: your opponent has answered your last move.", game=game.id),
        hint, game, code="takeback.your_move", params={"game": game.id},
    )


def _has_moved(ctx: Context, game: Game, side: int) -> bool:
    """Whether `side` has played any move in the game yet."""
    query = select(Move.id).where(Move.game_id == game.id, Move.side == side).limit(1)
    return ctx.session.exec(query).first() is not None


def _request(game: Game, side: int, answer: str) -> None:
    """The opponent's pending request, which the sender answers; else a clear error."""
    if game.takeback_offer != 1 - side:
        raise GameError(
            phrase("There is no take-back request to accept in game #{game}.", game=game.id) if answer == "accept"
            else phrase("There is no take-back request to refuse in game #{game}.", game=game.id),
            phrase("Your opponent asks with {command} before you move; I write to you when they do.",
                   command="takeback"),
            game, code="takeback.none", params={"game": game.id},
        )


def _accept(ctx: Context, game: Game, side: int) -> None:
    """Undo the requester's last ply and give them the move again, on a fresh turn."""
    _request(game, side, "accept")
    ctx.add(offers.accept_takeback(ctx.session, game, ctx.player, now(), ctx.settings.reminders))


def _refuse(ctx: Context, game: Game, side: int) -> None:
    """The request is gone; the game goes on from the same position."""
    _request(game, side, "refuse")
    ctx.game_hint = ctx.inbound.game_id = game.id  # as the runner does for a line that needs the board
    ctx.add(offers.refuse_takeback(ctx.session, game, ctx.player, now()))
