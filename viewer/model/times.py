"""RFC 3339 times: parsed once, compared as instants, never as strings."""

from __future__ import annotations

from datetime import UTC, datetime

#: Sorts before every real time: where events with no parsed time and none before them go.
EARLIEST = datetime.min.replace(tzinfo=UTC)


def parse_time(value: object) -> tuple[datetime | None, bool]:
    """(aware datetime or None, whether the record lacked a zone offset).

    A date-time needs a date, a ``T`` (or space) and a time; a missing offset is read as UTC
    (INTERPRETATION 2), and the caller warns about it.
    """
    if not isinstance(value, str) or len(value) < 16 or value[10] not in "Tt ":
        return None, False
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        if value[-1:] != "z":
            return None, False
        try:
            dt = datetime.fromisoformat(value[:-1] + "Z")
        except ValueError:
            return None, False
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
