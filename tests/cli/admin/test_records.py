"""Game records read back by other programs: sgfmill for SGF, the engine for text records."""

from __future__ import annotations

import email
import email.policy

import pytest
from sgfmill import sgf
from sqlmodel import Session

import pbem_engine
from pbem.core.models import Game
from pbem.games import records
from pbem.games import store as G
from pbem.letters import notify, post
from pbem.text.templates import Templates
from tests.cli.admin.conftest import NOW


def _export(db, game_id: int) -> records.Record:
    with Session(db.engine) as session:
        return records.export(session, session.get(Game, game_id))


def _notations(db, game_id: int) -> list[str]:
    with Session(db.engine) as session:
        return [m.notation for m in G.moves(session, session.get(Game, game_id))]


def test_capture_go_sgf_reads_back_move_for_move_in_sgfmill(db) -> None:
    game_id = db.random_game("capturego", {"size": 9, "target": 3}, seed=7)
    game = db.get(game_id)
    assert game.status == "finished"
    record = _export(db, game_id)
    assert record.filename.endswith(".sgf")
    parsed = sgf.Sgf_game.from_string(record.text)
    assert parsed.get_size() == 9
    root = parsed.get_root()
    assert root.get("PB") == "alice" and root.get("PW") == "bob"
    assert root.get("RE") == ("B+" if game.winner == 0 else "W+")
    played = [node.get_move() for node in parsed.get_main_sequence()[1:]]
    ours = _notations(db, game_id)
    assert len(played) == len(ours) == game.ply
    for (colour, point), text, ply in zip(played, ours, range(len(ours)), strict=True):
        assert colour == ("b" if ply % 2 == 0 else "w")
        if text == "pass":
            assert point is None
        else:  # Go coordinates skip the letter i; sgfmill gives (row from the bottom, column)
            row, col = point
            assert text == "abcdefghjklmnopqrst"[col] + str(row + 1)


def test_ataxx_record_has_the_start_fen_and_replays_to_the_stored_position(db) -> None:
    game_id = db.random_game("ataxx", {"blocks": "c3,e3,c5,e5"}, seed=3, limit=40)
    record = _export(db, game_id)
    rules, pos, tags, moves = records.replay(record.text)
    assert tags["FEN"] == "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"
    assert tags["X"] == "alice <alice@example.org>" and tags["Result"] == "*"
    assert moves == _notations(db, game_id) and len(moves) == 40
    assert rules.dump(pos) == db.get(game_id).state


def test_myriades_and_infinito_records_replay_through_the_engine(db) -> None:
    for kind, options in (("myriades", {}), ("infinito", {"size": 10})):
        game_id = db.random_game(kind, options, seed=5, limit=60)
        rules, pos, tags, moves = records.replay(_export(db, game_id).text)
        assert rules.name == kind and len(moves) == db.get(game_id).ply
        assert rules.dump(pos) == db.get(game_id).state


def test_a_tampered_record_is_refused_with_the_ply(db) -> None:
    game_id = db.game("ataxx", ["f2", "b2"])
    text = _export(db, game_id).text.replace("2. b2", "2. b6")
    try:
        records.replay(text)
    except records.RecordError as exc:
        assert "ply 2 (b6)" in str(exc)
    else:
        raise AssertionError("a record with an illegal move replayed")


def test_the_game_over_mail_carries_the_record(db) -> None:
    game_id = db.random_game("capturego", {"size": 7, "target": 1}, seed=2)
    with Session(db.engine) as session:
        game = session.get(Game, game_id)
        p0, _ = G.players(session, game)
        letters = [letter for letter in notify.tell(session, "timed_out", game) if letter.player.id == p0.id]
        row = post.queue(session, db.settings, Templates(), p0, letters, game=game)
        mail = email.message_from_bytes(row.message, policy=email.policy.default)
    assert "is over" in mail.get_body(("plain",)).get_content()
    (attachment,) = mail.iter_attachments()
    assert attachment.get_filename() == f"pbem-{game_id}.sgf"
    assert sgf.Sgf_game.from_bytes(attachment.get_content()).get_size() == 7


def test_the_sgf_result_says_how_the_game_ended(db) -> None:
    """RE[] from the stored kind of ending, never from the sentence players read."""
    from pbem.core.db import transaction

    endings = {"resignation": "W+R", "time": "W+T", "adjudication": "W+F", "agreement": "0"}
    for ending, expected in endings.items():
        game_id = db.game("capturego", ["d4", "e5"], {"size": 9})
        with transaction(db.engine) as session:
            game = session.get(Game, game_id)
            winner = None if ending == "agreement" else 1
            G.finish(session, game, winner, "Timothy Resignation made his move", NOW, ending=ending)
        assert f"RE[{expected}]" in _export(db, game_id).text, ending


# -- SGF written and read with sgfmill, without a database -----------------------------------------

GAME = ["c4", "d4", "e4", "a1", "d5", "a2", "d3", "pass", "pass"]  # d3 takes d4


def test_sgf_round_trip_and_sgfmill_agrees() -> None:
    rules = pbem_engine.create("capturego", {"size": 7, "target": 4})
    pos = rules.start()
    for text in GAME:
        pos = rules.apply(pos, rules.parse(pos, text))
    text = records.to_sgf(rules, GAME, black="Zoë [the] \\ Black", white="Bob", date="2026-12-01",
                          comment="gg]\nbye")
    assert text.startswith("(;FF[4]") and "GM[1]" in text and "CA[UTF-8]" in text
    assert "SZ[7]" in text and "CT[4]" in text and "KM[0]" in text
    assert pos.captures == (1, 0) and rules.outcome(pos).winner == 0 and "RE[B+]" in text

    again, read = records.from_sgf(text)
    assert again.options == {"size": 7, "target": 4} and read == GAME
    assert records.from_sgf(text.encode("utf-8"))[1] == GAME

    game = sgf.Sgf_game.from_string(text)
    root = game.get_root()
    assert game.get_size() == 7 and root.get("PB") == "Zoë [the] \\ Black" and root.get("C") == "gg]\nbye"
    assert root.get("RE") == "B+" and root.get("DT") == "2026-12-01"
    played = [node.get_move() for node in game.get_main_sequence()[1:]]
    pos, expected = rules.start(), []
    for ply, move_text in enumerate(GAME):
        move = rules.parse(pos, move_text)
        expected.append(("b" if ply % 2 == 0 else "w", None if move.is_pass else (move.row, move.col)))
        pos = rules.apply(pos, move)
    assert played == expected


def test_sgf_results() -> None:
    rules = pbem_engine.create("capturego", {"size": 5})
    assert "RE[" not in records.to_sgf(rules, ["c3"])
    assert "RE[0]" in records.to_sgf(rules, ["pass", "pass"])
    assert "RE[B+R]" in records.to_sgf(rules, ["c3"], result="B+R")
    assert "RE[B+]" in records.to_sgf(rules, ["b1", "a1", "a2"])  # a2 takes a1: first to 1 capture


def test_from_sgf_tolerates_other_programs_records() -> None:
    text = """(;GM[1]FF[3]SZ[9]PB[Ann]PW[Ben]KM[6.5]RU[Japanese]XX[unknown \\] value]
        C[a comment with \\\\ and a soft\\
break, ünïcode]
        ;B[ee]C[first];W[tt]
        (;B[dd]LB[dd:A];W[ed])
        (;B[cc]))"""
    rules, moves = records.from_sgf(text, target=5)
    assert rules.options == {"size": 9, "target": 5}
    assert moves == ["e5", "pass", "d6", "e6"]
    assert records.from_sgf("(;SZ[5]CT[2];B[cc])")[0].options == {"size": 5, "target": 2}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no tree here", "not an SGF record"),
        ("(;SZ[9];B[ee]", "not an SGF record"),
        ("(;GM[3];B[ee])", "not a Go game"),
        ("(;SZ[25])", "size=25 is out of range"),
        ("(;SZ[9]AB[aa];W[ee])", "places stones with AB"),
        ("(;SZ[9];B[ee];B[dd])", "out of turn"),
        ("(;SZ[9];B[ee];W[ee])", "is occupied"),
        ("(;SZ[9];B[zz])", "off the board"),
        ("(;SZ[9]CT[1];B[ba];W[aa];B[ab];W[cc])", "The game is over"),
    ],
)
def test_from_sgf_errors(text: str, message: str) -> None:
    with pytest.raises(records.RecordError, match=message):
        records.from_sgf(text)


def test_to_sgf_refuses_an_illegal_record() -> None:
    with pytest.raises(records.RecordError, match="Move 2 .* cannot be replayed"):
        records.to_sgf(pbem_engine.create("capturego"), ["e5", "e5"])


def test_record_tags_are_the_games_own() -> None:
    """The export hook: records ask the game, never branch on its family."""
    assert pbem_engine.create("ataxx", {"blocks": "d4"}).record_tags() == [("FEN", "x5o/7/7/3-3/7/7/o5x x 0 1")]
    assert pbem_engine.create("myriades").record_tags() == []
    assert {pbem_engine.lookup(name).record_format for name in pbem_engine.names()} == {"sgf", "text"}
