"""Every template renders in a real exchange, and no mail line could be misread as a command."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem.commands.lines import reader
from pbem.core.models import Challenge, Game, Outbox
from pbem.mail.message.notation import MAX_SUBJECT
from pbem.text.i18n import speaker
from pbem.text.templates import Templates
from tests.mailer import compose, parse, reply_to, text

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"

# (sender, line, as a reply to the sender's newest mail?): whatever changes something must
# prove receipt; a mail without proof is held, and its sender confirms it by replying.
SCRIPT = [
    (ALICE, "help", False),
    (ALICE, "help challenge", True),
    (ALICE, "address", True),  # her personal address (the first proven mail's answer told it too)
    (ALICE, "address new", True),
    (ALICE, "help all", True),
    (ALICE, "rules capturego", True),
    (ALICE, "name Alice Liddell", True),
    (ALICE, "hello there", True),
    (ALICE, "hlep", True),
    (ALICE, "Ciao! history {game}", True),  # a command after a sentence: buried.txt
    (ALICE, "timezone Europe/Rome", True),
    (ALICE, "display", True),
    (ALICE, "format text", True),
    (ALICE, "format html", True),
    (ALICE, "public yes", True),
    (ALICE, "public no", True),
    (ALICE, "language", True),
    (ALICE, "language italiano", True),
    (ALICE, "language en", True),
    (ALICE, "challenge capturego bob@example.org colour=black size=9", True),
    (ALICE, "confirm", True),
    (ALICE, "confirm", True),  # nothing is waiting any more
    (BOB, "games", False),
    (CAROL, "challenge myriades", False),
    (CAROL, "confirm", True),
    (BOB, "open", True),
    (CAROL, "withdraw 2", True),
    (CAROL, "challenge ataxx bob@example.org", True),
    (BOB, "decline 3", True),
    (ALICE, "challenge infection carol@example.org", True),
    (ALICE, "withdraw 4", True),
    (BOB, "accept 1", True),
    (CAROL, "watch 1", True),
    (ALICE, "move 1 e5", True),
    (BOB, "board 1", True),
    (BOB, "vacation 3", True),
    (BOB, "back", True),
    (BOB, "draw 1", True),
    (ALICE, "nodraw 1", True),
    (BOB, "move 1 z99", True),
    (BOB, "move 1 d4", True),
    (CAROL, "unwatch 1", True),
    (ALICE, "history 1", True),
    (ALICE, "resign 1", True),
    (ALICE, "record 1", True),
    (ALICE, "ratings capturego", True),
    (ALICE, "stats", True),
    # each feature's lines follow here, as a block of its own: `{game}` and `{challenge}` stand for
    # the newest game's and challenge's numbers when the line is sent, so blocks need no renumbering
    (ALICE, "notify digest 08:00", True),
    (ALICE, "notify", True),
    (ALICE, "notify off", True),
    (ALICE, "notify each", True),
    # take-backs: asked, refused, asked again and accepted (a watcher told); a challenge without them
    (ALICE, "challenge ataxx bob@example.org colour=first", True),
    (BOB, "accept {challenge}", True),
    (CAROL, "watch {game}", True),
    (ALICE, "move {game} f2", True),
    (ALICE, "takeback {game}", True),
    (BOB, "takeback {game} refuse", True),
    (ALICE, "takeback {game}", True),
    (BOB, "takeback {game} accept", True),
    (CAROL, "challenge myriades takebacks=off", True),
    (BOB, "open", True),
    (CAROL, "withdraw {challenge}", True),
    # conditional moves: a chain and an alternative, the chain answering at once, the other dropped
    (ALICE, "challenge ataxx bob@example.org colour=first", True),
    (BOB, "accept {challenge}", True),
    (ALICE, "move {game} f2", True),
    (ALICE, "if {game} b1 then e1 if c1 then d1\nif {game} b2 then e2", True),
    (ALICE, "if {game} list", True),
    (BOB, "move {game} b1", True),
    (ALICE, "if {game} clear", True),
    (BOB, "help if", True),
    # say: a message alone (said.txt to Bob and to Carol, who watches), `say off`, one stored
    # but not relayed, `say on`, and one with a move (one mail to Bob: the board, then the words)
    (ALICE, "challenge ataxx bob@example.org colour=x", True),
    (BOB, "accept {challenge}", True),
    (CAROL, "watch {game}", True),
    (ALICE, "say {game} Good luck, Bob! Take your time.", True),
    (BOB, "say off", True),
    (ALICE, "say {game} Are you there?", True),
    (BOB, "say on", True),
    (ALICE, "move {game} f2\nsay {game} Your move.", True),
    (CAROL, "unwatch {game}", True),
    # several games in one mail (`#ID MOVE`), `next` and `games` by urgency
    (ALICE, "challenge ataxx bob@example.org colour=first", True),
    (BOB, "accept {challenge}", True),
    (ALICE, "challenge ataxx carol@example.org colour=first", True),
    (CAROL, "accept {challenge}", True),
    (ALICE, "games", True),
    (ALICE, "next", True),  # the older of the two games: the reply to it is about that one
    (ALICE, "f2\n#{game} f2\n#{game} z9", True),
    (ALICE, "next", True),  # none waits for her now
    # tournaments: none is open (the operator creates them); tests/tournaments/test_tournaments.py
    # sends the mails of a whole tournament
    (ALICE, "tournaments", True),
    (ALICE, "join 1", True),
    # bots: a challenge to a bot starts the game at once (game_started.txt says it is a bot);
    # `open` says a bot plays at any time; `ratings` marks the bot
    (ALICE, "challenge capturego bot size=5 target=1 level=1 colour=first", True),
    (BOB, "open", True),
    (ALICE, "resign {game}", True),
    (ALICE, "ratings capturego", True),
    (ALICE, "help challenge", True),
    (ALICE, "\n".join(["help"] * 40), True),
    # stop: Carol's mail stops (the answer is her last), and her reply to it brings it back
    (CAROL, "stop", True),
    (CAROL, "help stop", True),
    ("dora@example.org", "правила", False),  # a new player's first mail: the language it is written in
]
# Sent by the clock or the admin CLI, not in answer to a mail; their own tests render them.
NOT_BY_MAIL = {"reminder.txt", "extended.txt", "adjudicated.txt", "undone.txt", "cancelled.txt"}
# The daily digest, sent by the clock: tests/runners/test_digest.py renders and checks it.
NOT_BY_MAIL |= {"digest.txt"}
# Sent when a day's reply budget runs out: tests/trust/test_budget.py sends it.
NOT_BY_MAIL |= {"quiet.txt"}
# Never a mail's first section (it follows the answer to a new player's first mail), so no
# outbox row is named after it; the mail of the last line of SCRIPT carries it.
NOT_BY_MAIL |= {"language_chosen.txt"}
# Never a mail's first section either (it follows the answer to the mail that lifts a `stop`);
# SCRIPT's stop block sends it, tests/trust/test_caps.py reads it.
NOT_BY_MAIL |= {"unstopped.txt"}
# Always a section after the move's own (the SCRIPT's conditional block sends it in Alice's mail);
# tests/commands/test_conditional.py reads it.
NOT_BY_MAIL |= {"conditional_dropped.txt"}
# A tournament is created by the operator, its rounds paired by the daemon:
# tests/tournaments/test_tournaments.py sends and checks these in a whole tournament.
NOT_BY_MAIL |= {"tournament_game.txt", "tournament_final.txt", "tournament_joined.txt", "tournament_left.txt",
                "tournament.txt"}
# A withdrawal (the operator's, or after two losses on time) and the forfeits it leaves:
# tests/tournaments/test_tournaments.py and tests/cli/admin/test_admin_tournaments.py send these.
NOT_BY_MAIL |= {"tournament_withdrawn.txt", "tournament_forfeit.txt"}
# A ladder's start and its results: tests/tournaments/test_ladders.py sends and checks these.
NOT_BY_MAIL |= {"ladder_started.txt", "ladder_result.txt"}
# Sent when an address keeps bouncing and when its player writes again: tests/letters/test_bounces.py.
NOT_BY_MAIL |= {"opponent_unreachable.txt", "opponent_reachable.txt"}


def numbered(server, line: str) -> str:
    """A line of SCRIPT with `{game}` and `{challenge}` replaced by the newest numbers."""
    if "{" not in line:
        return line
    with Session(server.engine) as session:
        game = session.exec(select(Game.id).order_by(Game.id.desc())).first()
        challenge = session.exec(select(Challenge.id).order_by(Challenge.id.desc())).first()
    return line.format(game=game, challenge=challenge)


def answered(server, sender: str, line: str):
    """The mail a player answers with `line`: the newest about the game the line acts on (a
    line acts on a game only in a reply to a mail that showed it), else the newest of all."""
    found = reader.classify(line) if "\n" not in line else None
    command = found.command if found is not None else None
    if found is not None and (command is None or (command.takes_game and command.requires_proof)):
        words = found.words[1:] if command is not None else []
        game = found.game or next((int(w) for w in words[:1] if w.isdigit()), None)
        tagged = [m for m in server.mails(sender) if game is not None and f"[pbem #{game}]" in m["Subject"]]
        if tagged:
            return tagged[-1]
    return server.last(sender)


def play(server, script=SCRIPT) -> None:
    """Send the lines of `script`, each answered as the script says."""
    for sender, line, reply in script:
        line = numbered(server, line)
        raw = reply_to(sender, answered(server, sender, line), line) if reply else compose(sender, line)
        assert server.send(raw) == "processed", line


def test_every_template_is_sent_and_reads_safely(server) -> None:
    play(server)
    with Session(server.engine) as session:
        rows = session.exec(select(Outbox).order_by(Outbox.id)).all()
    used = {row.template + ".txt" for row in rows}
    # a command's help (commands/NAME.txt) is a part of help_command.txt, as rules/NAME.txt is of rules.txt
    helps = {n for n in Templates().names() if n.startswith("commands/")}
    expected = set(Templates().names()) - {f"rules/{n}" for n in _rules()} - NOT_BY_MAIL - helps
    assert expected - used - {"rules.txt"} == set()
    chosen = speaker("ru").gettext("I write to you in %(name)s, the language of your mail.", name="русский")
    assert any(chosen in " ".join(text(parse(row.message)).split()) for row in rows)  # language_chosen.txt
    kinds = set()
    for row in rows:
        mail = parse(row.message)
        kinds.add(mail["Auto-Submitted"])
        body = text(mail)
        assert len(mail["Subject"]) <= MAX_SUBJECT, f"{row.template}: {mail['Subject']}"
        lines = body.replace("\r\n", "\n").splitlines()
        for before, line in zip(lines, lines[1:], strict=False):  # the clock stands apart from what precedes it
            if line.startswith(("Your deadline:", "Deadline for ")):
                assert before == "", f"{row.template}: no blank line before {line!r}"
        for line in body.splitlines()[1:]:
            assert len(line) <= 72, f"{row.template}: too wide: {line!r}"
            assert reader.classify(line.strip()) is None, f"{row.template}: {line!r} reads as a command"
        # RFC 3834: an answer to a player's mail is auto-replied, a notice to anyone else auto-generated
        answers = not (mail["In-Reply-To"] or "<pbem.").startswith("<pbem.")  # threaded under a player's mail
        assert mail["Auto-Submitted"] == ("auto-replied" if answers else "auto-generated"), row.template
        assert mail["Feedback-ID"] == f"{row.template}:pbem:games.test"  # the kind of mail, nothing personal
        assert mail["Reply-To"].startswith("pbem+")
    assert kinds == {"auto-replied", "auto-generated"}


def _rules() -> list[str]:
    import pbem_engine

    return [f"{name}.txt" for name in pbem_engine.names()]


def test_rules_of_every_game_render(server) -> None:
    import pbem_engine

    for name in pbem_engine.names():
        server.say(ALICE, f"rules {name}")
        body = text(server.last(ALICE))
        assert pbem_engine.lookup(name).title in body
        for line in body.splitlines()[1:]:
            assert reader.classify(line.strip()) is None, f"rules {name}: {line!r} reads as a command"


def test_a_reply_is_threaded_to_the_mail_it_answers(server) -> None:
    raw = compose(ALICE, "help")
    server.send(raw)
    answer = server.last(ALICE)
    assert answer["In-Reply-To"] == parse(raw)["Message-ID"]
    server.send(reply_to(ALICE, answer, "games"))
    again = server.last(ALICE)
    assert answer["Message-ID"] in again["References"]
