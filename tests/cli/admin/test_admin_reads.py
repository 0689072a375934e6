"""`pbem admin game` reads as sentences, not fields run together (issue 13, item 8)."""

from __future__ import annotations

from tests.cli.admin.conftest import run


def test_a_finished_game_says_who_won_and_why(db) -> None:
    gid = db.random_game("ataxx")
    shown = run("game", str(gid)).splitlines()
    head = shown[0]
    assert head.startswith(f"Game #{gid}: ")
    assert ", finished, " in head and (" wins)" in head or "(a draw)" in head)
    assert "): " in head  # the reason follows the result, after a colon
    assert "  clock credit: none (no time added by an admin)" in shown
    assert not any(line.strip().startswith("clock_credit") for line in shown)


def test_an_active_game_shows_the_time_added(db) -> None:
    gid = db.game("ataxx", ["f2"])
    run("extend", str(gid), "--days", "1.5", "--reason", "travel")
    shown = run("game", str(gid)).splitlines()
    assert shown[0].endswith(", active")
    assert "  clock credit: 1 d 12 h added by an admin (129600 s)" in shown
