"""Each email command: what it changes, what it answers, and how it refuses."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem.core.models import Challenge, Game, Player
from tests.mailer import compose, reply_to, text
from tests.players import ALICE, BOB, CAROL, flat, start_game


def test_challenge_refusals_say_what_to_write(server) -> None:
    cases = {
        "challenge chess bob@example.org": "I do not know a game called 'chess'",
        "challenge ataxx bob": 'not one email address',
        "challenge ataxx alice@example.org": "You cannot challenge yourself",
        "challenge capturego bob@example.org size=4": "size=4 is out of range",
        "challenge ataxx bob@example.org variant=myriades": "Myriades is not a variant of Ataxx",
        "challenge ataxx bob@example.org colour=purple": "colour=purple is not a colour in Ataxx",
        "challenge": "Please name the game",
    }
    for line, expected in cases.items():
        server.say(ALICE, line)
        assert expected in flat(server.last(ALICE)), line
    with Session(server.engine) as session:
        assert session.exec(select(Challenge)).all() == []


def test_variant_and_options_reach_the_game(server) -> None:
    server.say(ALICE, f"challenge ataxx {BOB} variant=infection blocks=c3,e3,c5,e5 colour=o")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))
    with Session(server.engine) as session:
        game = session.get(Game, 1)
        bob = session.exec(select(Player).where(Player.address == BOB)).one()
        assert game.kind == "infection" and game.options == {"blocks": "c3 e3 c5 e5"}
        assert game.player0_id == bob.id  # Alice asked for o, so Bob (x) moves first
    assert "#  blocked" in text(server.last(BOB))


def test_open_challenge_is_listed_and_taken_by_anyone(server) -> None:
    server.say(ALICE, "challenge myriades colour=second")
    server.confirm(ALICE)
    assert "open challenge #1" in flat(server.last(ALICE))
    server.say(CAROL, "open")
    assert "#1 myriades 10x10, from alice" in flat(server.last(CAROL))
    server.send(reply_to(ALICE, server.last(ALICE), "accept 1"))
    assert "is your own" in flat(server.last(ALICE))
    server.send(reply_to(CAROL, server.last(CAROL), "accept 1"))
    assert "You move first" in flat(server.last(CAROL))
    assert "carol accepted your challenge #1" in flat(server.last(ALICE))
    server.say(BOB, "open")
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))
    assert "no longer open (it was accepted)" in flat(server.last(BOB))


def test_decline_and_withdraw_belong_to_the_right_player(server) -> None:
    server.say(ALICE, f"challenge ataxx {BOB}")
    server.confirm(ALICE)
    server.say(CAROL, "decline 1")
    assert "not addressed to you" in flat(server.last(CAROL))
    server.say(BOB, "withdraw 1")
    assert "is not yours" in flat(server.last(BOB))
    server.say(BOB, "decline 1")
    assert "bob declined your challenge #1" in flat(server.last(ALICE))
    server.say(ALICE, f"challenge ataxx {CAROL}")
    server.confirm(ALICE)
    server.say(ALICE, "withdraw 2")
    assert "alice withdrew challenge #2" in flat(server.last(CAROL))


def test_moving_out_of_turn_and_in_a_finished_game(server) -> None:
    start_game(server)
    server.send(reply_to(BOB, server.last(BOB), "move 1 a1-c3"))
    assert "It is not your move in game #1" in flat(server.last(BOB))
    server.send(reply_to(ALICE, server.last(ALICE), "resign"))
    server.send(reply_to(BOB, server.last(BOB), "move 1 a1-c3"))
    assert "Game #1 is over (0-1, alice resigned)" in flat(server.last(BOB))


def test_draw_offer_refusal_and_agreement(server) -> None:
    start_game(server, "capturego", "colour=black")
    server.send(reply_to(ALICE, server.last(ALICE), "draw"))
    assert "alice offers you a draw" in flat(server.last(BOB))
    server.send(reply_to(BOB, server.last(BOB), "nodraw"))
    assert "was refused" in flat(server.last(ALICE))
    server.send(reply_to(BOB, server.last(BOB), "draw"))
    server.send(reply_to(ALICE, server.last(ALICE), "draw"))
    assert "draw agreed" in flat(server.last(BOB)) and "1/2-1/2" in server.last(BOB)["Subject"]


def test_a_move_declines_a_pending_draw_offer(server) -> None:
    start_game(server, "capturego", "colour=black")
    server.send(reply_to(BOB, server.last(BOB), "draw"))
    server.send(reply_to(ALICE, server.last(ALICE), "e5"))
    with Session(server.engine) as session:
        assert session.get(Game, 1).draw_offer is None


def test_which_game_when_a_player_has_several(server) -> None:
    start_game(server)
    server.say(ALICE, f"challenge capturego {BOB}")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 2"))
    server.send(compose(ALICE, "board", to=server.our_address(ALICE)))  # proof, and no game named
    assert "You have 2 games in progress (#1, #2)" in flat(server.last(ALICE))
    server.say(ALICE, "board 2")
    assert "[pbem #2] Capture Go: the board" in server.last(ALICE)["Subject"]
    server.say(ALICE, "games")
    text = flat(server.last(ALICE))
    assert "#1 ataxx 7x7 against bob: YOUR MOVE" in text and "#2 capture go" in text


def test_name_history_help_and_ignored_lines(server) -> None:
    server.say(ALICE, "name Alice Liddell\nthanks, see you!")
    assert "| thanks, see you!" in flat(server.last(ALICE))
    server.confirm(ALICE)  # a first mail shows no proof of receipt: held until she confirms
    assert 'Your name is now "Alice Liddell"' in flat(server.last(ALICE))
    server.say(ALICE, "name <script>")
    assert "cannot be a name here" in flat(server.last(ALICE))
    server.say(ALICE, "name Ｐbеm Server")  # issue 32: fullwidth P, Cyrillic е
    assert "reads like the name of this server" in flat(server.last(ALICE))
    start_game(server)
    server.send(reply_to(ALICE, server.last(ALICE), "f2"))
    server.say(BOB, "history 1")
    assert "1. f2" in flat(server.last(BOB))
    server.say(BOB, "help draw")
    assert "Offer a draw, or accept the draw your opponent offered." in flat(server.last(BOB))
    server.say(BOB, "hello")
    assert server.last(BOB)["Subject"] == "[pbem] I found no command in your mail"


def test_a_reply_to_any_of_our_mails_is_not_read_from_its_subject(server) -> None:
    server.say(ALICE, f"challenge ataxx {BOB}")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "decline 1"))
    declined = server.last(ALICE)
    assert declined["Subject"] == "[pbem] Challenge #1: bob declined"
    server.send(reply_to(ALICE, declined, "games"))  # "Re: [pbem] Challenge #1: ..." is no command
    answer = server.last(ALICE)
    assert "not done" not in answer["Subject"] and "You have no game in progress" in flat(answer)


def test_an_invited_player_takes_the_name_of_their_first_mail(server) -> None:
    server.say(ALICE, f"challenge ataxx {BOB}")
    server.confirm(ALICE)
    assert "challenge #1" in flat(server.last(ALICE)).lower()
    server.send(reply_to(f"Bob Stone <{BOB}>", server.last(BOB), "accept 1"))
    assert "Bob Stone accepted your challenge #1" in flat(server.last(ALICE))
    server.send(reply_to(f"Someone Else <{BOB}>", server.last(BOB), "name Robert"))
    server.send(compose(f"Someone Else <{BOB}>", "games"))
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == BOB)).one().name == "Robert"


def test_help_lists_every_command_grouped_by_purpose(server) -> None:
    from pbem.commands import commands

    server.say(ALICE, "help all")  # the whole list; plain "help" leads with the few that matter most
    body = flat(server.last(ALICE))
    positions = [body.index(f"- {c.syntax}") for c in commands()]  # every command is listed
    assert len(positions) == len(commands())
    assert body.index("- help [COMMAND") < body.index("- challenge GAME") < body.index("- move [ID] MOVE")
    assert body.index("- move [ID] MOVE") < body.index("- name NEW NAME")


def test_every_help_text_fits_a_narrow_client(server) -> None:
    from pbem.commands import commands

    for command in commands():
        server.say(ALICE, f"help {command.name}")
        body = text(server.last(ALICE))
        assert command.syntax in body
        assert all(len(line) <= 72 for line in body.splitlines()), command.name


def test_a_move_mail_says_what_the_move_took(server) -> None:
    start_game(server, "capturego", "size=5 target=2 colour=black")
    for who, move in [(ALICE, "c3"), (BOB, "a1"), (ALICE, "a2"), (BOB, "e5"), (ALICE, "b1")]:
        server.send(reply_to(who, server.last(who), move))
    assert "alice played b1 and captured 1 of your stones. Your move, bob" in flat(server.last(BOB))
    assert "You played b1 and captured 1 of bob's stones in game #1" in flat(server.last(ALICE))
