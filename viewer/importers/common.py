"""Shared pieces of the importers: the event writer, the import report and the vCon assembler.

Every event the importers write carries what ``vcon-view check`` requires of it: ``time`` (UTC,
RFC 3339 with milliseconds), ``sessions`` [0], ``party`` (the agent), ``operation_id`` (assigned
here, never a protocol request id), ``attempt``, and inline content with ``mediatype`` and
``encoding``. Provenance (which input object each event came from) is kept beside the events,
not in them, so the events stay exactly the draft's.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from viewer.model.spec import EXTENSION_NAME
from viewer.model.times import parse_time

EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
JSON: Final = "application/json"
TEXT: Final = "text/plain"
#: How many examples of unmapped input a report keeps.
MAX_EXAMPLES: Final = 5
#: uuid5 namespace of vCons written by vcon-view import (fixed, so imports are reproducible).
NAMESPACE: Final = uuid.UUID("5b0c8f2e-3d1a-5c7e-9f40-7663a0e1d2c4")


def rfc3339(t: datetime) -> str:
    """UTC, millisecond precision, with a Z: the form every importer writes."""
    return t.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_ts(value: Any) -> tuple[datetime | None, bool]:
    """A transcript timestamp: RFC 3339 text or epoch seconds/milliseconds. (time, was_naive)."""
    if isinstance(value, bool):
        return None, False
    if isinstance(value, (int, float)):
        secs = value / 1000 if value > 1e11 else value
        try:
            return EPOCH + timedelta(seconds=secs), False
        except OverflowError:
            return None, False
    if isinstance(value, str):
        return parse_time(value)
    return None, False


@dataclass
class Report:
    """What an import kept, skipped and could not map; printed as warnings by the CLI."""

    mapped: int = 0  # input messages/objects that produced or affected events
    ignored: dict[str, int] = field(default_factory=dict)  # not tool traffic, by kind
    unmapped: int = 0
    examples: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    times: str = "recorded"  # recorded | partial | order-only

    def ignore(self, kind: str) -> None:
        self.ignored[kind] = self.ignored.get(kind, 0) + 1

    def fail(self, where: str, why: str) -> None:
        self.unmapped += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f"{where}: {why}")

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def lines(self) -> list[str]:
        """Human-readable warning lines (no input text beyond short, neutralised examples)."""
        out = list(self.warnings)
        if self.times == "order-only":
            out.append("the input has no timestamps: event times are synthetic and give the "
                       "order only (1 ms apart)")
        elif self.times == "partial":
            out.append("some messages have no timestamp: they take the time of the message "
                       "before them")
        if self.unmapped:
            out.append(f"{self.unmapped} input item(s) could not be mapped; first: "
                       + "; ".join(self.examples))
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "mapped": self.mapped,
            "ignored": dict(sorted(self.ignored.items())),
            "unmapped": {"count": self.unmapped, "examples": list(self.examples)},
            "times": self.times,
            "warnings": list(self.warnings),
        }


class Events:
    """Writes tool events with the fields every event needs; one writer per output vCon."""

    def __init__(self, party: int, session: int = 0, prefix: str = "op") -> None:
        self.party = party
        self.session = session
        self.prefix = prefix
        self.events: list[dict[str, Any]] = []
        self.sources: list[str] = []  # per event: where in the input it came from
        self._ops = 0

    def new_operation(self) -> str:
        self._ops += 1
        return f"{self.prefix}-{self._ops:04d}"

    @property
    def operations(self) -> int:
        return self._ops

    def add(
        self,
        etype: str,
        when: datetime,
        operation_id: str,
        attempt: int,
        source: str,
        *,
        body: Any = None,
        mediatype: str = JSON,
        server: str | None = None,
        tool: str | None = None,
        party: int | None = None,
        attempt_field: bool = True,
        **fields: Any,
    ) -> dict[str, Any]:
        """One event. ``party`` overrides the writer's (a sub-agent's calls); ``fields`` are
        further members as the draft names them (``decision``, ``policy_life``, ``reason``,
        ``inferred``...); ``attempt_field=False`` leaves ``attempt`` out (a standing decision)."""
        ev: dict[str, Any] = {
            "type": etype,
            "time": rfc3339(when),
            "sessions": [self.session],
            "party": self.party if party is None else party,
            "operation_id": operation_id,
        }
        if attempt_field:
            ev["attempt"] = attempt
        if server is not None:
            ev["server"] = server
        if tool is not None:
            ev["tool"] = tool
        ev.update(fields)
        if body is not None:
            if isinstance(body, str) and mediatype != JSON:
                ev.update(body=body, encoding="none", mediatype=mediatype)
            else:
                ev.update(body=body, encoding="json", mediatype=JSON)
        self.events.append(ev)
        self.sources.append(source)
        return ev


def created_at() -> str:
    """Now, or SOURCE_DATE_EPOCH when set (reproducible demos and tests)."""
    env = os.environ.get("SOURCE_DATE_EPOCH")
    if env and env.strip().isdigit():
        return rfc3339(EPOCH + timedelta(seconds=int(env)))
    return rfc3339(datetime.now(UTC))


def vcon_uuid(data: bytes) -> str:
    """A stable uuid for the vCon imported from these input bytes."""
    return str(uuid.uuid5(NAMESPACE, hashlib.sha256(data).hexdigest()))


def assemble(
    *,
    uid: str,
    subject: str,
    parties: list[dict[str, Any]],
    events: Events,
    start: datetime | None,
    provenance: dict[str, Any],
    created: str | None = None,
) -> dict[str, Any]:
    """A vCon holding the events, one session of all parties, and a provenance attachment."""
    session: dict[str, Any] = {"parties": list(range(len(parties)))}
    if start is not None:
        session["start"] = rfc3339(start)
    provenance = {**provenance, "events": [
        {"event": i, "from": src} for i, src in enumerate(events.sources)
    ]}
    attachment: dict[str, Any] = {
        "purpose": "import-provenance",
        "party": events.party,
        "mediatype": JSON,
        "encoding": "json",
        "body": provenance,
    }
    if start is not None:
        attachment["start"] = rfc3339(start)
    return {
        "vcon": "0.4.0",
        "uuid": uid,
        "created_at": created or created_at(),
        "subject": subject,
        "extensions": [EXTENSION_NAME],
        "parties": parties,
        "sessions": [session],
        "events": events.events,
        "attachments": [attachment],
    }


class NotJSONConstant(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` in importer input: not JSON (RFC 8259)."""


def _no_constant(name: str) -> Any:
    raise NotJSONConstant(f"{name} is not a JSON value")


def json_loads(text: str | bytes) -> Any:
    """``json.loads`` for importer input that refuses ``NaN``/``Infinity`` (Python's parser
    accepts them, and orjson would later write them as null in silence): the importer counts
    the line as unmapped with the reason instead (``except ValueError``, as for any bad line)."""
    import json

    return json.loads(text, parse_constant=_no_constant)
