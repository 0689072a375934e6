"""Bounces acted on (issue 27): hard ones counted per address, the address suppressed at
`max_hard_bounces` (no mail, clocks paused, the opponent told), lifted by its next proven mail."""

from __future__ import annotations

from datetime import timedelta

from click.testing import CliRunner
from sqlmodel import Session, select

from pbem.cli.main import main
from pbem.commands.lines import reader
from pbem.core.models import Bounce, Game, Player, Vacation
from pbem.core.wallclock import now
from pbem.mail.message.inbound import parse_message
from tests.mailer import GAME, compose, dsn, reply_to, text

ALICE, BOB = "alice@example.org", "bob@example.org"


def _start(server) -> None:
    """Alice challenges Bob, Bob accepts, Alice moves: game #1, Bob to move."""
    server.send(compose(ALICE, "challenge ataxx bob@example.org colour=first"))
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))
    server.answer(ALICE, 1, "f2")


def _bob(server) -> Player:
    with Session(server.engine) as session:
        return session.exec(select(Player).where(Player.address == BOB)).one()


def _reads_safely(mail) -> None:
    for line in text(mail).splitlines()[1:]:
        assert len(line) <= 72 and reader.classify(line.strip()) is None, line


def test_the_report_is_read_once_hard_or_soft() -> None:
    hard = parse_message(dsn(BOB, "<pbem.0123456789abcdef01234567@games.test>", "5.1.1")).bounce
    soft = parse_message(dsn(BOB, "<pbem.0123456789abcdef01234567@games.test>", "4.2.2")).bounce
    assert hard.addresses == (BOB,) and hard.hard and hard.status == "5.1.1"
    assert hard.reason == "550 5.1.1 mailbox unavailable"
    assert soft.addresses == (BOB,) and not soft.hard and soft.status == "4.2.2"


def test_hard_bounces_suppress_the_address_until_it_writes_again(server, tmp_path) -> None:
    _start(server)
    ours = [m["Message-ID"] for m in server.mails(BOB)]
    assert len(ours) >= 3
    assert server.send(dsn(BOB, ours[0])) == "robot"
    assert server.send(dsn(BOB, ours[0])) == "robot"  # the same mail counts once
    assert server.send(dsn(BOB, ours[1], "4.2.2")) == "robot"  # a full mailbox may empty: not counted
    assert server.send(dsn(BOB, ours[1])) == "robot"
    assert _bob(server).hard_bounces == 2 and _bob(server).bounced_at is None
    alice_before = len(server.mails(ALICE))
    assert server.send(dsn(BOB, ours[2])) == "robot"

    bob = _bob(server)
    assert bob.hard_bounces == 3 and bob.bounced_at is not None
    told = server.mails(ALICE)[alice_before:]
    assert len(told) == 1 and "cannot be reached" in told[0]["Subject"]
    assert "Their clock in game #1 is paused" in text(told[0])
    _reads_safely(told[0])
    assert "Deadline for" not in text(told[0])  # no date ten years ahead: it waits for Bob's mail
    assert "their clock waits until they write to us again" in " ".join(text(told[0]).split())
    with Session(server.engine) as session:
        (pause,) = session.exec(select(Vacation).where(Vacation.player_id == bob.id)).all()
        assert pause.bounced and pause.ends_at > now() + timedelta(days=365)
        game = session.get(Game, 1)
        assert game.clock_due_at > now() + timedelta(days=365)  # Bob's clock stands still
        assert len(session.exec(select(Bounce).where(Bounce.hard)).all()) == 4

    # nothing more goes to Bob: not Alice's `say`, not the admin's resend
    bob_before = len(server.mails(BOB))
    server.answer(ALICE, 1, "say are you there?")
    assert len(server.mails(BOB)) == bob_before
    server.say(ALICE, f"challenge ataxx {BOB}")  # nor an invitation: Alice is told why
    assert "keep coming back undelivered, so I send them no challenge" in " ".join(text(server.last(ALICE)).split())
    assert len(server.mails(BOB)) == bob_before

    config = tmp_path / "pbem.toml"
    config.write_text(f'[server]\naddress = "{GAME}"\nhome = "{tmp_path.as_posix()}"\n', encoding="utf-8")
    out = CliRunner().invoke(main, ["-c", str(config), "admin", "bounces"]).output
    assert f"suppressed {BOB}" in out and "after 3 hard bounces: 550 5.1.1 mailbox unavailable" in out

    # Bob writes (a reply to an old mail of ours proves the address): the suppression is lifted
    alice_before = len(server.mails(ALICE))
    assert server.send(reply_to(BOB, server.mails(BOB)[0], "games")) == "processed"
    bob = _bob(server)
    assert bob.bounced_at is None and bob.hard_bounces == 0
    assert len(server.mails(BOB)) == bob_before + 1  # his answer
    told = server.mails(ALICE)[alice_before:]
    assert len(told) == 1 and "can be reached again" in told[0]["Subject"]
    _reads_safely(told[0])
    assert "Deadline for" in text(told[0]) and "come back undelivered" not in text(told[0])
    with Session(server.engine) as session:
        (pause,) = session.exec(select(Vacation).where(Vacation.player_id == bob.id)).all()
        assert pause.ends_at <= now()
        assert session.get(Game, 1).clock_due_at < now() + timedelta(days=8)


def test_a_bounce_that_quotes_no_mail_of_ours_counts_nothing(server) -> None:
    _start(server)
    for n in range(4):  # anyone can write a report naming Bob's address
        assert server.send(dsn(BOB, f"<forged{n}@elsewhere.example>")) == "robot"
    bob = _bob(server)
    assert bob.hard_bounces == 0 and bob.bounced_at is None
    with Session(server.engine) as session:
        assert {b.player_id for b in session.exec(select(Bounce))} == {bob.id}  # recorded all the same


def test_the_setting_is_shown_by_config_check(tmp_path) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text(f'[server]\nhome = "{tmp_path.as_posix()}"\nmax_hard_bounces = 5\n', encoding="utf-8")
    out = CliRunner().invoke(main, ["config", "check", "-c", str(config)]).output
    assert "max_hard_bounces = 5" in out
    assert "max_hard_bounces = 3" in CliRunner().invoke(main, ["config", "check"]).output  # the default
    config.write_text(f'[server]\nhome = "{tmp_path.as_posix()}"\nmax_hard_bounces = 0\n', encoding="utf-8")
    assert "a whole number from 1 to 100" in CliRunner().invoke(main, ["config", "check", "-c", str(config)]).output
