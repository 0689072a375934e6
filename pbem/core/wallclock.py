"""The one place that reads the time, so that tests can freeze it (freezegun)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import overload


def now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


@overload
def aware(at: datetime) -> datetime: ...
@overload
def aware(at: None) -> None: ...
def aware(at: datetime | None) -> datetime | None:
    """A stored time as an aware UTC datetime (SQLite gives them back naive)."""
    return at.replace(tzinfo=UTC) if at is not None and at.tzinfo is None else at
