"""Tournaments and ladders take a clock for all their games."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from pbem.core.db import transaction
from pbem.core.models import Game
from pbem.core.wallclock import now
from pbem.games import timecontrol as tc
from pbem.letters import post
from pbem.tournaments import tournament as T
from tests.mailer import text

PLAYERS = ["ann@example.org", "ben@example.org", "cat@example.org"]


def flat(mail) -> str:
    return " ".join(text(mail).split())


def _join(server, address: str, tid: int) -> None:
    server.say(address, f"join {tid}")
    if "Did you write to me" in server.last(address)["Subject"]:
        server.confirm(address)


def _started(server, fmt: str, notation: str) -> int:
    with transaction(server.engine) as session:
        tid = T.create(session, "Clocks", fmt, "ataxx", now(), clock_notation=notation).id
    for address in PLAYERS:
        _join(server, address, tid)
    settings = server.service.settings
    with transaction(server.engine) as session:
        post.post(session, settings, server.service.templates,
                  T.start(session, T.get(session, tid), settings.reminders, now()))
    return tid


def test_a_round_robin_plays_every_game_on_its_clock(clocked) -> None:
    tid = _started(clocked, "roundrobin", "fischer:3d+1d/7d")
    with Session(clocked.engine) as session:
        games = session.exec(select(Game)).all()
    assert games and {(g.clock, tuple(g.clock_sides["left"])) for g in games} == {
        ("fischer:3d+1d/7d", (3 * tc.DAY, 3 * tc.DAY))}
    paired = [m for a in PLAYERS for m in clocked.mails(a) if "Round 1, board" in flat(m)]
    assert paired and all("Clock: Fischer: 3 days at the start, 1 day added after each move, at most 7 days."
                          in flat(m) for m in paired)
    clocked.say("dan@example.org", f"tournament {tid}")
    assert (f"The tournament Clocks (#{tid}): ataxx 7x7, round robin, clock: Fischer: 3 days at the start, 1 day added after each move, "
            "at most 7 days, 3 players.") in flat(clocked.last("dan@example.org"))


def test_a_ladder_challenge_starts_on_the_ladders_clock(clocked) -> None:
    tid = _started(clocked, "ladder", "iccf:10/50d")
    assert "the game starts at once, clock: 10 moves in 50 days" in flat(clocked.last(PLAYERS[2]))
    clocked.say(PLAYERS[2], f"ladder {tid} 2")
    with Session(clocked.engine) as session:
        game = session.exec(select(Game)).one()
    assert (game.clock, game.clock_sides["left"]) == ("iccf:10/50d", [50 * tc.DAY, 50 * tc.DAY])


def test_a_wrong_clock_is_refused_at_creation(clocked) -> None:
    with transaction(clocked.engine) as session, pytest.raises(ValueError, match="is not a clock I know"):
        T.create(session, "Bad", "roundrobin", "ataxx", now(), clock_notation="blitz")
    with transaction(clocked.engine) as session:  # days per move stays days per move
        tournament = T.create(session, "Days", "roundrobin", "ataxx", now(), clock_notation="days:3")
        assert (tournament.clock, tournament.days) == (None, 3)
