"""RFC 3339 times: parsed once, compared as instants, never as strings."""

from __future__ import annotations

import re
from datetime import UTC, datetime

#: RFC 3339 date-time (section 5.6), the offset optional: a missing one is read as UTC with a
#: warning. Python's fromisoformat alone accepts far more of ISO 8601 (week dates, "+0100",
#: no seconds, a comma fraction), which are not RFC 3339.
RFC3339 = re.compile(
    r"\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(?:\.\d+)?(?:[Zz]|[+-]\d\d:\d\d)?\Z"
).match

#: Sorts before every real time: where events with no parsed time and none before them go.
EARLIEST = datetime.min.replace(tzinfo=UTC)


def parse_time(value: object) -> tuple[datetime | None, bool]:
    """(aware datetime or None, whether the record lacked a zone offset).

    A date-time needs a date, a ``T`` (or space) and a time; a missing offset is read as UTC
    (INTERPRETATION 2), and the caller warns about it.
    """
    if not isinstance(value, str) or RFC3339(value) is None:
        return None, False
    text = value.replace("t", "T").replace("z", "Z")
    leap = text[17:19] == "60"  # a leap second: RFC 3339 allows it, datetime does not
    if leap:
        text = text[:17] + "59" + text[19:]
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return None, False
    if leap:
        dt = dt.replace(microsecond=999999)
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC), True
    return dt, False


def format_time(dt: datetime | None) -> str | None:
    """RFC 3339: ``Z`` for UTC, milliseconds (or microseconds) only when there are any."""
    if dt is None:
        return None
    us = dt.microsecond
    text = dt.isoformat(
        timespec="seconds" if not us else "milliseconds" if us % 1000 == 0 else "microseconds"
    )
    if text.endswith("+00:00"):
        return text[:-6] + "Z"
    return text
