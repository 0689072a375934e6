"""A whole round robin through the service: sign-up, three rounds paired as games end, the final table."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem import post, tournament_rounds
from pbem import tournaments as T
from pbem.db import transaction
from pbem.models import Entry, Game, Player, TournamentGame
from pbem.wallclock import now
from tests.service.mailer import text

PLAYERS = ["ann@example.org", "ben@example.org", "cat@example.org", "dan@example.org"]


def _players(server) -> dict[str, Player]:
    for address in PLAYERS:
        server.say(address, "help")
    with Session(server.engine) as session:
        return {p.address: p for p in session.exec(select(Player))}


def _start(server, fmt: str = "roundrobin", rounds: int | None = None) -> int:
    players = _players(server)
    settings = server.service.settings
    with transaction(server.engine) as session:
        tournament = T.create(session, "Winter Cup", fmt, "ataxx", now(), days=5, rounds=rounds)
        for address in PLAYERS:
            T.join(session, tournament, session.get(Player, players[address].id), now())
        letters = T.start(session, tournament, settings.reminders, now())
        post.post(session, settings, server.service.templates, letters)
        return tournament.id


def _games(server, tournament_id: int, round: int) -> list[Game]:
    with Session(server.engine) as session:
        rows = session.exec(select(TournamentGame).where(
            TournamentGame.tournament_id == tournament_id, TournamentGame.round == round)).all()
        return [session.get(Game, r.game_id) for r in rows if r.game_id]


def _address(server, player_id: int) -> str:
    with Session(server.engine) as session:
        return session.get(Player, player_id).address


def test_a_round_robin_of_four_from_the_start_to_the_final_table(server) -> None:
    tid = _start(server)
    settings = server.service.settings
    met: set[frozenset[int]] = set()
    for round in (1, 2, 3):
        games = _games(server, tid, round)
        assert len(games) == 2
        for game in games:
            met.add(frozenset((game.player0_id, game.player1_id)))
            for pid in (game.player0_id, game.player1_id):
                mail = text(server.last(_address(server, pid)))
                assert f"Round {round} of the tournament Winter Cup (#{tid})" in " ".join(mail.split())
                assert f"Tournament Winter Cup (#{tid}), round {round}" in " ".join(mail.split())
            assert game.days == 5
        # nothing to pair while the round is on
        assert tournament_rounds.advance_due(server.engine, settings) == 0
        for game in games:  # the second player resigns every game: the first wins
            server.say(_address(server, game.player1_id), f"resign {game.id}")
        assert tournament_rounds.advance_due(server.engine, settings) == 1
        assert tournament_rounds.advance_due(server.engine, settings) == 0  # paired once
    assert len(met) == 6  # everyone met everyone
    with Session(server.engine) as session:
        tournament = T.get(session, tid)
        assert tournament.status == "finished"
        assert tournament.round == 3
    for address in PLAYERS:
        mail = server.last(address)
        assert "the final table" in mail["Subject"]
        body = text(mail)
        assert "Sonneborn-Berger" in body and "crosstable" in body
        for name in ("ann", "ben", "cat", "dan"):
            assert name in body.lower()
        for line in body.splitlines():
            assert len(line) <= 72


def test_joining_twice_and_leaving_after_the_start_are_refused(server) -> None:
    tid = _start(server)
    with transaction(server.engine) as session:
        tournament = T.get(session, tid)
        player = session.exec(select(Player).where(Player.address == PLAYERS[0])).one()
        for action in (lambda: T.join(session, tournament, player, now()), lambda: T.leave(session, tournament, player)):
            try:
                action()
            except Exception as exc:  # noqa: BLE001
                assert exc.code in ("tournament.not_open", "tournament.started")
            else:
                raise AssertionError("accepted")
        assert len(session.exec(select(Entry).where(Entry.tournament_id == tid)).all()) == 4


def test_a_swiss_of_four_pairs_two_rounds_without_a_repeat_and_finishes(server) -> None:
    tid = _start(server, "swiss", rounds=2)
    settings = server.service.settings
    pairs = []
    for round in (1, 2):
        games = _games(server, tid, round)
        assert len(games) == 2
        pairs += [frozenset((g.player0_id, g.player1_id)) for g in games]
        for game in games:
            server.say(_address(server, game.player1_id), f"resign {game.id}")
        assert tournament_rounds.advance_due(server.engine, settings) == 1
    assert len(set(pairs)) == 4
    with Session(server.engine) as session:
        assert T.get(session, tid).status == "finished"
    assert "Buchholz" in text(server.last(PLAYERS[0]))
