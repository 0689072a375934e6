"""A real SQLite file and the service over it, with an outbox the tests read."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from sqlmodel import Session, select

from pbem.core.config import Settings
from pbem.core.db import make_engine
from pbem.core.models import Outbox, Player
from pbem.runners.inbound import Service
from pbem.trust import proof as trust
from tests.databases import migrated, throwaway
from tests.mailer import GAME, compose, parse, reply_to


class Server:
    """The service with helpers to send a mail and read what each player received."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.engine = service.engine
        self._parsed: dict[int, tuple[bytes, Any]] = {}  # outbox id -> (its bytes, the mail parsed)

    def send(self, raw: bytes) -> str:
        return self.service.handle(raw).status

    def say(self, address: str, body: str) -> str:
        """What a player does: answer our newest mail to them (which proves they receive our
        mails), or write a new mail when they have none yet."""
        mails = self.mails(address)
        return self.send(reply_to(address, mails[-1], body) if mails else compose(address, body))

    def about(self, address: str, game_id: int):
        """The newest mail to `address` that shows game `game_id` (its subject's tag says so)."""
        return [m for m in self.mails(address) if f"[pbem #{game_id}]" in m["Subject"]][-1]

    def answer(self, address: str, game_id: int, body: str) -> str:
        """What a player does to act on one game: answer our newest mail about it (a line acts
        on a game only in a reply to a mail that showed its board as it stands)."""
        return self.send(reply_to(address, self.about(address, game_id), body))

    def confirm(self, address: str) -> str:
        """Reply to the newest mail of `address` (our notice about a mail held for want of proof
        of receipt, e.g. a first challenge) with `confirm`."""
        return self.send(reply_to(address, self.last(address), "confirm"))

    def our_address(self, address: str) -> str:
        """The Reply-To our next mail to `address` about no game would carry (its token)."""
        with Session(self.engine) as session:
            player = session.exec(select(Player).where(Player.address == address)).one()
            return trust.reply_to(self.service.settings, player, None)

    def mails(self, address: str) -> list:
        """Every mail queued for `address`, oldest first. Each is parsed once (a whole game
        reads a player's mails after every move), unless its row's bytes changed."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(Outbox.id, Outbox.message).where(Outbox.recipient == address).order_by(Outbox.id)
            ).all()
        found = []
        for row_id, message in rows:
            known = self._parsed.get(row_id)
            if known is None or known[0] != message:
                known = self._parsed[row_id] = (message, parse(message))
            found.append(known[1])
        return found

    def last(self, address: str):
        mails = self.mails(address)
        assert mails, f"no mail to {address}"
        return mails[-1]

    def count(self) -> int:
        with Session(self.engine) as session:
            return len(session.exec(select(Outbox.id)).all())


def _server(url: str, tmp_path) -> Iterator[Server]:
    settings = replace(Settings(), address=GAME, home=tmp_path, database_url=url)
    engine = make_engine(settings.db_url)
    migrated(engine)
    yield Server(Service(settings, engine))
    engine.dispose()


@pytest.fixture
def server(tmp_path) -> Iterator[Server]:
    """The service over a SQLite file."""
    with throwaway("sqlite", tmp_path) as url:
        yield from _server(url, tmp_path)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_server(request, tmp_path) -> Iterator[Server]:
    """The service over SQLite, then over PostgreSQL: for the tests of the store itself."""
    with throwaway(request.param, tmp_path) as url:
        yield from _server(url, tmp_path)


@pytest.fixture
def pg_server(tmp_path) -> Iterator[Server]:
    """The service over PostgreSQL alone: for the races of several daemons on one database."""
    with throwaway("postgresql", tmp_path) as url:
        yield from _server(url, tmp_path)
