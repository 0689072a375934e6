"""A headless Chromium for the whole run (Debian's chromium and chromedriver, driven by
selenium), and the folder the pages (and, with $PBEM_ARTIFACTS set, their screenshots) go to."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.needs import missing

CHROMIUM = os.environ.get("PBEM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PBEM_CHROMEDRIVER", "/usr/bin/chromedriver")


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e .[test])"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (Path(path).is_file() or shutil.which(path)):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One headless Chromium for every browser test; quit at the end, even when tests fail."""
    problem = _missing()
    if problem:
        missing(problem, f"the HTML mail tests need a browser in CI: {problem}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--disable-dev-shm-usage", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the pages and screenshots are written for a person to look at (never committed)."""
    given = os.environ.get("PBEM_ARTIFACTS")
    folder = Path(given) / "html" if given else tmp_path_factory.mktemp("html-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def server(tmp_path) -> Iterator[object]:
    """The service over a SQLite file, as tests/service has it."""
    from tests.databases import throwaway
    from tests.server import _server

    with throwaway("sqlite", tmp_path) as url:
        yield from _server(url, tmp_path)
