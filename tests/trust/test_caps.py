"""Issue 25: what a proven player can make us send to others is capped, `stop` ends our mail
for good (also by the List-Unsubscribe address), and a forger chooses no one's language."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlmodel import Session, func, select

from pbem.core.db import transaction
from pbem.core.models import Challenge, Game, Player, Remark, TournamentGame
from pbem.core.wallclock import now
from pbem.games import players
from pbem.text.i18n import LANGUAGES, speaker
from pbem.trust import proof as trust
from pbem_engine.common.phrases import nphrase, phrase
from tests.languages import english_left
from tests.mailer import compose, reply_to, text
from tests.players import ALICE, BOB, start_game

VICTIM, CAROL = "victim@example.net", "carol@example.org"


def _squeezed(value: str) -> str:
    return "".join(value.split())


def _says(mail, said, language: str) -> bool:  # noqa: ANN001
    """Whether a mail holds `said` (a Phrase) as its reader's language words it (wrapping aside)."""
    return _squeezed(speaker(language).say(said)) in _squeezed(text(mail))


def _player(server, address: str) -> Player | None:
    with Session(server.engine) as session:
        return session.exec(select(Player).where(Player.address == address)).first()


def _count(server, model, *where) -> int:  # noqa: ANN001
    with Session(server.engine) as session:
        return session.exec(select(func.count(model.id)).where(*where)).one()


def _proven(server, address: str, language: str = "en") -> None:
    """A player who has shown that they read our mail (a first mail, then a reply), in `language`."""
    with transaction(server.engine) as session:
        players.get_or_register(session, address, now()).language = language
    server.say(address, "help")
    server.say(address, "help")
    assert _player(server, address).proven_at is not None


def _english_free(mail, language: str) -> None:  # noqa: ANN001
    if language != "en":
        assert english_left(text(mail), language) == []


# --- invitations to addresses that never wrote -----------------------------------------------------


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_thirty_invitations_in_one_mail_reach_the_stranger_once(server, language: str) -> None:
    _proven(server, ALICE, language)
    server.say(ALICE, "\n".join([f"challenge ataxx {VICTIM}"] * 30))
    assert _count(server, Challenge) == 1
    assert len(server.mails(VICTIM)) == 1
    answer = server.last(ALICE)
    assert answer["Content-Language"] == language
    refused = phrase("{address} has never written to me and has not yet answered challenge #{challenge}: I send "
                     "one invitation at a time to such an address.", address=VICTIM, challenge=1)
    assert _says(answer, refused, language)
    assert _says(answer, phrase("Nothing was sent. Once they answer it, or write to me, they can be challenged "
                                "again."), language)
    _english_free(answer, language)
    # five such mails: still one invitation
    for _ in range(4):
        server.say(ALICE, "\n".join([f"challenge ataxx {VICTIM}"] * 30))
    assert len(server.mails(VICTIM)) == 1
    # any mail from the stranger answers it: one more may come
    server.send(compose(VICTIM, "help"))
    server.say(ALICE, f"challenge ataxx {VICTIM}")
    assert _count(server, Challenge) == 2


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_a_player_invites_a_few_strangers_a_day_and_anyone_who_wrote(server, language: str) -> None:
    _proven(server, ALICE, language)
    _proven(server, BOB)
    strangers = [f"s{n}@example.net" for n in range(5)]
    server.say(ALICE, "\n".join(f"challenge ataxx {s}" for s in strangers))
    assert [len(server.mails(s)) for s in strangers] == [1, 1, 1, 0, 0]
    answer = server.last(ALICE)
    limit = server.service.settings.max_invitations_per_day
    cap = nphrase("You have invited {n} address that never wrote to me today, the most I send for one player "
                  "in a day.", "You have invited {n} addresses that never wrote to me today, the most I send for "
                  "one player in a day.", limit)
    assert _says(answer, cap, language)
    assert _says(answer, phrase("Nothing was sent. You can invite a new address again after midnight (UTC); "
                                "players who have written to me can be challenged at any time."), language)
    _english_free(answer, language)
    server.say(ALICE, f"challenge ataxx {BOB}")  # Bob has written to us: no cap
    assert _count(server, Challenge) == 4
    with Session(server.engine) as session:
        alice = session.exec(select(Player).where(Player.address == ALICE)).one()
        assert trust.invitations_left(session, server.service.settings, alice, None, now()).left == 0


def test_an_unproven_mail_of_challenges_is_held_and_capped_when_confirmed(server) -> None:
    server.send(compose(ALICE, "\n".join(f"challenge ataxx s{n}@example.net" for n in range(5))))
    server.confirm(ALICE)
    assert _count(server, Challenge) == 3
    assert sum(len(server.mails(f"s{n}@example.net")) for n in range(5)) == 3


# --- stop ---------------------------------------------------------------------------------------


def _stop_address(mail) -> str:  # noqa: ANN001
    value = str(mail["List-Unsubscribe"]).strip()
    assert value.startswith("<mailto:") and value.endswith(">")
    return value.removeprefix("<mailto:").removesuffix(">")


def test_the_list_unsubscribe_address_stops_a_stranger_and_a_forger_cannot(server) -> None:
    _proven(server, ALICE)
    assert server.last(ALICE)["List-Unsubscribe"] is None  # a proven player's mails have none
    server.say(ALICE, f"challenge ataxx {VICTIM}")
    invitation = server.last(VICTIM)
    address = _stop_address(invitation)
    assert '"stop"' in text(invitation) and "no more mail from this server" in text(invitation)
    # a forged token, or the address of another player, stops nobody
    victim = _player(server, VICTIM)
    forged = address.replace(address.split("-", 1)[1].split(".")[1][:4], "0000")
    assert server.send(compose("eve@example.org", "", to=forged)) != "stopped"
    with Session(server.engine) as session:
        alice = session.exec(select(Player).where(Player.address == ALICE)).one()
        wrong = trust.stop_address(server.service.settings, alice).replace(f"stop-{alice.id}.", f"stop-{victim.id}.")
    assert server.send(compose("eve@example.org", "", to=wrong)) != "stopped"
    assert _player(server, VICTIM).stopped_at is None
    # the real address stops them: no body needed, no answer to anyone
    before = server.count()
    assert server.send(compose(VICTIM, "", to=address)) == "stopped"
    assert _player(server, VICTIM).stopped_at is not None
    assert server.count() == before
    # not invited again, and nothing of the game reaches them
    server.say(ALICE, f"challenge ataxx {VICTIM}")
    refused = phrase("{address} has asked to get no mail from this server, so I send them no challenge.",
                     address=VICTIM)
    assert _says(server.last(ALICE), refused, "en")
    server.say(ALICE, "withdraw 1")
    assert len(server.mails(VICTIM)) == 1
    # their reply to our mail lifts it, with a line that says so
    server.send(reply_to(VICTIM, invitation, "help"))
    assert _player(server, VICTIM).stopped_at is None
    assert "you get my mail again" in " ".join(text(server.last(VICTIM)).split())
    # and the stop address of the mails before that stops nothing more: a replay of the old stop
    # mail, or a stranger who kept a copy of the invitation, leaves their mail on
    assert server.send(compose("eve@example.org", "", to=address)) != "stopped"
    assert server.send(compose(VICTIM, "", to=address)) != "stopped"
    assert _player(server, VICTIM).stopped_at is None
    with Session(server.engine) as session:
        victim = session.exec(select(Player).where(Player.address == VICTIM)).one()
        fresh = trust.stop_address(server.service.settings, victim)
    assert fresh != address
    assert server.send(compose(VICTIM, "", to=fresh)) == "stopped"  # a new mail's address works
    assert _player(server, VICTIM).stopped_at is not None


def test_stop_by_mail_is_the_last_mail_until_a_reply_to_it(server) -> None:
    start_game(server)
    started = server.last(BOB)
    server.send(reply_to(BOB, started, "stop"))
    farewell = server.last(BOB)
    assert "No more mail from this server" in farewell["Subject"]
    assert _player(server, BOB).stopped_at is not None
    count = len(server.mails(BOB))
    server.say(ALICE, "f2")  # Bob's move: no mail
    server.say(ALICE, "say 1 Are you there?")
    server.send(compose(BOB, "help"))  # unproven: nothing, not even the notice
    assert len(server.mails(BOB)) == count
    server.send(reply_to(BOB, started, "help"))  # a mail older than the stop lifts nothing
    assert _player(server, BOB).stopped_at is not None and len(server.mails(BOB)) == count
    server.send(reply_to(BOB, farewell, "board 1"))
    assert _player(server, BOB).stopped_at is None
    assert "you get my mail again" in " ".join(text(server.last(BOB)).split())


def test_stop_in_a_reply_to_a_held_notice_confirms_nothing(server) -> None:
    server.send(compose(VICTIM, f"challenge ataxx {CAROL}"))  # forged in the victim's name
    server.send(reply_to(VICTIM, server.last(VICTIM), "stop"))
    assert _count(server, Challenge) == 0
    assert server.mails(CAROL) == []
    assert _player(server, VICTIM).stopped_at is not None


# --- per pair ------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_say_reaches_one_opponent_a_few_times_a_day(server, language: str) -> None:
    server.service.settings = replace(server.service.settings, max_relays_per_pair_per_day=3)
    start_game(server)
    with transaction(server.engine) as session:
        session.exec(select(Player).where(Player.address == ALICE)).one().language = language
    before = len(server.mails(BOB))
    for n in range(5):
        server.say(ALICE, f"say 1 Hello {n}")
    assert _count(server, Remark) == 3
    assert len(server.mails(BOB)) == before + 3
    answer = server.last(ALICE)
    cap = nphrase("You have relayed {n} message to {name} today, the most I relay to one opponent in a day.",
                  "You have relayed {n} messages to {name} today, the most I relay to one opponent in a day.",
                  3, name="bob")
    assert _says(answer, cap, language)
    _english_free(answer, language)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_takebacks_asked_in_one_game_are_capped_per_day(server, language: str) -> None:
    start_game(server)
    with transaction(server.engine) as session:
        session.exec(select(Player).where(Player.address == ALICE)).one().language = language
    server.say(ALICE, "f2")
    limit = server.service.settings.max_takebacks_per_game_per_day
    for _ in range(limit):
        server.say(ALICE, "takeback")
        server.say(BOB, "takeback refuse")
    before = len(server.mails(BOB))
    server.say(ALICE, "takeback")
    assert len(server.mails(BOB)) == before
    with Session(server.engine) as session:
        game = session.get(Game, 1)
        assert game.takeback_offer is None and game.takeback_asks["sides"] == [limit, 0]
    answer = server.last(ALICE)
    cap = nphrase("You have asked for {n} take-back in game #{game} today, the most one player may ask in a "
                  "game in a day.", "You have asked for {n} take-backs in game #{game} today, the most one "
                  "player may ask in a game in a day.", limit, game=1)
    assert _says(answer, cap, language)
    assert _says(answer, phrase("Nothing was asked. You may ask again after midnight (UTC)."), language)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_ladder_challenge_and_resign_pairs_start_one_game_a_day(server, language: str) -> None:
    from pbem.tournaments import tournament as T
    from tests.tournaments.test_ladders import PLAYERS, _challenge_game, _ladder

    tid = _ladder(server)
    ann, ben = PLAYERS[0], PLAYERS[1]
    with transaction(server.engine) as session:
        session.exec(select(Player).where(Player.address == ben)).one().language = language
    before = len(server.mails(ann))
    for attempt in range(3):
        server.say(ben, f"ladder {tid} 1")
        if attempt == 0:
            server.say(ben, f"resign {_challenge_game(server, tid, ben).id}")
    answer = server.last(ben)  # the answer to the last `ladder`
    with Session(server.engine) as session:
        assert len(session.exec(select(TournamentGame).where(TournamentGame.tournament_id == tid)).all()) == 1
        assert T.get(session, tid).round == 1
    assert len(server.mails(ann)) == before + 2  # the game's start and its end
    cap = nphrase("You and the player in place {place} have had {n} ladder challenge today, the most between "
                  "two players in a day.", "You and the player in place {place} have had {n} ladder challenges "
                  "today, the most between two players in a day.", 1, place=1)
    assert _says(answer, cap, language)
    _english_free(answer, language)


def test_the_stop_address_reads_back_and_no_other() -> None:
    from pbem.mail.message import notation

    assert notation.parse_stop_address("pbem+stop-12.0123456789abcdef@games.test", "pbem", "games.test") == \
        "12.0123456789abcdef"
    assert notation.parse_stop_address("pbem+12.0123456789abcdef@games.test", "pbem", "games.test") is None
    assert notation.parse_reply_to("pbem+stop-12.0123456789abcdef@games.test", "pbem", "games.test") is None
    assert notation.parse_stop_address("other+stop-12.0123456789abcdef@games.test", "pbem", "games.test") is None
    address = notation.format_stop_address("pbem", "games.test", "12.0123456789abcdef")
    assert notation.parse_stop_address(address.upper().replace("STOP-12.0123456789ABCDEF", "stop-12.0123456789abcdef"),
                                       "pbem", "games.test") == "12.0123456789abcdef"
