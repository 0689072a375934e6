"""`pbem admin tournament create --clock`: a tournament's games on another clock than days per move."""

from __future__ import annotations

from sqlmodel import Session

from pbem.core.models import Tournament
from tests.cli.admin.conftest import fail, run_json


def test_a_tournament_is_created_with_a_clock_and_a_wrong_one_is_refused(db) -> None:
    made = run_json("tournament", "create", "Fischer Cup", "--format", "roundrobin", "--game", "ataxx",
                    "--clock", "Fischer:3+1/7")
    with Session(db.engine) as session:
        assert session.get(Tournament, made["id"]).clock == "fischer:3d+1d/7d"
    assert "is not a clock I know" in fail("tournament", "create", "Bad", "--format", "roundrobin", "--game",
                                           "ataxx", "--clock", "blitz:5")
