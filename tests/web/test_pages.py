"""The web face over HTTP, as a stranger sees it: every page answers, none shows an address,
a secret or a game that is not listed; the headers that keep pages safe are on every answer;
nothing but the signed one-click unsubscribe can change anything."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from http.client import HTTPResponse

from sqlmodel import Session, select

from pbem.core.models import Game, Player
from pbem.letters import weblinks
from pbem.trust import tokens
from tests.web.site import PRIVATE, PUBLIC, World


def get(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    request = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        response: HTTPResponse = urllib.request.urlopen(request, timeout=30)
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read().decode()
    return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read().decode()


def pages(world: World) -> list[str]:
    """Every page a stranger can find by following links from the front page, and the
    game pages the public ones link to."""
    return ["/", "/challenges", "/t", f"/t/{world.tournament}", f"/t/{world.ladder}", "/rules",
            "/rules/ataxx", "/rules/capturego", "/rules/myriades", "/rules/infinito", "/robots.txt",
            *(f"/p/{pid}" for name, pid in world.players.items() if name != "Carol"),
            *(f"/p/{pid}/feed.atom" for name, pid in world.players.items() if name != "Carol")]


def crawl(site: str, start: list[str]) -> dict[str, str]:
    """The pages reached from `start` by the links of the pages themselves (same site)."""
    seen: dict[str, str] = {}
    todo = list(start)
    while todo and len(seen) < 400:
        path = todo.pop()
        if path in seen:
            continue
        status, _, body = get(site + path)
        assert status == 200, (path, status)
        seen[path] = body
        for link in re.findall(r'href="(/[^"#]*)"', body):
            link = link.replace("&amp;", "&")
            if link.startswith(("/g/", "/p/", "/t", "/rules", "/challenges")) and link not in seen:
                todo.append(link)
    return seen


def test_a_stranger_sees_no_address_no_secret_no_private_game(world: World, site: str) -> None:
    found = crawl(site, pages(world))
    assert len(found) > 30
    with Session(world.engine) as session:
        people = session.exec(select(Player)).all()
        private_keys = [g.web_key for g in session.exec(select(Game).where(Game.id.in_(world.private_games)))]
    secrets = [p.secret for p in people] + [tokens.stop_token(p) for p in people] + private_keys
    for path, body in found.items():
        assert not re.search(r"[\w.+-]+@[\w-]+\.[a-z]{2,}", body.replace("&#64;", "@").replace("friend@example.org", "")), path
        # no address at all (but the rules' example of a challenge)
        for person in people:
            assert person.address not in body, path
        for secret in secrets:
            assert secret not in body, (path, secret)
        assert "Carol" not in body, path  # she said no: none of her games is listed, she has no page
        assert "private-remark-text" not in body, path
    listed = [p for p in found if p.startswith("/g/")]
    with Session(world.engine) as session:
        people_by_id = {p.id: p for p in people}
        public = {weblinks.game_path(g) for g in session.exec(select(Game))
                  if people_by_id[g.player0_id].public and people_by_id[g.player1_id].public}
    assert {re.sub(r"/(record|fen)$", "", p.split("?")[0]) for p in listed} == public
    assert not public & {world.games[g] for g in world.private_games}
    assert get(site + f"/p/{world.players['Carol']}")[0] == 404


def test_headers_on_every_page(world: World, site: str) -> None:
    nonces = set()
    for path in ["/", world.games[1], "/nothing-here", f"/p/{world.players['Alice']}"]:
        status, headers, body = get(site + path)
        policy = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy
        nonce = re.search(r"'nonce-([^']+)'", policy).group(1)
        nonces.add(nonce)
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
        # every <script> and <style> carries this response's nonce; there is no inline handler
        for tag in re.findall(r"<(?:script|style)\b[^>]*>", body):
            assert f'nonce="{nonce}"' in tag, (path, tag)
        assert not re.search(r"\son[a-z]+=", body), path
    assert len(nonces) == 4  # one per response, even for a cached page
    assert "noindex" in get(site + world.games[world.private_games[0]])[1]["x-robots-tag"]
    assert "x-robots-tag" not in get(site + world.games[1])[1]  # a listed game may be found
    status, _, robots = get(site + "/robots.txt")
    assert status == 200 and "Disallow: /g/" in robots


def test_a_wrong_key_finds_nothing(world: World, site: str) -> None:
    path = world.games[1]
    wrong = path[:-4] + ("0000" if not path.endswith("0000") else "1111")
    assert get(site + wrong)[0] == 404
    assert get(site + "/g/1")[0] == 404


def test_step_through_the_moves(world: World, site: str) -> None:
    path = world.games[1]
    _, _, last = get(site + path)
    _, _, first = get(site + path + "?ply=1")
    assert 'aria-current="step" data-ply="1"' in first and 'data-ply="1"' in last
    assert first.count('class="last"') == 1
    _, _, start = get(site + path + "?ply=0")
    assert 'class="last"' not in start  # no move yet: nothing ringed
    assert 'aria-current="step"' not in start


def test_language_by_header_and_by_link(world: World, site: str) -> None:
    _, headers, page = get(site + "/", headers={"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.5"})
    assert headers["content-language"] == "ru" and "Открытые вызовы" in page or "Публичные партии" in page
    _, headers, page = get(site + "/?lang=ko", headers={"Accept-Language": "ru"})
    assert headers["content-language"] == "ko" and 'href="/challenges?lang=ko"' in page
    _, headers, _ = get(site + "/", headers={"Accept-Language": "zh-Hans-CN"})
    assert headers["content-language"] == "zh"


def test_downloads(world: World, site: str) -> None:
    status, headers, sgf = get(site + world.games[2] + "/record")
    assert status == 200 and headers["content-type"].startswith("application/x-go-sgf") and sgf.startswith("(;")
    status, headers, text = get(site + world.games[1] + "/record")
    assert status == 200 and '[Black "Alice"]' not in text and "@" not in text and "1. " in text
    status, _, fen = get(site + world.games[1] + "/fen?ply=0")
    assert status == 200 and fen.strip().startswith("x5o/7/7/7/7/7/o5x")


def test_feed(world: World, site: str) -> None:
    from lxml import etree

    status, headers, body = get(site + f"/p/{world.players['Alice']}/feed.atom")
    assert status == 200 and headers["content-type"].startswith("application/atom+xml")
    feed = etree.fromstring(body.encode())
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = feed.findall("a:entry", ns)
    assert entries and all(e.find("a:link", ns).get("href").startswith(site + "/g/") for e in entries)
    assert not any(f"/g/{g}-" in body for g in world.private_games)


def test_read_only_but_the_signed_unsubscribe(world: World, site: str) -> None:
    assert get(site + "/", method="POST")[0] == 405
    assert get(site + world.games[1], method="DELETE")[0] == 405
    with Session(world.engine) as session:
        bob = session.exec(select(Player).where(Player.name == "Bob")).one()
        token = tokens.stop_token(bob)
    assert get(site + f"/unsubscribe/{bob.id}.{'0' * 16}", method="POST")[0] == 404  # a forged token
    status, _, page = get(site + f"/unsubscribe/{token}")  # a GET changes nothing: it shows the button
    assert status == 200 and 'method="post"' in page
    with Session(world.engine) as session:
        assert session.get(Player, bob.id).stopped_at is None
    assert get(site + f"/unsubscribe/{token}", method="POST")[0] == 200
    with Session(world.engine) as session:
        assert session.get(Player, bob.id).stopped_at is not None


def test_names_of_the_world_are_what_the_pages_show(world: World, site: str) -> None:
    _, _, page = get(site + f"/p/{world.players['Alice']}")
    for name, _ in PUBLIC[:3]:
        assert name in page
    assert PRIVATE[0][0] not in page
    assert "<svg" in get(site + f"/p/{world.players['Bob']}")[2]  # the rating plot
