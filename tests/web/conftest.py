"""The web tests' world (`tests.web.site`), served once per test module by the web face."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.html.conftest import artifacts, browser  # noqa: F401  (the one headless Chromium)
from tests.web.site import Running, World, build


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return build(tmp_path_factory.mktemp("web"))


@pytest.fixture(scope="module")
def site(world: World) -> Iterator[str]:
    """The base address of the web face serving `world`."""
    with Running(world) as base:
        world.address = base
        yield base
