"""The summary JSON (README, *The summary JSON*): the stable interface users script against.

Values are exact (ids are not sanitised, so scripts can match them), yet the bytes carry no raw
control, C1, bidi or invisible character: orjson escapes C0 and ``json_escape_unsafe`` the rest,
both as JSON escapes that decode back to the recorded value. This module imports neither rich
nor textual, so ``summary --format json`` starts fast.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from operator import attrgetter
from typing import Any

import orjson

from viewer import jsonenc
from viewer.model.times import format_time as rfc3339
from viewer.model.types import EventArray, Model, Operation
from viewer.parties import op_party, party_record
from viewer.textsafe import json_escape_unsafe_bytes

FORMAT = "vcon-view-summary/1"
OVERRIDE_NOTE = (
    "produced under --ignore-critical: the vCon names critical extensions vcon-view does not "
    "support, and the core draft says it must not be processed"
)

DERIVED_NOTE = (
    "the file has no tool-invocation events: these operations were derived by vcon-view from "
    "the objects named in 'from'; the file is unchanged"
)


def selected(model: Model, operations: Sequence[Operation] | None) -> tuple[Operation, ...]:
    """The operations an export covers: all of them, or the subset in model order."""
    if operations is None:
        return model.operations
    ids = {op.operation_id for op in operations}
    return tuple(op for op in model.operations if op.operation_id in ids)


def selected_findings(model: Model, operations: Sequence[Operation] | None) -> list[Any]:
    """All findings for a full export; for a subset, only those of the chosen operations.

    Findings with no operation describe the whole vCon, so they belong to the full export only.
    """
    if operations is None:
        return list(model.findings)
    ids = {op.operation_id for op in operations}
    return [f for f in model.findings if f.operation_id is not None and f.operation_id in ids]


#: A recorded time that ``rfc3339`` would write back unchanged: UTC ``Z``, whole seconds or
#: non-zero milliseconds, ASCII digits, no leap second (``:60`` is read as ``:59.999999``, the
#: last instant datetime holds: README, How vcon-view reads the drafts). Such a string is its
#: own RFC 3339 form. (Each digit is spelled out: the engine matches that faster than a
#: counted repeat, ``[0-9]{4}``.)
_CANONICAL = re.compile(
    r"\d\d\d\d-\d\d-\d\dT\d\d:\d\d:[0-5]\d(?:\.(?!000)\d\d\d)?Z", re.ASCII
)


def _operations(model: Model, ops: Sequence[Operation]) -> list[dict[str, Any]]:
    """The "operations" member: one dict per operation (see ``_iter_operations``)."""
    return list(_iter_operations(model, ops))


def _iter_operations(model: Model, ops: Sequence[Operation]) -> Iterator[dict[str, Any]]:
    """The dict of each operation in turn, with the times written cheaply.

    Formatting a datetime is dear and a large summary writes a few per operation. Every
    time in an operation is the parsed ``time`` of one of its events (first event, first and
    last step of an attempt); when the recorded string is already canonical (``_CANONICAL``)
    and the value is that very datetime object, the string is written as recorded. Anything
    else goes through ``rfc3339``.
    """
    events = model.events
    replay = model.replay
    n_events = len(events)
    match = _CANONICAL.fullmatch
    # Each event's time as recorded, read in bulk from the events array (no dict decoded).
    source = events[0].source if events else None
    recorded = source.column("time") if isinstance(source, EventArray) else None

    def event_time(i: int, dt: Any) -> str | None:
        if dt is None:
            return None
        if 0 <= i < n_events:
            ev = events[i]
            if ev[3] is dt:  # Event.time, by position (as above)
                text = recorded[i] if recorded is not None else ev.get("time")
                if type(text) is str and match(text) is not None:
                    return text
        return rfc3339(dt)

    n_replay = len(replay)
    # The operation's party (``viewer.parties.op_party``), as one record per party made once
    # and shared by its operations (read-only, like the rest of the dict).
    records = _PartyRecords(model)

    flag_list = _Sorted()  # each set of flags sorted once, the list shared (read-only)
    step_event = attrgetter("event")
    step_after = attrgetter("after")
    for op in ops:
        first_time = op.first_time
        fo = op.first_order
        attempts = []
        first = replay[fo] if 0 <= fo < n_replay else -1
        first_text: Any = False  # not yet written
        for a in op.attempts:
            steps = a.steps
            if steps:
                i0 = steps[0].event
                a_start = a.start
                start = event_time(i0, a_start)
                if i0 == first and a_start is first_time and first_text is False:
                    first_text = start  # the same event's time: the same text
                end = event_time(steps[-1].event, a.end)
            else:
                start, end = rfc3339(a.start), rfc3339(a.end)
            late, out_of_model, flags = a.late, a.out_of_model, a.flags
            attempts.append({
                "attempt": a.number,
                "start": start,
                "end": end,
                "states": list(map(step_after, steps)),
                "final_state": a.final_state,
                "events": list(map(step_event, steps)),
                "late": list(late) if late else [],
                "out_of_model": list(out_of_model) if out_of_model else [],
                "decision": a.decision,
                "decision_life": a.decision_life,
                "decision_event": a.decision_event,
                "escalated": a.escalated,
                "flags": flag_list[flags] if flags else [],
            })
        if first_text is False:
            first_text = event_time(first, first_time)
        unassigned, once, op_flags = op.unassigned_events, op.once_decisions, op.flags
        item = {
            "operation_id": op.operation_id,
            "operation": op.operation,
            "server": op.server,
            "tool": op.tool,
            "decision": op.decision,
            "decision_life": op.decision_life,
            "decision_event": op.decision_event,
            "outcome": op.outcome,
            "attempts": attempts,
            "retries": op.retries,
            "escalated": op.escalated,
            "late_responses": op.late_responses,
            "unassigned_events": list(unassigned) if unassigned else [],
            "once_decisions": list(once) if once else [],
            "first_time": first_text,
            "flags": flag_list[op_flags] if op_flags else [],
            "party": records[op_party(model, op)],
        }
        if once:  # why it was decided, and what a call that never ran asked for
            reason, asked = decision_reason(model, op), requested(model, op)
            if reason is not None:
                item["decision_reason"] = reason
            if asked is not None:
                item["requested"] = asked
        yield item


def decision_reason(model: Model, op: Operation) -> Any:
    """The ``reason`` recorded on the operation's once decision (``decision_event``), as
    recorded; None when its decision is not a once decision or says no reason. A standing
    decision's reason is said once, in ``standing_decisions``, not on each operation."""
    if op.decision_life != "once" or op.decision_event is None:
        return None
    return model.events[op.decision_event].get("reason")


def requested_event(model: Model, op: Operation) -> int | None:
    """The event that says what a call that never ran asked for: its first once decision
    that records ``requested`` (the importers' member: README, *Importing agent traffic*);
    None when it ran or none does."""
    if op.attempts:
        return None
    events = model.events
    return next((i for i in op.once_decisions if events[i].get("requested") is not None),
                None)


def requested(model: Model, op: Operation) -> Any:
    """What a call that never ran asked for (``requested_event``), as recorded, or None."""
    i = requested_event(model, op)
    return None if i is None else model.events[i].get("requested")


class _PartyRecords(dict):  # type: ignore[type-arg]
    """``party_record`` of each party, made on first use and kept: ``records[party]``."""

    def __init__(self, model: Model) -> None:
        super().__init__()
        self.model = model

    def __missing__(self, party: int | None) -> dict[str, Any] | None:
        value = self[party] = party_record(self.model, party)
        return value


class _Sorted(dict):  # type: ignore[type-arg]
    """A set's members sorted, made on first use and kept: ``memo[flags]``."""

    def __missing__(self, key: frozenset[str]) -> list[str]:
        value = self[key] = sorted(key)
        return value


def _source(model: Model) -> dict[str, Any]:
    s = model.source
    return {
        "file": s.file,
        "sha256": s.sha256,
        "size": s.size,
        "form": s.form,
        "gzip": s.gzip,
        "uuid": s.uuid,
        "extensions": list(s.extensions),
        "critical": list(s.critical),
        "unsupported_critical": list(s.unsupported_critical),
        "critical_override": s.critical_override,
        "signed_layers": s.signed_layers,
        "signatures": [
            {"layer": g.layer, "index": g.index, "alg": g.alg, "kid": g.kid, "x5c": g.x5c,
             "x5u": g.x5u, "uuid": g.uuid, "verified": g.verified, "reason": g.reason,
             "subject": g.subject, "chain": list(g.chain), "anchor": g.anchor,
             "checked_at": rfc3339(g.checked_at) if g.checked_at else None,
             "time_source": g.time_source}
            for g in s.signatures
        ],
    }


def summary_dict(model: Model, operations: Sequence[Operation] | None = None, *,
                 with_operations: bool = True) -> dict[str, Any]:
    """The section 9 document; ``operations`` limits it to a subset (the TUI's filtered export).

    A subset keeps the standing decisions and diagnostics whole (they describe the policy and the
    file, not one operation), keeps only the findings of the chosen operations, and says so in
    ``selection``. Without ``with_operations`` its "operations" array is left empty (``check``
    reads the rest: one dict per operation and attempt is most of the document's cost).
    """
    return _document(model, operations, with_operations=with_operations)


def _document(model: Model, operations: Sequence[Operation] | None,
              *, with_operations: bool, with_findings: bool = True) -> dict[str, Any]:
    """The summary document; without its operations, or its findings, their arrays are left
    empty (``iter_json`` writes them in batches)."""
    ops = selected(model, operations)
    out: dict[str, Any] = {"format": FORMAT}
    if model.source.critical_override:
        out["produced_under_override"] = True
        out["note"] = OVERRIDE_NOTE
    out["source"] = _source(model)
    if model.derived_from:  # lifted or imported: the file has no lifecycle events
        out["derived"] = {"from": list(model.derived_from), "note": DERIVED_NOTE}
        d = model.derivation
        if d is not None:  # what was read, and how much of it was mapped
            out["derived"].update(
                format=d.format, title=d.title, objects=d.objects, unit=d.unit,
                mapped=d.mapped, ignored=d.ignored, unmapped=d.unmapped, times=d.times)
    if operations is not None:
        out["selection"] = {
            "operations": len(ops),
            "of": len(model.operations),
            "operation_ids": [op.operation_id for op in ops],
        }
    out["operations"] = _operations(model, ops) if with_operations else []
    out["standing_decisions"] = [
        {
            "event": d.event,
            "time": rfc3339(d.time),
            "operation": d.operation,
            "server": d.server,
            "tool": d.tool,
            "decision": d.decision,
            "reason": d.reason,
            "replaced_by": d.replaced_by,
        }
        for d in model.standing
    ]
    findings = selected_findings(model, operations)
    out["findings"] = list(_finding_dicts(findings)) if with_findings else []
    out["diagnostics"] = [
        {"code": d.code, "severity": d.severity, "pointer": d.pointer, "message": d.message}
        for d in model.diagnostics
    ]
    out["counts"] = {"findings": len(findings), "diagnostics": len(model.diagnostics),
                     "by_severity": model.counts(findings)}
    return out


def _finding_dicts(findings: Iterable[Any]) -> Iterator[dict[str, Any]]:
    for f in findings:
        yield {
            "kind": f.kind,
            "severity": f.severity,
            "operation_id": f.operation_id,
            "attempt": f.attempt,
            "events": list(f.events),
            "message": f.message,
        }


def dumps(document: Any) -> bytes:
    """Indented JSON bytes with every unsafe character escaped (values stay exact)."""
    return _escaped(jsonenc.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))


def _escaped(raw: bytes) -> bytes:
    """``raw`` with unsafe characters as JSON escapes; DEL is ASCII but unsafe too."""
    if raw.isascii() and b"\x7f" not in raw:
        return raw
    return json_escape_unsafe_bytes(raw)


#: List items dumped per orjson call by ``iter_json`` and ``iter_dumps``: few enough that their
#: dicts stay small next to the parsed vCon, enough that the per-call cost vanishes.
BATCH = 512


def iter_json(model: Model, operations: Sequence[Operation] | None = None) -> Iterator[bytes]:
    """``to_json`` in pieces, byte for byte: the operations, then the findings, are built,
    dumped and released ``BATCH`` at a time, so the document never exists whole (on a big
    file, millions of dicts and lists fewer at once, and the memory of one batch is reused for
    the next).

    The rest of the document is dumped with empty "operations" and "findings" arrays, which
    ``_spliced`` then fills.
    """
    ops = selected(model, operations)
    if not ops:
        yield dumps(_document(model, operations, with_operations=False))
        return
    head = dumps(_document(model, operations, with_operations=False, with_findings=False))
    lists = {"operations": _in_batches(_iter_operations(model, ops))}
    findings = selected_findings(model, operations)
    if findings:
        lists["findings"] = _in_batches(_finding_dicts(findings))
    yield from _spliced(head, lists)


def _in_batches(dicts: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """``dicts`` made ``BATCH`` at a time, each batch only when it is asked for."""
    return iter(lambda: list(islice(dicts, BATCH)), [])


def iter_dumps(document: dict[str, Any], members: Sequence[str]) -> Iterator[bytes]:
    """``dumps(document)`` in pieces, byte for byte: each of its ``members`` that is a
    non-empty list is dumped ``BATCH`` items at a time (``vcon-view import``'s ``dialog`` and
    ``events``), so the whole text never exists at once."""
    big = {k: v for k in members if isinstance(v := document.get(k), list) and v}
    if not big:
        yield dumps(document)
        return
    head = dumps({k: [] if k in big else v for k, v in document.items()})
    yield from _spliced(head, {k: _batches(v) for k, v in big.items()})


def _batches(items: list[Any]) -> Iterator[list[Any]]:
    return (items[i:i + BATCH] for i in range(0, len(items), BATCH))


def _spliced(head: bytes, lists: dict[str, Iterator[list[Any]]]) -> Iterator[bytes]:
    """``head`` (a document dumped by ``dumps`` with each member of ``lists`` an empty array)
    with those arrays filled, in pieces. Each batch of items (none empty; at least one per
    member) is dumped as ``{"name": [...]}``, which puts its items at their depth in the
    document; the wrapper is cut off."""
    option = orjson.OPT_INDENT_2
    at = 0
    for name in sorted(lists, key=lambda k: head.index(_opened(k))):
        wrap = b"{" + _opened(name) + b"\n"
        marker = _opened(name) + b"]"
        end = head.index(marker, at) + len(marker) - 1  # at the "]"
        yield head[at:end - 1] + b"[\n"
        for k, batch in enumerate(lists[name]):
            if k:  # first: the reader lets go of the batch before while this one is made
                yield b",\n"
            chunk = jsonenc.dumps({name: batch}, option=option)
            del batch  # its dicts
            if not (chunk.startswith(wrap) and chunk.endswith(b"\n  ]\n}")):
                # orjson changed its indented layout: cutting the wrapper would corrupt the JSON
                raise RuntimeError("JSON in pieces: unexpected layout of a batch")
            piece = _escaped(chunk[len(wrap):-6])
            del chunk
            yield piece
            del piece
        yield b"\n  "
        at = end
    yield head[at:]


def _opened(name: str) -> bytes:
    """How ``dumps`` opens the top-level member ``name`` (its key, at depth 1)."""
    return b"\n  " + orjson.dumps(name) + b": ["


def to_json(model: Model, operations: Sequence[Operation] | None = None) -> bytes:
    """The summary JSON as bytes, ready to write."""
    return b"".join(iter_json(model, operations))
