"""A ladder tournament by mail: challenges up the ladder, and the places moved once each game ends.

A ladder has no rounds. Once the operator starts it, the players stand in places (by rating
at the start; a newcomer at the bottom), kept in `Entry.seed`, 1 the top. A player challenges
someone up to `Tournament.reach` places above (`ladder T PLACE`); the game starts at once
with the usual mails, one `TournamentGame` row per challenge (`round` counts the challenges).
A player has one challenge of their own at a time and defends one at a time. When the game
ends, the daemon's round (`pbem.runners.tournaments`) scores the row once, with the ladder's row
locked, and the winner takes the higher place (`pbem.tournaments.places.Ladder.settle`); both players get
the new places. The pure rules are `pbem.tournaments.places`; this module holds the rows and the letters.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, time
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from pbem.core.errors import CommandError
from pbem.core.models import Entry, Game, Player, Tournament, TournamentGame
from pbem.games import clock
from pbem.games import store as G
from pbem.letters import notify
from pbem.letters.notify import Letter
from pbem.tournaments.places import Ladder
from pbem.tournaments.table import info, score, view
from pbem_engine.common.phrases import nphrase, phrase


def standing(session: Session, tournament: Tournament) -> Ladder:
    """The ladder as it stands: the players still on it, by place."""
    rows = session.exec(
        select(Entry).where(Entry.tournament_id == tournament.id, Entry.withdrawn.is_(False))
        .order_by(Entry.seed, Entry.id)
    ).all()
    return Ladder(tuple(e.player_id for e in rows), tournament.reach or 1)


def _store(session: Session, tournament: Tournament, ladder: Ladder) -> None:
    """Write the ladder's places back to the entries (1 the top)."""
    place = {player: at for at, player in enumerate(ladder.players, start=1)}
    for entry in session.exec(select(Entry).where(Entry.tournament_id == tournament.id)):
        wanted = place.get(entry.player_id)
        if not entry.withdrawn and entry.seed != wanted:
            entry.seed = wanted
            session.add(entry)
    session.flush()


def _refuse(code: str, message: Any, hint: Any, **params: Any) -> CommandError:
    return CommandError(message, hint, code=f"ladder.{code}", params=params)


def _require_ladder(tournament: Tournament) -> None:
    if tournament.format != "ladder":
        raise _refuse("not_ladder", phrase("The tournament #{tournament} is not a ladder.", tournament=tournament.id),
                      phrase("Write {command} to see its games.", command=f"tournament {tournament.id}"),
                      tournament=tournament.id)
    if tournament.status != "running":
        if tournament.status == "open":
            message = phrase("The ladder #{tournament} has not started yet.", tournament=tournament.id)
        else:
            message = phrase("The ladder #{tournament} is over.", tournament=tournament.id)
        raise _refuse("not_running", message,
                      phrase("Write {command} to see where it stands.", command=f"tournament {tournament.id}"),
                      tournament=tournament.id, status=tournament.status)


def _target(session: Session, tournament: Tournament, ladder: Ladder, word: str) -> int:
    """The player a challenge names: by place, address or name, among those on the ladder."""
    word = word.strip()
    if word.lstrip("#").isdigit():
        place = int(word.lstrip("#"))
        if 1 <= place <= len(ladder.players):
            return ladder.players[place - 1]
    else:
        players = session.exec(select(Player).where(Player.id.in_(ladder.players))).all()
        lowered = word.lower()
        found = [p for p in players if p.address == lowered] or [p for p in players if p.name.lower() == lowered]
        if len(found) == 1:
            return found[0].id
    raise _refuse("no_player",
                  phrase("Nobody on the ladder #{tournament} is {who}.", tournament=tournament.id, who=word),
                  phrase("Write a place, e.g. {example}; {command} shows the places.",
                         example=f"ladder {tournament.id} 3", command=f"tournament {tournament.id}"),
                  tournament=tournament.id, who=word)


def _open_challenges(session: Session, tournament: Tournament) -> list[TournamentGame]:
    """The ladder's challenges whose game is still being played."""
    return list(session.exec(
        select(TournamentGame).join(Game, Game.id == TournamentGame.game_id)
        .where(TournamentGame.tournament_id == tournament.id, Game.status == "active")
    ))


def playing(session: Session, tournament: Tournament, player_id: int) -> bool:
    """Whether the player has a ladder game in progress (they may not leave meanwhile)."""
    return any(player_id in (row.first_id, row.second_id) for row in _open_challenges(session, tournament))


def _pair_today(session: Session, tournament: Tournament, one: int, other: int, now: datetime) -> int:
    """How many ladder challenges the two players have had today (UTC), either challenging."""
    midnight = datetime.combine(now.astimezone(UTC).date(), time(0), tzinfo=UTC)
    return session.exec(
        select(func.count(TournamentGame.id)).join(Game, Game.id == TournamentGame.game_id)
        .where(TournamentGame.tournament_id == tournament.id, TournamentGame.challenger_id.is_not(None),
               TournamentGame.first_id.in_([one, other]), TournamentGame.second_id.in_([one, other]),
               Game.created_at >= midnight)
    ).one()


def _check(
    session: Session, tournament: Tournament, ladder: Ladder, challenger: Player, defender_id: int,
    now: datetime, per_day: int,
) -> None:
    """Every reason the challenge may not be made, as a reply that says what to write instead;
    `per_day` caps the challenges between the same two players in a day."""
    shows = phrase("Write {command} to see the places and whom you may challenge.", command=f"tournament {tournament.id}")
    reason = ladder.refusal(challenger.id, defender_id)
    if reason == "absent":
        raise _refuse("absent", phrase("You are not on the ladder #{tournament}.", tournament=tournament.id),
                      phrase("To join it, write {command}.", command=f"join {tournament.id}"), tournament=tournament.id)
    if reason == "self":
        raise _refuse("self", phrase("You cannot challenge yourself."), shows, tournament=tournament.id)
    mine, theirs = ladder.place(challenger.id), ladder.place(defender_id)
    if reason == "below":
        raise _refuse("below", phrase("Place {place} is below your place, {mine}: challenge someone above you.",
                                      place=theirs, mine=mine), shows, tournament=tournament.id, place=theirs)
    if reason == "beyond":
        raise _refuse("beyond", phrase("Place {place} is too far above your place, {mine}: you may challenge up to "
                                       "{reach} places above.", place=theirs, mine=mine, reach=ladder.reach),
                      shows, tournament=tournament.id, place=theirs, reach=ladder.reach)
    played = _pair_today(session, tournament, challenger.id, defender_id, now)
    if played >= per_day:
        raise _refuse("pair_today",
                      nphrase("You and the player in place {place} have had {n} ladder challenge today, the most "
                              "between two players in a day.",
                              "You and the player in place {place} have had {n} ladder challenges today, the most "
                              "between two players in a day.", played, place=theirs),
                      phrase("Nothing was started. You may challenge them again after midnight (UTC), or someone "
                             "else now."), tournament=tournament.id, place=theirs, limit=per_day)
    for row in _open_challenges(session, tournament):
        if row.challenger_id == challenger.id:
            raise _refuse("busy", phrase("Your challenge in game #{game} is still being played: one at a time.",
                                         game=row.game_id),
                          phrase("You may challenge again when it ends."), tournament=tournament.id, game=row.game_id)
        if row.defender_id == defender_id:
            raise _refuse("engaged", phrase("The player in place {place} is defending a challenge already "
                                            "(game #{game}).", place=theirs, game=row.game_id),
                          phrase("You may challenge someone else, or again when that game ends."),
                          tournament=tournament.id, place=theirs, game=row.game_id)


def _first(session: Session, tournament: Tournament, challenger: int, defender: int) -> tuple[int, int]:
    """Who moves first: the one of the two who moved first less often on this ladder, else the challenger."""
    firsts = dict(session.exec(
        select(TournamentGame.first_id, func.count()).where(
            TournamentGame.tournament_id == tournament.id, TournamentGame.first_id.in_([challenger, defender]))
        .group_by(TournamentGame.first_id)
    ).all())
    if firsts.get(defender, 0) < firsts.get(challenger, 0):
        return defender, challenger
    return challenger, defender


def facts(session: Session, tournament: Tournament, row: TournamentGame, ladder: Ladder) -> dict[str, Any]:
    """What a ladder game's mails say of its challenge (`tournament_game.txt`, `_game_facts.txt`)."""
    defender = row.defender_id
    names = {p.id: p.name for p in session.exec(select(Player).where(Player.id.in_([row.challenger_id, defender])))}
    return {
        **info(tournament), "ladder": True,
        "challenger": names[row.challenger_id], "challenger_place": ladder.place(row.challenger_id),
        "defender": names[defender], "defender_place": ladder.place(defender),
    }


def challenge(
    session: Session, tournament: Tournament, challenger: Player, target: str, reminders: Sequence[float],
    now: datetime, *, trial: bool = False, per_day: int = 1,
) -> tuple[Game | None, list[Letter]]:
    """Challenge the player a word names: the game starts at once; the challenger's letter is
    the reply to their mail, the defender's a mail of its own. `trial` checks only; `per_day`
    is the most challenges between the same two players in a day."""
    _require_ladder(tournament)
    ladder = standing(session, tournament)
    defender = _target(session, tournament, ladder, target)
    _check(session, tournament, ladder, challenger, defender, now, per_day)
    if trial:
        return None, []
    first, second = _first(session, tournament, challenger.id, defender)
    game = G.begin(session, tournament.kind, tournament.options, first, second, now,
                   days=tournament.days, weekends_off=tournament.weekends_off, clock=tournament.clock)
    tournament.round += 1
    session.add(tournament)
    row = TournamentGame(tournament_id=tournament.id, round=tournament.round, board=1, first_id=first,
                         second_id=second, game_id=game.id, challenger_id=challenger.id)
    session.add(row)
    session.flush()  # the UNIQUE (tournament, round, board) guards the count
    letters = notify.tell(session, "ladder_challenge", game, challenger,
                          tournament=facts(session, tournament, row, ladder))
    clock.reschedule(session, game, reminders, fresh=True)
    return game, letters


def due(session: Session) -> list[tuple[int, int]]:
    """(tournament, row) of every running ladder's challenge whose game has ended but not yet moved the places."""
    query = (
        select(TournamentGame.tournament_id, TournamentGame.id)
        .join(Tournament, Tournament.id == TournamentGame.tournament_id)
        .join(Game, Game.id == TournamentGame.game_id)
        .where(Tournament.format == "ladder", Tournament.status == "running",
               TournamentGame.first_points.is_(None), Game.status != "active")
        .order_by(TournamentGame.id)
    )
    return [(t, r) for t, r in session.exec(query).all()]


def settle(session: Session, tournament: Tournament, row_id: int) -> list[Letter]:
    """Score one ended challenge and move the places; nothing if it was scored already (the
    caller holds the ladder's row, so of several daemons one does it)."""
    row = session.get(TournamentGame, row_id, populate_existing=True)
    if row is None or row.first_points is not None or not score(session, row):
        return []
    before = standing(session, tournament)
    game = session.get(Game, row.game_id)
    winner = None if row.forfeit or game.winner is None else game.player_id(game.winner)
    after = before.settle(row.first_id, row.second_id, winner)
    _store(session, tournament, after)
    letters = []
    for player_id in (row.first_id, row.second_id):
        player = session.get(Player, player_id)
        if player is None or player.banned:
            continue
        letters.append(Letter(player, "ladder_result.txt", {
            "tournament": view(session, tournament, player), "game": game.id, "result": game.result,
            "moved": after != before, "you": after.place_of(player_id), "was": before.place_of(player_id),
        }))
    return letters


def close_up(session: Session, tournament: Tournament) -> None:
    """Renumber the places after someone left: those below move up one."""
    _store(session, tournament, standing(session, tournament))


def newcomer_place(session: Session, tournament: Tournament) -> int:
    """The place a player joining a running ladder takes: the bottom."""
    query = select(func.max(Entry.seed)).where(Entry.tournament_id == tournament.id, Entry.withdrawn.is_(False))
    return (session.exec(query).one() or 0) + 1
