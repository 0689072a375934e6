"""The daily digest: one mail at the player's local time with every game on their move,
sent once, across a change of daylight saving time; and `notify` itself."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from freezegun import freeze_time
from sqlmodel import Session, select

from pbem.commands.lines import reader
from pbem.core.models import Player, Remark
from pbem.runners import clock as timekeeper
from pbem.runners import digests
from tests.mailer import reply_to, text

ALICE, BOB, CAROL, DAVE = "alice@example.org", "bob@example.org", "carol@example.org", "dave@example.org"
# Europe/Rome leaves CET (UTC+1) for CEST (UTC+2) on Sunday 28 March 2027 at 02:00
FRIDAY = datetime(2027, 3, 26, 20, 0, tzinfo=UTC)
SATURDAY_8 = datetime(2027, 3, 27, 7, 0, tzinfo=UTC)  # 08:00 CET
SUNDAY_8 = datetime(2027, 3, 28, 6, 0, tzinfo=UTC)  # 08:00 CEST
MONDAY_8 = datetime(2027, 3, 29, 6, 0, tzinfo=UTC)


def _round(server) -> int:
    return digests.send_due(server.engine, server.service.settings, server.service.templates)


def _player(server, address: str) -> Player:
    with Session(server.engine) as session:
        return session.exec(select(Player).where(Player.address == address)).one()


def _digests(server, address: str) -> list:
    return [m for m in server.mails(address) if m["Subject"].startswith("[pbem] Your digest")]


def _utc(at: datetime | None) -> datetime | None:
    return at.replace(tzinfo=UTC) if at is not None and at.tzinfo is None else at


def _reads_safely(mail) -> None:
    """As tests/letters/test_templates.py checks every mail sent by mail: no line too wide, none
    that reads as a command, an HTML part beside the text."""
    for line in text(mail).splitlines()[1:]:
        assert len(line) <= 72, f"too wide: {line!r}"
        assert reader.classify(line.strip()) is None, f"{line!r} reads as a command"
    html = mail.get_body(preferencelist=("html",)).get_content()
    assert html.count("<table") >= text(mail).count("Your deadline:")  # each board drawn
    assert mail["Reply-To"].startswith("pbem+")


def _three_games(server) -> None:
    """Alice (in Rome) plays x, and so moves first, against Bob, Carol and Dave."""
    server.say(ALICE, "timezone Europe/Rome")
    server.confirm(ALICE)
    for n, opponent in enumerate((BOB, CAROL, DAVE), start=1):
        server.say(ALICE, f"challenge ataxx {opponent} colour=x")
        if n == 1:
            server.confirm(ALICE)  # her first challenge waits for proof of receipt
        server.send(reply_to(opponent, server.last(opponent), f"accept {n}"))


def _answers(mail) -> list[str]:
    """The example lines the digest offers, one per game: `move ID MOVE`."""
    return re.findall(r'"(move \d+ [^"]+)"', " ".join(text(mail).split()))


def test_a_digest_across_three_games_comes_once_a_day_at_eight_in_rome(any_server) -> None:
    server = any_server  # the round locks each due player: on both stores
    with freeze_time(FRIDAY) as clock:
        _three_games(server)
        server.say(ALICE, "notify digest 8:00")
        answer = text(server.last(ALICE))
        assert "one digest a day at 08:00 (Europe/Rome)" in " ".join(answer.split())
        assert _utc(_player(server, ALICE).digest_due_at) == SATURDAY_8

        clock.move_to(SATURDAY_8 - timedelta(minutes=1))
        assert _round(server) == 0
        clock.move_to(SATURDAY_8)
        assert _round(server) == 1
        assert _round(server) == 0  # sent once
        first = _digests(server, ALICE)
        assert len(first) == 1
        assert first[0]["Subject"].startswith("[pbem] Your digest: 3 games wait for your move")
        assert first[0]["Auto-Submitted"] == "auto-generated"  # RFC 3834: it answers no mail of hers
        body = text(first[0])
        for n, name in enumerate(("bob", "carol", "dave"), start=1):
            assert f"Game #{n}, " in body and f"against {name}" in " ".join(body.split())
        assert body.count("Your deadline:") == 3
        assert [line.split()[:2] for line in _answers(first[0])] == [["move", "1"], ["move", "2"], ["move", "3"]]
        _reads_safely(first[0])

        # across the change to summer time the digest stays at 08:00 on the wall clock
        assert _utc(_player(server, ALICE).digest_due_at) == SUNDAY_8
        clock.move_to(SUNDAY_8 - timedelta(minutes=1))
        assert _round(server) == 0
        clock.move_to(SUNDAY_8)
        assert _round(server) == 1
        assert _round(server) == 0
        assert len(_digests(server, ALICE)) == 2
        assert _utc(_player(server, ALICE).digest_due_at) == MONDAY_8


def test_two_games_answered_in_one_reply_and_no_digest_when_nothing_waits(server) -> None:
    with freeze_time(FRIDAY) as clock:
        _three_games(server)
        server.say(ALICE, "notify digest 0800")
        clock.move_to(SATURDAY_8)
        assert _round(server) == 1
        mail = _digests(server, ALICE)[-1]
        lines = _answers(mail)
        server.send(reply_to(ALICE, mail, "\n".join(lines)))  # all three games in one reply
        assert "played" in text(server.last(BOB)) and "played" in text(server.last(DAVE))
        clock.move_to(SUNDAY_8)
        assert _round(server) == 0  # nothing waits: no mail, and the next one is scheduled
        assert len(_digests(server, ALICE)) == 1
        assert _utc(_player(server, ALICE).digest_due_at) == MONDAY_8


def test_no_mail_per_move_in_digest_mode_but_reminders_and_relayed_words(server) -> None:
    with freeze_time(FRIDAY) as clock:
        server.say(ALICE, "timezone America/New_York")
        server.confirm(ALICE)
        server.say(ALICE, "challenge ataxx bob@example.org colour=o days=3")  # Bob moves first
        server.confirm(ALICE)
        server.send(reply_to(BOB, server.last(BOB), "accept 1"))
        server.say(ALICE, "notify digest 07:30")
        before = len(server.mails(ALICE))
        server.send(reply_to(BOB, server.last(BOB), "f1"))
        assert len(server.mails(ALICE)) == before  # no "your move" mail
        with Session(server.engine) as session:  # what `say` stores: relayed in the digest
            session.add(Remark(game_id=1, player_id=_player(server, BOB).id, ply=1, text="Good\nluck!",
                               created_at=FRIDAY + timedelta(minutes=5)))
            session.commit()
        clock.move_to(datetime(2027, 3, 27, 11, 30, tzinfo=UTC))  # 07:30 in New York (EDT)
        assert _round(server) == 1
        body = text(_digests(server, ALICE)[-1])
        assert 'bob: "Good luck!"' in body and "bob played f1" in body
        _reads_safely(_digests(server, ALICE)[-1])
        clock.move_to(datetime(2027, 3, 28, 11, 30, tzinfo=UTC))
        assert _round(server) == 1
        assert "Good luck" not in text(_digests(server, ALICE)[-1])  # said once, in the first
        clock.move_to(FRIDAY + timedelta(days=2, hours=21))  # 24 hours before the deadline
        assert timekeeper.tick(server.engine, server.service.settings, server.service.templates).reminders == 1
        assert "reminder, your move" in server.last(ALICE)["Subject"]


def test_notify_off_stops_the_mails_of_watched_games(server) -> None:
    server.say(ALICE, "challenge ataxx bob@example.org colour=x")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))
    server.say(CAROL, "watch 1")
    server.confirm(CAROL)
    server.say(CAROL, "notify off")
    assert "send you no mail per move" in " ".join(text(server.last(CAROL)).split())
    before = len(server.mails(CAROL))
    server.send(reply_to(ALICE, server.last(ALICE), "f2"))
    assert len(server.mails(CAROL)) == before
    server.send(reply_to(BOB, server.last(BOB), "resign"))
    assert "bob resigned" in text(server.last(CAROL))  # the end still comes
    server.say(CAROL, "notify each")
    assert _player(server, CAROL).watch_mail is True


def test_notify_alone_shows_the_setting_and_a_bad_time_is_refused(server) -> None:
    server.say(ALICE, "notify")
    server.confirm(ALICE)
    assert "a mail after every move" in text(server.last(ALICE))
    server.say(ALICE, "notify digest 25:00")
    assert "time of day" in text(server.last(ALICE))
    assert _player(server, ALICE).notify == "each"
    server.say(ALICE, "notify sometimes")
    assert "Please say how you want my mails" in " ".join(text(server.last(ALICE)).split())


def test_a_new_zone_moves_the_digest_to_its_clock(server) -> None:
    with freeze_time(FRIDAY):
        server.say(ALICE, "notify digest 08:00")
        server.confirm(ALICE)
        assert _utc(_player(server, ALICE).digest_due_at) == datetime(2027, 3, 27, 8, 0, tzinfo=UTC)  # UTC
        server.say(ALICE, "timezone Europe/Rome")
        assert _utc(_player(server, ALICE).digest_due_at) == SATURDAY_8


def test_the_local_time_is_kept_and_a_skipped_or_repeated_one_is_settled() -> None:
    from pbem.letters.digest import next_due, parse_time

    assert [parse_time(t) for t in ("8:00", "08:00", "0800", "800", "8.30", "24:00", "8:60", "soon")] == [
        "08:00", "08:00", "08:00", "08:00", "08:30", None, None, None]
    rome = "Europe/Rome"
    # 02:30 does not exist on 28 March 2027 in Rome: the next valid minute, 03:00 CEST
    assert next_due("02:30", rome, datetime(2027, 3, 27, 12, 0, tzinfo=UTC)) == datetime(2027, 3, 28, 1, 0, tzinfo=UTC)
    # 02:30 comes twice on 31 October 2027: the first, still CEST
    assert next_due("02:30", rome, datetime(2027, 10, 30, 12, 0, tzinfo=UTC)) == datetime(2027, 10, 31, 0, 30, tzinfo=UTC)
    assert next_due("08:00", rome, SATURDAY_8) == SUNDAY_8  # strictly after


def test_a_digest_sent_late_stands_for_that_day(server) -> None:
    with freeze_time(FRIDAY) as clock:
        _three_games(server)
        server.say(ALICE, "notify digest 08:00")
        clock.move_to(SUNDAY_8 - timedelta(hours=1))  # the daemon was down on Saturday at 08:00
        assert _round(server) == 1
        clock.move_to(SUNDAY_8)
        assert _round(server) == 0  # not a second one an hour later
        assert _utc(_player(server, ALICE).digest_due_at) == MONDAY_8


def test_a_round_with_nothing_due_is_one_query_through_the_index(server) -> None:
    from sqlalchemy import event

    from pbem.runners.digests import due_query

    server.say(ALICE, "notify digest 08:00")
    server.confirm(ALICE)  # one player with a digest tomorrow: not due
    statements: list[str] = []

    def seen(_conn, _cursor, statement, *_args) -> None:  # noqa: ANN001
        statements.append(statement)

    event.listen(server.engine, "before_cursor_execute", seen)
    try:
        assert _round(server) == 0
    finally:
        event.remove(server.engine, "before_cursor_execute", seen)
    queries = [s for s in statements if not s.startswith("BEGIN")]  # SQLite's BEGIN IMMEDIATE
    assert len(queries) == 1 and "digest_due_at" in queries[0], queries
    compiled = due_query(datetime.now(UTC)).compile(server.engine, compile_kwargs={"literal_binds": True})
    with server.engine.connect() as conn:
        plan = " ".join(str(row[-1]) for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}"))
    assert "ix_player_digest_due_at" in plan, plan


def test_words_relayed_while_no_game_waits_come_in_a_digest_of_their_own(server) -> None:
    with freeze_time(FRIDAY) as clock:
        _three_games(server)
        server.say(ALICE, "notify digest 08:00")
        server.say(ALICE, "games")  # a reply to her list of games may act on every game it shows
        server.say(ALICE, "move 1 f1\nmove 2 f1\nmove 3 f1")  # no game waits for her now
        with Session(server.engine) as session:
            session.add(Remark(game_id=2, player_id=_player(server, CAROL).id, ply=1, text="Nice opening",
                               created_at=FRIDAY + timedelta(minutes=1)))
            session.commit()
        clock.move_to(SATURDAY_8)
        assert _round(server) == 1
        mail = _digests(server, ALICE)[-1]
        assert mail["Subject"].startswith("[pbem] Your digest: messages from your opponents")
        assert 'carol: "Nice opening"' in text(mail) and "No game waits for your move" in text(mail)
        _reads_safely(mail)
