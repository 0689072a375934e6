"""A Russian and a Korean player play a whole game by real email, each in their language.

Alice writes her challenge in Russian and Bob accepts in Korean: the server takes each
one's language from their first mail, and from then on every mail to each of them is in
their own language. The players are small bots on the rig (Dovecot IMAP, SMTP, the daemon
as a subprocess); they follow the game from the boards in the mails they receive, drawn by
their own engine in their own language, and at the end the stored game is checked against
the positions they followed.
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
from pbem.core.models import Game, Move, Player
from pbem.games import store as G
from pbem.text.i18n import speaker
from tests.databases import throwaway
from tests.integration.daemon import POLLING, DaemonProcess
from tests.integration.waits import Deadline
from tests.languages import english_left, too_wide
from tests.mailer import compose, parse, reply_to, text

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TAG = re.compile(r"\[pbem #(\d+)\]")
KIND, OPTIONS = "capturego", {"size": "7", "target": "3"}


class Player_:
    """A player who reads one language and follows the game by its boards."""

    def __init__(self, rig, user: str, language: str, seed: int) -> None:
        self.rig, self.user, self.language = rig, user, language
        self.address = rig.address(user)
        self.talk = speaker(language)
        self.rules = pbem_engine.create(KIND, OPTIONS)
        self.pos = self.rules.start()
        self.rng = random.Random(seed)
        self.inbox = rig.reader(user)
        self.names: tuple[str, str] | None = None
        self.side: int | None = None
        self.mails: list[str] = []  # the text of every mail about the game
        self.over = False

    def send(self, raw: bytes) -> None:
        with smtplib.SMTP("127.0.0.1", self.rig.smtp_port, timeout=10) as smtp:
            smtp.sendmail(self.address, [parse(raw)["To"]], raw)

    def board(self, pos) -> str:
        finished = self.rules.outcome(pos).over
        return self.rules.render(pos, names=self.names, finished=finished, say=self.talk.say)

    def _follow(self, body: str) -> bool:
        """The position the mail's board shows: the one we know, or one move of the opponent on."""
        candidates = [self.pos]
        if not self.rules.outcome(self.pos).over and self.rules.turn(self.pos) != self.side:
            candidates += [self.rules.apply(self.pos, m) for m in self.rules.legal_moves(self.pos)]
        for pos in candidates:
            if self.board(pos) in body:
                self.pos = pos
                return True
        return False

    def step(self) -> int:
        mails = self.inbox.new()
        for _, raw in mails:
            mail = parse(raw)
            if not TAG.search(mail["Subject"]):
                continue
            body = text(mail).replace("\r\n", "\n")
            self.mails.append(f"Subject: {mail['Subject']}\n{body}")
            assert self._follow(body), f"{self.user}: no board I can follow in\n{body}"
            if self.rules.outcome(self.pos).over:
                self.over = True
            elif self.rules.turn(self.pos) == self.side:
                move = self.rules.sample(self.pos, self.rng.choice)
                written = self.rules.format(self.pos, move)
                self.pos = self.rules.apply(self.pos, move)
                self.send(reply_to(self.address, mail, written))
        return len(mails)


def test_a_russian_and_a_korean_player_each_read_every_mail_in_their_language(mailrig, tmp_path) -> None:
    with throwaway("sqlite", tmp_path) as url:
        daemon = DaemonProcess(mailrig, tmp_path / "pbem", url, extra_imap=POLLING)
        daemon.start()
        try:
            alice = Player_(mailrig, "alice", "ru", seed=3)
            bob = Player_(mailrig, "bob", "ko", seed=4)
            options = " ".join(f"{k}={v}" for k, v in OPTIONS.items())
            challenge = compose(alice.address, f"вызов {KIND} {bob.address} colour=first {options}")
            with smtplib.SMTP("127.0.0.1", mailrig.smtp_port, timeout=10) as smtp:
                smtp.sendmail(alice.address, [mailrig.address("game")], challenge)
            held = parse(mailrig.wait_for("alice", 1, timeout=60)[-1])  # a first mail waits for proof
            first = text(held)
            assert english_left(first, "ru") == [], first  # her first mail said вызов: Russian from now on
            alice.send(reply_to(alice.address, held, "подтверждаю"))
            mailrig.wait_for("alice", 2, timeout=60)  # her challenge, confirmed
            alice.inbox.skip_to(mailrig.flags("alice")[-1][0])
            invite = parse(mailrig.wait_for("bob", 1, timeout=60)[-1])  # Bob is new: English until he writes
            bob.inbox.skip_to(mailrig.flags("bob")[-1][0])
            bob.send(reply_to(bob.address, invite, "수락 1"))
            engine_db = make_engine(daemon.database)
            deadline = Deadline(120)
            while True:  # the game starts when Bob's acceptance is handled
                with Session(engine_db) as session:
                    game = session.get(Game, 1)
                    if game is not None:
                        names = tuple(session.get(Player, p).name for p in (game.player0_id, game.player1_id))
                        assert session.exec(select(Player.language).where(Player.address == bob.address)).one() == "ko"
                        break
                assert not deadline.passed(), daemon.log_tail()
                time.sleep(0.1)
            for who, side in ((alice, 0), (bob, 1)):
                who.names, who.side = names, side
            deadline = Deadline(240)
            with alice.inbox, bob.inbox:
                while not (alice.over and bob.over):
                    assert not deadline.passed(), f"unfinished\n{daemon.log_tail()}"
                    if not (alice.step() + bob.step()):
                        time.sleep(0.05)
        finally:
            assert daemon.stop() == 0, daemon.log_tail()

        with Session(engine_db) as session:
            game = session.get(Game, 1)
            assert game.status == "finished"
            notations = [m.notation for m in session.exec(select(Move).where(Move.game_id == 1).order_by(Move.ply))]
            final = G.replay(game, notations)
            assert alice.pos == final and bob.pos == final
            assert game.winner == alice.rules.outcome(final).winner
        engine_db.dispose()
        for who in (alice, bob):
            assert len(who.mails) >= 3
            for mail in who.mails:
                assert english_left(mail, who.language) == [], f"{who.user} ({who.language}):\n{mail}"
                body = mail.split("\n", 1)[1]  # a subject is a header, folded by the mail's own rules
                assert too_wide(body) == [], f"{who.user}: too wide\n{mail}"
            assert who.board(final) in who.mails[-1]
        hangul = re.compile("[\uac00-\ud7a3]")
        assert all(hangul.search(m) for m in bob.mails) and not any(hangul.search(m) for m in alice.mails)
        cyrillic = re.compile("[а-яё]", re.I)
        assert all(cyrillic.search(m) for m in alice.mails)
