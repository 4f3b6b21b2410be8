"""Hypothesis strategies that generate vCons holding tool-lifecycle events.

Three modes, drawn per vCon: ``valid`` (every event conforms), ``near`` (mostly valid, with a few
parameters wrong, missing or extra) and ``wild`` (any parameter may be of any type). Values the
standard JSON encoder cannot produce safely (nesting deeper than Python's recursion limit) are
spliced into the serialised text as raw JSON, so the loader sees exactly what a hostile or broken
producer could write: huge integers, 1,000-deep bodies, unknown event types, duplicate and reused
operation_ids, attempts out of order, equal and unparsable times.

``vcon_bytes()`` draws the bytes of a whole vCon; ``distinct_time_events()`` draws an events list
whose times are all valid and distinct (for the replay-order property).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from viewer.model import spec

T0 = datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)
SERVER = "https://tools.example.com/mcp"

#: Context and unknown types, and spellings a careless producer might use.
OTHER_TYPES = ("join", "keydown", "hold", "x-custom", "tool-unknown", "TOOL-RESULT", "", " ")
OP_IDS = ("op-1", "op-2", "op-3", "call_\u202eevil", "op-1 ")
#: Every parameter an Event Object of this draft can carry.
PARAMS = (
    "type", "time", "sessions", "session", "party", "operation_id", "attempt", "server",
    "tool", "decision", "policy_life", "reason", "operation", "body", "encoding", "mediatype",
    "url", "content_hash", "attachment",
)
SHA512_OK = "sha512-" + "A" * 86

# --- raw JSON splicing -------------------------------------------------------------------------


class Raw:
    """JSON text to be spliced verbatim where this object stands."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:  # shown by hypothesis when a case fails
        return f"Raw({self.text[:40]!r}{'...' if len(self.text) > 40 else ''})"


def dumps(value: Any) -> bytes:
    """Serialise ``value``, splicing every ``Raw`` in place (the stdlib encoder keeps big ints)."""
    raws: list[str] = []

    def default(o: Any) -> Any:
        if isinstance(o, Raw):
            raws.append(o.text)
            return f"\x00RAW{len(raws) - 1}\x00"
        raise TypeError(type(o).__name__)

    text = json.dumps(value, default=default, ensure_ascii=False, allow_nan=False)
    for i, r in enumerate(raws):
        text = text.replace(f'"\\u0000RAW{i}\\u0000"', r, 1)
    return text.encode("utf-8", "surrogatepass")


def deep(depth: int, leaf: str = "1", kind: str = "[") -> Raw:
    """A body nested ``depth`` levels deep (orjson's parser accepts up to 1024)."""
    if kind == "[":
        return Raw("[" * depth + leaf + "]" * depth)
    return Raw('{"a":' * depth + leaf + "}" * depth)


# --- values ------------------------------------------------------------------------------------

_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12
)
_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), _text,
    st.floats(allow_nan=False, allow_infinity=False),
)
any_json = st.recursive(
    _scalar,
    lambda kids: st.one_of(
        st.lists(kids, max_size=3), st.dictionaries(_text, kids, max_size=3)
    ),
    max_leaves=6,
)
huge_number = st.sampled_from([2**53, 2**63, 2**64 - 1, 10**30, -(2**63), 1e308, -0.0, 5e-324])
deep_body = st.builds(
    deep, st.sampled_from([2, 64, 256, 257, 600, 999, 1000, 1020]), st.just("1"),
    st.sampled_from(["[", "{"]),
)
wrong_value = st.one_of(any_json, huge_number, deep_body)


def time_text(seconds: float, style: str) -> str:
    t = T0 + timedelta(seconds=seconds)
    if style == "z":
        return t.strftime("%Y-%m-%dT%H:%M:%S") + (
            f".{t.microsecond:06d}Z" if t.microsecond else "Z"
        )
    if style == "offset":  # the same instant, written in +02:00
        return (t + timedelta(hours=2)).replace(tzinfo=None).isoformat() + "+02:00"
    if style == "naive":
        return t.replace(tzinfo=None).isoformat()
    raise ValueError(style)


unparsable_time = st.one_of(
    st.sampled_from([
        "yesterday", "", "2026-13-45T99:00:00Z", "2026-03-01", "2026-03-01T09:00:00+25:00",
        "2026-03-01T09:00:00ZZ", "１２３４-03-01T09:00:00Z", "2026-03-01T09:00:00\u202eZ",
    ]),
    st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.lists(st.integers(), max_size=2),
    st.just(Raw("[" * 1000 + "]" * 1000)),
)


# --- events ------------------------------------------------------------------------------------


@st.composite
def content(draw: st.DrawFn, wrongness: int) -> dict[str, Any]:
    """Inline or external content, sometimes broken."""
    kinds = ["json", "none", "b64", "url", "none-at-all", "deep"]
    kind = draw(st.sampled_from([*kinds, "both"] if wrongness else kinds))
    out: dict[str, Any] = {}
    if kind == "json":
        # a null body is an absent one: inline content then lacks its body (an error)
        body = draw(any_json.filter(lambda v: v is not None) if not wrongness else any_json)
        out = {"body": body, "encoding": "json", "mediatype": "application/json"}
    elif kind == "none":
        out = {"body": draw(_text), "encoding": "none", "mediatype": "text/plain"}
    elif kind == "b64":
        good = ["aGVsbG8", "aGVsbG8=", ""]
        out = {"body": draw(st.sampled_from([*good, "a", "+/=="] if wrongness else good)),
               "encoding": "base64url", "mediatype": "application/octet-stream"}
    elif kind == "url":
        out = {"url": "https://files.example.com/x.bin", "mediatype": "application/pdf",
               "content_hash": draw(st.sampled_from(
                   [SHA512_OK, [SHA512_OK, "sha256-" + "B" * 43],
                    *(["md5-xyz", "sha512-!!", []] if wrongness else [])]))}
    elif kind == "deep":
        out = {"body": draw(deep_body), "encoding": "json", "mediatype": "application/json"}
    elif kind == "both":
        out = {"body": "x", "url": "https://files.example.com/y", "encoding": "none",
               "mediatype": "text/plain", "content_hash": SHA512_OK}
    if out and draw(st.integers(0, 9)) < wrongness:
        key = draw(st.sampled_from(sorted(out)))
        if draw(st.booleans()):
            del out[key]
        else:
            out[key] = draw(wrong_value)
    return out


@st.composite
def lifecycle_event(
    draw: st.DrawFn,
    seconds: float,
    wrongness: int = 0,
    n_parties: int = 2,
    n_sessions: int = 1,
    n_attachments: int = 1,
    time_style: str | None = None,
) -> dict[str, Any]:
    """One event at ``seconds`` after T0; ``wrongness`` 0..10 is the chance (in tenths) of
    each defect."""
    typ = draw(st.sampled_from(spec.LIFECYCLE_EVENT_TYPES))
    style = time_style or draw(st.sampled_from(["z", "z", "z", "offset", "naive"]))
    ev: dict[str, Any] = {
        "type": typ,
        "time": time_text(seconds, style),
        "sessions": draw(st.integers(0, max(0, n_sessions - 1))),
        "party": draw(st.integers(0, max(0, n_parties - 1))),
    }
    if typ == spec.POLICY_DECISION:
        life = draw(st.sampled_from(spec.POLICY_LIVES))
        ev.update(decision=draw(st.sampled_from(spec.DECISIONS)), policy_life=life,
                  operation="tool-invocation", server=SERVER)
        if life == "once":
            ev.update(operation_id=draw(st.sampled_from(OP_IDS)),
                      attempt=draw(st.integers(1, 4)), tool="lookup")
        elif draw(st.booleans()):
            ev["tool"] = draw(st.sampled_from(["lookup", "refund"]))
        if draw(st.booleans()):
            ev["reason"] = draw(_text)
    else:
        ev.update(operation_id=draw(st.sampled_from(OP_IDS)), attempt=draw(st.integers(1, 4)))
        if typ == "tool-invocation":
            ev.update(server=SERVER, tool=draw(st.sampled_from(["lookup", "lookup", "refund"])))
        ev.update(draw(content(wrongness)))
        if n_attachments and draw(st.integers(0, 4)) == 0:
            ev["attachment"] = draw(st.integers(0, n_attachments - 1))
    if wrongness:
        for key in list(ev):
            if key != "type" and draw(st.integers(0, 39)) < wrongness:
                if draw(st.booleans()):
                    del ev[key]  # missing key
                else:
                    ev[key] = draw(wrong_value)  # wrong type or value
        for _ in range(draw(st.integers(0, wrongness // 3))):  # extra or forbidden keys
            ev[draw(st.sampled_from([*PARAMS, "x-extra", "Body"]))] = draw(wrong_value)
        if draw(st.integers(0, 19)) < wrongness:
            ev["party"] = draw(st.sampled_from([n_parties, n_parties + 5, 2**53, -1]))
        if draw(st.integers(0, 19)) < wrongness:
            ev["attachment"] = draw(st.sampled_from([n_attachments, [0, 99], -3]))
        if draw(st.integers(0, 19)) < wrongness:
            ev["time"] = draw(unparsable_time)
        if draw(st.integers(0, 29)) < wrongness:
            ev["type"] = draw(st.one_of(st.sampled_from(OTHER_TYPES), wrong_value))
    return ev


@st.composite
def events_list(draw: st.DrawFn, wrongness: int, max_events: int = 14,
                distinct: bool = False, **ctx: int) -> list[Any]:
    n = draw(st.integers(0, max_events))
    if distinct:
        secs = draw(st.lists(st.integers(0, 10_000), min_size=n, max_size=n, unique=True))
    else:  # few distinct values: equal timestamps are common
        secs = draw(st.lists(st.integers(0, 8), min_size=n, max_size=n))
    out: list[Any] = []
    for s in secs:
        frac = draw(st.sampled_from([0, 0, 0.25])) if not distinct else 0
        out.append(draw(lifecycle_event(s + frac, wrongness, **ctx)))
    if wrongness and draw(st.integers(0, 9)) < wrongness:
        # non-object events and context events between the lifecycle ones
        for _ in range(draw(st.integers(1, 3))):
            pos = draw(st.integers(0, len(out)))
            item = draw(st.one_of(
                wrong_value,
                st.fixed_dictionaries({"type": st.sampled_from(OTHER_TYPES),
                                       "time": st.just(time_text(3, "z"))}),
            ))
            out.insert(pos, item)
    return out


@st.composite
def vcon_doc(draw: st.DrawFn, mode: str | None = None) -> dict[str, Any]:
    """A vCon (as a Python value, possibly holding ``Raw``) in a drawn mode."""
    mode = mode or draw(st.sampled_from(["valid", "near", "wild"]))
    wrongness = {"valid": 0, "near": 2, "wild": 8}[mode]
    n_parties = draw(st.integers(1, 3))
    n_sessions = draw(st.integers(1, 2))
    n_att = draw(st.integers(0, 2))
    v: dict[str, Any] = {
        "vcon": "0.4.0",
        "uuid": "0195544a-0000-7000-8000-000000000001",
        "created_at": time_text(0, "z"),
        "extensions": ["tool-invocation"],
        "parties": [{"name": f"party {i}"} for i in range(n_parties)],
        "sessions": [{"start": time_text(0, "z"), "parties": [0]} for _ in range(n_sessions)],
        "attachments": [{"filename": f"a{i}.txt", "body": "x", "encoding": "none",
                         "mediatype": "text/plain"} for i in range(n_att)],
        "events": draw(events_list(wrongness, n_parties=n_parties, n_sessions=n_sessions,
                                   n_attachments=n_att)),
    }
    if wrongness:
        for key in ("extensions", "parties", "sessions", "attachments", "created_at", "uuid"):
            if draw(st.integers(0, 29)) < wrongness:
                v[key] = draw(st.one_of(st.none(), wrong_value))
        if draw(st.integers(0, 29)) < wrongness:
            v["events"] = draw(wrong_value)
        if draw(st.integers(0, 29)) < wrongness:
            v["redacted"] = {"uuid": "x"}
        if draw(st.integers(0, 29)) < wrongness:
            v["session"] = draw(wrong_value)
    return v


def vcon_bytes(mode: str | None = None) -> st.SearchStrategy[bytes]:
    return vcon_doc(mode).map(dumps)


@st.composite
def distinct_time_events(draw: st.DrawFn, wrongness: int = 2) -> list[dict[str, Any]]:
    """Lifecycle events whose times all parse and are distinct (offsets vary, instants don't
    collide); other parameters may be wrong."""
    n = draw(st.integers(1, 14))
    secs = draw(st.lists(st.integers(0, 10_000), min_size=n, max_size=n, unique=True))
    out = []
    for s in secs:
        ev = draw(lifecycle_event(s, wrongness, time_style=draw(st.sampled_from(["z", "offset"]))))
        ev["type"] = ev["type"] if isinstance(ev["type"], str) else "tool-result"
        ev["time"] = time_text(s, draw(st.sampled_from(["z", "offset"])))
        out.append(ev)
    return out
