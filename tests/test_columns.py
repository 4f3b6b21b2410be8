"""The draft's columns as Structs (viewer/model/columns.py): every cell of spec.py's tables is
a field, and an event its column passes has nothing for check_event to say."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec import UnsetType

from tests import strategies as S
from tests.enginekit import mutate
from tests.modelkit import once, standing, t, tool, vcon
from viewer import jsonenc
from viewer.load import load_bytes
from viewer.model import spec
from viewer.model.build import build_model
from viewer.model.columns import (
    ALWAYS_ABSENT,
    COLUMNS,
    CONTENT_FIELDS,
    LIFE_CELLS,
    Events,
    unclean,
)
from viewer.model.validate import Ctx, check_event


def _fields(cls: Any) -> dict[str, msgspec.structs.FieldInfo]:
    return {f.name: f for f in msgspec.structs.fields(cls)}


def _assert_cell(field: msgspec.structs.FieldInfo, cell: str, where: str) -> None:
    if cell == "X":
        assert field.type is UnsetType and not field.required, where
    elif cell in ("M", "S"):
        assert field.required, where
    else:
        assert not field.required and field.type is not UnsetType, where


def _cell_fields(param: str, cell: str) -> list[tuple[str, str]]:
    if param == "content":
        return [(name, cell) for name in CONTENT_FIELDS]
    if param == "sessions":
        return [(param, "X" if cell == "X" else "M")]  # a clean event names its session
    return [(param, cell)]


@pytest.mark.parametrize("event_type", sorted(spec.TOOL_EVENT_PARAMS))
def test_every_tool_event_cell_is_a_field(event_type: str) -> None:
    fields = _fields(COLUMNS[event_type])
    ticked = set()
    for param, cell in spec.TOOL_EVENT_PARAMS[event_type].items():
        if param == "type":  # the tag
            continue
        for name, c in _cell_fields(param, cell):
            _assert_cell(fields[name], c, f"{event_type} {param} {cell}")
            ticked.add(name)
    assert set(fields) - ticked == set(ALWAYS_ABSENT)
    for name in ALWAYS_ABSENT:
        _assert_cell(fields[name], "X", name)


@pytest.mark.parametrize("life", spec.POLICY_LIVES)
def test_every_policy_decision_cell_is_a_field_or_checked_by_life(life: str) -> None:
    fields = _fields(COLUMNS[spec.POLICY_DECISION])
    for param, cell in spec.POLICY_DECISION_PARAMS[life].items():
        if param == "type":  # the tag
            continue
        for name, c in _cell_fields(param, cell):
            if name in LIFE_CELLS[life]:  # the lives disagree: checked after the convert
                assert LIFE_CELLS[life][name] == c
                assert not fields[name].required
            else:
                _assert_cell(fields[name], c, f"{life} {param} {cell}")
    assert set(LIFE_CELLS["once"]) == {"operation_id", "attempt", "tool"}


def _flags(doc: dict[str, Any]) -> bytearray:
    ctx = Ctx.of(doc)
    att = ctx.attachments
    return unclean(doc["events"], ctx.n_parties, ctx.n_sessions,
                   None if att is None else len(att))


def _said(doc: dict[str, Any], i: int) -> list[Any]:
    out: list[Any] = []
    check_event(i, doc["events"][i], Ctx.of(doc), out)
    return out


def test_a_valid_file_needs_no_check() -> None:
    doc = vcon([once(0, "allowed"), tool("tool-invocation", 1), tool("tool-progress", 2),
                tool("tool-result", 3), standing(4, "allowed"), tool("tool-timeout", 5),
                {"type": "join", "time": t(6)}])
    # a context event has no column: check_event looks at it (its type), and says nothing
    assert list(_flags(doc)) == [0] * 6 + [1]
    assert _said(doc, 6) == []


@pytest.mark.parametrize("defect", [
    {"sessions": 5}, {"party": 9}, {"party": True},
    {"attempt": 0}, {"operation_id": ""}, {"server": "!other"}, {"server": None},
    {"decision": "allowed"}, {"mediatype": "json"}, {"encoding": "base64url"},
    {"url": "https://x.example/a"}, {"body": None}, {"attachment": 3}, {"type": 7},
])
def test_each_defect_takes_the_full_check(defect: dict[str, Any]) -> None:
    ev = tool("tool-invocation", 0)
    ev.update(defect)
    doc = vcon([ev])
    assert _flags(doc)[0] == 1
    assert _said(doc, 0)  # and the full check has something to say


def test_the_legacy_session_takes_the_full_check_which_passes_it() -> None:
    ev = tool("tool-invocation", 0)
    del ev["sessions"]
    ev["session"] = 0
    doc = vcon([ev])
    assert _flags(doc)[0] == 1
    assert [d.code for d in _said(doc, 0)] in ([], ["legacy-parameter"])


@pytest.mark.parametrize("sessions", [[0], [0, 0], [1, 0]])
def test_an_array_of_sessions_passes_its_column(sessions: list[int]) -> None:
    """What every importer writes: it needs no full check, which agrees."""
    ev = tool("tool-invocation", 0)
    ev["sessions"] = sessions
    doc = vcon([ev])
    doc["sessions"] = [{}, {}]
    assert _flags(doc)[0] == 0
    assert _said(doc, 0) == []


def test_an_event_read_from_its_struct_names_every_session_of_its_array() -> None:
    doc = vcon([tool("tool-invocation", 0), tool("tool-result", 1)])
    doc["sessions"] = [{}, {}]
    doc["events"][0]["sessions"] = [1, 0]
    model = build_model(load_bytes(orjson.dumps(doc)))
    assert [ev.sessions for ev in model.events] == [(1, 0), (0,)]
    assert model.events[0].get("sessions") == [1, 0]
    assert not model.diagnostics


@pytest.mark.parametrize("sessions", [[], [0, 2], [2], [-1], [True], [0, "0"], [[0]], [0.5]])
def test_a_bad_array_of_sessions_takes_the_full_check(sessions: list[Any]) -> None:
    ev = tool("tool-invocation", 0)
    ev["sessions"] = sessions
    doc = vcon([ev])
    doc["sessions"] = [{}, {}]
    assert _flags(doc)[0] == 1
    assert _said(doc, 0)  # and the full check has something to say


def test_context_event_without_a_type_is_checked() -> None:
    doc = vcon([{"time": t(0)}, 3])
    assert list(_flags(doc)) == [1, 1]


def _sound(doc: dict[str, Any]) -> None:
    events = doc.get("events")
    if not isinstance(events, list) or not isinstance(doc.get("parties", []), list):
        return
    for i, flag in enumerate(_flags(doc)):
        if not flag:
            assert _said(doc, i) == [], (i, events[i])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(S.vcon_doc())
def test_what_the_columns_pass_check_event_passes(doc: dict[str, Any]) -> None:
    _sound(doc)


@pytest.mark.parametrize("seed", range(40))
def test_what_the_columns_pass_check_event_passes_after_mutation(seed: int) -> None:
    base = vcon([once(0, "allowed"), tool("tool-invocation", 1), tool("tool-pending", 2),
                 tool("tool-progress", 3), tool("tool-result", 4), standing(5, "disallowed"),
                 tool("tool-invocation", 6, op="op-2"), tool("tool-cancel", 7, op="op-2")])
    doc = copy.deepcopy(base)
    _sound(msgspec.json.decode(mutate(msgspec.json.encode(doc), seed)))


_NAMES = (*sorted({p for col in (*spec.TOOL_EVENT_PARAMS.values(),
                                 *spec.POLICY_DECISION_PARAMS.values()) for p in col}),
          "body", "encoding", "mediatype", "session", "url", "x-vendor")


def _read_as_recorded(model: Any, recorded: list[Any]) -> None:
    """Each event's ``raw`` is the recorded value, and ``get`` reads its members as
    ``raw.get`` does (from the Struct when the event has one)."""
    assert len(model.events) == len(recorded)
    source = model.events[0].source if model.events else None
    for ev in model.events:
        r = recorded[ev.index]
        assert ev.raw == r
        for name in _NAMES:
            assert ev.get(name) == (r.get(name) if isinstance(r, dict) else None), name
    if isinstance(source, Events):
        for name in _NAMES:
            values = [r.get(name) if isinstance(r, dict) else None for r in recorded]
            assert source.column(name) == values, name
            assert source.distinct(name) == {v for v in values
                                             if getattr(v, "__hash__", None) is not None}


@pytest.mark.parametrize("seed", range(12))
def test_events_read_from_bytes_or_values_are_the_recorded_ones(seed: int) -> None:
    data = mutate(orjson.dumps(vcon([
        once(0, "allowed"), tool("tool-invocation", 1, body={"q": [1, 2]}),
        tool("tool-progress", 2), tool("tool-result", 3), standing(4, "allowed"),
        tool("tool-timeout", 5), {"type": "join", "time": t(6)}, 7])), seed)
    loaded = load_bytes(data)
    recorded = orjson.loads(data).get("events")
    if not isinstance(recorded, list):
        return
    events = loaded.vcon["events"]
    assert isinstance(events, Events) and events == recorded and list(events) == recorded
    _read_as_recorded(build_model(loaded), recorded)
    # the same events given as values (as lifted and imported vCons are) read the same
    given = copy.deepcopy(recorded)
    from_values = build_model(replace(loaded, vcon={**loaded.vcon, "events": given}))
    _read_as_recorded(from_values, recorded)
    assert from_values.events[0].raw is given[0]  # the values themselves, not copies


def test_a_vendor_member_needs_no_check() -> None:
    """A member no column names does not make an event unclean (check_event ignores it)."""
    ev = tool("tool-invocation", 0)
    ev["x-vendor"] = [1, {"a": None}]
    doc = vcon([ev, tool("tool-result", 1)])
    assert list(_flags(doc)) == [0, 0]
    assert _said(doc, 0) == []


# --- many values decoded at once (``Events.read_values``, ``jsonenc.loads_each``) ---------------

#: Event texts the batched read must read as the one-by-one read does: a clean event, numbers
#: past 64 bits (left to the one-by-one read), a 19-digit run in a string, a key named twice,
#: text orjson refuses and msgspec reads (a number past a double), nesting, a non-object.
_TEXTS = [
    orjson.dumps(tool("tool-invocation", 0, body={"q": [1, 2.5, None, True]}, encoding="json",
                      mediatype="application/json")),
    orjson.dumps(tool("tool-result", 1, body={"n": 0}, encoding="json",
                      mediatype="application/json")).replace(b'"n":0', b'"n":18446744073709551617'),
    orjson.dumps(tool("tool-progress", 2)).replace(b'"type"', b'"big":-9223372036854775809,"type"'),
    b'{"type":"join","id":"1234567890123456789012"}',
    b'{"type":"join","a":1,"a":[2],"b":{"c":1,"c":2}}',
    b'{"type":"join","x":1e400}',
    b'{"type":"join","d":' + b"[" * 200 + b"7" + b"]" * 200 + b"}",
    b'{"type":"join","f":-0.0,"g":1E2,"h":"\\u00e9\\ud83d\\ude00"}',
    b"7", b"null", b'"text"', b"[]",
]


def _one_by_one(events: Events, i: int) -> tuple[str, str]:
    """What ``events[i]`` gives: its value's exact text, or the error it raises."""
    try:
        return "value", type(v := events[i]).__name__ + jsonenc.dumps_deep(v)
    except Exception as exc:  # (the error is the answer)
        return type(exc).__name__, str(exc)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(picks=st.lists(st.integers(0, len(_TEXTS) - 1), max_size=12),
       asked=st.lists(st.integers(-2, 14), max_size=20), batch=st.integers(1, 5))
def test_values_read_at_once_are_those_read_one_by_one(picks: list[int], asked: list[int],
                                                       batch: int) -> None:
    raw = b"[" + b",".join(_TEXTS[p] for p in picks) + b"]"
    alone = Events.decode(raw)
    want = [_one_by_one(alone, i) for i in range(len(alone))]
    at_once = Events.decode(raw)
    at_once.read_values(asked, batch)
    at_once.read_values(asked, batch)  # again: nothing left to read
    assert [_one_by_one(at_once, i) for i in range(len(at_once))] == want
    # what was read at once is kept (the same object at each read)
    assert all(at_once[i] is at_once[i] for i in set(asked) if 0 <= i < len(picks)
               and want[i][0] == "value")


def test_a_batch_leaves_long_digit_runs_and_refused_text_to_the_one_by_one_read() -> None:
    """A text with 19 digits in a row is read alone, where the reader would read it (msgspec's
    depth counts the caller's stack); a batch orjson refuses is read text by text."""
    todo = object()
    texts = [b'{"a":1,"a":2}', b"12345678901234567890", b'"x"']
    assert jsonenc.loads_each(texts, todo) == [{"a": 2}, todo, "x"]
    assert jsonenc.loads_each([b"1", b'"\\ud800"'], todo) is None
    assert jsonenc.loads_each([b"[" * 1024 + b"]" * 1024], todo) is None  # one level too deep
    assert jsonenc.loads_each([], todo) == []


def test_a_model_reads_the_values_a_report_quotes_at_once() -> None:
    doc = vcon([once(0, "allowed"), tool("tool-invocation", 1, body={"q": 1},
                                          encoding="json", mediatype="application/json"),
                tool("tool-result", 2)])
    model = build_model(load_bytes(orjson.dumps(doc)))
    array = model.events[0].source
    assert isinstance(array, Events)
    model.read_raw([1, 2, 99, -1])
    kept = [model.events[1].raw, model.events[2].raw]
    assert kept == doc["events"][1:] and kept[0] is model.events[1].raw
    assert [e.raw for e in model.events] == doc["events"]
    hand = replace(model, events=tuple(e._replace(source=doc["events"][e.index])
                                       for e in model.events))
    hand.read_raw([0, 1])  # events built by hand: their values are given
    assert [e.raw for e in hand.events] == doc["events"]


def test_a_member_no_column_names_is_read_without_decoding_the_event(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An event whose Struct is its column's (no other member allowed) is the whole event: a
    member the Struct has no field for is absent, and ``Event.get`` says None without
    decoding the event's value (the summary JSON asks every unrun call for ``requested``: on
    88,000 operations that decode was 130 ms). An event with such a member (a loose Struct)
    still gives it."""
    from viewer.model import columns

    decoded: list[object] = []
    real = columns.loads
    monkeypatch.setattr(columns, "loads", lambda b: decoded.append(b) or real(b))
    refused = once(0, "disallowed", op="op-2")
    refused["requested"] = {"q": 1}
    for events, want in (([once(0, "disallowed"), tool("tool-invocation", 1, op="op-3")],
                          None),
                         ([refused], {"q": 1})):
        m = build_model(load_bytes(orjson.dumps(vcon(events)), name="v.vcon.json"))
        decoded.clear()
        assert m.events[0].get("requested") == want
        assert m.events[0].get("no-such-member") is None
        if want is None:  # (a loose event's value the loader parsed already)
            assert decoded == []
