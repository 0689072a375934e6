"""The HTML part of every kind of game mail, of every game, laid out by a real browser at a
phone's 360 px and a desktop's 1024 px, light and dark: the board is a grid whose rows and
columns line up, it stays in its own box (the mail never scrolls sideways), every coordinate
is shown, every value fits its stone. With PBEM_ARTIFACTS set, a screenshot of each goes to
its html/ folder for a person to look at (capturing them is a third of the time these tests take)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.html.mails import CASES, collect

TEMPLATES = (
    "accepted", "game_started", "your_move", "moved", "board", "draw_offer", "draw_offered",
    "game_over", "watched_move",
)
WIDTHS = (360, 1024)
SCHEMES = ("light", "dark")
LAYOUT = (Path(__file__).parent / "layout.js").read_text(encoding="utf-8")
_BOARDLESS = {"draw_offered"}  # a short answer that shows no board
SCREENSHOTS = bool(os.environ.get("PBEM_ARTIFACTS"))


@pytest.fixture(scope="session")
def mails(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    return collect(tmp_path_factory.mktemp("html-mails"))


def _show(browser, page: Path, width: int, scheme: str) -> dict:  # noqa: ANN001
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
    )
    browser.get(page.as_uri())
    return browser.execute_script(f"const VIEWPORT = {width};\n" + LAYOUT)


def _screenshot(browser, path: Path, width: int, height: int) -> None:  # noqa: ANN001
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": min(height, 6000), "deviceScaleFactor": 1, "mobile": width < 600},
    )
    browser.save_screenshot(str(path))


def check(browser, artifacts: Path, name: str, html: str, boards: int) -> None:  # noqa: ANN001
    assert not re.search(r"<script|<img|<link|<iframe|@import|@font-face|url\(", html, re.I)
    page = artifacts / f"{name}.html"
    page.write_text(html, encoding="utf-8")
    seen = {}
    for width in WIDTHS:
        for scheme in SCHEMES:
            found = _show(browser, page, width, scheme)
            assert found["problems"] == [], f"{name} at {width}px, {scheme}"
            assert found["boards"] == boards
            seen[scheme] = found["dark"]
            if SCREENSHOTS:
                _screenshot(browser, artifacts / f"{name}-{width}-{scheme}.png", width, found["height"])
    assert seen["light"] != seen["dark"]  # the dark block of the head applies


@pytest.mark.parametrize("template", TEMPLATES)
@pytest.mark.parametrize("case", list(CASES))
def test_a_game_mail_reads_at_every_width_light_and_dark(browser, artifacts, mails, case, template) -> None:
    html = mails.get((case, template))
    assert html is not None, f"the game of {case} sent no {template} mail"
    if case == "infection" and template not in _BOARDLESS:
        assert 'class="blocked' in html  # the blocked squares are drawn as such
    check(browser, artifacts, f"{case}-{template}", html, 0 if template in _BOARDLESS else 1)


def test_the_display_sample_reads_at_every_width(browser, artifacts, mails) -> None:
    check(browser, artifacts, "display", mails[("all", "display")], 6)


def test_help_reads_at_every_width(browser, artifacts, mails) -> None:
    check(browser, artifacts, "help", mails[("all", "help")], 0)


def test_a_crowded_infinito_26x26_is_drawn_compact_and_whole(browser, artifacts, mails) -> None:
    """Wider than a phone: every stone drawn, in small squares, the board whole at 360 px (the
    values are in the text part, and on the game's page that a mail with a base_url links)."""
    html = mails[("all", "crowded")]
    assert 'class="board compact"' in html
    assert html.count('class="st ') >= 600 + 50
    check(browser, artifacts, "infinito-26-crowded", html, 1)
