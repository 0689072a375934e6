"""Issue 12, admin at scale: listings page by default (keyset), filter, and cost the same per page."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import timedelta

import pytest
from sqlalchemy import Engine, event, insert

import pbem_engine
from pbem.core.db import transaction
from pbem.core.models import AdminAction, Game, Outbox
from pbem.games import players
from tests.cli.admin.conftest import NOW, run, run_json

GAMES = 130


@pytest.fixture
def many(db):
    """130 games between 65 players (ids in creation order, one minute apart), mails and audit entries."""
    rules = pbem_engine.create("ataxx", {})
    with transaction(db.engine) as session:
        people = [players.get_or_register(session, f"p{i:02d}@example.org", NOW + timedelta(minutes=i))
                  for i in range(GAMES // 2)]
        ids = [p.id for p in people]
    games, mails, audit = [], [], []
    for n in range(1, GAMES + 1):
        at = NOW + timedelta(minutes=n)
        games.append({"id": n, "kind": "ataxx" if n % 2 else "capturego", "options": {}, "state": rules.dump(rules.start()),
                      "player0_id": ids[n % len(ids)], "player1_id": ids[(n + 1) % len(ids)],
                      "status": "active" if n % 3 else "finished", "created_at": at, "updated_at": at,
                      "turn": 0, "ply": 0, "version": 0, "days": 7, "weekends_off": False, "clock_credit": 0})
        mails.append({"id": n, "message_id": f"<{n}@pbem>", "recipient": f"p{n % len(ids):02d}@example.org",
                      "template": "board", "game_id": n, "player_id": ids[n % len(ids)], "message": b"x",
                      "status": "failed" if n % 10 == 0 else "sent", "attempts": 1, "next_attempt_at": at,
                      "created_at": at})
        audit.append({"actor": "ops", "action": "undo" if n % 2 else "resend", "game_id": n, "created_at": at,
                      "detail": "", "reason": ""})
    with db.engine.begin() as conn:
        conn.execute(insert(Game.__table__), games)
        conn.execute(insert(Outbox.__table__), mails)
        conn.execute(insert(AdminAction.__table__), audit)
    return db


@contextmanager
def statements():
    """Count the SQL statements run inside the block."""
    seen: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:  # noqa: ANN001
        seen.append(statement)

    event.listen(Engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", count)


def test_games_show_the_newest_fifty_and_page_back_by_id(many) -> None:
    assert [g["id"] for g in run_json("games")] == list(range(GAMES - 49, GAMES + 1))  # newest last
    text = run("games")
    assert text.strip().splitlines()[-1] == f"(the newest 50 shown; older: --before {GAMES - 49}, or --all)"
    assert [g["id"] for g in run_json("games", "--before", str(GAMES - 49))] == list(range(31, 81))
    assert [g["id"] for g in run_json("games", "--before", "31")] == list(range(1, 31))
    assert "--before" not in run("games", "--before", "31")
    assert [g["id"] for g in run_json("games", "--limit", "3")] == [128, 129, 130]
    assert len(run_json("games", "--all")) == GAMES


def test_games_filter_by_status_kind_player_and_date(many) -> None:
    finished = run_json("games", "--status", "finished", "--kind", "ataxx", "--all")
    assert [g["id"] for g in finished] == [n for n in range(1, GAMES + 1) if n % 3 == 0 and n % 2]
    mine = run_json("games", "--player", "p05@example.org", "--all")
    assert {g["id"] for g in mine} == {n for n in range(1, GAMES + 1) if 5 in (n % 65, (n + 1) % 65)}
    day = run_json("games", "--since", "2026-11-30 12:10", "--until", "2026-11-30 12:20")
    assert [g["id"] for g in day] == list(range(10, 20))


def test_a_page_costs_the_same_statements_whatever_its_size(many) -> None:
    for args in (["games"], ["players"], ["outbox"], ["audit"], ["bounces"], ["quarantine", "list"]):
        with statements() as small:
            run(*args, "--limit", "2")
        with statements() as large:
            run(*args, "--all")
        assert len(large) == len(small), (args, large)  # no query per row: players are joined in batches


def test_players_page_with_their_game_counts(many) -> None:
    listed = run_json("players")
    assert len(listed) == 50 and listed[-1]["address"] == "p64@example.org"
    (p05,) = run_json("players", "--player", "p05@")
    assert p05["games"] == 4 and p05["active"] == sum(1 for n in range(1, GAMES + 1)
                                                      if 5 in (n % 65, (n + 1) % 65) and n % 3)
    assert [p["address"] for p in run_json("players", "--game", "1")] == ["p01@example.org", "p02@example.org"]
    assert run_json("player", "p05@example.org", "--limit", "1")["game_list"][0]["id"] == 70


def test_outbox_and_audit_page_and_filter(many) -> None:
    assert [m["id"] for m in run_json("outbox")][:3] == [130, 129, 128]  # newest first, as before
    assert len(run_json("outbox")) == 50
    assert [m["id"] for m in run_json("outbox", "--failed", "--all")] == list(range(130, 0, -10))
    assert [m["id"] for m in run_json("outbox", "--game", "7")] == [7]
    assert {m["recipient"] for m in run_json("outbox", "--player", "p07@example.org")} == {"p07@example.org"}
    assert [m["id"] for m in run_json("outbox", "--before", "5")] == [4, 3, 2, 1]
    assert [a["game"] for a in run_json("audit", "--action", "resend", "--limit", "2")] == [128, 130]
    assert [a["game"] for a in run_json("audit", "--game", "7")] == [7]
