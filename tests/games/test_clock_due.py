"""Issue 12: each game stores its next clock event, and a clock round reads only the games due."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from alembic import command
from alembic.config import Config
from click.testing import CliRunner
from freezegun import freeze_time
from sqlalchemy import event, text
from sqlmodel import Session, select

from pbem.cli.main import main
from pbem.core.db import MIGRATIONS, make_engine, migrate, transaction
from pbem.core.models import Challenge, Game, Outbox, Reminder
from pbem.games import clock, players, vacations
from pbem.games import store as G
from pbem.runners import clock as timekeeper
from pbem_engine import create as engine_rules
from tests.games.test_clock_service import ALICE, BOB, START, body, game, kinds, say, start_game, tick

DAY, HOUR = timedelta(days=1), timedelta(hours=1)


def due(server, game_id: int = 1) -> datetime | None:
    return game(server, game_id).clock_due_at


def expected(server, game_id: int = 1) -> datetime | None:
    with Session(server.engine) as session:
        return clock.next_event(session, session.get(Game, game_id), server.service.settings.reminders)


@contextmanager
def statements(engine) -> Iterator[list[tuple[str, object]]]:
    """Every SQL statement the engine sends while the block runs, with its parameters."""
    seen: list[tuple[str, object]] = []

    def record(_conn, _cursor, statement, parameters, _context, _many) -> None:  # noqa: ANN001
        seen.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def writes(seen: list[tuple[str, object]]) -> list[str]:
    return [s for s, _ in seen if s.lstrip().split()[0].upper() in ("INSERT", "UPDATE", "DELETE")]


def games_between(server, count: int, started: datetime, days: int = 7) -> list[int]:
    """`count` games made straight through `pbem.games.store` (the first mover on move since
    `started`), each rescheduled as the commands do."""
    ids = []
    with transaction(server.engine) as session:
        for n in range(count):
            a = players.get_or_register(session, f"a{n}@example.org", started)
            b = players.get_or_register(session, f"b{n}@example.org", started)
            challenge = Challenge(kind="ataxx", challenger_id=a.id, opponent_id=b.id, created_at=started, days=days)
            session.add(challenge)
            session.flush()
            g = G.start(session, challenge, b, a, started)
            clock.reschedule(session, g, server.service.settings.reminders)
            ids.append(g.id)
    return ids


# --- the stored event follows every change of the clock --------------------------------------------


def test_the_next_event_is_stored_at_the_start_and_after_each_move(clocked) -> None:
    with freeze_time(START - HOUR):
        say(clocked, ALICE, f"challenge capturego {BOB} size=9 colour=first")
        say(clocked, ALICE, "confirm")
        say(clocked, BOB, "accept 1")
    assert due(clocked) == START - HOUR + 5 * DAY  # Alice on move: her 48-hour reminder point
    with freeze_time(START):
        say(clocked, ALICE, "move 1 e5")
    assert due(clocked) == START + 5 * DAY  # Bob's 48-hour point of his 7 days
    with freeze_time(START + DAY):
        say(clocked, BOB, "pass 1")
    assert due(clocked) == START + 6 * DAY == expected(clocked)
    with freeze_time(START + 2 * DAY):
        say(clocked, ALICE, "resign 1")
    assert game(clocked).status == "finished" and due(clocked) is None


def test_a_turn_shorter_than_the_reminders_is_due_at_its_deadline(clocked) -> None:
    start_game(clocked, "days=1")  # 48 and 24 hours before the deadline are not inside the turn
    assert due(clocked) == START + DAY
    assert tick(clocked, START + timedelta(minutes=1)) == timekeeper.Round(0, 0)
    assert tick(clocked, START + DAY + timedelta(seconds=1)) == timekeeper.Round(0, 1)
    assert due(clocked) is None


def test_vacations_move_the_next_event_of_the_games_of_the_player_on_vacation(clocked) -> None:
    start_game(clocked)  # Bob on move: deadline 8 June 09:00, first reminder 6 June 09:00
    with freeze_time(START + DAY):
        say(clocked, BOB, "vacation 5")
    assert due(clocked) == START + 10 * DAY == expected(clocked)  # the deadline moved by 5 days
    with freeze_time(START + 3 * DAY + HOUR):
        say(clocked, BOB, "back")
    assert due(clocked) == START + 7 * DAY + HOUR == expected(clocked)  # paused 2 days and 1 hour
    with freeze_time(START + 4 * DAY):
        say(clocked, ALICE, "vacation 3")  # the player not on move: Bob's clock runs on
    assert due(clocked) == START + 7 * DAY + HOUR


def test_a_new_zone_moves_the_next_event_when_weekends_are_off(clocked) -> None:
    start_game(clocked, "days=5 weekends=off")  # Monday 09:00 UTC: five working days end next Monday
    assert due(clocked) == START + 5 * DAY  # 48 hours before Monday 09:00 with the weekend off: Thursday
    with freeze_time(START + HOUR):  # 09:00 UTC on Monday is still Sunday in Honolulu: his clock ran from 10:00
        say(clocked, BOB, "timezone Pacific/Honolulu")
    with Session(clocked.engine) as session:  # and five days end as his Friday does, before the weekend
        assert clock.game_deadline(session, game(clocked)) == START + 5 * DAY + HOUR
    assert due(clocked) == START + 3 * DAY + HOUR == expected(clocked)


def test_an_extension_and_a_reminder_move_the_next_event(clocked) -> None:
    start_game(clocked)
    assert tick(clocked, START + 5 * DAY + timedelta(minutes=1)) == timekeeper.Round(1, 0)
    assert due(clocked) == START + 6 * DAY  # the 48-hour reminder is sent: the 24-hour one is next
    with freeze_time(START + 5 * DAY + HOUR), transaction(clocked.engine) as session:
        timekeeper.extend(session, clocked.service.settings, clocked.service.templates, session.get(Game, 1), 2, "")
    assert due(clocked) == START + 8 * DAY == expected(clocked)  # the 24-hour point of the new deadline
    assert tick(clocked, START + 8 * DAY + HOUR) == timekeeper.Round(1, 0)
    assert due(clocked) == START + 9 * DAY  # every reminder sent: the deadline is next
    assert tick(clocked, START + 9 * DAY + timedelta(seconds=1)) == timekeeper.Round(0, 1)
    assert due(clocked) is None
    assert kinds(clocked, BOB).count("reminder") == 2


def test_the_operator_undo_adjudicate_and_cancel_reschedule(clocked, monkeypatch) -> None:
    monkeypatch.setenv("PBEM_HOME", str(clocked.service.settings.home))
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    start_game(clocked)
    with freeze_time(START + DAY):
        say(clocked, BOB, "move 1 d4")
    assert due(clocked) == START + 6 * DAY  # Alice on move since day 1
    with freeze_time(START + 2 * DAY):  # taken back: Bob on move again, on the turn started on day 1
        result = CliRunner().invoke(main, ["admin", "undo", "1", "--reason", "typo"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert game(clocked).turn == 1
    assert due(clocked) == expected(clocked) == START + 6 * DAY
    with freeze_time(START + 2 * DAY):
        result = CliRunner().invoke(main, ["admin", "cancel", "1", "--reason", "test"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert due(clocked) is None


# --- the round ----------------------------------------------------------------------------------------


def test_a_round_with_nothing_due_is_one_query_however_many_games(clocked) -> None:
    games_between(clocked, 3, START)
    with statements(clocked.engine) as few:
        assert tick(clocked, START + DAY) == timekeeper.Round(0, 0)
    games_between(clocked, 60, START)
    with statements(clocked.engine) as many:
        assert tick(clocked, START + DAY) == timekeeper.Round(0, 0)
    assert len(many) == len(few) <= 2  # BEGIN (SQLite) and the one SELECT
    assert writes(many) == []
    assert sum("FROM game" in s for s, _ in many) == 1


def test_a_round_writes_only_the_games_due(clocked) -> None:
    late = games_between(clocked, 2, START - 6 * DAY)  # 24 hours left at START: a reminder each
    on_time = games_between(clocked, 40, START)
    with statements(clocked.engine) as seen:
        assert tick(clocked, START + timedelta(minutes=1)) == timekeeper.Round(2, 0)
    updated = {params[-1] for s, params in seen if s.startswith("UPDATE game ")}
    assert updated == set(late)
    with Session(clocked.engine) as session:
        assert {r.game_id for r in session.exec(select(Reminder))} == set(late)
        rows = {g.id: g.clock_due_at for g in session.exec(select(Game))}
    assert all(rows[i] == START + DAY for i in late)  # their deadline is next
    assert all(rows[i] == START + 5 * DAY for i in on_time)
    with statements(clocked.engine) as again:
        assert tick(clocked, START + 2 * timedelta(minutes=1)) == timekeeper.Round(0, 0)
    assert writes(again) == []


def test_reminders_and_forfeits_happen_once_though_a_round_repeats_or_comes_late(clocked) -> None:
    reminded = games_between(clocked, 3, START - 5 * DAY - HOUR)  # past the 48-hour point
    lost = games_between(clocked, 2, START - 8 * DAY)  # past the deadline
    for _ in range(3):
        tick(clocked, START)
    with Session(clocked.engine) as session:
        reminders = session.exec(select(Reminder.game_id, Reminder.hours)).all()
        overs = session.exec(select(Outbox.game_id).where(Outbox.template == "game_over")).all()
        assert sorted(reminders) == sorted((g, 48.0) for g in reminded)
        assert sorted(overs) == sorted(g for g in lost for _ in (0, 1))  # both players, once
        assert {session.get(Game, g).status for g in lost} == {"finished"}


def test_a_game_due_on_a_stale_event_is_moved_on_without_a_mail(clocked) -> None:
    start_game(clocked)
    assert tick(clocked, START + 5 * DAY + HOUR).reminders == 1
    with transaction(clocked.engine) as session:  # as if an older next event were stored
        session.get(Game, 1).clock_due_at = START + 5 * DAY
    mails = clocked.count()
    assert tick(clocked, START + 5 * DAY + 2 * HOUR) == timekeeper.Round(0, 0)
    assert clocked.count() == mails
    assert due(clocked) == START + 6 * DAY  # the reminder already sent is not due again
    with statements(clocked.engine) as seen:
        assert tick(clocked, START + 5 * DAY + 3 * HOUR) == timekeeper.Round(0, 0)
    assert writes(seen) == []


def test_a_game_handled_by_another_round_meanwhile_is_left_alone(clocked) -> None:
    start_game(clocked)
    at = START + 5 * DAY + HOUR
    stale = timekeeper._due(clocked.engine, at)  # what a second daemon read, just before the first wrote
    assert stale == [1]
    assert tick(clocked, at).reminders == 1
    mails = clocked.count()
    with freeze_time(at), statements(clocked.engine) as seen, transaction(clocked.engine) as session:
        s = clocked.service
        assert timekeeper._handle(session, s.settings, s.templates, 1, at) is None
    assert clocked.count() == mails
    assert [s.split()[0] for s, _ in seen] == ["BEGIN", "SELECT"]  # the game, locked: seen to be handled
    assert kinds(clocked, BOB).count("reminder") == 1


def test_two_rounds_at_once_remind_and_end_each_game_once(clocked_anywhere) -> None:
    server = clocked_anywhere
    reminded = games_between(server, 6, START - 5 * DAY - HOUR)
    lost = games_between(server, 4, START - 8 * DAY)
    rounds: list[timekeeper.Round] = []
    barrier = threading.Barrier(2)

    def daemon() -> None:
        barrier.wait()
        rounds.append(timekeeper.tick(server.engine, server.service.settings, server.service.templates))

    with freeze_time(START):
        threads = [threading.Thread(target=daemon) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sum(r.reminders for r in rounds) == len(reminded) and sum(r.forfeits for r in rounds) == len(lost)
    with Session(server.engine) as session:
        assert sorted(session.exec(select(Reminder.game_id))) == sorted(reminded)
        mails = session.exec(select(Outbox.template, Outbox.game_id)).all()
    assert sorted(g for t, g in mails if t == "reminder") == sorted(reminded)
    assert sorted(g for t, g in mails if t == "game_over") == sorted(g for g in lost for _ in (0, 1))


def test_a_game_whose_check_fails_waits_and_the_others_go_on(clocked, monkeypatch) -> None:
    ids = games_between(clocked, 3, START - 6 * DAY)
    real = timekeeper._check

    def check(session, settings, templates, game, at, *rest):  # noqa: ANN001, ANN002, ANN202
        if game.id == ids[0]:
            raise RuntimeError("a broken game")
        return real(session, settings, templates, game, at, *rest)

    monkeypatch.setattr(timekeeper, "_check", check)
    assert tick(clocked, START) == timekeeper.Round(2, 0)
    interval = timedelta(seconds=clocked.service.settings.clock_interval)
    assert due(clocked, ids[0]) == START + interval  # tried again next round, not again in this one
    monkeypatch.setattr(timekeeper, "_check", real)
    assert tick(clocked, START + interval) == timekeeper.Round(1, 0)


def test_a_round_goes_on_past_one_batch(clocked, monkeypatch) -> None:
    monkeypatch.setattr(timekeeper, "BATCH", 4)
    games_between(clocked, 10, START - 6 * DAY)
    assert tick(clocked, START) == timekeeper.Round(10, 0)
    assert tick(clocked, START) == timekeeper.Round(0, 0)


def test_a_game_made_without_rescheduling_is_due_at_once(clocked) -> None:
    """`games.start` and `games.play` leave the game due; a caller that does not reschedule
    it (a script, a test) only costs the next round one look at it."""
    with transaction(clocked.engine) as session:
        a = players.get_or_register(session, ALICE, START)
        b = players.get_or_register(session, BOB, START)
        challenge = Challenge(kind="ataxx", challenger_id=a.id, opponent_id=b.id, created_at=START)
        session.add(challenge)
        session.flush()
        game_id = G.start(session, challenge, b, a, START).id
    assert due(clocked, game_id) == START
    assert tick(clocked, START + HOUR) == timekeeper.Round(0, 0)
    assert due(clocked, game_id) == START + 5 * DAY == expected(clocked, game_id)


# --- the upgrade ---------------------------------------------------------------------------------------


def test_the_upgrade_marks_active_games_due_and_the_first_round_schedules_them(clocked, tmp_path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    alembic = Config()
    alembic.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        alembic.attributes["connection"] = conn
        command.upgrade(alembic, "0009")
    rules = engine_rules("ataxx")
    state = json.dumps(rules.dump(rules.start()))
    with engine.begin() as conn:
        for n in (1, 2):
            conn.execute(text("INSERT INTO player (id, address, name, secret, created_at, banned, timezone, version) "
                              "VALUES (:n, :a, :a, 's', '2026-01-01 00:00:00.000000', 0, 'UTC', 0)"),
                         {"n": n, "a": f"p{n}@example.org"})
        rows = [(1, "active", START - 5 * DAY - HOUR), (2, "active", START), (3, "finished", START - 30 * DAY)]
        for game_id, status, started in rows:
            conn.execute(text(
                "INSERT INTO game (id, kind, options, player0_id, player1_id, state, status, turn, ply, version, "
                "created_at, updated_at, days, weekends_off, turn_started_at, clock_credit) VALUES "
                "(:id, 'ataxx', '{}', 1, 2, :state, :status, 0, 0, 0, :at, :at, 7, 0, :at, 0)"),
                {"id": game_id, "state": state, "status": status, "at": started.strftime("%Y-%m-%d %H:%M:%S.%f")})
    migrate(engine)
    with Session(engine) as session:
        before = {g.id: g.clock_due_at for g in session.exec(select(Game))}
    assert before == {1: START - 5 * DAY - HOUR, 2: START, 3: None}
    settings = clocked.service.settings
    with freeze_time(START + HOUR):
        assert timekeeper.tick(engine, settings, clocked.service.templates) == timekeeper.Round(1, 0)
    with Session(engine) as session:
        after = {g.id: g.clock_due_at for g in session.exec(select(Game))}
    assert after == {1: START - HOUR + timedelta(days=1) , 2: START + 5 * DAY, 3: None}
    with freeze_time(START + 2 * HOUR), statements(engine) as seen:
        assert timekeeper.tick(engine, settings, clocked.service.templates) == timekeeper.Round(0, 0)
    assert len(seen) <= 2 and writes(seen) == []
    engine.dispose()


def test_the_clock_column_goes_with_a_downgrade(tmp_path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(engine)
    alembic = Config()
    alembic.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        alembic.attributes["connection"] = conn
        command.downgrade(alembic, "0009")
        columns = [row[1] for row in conn.execute(text("PRAGMA table_info(game)"))]
        indexes = [row[1] for row in conn.execute(text("PRAGMA index_list(game)"))]
    assert "clock_due_at" not in columns and "ix_game_status_clock_due_at" not in indexes
    engine.dispose()


def test_the_round_reads_due_games_through_the_index(clocked) -> None:
    at = datetime(2026, 6, 1, tzinfo=UTC)
    with clocked.engine.connect() as conn:
        query = timekeeper._due_query(at)
        compiled = query.compile(conn.engine, compile_kwargs={"literal_binds": True})
        plan = " ".join(str(row[-1]) for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}"))
    assert "ix_game_status_clock_due_at" in plan and "TEMP B-TREE" not in plan, plan


def test_a_vacation_undone_with_its_savepoint_leaves_no_trace_in_the_deadline(clocked) -> None:
    """A trial of an unproven mail's `vacation` is rolled back; the deadlines read after it
    in the same session must not see it."""
    start_game(clocked)
    with freeze_time(START + DAY), transaction(clocked.engine) as session:
        g = session.get(Game, 1)
        bob = players.get_or_register(session, BOB, START)
        before = clock.game_deadline(session, g)
        savepoint = session.begin_nested()
        vacations.start_vacation(session, bob, 5, START + DAY, 30)
        assert clock.game_deadline(session, g) == before + 5 * DAY
        savepoint.rollback()
        assert clock.game_deadline(session, g) == before
        assert clock.next_event(session, g, (48.0,)) == before - 48 * HOUR


def test_a_turn_taken_back_is_reminded_again(clocked, monkeypatch) -> None:
    monkeypatch.setenv("PBEM_HOME", str(clocked.service.settings.home))
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    start_game(clocked)  # Bob on move from START, 7 days
    assert tick(clocked, START + 5 * DAY + timedelta(minutes=1)) == timekeeper.Round(1, 0)
    with freeze_time(START + 5 * DAY + timedelta(minutes=2)):
        say(clocked, BOB, "move 1 d4")
    with freeze_time(START + 5 * DAY + timedelta(minutes=3)):
        result = CliRunner().invoke(main, ["admin", "undo", "1", "--reason", "typo"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert game(clocked).turn == 1  # Bob on move again, on a turn that starts anew
    started = game(clocked).turn_started_at.replace(tzinfo=UTC)
    assert started > START + 5 * DAY
    with Session(clocked.engine) as session:
        assert session.exec(select(Reminder).where(Reminder.ply >= game(clocked).ply)).all() == []
    assert tick(clocked, started + 5 * DAY + timedelta(minutes=1)) == timekeeper.Round(1, 0)
    assert kinds(clocked, BOB).count("reminder") == 2


def test_a_round_reads_the_last_moves_of_its_games_at_once_and_the_mails_show_them(clocked) -> None:
    start_game(clocked)  # Alice played e5; Bob is on move and runs out of time
    with statements(clocked.engine) as seen:
        assert tick(clocked, START + timedelta(days=7, seconds=1)) == timekeeper.Round(0, 1)
    for address in (ALICE, BOB):
        assert "The last move was e5 by alice." in body(clocked.last(address))
    newest = [s for s, _ in seen if "FROM move" in s and "ORDER BY move.ply DESC" in s]
    assert newest == []  # the batch's one join served the game's mails


def test_a_move_read_ahead_is_not_shown_once_the_game_has_changed(clocked) -> None:
    start_game(clocked)
    ahead = timekeeper._newest_moves(clocked.engine, [1])
    assert ahead[1][1].notation == "e5"
    with freeze_time(START + timedelta(hours=1)):
        say(clocked, BOB, "move 1 d4")  # a newer version: what was read ahead is stale
    g = game(clocked)
    with freeze_time(START + timedelta(days=7, hours=2)), transaction(clocked.engine) as session:
        assert timekeeper._handle(session, clocked.service.settings, clocked.service.templates, 1,
                                  START + timedelta(days=7, hours=2), ahead[1]) == "forfeit"
        assert session.info.get("pbem.play.moves", {}).get(1) is not ahead[1][1]
    assert g.ply == 2
    for address in (ALICE, BOB):
        assert "The last move was d4 by bob." in body(clocked.last(address))


def test_a_round_reads_the_clocks_of_its_games_at_once(clocked) -> None:
    start_game(clocked)  # Bob on move: deadline START + 7 days
    with freeze_time(START + DAY):
        say(clocked, BOB, "vacation 2")
    with freeze_time(START + 2 * DAY):
        say(clocked, BOB, "back")  # paused a day: the deadline is START + 8 days
    with statements(clocked.engine) as seen:
        assert tick(clocked, START + 6 * DAY + HOUR) == timekeeper.Round(1, 0)  # 48 hours before it
    read = [s for s, _ in seen if "FROM vacation" in s or "FROM reminder" in s]
    assert len(read) == 2 and all(" IN (" in s for s in read)  # once each for the batch, not per game
    assert tick(clocked, START + 7 * DAY + HOUR) == timekeeper.Round(1, 0)  # 24 hours before: the 48 is sent
    assert tick(clocked, START + 8 * DAY - HOUR) == timekeeper.Round(0, 0)
    assert tick(clocked, START + 8 * DAY + HOUR) == timekeeper.Round(0, 1)
    assert kinds(clocked, BOB).count("reminder") == 2


def test_a_clock_read_ahead_is_not_used_once_the_game_has_changed(clocked) -> None:
    start_game(clocked)  # Bob on move: deadline START + 7 days
    with Session(clocked.engine) as session:
        ahead = timekeeper._clocks_ahead(session, [1])
    assert ahead[1].holidays == [] and ahead[1].sent == []
    with freeze_time(START + DAY):
        say(clocked, BOB, "vacation 5")  # the deadline moves on by 5 days: what was read ahead is stale
    at = START + 10 * DAY + HOUR  # past the old deadline, 48 hours before the new one
    with freeze_time(at), transaction(clocked.engine) as session:
        assert timekeeper._handle(session, clocked.service.settings, clocked.service.templates, 1, at,
                                  None, False, ahead[1]) == "reminder"
    assert game(clocked).status == "active"
