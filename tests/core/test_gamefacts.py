"""What the read of a mail's boards finds of their games (`pbem.core.work.with_game_facts`) saves the
opponent's, the watchers' and the vacations' reads, and a new watcher or vacation in the same
transaction is seen all the same. On SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import event
from sqlmodel import select

from pbem.core.db import transaction
from pbem.core.models import Game, Player
from pbem.core.rows import read, table
from pbem.core.wallclock import now
from pbem.core.work import take_game_facts, with_game_facts
from pbem.games import store, vacations, watchers
from tests.mailer import reply_to, text

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"
_GAME_READ = with_game_facts(select(table(Game)).where(table(Game).c.id == 1))
_FACTS_AT = len(table(Game).columns)


def _game(server) -> None:  # noqa: ANN001
    server.say(ALICE, f"challenge ataxx {BOB} colour=x")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))


class _Statements:
    """Counts the statements sent while it is open."""

    def __init__(self, engine) -> None:  # noqa: ANN001
        self.engine, self.count = engine, 0

    def _seen(self, *_args: object) -> None:
        self.count += 1

    def __enter__(self) -> _Statements:
        event.listen(self.engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *_exc: object) -> None:
        event.remove(self.engine, "before_cursor_execute", self._seen)


def _read_with_facts(session, at):  # noqa: ANN001, ANN202
    game = session.get(Game, 1)
    take_game_facts(session, game, read(session, _GAME_READ, {"at": at}).one(), _FACTS_AT, at)
    return game


def test_a_game_read_with_its_facts_needs_no_read_of_its_players_watchers_or_vacations(any_server) -> None:
    _game(any_server)
    at = now()
    with transaction(any_server.engine) as session:
        game = _read_with_facts(session, at)
        with _Statements(any_server.engine) as sent:
            alice, bob = store.players(session, game)
            assert watchers.watchers(session, game) == []
            assert vacations.pausing(session, bob.id, at) == []
            assert vacations.pausing(session, alice.id, at + timedelta(hours=1)) == []
        assert (alice.address, bob.address) == (ALICE, BOB)
        assert sent.count == 0
        with _Statements(any_server.engine) as sent:  # a turn begun before the read: asked as before
            assert vacations.pausing(session, bob.id, at - timedelta(days=1)) == []
        assert sent.count == 1


def test_a_watcher_and_a_vacation_begun_in_the_same_transaction_are_seen(any_server) -> None:
    _game(any_server)
    any_server.say(CAROL, "hello")  # Carol is registered
    at = now()
    with transaction(any_server.engine) as session:
        game = _read_with_facts(session, at)
        carol = session.exec(select(Player).where(Player.address == CAROL)).one()
        bob = session.exec(select(Player).where(Player.address == BOB)).one()
        assert watchers.watchers(session, game) == [] and vacations.pausing(session, bob.id, at) == []
        watchers.watch(session, game, carol, at)
        away = vacations.start_vacation(session, bob, 3, at, allowance=30)
        assert [p.address for p in watchers.watchers(session, game)] == [CAROL]
        assert vacations.pausing(session, bob.id, at) == [away]


def test_a_game_with_a_watcher_and_a_player_away_is_read_as_it_is(any_server) -> None:
    _game(any_server)
    any_server.say(CAROL, "watch 1")
    any_server.confirm(CAROL)
    any_server.send(reply_to(BOB, any_server.last(BOB), "vacation 3"))
    at = now()
    with transaction(any_server.engine) as session:
        game = _read_with_facts(session, at)
        bob = session.exec(select(Player).where(Player.address == BOB)).one()
        assert [p.address for p in watchers.watchers(session, game)] == [CAROL]
        assert len(vacations.pausing(session, bob.id, at)) == 1
    # and by mail: Alice's move reaches Carol, and the board she gets back tells that Bob is away
    any_server.send(reply_to(ALICE, any_server.last(ALICE), "move 1 a6"))
    assert "bob is on vacation until" in text(any_server.last(ALICE))
    assert "Game #1" in text(any_server.last(CAROL)) and "a6" in text(any_server.last(CAROL))
