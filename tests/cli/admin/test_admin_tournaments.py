"""`pbem admin tournament ...`: create, start, show, withdraw, adjourn, pair, cancel, each audited and mailed."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session, select

from pbem.core.db import transaction
from pbem.core.models import AdminAction, Entry, Game, Outbox, Player, Tournament, TournamentGame
from pbem.core.wallclock import now
from pbem.games import players
from pbem.runners import clock as timekeeper
from pbem.tournaments import tournament as T
from tests.cli.admin.conftest import NOW, fail, run, run_json
from tests.mailer import parse, text

PEOPLE = ["ann@example.org", "ben@example.org", "cat@example.org"]


def _signed_up(db) -> int:
    made = run_json("tournament", "create", "Autumn Open", "--format", "roundrobin", "--game", "ataxx",
                    "--days", "3")
    with transaction(db.engine) as session:
        tournament = T.get(session, made["id"])
        for address in PEOPLE:
            T.join(session, tournament, players.get_or_register(session, address, NOW), NOW)
    return made["id"]


def _outbox(db, address: str) -> list[Outbox]:
    with Session(db.engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.recipient == address).order_by(Outbox.id)))


def _read(row: Outbox) -> tuple[str, str]:
    """The subject and the body of a queued mail, the body's lines joined as one."""
    mail = parse(row.message)
    return mail["Subject"], " ".join(text(mail).split())


def test_create_start_show_and_a_withdrawal(db) -> None:
    tid = _signed_up(db)
    assert "started: round 1 paired" in run("tournament", "start", str(tid))
    assert "is open" not in fail("tournament", "start", str(tid))  # refused: already running
    with Session(db.engine) as session:
        boards = session.exec(select(TournamentGame).where(TournamentGame.tournament_id == tid)).all()
        assert len(boards) == 2 and sum(b.game_id is None for b in boards) == 1  # three players: a bye
        game = session.get(Game, next(b.game_id for b in boards if b.game_id))
        first = game.player0_id
    playing = [a for a in PEOPLE if _outbox(db, a)]
    assert len(playing) == 2 and all(_outbox(db, a)[-1].template == "tournament_game" for a in playing)

    shown = run("tournament", "show", str(tid))
    assert "Autumn Open: roundrobin ataxx, running, round 1/3, 3 players" in shown
    assert "sonneborn-berger" in shown and "crosstable:" in shown and "in progress" in shown
    assert "still has games in progress" in fail("tournament", "pair", str(tid))

    with Session(db.engine) as session:
        quitter = next(p for p in session.exec(select(Entry)) if p.player_id == first)
        address = session.get(Player, quitter.player_id).address
    assert "withdrawn" in run("tournament", "withdraw", str(tid), address, "--reason", "moved abroad")
    assert db.get(game.id).status == "finished" and db.get(game.id).winner == 1
    adjudicated, told = _outbox(db, address)[-2:]
    assert (adjudicated.template, adjudicated.game_id) == ("adjudicated", game.id)
    assert told.template == "tournament_withdrawn" and told.game_id is None
    subject, body = _read(told)
    assert "Tournament Autumn Open: you are withdrawn" in subject
    assert f"The operator has withdrawn you from the tournament Autumn Open (#{tid}): moved abroad." in body
    assert f"Your game #{game.id} of this round goes to your opponent" in body
    assert "Your 1 remaining game is scored as a loss by forfeit." in body  # round 2; round 3 is their bye
    assert f'To see it, write "tournament {tid}".' in body
    with Session(db.engine) as session:
        quitter_name = session.get(Player, first).name
        opponent = session.get(Player, game.player1_id).address
    assert _outbox(db, opponent)[-1].template == "adjudicated"  # the opponent hears of the game alone
    assert "forfeit" not in _read(_outbox(db, opponent)[-1])[1]

    # round 2 is the withdrawn player's forfeit and a bye, with no game to play: round 3 follows at once
    before = {a: len(_outbox(db, a)) for a in PEOPLE}
    assert "round 3 paired" in run("tournament", "pair", str(tid))
    new = {a: [row.template for row in _outbox(db, a)[before[a]:]] for a in PEOPLE}
    with Session(db.engine) as session:
        board = session.exec(select(TournamentGame).where(TournamentGame.round == 2,
                                                          TournamentGame.forfeit)).one()
        winner = session.get(Player, board.second_id if board.first_id == first else board.first_id).address
    (rested,) = (a for a in PEOPLE if a not in (address, winner))  # round 2's bye: no forfeit, no such mail
    assert new == {address: [], winner: ["tournament_forfeit", "tournament_game"], rested: ["tournament_game"]}
    subject, body = _read(_outbox(db, winner)[before[winner]])
    assert "Tournament Autumn Open: round 2, a win by forfeit" in subject
    assert (f"Your game against {quitter_name} in round 2 of the tournament Autumn Open (#{tid}) is scored"
            f" as a win by forfeit ({quitter_name} withdrew).") in body
    assert "You have no game to play in this round." in body
    data = run_json("tournament", "show", str(tid))
    assert data["round"] == 3 and [b["game"] is None for b in data["current"]] == [False, True]
    with Session(db.engine) as session:
        second = session.exec(select(TournamentGame).where(TournamentGame.round == 2)).all()
        assert [(b.second_id is not None, b.forfeit) for b in second] == [(True, True), (False, False)]
    withdrawn = [r for r in data["table"] if r["withdrawn"]]
    assert [r["address"] for r in withdrawn] == [address] and withdrawn[0]["reason"] == "moved abroad"
    with Session(db.engine) as session:
        actions = [a.action for a in session.exec(select(AdminAction).order_by(AdminAction.id))]
    assert actions == ["tournament.create", "tournament.start", "tournament.withdraw", "tournament.pair"]


def test_adjourn_stops_the_clocks_and_holds_the_pairing_until_resumed(db) -> None:
    tid = _signed_up(db)
    run("tournament", "start", str(tid))
    assert "adjourned" in run("tournament", "adjourn", str(tid), "--reason", "server move")
    with Session(db.engine) as session:
        board = session.exec(select(TournamentGame).where(TournamentGame.game_id.is_not(None))).first()
        assert session.get(Game, board.game_id).clock_due_at is None
    assert "adjourned" in fail("tournament", "pair", str(tid))
    with transaction(db.engine) as session:  # a turn long overdue, and due on the clock: it stands still
        game = session.get(Game, board.game_id)
        game.turn_started_at = now() - timedelta(days=30)
        game.clock_due_at = now()
        session.get(Tournament, tid).adjourned_at = now() - timedelta(days=2)
    assert timekeeper.tick(db.engine, db.settings).forfeits == 0
    assert db.get(board.game_id).status == "active" and db.get(board.game_id).clock_due_at is None
    with transaction(db.engine) as session:
        session.get(Game, board.game_id).turn_started_at = now() - timedelta(days=3)
    assert "resumed" in run("tournament", "adjourn", str(tid), "--resume")
    resumed = db.get(board.game_id)
    assert resumed.clock_due_at is not None
    assert abs(resumed.clock_credit - 2 * 86400) < 60  # the two days it stood still are given back


def test_cancel_calls_off_the_games_in_progress(db) -> None:
    tid = _signed_up(db)
    run("tournament", "start", str(tid))
    assert "cancelled" in run("tournament", "cancel", str(tid), "--reason", "too few")
    with Session(db.engine) as session:
        assert {g.status for g in session.exec(select(Game))} == {"cancelled"}
    assert run_json("tournament", "list")[0]["status"] == "cancelled"
    assert "there is no tournament" in fail("tournament", "show", "99").lower() or "99" in fail(
        "tournament", "show", "99")


def test_a_withdrawal_before_the_start_takes_the_name_off_and_says_so(db) -> None:
    tid = _signed_up(db)
    assert "withdrawn" in run("tournament", "withdraw", str(tid), PEOPLE[2], "--reason", "signed up by mistake.")
    with Session(db.engine) as session:
        assert len(session.exec(select(Entry).where(Entry.tournament_id == tid)).all()) == 2
    (told,) = _outbox(db, PEOPLE[2])
    subject, body = _read(told)
    assert told.template == "tournament_withdrawn" and "you are withdrawn" in subject
    assert (f"The operator has taken your name off the tournament Autumn Open (#{tid}) before its start:"
            " signed up by mistake.") in body
    assert "forfeit" not in body and "table" not in body
    assert _outbox(db, PEOPLE[0]) == [] and _outbox(db, PEOPLE[1]) == []
