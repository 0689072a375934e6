"""Two players play every game to its end by real email: Dovecot IMAP, SMTP, the daemon.

Each player is a small bot with a mailbox on the rig. It reads the server's mails over
IMAP, follows each game from the moves those mails report, answers with a top-posted reply
(quoting the board, as Gmail does) to the game's Reply-To address, and at the end compares
the final board and result in the mails with its own engine's.
"""

from __future__ import annotations

import random
import re
import smtplib
import time

import pytest
from sqlmodel import Session, select

import pbem_engine
from pbem.core.db import make_engine
from pbem.core.models import Game, Move
from pbem.games import store as G
from pbem.text import endings as words
from tests.databases import throwaway
from tests.integration.daemon import POLLING, DaemonProcess
from tests.integration.waits import Deadline
from tests.mailer import compose, parse, reply_to, text

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# (kind, challenge options): all six games, sized so that they end in a few minutes.
GAMES = [
    ("ataxx", "blocks=c3,e3,c5,e5"),
    ("infection", ""),
    ("assimilation", "blocks=d4"),
    ("capturego", "size=7 target=3"),
    ("myriades", ""),
    ("infinito", "size=10"),
]
SUBJECT = re.compile(r"\[pbem #(\d+)\]")
LAST = re.compile(r"The last move was (.+?) by \S+\.")
PLAYED = re.compile(r"(\S+) played (.+?)(?: and (?:took|captured) \d+ of your \w+)?\. Your move")


def _greedy_ataxx(rules, pos, rng):
    """Prefer moves that gain the most pieces, so that games end soon."""
    side = rules.turn(pos)

    def gain(move):
        return rules.outcome(rules.apply(pos, move)).scores[side] + rng.random()

    return max(rules.legal_moves(pos), key=gain)


class Bot:
    def __init__(self, rig, user: str, rules: dict[int, pbem_engine.Rules], seed: int) -> None:
        self.rig, self.user, self.rules = rig, user, rules
        self.address = rig.address(user)
        self.rng = random.Random(seed)
        self.positions = {gid: r.start() for gid, r in rules.items()}
        self.inbox = rig.reader(user)  # one IMAP login for the whole game; each step reads what is new
        self.over: dict[int, str] = {}

    def send(self, raw: bytes) -> None:
        with smtplib.SMTP("127.0.0.1", self.rig.smtp_port, timeout=10) as smtp:
            smtp.sendmail(self.address, [parse(raw)["To"]], raw)

    def step(self) -> int:
        """Answer every new mail; returns how many were read."""
        mails = self.inbox.new()
        for _, raw in mails:
            mail = parse(raw)
            subject, body = mail["Subject"], text(mail).replace("\r\n", "\n")
            match = SUBJECT.search(subject)
            if not match:
                continue
            gid = int(match.group(1))
            rules = self.rules[gid]
            if "game over" in subject:
                self.over[gid] = body
                last = LAST.search(" ".join(body.split()))
                if last and not rules.outcome(self.positions[gid]).over:  # the opponent's final move
                    self.positions[gid], _ = rules.play(self.positions[gid], last.group(1))
                continue
            if "your move" not in subject:
                continue
            played = PLAYED.search(" ".join(body.split()))  # prose may be wrapped
            if played:
                self.positions[gid], _ = rules.play(self.positions[gid], played.group(2))
            pos = self.positions[gid]
            if rules.family == "ataxx" and rules.legal_moves(pos) != ["pass"]:
                move = _greedy_ataxx(rules, pos, self.rng)
            else:
                move = rules.sample(pos, self.rng.choice)
            written = rules.format(pos, move)
            self.positions[gid] = rules.apply(pos, move)
            self.send(reply_to(self.address, mail, written))
        return len(mails)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    with throwaway(request.param, tmp_path) as url:
        yield url


def test_two_players_finish_every_game_by_email(mailrig, tmp_path, database_url) -> None:
    # Polling (see POLLING): Myriades and Infinito last 100 moves each, one after the other, and
    # IDLE would add Dovecot's 500 ms to every one. IDLE is played by the other daemon tests.
    daemon = DaemonProcess(mailrig, tmp_path / "pbem", database_url, extra_imap=POLLING)
    daemon.start()
    try:
        alice_addr, bob_addr = mailrig.address("alice"), mailrig.address("bob")
        rules = {i + 1: pbem_engine.create(kind, dict(o.split("=") for o in opts.split())) for i, (kind, opts) in
                 enumerate(GAMES)}
        # Bob has written to us and answered our answer, so six invitations may go to him at once (an
        # address that never proved itself gets one at a time: tests/integration/test_attacks_caps.py)
        with smtplib.SMTP("127.0.0.1", mailrig.smtp_port, timeout=10) as smtp:
            smtp.sendmail(bob_addr, [mailrig.address("game")], compose(bob_addr, "help", subject="help"))
            again = reply_to(bob_addr, parse(mailrig.wait_for("bob", 1, timeout=30)[-1]), "help")
            smtp.sendmail(bob_addr, [parse(again)["To"]], again)
        mailrig.wait_for("bob", 2, timeout=30)
        body = "\n".join(f"challenge {kind} {bob_addr} colour=first {opts}" for kind, opts in GAMES)
        with smtplib.SMTP("127.0.0.1", mailrig.smtp_port, timeout=10) as smtp:
            smtp.sendmail(alice_addr, [mailrig.address("game")], compose(alice_addr, body, subject="new games"))
        held = parse(mailrig.wait_for("alice", 1, timeout=30)[-1])  # a first mail: held until she confirms
        assert "Did you write to me?" in held["Subject"]
        confirmation = reply_to(alice_addr, held, "confirm")
        with smtplib.SMTP("127.0.0.1", mailrig.smtp_port, timeout=10) as smtp:
            smtp.sendmail(alice_addr, [parse(confirmation)["To"]], confirmation)
        invites = mailrig.wait_for("bob", 2 + len(GAMES), timeout=30)[2:]
        read_by_bob = mailrig.flags("bob")[-1][0]
        assert all("challenges you" in parse(m)["Subject"] for m in invites)
        acceptance = "\n".join(f"accept {i}" for i in range(1, len(GAMES) + 1))
        answer = reply_to(bob_addr, parse(invites[-1]), acceptance)  # proves Bob got our mail
        with smtplib.SMTP("127.0.0.1", mailrig.smtp_port, timeout=10) as smtp:
            smtp.sendmail(bob_addr, [parse(answer)["To"]], answer)
        alice = Bot(mailrig, "alice", rules, seed=1)
        bob = Bot(mailrig, "bob", rules, seed=2)
        bob.inbox.skip_to(read_by_bob)
        deadline = Deadline(240)
        with alice.inbox, bob.inbox:
            while len(alice.over) < len(GAMES) or len(bob.over) < len(GAMES):
                assert not deadline.passed(), f"games unfinished: {sorted(alice.over)}\n{daemon.log_tail()}"
                if not (alice.step() + bob.step()):
                    time.sleep(0.05)
    finally:
        assert daemon.stop() == 0, daemon.log_tail()

    db = make_engine(daemon.database)
    with Session(db) as session:
        for gid, r in rules.items():
            game = session.get(Game, gid)
            assert game.status == "finished", gid
            notations = [m.notation for m in session.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply))]
            final = G.replay(game, notations)
            assert r.load(game.state) == final, f"game {gid}: stored state differs from the replay"
            assert alice.positions[gid] == final and bob.positions[gid] == final
            outcome = r.outcome(final)
            assert outcome.over
            names = ("alice", "bob")
            board = r.render(final, names=names, finished=True)  # as mails show it
            for who in (alice, bob):
                final_mail = who.over[gid]
                assert board in final_mail, f"game {gid}: the final board in {who.user}'s mail is not the engine's"
                flat = " ".join(final_mail.split())
                expected = f"{names[outcome.winner]} wins" if outcome.winner is not None else "a draw"
                why = words.termination(outcome.termination, outcome.details, r.sides)
                assert expected in flat and " ".join(why.split()) in flat
    db.dispose()
