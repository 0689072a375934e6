"""Tournaments: sign-up, the start, each round paired once its games are over, the end.

The rows hold what happened (a `TournamentGame` per board of every round, with its result
once known); the pure core decides what follows: `pbem.tournaments.pairing` who plays whom,
`pbem.tournaments.standings` the table and the withdrawals. Every function here works inside the
caller's transaction and returns the letters to post, so an admin command, a mail
command or the daemon's round each does its part in one commit. A round is paired by
`advance`, which does nothing unless every game of the current round is over; the
UNIQUE (tournament, round, board) of the rows is the last guard against pairing it twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, exists, or_
from sqlmodel import Session, select

import pbem_engine
from pbem.core.errors import ClockError, CommandError
from pbem.core.models import Entry, Game, Player, Rating, Tournament, TournamentGame
from pbem.core.wallclock import aware
from pbem.games import clock, timecontrol
from pbem.games import store as G
from pbem.letters import notify
from pbem.letters.notify import Letter
from pbem.tournaments import ladder as ladders
from pbem.tournaments import letters as tournament_letters
from pbem.tournaments import pairing, standings
from pbem.tournaments.pairing import Pairing
from pbem.tournaments.standings import Result
from pbem.tournaments.table import boards, entries, history, info, results, score, view
from pbem_engine.common.phrases import phrase

FORMATS = ("roundrobin", "double", "swiss", "ladder")
REACH = 3  # a ladder: how many places above one may challenge, unless the operator says
BYE_POINTS = 1.0
ON_TIME_LOSSES = 2  # lost on time this many games in a row: withdrawn, the rest forfeited


# ---------------------------------------------------------------------------- sign-up


def create(
    session: Session, name: str, format: str, kind: str, now: datetime, *,
    options: Mapping[str, Any] | None = None, days: int = 7, weekends_off: bool = False, rounds: int | None = None,
    reach: int | None = None, clock_notation: str | None = None,
) -> Tournament:
    """A new tournament open for sign-up (the operator's command: English errors, ValueError).
    `clock_notation` is a `clock=` of pbem.games.timecontrol for all its games (None: `days` per move)."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}: one of {', '.join(FORMATS)}")
    pbem_engine.create(kind, dict(options or {}))  # raises for an unknown game or a wrong option
    if format == "swiss" and (rounds is None or rounds < 1):
        raise ValueError("a Swiss tournament needs its number of rounds (at least 1)")
    if not 1 <= days <= 60:
        raise ValueError("days per move: 1 to 60")
    if format == "ladder" and not 1 <= (reach or REACH) <= 20:
        raise ValueError("a ladder's reach: 1 to 20 places")
    if clock_notation is not None:
        try:
            chosen = timecontrol.parse(clock_notation, 60)
        except ClockError as exc:
            raise ValueError(str(exc)) from None
        days, clock_notation = (chosen.per_move // timecontrol.DAY, None) if chosen.kind == "days" else (days, chosen.notation())
    tournament = Tournament(
        name=name[:80], format=format, kind=kind, options=dict(options or {}), days=days,
        weekends_off=weekends_off, rounds=rounds if format == "swiss" else None,
        reach=(reach or REACH) if format == "ladder" else None, created_at=now, clock=clock_notation,
    )
    session.add(tournament)
    session.flush()
    return tournament


def get(session: Session, tournament_id: int, *, lock: bool = False) -> Tournament:
    """The tournament, else an error a player can read; `lock` holds its row for this transaction."""
    if lock and session.get_bind().dialect.name != "sqlite":
        found = session.get(Tournament, tournament_id, with_for_update=True, populate_existing=True)
    else:
        found = session.get(Tournament, tournament_id)
    if found is None:
        raise CommandError(
            phrase("There is no tournament #{tournament}.", tournament=tournament_id),
            phrase("Write {command} to see those open for sign-up.", command="tournaments"),
            code="tournament.unknown", params={"tournament": tournament_id},
        )
    return found


def open_for_signup(session: Session) -> list[Tournament]:
    """Those open for sign-up: before the start, and a ladder while it runs (a newcomer starts at the bottom)."""
    query = select(Tournament).where(or_(Tournament.status == "open",
                                         and_(Tournament.format == "ladder", Tournament.status == "running")))
    return list(session.exec(query.order_by(Tournament.id)))


def _entry(session: Session, tournament: Tournament, player: Player) -> Entry | None:
    query = select(Entry).where(Entry.tournament_id == tournament.id, Entry.player_id == player.id)
    return session.exec(query).first()


def _require_open(tournament: Tournament) -> None:
    if tournament.status != "open" and not (tournament.format == "ladder" and tournament.status == "running"):
        raise CommandError(
            phrase("The tournament #{tournament} is no longer open for sign-up.", tournament=tournament.id),
            phrase("Write {command} to see those open for sign-up.", command="tournaments"),
            code="tournament.not_open", params={"tournament": tournament.id, "status": tournament.status},
        )


def join(session: Session, tournament: Tournament, player: Player, now: datetime) -> Entry:
    """Sign up; a running ladder places the newcomer at the bottom (one who left comes back there)."""
    _require_open(tournament)
    entry = _entry(session, tournament, player)
    if entry is not None and entry.withdrawn and tournament.format == "ladder":
        entry.withdrawn, entry.withdrawn_reason = False, None
        entry.seed = ladders.newcomer_place(session, tournament)
        session.add(entry)
        session.flush()
        return entry
    if entry is not None:
        raise CommandError(
            phrase("You have already joined tournament #{tournament}.", tournament=tournament.id),
            phrase("To leave it before it starts, write {command}.", command=f"leave {tournament.id}"),
            code="tournament.joined", params={"tournament": tournament.id},
        )
    entry = Entry(tournament_id=tournament.id, player_id=player.id, joined_at=now)
    if tournament.status == "running":  # a ladder
        entry.seed = ladders.newcomer_place(session, tournament)
        entry.rating_start = _ratings(session, tournament, [player.id]).get(player.id, 1500.0)
    session.add(entry)
    session.flush()
    return entry


def leave(session: Session, tournament: Tournament, player: Player, now: datetime) -> list[Letter]:
    """Take the player's name off before the start (no letters: the command replies). Once it
    runs this is resigning the tournament: withdrawn as by the operator, their game of this round
    to the opponent and the rest forfeits, with the letters to tell them. A ladder's player
    leaves between their games; those below move up."""
    entry = _entry(session, tournament, player)
    if entry is None or entry.withdrawn:
        raise CommandError(
            phrase("You are not in tournament #{tournament}.", tournament=tournament.id),
            phrase("To join it, write {command}.", command=f"join {tournament.id}"),
            code="tournament.not_joined", params={"tournament": tournament.id},
        )
    if tournament.format == "ladder" and tournament.status == "running":
        if ladders.playing(session, tournament, player.id):
            raise CommandError(
                phrase("You have a game of the ladder #{tournament} in progress.", tournament=tournament.id),
                phrase("Finish it (or resign it), then write {command} again.", command=f"leave {tournament.id}"),
                code="tournament.playing", params={"tournament": tournament.id},
            )
        entry.withdrawn, entry.withdrawn_reason = True, "left the ladder"
        session.add(entry)
        ladders.close_up(session, tournament)
        return []
    if tournament.status == "running":
        return withdraw(session, tournament, player, "resigned the tournament", now, resigned=True)
    if tournament.status != "open":
        raise CommandError(
            phrase("The tournament #{tournament} is over.", tournament=tournament.id),
            phrase("Write {command} to see where it stands.", command=f"tournament {tournament.id}"),
            code="tournament.over", params={"tournament": tournament.id},
        )
    session.delete(entry)
    session.flush()
    return []


# ---------------------------------------------------------------------------- the start


def start(session: Session, tournament: Tournament, reminders: Sequence[float], now: datetime) -> list[Letter]:
    """Seed the field by rating in the game type (then by sign-up) and pair round 1."""
    if tournament.status != "open":
        raise ValueError(f"tournament #{tournament.id} is {tournament.status}, not open")
    field = entries(session, tournament)
    if len(field) < 2:
        raise ValueError(f"tournament #{tournament.id} has {len(field)} players; it needs two")
    rating = _ratings(session, tournament, [e.player_id for e in field])
    field.sort(key=lambda e: (-rating.get(e.player_id, 1500.0), e.id))
    for seed, entry in enumerate(field, start=1):
        entry.seed = seed
        entry.rating_start = rating.get(entry.player_id, 1500.0)
        session.add(entry)
    tournament.status = "running"
    tournament.started_at = now
    session.add(tournament)
    session.flush()
    if tournament.format == "ladder":  # no rounds: the players challenge each other from now on
        return _to_everyone(session, tournament, "ladder_started.txt")
    return _next_round(session, tournament, reminders, now)


def _ratings(session: Session, tournament: Tournament, player_ids: list[int]) -> dict[int, float]:
    query = select(Rating).where(Rating.kind == tournament.kind, Rating.player_id.in_(player_ids))
    return {r.player_id: r.rating for r in session.exec(query)}


# ---------------------------------------------------------------------------- results


def round_over(session: Session, tournament: Tournament) -> bool:
    """Whether no game of the current round is still being played."""
    query = select(
        exists().where(
            TournamentGame.tournament_id == tournament.id, TournamentGame.round == tournament.round,
            TournamentGame.game_id == Game.id, Game.status == "active",
        )
    )
    return not session.exec(query).one()


# ---------------------------------------------------------------------------- the rounds


def advance(session: Session, tournament: Tournament, reminders: Sequence[float], now: datetime) -> list[Letter]:
    """Pair the next round, or finish, when every game of the current round is over: nothing
    (no letters) while a game is on, the tournament is adjourned, or not running."""
    if (tournament.status != "running" or tournament.format == "ladder" or tournament.adjourned_at is not None
            or not round_over(session, tournament)):
        return []  # a ladder moves on by its challenges (pbem.tournaments.ladder)
    return _next_round(session, tournament, reminders, now)


def _next_round(session: Session, tournament: Tournament, reminders: Sequence[float], now: datetime) -> list[Letter]:
    rows = boards(session, tournament)
    for row in rows:
        score(session, row)
    letters = _withdraw_on_time(session, tournament, rows)
    field = entries(session, tournament)
    seeds = [e.player_id for e in field]
    gone = {e.player_id for e in field if e.withdrawn}
    schedule = _schedule(tournament, seeds, rows, gone)
    if schedule is None:
        return letters + finish(session, tournament, now)
    tournament.round += 1
    session.add(tournament)
    for board, pair in enumerate(schedule, start=1):
        row = TournamentGame(tournament_id=tournament.id, round=tournament.round, board=board,
                             first_id=pair.first, second_id=pair.second)
        if pair.second is None:
            row.first_points, row.second_points = BYE_POINTS, 0.0
        elif gone & set(pair.players):
            forfeit = Result.forfeited(tournament.round, pair, gone, BYE_POINTS)
            row.first_points, row.second_points, row.forfeit = forfeit.first_points, forfeit.second_points, True
            letters += tournament_letters.forfeits(session, tournament, row, gone)
        else:
            game = G.begin(session, tournament.kind, tournament.options, pair.first, pair.second, now,
                           days=tournament.days, weekends_off=tournament.weekends_off, clock=tournament.clock)
            row.game_id = game.id
            letters += notify.tell(session, "paired", game, tournament=info(tournament, board))
            clock.reschedule(session, game, reminders, fresh=True)
        session.add(row)
    session.flush()  # the UNIQUE (tournament, round, board) speaks here, inside the caller's transaction
    if all(row.game_id is None for row in boards(session, tournament, tournament.round)):
        return letters + _next_round(session, tournament, reminders, now)  # a round of byes and forfeits only
    return letters


def _schedule(
    tournament: Tournament, seeds: list[int], rows: list[TournamentGame], gone: set[int]
) -> list[Pairing] | None:
    """The next round's boards, or None when the tournament is over."""
    if tournament.format in ("roundrobin", "double"):
        rounds = pairing.round_robin(seeds, double=tournament.format == "double")
        if tournament.round >= len(rounds):
            return None
        return rounds[tournament.round]
    if tournament.round >= (tournament.rounds or 0):
        return None
    standing = standings.table(seeds, results(rows), standings.SWISS, gone)
    ranking = standing.ranking()
    if len(ranking) < 2:
        return None
    try:
        return pairing.swiss_round(ranking, standing.scores(), history(rows))
    except pairing.NoPairing:
        return None


def _withdraw_on_time(session: Session, tournament: Tournament, rows: list[TournamentGame]) -> list[Letter]:
    """Withdraw every player who lost on time twice in a row (pbem.tournaments.standings' rule); each is told."""
    done = results(rows)
    field = entries(session, tournament)
    letters: list[Letter] = []
    for entry in field:
        if not entry.withdrawn and standings.withdrawn_on_time(entry.player_id, done, ON_TIME_LOSSES):
            entry.withdrawn = True
            entry.withdrawn_reason = "lost on time twice in a row"
            session.add(entry)
            letters += tournament_letters.withdrawn(session, tournament, entry, [e.player_id for e in field],
                                                    on_time=ON_TIME_LOSSES)
    return letters


def withdraw(
    session: Session, tournament: Tournament, player: Player, reason: str, now: datetime, *, resigned: bool = False,
) -> list[Letter]:
    """The operator withdraws a player (or they resign it, `resigned`): their game of this round is
    adjudicated to the opponent, and their later games are forfeits. The player is told (before
    the start too: off the list)."""
    entry = _entry(session, tournament, player)
    if entry is None or entry.withdrawn:
        raise ValueError(f"{player.address} is not playing in tournament #{tournament.id}")
    if tournament.status not in ("open", "running"):
        raise ValueError(f"tournament #{tournament.id} is {tournament.status}")
    seeds = [e.player_id for e in entries(session, tournament)]
    if tournament.status == "open":
        session.delete(entry)
        return tournament_letters.withdrawn(session, tournament, entry, seeds, reason=reason)
    entry.withdrawn, entry.withdrawn_reason = True, reason[:200]
    session.add(entry)
    ladder = tournament.format == "ladder"
    letters: list[Letter] = []
    decided: int | None = None
    for row in boards(session, tournament, None if ladder else tournament.round):  # a ladder's games: any challenge
        if row.game_id is None or player.id not in (row.first_id, row.second_id):
            continue
        game = session.get(Game, row.game_id)
        if game.status == "active":
            G.adjudicate(session, game, 1 - game.side_of(player.id), f"withdrawn: {reason}", now)
            letters += notify.tell(session, "adjudicated", game, why=phrase(
                "{name} is withdrawn from the tournament ({reason})", name=player.name, reason=reason))
            if ladder:
                score(session, row)  # scored here: a withdrawal moves no place
            decided = game.id
    if ladder:
        ladders.close_up(session, tournament)
    return letters + tournament_letters.withdrawn(session, tournament, entry, seeds, reason=reason, game=decided,
                                                  resigned=resigned)


def adjourn(session: Session, tournament: Tournament, now: datetime) -> None:
    """Hold the next pairing and stop the clocks of the round's games (no reminder, no loss on time)."""
    if tournament.status != "running" or tournament.adjourned_at is not None:
        raise ValueError(f"tournament #{tournament.id} is not running or already adjourned")
    if tournament.format == "ladder":
        raise ValueError(f"tournament #{tournament.id} is a ladder: it has no round to adjourn")
    tournament.adjourned_at = now
    session.add(tournament)
    for row in boards(session, tournament, tournament.round):
        game = session.get(Game, row.game_id) if row.game_id else None
        if game is not None and game.status == "active":
            game.clock_due_at = None
            session.add(game)


def adjourned(session: Session, game: Game) -> bool:
    """Whether the game is of an adjourned tournament: its clock stands still (the clock round asks)."""
    return bool(session.exec(_ADJOURNED, params={"game": game.id}).one())


_ADJOURNED = select(exists().where(  # built once: the clock round asks for every due game
    TournamentGame.game_id == bindparam("game"), TournamentGame.tournament_id == Tournament.id,
    Tournament.adjourned_at.is_not(None),
))


def resume(session: Session, tournament: Tournament, reminders: Sequence[float], now: datetime) -> None:
    """Go on after an adjournment: each game's turn gets back the time it stood still (a turn
    that began during the adjournment, after a move, from its start)."""
    if tournament.adjourned_at is None:
        raise ValueError(f"tournament #{tournament.id} is not adjourned")
    since = aware(tournament.adjourned_at)
    tournament.adjourned_at = None
    session.add(tournament)
    for row in boards(session, tournament, tournament.round):
        game = session.get(Game, row.game_id) if row.game_id else None
        if game is not None and game.status == "active":
            started = aware(game.turn_started_at) if game.turn_started_at else since
            game.clock_credit += max(0, int((now - max(since, started)).total_seconds()))
            clock.reschedule(session, game, reminders)
            session.add(game)


def cancel(session: Session, tournament: Tournament, reason: str, now: datetime) -> list[Letter]:
    """Call the tournament off: its games in progress are cancelled too (no result, no rating)."""
    if tournament.status in ("finished", "cancelled"):
        raise ValueError(f"tournament #{tournament.id} is already {tournament.status}")
    letters: list[Letter] = []
    for row in boards(session, tournament, None if tournament.format == "ladder" else tournament.round):
        game = session.get(Game, row.game_id) if row.game_id else None
        if game is not None and game.status == "active":
            G.cancel(session, game, reason, now)
            letters += notify.tell(session, "cancelled", game, why=reason)
    tournament.status = "cancelled"
    tournament.finished_at = now
    session.add(tournament)
    return letters


def finish(session: Session, tournament: Tournament, now: datetime) -> list[Letter]:
    """The end: every participant gets the final table."""
    tournament.status = "finished"
    tournament.finished_at = now
    session.add(tournament)
    session.flush()
    return _to_everyone(session, tournament, "tournament_final.txt")


def close(session: Session, tournament: Tournament, now: datetime) -> list[Letter]:
    """The operator ends a ladder: its places as they stand are the final table, mailed to every
    player; its games in progress are played out as ordinary rated games, no place moving."""
    if tournament.format != "ladder" or tournament.status not in ("open", "running"):
        raise ValueError(f"tournament #{tournament.id} is not a ladder that is open or running")
    return finish(session, tournament, now)


def _to_everyone(session: Session, tournament: Tournament, template: str) -> list[Letter]:
    """One letter with the tournament's view to each player still in it."""
    letters = []
    for entry in entries(session, tournament):
        player = session.get(Player, entry.player_id)
        if player is not None and not player.banned and not (entry.withdrawn and tournament.format == "ladder"):
            letters.append(Letter(player, template, {"tournament": view(session, tournament, player)}))
    return letters
