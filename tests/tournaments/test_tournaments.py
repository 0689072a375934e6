"""A whole round robin through the service: sign-up, three rounds paired as games end, the final table."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from pbem.commands.lines import reader
from pbem.core.db import transaction
from pbem.core.models import Entry, Game, Outbox, Player, Rating, TournamentGame
from pbem.core.wallclock import now
from pbem.games import store as G
from pbem.letters import post
from pbem.runners import tournaments as tournament_rounds
from pbem.tournaments import table
from pbem.tournaments import tournament as T
from tests.languages import english_left, too_wide
from tests.mailer import parse, text

PLAYERS = ["ann@example.org", "ben@example.org", "cat@example.org", "dan@example.org"]


def _read_safely(server) -> set[str]:
    """Every mail sent fits 72 columns and has no line that reads as a command (as
    test_templates checks for the mails of its script); returns the templates sent."""
    with Session(server.engine) as session:
        rows = session.exec(select(Outbox)).all()
    for row in rows:
        for line in text(parse(row.message)).splitlines()[1:]:
            assert len(line) <= 72, f"{row.template}: too wide: {line!r}"
            assert reader.classify(line.strip()) is None, f"{row.template}: {line!r} reads as a command"
    return {row.template for row in rows}


def _players(server) -> dict[str, Player]:
    for address in PLAYERS:
        server.say(address, "help")
    with Session(server.engine) as session:
        return {p.address: p for p in session.exec(select(Player))}


def _start(server, fmt: str = "roundrobin", rounds: int | None = None) -> int:
    players = _players(server)
    settings = server.service.settings
    with transaction(server.engine) as session:
        tournament = T.create(session, "Winter Cup", fmt, "ataxx", now(), days=5, rounds=rounds)
        for address in PLAYERS:
            T.join(session, tournament, session.get(Player, players[address].id), now())
        letters = T.start(session, tournament, settings.reminders, now())
        post.post(session, settings, server.service.templates, letters)
        return tournament.id


def _games(server, tournament_id: int, round: int) -> list[Game]:
    with Session(server.engine) as session:
        rows = session.exec(select(TournamentGame).where(
            TournamentGame.tournament_id == tournament_id, TournamentGame.round == round)).all()
        return [session.get(Game, r.game_id) for r in rows if r.game_id]


def game_board(server, game: Game) -> int:
    with Session(server.engine) as session:
        return session.exec(select(TournamentGame.board).where(TournamentGame.game_id == game.id)).one()


def _address(server, player_id: int) -> str:
    with Session(server.engine) as session:
        return session.get(Player, player_id).address


def test_a_round_robin_of_four_from_the_start_to_the_final_table(server) -> None:
    tid = _start(server)
    settings = server.service.settings
    met: set[frozenset[int]] = set()
    for round in (1, 2, 3):
        games = _games(server, tid, round)
        assert len(games) == 2
        for game in games:
            met.add(frozenset((game.player0_id, game.player1_id)))
            for pid in (game.player0_id, game.player1_id):
                mail = text(server.last(_address(server, pid)))
                assert f"Round {round} of the tournament Winter Cup (#{tid})" in " ".join(mail.split())
                assert f"Round {round}, board {game_board(server, game)} of the tournament Winter Cup (#{tid})" in " ".join(mail.split())
            assert game.days == 5
        # nothing to pair while the round is on
        assert tournament_rounds.advance_due(server.engine, settings) == 0
        for game in games:  # the second player resigns every game: the first wins
            server.say(_address(server, game.player1_id), f"resign {game.id}")
        assert tournament_rounds.advance_due(server.engine, settings) == 1
        assert tournament_rounds.advance_due(server.engine, settings) == 0  # paired once
    assert len(met) == 6  # everyone met everyone
    with Session(server.engine) as session:
        tournament = T.get(session, tid)
        assert tournament.status == "finished"
        assert tournament.round == 3
    for address in PLAYERS:
        mail = server.last(address)
        assert "the final table" in mail["Subject"]
        body = text(mail)
        assert "Sonneborn-Berger" in body and "crosstable" in body
        for name in ("ann", "ben", "cat", "dan"):
            assert name in body.lower()
    assert {"tournament_game", "tournament_final"} <= _read_safely(server)


def test_joining_a_started_tournament_is_refused(server) -> None:
    tid = _start(server)
    with transaction(server.engine) as session:
        tournament = T.get(session, tid)
        player = session.exec(select(Player).where(Player.address == PLAYERS[0])).one()
        with pytest.raises(Exception) as refused:  # noqa: PT011
            T.join(session, tournament, player, now())
        assert refused.value.code == "tournament.not_open"
        assert len(session.exec(select(Entry).where(Entry.tournament_id == tid)).all()) == 4


def test_leaving_after_the_start_resigns_the_tournament(server) -> None:
    tid = _start(server)  # four players, three rounds
    quitter = PLAYERS[0]
    game = next(g for g in _games(server, tid, 1) if _address(server, g.player0_id) == quitter
                or _address(server, g.player1_id) == quitter)
    opponent = _address(server, game.player1_id if _address(server, game.player0_id) == quitter else game.player0_id)
    server.say(quitter, f"leave {tid}")
    (reply,) = [m for m in server.mails(quitter) if "you are withdrawn" in m["Subject"]]
    assert reply["Subject"].startswith("[pbem] Tournament Winter Cup: you are withdrawn")
    body = " ".join(text(reply).split())
    assert f"As you asked, you are withdrawn from the tournament Winter Cup (#{tid})." in body
    assert f"Your game #{game.id} of this round goes to your opponent" in body
    assert "Your 2 remaining games are scored as losses by forfeit." in body
    with Session(server.engine) as session:
        assert session.get(Game, game.id).status == "finished"
        entry = session.exec(select(Entry).join(Player).where(Player.address == quitter)).one()
        assert entry.withdrawn and entry.withdrawn_reason == "resigned the tournament"
    assert "You won" in " ".join(text(server.last(opponent)).split()) or "withdrawn" in text(server.last(opponent))
    server.say(quitter, f"leave {tid}")  # once is enough
    assert f"You are not in tournament #{tid}." in " ".join(text(server.last(quitter)).split())


def test_a_swiss_of_four_pairs_two_rounds_without_a_repeat_and_finishes(server) -> None:
    tid = _start(server, "swiss", rounds=2)
    settings = server.service.settings
    pairs = []
    for round in (1, 2):
        games = _games(server, tid, round)
        assert len(games) == 2
        pairs += [frozenset((g.player0_id, g.player1_id)) for g in games]
        for game in games:
            server.say(_address(server, game.player1_id), f"resign {game.id}")
        assert tournament_rounds.advance_due(server.engine, settings) == 1
    assert len(set(pairs)) == 4
    with Session(server.engine) as session:
        assert T.get(session, tid).status == "finished"
    assert "Buchholz" in text(server.last(PLAYERS[0]))


def _open(server, name: str = "Spring Cup", fmt: str = "roundrobin", rounds: int | None = None) -> int:
    with transaction(server.engine) as session:
        return T.create(session, name, fmt, "ataxx", now(), days=4, rounds=rounds).id


def test_sign_up_by_mail_and_every_refusal_says_why(server) -> None:
    tid = _open(server)
    swiss = _open(server, "Blitz Swiss", "swiss", rounds=5)
    server.say(PLAYERS[0], "tournaments")
    listing = " ".join(text(server.last(PLAYERS[0])).split())
    assert f"#{tid} Spring Cup: ataxx 7x7, round robin, 4 days a move, 0 players" in listing
    assert f"#{swiss} Blitz Swiss: ataxx 7x7, Swiss system in 5 rounds, 4 days a move, 0 players" in listing
    assert f'write e.g. "join {tid}"' in listing

    server.say(PLAYERS[0], f"join {tid}")
    joined = server.last(PLAYERS[0])
    assert "you are in" in joined["Subject"]
    assert "You have joined the tournament Spring Cup" in " ".join(text(joined).split())
    server.say(PLAYERS[0], f"join {tid}")
    assert "You have already joined tournament" in " ".join(text(server.last(PLAYERS[0])).split())
    server.say(PLAYERS[0], "join 99")
    assert "There is no tournament #99." in text(server.last(PLAYERS[0]))
    server.say(PLAYERS[0], "join")
    assert "Please name the tournament by its number." in text(server.last(PLAYERS[0]))
    server.say(PLAYERS[1], f"leave {tid}")  # a new player's mail, without proof: the refusal comes at once
    assert "You are not in tournament" in " ".join(text(server.last(PLAYERS[1])).split())
    server.say(PLAYERS[0], f"leave {tid}")
    assert "You have left the tournament Spring Cup" in " ".join(text(server.last(PLAYERS[0])).split())
    for address in PLAYERS:
        server.say(address, f"join {tid}")
        if "Did you write to me" in server.last(address)["Subject"]:
            server.confirm(address)
    with Session(server.engine) as session:
        assert len(session.exec(select(Entry).where(Entry.tournament_id == tid)).all()) == 4
    server.say(PLAYERS[0], f"tournament {tid}")
    shown = " ".join(text(server.last(PLAYERS[0])).split())
    assert "It is open for sign-up" in shown and "4 players" in shown

    settings = server.service.settings
    with transaction(server.engine) as session:
        post.post(session, settings, server.service.templates,
                  T.start(session, T.get(session, tid), settings.reminders, now()))
    server.say(PLAYERS[0], f"join {tid}")
    assert "is no longer open for sign-up" in " ".join(text(server.last(PLAYERS[0])).split())
    server.say(PLAYERS[0], f"tournament {tid}")
    body = text(server.last(PLAYERS[0]))
    flat = " ".join(body.split())
    assert "Round 1 of 3 is being played." in flat and "The games of round 1:" in flat
    assert "in progress" in flat and "crosstable" in flat
    assert {"tournaments", "tournament_joined", "tournament_left", "tournament"} <= _read_safely(server)


def _time_out(server, game_id: int, late: int) -> None:
    """The late player's game ends with their loss on time (as the clock round ends it)."""
    with transaction(server.engine) as session:
        game = session.get(Game, game_id)
        G.finish(session, game, 1 - game.side_of(late), "time", now(), ending="time")


def _lose_on_time(server, tid: int, late: int, rounds: tuple[int, ...]) -> None:
    """In each of `rounds`, the late player runs out of time and every other game is resigned;
    each round over, the daemon's round pairs the next."""
    for round in rounds:
        with transaction(server.engine) as session:
            for game in _games(server, tid, round):
                game = session.get(Game, game.id)
                side = game.side_of(late)
                if side is not None:
                    G.finish(session, game, 1 - side, "time", now(), ending="time")
                else:
                    G.finish(session, game, 0, "resigned", now(), ending="resignation")
        assert tournament_rounds.advance_due(server.engine, server.service.settings) == 1


def _since(server, first: int) -> list[Outbox]:
    with Session(server.engine) as session:
        return list(session.exec(select(Outbox).where(Outbox.id > first).order_by(Outbox.id)))


def _newest(server) -> int:
    with Session(server.engine) as session:
        return max(session.exec(select(Outbox.id)).all())


def test_two_losses_on_time_in_a_row_withdraw_a_player_and_forfeit_the_rest(server) -> None:
    tid = _start(server)  # four players, three rounds
    with Session(server.engine) as session:
        late = session.get(Game, _games(server, tid, 1)[0].id).player1_id
    _lose_on_time(server, tid, late, (1,))
    before = _newest(server)
    _lose_on_time(server, tid, late, (2,))
    with Session(server.engine) as session:
        entry = session.exec(select(Entry).where(Entry.player_id == late)).one()
        assert entry.withdrawn and entry.withdrawn_reason == "lost on time twice in a row"
        third = session.exec(select(TournamentGame).where(TournamentGame.round == 3)).all()
        forfeit = next(b for b in third if late in (b.first_id, b.second_id))
        assert forfeit.forfeit and forfeit.game_id is None
        points = forfeit.first_points if forfeit.first_id == late else forfeit.second_points
        assert points == 0.0 and forfeit.first_points + forfeit.second_points == 1.0
        winner = session.get(Player, forfeit.second_id if forfeit.first_id == late else forfeit.first_id)
        quitter = session.get(Player, late)
    assert len(_games(server, tid, 3)) == 1  # the other two still play theirs
    # the pairing of round 3 told the late player, and their round-3 opponent, in mails of their own
    sent = [(row.recipient, row.template) for row in _since(server, before)]
    assert sorted(t for a, t in sent if a == quitter.address) == ["tournament_withdrawn"]
    assert sorted(t for a, t in sent if a == winner.address) == ["tournament_forfeit"]
    assert sorted(t for a, t in sent if a not in (quitter.address, winner.address)) == ["tournament_game"] * 2
    withdrawn = server.last(quitter.address)
    assert withdrawn["Subject"].startswith("[pbem] Tournament Winter Cup: you are withdrawn")
    body = " ".join(text(withdrawn).split())
    assert ("You have lost 2 games in a row on time, so you are withdrawn from the tournament Winter Cup"
            f" (#{tid}).") in body
    assert "Your 1 remaining game is scored as a loss by forfeit." in body
    assert "Your results so far stay in the table." in body and "The operator" not in body
    won = server.last(winner.address)
    assert won["Subject"].startswith("[pbem] Tournament Winter Cup: round 3, a win by forfeit")
    body = " ".join(text(won).split())
    assert (f"Your game against {quitter.name} in round 3 of the tournament Winter Cup (#{tid}) is scored as"
            f" a win by forfeit ({quitter.name} withdrew).") in body
    assert "You have no game to play in this round." in body
    assert {"tournament_withdrawn", "tournament_forfeit"} <= _read_safely(server)


def test_a_swiss_player_withdrawn_on_time_is_not_paired_again(server) -> None:
    tid = _start(server, "swiss", rounds=3)
    with Session(server.engine) as session:
        late = session.get(Game, _games(server, tid, 1)[0].id).player1_id
        address = session.get(Player, late).address
    before = _newest(server)
    _lose_on_time(server, tid, late, (1, 2))
    mails = [row for row in _since(server, before) if row.recipient == address]
    assert [row.template for row in mails][-1] == "tournament_withdrawn"
    body = " ".join(text(server.last(address)).split())
    assert "so you are withdrawn from the tournament Winter Cup" in body
    assert "You will not be paired in its remaining rounds." in body and "forfeit" not in body
    assert all(late not in (g.player0_id, g.player1_id) for g in _games(server, tid, 3))
    assert "tournament_forfeit" not in {row.template for row in _since(server, before)}  # a Swiss forfeits none


@pytest.mark.parametrize("language", ["it", "ru", "uk", "ko", "zh"])
def test_every_tournament_mail_speaks_the_readers_language(server, language) -> None:
    players = _players(server)
    with transaction(server.engine) as session:
        for player in players.values():
            session.get(Player, player.id).language = language
    with Session(server.engine) as session:
        before = max(session.exec(select(Outbox.id)).all())  # the English answers to their first mails
    tid = _open(server, "Cup")
    for address in PLAYERS:
        server.say(address, "tournaments")
        server.say(address, f"join {tid}")
    server.say(PLAYERS[0], f"leave {tid}")
    server.say(PLAYERS[0], f"join {tid}")
    server.say(PLAYERS[0], f"tournament {tid}")
    settings = server.service.settings
    with transaction(server.engine) as session:
        post.post(session, settings, server.service.templates,
                  T.start(session, T.get(session, tid), settings.reminders, now()))
    server.say(PLAYERS[0], f"tournament {tid}")
    late = _games(server, tid, 1)[0].player1_id  # loses on time twice: withdrawn, round 3 a forfeit
    for round in (1, 2, 3):
        for game in _games(server, tid, round):
            if late in (game.player0_id, game.player1_id):
                _time_out(server, game.id, late)
            else:
                server.say(_address(server, game.player1_id), f"resign {game.id}")
        tournament_rounds.advance_due(server.engine, settings)
    server.say(PLAYERS[0], f"tournament {tid}")
    with Session(server.engine) as session:
        rows = session.exec(select(Outbox).where(Outbox.id > before).order_by(Outbox.id)).all()
    sent = set()
    for row in rows:
        mail = parse(row.message)
        body = text(mail).replace("\r\n", "\n")
        if row.template.startswith("tournament"):
            sent.add(row.template)
        assert too_wide(body) == [], f"{language} {row.template}: too wide\n{body}"
        assert english_left(body, language) == [], f"{language} {row.template}:\n{body}"
        assert english_left(mail["Subject"], language) == [], mail["Subject"]
    assert sent == {"tournaments", "tournament_joined", "tournament_left", "tournament", "tournament_game",
                    "tournament_final", "tournament_withdrawn", "tournament_forfeit"}


def test_a_finished_tournaments_table_keeps_the_ratings_it_ended_with(server) -> None:
    tid = _start(server, "swiss", rounds=2)
    settings = server.service.settings
    for number in (1, 2):
        for game in _games(server, tid, number):
            server.say(_address(server, game.player1_id), f"resign {game.id}")
        assert tournament_rounds.advance_due(server.engine, settings) == 1

    def changes() -> dict[str, int | None]:
        with Session(server.engine) as session:
            shown = table.view(session, T.get(session, tid))
            return {row["address"]: row["rating_change"] for row in shown["table"]}

    at_the_end = changes()
    assert all(change is not None and change != 0 for change in at_the_end.values()), at_the_end
    first, second = PLAYERS[0], PLAYERS[1]  # a rated game after the tournament moves their ratings
    server.say(first, f"challenge ataxx {second} colour=first")
    server.say(second, "accept")
    server.say(second, "resign")
    with Session(server.engine) as session:
        later = session.exec(select(Game).order_by(Game.id.desc())).first()
        assert later.status == "finished" and later.winner == 0
        now_rated = {r.player_id: r.rating for r in session.exec(select(Rating).where(Rating.kind == "ataxx"))}
        pid = session.exec(select(Player.id).where(Player.address == first)).one()
        start = session.exec(select(Entry.rating_start).where(Entry.tournament_id == tid, Entry.player_id == pid)).one()
    assert round(now_rated[pid] - start) != at_the_end[first]  # the rating itself moved on
    assert changes() == at_the_end
