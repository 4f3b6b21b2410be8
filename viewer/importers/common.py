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
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import orjson

from viewer.jsonenc import loads
from viewer.model.spec import EXTENSION_NAME, HOST_SERVER
from viewer.model.times import parse_time

#: The draft's name for the agent's own host: the server of every built-in tool call.
HOST: Final = HOST_SERVER

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


def carried_times(stamps: list[datetime | None]) -> list[datetime] | None:
    """Each record's time, a record without one taking the last known before it (the first
    known for those before any); None when no record has a time."""
    known = next((t for t in stamps if t is not None), None)
    if known is None:
        return None
    times: list[datetime] = []
    prev = known
    for t in stamps:
        prev = t or prev
        times.append(prev)
    return times


def nonempty_str(v: Any) -> str | None:
    """``v`` when it is a non-empty string, else None: the test every importer puts to a
    recorded name, id or kind before it uses one (an empty string names nothing)."""
    return v if isinstance(v, str) and v else None


def dict_or_empty(v: Any) -> dict[str, Any]:
    """``v`` when it is an object, else an empty one: a recorded field read as an object
    whatever it holds, so that ``.get`` on it never fails."""
    return v if isinstance(v, dict) else {}


def writable(v: Any) -> bool:
    """Whether ``v`` can be written inside an event of a vCon (orjson stops at 255 levels;
    ``jsonenc`` writes what else orjson refuses)."""
    try:
        orjson.dumps([[[[[[[[v]]]]]]]])
    except TypeError as exc:
        return "ecursion" not in str(exc)
    return True


def clip(value: Any, limit: int = 40) -> str:
    """A recorded value to quote in a warning or an example, shortened with an ellipsis: the
    value is cut, never the sentence around it (``repr`` form, so its ends are visible)."""
    text = repr(value) if isinstance(value, str) else repr(str(value))
    return text if len(text) <= limit else text[: limit - 2] + "…" + text[0]


@dataclass
class Report:
    """What an import kept, skipped and could not map; printed as warnings by the CLI."""

    mapped: int = 0  # input messages/objects that produced or affected events
    ignored: dict[str, int] = field(default_factory=dict)  # not tool traffic, by kind
    unmapped: int = 0
    examples: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    times: str = "recorded"  # recorded | partial | order-only
    #: What was read, when the format's ``title``/``unit`` would misname it (a Claude Code
    #: hook log is no transcript, and counts hook payloads, not lines): None, the format's.
    title: str | None = None
    unit: str | None = None
    article: str = "a"  # said before ``title`` (when there is one): "an Arize Phoenix ..."

    def ignore(self, kind: str) -> None:
        self.ignored[kind] = self.ignored.get(kind, 0) + 1

    def fail(self, where: str, why: str) -> None:
        """One unmapped input item; ``why`` is our sentence (quote recorded values with
        ``clip``): the first ``MAX_EXAMPLES`` are kept whole, the rest counted."""
        self.unmapped += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f"{where}: {why}")

    def tally(self, status: dict[int, tuple[str, str]]) -> None:
        """Count each input line, in order, as mapped, ignored (``detail``: its kind) or
        unmapped (``detail``: why): ``status`` is line number -> (what, detail)."""
        for n in sorted(status):
            what, detail = status[n]
            if what == "mapped":
                self.mapped += 1
            elif what == "ignored":
                self.ignore(detail)
            else:
                self.fail(f"line {n}", detail)

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
        if self.unmapped:  # whole examples, by count: never a sentence cut short
            first = "" if self.unmapped == len(self.examples) else \
                f"; the first {len(self.examples)}"
            out.append(f"{self.unmapped} input item(s) could not be mapped{first}: "
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
        self._asked: dict[tuple[str, int], Any] = {}  # (operation, attempt) -> its arguments

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
        if fields:
            ev.update(fields)
        if body is not None:
            ev["body"] = body
            if isinstance(body, str) and mediatype != JSON:
                ev["encoding"] = "none"
                ev["mediatype"] = mediatype
            else:
                ev["encoding"] = "json"
                ev["mediatype"] = JSON
        self.events.append(ev)
        self.sources.append(source)
        return ev

    def asked(self, operation_id: str, attempt: int, body: Any) -> None:
        """What the agent asked this attempt's tool to do, as its invocation's content holds
        it (same shape, so the viewer reads both alike). Should the host refuse the call, so
        that the attempt has a once decision and no invocation, ``requested`` writes it on
        that decision. ``None``: the recording does not hold the arguments; nothing is
        written (never invented)."""
        if body is not None:
            self._asked[(operation_id, attempt)] = body

    def requested(self) -> int:
        """Writes ``requested`` on each once policy-decision of an attempt the agent asked
        for (``asked``) that has no tool-invocation: the draft allows no content on a
        decision and records arguments only in an invocation, so without it a refused call
        would not say what was refused (README, *Importing agent traffic*). A non-draft
        member, like ``inferred``. Returns how many decisions carry it."""
        if not self._asked:
            return 0
        ran = {(ev.get("operation_id"), ev.get("attempt")) for ev in self.events
               if ev["type"] == "tool-invocation"}
        n = 0
        for ev in self.events:
            if ev["type"] != "policy-decision" or ev.get("policy_life") != "once":
                continue
            key = (ev.get("operation_id"), ev.get("attempt"))
            body = self._asked.get(key)  # type: ignore[arg-type]
            if body is None or key in ran or not writable(body):
                continue
            ev["requested"] = body
            n += 1
        return n


#: The longest dialog body kept whole; longer text is cut with a visible note.
MAX_DIALOG_CHARS: Final = 64 * 1024
#: The party of the person who prompts the agent (added with the first user turn).
USER_PARTY: Final = {"name": "user", "role": "user"}
#: The user party's placeholder index in ``Dialogs`` until ``assemble`` places the party.
USER: Final = -1


def cut_text(text: str, limit: int = MAX_DIALOG_CHARS) -> str:
    """``text`` whole up to ``limit`` characters; longer: the start and a visible note."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\u2026 [{len(text) - limit} more characters]"


class Dialogs:
    """Writes the conversation (user prompts, agent replies) as core text Dialog Objects.

    The bodies are recorded text, copied as data (never interpreted); ``assemble`` appends
    the user party (last) when a turn names it."""

    def __init__(self, parties: list[dict[str, Any]], agent: int = 0) -> None:
        self.parties = parties
        self.agent = agent
        self.dialog: list[dict[str, Any]] = []
        self.sources: list[str] = []  # per dialog: where in the input it came from

    @property
    def user(self) -> int:
        """The user party: a placeholder until ``assemble`` appends the party after the
        importer's own (so the agents' indices do not depend on when the user first spoke)."""
        return USER

    def add(self, when: datetime, speaker: int, listener: int | None, text: Any,
            source: str) -> bool:
        """One text turn from ``speaker`` to ``listener``; blank or non-text: nothing, False."""
        if not isinstance(text, str) or not text.strip():
            return False
        parties = [speaker] if listener is None or listener == speaker else [speaker, listener]
        self.dialog.append({
            # the speaker is listed first: the core draft's implied originator (no member)
            "type": "text", "start": rfc3339(when), "parties": parties,
            "mediatype": TEXT, "encoding": "none", "body": cut_text(text),
        })
        self.sources.append(source)
        return True

    def said(self, when: datetime, text: Any, source: str, party: int | None = None) -> bool:
        """The user said ``text`` to the agent (or to ``party``)."""
        if not isinstance(text, str) or not text.strip():
            return False
        return self.add(when, self.user, self.agent if party is None else party, text, source)

    def replied(self, when: datetime, text: Any, source: str, party: int | None = None,
                to: int | None = None) -> bool:
        """The agent (or ``party``) said ``text`` to the user (or to ``to``)."""
        if not isinstance(text, str) or not text.strip():
            return False
        return self.add(when, self.agent if party is None else party,
                        self.user if to is None else to, text, source)


def created_at() -> str:
    """Now, or SOURCE_DATE_EPOCH when set (reproducible demos and tests)."""
    env = os.environ.get("SOURCE_DATE_EPOCH")
    if env and env.strip().isdigit():
        return rfc3339(EPOCH + timedelta(seconds=int(env)))
    return rfc3339(datetime.now(UTC))


def vcon_uuid(data: bytes, sha256: str | None = None) -> str:
    """A stable uuid for the vCon imported from these input bytes (``sha256``: their hex
    SHA-256 when the caller has it already)."""
    return str(uuid.uuid5(NAMESPACE, sha256 or hashlib.sha256(data).hexdigest()))


def assemble(
    *,
    uid: str,
    subject: str,
    parties: list[dict[str, Any]],
    events: Events,
    start: datetime | None,
    provenance: dict[str, Any],
    created: str | None = None,
    dialogs: Dialogs | None = None,
) -> dict[str, Any]:
    """A vCon holding the events, the conversation turns (``dialogs``, in time order), one
    session of all parties and turns, and a provenance attachment."""
    events.requested()
    session: dict[str, Any] = {}
    dialog: list[dict[str, Any]] = []
    dialog_sources: list[str] = []
    if dialogs is not None and dialogs.dialog:
        order = sorted(range(len(dialogs.dialog)), key=lambda i: dialogs.dialog[i]["start"])
        dialog = [dict(dialogs.dialog[i]) for i in order]
        if any(USER in d["parties"] for d in dialog):
            parties = [*parties, dict(USER_PARTY)]
            user = len(parties) - 1
            for d in dialog:
                d["parties"] = [user if p == USER else p for p in d["parties"]]
        dialog_sources = [dialogs.sources[i] for i in order]
        times = [parse_ts(d["start"])[0] for d in dialog]
        first = times[0] if times else None
        if first is not None and start is not None and first < start:
            start = first
        session["dialog"] = list(range(len(dialog)))
    session = {"parties": list(range(len(parties))), **session}
    if start is not None:
        session["start"] = rfc3339(start)
    provenance = {**provenance, "events": [
        {"event": i, "from": src} for i, src in enumerate(events.sources)
    ]}
    if dialog:
        provenance["dialog"] = [{"dialog": i, "from": src}
                                for i, src in enumerate(dialog_sources)]
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
        **({"dialog": dialog} if dialog else {}),
        "sessions": [session],
        "events": events.events,
        "attachments": [attachment],
    }


class NotJSONConstant(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` in importer input: not JSON (RFC 8259)."""


def _no_constant(name: str) -> Any:
    raise NotJSONConstant(f"{name} is not a JSON value")


def json_loads(text: str | bytes, read: Callable[[Any], Any] = loads) -> Any:
    """``json.loads`` for importer input that refuses ``NaN``/``Infinity`` (Python's parser
    accepts them, and orjson would later write them as null in silence): the importer counts
    the line as unmapped with the reason instead (``except ValueError``, as for any bad line).

    ``viewer.jsonenc.loads`` reads it first (integers of any size exact); what orjson refuses
    (not JSON, NaN, a lone surrogate, a number past a double) Python's parser reads or refuses,
    with its own reason, as before. ``read``: ``loads``, or what ``jsonenc.reader`` gave for
    a batch of texts holding this one."""
    try:
        return read(text)
    except orjson.JSONDecodeError:
        pass
    import json

    return json.loads(text, parse_constant=_no_constant)
