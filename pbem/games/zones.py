"""Time zones: a player's zone by its IANA name, and a moment as that player reads it.

Apart from the clock so that vacations, digests and the commands that set a zone need not
import the deadlines' arithmetic.
"""

from __future__ import annotations

import difflib
from datetime import UTC, datetime, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pbem.core.errors import ClockError
from pbem_engine.common.phrases import phrase


@lru_cache(maxsize=1)
def _zone_names() -> dict[str, str]:
    return {name.lower(): name for name in available_timezones() | {"UTC"}}


def zone(name: str | None) -> tzinfo:
    """The zone of a stored name; UTC for none (or a name the system no longer knows)."""
    try:
        return ZoneInfo(name) if name and name != "UTC" else UTC
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def parse_zone(text: str) -> str:
    """The canonical IANA name a player means ("europe/rome" -> "Europe/Rome")."""
    key = text.strip().replace(" ", "_").lower()
    names = _zone_names()
    if key in names:
        return names[key]
    close = [names[c] for c in difflib.get_close_matches(key, list(names), n=3, cutoff=0.75)]
    examples = {"example": "timezone Europe/Rome", "other": "timezone America/New_York"}
    if len(close) >= 3:
        hint = phrase(
            "Did you mean {first} or {second} or {third}? "
            "Write the zone as Region/City, e.g. {example} or {other}.",
            first=close[0], second=close[1], third=close[2], **examples,
        )
    elif len(close) == 2:
        hint = phrase(
            "Did you mean {first} or {second}? Write the zone as Region/City, e.g. {example} or {other}.",
            first=close[0], second=close[1], **examples,
        )
    elif close:
        hint = phrase(
            "Did you mean {first}? Write the zone as Region/City, e.g. {example} or {other}.",
            first=close[0], **examples,
        )
    else:
        hint = phrase("Write the zone as Region/City, e.g. {example} or {other}.", **examples)
    raise ClockError(phrase('"{given}" is not a time zone I know.', given=text[:40]), hint)


# --- the pure arithmetic --------------------------------------------------------------------


def when(at: datetime, tz: tzinfo) -> str:
    """'Mon 7 Dec 2026, 10:00 Europe/Rome': a moment as an English reader reads it (the mails
    pass the moment itself, `local`, and the template says it in the reader's language:
    `Speaker.moment` writes English exactly so)."""
    local = at.astimezone(tz)
    return f"{local:%a} {local.day} {local:%b %Y, %H:%M} {getattr(tz, 'key', 'UTC')}"


def local(at: datetime, tz: tzinfo) -> datetime:
    """The moment in the zone it is shown in: an aware datetime that a template speaks (its
    finalize calls `Speaker.moment`), with the zone's name."""
    return at.astimezone(tz)
