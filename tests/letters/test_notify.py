"""One notifier: whoever should hear of a game event hears of it, the same way from every path.

Behaviour that changed with it: watchers are told of every ending, not only of moves; every
game-over mail to a player carries the record, the one to the player who made the last move
included; two facts about one game for one player come in one mail."""

from __future__ import annotations

from datetime import timedelta

from freezegun import freeze_time

from pbem.core.wallclock import now
from pbem.runners import clock as timekeeper
from tests.mailer import reply_to, text

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"


def _game(server, kind: str = "ataxx", options: str = "colour=x") -> None:
    server.say(ALICE, f"challenge {kind} bob@example.org {options}")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))
    server.say(CAROL, "watch 1")
    server.confirm(CAROL)  # Carol's first mail: held until she shows she receives ours
    assert "You watch game #1" in text(server.last(CAROL))


def _attachments(mail) -> list[str]:
    return [part.get_filename() for part in mail.iter_attachments()]


def test_watchers_hear_of_a_resignation(server) -> None:
    _game(server)
    server.send(reply_to(BOB, server.last(BOB), "resign"))
    told = server.last(CAROL)
    assert told["Subject"].startswith("[pbem #1] Ataxx:")
    assert "Game #1 is over: bob resigned." in text(told)
    assert "unwatch 1" in text(told)


def test_watchers_hear_of_a_draw_agreed(server) -> None:
    _game(server)
    server.send(reply_to(ALICE, server.last(ALICE), "draw"))
    server.send(reply_to(BOB, server.last(BOB), "draw"))
    assert "Game #1 is over: draw agreed." in text(server.last(CAROL))


def test_watchers_hear_of_a_loss_on_time(server) -> None:
    _game(server, options="colour=x days=1")
    with freeze_time(now() + timedelta(days=2)):
        assert timekeeper.tick(server.engine, server.service.settings, server.service.templates).forfeits == 1
    assert "ran out of time" in text(server.last(CAROL))
    assert _attachments(server.last(ALICE)) and _attachments(server.last(BOB))


def test_the_last_mover_gets_the_record_too(server) -> None:
    _game(server, "capturego", "size=9 target=1 colour=black")
    for player, move in [(ALICE, "e5"), (BOB, "d5"), (ALICE, "c5"), (BOB, "a9"), (ALICE, "d6"), (BOB, "a8")]:
        server.send(reply_to(player, server.last(player), move))
    server.send(reply_to(ALICE, server.last(ALICE), "d4"))  # d5 has no liberty left: the first capture wins
    mover, other = server.last(ALICE), server.last(BOB)
    assert "game over" in mover["Subject"] and "game over" in other["Subject"]
    assert _attachments(mover) == _attachments(other) != []
    assert _attachments(server.last(CAROL)) == []  # records carry the players' names: for them alone


def test_a_move_and_a_draw_offer_reach_the_opponent_in_one_mail(server) -> None:
    _game(server)
    before = len(server.mails(BOB))
    server.send(reply_to(ALICE, server.last(ALICE), "f2\ndraw"))
    mails = server.mails(BOB)
    assert len(mails) == before + 1
    body = text(mails[-1])
    assert "alice played f2" in body
    assert "alice offers you a draw in game #1" in body
