"""`takeback`: asking to take back one's last move, the opponent's answer, and every refusal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from freezegun import freeze_time
from sqlmodel import Session, select

from pbem.core.models import AdminAction, Conditional, Game, Move, Player
from pbem.games import store as G
from tests.mailer import compose, reply_to, text
from tests.players import ALICE, BOB, CAROL, flat, start_game


def _game(server) -> Game:
    with Session(server.engine) as session:
        return session.get(Game, 1)


def _moves(server) -> list[str]:
    with Session(server.engine) as session:
        return [m.notation for m in session.exec(select(Move).order_by(Move.ply))]


def _answer(server, address: str, line: str) -> None:
    """A player answers our newest mail to them (proof of receipt, and the current board)."""
    server.send(reply_to(address, server.last(address), line))


def _opening(server, options: str = "colour=first") -> None:
    """Game #1 of Ataxx: Alice (x) plays f2, so it is Bob's move."""
    start_game(server, "ataxx", options)
    _answer(server, ALICE, "f2")


def test_ask_then_accept_undoes_the_move_and_tells_everyone(server) -> None:
    _opening(server)
    server.say(CAROL, "watch 1")
    server.confirm(CAROL)  # her first mail: held until she confirms it
    before_bob, before_carol = len(server.mails(BOB)), len(server.mails(CAROL))
    _answer(server, ALICE, "takeback")
    assert _game(server).takeback_offer == 0
    asked = server.last(BOB)
    assert "alice asks to take back a move" in asked["Subject"]
    body = flat(asked)
    assert "alice asks to take back their last move, f2, in game #1." in body
    assert 'To let them, reply with "takeback accept"; to say no, reply with "takeback refuse"' in body
    assert "You asked bob to take back your last move, f2, in game #1." in flat(server.last(ALICE))
    assert len(server.mails(CAROL)) == before_carol  # watchers hear of no request
    assert len(server.mails(BOB)) == before_bob + 1

    _answer(server, BOB, "takeback accept")
    game = _game(server)
    assert (game.ply, game.turn, game.takeback_offer) == (0, 0, None)
    assert _moves(server) == []
    start = G.rules_of(game).dump(G.rules_of(game).start())
    assert game.state == start  # the engine's position before f2
    to_alice = server.last(ALICE)
    assert "f2 taken back" in to_alice["Subject"]
    assert "bob let you take back f2 in game #1. It is your move again, alice (x), at move 1." in flat(to_alice)
    assert "Reply with your move" in text(to_alice)
    assert "You let alice take back f2 in game #1." in flat(server.last(BOB))
    assert "alice took back f2 in game #1, as their opponent agreed." in flat(server.last(CAROL))
    with Session(server.engine) as session:
        entry = session.exec(select(AdminAction)).one()
        alice = session.exec(select(Player).where(Player.address == ALICE)).one()
    assert (entry.action, entry.actor, entry.game_id, entry.player_id) == ("takeback", f"player {ALICE}", 1, alice.id)
    assert entry.detail == "took back f2 (move 1)" and entry.reason == f"accepted by {BOB}"

    _answer(server, ALICE, "g2")  # she plays another move instead
    assert _moves(server) == ["g2"]


def test_refuse_keeps_the_move_and_a_new_request_may_follow(server) -> None:
    _opening(server)
    _answer(server, ALICE, "takeback")
    _answer(server, BOB, "takeback 1 refuse")
    assert _game(server).takeback_offer is None and _moves(server) == ["f2"]
    assert "bob refused to let you take back f2 in game #1; the game goes on." in flat(server.last(ALICE))
    assert "You refused to let alice take back f2 in game #1. It is still your move, bob." in flat(server.last(BOB))
    _answer(server, ALICE, "takeback")
    assert _game(server).takeback_offer == 0


def test_the_answer_in_the_readers_words(server) -> None:
    _opening(server)
    _answer(server, ALICE, "takeback")
    _answer(server, BOB, "takeback отклоняю")
    assert _game(server).takeback_offer is None and _moves(server) == ["f2"]
    _answer(server, ALICE, "takeback")
    _answer(server, BOB, "悔棋 принимаю")
    assert _moves(server) == []


def test_a_move_lets_the_request_lapse(server) -> None:
    _opening(server)
    _answer(server, ALICE, "takeback")
    _answer(server, BOB, "a1-c3")
    assert _game(server).takeback_offer is None
    _answer(server, ALICE, "takeback")  # her move was answered: too late
    assert "It is your move in game #1: your opponent has answered your last move." in flat(server.last(ALICE))
    assert _moves(server) == ["f2", "a1-c3"]
    _answer(server, BOB, "takeback accept")
    assert "There is no take-back request to accept in game #1." in flat(server.last(BOB))
    assert _moves(server) == ["f2", "a1-c3"]


def test_refusals_change_nothing(server) -> None:
    start_game(server, "ataxx", "colour=first")
    cases = [
        (ALICE, "takeback", "You have not played a move in game #1 yet, so there is none to take back."),
        (BOB, "takeback", "You have not played a move in game #1 yet, so there is none to take back."),
        (ALICE, "takeback please", 'I do not know "please" after takeback.'),
    ]
    for address, line, expected in cases:
        _answer(server, address, line)
        assert expected in flat(server.last(address)), line
    _answer(server, ALICE, "f2")
    more = [
        (BOB, "takeback", "You have not played a move in game #1 yet, so there is none to take back."),
        (BOB, "takeback accept", "There is no take-back request to accept in game #1."),
        (BOB, "takeback refuse", "There is no take-back request to refuse in game #1."),
        (ALICE, "takeback accept", "There is no take-back request to accept in game #1."),
    ]
    for address, line, expected in more:
        _answer(server, address, line)
        assert expected in flat(server.last(address)), line
    _answer(server, ALICE, "takeback")
    _answer(server, ALICE, "takeback")
    assert "You have already asked to take back your move f2 in game #1." in flat(server.last(ALICE))
    _answer(server, BOB, "a1-c3")
    _answer(server, ALICE, "g2")
    _answer(server, ALICE, "takeback")  # asked of Bob, who answers with a request of his own
    _answer(server, BOB, "takeback")
    body = flat(server.last(BOB))
    assert "It is your move in game #1" in body and 'to let them, write takeback accept; to say no, write takeback refuse.' in body
    game = _game(server)
    assert (game.ply, game.takeback_offer) == (3, 0) and _moves(server) == ["f2", "a1-c3", "g2"]
    with Session(server.engine) as session:
        assert session.exec(select(AdminAction)).all() == []


def test_a_finished_game_takes_nothing_back(server) -> None:
    _opening(server)
    _answer(server, ALICE, "takeback")
    _answer(server, ALICE, "resign")
    assert _game(server).takeback_offer is None
    _answer(server, BOB, "takeback accept")
    assert "Game #1 is over (0-1, alice resigned)" in flat(server.last(BOB))
    _answer(server, ALICE, "takeback")
    assert "Game #1 is over" in flat(server.last(ALICE))
    assert _moves(server) == ["f2"]


def test_takebacks_off_at_the_challenge(server) -> None:
    server.say(ALICE, f"challenge ataxx {BOB} colour=first takebacks=off")
    server.confirm(ALICE)
    assert "No take-backs in this game: takebacks=off." in flat(server.last(ALICE))
    assert "No take-backs in this game: takebacks=off." in flat(server.last(BOB))
    _answer(server, BOB, "accept 1")
    game = _game(server)
    assert game.takebacks is False and "takebacks" not in game.options  # not the engine's
    assert "No take-backs in this game: takebacks=off." in flat(server.last(BOB))
    _answer(server, ALICE, "f2")
    _answer(server, ALICE, "takeback")
    assert "Take-backs are off in game #1: its challenge said takebacks=off." in flat(server.last(ALICE))
    assert _game(server).takeback_offer is None
    server.say(ALICE, "challenge ataxx takebacks=maybe")
    assert "takebacks=maybe means nothing to me." in flat(server.last(ALICE))


def test_an_open_challenge_without_takebacks_says_so(server) -> None:
    server.say(ALICE, "challenge myriades takebacks=off")
    server.confirm(ALICE)
    server.say(CAROL, "open")
    assert "#1 myriades 10x10, no take-backs, from alice" in flat(server.last(CAROL))


def test_accepting_drops_conditional_lines_and_restarts_the_clock(server) -> None:
    with freeze_time("2026-12-01 12:00"):
        _opening(server)
    with Session(server.engine) as session:  # lines Bob left for later, as `if` stores them
        bob = session.exec(select(Player).where(Player.address == BOB)).one()
        session.add(Conditional(game_id=1, player_id=bob.id, ply=3, moves=["g2", "b2"], created_at=datetime.now(UTC)))
        session.get(Game, 1).lines_waiting = True  # as `if` marks it
        session.commit()
    with freeze_time("2026-12-03 12:00"):
        _answer(server, ALICE, "takeback")
        _answer(server, BOB, "takeback accept")
    game = _game(server)
    assert game.turn_started_at.replace(tzinfo=UTC) == datetime(2026, 12, 3, 12, tzinfo=UTC)
    assert game.clock_due_at.replace(tzinfo=UTC) > datetime(2026, 12, 3, 12, tzinfo=UTC) + timedelta(days=4)
    with Session(server.engine) as session:
        assert session.exec(select(Conditional)).all() == []
    assert "The conditional moves waiting in this game were dropped" in flat(server.last(BOB))


def test_an_old_board_can_neither_accept_nor_refuse(server) -> None:
    _opening(server)
    old = server.last(BOB)  # the "your move" mail, before the request
    _answer(server, ALICE, "takeback")
    for line in ("takeback accept", "takeback refuse"):
        server.send(reply_to(BOB, old, line))
        assert "answers an older board of game #1" in flat(server.last(BOB))
        assert _moves(server) == ["f2"] and _game(server).takeback_offer == 0
    _answer(server, BOB, "takeback refuse")  # the answer showed the board as it stands
    assert _game(server).takeback_offer is None


def test_admin_game_lists_the_take_back_with_the_changes(server, tmp_path) -> None:
    from tests.cli.admin.conftest import run, write_config

    _opening(server)
    _answer(server, ALICE, "takeback")
    settings = server.service.settings
    config = write_config(tmp_path / "pbem.toml", {"address": settings.address, "home": str(settings.home),
                                                  "database_url": settings.database_url})
    assert "  take-back request: x" in run("game", "1", config=config).splitlines()
    _answer(server, BOB, "takeback accept")
    shown = run("game", "1", config=config)
    changes = shown.split("Admin changes:")[1]
    assert "takeback" in changes and "took back f2 (move 1)" in changes and f"accepted by {BOB}" in changes
    assert "  take-back request: none" in shown.splitlines()


def test_an_answer_without_proof_waits_for_confirmation(server) -> None:
    _opening(server)
    _answer(server, ALICE, "takeback")
    server.send(compose(BOB, "takeback accept"))  # no token, no thread: anyone could have sent it
    assert _moves(server) == ["f2"] and _game(server).takeback_offer == 0
    assert "Did you write to me?" in server.last(BOB)["Subject"]
    server.confirm(BOB)
    assert _moves(server) == [] and _game(server).takeback_offer is None
    assert "bob let you take back f2 in game #1." in flat(server.last(ALICE))


def test_help_takeback(server) -> None:
    server.say(ALICE, "help takeback")
    body = flat(server.last(ALICE))
    assert "takeback [ID] [accept|refuse]" in body
    assert "Only your own last move can be taken back" in body
