"""The clock through the service: deadlines in mails, reminders once, forfeits, vacations, restarts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from freezegun import freeze_time
from sqlmodel import Session, select

from pbem.commands.lines import reader
from pbem.core.db import make_engine, transaction
from pbem.core.models import Game, Outbox, Reminder
from pbem.games import clock
from pbem.runners import clock as timekeeper
from pbem.runners.inbound import Service
from tests.mailer import compose, parse, reply_to, text

ALICE, BOB = "alice@example.org", "bob@example.org"
START = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)  # a Monday


def body(mail) -> str:
    return text(mail).replace("\r\n", "\n")  # as written: format=flowed's stuffing taken off


def say(server, sender: str, text: str) -> str:
    """A reply to the sender's latest mail from us (proof that they got it), else a new mail."""
    mails = server.mails(sender)
    return server.send(reply_to(sender, mails[-1], text) if mails else compose(sender, text))


def start_game(server, options: str = "") -> int:
    """Alice challenges Bob to Capture Go and moves first; Bob is on move from START."""
    with freeze_time(START - timedelta(hours=1)):
        say(server, ALICE, f"challenge capturego {BOB} size=9 colour=first {options}")
        say(server, ALICE, "confirm")  # a first challenge waits for proof that Alice gets our mail
        say(server, BOB, "accept 1")
    with freeze_time(START):
        say(server, ALICE, "move 1 e5")
    return 1


def game(server, game_id: int = 1) -> Game:
    with Session(server.engine) as session:
        return session.get(Game, game_id)


def tick(server, at: datetime) -> timekeeper.Round:
    with freeze_time(at):
        return timekeeper.tick(server.engine, server.service.settings, server.service.templates)


def kinds(server, address: str) -> list[str]:
    with Session(server.engine) as session:
        return list(session.exec(select(Outbox.template).where(Outbox.recipient == address).order_by(Outbox.id)))


def test_time_control_is_chosen_at_the_challenge_and_shown_in_board_mails(clocked) -> None:
    start_game(clocked, "days=3")
    g = game(clocked)
    assert (g.days, g.weekends_off, g.turn_started_at) == (3, False, START)
    mail = body(clocked.last(BOB))
    assert "Your deadline: Thu 4 Jun 2026, 09:00 UTC (3 days left)." in mail
    assert "Deadline for bob: Thu 4 Jun 2026, 09:00 UTC" in body(clocked.last(ALICE))
    with freeze_time(START + timedelta(days=1, hours=3)):
        say(clocked, ALICE, "timezone europe/rome")
        assert "Your time zone is now Europe/Rome" in body(clocked.last(ALICE))
        say(clocked, ALICE, "board 1")
        assert "Deadline for bob: Thu 4 Jun 2026, 11:00 Europe/Rome (45 hours left)." in body(clocked.last(ALICE))
        say(clocked, BOB, "move 1 z99")  # an error mail shows the deadline too
        assert "Your deadline: Thu 4 Jun 2026, 09:00 UTC" in body(clocked.last(BOB))
        say(clocked, BOB, "move 1 d4")  # the move starts Alice's clock
    assert game(clocked).turn_started_at == START + timedelta(days=1, hours=3)
    assert "Your deadline: Fri 5 Jun 2026, 14:00 Europe/Rome (3 days left)." in body(clocked.last(ALICE))


def test_bad_time_controls_and_zones_are_refused_clearly(clocked) -> None:
    say(clocked, ALICE, f"challenge ataxx {BOB} days=90")  # refused at once, though not yet proven
    assert "a move may take from 1 to 30 days" in " ".join(body(clocked.last(ALICE)).split())
    say(clocked, ALICE, "timezone Europe/Roma")
    text = " ".join(body(clocked.last(ALICE)).split())
    assert "Did you mean Europe/Rome or" in text
    with Session(clocked.engine) as session:
        assert session.exec(select(Game)).first() is None


def test_reminders_are_sent_once_each_even_across_restarts(clocked) -> None:
    start_game(clocked)  # 7 days: deadline 8 June 09:00
    assert tick(clocked, START + timedelta(days=4)) == timekeeper.Round(0, 0)
    assert tick(clocked, START + timedelta(days=5, minutes=1)) == timekeeper.Round(1, 0)
    for minutes in (2, 30, 600):
        assert tick(clocked, START + timedelta(days=5, minutes=minutes)) == timekeeper.Round(0, 0)
    mail = clocked.last(BOB)
    assert "reminder" in mail["Subject"]
    assert "2 days remain before your deadline, Mon 8 Jun 2026, 09:00 UTC" in " ".join(body(mail).split())
    # a restart: a new engine and service over the same file send nothing again
    restarted = Service(clocked.service.settings, make_engine(clocked.service.settings.db_url))
    with freeze_time(START + timedelta(days=5, hours=1)):
        assert timekeeper.tick(restarted.engine, restarted.settings) == timekeeper.Round(0, 0)
        assert timekeeper.tick(restarted.engine, restarted.settings, restarted.templates) == timekeeper.Round(0, 0)
    assert tick(clocked, START + timedelta(days=6, hours=2)) == timekeeper.Round(1, 0)
    assert tick(clocked, START + timedelta(days=6, hours=3)) == timekeeper.Round(0, 0)
    assert kinds(clocked, BOB).count("reminder") == 2
    assert kinds(clocked, ALICE).count("reminder") == 0
    with Session(clocked.engine) as session:
        assert sorted(r.hours for r in session.exec(select(Reminder))) == [24.0, 48.0]


def test_after_downtime_one_reminder_covers_every_point_passed(clocked) -> None:
    start_game(clocked)
    assert tick(clocked, START + timedelta(days=6, hours=12)) == timekeeper.Round(1, 0)
    assert tick(clocked, START + timedelta(days=6, hours=13)) == timekeeper.Round(0, 0)
    assert kinds(clocked, BOB).count("reminder") == 1


def test_a_one_day_game_gets_no_reminder_at_its_start(clocked) -> None:
    start_game(clocked, "days=1")
    assert tick(clocked, START + timedelta(minutes=1)) == timekeeper.Round(0, 0)
    assert kinds(clocked, BOB).count("reminder") == 0


def test_the_player_on_move_loses_on_time_despite_a_draw_offer(clocked) -> None:
    start_game(clocked)
    with freeze_time(START + timedelta(days=1)):
        say(clocked, BOB, "draw 1")
    assert game(clocked).draw_offer == 1
    assert tick(clocked, START + timedelta(days=7) - timedelta(seconds=1)).forfeits == 0
    assert tick(clocked, START + timedelta(days=7, seconds=1)) == timekeeper.Round(0, 1)
    g = game(clocked)
    assert (g.status, g.winner, g.result, g.reason) == ("finished", 0, "1-0", "bob ran out of time")
    for address in (ALICE, BOB):
        mail = clocked.last(address)
        assert "game over, 1-0" in mail["Subject"]
        assert "Game #1 is over: bob ran out of time." in body(mail)
        assert "deadline" not in body(mail).lower()
    assert tick(clocked, START + timedelta(days=9)) == timekeeper.Round(0, 0)
    assert kinds(clocked, ALICE).count("game_over") == 1 and kinds(clocked, BOB).count("game_over") == 1


def test_vacation_pauses_the_clock_and_back_resumes_it(clocked) -> None:
    start_game(clocked)  # Bob on move, deadline 8 June 09:00
    with freeze_time(START + timedelta(days=1)):
        say(clocked, BOB, "vacation 5")
        reply = " ".join(body(clocked.last(BOB)).split())
        assert "paused for 5 days, until Sat 7 Jun 2026" not in reply  # 7 June 2026 is a Sunday
        assert "paused for 5 days, until Sun 7 Jun 2026, 09:00 UTC" in reply
        assert "25 days left this year" in reply
        told = clocked.last(ALICE)
        assert "bob is on vacation" in told["Subject"]
        assert "Deadline for bob: Sat 13 Jun 2026, 09:00 UTC" in body(told)
        assert "bob is on vacation until Sun 7 Jun 2026, 09:00 UTC; the clock waits" in body(told)
    assert tick(clocked, START + timedelta(days=8)) == timekeeper.Round(0, 0)  # the old deadline is no more
    with freeze_time(START + timedelta(days=3, hours=1)):
        say(clocked, BOB, "back")
        assert "3 vacation days left" not in body(clocked.last(BOB))
        assert "You have 27 vacation days left this year." in body(clocked.last(BOB))
        assert "bob is back" in clocked.last(ALICE)["Subject"]
        say(clocked, BOB, "back")
        assert "You are not on vacation" in body(clocked.last(BOB))
    # paused from day 1 to day 3 + 1 h: the deadline moved by 2 days and 1 hour
    with Session(clocked.engine) as session:
        assert clock.game_deadline(session, game(clocked)) == START + timedelta(days=9, hours=1)
    assert tick(clocked, START + timedelta(days=9)).forfeits == 0
    assert tick(clocked, START + timedelta(days=9, hours=1, seconds=1)).forfeits == 1


def test_a_player_may_move_on_vacation_and_the_opponent_clock_runs(clocked) -> None:
    start_game(clocked)
    with freeze_time(START + timedelta(hours=2)):
        say(clocked, BOB, "vacation 10")
        clocked.answer(BOB, 1, "move 1 d4")
    assert game(clocked).ply == 2
    # Alice is on move now: her clock runs, Bob's vacation does not stop it
    assert tick(clocked, START + timedelta(days=7, hours=2, seconds=1)) == timekeeper.Round(0, 1)
    assert game(clocked).reason == "alice ran out of time"


def test_vacation_allowance_is_per_year_and_cannot_be_exceeded(clocked) -> None:
    start_game(clocked)
    with freeze_time(START):
        say(clocked, BOB, "vacation 31")
        assert "You have 30 vacation days left this year (of 30), so I cannot give you 31." in " ".join(
            body(clocked.last(BOB)).split()
        )
        say(clocked, BOB, "vacation 20")
        say(clocked, BOB, "vacation 2")
        assert "already on vacation" in body(clocked.last(BOB))
    with freeze_time(START + timedelta(days=20, hours=1)):
        say(clocked, BOB, "vacation 11")
        assert "You have 10 vacation days left this year" in " ".join(body(clocked.last(BOB)).split())
        say(clocked, BOB, "vacation 10")
        assert "0 days left this year after this one" in " ".join(body(clocked.last(BOB)).split())
    with freeze_time(datetime(2027, 1, 2, tzinfo=UTC)):
        say(clocked, BOB, "vacation 30")  # a new year, a new allowance
        assert "Enjoy your vacation" in body(clocked.last(BOB))


def test_weekends_off_follow_the_zone_of_the_player_on_move(clocked) -> None:
    with freeze_time(START - timedelta(hours=2)):
        say(clocked, BOB, "timezone America/New_York")
        say(clocked, BOB, "confirm")  # his first mail showed no proof of receipt
    start_game(clocked, "days=5 weekends=off")
    g = game(clocked)
    assert g.weekends_off
    # Monday 05:00 in New York: five working days end next Monday 05:00 there
    with Session(clocked.engine) as session:
        assert clock.game_deadline(session, g) == START + timedelta(days=7)
    assert "Your deadline: Mon 8 Jun 2026, 05:00 America/New_York" in body(clocked.last(BOB))
    assert "The clock stops on Saturdays and Sundays" in body(clocked.last(BOB))
    assert tick(clocked, START + timedelta(days=5, hours=1)).forfeits == 0  # Saturday: no forfeit
    assert tick(clocked, START + timedelta(days=7, seconds=1)).forfeits == 1


def test_admin_extension_moves_the_deadline_and_tells_both(clocked) -> None:
    start_game(clocked)
    with freeze_time(START + timedelta(days=6)), transaction(clocked.engine) as session:
        g = session.get(Game, 1)
        timekeeper.extend(session, clocked.service.settings, clocked.service.templates, g, 2, "mail server outage")
    for address in (ALICE, BOB):
        text = " ".join(body(clocked.last(address)).split())
        assert "gave bob 2 more days for this move in game #1: mail server outage." in text
        assert "The new deadline is Wed 10 Jun 2026, 09:00 UTC" in text
    assert tick(clocked, START + timedelta(days=8, hours=1)).forfeits == 0
    assert tick(clocked, START + timedelta(days=9, seconds=1)).forfeits == 1


def test_every_clock_mail_reads_safely(clocked) -> None:
    start_game(clocked, "weekends=off")
    with freeze_time(START + timedelta(hours=1)):
        say(clocked, BOB, "timezone Asia/Tokyo")
        say(clocked, BOB, "vacation 2")
    with freeze_time(START + timedelta(days=1)):
        say(clocked, BOB, "back")
    with Session(clocked.engine) as session:
        until = clock.game_deadline(session, game(clocked))
    assert tick(clocked, until - timedelta(hours=30)).reminders == 1
    with freeze_time(START + timedelta(days=8)), transaction(clocked.engine) as session:
        timekeeper.extend(session, clocked.service.settings, clocked.service.templates, session.get(Game, 1), 0.5, "")
    assert tick(clocked, START + timedelta(days=30)).forfeits == 1
    with Session(clocked.engine) as session:
        rows = session.exec(select(Outbox)).all()
    seen = {row.template for row in rows}
    assert {"reminder", "vacation", "back", "opponent_away", "opponent_back", "timezone", "extended", "game_over"} <= seen
    for row in rows:
        for line in body(parse(row.message)).splitlines()[1:]:
            assert len(line) <= 72, f"{row.template}: too wide: {line!r}"
            assert reader.classify(line.strip()) is None, f"{row.template}: {line!r} reads as a command"
