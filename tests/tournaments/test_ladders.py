"""A ladder through the service: sign-up, challenges by mail, the places moved once a game ends."""

from __future__ import annotations

import re

import inscriptis
import pytest
from sqlmodel import Session, select

from pbem.core.db import transaction
from pbem.core.models import Entry, Game, Outbox, Player, TournamentGame
from pbem.core.wallclock import now
from pbem.letters import post
from pbem.runners import tournaments as tournament_rounds
from pbem.tournaments import ladder as ladders
from pbem.tournaments import tournament as T
from tests import races
from tests.languages import english_left, too_wide, without_quotes
from tests.mailer import parse, text
from tests.tournaments.test_tournaments import _read_safely

PLAYERS = ["ann@example.org", "ben@example.org", "cat@example.org", "dan@example.org"]
EVE = "eve@example.org"


def flat(mail) -> str:
    return " ".join(text(mail).split())


def _join(server, address: str, tid: int) -> None:
    server.say(address, f"join {tid}")
    if "Did you write to me" in server.last(address)["Subject"]:
        server.confirm(address)


def _ladder(server, reach: int = 2) -> int:
    """A ladder of four, started: ann 1, ben 2, cat 3, dan 4 (all unrated: the order they joined)."""
    with transaction(server.engine) as session:
        tid = T.create(session, "Club Ladder", "ladder", "ataxx", now(), days=3, reach=reach).id
    for address in PLAYERS:
        _join(server, address, tid)
    settings = server.service.settings
    with transaction(server.engine) as session:
        post.post(session, settings, server.service.templates,
                  T.start(session, T.get(session, tid), settings.reminders, now()))
    return tid


def _places(server, tid: int) -> list[str]:
    with Session(server.engine) as session:
        ladder = ladders.standing(session, T.get(session, tid))
        return [session.get(Player, pid).address.split("@")[0] for pid in ladder.players]


def _challenge_game(server, tid: int, challenger: str) -> Game:
    with Session(server.engine) as session:
        player = session.exec(select(Player).where(Player.address == challenger)).one()
        row = session.exec(select(TournamentGame).where(
            TournamentGame.tournament_id == tid, TournamentGame.challenger_id == player.id)
            .order_by(TournamentGame.id.desc())).first()
        return session.get(Game, row.game_id)


def _loser_address(server, game: Game, winner: str) -> str:
    with Session(server.engine) as session:
        addresses = {session.get(Player, pid).address for pid in (game.player0_id, game.player1_id)}
    (loser,) = addresses - {winner}
    return loser


def test_a_ladder_from_sign_up_through_challenges_to_its_close(server) -> None:
    tid = _ladder(server)
    settings = server.service.settings
    assert _places(server, tid) == ["ann", "ben", "cat", "dan"]
    started = server.last(PLAYERS[3])
    assert started["Subject"].startswith("[pbem] Ladder Club Ladder: it has begun")
    body = flat(started)
    assert f"The ladder Club Ladder (#{tid}) has begun; the places, by rating:" in body
    assert "You are in place 4. You may challenge:" in body
    assert f'place 3, cat: write "ladder {tid} 3"' in body and f'place 2, ben: write "ladder {tid} 2"' in body
    assert "place 1, ann" not in body  # beyond the reach of 2
    assert "You are at the top" in flat(server.last(PLAYERS[0]))

    # a running ladder is listed and takes newcomers, at the bottom
    server.say(EVE, "tournaments")
    assert f"#{tid} Club Ladder: ataxx 7x7, a ladder (challenge up to 2 places above), 3 days a move, 4 players" in flat(
        server.last(EVE))
    _join(server, EVE, tid)
    assert "You start in place 5, at the bottom" in flat(server.last(EVE))
    assert _places(server, tid) == ["ann", "ben", "cat", "dan", "eve"]

    # every refusal says why, and starts nothing
    for line, expected in (
        (f"ladder {tid} 1", "Place 1 is too far above your place, 4: you may challenge up to 2 places above."),
        (f"ladder {tid} 5", "Place 5 is below your place, 4: challenge someone above you."),
        (f"ladder {tid} 4", "You cannot challenge yourself."),
        (f"ladder {tid} zed", f"Nobody on the ladder #{tid} is zed."),
        (f"ladder {tid} 9", f"Nobody on the ladder #{tid} is 9."),
        ("ladder 99 2", "There is no tournament #99."),
        ("ladder", "Please name the ladder by its number"),
    ):
        server.say(PLAYERS[3], line)
        assert expected in flat(server.last(PLAYERS[3])), line
    with Session(server.engine) as session:
        assert session.exec(select(TournamentGame).where(TournamentGame.tournament_id == tid)).all() == []

    # dan (4) challenges ben (2): the game starts at once, both are told
    server.say(PLAYERS[3], f"ladder {tid} 2")
    mail = server.last(PLAYERS[3])
    assert "ladder Club Ladder" in mail["Subject"]
    assert (f"On the ladder Club Ladder (#{tid}), dan (place 4) has challenged ben (place 2)") in flat(mail)
    game = _challenge_game(server, tid, PLAYERS[3])
    assert "if the lower player wins, the two change places" in flat(server.last(PLAYERS[1]))
    assert f"game #{game.id}" in flat(server.last(PLAYERS[1]))
    assert game.days == 3 and game.status == "active"
    # one challenge of one's own at a time, one defence at a time
    server.say(PLAYERS[3], f"ladder {tid} 3")
    assert f"Your challenge in game #{game.id} is still being played: one at a time." in flat(server.last(PLAYERS[3]))
    server.say(PLAYERS[2], f"ladder {tid} ben")
    assert f"The player in place 2 is defending a challenge already (game #{game.id})." in flat(
        server.last(PLAYERS[2]))
    server.say(EVE, f"ladder {tid} cat")  # by name
    cats = _challenge_game(server, tid, EVE)
    # leaving with a game in progress is refused
    server.say(PLAYERS[1], f"leave {tid}")
    assert "You have a game of the ladder" in flat(server.last(PLAYERS[1]))

    # nothing moves while the games are on; the places move once each ends
    assert tournament_rounds.advance_due(server.engine, settings) == 0
    server.answer(PLAYERS[1], game.id, f"resign {game.id}")  # ben resigns: dan takes place 2
    assert tournament_rounds.advance_due(server.engine, settings) == 1
    assert tournament_rounds.advance_due(server.engine, settings) == 0  # once
    assert _places(server, tid) == ["ann", "dan", "cat", "ben", "eve"]
    won = server.last(PLAYERS[3])
    assert won["Subject"].startswith(f"[pbem] Ladder Club Ladder: the places after game #{game.id}")
    assert "you are now in place 2, no longer 4." in flat(won)
    assert "you are now in place 4, no longer 2." in flat(server.last(PLAYERS[1]))
    assert f"dan - ben, game #{game.id}: 1-0" in flat(won) or f"ben - dan, game #{game.id}: 0-1" in flat(won)

    server.say(EVE, f"resign {cats.id}")  # the higher player wins: nothing moves
    assert tournament_rounds.advance_due(server.engine, settings) == 1
    assert _places(server, tid) == ["ann", "dan", "cat", "ben", "eve"]
    assert "the places stay as they were; you are in place 3." in flat(server.last(PLAYERS[2]))

    server.say(PLAYERS[3], f"tournament {tid}")
    shown = flat(server.last(PLAYERS[3]))
    assert "The ladder is on" in shown and "You are in place 2. You may challenge:" in shown
    assert f'place 1, ann: write "ladder {tid} 1"' in shown
    with Session(server.engine) as session:
        dan = session.exec(select(Entry).join(Player).where(Player.address == PLAYERS[3])).one()
        assert dan.seed == 2

    # ben leaves: those below move up; he may come back, at the bottom
    server.say(PLAYERS[1], f"leave {tid}")
    assert "You have left the tournament Club Ladder" in flat(server.last(PLAYERS[1]))
    assert _places(server, tid) == ["ann", "dan", "cat", "eve"]
    _join(server, PLAYERS[1], tid)
    assert _places(server, tid) == ["ann", "dan", "cat", "eve", "ben"]

    # the operator closes it: every player gets the final places
    with transaction(server.engine) as session:
        post.post(session, settings, server.service.templates, T.close(session, T.get(session, tid), now()))
    final = server.last(PLAYERS[0])
    assert "the final table" in final["Subject"]
    body = flat(final)
    assert body.index("ann") < body.index("dan") < body.index("cat") < body.index("eve") < body.rindex("ben")
    assert "The last column: each player's rating change since they joined the ladder." in body
    with Session(server.engine) as session:
        shown = ladders.view(session, T.get(session, tid))
    change = {p["name"]: p["rating_change"] for p in shown["places"]}
    assert change["dan"] > 0 and change["ann"] == 0  # dan beat ben; ann never played
    assert f"dan {2 * ' '}" in text(final) and f"+{change['dan']}" in text(final)
    server.say(PLAYERS[3], f"ladder {tid} 1")
    assert f"The ladder #{tid} is over." in flat(server.last(PLAYERS[3]))
    assert {"ladder_started", "ladder_result", "tournament_game", "tournament_final"} <= _read_safely(server)


def test_a_withdrawn_players_game_goes_to_the_opponent_and_the_places_close_up(server) -> None:
    tid = _ladder(server)
    server.say(PLAYERS[3], f"ladder {tid} 2")  # dan challenges ben
    game = _challenge_game(server, tid, PLAYERS[3])
    settings = server.service.settings
    with transaction(server.engine) as session:
        ben = session.exec(select(Player).where(Player.address == PLAYERS[1])).one()
        post.post(session, settings, server.service.templates,
                  T.withdraw(session, T.get(session, tid), ben, "asked to stop", now()))
    with Session(server.engine) as session:
        assert session.get(Game, game.id).status == "finished"
        row = session.exec(select(TournamentGame).where(TournamentGame.game_id == game.id)).one()
        assert row.first_points is not None  # scored with the withdrawal: no place moves for it
    assert _places(server, tid) == ["ann", "cat", "dan"]
    assert tournament_rounds.advance_due(server.engine, settings) == 0
    body = flat(server.last(PLAYERS[1]))
    assert "The operator has withdrawn you from the tournament Club Ladder" in body
    assert f"Your game #{game.id} in progress goes to your opponent" in body


def test_a_ladder_has_no_rounds_to_pair_or_adjourn(server) -> None:
    tid = _ladder(server)
    with transaction(server.engine) as session:
        tournament = T.get(session, tid)
        with pytest.raises(ValueError, match="no round to adjourn"):
            T.adjourn(session, tournament, now())
        assert T.advance(session, tournament, server.service.settings.reminders, now()) == []
        with pytest.raises(ValueError, match="reach"):
            T.create(session, "Too far", "ladder", "ataxx", now(), reach=40)


def _operator(server, letters) -> None:
    with transaction(server.engine) as session:
        post.post(session, server.service.settings, server.service.templates, letters(session))


@pytest.mark.parametrize("language", ["it", "ru", "uk", "ko", "zh"])
def test_every_ladder_mail_speaks_the_readers_language(server, language) -> None:
    ann, ben, cat, dan = PLAYERS
    for address in (*PLAYERS, EVE):
        server.say(address, "help")
        server.say(address, f"language {language}")
    with Session(server.engine) as session:
        before = max(session.exec(select(Outbox.id)).all())  # the mails before they chose their language
    with transaction(server.engine) as session:
        tid = T.create(session, "Club Ladder", "ladder", "ataxx", now(), days=3, reach=2).id
        cup = T.create(session, "Cup", "roundrobin", "ataxx", now(), days=3).id
    for address in PLAYERS:
        server.say(address, f"join {tid}")
    server.say(ann, f"tournament {tid}")
    server.say(ann, f"ladder {tid} 2")  # not started yet
    _operator(server, lambda s: T.start(s, T.get(s, tid), server.service.settings.reminders, now()))
    settings = server.service.settings

    # the refusals, each with what to write instead
    for address, line in (
        (dan, f"ladder {tid} 1"),  # too far above
        (dan, f"ladder {tid} 4"),  # oneself
        (cat, f"ladder {tid} 4"),  # below
        (dan, f"ladder {tid} zed"),  # nobody
        (dan, "ladder"),  # no number
        (dan, f"ladder {cup} 2"),  # not a ladder
        (EVE, f"ladder {tid} 1"),  # not on it
    ):
        server.say(address, line)
    with Session(server.engine) as session:
        assert session.exec(select(TournamentGame).where(TournamentGame.tournament_id == tid)).all() == []

    # a newcomer at the bottom, two challenges at once, and what may not be done meanwhile
    server.say(EVE, "tournaments")
    server.say(EVE, f"join {tid}")
    server.say(dan, f"ladder {tid} 2")  # dan (4) challenges ben (2)
    game = _challenge_game(server, tid, dan)
    server.say(dan, f"ladder {tid} 3")  # one challenge of one's own at a time
    server.say(cat, f"ladder {tid} ben")  # ben defends one already
    server.say(ben, f"leave {tid}")  # not with a game in progress
    server.say(EVE, f"ladder {tid} cat")
    cats = _challenge_game(server, tid, EVE)
    server.say(dan, f"ladder {tid}")
    server.say(ann, f"tournament {tid}")

    # the places move once each game ends; the higher player's win moves nothing
    server.answer(ben, game.id, f"resign {game.id}")
    server.answer(EVE, cats.id, f"resign {cats.id}")
    assert tournament_rounds.advance_due(server.engine, settings) == 2
    assert _places(server, tid) == ["ann", "dan", "cat", "ben", "eve"]

    # ben challenges cat and is withdrawn meanwhile; eve leaves; the operator closes the ladder
    server.say(ben, f"ladder {tid} 3")
    _operator(server, lambda s: T.withdraw(s, T.get(s, tid), s.exec(select(Player).where(
        Player.address == ben)).one(), "asked to stop", now()))
    server.say(EVE, f"leave {tid}")
    server.say(dan, "help ladder")
    _operator(server, lambda s: T.close(s, T.get(s, tid), now()))
    server.say(dan, f"ladder {tid} 1")  # over

    with Session(server.engine) as session:
        rows = session.exec(select(Outbox).where(Outbox.id > before).order_by(Outbox.id)).all()
    for row in rows:
        mail = parse(row.message)
        body = text(mail).replace("\r\n", "\n")
        assert too_wide(body) == [], f"{language} {row.template}: too wide\n{body}"
        ours = re.sub(r"asked\s+to\s+stop", "", body)  # the operator's own words for the withdrawal
        assert english_left(ours, language) == [], f"{language} {row.template}:\n{body}"
        assert english_left(mail["Subject"], language) == [], mail["Subject"]
        html = mail.get_body(("html",))
        if html is not None:
            words = re.sub(r"asked\s+to\s+stop", "", inscriptis.get_text(without_quotes(html.get_content())))
            assert english_left(words, language) == [], f"{language} {row.template}: English left in the HTML part"
    assert {"ladder_started", "ladder_result", "tournament_game", "tournament_final", "tournament_withdrawn",
            "tournament_joined", "tournament_left", "tournament", "tournaments"} <= {row.template for row in rows}


def test_two_daemons_settling_one_challenge_at_once_move_the_places_once(pg_server, monkeypatch) -> None:
    server = pg_server
    tid = _ladder(server)
    server.say(PLAYERS[3], f"ladder {tid} 2")
    game = _challenge_game(server, tid, PLAYERS[3])
    server.say(PLAYERS[1], f"resign {game.id}")
    with Session(server.engine) as session:
        before = len(session.exec(select(Outbox.id)).all())
    settings, templates = server.service.settings, server.service.templates
    done = races.at_once(monkeypatch, ladders, "due", settings.db_url, server.engine,
                         lambda engine: tournament_rounds.advance_due(engine, settings, templates))
    assert sorted(done) == [0, 1]
    assert _places(server, tid) == ["ann", "dan", "cat", "ben"]
    with Session(server.engine) as session:
        assert len(session.exec(select(Outbox.id)).all()) == before + 2  # one result mail each, not two
