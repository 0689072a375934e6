"""The letters of a withdrawal: to the player withdrawn, and to each opponent of a forfeit.

`pbem.tournaments.tournament` calls these where the rows change (the operator's withdrawal, the
withdrawal after losses on time, the pairing of a board scored without a game), so the
mails go out in the same transaction as the change. A letter is about no game: the
withdrawn player's game in progress has its own mail (`adjudicated`), and a forfeit
has no game at all.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from pbem.core.models import Entry, Player, Tournament, TournamentGame
from pbem.letters.notify import Letter
from pbem.tournaments import pairing


def _facts(tournament: Tournament) -> dict[str, Any]:
    """What both mails say of the tournament."""
    return {"id": tournament.id, "name": tournament.name, "format": tournament.format, "round": tournament.round}


def _left_to_play(tournament: Tournament, seeds: list[int], player_id: int) -> int:
    """How many games of a round robin the player had after the current round: each is now a
    forfeit. (A Swiss pairs a withdrawn player no more, so there is nothing to count.)"""
    if tournament.format not in ("roundrobin", "double") or player_id not in seeds:
        return 0
    rounds = pairing.round_robin(seeds, double=tournament.format == "double")
    return sum(
        1 for boards in rounds[tournament.round:] for board in boards
        if board.second is not None and player_id in board.players
    )


def withdrawn(
    session: Session, tournament: Tournament, entry: Entry, seeds: list[int], *,
    on_time: int = 0, reason: str = "", game: int | None = None, resigned: bool = False,
) -> list[Letter]:
    """The mail to a player just withdrawn: why (`on_time` losses in a row, their own `leave`
    (`resigned`: the letter is the reply to their mail), else the operator's `reason`), the game
    of this round given to the opponent (`game`), what becomes of the rest."""
    player = session.get(Player, entry.player_id)
    if player is None or player.banned:
        return []
    started = tournament.status == "running"
    rounds_left = tournament.rounds is not None and tournament.round < tournament.rounds
    data = {
        "tournament": _facts(tournament), "on_time": on_time, "reason": reason.strip().rstrip("."), "started": started,
        "game": game, "forfeits": _left_to_play(tournament, seeds, player.id) if started else 0,
        "unpaired": started and tournament.format == "swiss" and rounds_left, "resigned": resigned,
    }
    return [Letter(player, "tournament_withdrawn.txt", data, reply=resigned)]


def forfeits(session: Session, tournament: Tournament, row: TournamentGame, gone: set[int]) -> list[Letter]:
    """The mail to the player present on a board scored without a game because the other was
    withdrawn: a win by forfeit, in the round being paired. Nobody is told when both are gone."""
    if row.second_id is None:
        return []
    present = [p for p in (row.first_id, row.second_id) if p not in gone]
    absent = [p for p in (row.first_id, row.second_id) if p in gone]
    if len(present) != 1 or len(absent) != 1:
        return []
    player, opponent = session.get(Player, present[0]), session.get(Player, absent[0])
    if player is None or player.banned or opponent is None:
        return []
    data = {"tournament": _facts(tournament), "opponent": opponent.name}
    return [Letter(player, "tournament_forfeit.txt", data)]
