"""`say`: a player's words relayed to the opponent and the watchers, quoted, kept with the move."""

from __future__ import annotations

from dataclasses import replace

from sgfmill import sgf
from sqlmodel import Session, select

from pbem.core.models import Game, HeldMail, Player, Remark
from pbem.games import records
from tests.cli.admin.conftest import run, write_config
from tests.mailer import compose, reply_to, text
from tests.players import ALICE, BOB, CAROL, flat, start_game


def _remarks(server) -> list[tuple[int, str]]:
    with Session(server.engine) as session:
        return [(r.ply, r.text) for r in session.exec(select(Remark).order_by(Remark.id))]


def _section(mail, header: str) -> list[str]:
    """The lines of a mail from the one that starts with `header` to the next blank line after the quote."""
    lines = text(mail).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(">"))
    while end < len(lines) and lines[end].startswith(">"):
        end += 1
    return lines[start:end]


def _watched(server) -> None:
    start_game(server)
    server.say(CAROL, "watch 1")
    server.confirm(CAROL)


def test_a_say_alone_reaches_the_opponent_and_the_watchers_quoted(server) -> None:
    _watched(server)
    before = len(server.mails(BOB))
    server.say(ALICE, "say Good luck, Bob!")
    assert len(server.mails(BOB)) == before + 1
    bob = server.last(BOB)
    assert bob["Subject"].startswith("[pbem #1] Ataxx: a message from alice")
    assert _section(bob, "alice writes") == [
        "alice writes to you in game #1 (their words, not mine; the game's",
        "watchers read them too):",
        "",
        "> Good luck, Bob!",
    ]
    assert 'To get no more messages from opponents, write "say off".' in flat(bob)
    assert "<blockquote" in bob.get_body(("html",)).get_content()  # a quotation in the HTML part too
    carol = server.last(CAROL)
    assert _section(carol, "alice writes") == [
        "alice writes to bob in game #1, in public, for the watchers too (their",
        "words, not mine):",
        "",
        "> Good luck, Bob!",
    ]
    assert "Your message was relayed to bob and to the 1 watcher of game #1." in flat(server.last(ALICE))
    assert _remarks(server) == [(0, "Good luck, Bob!")]


def test_a_say_with_a_move_is_one_mail_and_goes_with_that_move(server) -> None:
    _watched(server)
    before = len(server.mails(BOB))
    server.say(ALICE, "say Here it comes.\nf2")  # the say first: it still goes with the move
    assert len(server.mails(BOB)) == before + 1
    bob = server.last(BOB)
    assert bob["Subject"].startswith("[pbem #1] Ataxx: your move, bob (move 2)")
    body = text(bob)
    assert body.index("alice played f2") < body.index("  2 | . . . . . X . | 2") < body.index("> Here it comes.")
    assert "Your message was relayed to bob" in flat(server.last(ALICE))
    assert server.last(ALICE)["Subject"].startswith("[pbem #1] Ataxx: you played f2")
    server.say(BOB, "a1-c1\nsay Thanks, you too.")  # the say after the move
    server.say(ALICE, "say Nice.")  # alone: the game's ply
    assert _remarks(server) == [(1, "Here it comes."), (2, "Thanks, you too."), (2, "Nice.")]


def test_several_say_lines_make_one_message_of_several_lines(server) -> None:
    start_game(server)
    server.say(ALICE, "say First line.\nsay Second line.")
    assert _section(server.last(BOB), "alice writes")[-2:] == ["> First line.", "> Second line."]
    assert flat(server.last(BOB)).count("alice writes") == 1
    assert _remarks(server) == [(0, "First line.\nSecond line.")]


def test_say_off_stores_but_relays_nothing_to_them(server) -> None:
    _watched(server)
    server.say(BOB, "say off")
    assert "I will no longer pass on the messages your opponents write to you" in flat(server.last(BOB))
    before = len(server.mails(BOB))
    server.say(ALICE, "say Are you there?")
    assert len(server.mails(BOB)) == before
    assert (
        "bob has turned relayed messages off, so your message was stored with game #1 but not passed on "
        "to them. It was relayed to the 1 watcher of the game." in flat(server.last(ALICE))
    )
    assert "> Are you there?" in text(server.last(CAROL))
    assert _remarks(server) == [(0, "Are you there?")]
    server.say(BOB, "say on")
    server.say(ALICE, "say Now?")
    assert "> Now?" in text(server.last(BOB))
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == BOB)).one().relay is True


def test_an_opponent_who_gets_no_mail_is_not_said_to_have_read_it(server) -> None:
    _watched(server)
    started = server.mails(BOB)[-1]
    server.send(reply_to(BOB, started, "stop"))
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == BOB)).one().stopped_at is not None
    before = len(server.mails(BOB))
    server.say(ALICE, "say Are you there?")
    assert len(server.mails(BOB)) == before  # no mail to someone who wrote `stop`
    said = flat(server.last(ALICE))
    assert "relayed to bob" not in said
    assert ("bob gets no mail from me at the moment, so your message was stored with game #1 but not passed "
            "on to them. It was relayed to the 1 watcher of the game.") in said
    assert "> Are you there?" in text(server.last(CAROL))
    assert _remarks(server) == [(0, "Are you there?")]


def test_a_message_to_a_bot_is_kept_and_the_sender_told_it_reads_none(server) -> None:
    server.say(ALICE, "challenge ataxx bot level=2 colour=first")
    server.confirm(ALICE)
    server.send(reply_to(ALICE, server.last(ALICE), "say Good game, machine."))
    said = flat(server.last(ALICE))
    assert ("bot-ataxx-2 is a program and reads no messages, so your message was stored with game #1 but not "
            "passed on to them.") in said
    assert "relayed" not in said
    assert _remarks(server) == [(0, "Good game, machine.")]


def test_a_long_message_is_refused_and_nothing_stored(server) -> None:
    start_game(server)
    before = len(server.mails(BOB))
    server.say(ALICE, "say " + "x" * 1001)
    said = flat(server.last(ALICE))
    assert "Your message is 1,001 characters long; the most I relay is 1,000." in said
    assert "Nothing was stored or relayed" in said
    server.say(ALICE, "say " + "blah " * 20_000)  # 100 KB
    assert "characters long; the most I relay is 1,000." in flat(server.last(ALICE))
    assert _remarks(server) == [] and len(server.mails(BOB)) == before


def test_the_messages_of_a_day_are_limited(server) -> None:
    start_game(server)
    server.service.settings = replace(server.service.settings, say_max_per_day=2)
    server.say(ALICE, "say one")
    server.say(ALICE, "say two")
    before = len(server.mails(BOB))
    server.say(ALICE, "say three")
    assert "You have relayed 2 messages today, the most I relay in a day." in flat(server.last(ALICE))
    assert len(server.mails(BOB)) == before
    assert [t for _, t in _remarks(server)] == ["one", "two"]


def test_without_proof_it_is_held_and_nothing_relayed(server) -> None:
    start_game(server)
    before = len(server.mails(BOB))
    server.send(compose(ALICE, "say 1 Forged words"))  # no token: anyone could have written it
    assert _remarks(server) == [] and len(server.mails(BOB)) == before
    with Session(server.engine) as session:
        held = session.exec(select(HeldMail).where(HeldMail.status == "held")).all()
        assert [row.lines for row in held] == ["say 1 Forged words"]
    server.confirm(ALICE)  # she shows she receives our mail: now it goes
    assert "> Forged words" in text(server.last(BOB))


def test_a_robot_relays_nothing(server) -> None:
    start_game(server)
    before = len(server.mails(BOB))
    mail = server.last(ALICE)
    raw = reply_to(ALICE, mail, "say I am out of the office").replace(
        b"Subject:", b"Auto-Submitted: auto-replied\r\nSubject:", 1)
    assert server.send(raw) == "robot"
    assert _remarks(server) == [] and len(server.mails(BOB)) == before


def test_only_plain_text_is_relayed(server) -> None:
    start_game(server)
    server.say(ALICE, "say <b>Bold</b> &amp; \x07bell \u202eevil \ue010board 0\ue010 > quoted")
    assert _remarks(server) == [(0, "Bold & bell evil board 0 > quoted")]
    server.say(ALICE, "say > > from your mail [pbem #1] [k:1.2.3]")
    assert _remarks(server)[-1] == (0, "from your mail")


def test_a_watcher_cannot_say(server) -> None:
    _watched(server)
    server.say(CAROL, "say 1 Go Bob!")
    assert "You are not playing a game #1." in flat(server.last(CAROL))
    assert _remarks(server) == []


def test_history_shows_each_message_after_its_move(server) -> None:
    start_game(server)
    server.say(ALICE, "say Before anything.")
    server.say(ALICE, "f2\nsay With f2.")
    server.say(BOB, "a1-c1")
    server.say(BOB, "history")
    lines = text(server.last(BOB)).splitlines()
    at = lines.index("The moves of game #1.")
    assert [line.split(",")[0] for line in lines[at + 1:at + 8]] == [
        "        alice wrote:",
        "        > Before anything.",
        "     1. f2                       alice",
        "        alice wrote:",
        "        > With f2.",
        "     2. a1-c1                    bob",
        "",
    ]


def test_the_sgf_record_carries_the_messages_as_comments(server) -> None:
    start_game(server, "capturego", "size=9 colour=black")
    server.say(ALICE, "say Have fun [really] \\o/")
    server.say(ALICE, "e5\nsay Centre.")
    server.say(BOB, "say Hmm.\nsay Let me think.\nd5")
    with Session(server.engine) as session:
        record = records.export(session, session.get(Game, 1))
    game = sgf.Sgf_game.from_string(record.text)
    root, first, second = game.get_main_sequence()
    assert root.get("C") == "pbem game #1\nalice: Have fun [really] \\o/"
    assert first.get_move()[0] == "b" and first.get("C") == "alice: Centre."
    assert second.get("C") == "bob: Hmm.\nLet me think."
    assert records.from_sgf(record.text)[1] == ["e5", "d5"]  # the moves read back as before


def test_the_text_record_keeps_the_messages_and_still_replays(server) -> None:
    start_game(server)
    server.say(ALICE, "say {braces} and \\ backslash")
    server.say(ALICE, "f2\nsay Line one.\nsay Line two }")
    server.say(BOB, "a1-c1")
    with Session(server.engine) as session:
        record = records.export(session, session.get(Game, 1))
    assert "1. f2 {alice: Line one.\\nLine two \\}}" in record.text.splitlines()
    _, _, tags, moves = records.replay(record.text)
    assert moves == ["f2", "a1-c1"] and tags["Game"] == "ataxx"
    assert records.comments(record.text) == [
        (0, "alice: {braces} and \\ backslash"),
        (1, "alice: Line one.\nLine two }"),
    ]


def test_admin_game_lists_the_messages(server, tmp_path) -> None:
    start_game(server)
    server.say(ALICE, "f2\nsay Good luck!\nsay Second line.")
    config = write_config(tmp_path / "pbem.toml", {"database_url": server.service.settings.database_url,
                                                   "home": str(tmp_path)})
    shown = run("game", "1", config=config).splitlines()
    at = shown.index("Messages relayed (say):")
    assert shown[at + 1].split() == ["ply", "by", "at", "(UTC)", "text"]
    assert shown[at + 2].startswith("1    alice@example.org  ")
    assert shown[at + 2].endswith("  Good luck! / Second line.")
    assert run_json_remarks(config) == [("alice@example.org", 1, "Good luck!\nSecond line.")]


def run_json_remarks(config: str) -> list[tuple[str, int, str]]:
    import json

    return [(r["by"], r["ply"], r["text"]) for r in json.loads(run("game", "1", "--json", config=config))["remarks"]]


def test_say_off_from_an_older_mail_is_refused(server) -> None:
    start_game(server)
    older = server.last(BOB)
    server.send(reply_to(BOB, older, "timezone Europe/Rome"))  # a change of his records since
    server.send(reply_to(BOB, older, "say off"))
    assert "your settings have changed since, so I did not act on it" in flat(server.last(BOB))
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == BOB)).one().relay is True
    server.send(reply_to(ALICE, server.last(ALICE), "say Still there?"))  # a plain say makes nothing stale
    server.send(reply_to(ALICE, server.mails(ALICE)[-2], "timezone Europe/Rome"))
    with Session(server.engine) as session:
        assert session.exec(select(Player).where(Player.address == ALICE)).one().timezone == "Europe/Rome"
