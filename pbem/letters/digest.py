"""The daily digest: when a player's next one is due, and what it says.

A player in digest mode (`notify digest 08:00`) gets no mail per move of their games;
instead, once a day at that local time, one mail shows every game where it is their
move, each board with its deadline and the line that answers it, and the messages
their opponents relayed since the last digest. The time is kept in the player's zone:
across a change of daylight saving time the digest still comes at 08:00 on the wall
clock. A local time that does not exist that day (the hour skipped in spring) moves to
the first valid minute after it; one that comes twice (the hour repeated in autumn)
takes the first. `Player.digest_due_at` stores the next one in UTC, indexed, so the
clock round reads only the players due (`pbem.runners.digests`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import Session, and_, or_, select

from pbem.core.models import Game, Player, Remark
from pbem.games import zones
from pbem.letters.notify import Letter
from pbem.letters.views import game_view

#: `08:00`, `8:00`, `0800`, `800`, `8.00`, `8h00`: hours 0-23, minutes 0-59
_TIME = re.compile(r"^(\d{1,2})[:.h]?(\d{2})$")
#: the longest gap a zone skips at once (a few hours at most in the tz database, once a day at most)
_GAP_MINUTES = 24 * 60


def parse_time(text: str) -> str | None:
    """The `HH:MM` a player means by `text`, or None when it is not a time of day."""
    m = _TIME.match(text.strip().replace("\uff1a", ":"))  # a full-width colon, as some keyboards write
    if m is None:
        return None
    hours, minutes = int(m.group(1)), int(m.group(2))
    if hours > 23 or minutes > 59:
        return None
    return f"{hours:02d}:{minutes:02d}"


def _exists(wall: datetime) -> bool:
    """Whether an aware wall-clock time exists in its zone (not in a spring-forward gap)."""
    back = wall.astimezone(UTC).astimezone(wall.tzinfo)
    return back.replace(tzinfo=None) == wall.replace(tzinfo=None)


def _moment(day: datetime, hhmm: str, zone_name: str) -> datetime:
    """The UTC moment of `hhmm` on the local date of `day` in the zone: a skipped time moves
    to the next valid minute, a repeated one takes its first occurrence (fold=0)."""
    tz = zones.zone(zone_name)
    hours, minutes = (int(part) for part in hhmm.split(":"))
    wall = datetime(day.year, day.month, day.day, hours, minutes, tzinfo=tz)  # fold=0: the first
    for _ in range(_GAP_MINUTES):
        if _exists(wall):
            return wall.astimezone(UTC)
        wall = (wall.replace(tzinfo=None) + timedelta(minutes=1)).replace(tzinfo=tz)
    return wall.astimezone(UTC)  # no zone skips a whole day; kept total all the same


def next_due(hhmm: str, zone_name: str, after: datetime) -> datetime:
    """The first moment strictly after `after` when the wall clock in the zone shows `hhmm`."""
    tz = zones.zone(zone_name)
    today = after.astimezone(tz)
    for days in range(3):  # today, else tomorrow (the day after, if a gap moved tomorrow's into the past)
        day = today.date() + timedelta(days=days)
        due = _moment(datetime(day.year, day.month, day.day), hhmm, zone_name)
        if due > after:
            return due
    raise AssertionError("unreachable: a day later is always after")


def schedule(player: Player, after: datetime) -> None:
    """Store the player's next digest after `after` (None when they are not in digest mode):
    called when the mode, the time or the zone changes, and after each digest."""
    if player.notify == "digest" and player.digest_at:
        player.digest_due_at = next_due(player.digest_at, player.timezone, after)
    else:
        player.digest_due_at = None


def waiting(session: Session, player: Player) -> list[Game]:
    """The player's games in progress where it is their move, oldest first."""
    query = (
        select(Game)
        .where(Game.status == "active")
        .where(or_(and_(Game.player0_id == player.id, Game.turn == 0), and_(Game.player1_id == player.id, Game.turn == 1)))
        .order_by(Game.id)
    )
    return list(session.exec(query))


def relayed(session: Session, player: Player, since: datetime | None) -> list[Remark]:
    """What the opponents said (`say`) in the player's games in progress since `since`,
    in order; nothing for a player who turned relayed messages off (`say off`)."""
    if not player.relay:
        return []
    query = (
        select(Remark)
        .join(Game, Game.id == Remark.game_id)
        .where(Game.status == "active")
        .where(or_(Game.player0_id == player.id, Game.player1_id == player.id))
        .where(Remark.player_id != player.id)
        .order_by(Remark.created_at, Remark.id)
    )
    if since is not None:
        query = query.where(Remark.created_at > since)
    return list(session.exec(query))


def letters(session: Session, player: Player) -> list[Letter]:
    """The digest for `player` as one letter (a mail about no single game), or none when
    nothing waits for them: no game on their move and no new message."""
    games = waiting(session, player)
    remarks = relayed(session, player, player.digest_sent_at)
    if not games and not remarks:
        return []
    said: list[dict[str, Any]] = []
    for remark in remarks:
        speaker = session.get(Player, remark.player_id)
        said.append({"game": remark.game_id, "name": speaker.name if speaker else "?", "text": " ".join(remark.text.split())})  # one line
    views = [game_view(session, game, player) for game in games]
    return [Letter(player, "digest.txt", {"games": views, "remarks": said, "count": len(views)})]
