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
    frac = "" if not us else f".{us // 1000:03d}" if us % 1000 == 0 else f".{us:06d}"
    off = dt.utcoffset()
    if off is None or not off:
        zone = "Z"
    else:
        sign = "-" if off.days < 0 else "+"
        minutes = abs(int(off.total_seconds())) // 60
        zone = f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"
    return f"{dt.strftime('%Y-%m-%dT%H:%M:%S')}{frac}{zone}"
