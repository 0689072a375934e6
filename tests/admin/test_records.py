"""Game records read back by other programs: sgfmill for SGF, the engine for text records."""

from __future__ import annotations

import email
import email.policy

from sgfmill import sgf
from sqlmodel import Session

from pbem import games as G
from pbem import outbox, records
from pbem.models import Game
from pbem.present import game_view
from pbem.templates import Templates
from tests.admin.conftest import NOW


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
        row = outbox.queue(session, db.settings, Templates(), p0,
                           [("game_over.txt", {"game": game_view(session, game, p0)})], game=game)
        mail = email.message_from_bytes(row.message, policy=email.policy.default)
    assert "is over" in mail.get_body(("plain",)).get_content()
    (attachment,) = mail.iter_attachments()
    assert attachment.get_filename() == f"pbem-{game_id}.sgf"
    assert sgf.Sgf_game.from_bytes(attachment.get_content()).get_size() == 7


def test_the_sgf_result_says_how_the_game_ended(db) -> None:
    """RE[] from the stored kind of ending, never from the sentence players read."""
    from pbem.db import transaction

    endings = {"resignation": "W+R", "time": "W+T", "adjudication": "W+F", "agreement": "0"}
    for ending, expected in endings.items():
        game_id = db.game("capturego", ["d4", "e5"], {"size": 9})
        with transaction(db.engine) as session:
            game = session.get(Game, game_id)
            winner = None if ending == "agreement" else 1
            G.finish(session, game, winner, "Timothy Resignation made his move", NOW, ending=ending)
        assert f"RE[{expected}]" in _export(db, game_id).text, ending
