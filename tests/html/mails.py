"""The HTML parts of real mails: games played through the service, one of every game, and
every kind of mail a game sends, kept by (case, template)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sqlmodel import Session, select

from pbem.core.config import Settings
from pbem.core.db import make_engine
from pbem.core.models import Challenge, Game, Outbox, Player
from pbem.games import store as G
from pbem.runners.inbound import Service
from tests.databases import migrated
from tests.mailer import GAME, compose, parse, reply_to
from tests.server import Server

#: case -> the challenge line's game and options
CASES = {
    "ataxx": "ataxx",
    "infection": "infection blocks=cross",  # blocked squares
    "assimilation": "assimilation",
    "capturego-9": "capturego size=9",
    "capturego-19": "capturego size=19",
    "myriades": "myriades",
    "infinito-10": "infinito size=10",
    "infinito-26": "infinito size=26",
}

PLIES = 6


def html_of(raw: bytes) -> str:
    part = parse(raw).get_body(preferencelist=("html",))
    assert part is not None and part.get_content_type() == "text/html"
    return part.get_content()


def _newest(server: Server, address: str) -> Outbox:
    with Session(server.engine) as session:
        player = session.exec(select(Player).where(Player.address == address)).one()
        return session.exec(select(Outbox).where(Outbox.player_id == player.id).order_by(Outbox.id.desc())).first()


def _play(server: Server, case: str, line: str) -> None:
    """One game of `case`: challenge, accept, some moves, a board, a draw offer, a resignation."""
    alice, bob = f"alice.{case}@example.org", f"bob.{case}@example.org"
    server.send(compose(f"Alice <{alice}>", f"challenge {line} {bob}"))
    server.confirm(alice)
    with Session(server.engine) as session:
        challenge = max(session.exec(select(Challenge.id)).all())
    server.send(reply_to(bob, server.last(bob), f"accept {challenge}"))
    with Session(server.engine) as session:
        game_id = session.exec(select(Game.id).where(Game.id.is_not(None)).order_by(Game.id.desc())).first()
    carol = f"carol.{case}@example.org"  # a watcher, for the mails watchers get
    server.send(compose(f"Carol <{carol}>", f"watch {game_id}"))
    server.confirm(carol)
    for _ in range(PLIES):
        with Session(server.engine) as session:
            game = session.get(Game, game_id)
            rules, pos = G.rules_of(game), G.position(game)
            mover = session.get(Player, game.player_id(game.turn)).address
            move = rules.examples(pos)[0]
        server.say(mover, move)
    server.say(mover, "board")
    server.say(mover, "draw")
    other = bob if mover == alice else alice
    server.say(other, "resign")


def crowded(templates) -> str:  # noqa: ANN001
    """The HTML of a sample mail showing a late Infinito 26x26: three-digit values in most cells."""
    import random

    from pbem.text import boards, htmlmail
    from pbem_engine.myriades.notation import square_name

    rules = engine.create("infinito", {"size": 26})
    squares = [square_name(i, 26) for i in range(26 * 26)]
    random.Random(13).shuffle(squares)
    stones = squares[:600]
    data = {
        "size": 26, "ply": 600, "last": None, "neutral": squares[600:650],
        "white": {sq: n for n, sq in enumerate(stones[::2])},
        "black": {sq: n for n, sq in enumerate(stones[1::2])},
    }
    pos = rules.load(data)
    board = rules.render(pos, names=("Alice", "Bob"))
    view = {"kind": "infinito", "title": rules.title, "describe": rules.describe(), "board": board,
            "grid": boards.grid(rules, pos, board), "examples": rules.examples(pos)[:1]}
    sections = [("display.txt", {"samples": [view], "format": "html"})]
    return htmlmail.render(templates, sections, {"ignored": [], "player": None, "game_id": None}, "Infinito")


def collect(tmp: Path) -> dict[tuple[str, str], str]:
    """(case, template) -> the HTML part of the newest such mail; with `display` and `help`."""
    settings = replace(Settings(), address=GAME, home=tmp, database_url=f"sqlite:///{tmp / 'pbem.sqlite3'}")
    engine = make_engine(settings.db_url)
    migrated(engine)
    server = Server(Service(settings, engine))
    found: dict[tuple[str, str], str] = {}
    try:
        last = 0
        for case, line in CASES.items():
            _play(server, case, line)
            with Session(engine) as session:
                rows = session.exec(select(Outbox).where(Outbox.id > last).order_by(Outbox.id)).all()
                for row in rows:
                    if row.game_id is not None:
                        found[(case, row.template)] = html_of(row.message)
                last = rows[-1].id
        server.say("alice.ataxx@example.org", "display")
        found[("all", "display")] = html_of(_newest(server, "alice.ataxx@example.org").message)
        server.say("alice.ataxx@example.org", "help")
        found[("all", "help")] = html_of(_newest(server, "alice.ataxx@example.org").message)
        found[("all", "crowded")] = crowded(server.service.templates)
    finally:
        engine.dispose()
    return found
