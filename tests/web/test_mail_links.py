"""The mails about a game link its page when `[web] base_url` is set, in the text part and
in the HTML part, and the link opens that game's page on the running web face; with no
base_url, not one mail changes (the same games played twice, once each way)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from sqlmodel import Session, select

from pbem.core.config import Settings, WebSettings
from pbem.core.db import make_engine
from pbem.core.models import Challenge, Game, Outbox, Player
from pbem.games import store as G
from pbem.letters import weblinks
from pbem.runners.inbound import Service
from tests.databases import migrated
from tests.mailer import GAME, parse, text
from tests.server import Server
from tests.web.site import Running, World
from tests.web.test_pages import get

ALICE, BOB = "alice@example.org", "bob@example.org"
#: the games played: a small board, and a board too wide for a phone
LINES = ["ataxx", "infinito size=26"]


def _play(server: Server) -> list[int]:
    """Each game of LINES: challenged, accepted, four moves, a board asked for."""
    ids = []
    for line in LINES:
        server.say(ALICE, f"challenge {line} {BOB} colour=first")  # no draw of colours: both runs alike
        server.confirm(ALICE)
        with Session(server.engine) as session:
            challenge = max(session.exec(select(Challenge.id)).all())
        server.say(BOB, f"accept {challenge}")
        with Session(server.engine) as session:
            game_id = max(session.exec(select(Game.id)).all())
            assert session.get(Game, game_id).kind == line.split()[0]  # this very line's game began
        assert game_id not in ids
        ids.append(game_id)
        for _ in range(4):
            with Session(server.engine) as session:
                game = session.get(Game, game_id)
                mover = session.get(Player, game.player_id(game.turn)).address
                move = G.rules_of(game).examples(G.position(game))[0]
            server.answer(mover, game_id, move)
        server.answer(ALICE, game_id, "board")
    return ids


def _mails(engine) -> list[tuple[Outbox, object]]:  # noqa: ANN001
    with Session(engine) as session:
        rows = session.exec(select(Outbox).order_by(Outbox.id)).all()
        for row in rows:
            session.expunge(row)
    return [(row, parse(row.message)) for row in rows]


def _service(home: Path, web: WebSettings | None) -> Server:
    settings = replace(Settings(), address=GAME, home=home, database_url=f"sqlite:///{home / 'pbem.sqlite3'}",
                       web=web)
    engine = make_engine(settings.db_url)
    migrated(engine)
    return Server(Service(settings, engine))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    """The same games played with the web face on and base_url set (its own address), and
    with no [web] table at all."""
    linked_home, plain_home = tmp_path_factory.mktemp("linked"), tmp_path_factory.mktemp("plain")
    plain = _service(plain_home, None)
    _play(plain)
    engine = make_engine(f"sqlite:///{linked_home / 'pbem.sqlite3'}")
    migrated(engine)
    web = WebSettings(enabled=True, port=0, requests_per_minute=100000)
    shown = World(replace(Settings(), home=linked_home, database_url=f"sqlite:///{linked_home / 'pbem.sqlite3'}",
                          web=web), engine)
    with Running(shown) as site:
        linked = _service(linked_home, web.model_copy(update={"base_url": site}))
        ids = _play(linked)
        yield site, linked, ids, plain
    linked.engine.dispose()
    plain.engine.dispose()


def _parts(mail) -> tuple[str, str | None]:  # noqa: ANN001
    html = mail.get_body(preferencelist=("html",))
    return text(mail), html.get_content() if html is not None and html.get_content_type() == "text/html" else None


def test_every_mail_about_a_game_links_its_page_and_the_link_opens_it(played) -> None:  # noqa: ANN001
    site, linked, ids, _ = played
    with Session(linked.engine) as session:
        pages = {g.id: site + weblinks.game_path(g) for g in session.exec(select(Game))}
        names = {p.id: p.name for p in session.exec(select(Player))}
        players = {g.id: (names[g.player0_id], names[g.player1_id]) for g in session.exec(select(Game))}
    about = 0
    for row, mail in _mails(linked.engine):
        body, html = _parts(mail)
        if row.game_id is None:
            assert "/g/" not in body, row.template  # a mail about no game links no game
            continue
        about += 1
        url = pages[row.game_id]
        assert f"See the whole game: {url}" in body, (row.template, body)
        assert html is not None
        assert f'href="{url}"' in html, row.template
    assert about >= 2 * 10
    for game_id in ids:
        status, _, page = get(pages[game_id])
        assert status == 200
        assert all(name in page for name in players[game_id])  # that very game: its players
        assert f"#{game_id}" in page
    # a key that is not the game's opens nothing
    assert get(pages[ids[0]][:-2] + ("00" if not pages[ids[0]].endswith("00") else "11"))[0] == 404


def _same(body: str) -> str:
    """A mail's words without what differs between two runs of the same games: the tokens and
    the times they are sent at."""
    body = re.sub(r"[0-9a-f]{16,}", "TOKEN", body)
    return re.sub(r"\d\d:\d\d", "HH:MM", body)


def test_with_no_base_url_no_mail_changes(played) -> None:  # noqa: ANN001
    site, linked, _, plain = played
    with_links, without = _mails(linked.engine), _mails(plain.engine)
    assert [r.template for r, _ in with_links] == [r.template for r, _ in without]
    for (row, mail), (_, bare) in zip(with_links, without, strict=True):
        body, html = _parts(mail)
        plain_body, plain_html = _parts(bare)
        assert site not in plain_body and "/g/" not in plain_body
        assert "List-Unsubscribe-Post" not in bare  # the one-click link needs an https base_url
        # the linked mail is the plain one and its link line, nothing else
        unlinked = re.sub(r"\r?\n\r?\nSee the whole game: \S+(\r?\n)", r"\1", body)
        assert _same(unlinked) == _same(plain_body), row.template
        if html is not None:
            assert plain_html is not None and "/g/" not in plain_html and "<a " not in plain_html


def test_a_board_too_wide_for_a_phone_is_compact_with_its_link_and_whole_at_360(played, browser, artifacts) -> None:  # noqa: ANN001
    """Infinito 26x26: the HTML part draws it compact, followed by the link to its page (with a
    base_url), or compact alone (without); Chromium lays both out whole at 360 px."""
    from tests.html.test_layout import check

    site, linked, ids, plain = played
    wide = ids[1]
    with Session(linked.engine) as session:
        url = site + weblinks.game_path(session.get(Game, wide))
    shown = 0
    for server, link in ((linked, url), (plain, None)):
        for row, mail in _mails(server.engine):
            _, html = _parts(mail)
            if row.game_id != wide or html is None or 'class="board' not in html:
                continue
            shown += 1
            assert 'class="board compact"' in html, row.template
            after = html[html.index('class="board compact"'):]
            if link is not None:
                assert re.search(r'class="whole"[^>]*>The board in full, on the game\'s page: <a href="'
                                 + re.escape(link) + '"', after), row.template
            else:
                assert 'class="whole"' not in html
            if row.template in ("your_move", "board"):
                check(browser, artifacts, f"wide-{'linked' if link else 'plain'}-{row.id}", html, 1)
    assert shown >= 2 * 5
