"""The one place that reads the time, so that tests can freeze it (freezegun)."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)
