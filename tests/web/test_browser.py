"""Every kind of page in real headless Chromium, at a phone's 360 px and a desktop's 1280 px,
light and dark: nothing wider than the viewport, the board square and its last move ringed;
and axe-core (from the npm registry, installed once into a cache folder) finds no serious or
critical accessibility problem. With PBEM_ARTIFACTS set, a screenshot of each goes to its
web/ folder for a person to look at."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.needs import missing
from tests.web.site import World

WIDTHS = (360, 1280)
SCHEMES = ("light", "dark")
AXE_VERSION = "4"
LAYOUT = """
const width = document.documentElement.clientWidth;
const wide = [...document.querySelectorAll('body *')].filter(e => {
  const r = e.getBoundingClientRect();
  if (!r.width) return false;
  for (let p = e.parentElement; p; p = p.parentElement) {  // inside a box that scrolls: fine
    const s = getComputedStyle(p);
    if (p !== document.body && p !== document.documentElement && (s.overflowX === 'auto' || s.overflowX === 'scroll')) return false;
  }
  return r.right > width + 0.5 || r.left < -0.5;
}).map(e => e.tagName + '.' + e.className.baseVal + e.className);
const board = document.querySelector('svg.board');
const b = board ? board.getBoundingClientRect() : null;
const last = board ? board.querySelector('.last') : null;
const l = last ? last.getBoundingClientRect() : null;
return {scroll: document.documentElement.scrollWidth, width, wide: wide.slice(0, 5),
        board: b ? [b.width, b.height, b.right] : null, last: l ? [l.width, l.height, l.left, l.right] : null,
        bg: getComputedStyle(document.body).backgroundColor, height: document.documentElement.scrollHeight};
"""


@pytest.fixture(scope="session")
def axe() -> str:
    """axe-core's script: from $PBEM_AXE, else installed by npm into a cache folder once."""
    given = os.environ.get("PBEM_AXE")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pbem-axe"
    script = Path(given) if given else cache / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file():
        npm = shutil.which("npm")
        if npm is None:
            missing("npm is missing (the accessibility check installs axe-core with it)",
                    "the accessibility check needs npm in CI (apt-get install npm)")
        done = subprocess.run([npm, "install", "--prefix", str(cache), f"axe-core@{AXE_VERSION}", "--no-audit",
                               "--no-fund"], capture_output=True, text=True, timeout=300)
        if done.returncode != 0 or not script.is_file():
            missing(f"npm could not install axe-core: {done.stderr[-300:]}", "axe-core could not be installed")
    return script.read_text(encoding="utf-8")


def _pages(world: World) -> dict[str, str]:
    return {
        "index": "/", "game-ataxx": world.games[1], "game-capturego13": world.games[2],
        "game-myriades": world.games[3], "game-infinito26": world.games[4], "game-step": world.games[1] + "?ply=3",
        "player": f"/p/{world.players['Alice']}", "player-rated": f"/p/{world.players['Bob']}",
        "tournament": f"/t/{world.tournament}", "ladder": f"/t/{world.ladder}", "challenges": "/challenges",
        "rules": "/rules/myriades", "rules-ko": "/rules/capturego?lang=ko", "missing": "/nothing",
        "unsubscribe": "/unsubscribe/1.0000000000000000",
    }


def _show(browser, url: str, width: int, scheme: str, height: int = 900) -> None:  # noqa: ANN001
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                            {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
    browser.get(url)


def test_every_page_lays_out_at_both_widths_in_both_schemes(browser, artifacts, world: World, site: str) -> None:  # noqa: ANN001
    folder = artifacts / "web"
    folder.mkdir(exist_ok=True)
    shots = bool(os.environ.get("PBEM_ARTIFACTS"))
    for name, path in _pages(world).items():
        backgrounds = set()
        for width in WIDTHS:
            for scheme in SCHEMES:
                _show(browser, site + path, width, scheme)
                found = browser.execute_script(LAYOUT)
                where = f"{name} at {width} px, {scheme}"
                assert found["scroll"] <= width, (where, found)
                assert not found["wide"], (where, found["wide"])
                backgrounds.add(found["bg"])
                if name.startswith("game"):
                    w, h, right = found["board"]
                    assert abs(w - h) < 1 and w >= min(300, width - 40) and right <= width, (where, found)
                    assert found["last"] is not None, (where, "no last move ringed")
                    lw, lh, left, lright = found["last"]
                    assert lw > 3 and abs(lw - lh) < 1 and left >= 0 and lright <= width, (where, found)
                if shots:
                    _show(browser, site + path, width, scheme, min(found["height"], 4000))
                    browser.save_screenshot(str(folder / f"{name}-{width}-{scheme}.png"))
        assert len(backgrounds) == 2, (name, backgrounds)  # dark is dark


def test_no_serious_accessibility_finding(browser, axe: str, world: World, site: str) -> None:  # noqa: ANN001
    for name, path in _pages(world).items():
        for scheme in SCHEMES:
            _show(browser, site + path, 1280, scheme)
            browser.execute_script(axe)  # injected by the driver: the page's CSP does not apply to it
            result = browser.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map("
                "v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.html)}))));")
            serious = [v for v in result if v["impact"] in ("serious", "critical")]
            assert not serious, (name, scheme, serious)
