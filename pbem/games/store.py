"""Game records: starting, playing and ending games through the engine.

The one place that turns stored rows into engine positions and back. Email commands and
the admin CLI both change games only through these functions, so the stored state is
always the engine's position after the stored moves. A game whose side on move changes is
left due on the clock (`clock_due_at`); the callers, which know the reminder points,
reschedule it at once (`clock.reschedule`), else the next clock round does.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, delete, or_, select

import pbem_engine
from pbem.core import rows
from pbem.core.db import keep
from pbem.core.errors import CommandError, GameError, NotAMove
from pbem.core.models import Challenge, Game, Move, Player, Reminder
from pbem.core.rows import fresh, load, selecting
from pbem.core.work import work_of
from pbem.games import clock as _clock
from pbem.games import ratings
from pbem.text import endings as words
from pbem_engine.common.phrases import nphrase, phrase

RESULTS = {0: "1-0", 1: "0-1", None: "1/2-1/2"}


@lru_cache(maxsize=256)
def _rules(kind: str, options_json: str) -> pbem_engine.Rules:
    return pbem_engine.create(kind, json.loads(options_json))


def rules_of(game: Game | Challenge) -> pbem_engine.Rules:
    """The engine bound to this game's options (cached: options never change)."""
    return _rules(game.kind, json.dumps(game.options, sort_keys=True))


#: Decoded positions by (game, version), shared by the daemon's threads (the inbound runner, the
#: clock round, the bot runner): the lock keeps the order's bookkeeping whole. A hit must also be
#: the very state string it was decoded from, so a row another transaction wrote is decoded anew.
_POSITIONS: OrderedDict[tuple[int | None, int], tuple[Any, Any]] = OrderedDict()
_POSITIONS_LOCK = threading.Lock()


def position(game: Game) -> Any:
    """The engine position of a game, decoded once per version of its stored state."""
    key = (game.id, game.version)
    with _POSITIONS_LOCK:
        hit = _POSITIONS.get(key)
        if hit is not None and hit[0] is game.state:
            _POSITIONS.move_to_end(key)
            return hit[1]
    pos = rules_of(game).load(game.state)  # outside the lock: positions are immutable
    _remember(game, pos)
    return pos


def _remember(game: Game, pos: Any) -> None:
    with _POSITIONS_LOCK:
        _POSITIONS[(game.id, game.version)] = (game.state, pos)
        while len(_POSITIONS) > 512:
            _POSITIONS.popitem(last=False)


def _set_position(game: Game, pos: Any) -> None:
    """Store a new position (and keep it decoded for the mails that follow)."""
    rules = rules_of(game)
    game.state = rules.dump(pos)
    game.ply = rules.ply(pos)
    game.turn = rules.turn(pos)


def read_move(session: Session, game: Game, text: str) -> None:
    """Raise NotAMove when `text` is not written in the game's move notation at all, so a bare
    line of chatter that starts like a move ("g2 looks good") is not taken for a mistake. What
    it read is kept for `play`, which then parses nothing again."""
    if game.status != "active":
        return
    try:
        _parse(session, game, text)
    except pbem_engine.InvalidMove as exc:
        raise NotAMove(exc.message, exc.hint, game=game, code=exc.code, params=exc.params) from None
    except pbem_engine.EngineError:
        return  # a real move that is wrong here: said when it is played


def _parse(session: Session, game: Game, text: str) -> Any:
    """The engine's reading of `text` in the game as it stands, once per transaction: the move,
    or the engine's error raised again."""
    key = (game.id, game.version, text)
    parsed = work_of(session).parsed_moves
    if key not in parsed:
        try:
            parsed[key] = rules_of(game).parse(position(game), text)
        except pbem_engine.EngineError as exc:
            parsed[key] = exc
    found = parsed[key]
    if isinstance(found, pbem_engine.EngineError):
        raise found
    return found


def players(session: Session, game: Game) -> tuple[Player, Player]:
    return _player(session, game.player0_id), _player(session, game.player1_id)


def opponent(session: Session, game: Game, player: Player) -> Player:
    side = game.side_of(player.id)
    return _player(session, game.player_id(1 - side))


def _player(session: Session, player_id: int) -> Player:
    """A player by id, read once per session however many mails and views ask for it."""
    player = session.get(Player, player_id)
    if player is not None:
        keep(session, player)
    return player


def active_games(session: Session, player: Player) -> list[Game]:
    query = (
        select(Game)
        .where(Game.status == "active")
        .where(or_(Game.player0_id == player.id, Game.player1_id == player.id))
        .order_by(Game.id)
    )
    return list(session.exec(query))


def find_game(
    session: Session, player: Player, game_id: int | None, hint: int | None, *, acting: str | None = None
) -> Game:
    """The game a command means: named, else the one the mail replies to, else the only one.

    `acting` names a command that acts on the game (`move`, `resign`...): when the game is
    ambiguous, the hint shows it with the game's number first (`#42 c4`, `#42 resign`), as a
    mail with lines for several games writes it."""
    for candidate, named in ((game_id, True), (hint, False)):
        if candidate is None:
            continue
        game = _locked(session, candidate)
        if game is not None and game.side_of(player.id) is not None:
            return game
        if named:
            raise CommandError(
                phrase("You are not playing a game #{game}.", game=candidate),
                phrase("Write {command} to see yours.", command="games"),
                code="game.not_yours", params={"game": candidate},
            )
    games = active_games(session, player)
    if len(games) == 1:
        return _locked(session, games[0].id)
    if not games:
        raise CommandError(
            phrase("You have no game in progress."),
            phrase("Write {open} to see open challenges, or {help}.", open="open", help="help"),
            code="game.none",
        )
    if acting is None:
        hint_text = phrase("Name the game, e.g. {example}, or reply to that game's mail.", example=f"board {games[0].id}")
    else:
        hint_text = phrase(
            "Write the game's number first, a line for each game, e.g. {example}, or reply to that game's mail.",
            example=_game_first(games, player, acting),
        )
    raise CommandError(
        nphrase(
            "You have {n} game in progress ({ids}) and I cannot tell which one you mean.",
            "You have {n} games in progress ({ids}) and I cannot tell which one you mean.",
            len(games), ids=", ".join(f"#{g.id}" for g in games),
        ),
        hint_text,
        code="game.ambiguous", params={"games": [g.id for g in games]},
    )


def _game_first(games: list[Game], player: Player, acting: str) -> str:
    """`#ID MOVE` for the first game where it is the player's move (a move its rules would
    take there), or `#ID COMMAND` for another command."""
    mine = [g for g in games if g.side_of(player.id) == g.turn] or games
    game = mine[0]
    if acting == "move":
        examples = rules_of(game).examples(position(game))
        if examples:
            return f"#{game.id} {examples[0]}"
    return f"#{game.id} {acting if acting != 'move' else 'pass'}"


def lock(session: Session, game_id: int) -> Game | None:
    """A game locked for the rest of this transaction and read afresh (the bot runner's commit)."""
    return _locked(session, game_id)


def _locked(session: Session, game_id: int) -> Game | None:
    """A game locked for this transaction, then read. SQLite's BEGIN IMMEDIATE has locked the
    whole file since the transaction's first statement, so a game it read already is current."""
    if session.get_bind().dialect.name == "sqlite":
        return session.get(Game, game_id)
    return rows.lock(session, Game, game_id)


def start(session: Session, challenge: Challenge, acceptor: Player, first: Player, now: datetime) -> Game:
    """A new game from an accepted challenge; `first` takes the side that moves first."""
    second_id = acceptor.id if first.id == challenge.challenger_id else challenge.challenger_id
    game = begin(
        session, challenge.kind, challenge.options, first.id, second_id, now,
        days=challenge.days, weekends_off=challenge.weekends_off, takebacks=challenge.takebacks, clock=challenge.clock,
    )
    challenge.status = "accepted"
    challenge.game_id = game.id
    session.add(challenge)
    return game


def begin(
    session: Session, kind: str, options: Mapping[str, Any], first_id: int, second_id: int, now: datetime,
    *, days: int, weekends_off: bool, takebacks: bool = True, clock: str | None = None,
) -> Game:
    """A new game between two players (`first_id` moves first): from a challenge, or paired by a
    tournament. Its clock is due until the caller reschedules it (clock.reschedule knows the reminders).
    `clock` is a time control's notation (pbem.games.timecontrol), None for `days` per move."""
    rules = _rules(kind, json.dumps(dict(options), sort_keys=True))
    game = Game(
        kind=kind,
        options=dict(options),
        player0_id=first_id,
        player1_id=second_id,
        state=rules.dump(rules.start()),
        created_at=now,
        updated_at=now,
        days=days,
        weekends_off=weekends_off,
        takebacks=takebacks,
        turn_started_at=now,  # the first mover's clock starts with the game
        clock_due_at=now,
        clock=clock,
    )
    if clock is not None:
        game.clock_sides = _clock.control(game).start().dump()
    session.add(game)
    session.flush()
    return game


def require_turn(game: Game, player: Player) -> int:
    """The player's side, if the game is on and it is their move; else a clear error."""
    require_active(game)
    side = game.side_of(player.id)
    if side != game.turn:
        raise GameError(
            phrase("It is not your move in game #{game}; your opponent is on move.", game=game.id),
            game=game, code="game.not_your_move", params={"game": game.id},
        )
    return side


def play(
    session: Session, game: Game, player: Player, text: str, message_id: str | None, now: datetime
) -> tuple[Move, pbem_engine.Effects]:
    """Play `text` for `player`: the move's record and what it took. Raises NotAMove for text
    in no notation of the game, GameError (with the engine's reason) for an illegal move."""
    side = require_turn(game, player)
    rules = rules_of(game)
    before = position(game)
    try:
        move = _parse(session, game, text)
    except pbem_engine.InvalidMove as exc:
        raise NotAMove(exc.message, exc.hint, game=game, code=exc.code, params=exc.params) from None
    except pbem_engine.IllegalMove as exc:
        raise GameError(exc.message, exc.hint, game=game, code=exc.code, params=exc.params) from None
    after = rules.apply(before, move)
    record = fresh(  # the model's constructor costs more than the INSERT
        Move,
        game_id=game.id,
        ply=game.ply + 1,
        side=side,
        player_id=player.id,
        notation=rules.format(before, move),
        raw=text[:400],
        message_id=message_id,
        created_at=now,
    )
    record.clock_left = _clock.charge(session, game, now)  # the mover's clock, before the turn passes
    rows.insert_row(session, record)  # the ORM's unit of work for one new row cost more than its INSERT
    work_of(session).newest_moves[game.id] = record  # the newest move, for the mails
    _set_position(game, after)
    game.draw_offer = None
    game.takeback_offer = None  # a take-back request lapses when the opponent moves
    game.turn_started_at, game.clock_credit = now, 0  # the next player's clock starts
    game.clock_due_at = now  # due until the caller reschedules it (clock.reschedule)
    touch(game, now)
    _remember(game, after)
    outcome = rules.outcome(after)
    if outcome.over:
        why = words.termination(outcome.termination, outcome.details, rules.sides)
        finish(
            session, game, outcome.winner, why, now,
            ending="rules", termination=outcome.termination, details=outcome.details,
        )
    session.add(game)
    return record, rules.effects(before, after)


ENDINGS = ("rules", "resignation", "agreement", "time", "adjudication")


def finish(
    session: Session,
    game: Game,
    winner: int | None,
    reason: str,
    now: datetime,
    *,
    ending: str,
    termination: str | None = None,
    details: Mapping[str, Any] | None = None,
) -> None:
    """End a game: by the rules, resignation, agreement, time or adjudication (`ending`, one of
    ENDINGS). A rules ending keeps the engine's `termination` code and `details`, from which
    the mails write the sentence in the reader's words; `reason` is the English one kept in
    the records (and the operator's own words for an adjudication).

    Every ending goes through here, so whatever must follow an ending happens once."""
    if ending not in ENDINGS:
        raise ValueError(f"unknown ending {ending!r}")
    game.status = "finished"
    game.ending = ending
    game.winner = winner
    game.result = RESULTS[winner]
    game.reason = reason[:200]
    game.termination = str(termination) if termination is not None else None
    game.details = dict(details or {})
    game.bot_due_at = None  # no bot is on move in a game that is over
    game.draw_offer = None
    game.takeback_offer = None
    game.clock_due_at = None  # no clock any more
    touch(game, now)
    session.add(game)
    ratings.rate_game(session, game, now)


def adjudicate(session: Session, game: Game, winner: int | None, reason: str, now: datetime) -> None:
    """The operator decides a game still in progress (`winner` None for a draw)."""
    _require_active(game)
    finish(session, game, winner, f"adjudicated: {reason}", now, ending="adjudication")


def cancel(session: Session, game: Game, reason: str, now: datetime) -> None:
    """Call a game off: no result, no rating."""
    _require_active(game)
    game.status = "cancelled"
    game.winner = None
    game.result = None
    game.reason = f"cancelled: {reason}"[:200]
    game.draw_offer = None
    game.takeback_offer = None
    game.clock_due_at = None  # no clock any more
    touch(game, now)
    session.add(game)


def undo(session: Session, game: Game, plies: int, now: datetime) -> list[Move]:
    """Take back the last `plies` moves: replay the rest through the engine, drop the others.

    Only games in progress: a result may already have rated the players."""
    _require_active(game)
    played = moves(session, game)
    if not 1 <= plies <= len(played):
        raise GameError(
            f"Game #{game.id} has {len(played)} moves; cannot take back {plies}.",
            code="game.undo_too_far", params={"game": game.id, "moves": len(played), "plies": plies},
        )
    kept, dropped = played[:-plies], played[-plies:]
    work_of(session).newest_moves.pop(game.id, None)
    pos = replay(game, [m.notation for m in kept])
    for record in dropped:
        session.delete(record)
    _set_position(game, pos)
    _clock.restore(game, kept)
    # The turns taken back start anew, so their reminders go out again when they fall due.
    session.exec(delete(Reminder).where(Reminder.game_id == game.id, Reminder.ply >= game.ply))
    game.draw_offer = None
    game.takeback_offer = None  # the move it was about may be gone
    game.clock_due_at = now  # another side may be on move: due until the caller reschedules it
    touch(game, now)
    _remember(game, pos)
    session.add(game)
    session.flush()
    return dropped


def _require_active(game: Game) -> None:
    """For the operator: the game must be in progress."""
    if game.status != "active":
        raise GameError(
            f"Game #{game.id} is not in progress ({game.status} {game.result or ''}).".strip(),
            code="game.not_active", params={"game": game.id, "status": game.status},
        )


def require_active(game: Game) -> None:
    """A game still in progress, else an error that says how it ended."""
    if game.status == "finished":
        raise GameError(
            phrase("Game #{game} is over ({result}, {reason}).", game=game.id, result=game.result, reason=game.reason),
            game=game, code="game.over", params={"game": game.id, "result": game.result},
        )
    if game.status != "active":
        raise GameError(
            phrase("Game #{game} is not in progress (cancelled).", game=game.id) if game.status == "cancelled"
            else phrase("Game #{game} is not in progress ({status}).", game=game.id, status=game.status),
            game=game, code="game.not_active", params={"game": game.id, "status": game.status},
        )


def touch(game: Game, now: datetime) -> None:
    """Every change makes older boards outdated."""
    game.version += 1
    game.updated_at = now


def last_move(session: Session, game: Game) -> Move | None:
    """The newest move (one row, however long the game; none when this session played it)."""
    played = work_of(session).newest_moves.get(game.id)
    if played is not None and played.ply == game.ply:
        return played
    found = load(session, Move, _LAST_MOVE, {"game": game.id})
    return found[0] if found else None


_LAST_MOVE = (
    selecting(Move).where(col(Move.game_id) == bindparam("game")).order_by(col(Move.ply).desc()).limit(1)
)


def moves(session: Session, game: Game) -> list[Move]:
    return list(session.exec(_MOVES, params={"game": game.id}))


_MOVES = select(Move).where(Move.game_id == bindparam("game")).order_by(Move.ply)  # built once: every record reads it


def replay(game: Game, notations: list[str]) -> Any:
    """The position after replaying canonical moves from the start: a check on `state`."""
    rules = rules_of(game)
    pos = rules.start()
    for text in notations:
        pos, _ = rules.play(pos, text)
    return pos
