"""A mail about several games, in every language: it asks for a line that names the game (a
bare move could be any of them) and still takes a bare move for the one game that waits."""

from __future__ import annotations

import re

import pytest
from freezegun import freeze_time
from sqlmodel import Session, select

from pbem.core.models import Move, Player
from pbem.text.i18n import LANGUAGES
from tests.languages import english_left
from tests.mailer import reply_to, text
from tests.runners.test_digest import ALICE, BOB, FRIDAY, SATURDAY_8, _answers, _digests, _round, _three_games


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_a_mail_about_several_games_names_them_and_takes_the_bare_move_it_invites(server, language) -> None:
    with freeze_time(FRIDAY) as clock:
        _three_games(server)
        server.send(reply_to(BOB, server.about(BOB, 1), "#1 if f1 then a2"))  # answers Alice's f1 at once
        server.say(ALICE, "notify digest 0800")
        clock.move_to(SATURDAY_8)
        assert _round(server) == 1
        with Session(server.engine) as session:
            session.exec(select(Player).where(Player.address == ALICE)).one().language = language
            session.commit()
        digest = _digests(server, ALICE)[-1]  # in English: her language changed after it
        server.send(reply_to(ALICE, digest, "\n".join(_answers(digest)[:2])))
        several = server.last(ALICE)
        said = text(several)
        assert re.search(r"#1 [a-g][1-7]", said), said  # the example names game 1
        if language != "en":
            assert english_left(said, language) == [], said
        assert server.send(reply_to(ALICE, several, "e1")) == "processed"
    with Session(server.engine) as session:
        played = [m.notation for m in session.exec(select(Move).where(Move.game_id == 1).order_by(Move.ply))]
    assert played == ["f1", "a2", "e1"]
