"""RFC 3339 times: parsed once, compared as instants, never as strings."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

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
    (README, How vcon-view reads the drafts), and the caller warns about it.
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


#: ASCII digits to "0": a date-time's pattern, which ``RFC3339`` matches exactly when it matches
#: the date-time (``\d`` matches "0" as it matches any ASCII digit).
_PATTERN = bytes.maketrans(b"123456789", b"000000000")


def parse_times(values: list[Any]) -> list[datetime] | None:
    """Every value parsed, when each is an RFC 3339 date-time string with an offset; else
    None (the caller then parses one by one with ``parse_time``, which says what is wrong).

    The same answer as ``RFC3339`` then ``fromisoformat`` on each, in passes that run in C:
    the regular expression runs once per distinct pattern (digits as "0"), not once per value.
    """
    if not values:
        return None
    try:  # join refuses anything but strings: no pass of its own to look at the types
        joined = "\n".join(values).encode()
    except (TypeError, UnicodeEncodeError):  # not a string; a lone surrogate
        return None
    every = joined.translate(_PATTERN)
    first = values[0].encode().translate(_PATTERN)
    if b"\n" not in first and every == b"\n".join([first] * len(values)):
        patterns: Iterable[bytes] = (first,)  # most often: one pattern (no split into values)
    else:
        split = every.split(b"\n")
        if len(split) != len(values):  # a value holds a newline: not a date-time
            return None
        patterns = set(split)
    for pattern in patterns:
        text = pattern.decode()
        if RFC3339(text) is None or not (text[-1] in "Zz" or text[-6] in "+-"):
            return None
    try:  # each with an offset (its pattern's): an aware datetime
        return list(map(datetime.fromisoformat, values))
    except ValueError:
        return None


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
