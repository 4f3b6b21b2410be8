"""The typed decode (msgspec Structs for the events, ``viewer/model/columns.py``) agrees with
the plain orjson read it stands for (issue 16): what an event's member holds, and which
inputs are refused."""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import viewer.load as load_mod
from tests.modelkit import tool, vcon
from viewer import jsonenc
from viewer.content import decode_text, dumps_pretty
from viewer.importers import common
from viewer.load import LoadError, duplicate_keys, load_bytes
from viewer.model.build import build_model
from viewer.tui.diff import arguments_of


def _with_body(body: bytes) -> bytes:
    doc = orjson.dumps(vcon([tool("tool-invocation", 0, body={"n": 0}, encoding="json",
                                  mediatype="application/json"),
                             tool("tool-result", 1)]))
    return doc.replace(b'{"n":0}', body, 1)


@pytest.fixture(params=[0, 1 << 30], ids=["one pass", "two passes"])
def one_pass(request: pytest.FixtureRequest) -> Iterator[None]:
    """The loader reads inputs of ``ONE_PASS`` bytes or more in one pass: every input here,
    or none."""
    saved = load_mod.ONE_PASS
    load_mod.ONE_PASS = request.param
    try:
        yield
    finally:
        load_mod.ONE_PASS = saved


@pytest.mark.parametrize("number", [b"18446744073709551617", b"-9223372036854775809",
                                    b"123456789012345678901234567890"])
def test_a_body_number_beyond_64_bits_reads_as_recorded(one_pass: None, number: bytes) -> None:
    """orjson reads an integer beyond 64 bits as a float; the viewer shows what was recorded:
    ``get("body")`` (its Struct), ``raw`` (its dict) and the column agree, exactly."""
    for body in (number, b'{"n":' + number + b"}", b"[1," + number + b"]"):
        data = _with_body(body)
        recorded = json.loads(data)["events"][0]["body"]  # Python's reader: exact
        loaded = load_bytes(data)
        assert loaded.vcon["events"].structs[0] is not None  # read through its Struct
        model = build_model(loaded)
        ev = model.events[0]
        assert ev.raw["body"] == recorded and repr(ev.raw["body"]) == repr(recorded)
        got = ev.get("body")
        assert got == recorded and repr(got) == repr(recorded)
        assert model.vcon["events"].column("body")[0] == recorded


def test_every_member_reads_as_recorded() -> None:
    """An integer past 64 bits outside the events (a dialog's meta) and in an event that fails
    its column (read from its value) is exact too."""
    big = 2**70
    doc = vcon([tool("tool-invocation", 0, body={"n": 1}, encoding="json",
                     mediatype="application/json"), tool("tool-result", 1)])
    doc["meta"] = {"n": big}
    doc["events"][1]["attempt"] = "x"  # fails its column: its value is read
    doc["events"][1]["extra"] = [big]
    data = json.dumps(doc).encode()
    loaded = load_bytes(data)
    assert loaded.vcon["meta"] == {"n": big}
    assert loaded.vcon["events"][1]["extra"] == [big]
    assert type(loaded.vcon["meta"]["n"]) is int
    assert type(loaded.vcon["events"][1]["extra"][0]) is int  # 2**70 == its float: ask the type


@pytest.fixture
def deep_stack() -> Iterator[None]:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _plain(data: bytes) -> str:
    """What the plain orjson read says of ``data``: "ok", or its error."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError as e:
        return e.msg
    return "ok"


@pytest.mark.parametrize("depth", [1000, 1019, 1020, 1021, 1022, 1030, 3000])
def test_a_body_deeper_than_orjson_reads_is_refused_as_orjson_refuses_it(
        one_pass: None, deep_stack: None, depth: int) -> None:
    """With Python's recursion limit raised msgspec reads deeper than orjson's 1,024 levels:
    the loader refuses such a file as the plain orjson read does (one LoadError line), and a
    file it accepts can be read event by event without an orjson error."""
    data = _with_body(b"[" * depth + b"]" * depth)
    plain = _plain(data)
    try:
        loaded = load_bytes(data, name="x.json")
    except LoadError as e:
        assert plain != "ok", "refused what orjson reads"
        assert e.message.startswith(f"x.json: not JSON ({plain}"), e.message
        return
    assert plain == "ok", "accepted what orjson refuses"
    events = loaded.vcon["events"]
    assert [events[i] for i in range(len(events))] == orjson.loads(data)["events"]
    build_model(loaded)


# --- the one-pass read of a vCon's members (load._typed) ------------------------------------

_WS = st.sampled_from(["", " ", "\n  ", "\t", "\r\n"])
_TRICKY = st.sampled_from([
    "x", ',"uuid":"x"}', '"], "dialog": [1]}', "]", ":", "\\", '{"events": []}', "\u2028"])
_MEMBERS = {
    "vcon": st.just("0.4.0"),
    "uuid": _TRICKY,
    "subject": _TRICKY,
    "created_at": st.just("2026-01-05T08:00:00Z"),
    "parties": st.just([{"name": "Alice"}, {"name": "Agent"}]),
    "sessions": st.just([{"start": "2026-01-05T08:00:00Z", "parties": [0, 1]}]),
    "extensions": st.sampled_from([["tool-invocation"], []]),
    "critical": st.sampled_from([[], ["tool-invocation"]]),
    "dialog": st.lists(st.fixed_dictionaries({"body": _TRICKY}), max_size=2),
    "meta": st.dictionaries(_TRICKY, _TRICKY, max_size=2),
    "x-vendor": st.just([1, "]"]),  # a member the one-pass read does not name
}


@st.composite
def _documents(draw: st.DrawFn) -> bytes:
    names = draw(st.lists(st.sampled_from(sorted(_MEMBERS)), unique=True, max_size=6))
    names.insert(draw(st.integers(0, len(names))), "events")
    if draw(st.booleans()) and len(names) > 1:  # a key named twice
        names.insert(draw(st.integers(0, len(names))), draw(st.sampled_from(names)))
    events = [tool("tool-invocation", 0, body={"k": draw(_TRICKY)}, encoding="json",
                   mediatype="application/json"), tool("tool-result", 1)]
    if draw(st.booleans()):
        events.append({"type": "join", "note": draw(_TRICKY)})  # no Struct
    parts = []
    for name in names:
        value = events if name == "events" else draw(_MEMBERS[name])
        key = orjson.dumps(name).decode()
        if name == "uuid" and draw(st.booleans()):
            key = '"\\u0075uid"'  # the same key, spelt with an escape
        parts.append(draw(_WS) + key + draw(_WS) + ":" + draw(_WS) + orjson.dumps(value).decode())
    bom = "\ufeff" if draw(st.booleans()) else ""
    return (bom + draw(_WS) + "{" + ",".join(p + draw(_WS) for p in parts) + "}"
            + draw(_WS)).encode()


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow,
                                                   HealthCheck.function_scoped_fixture],
          deadline=None)
@given(data=_documents())
def test_members_read_in_one_pass_are_the_recorded_ones_in_their_order(
        one_pass: None, data: bytes) -> None:
    recorded = orjson.loads(data.removeprefix(b"\xef\xbb\xbf"))
    loaded = load_bytes(data)
    assert list(loaded.vcon) == list(recorded)
    assert loaded.vcon == recorded
    events = loaded.vcon["events"]
    assert [events[i] for i in range(len(events))] == recorded["events"]
    assert list(events) == recorded["events"]
    dups = [(d.pointer, d.message) for d in loaded.diagnostics if d.code == "duplicate-key"]
    assert dups == [(d.pointer, d.message)
                    for d in duplicate_keys(data.removeprefix(b"\xef\xbb\xbf"))]


@pytest.mark.parametrize("first", [b"[]", b"[1]", b'[{"type":"join"}]'])
def test_events_named_twice_read_as_orjson_reads_them(one_pass: None, first: bytes) -> None:
    """The last ``events`` is read, and the key is a ``duplicate-key``, however the first
    one's text would fit between the object's other members."""
    doc = orjson.dumps(vcon([tool("tool-invocation", 0), tool("tool-result", 1)]))
    assert doc.endswith(b"]}") and b'"events":' in doc  # the last member
    data = doc.replace(b'"events":', b'"events":' + first + b',"events":', 1)
    loaded = load_bytes(data)
    assert loaded.vcon == orjson.loads(data) and list(loaded.vcon) == list(orjson.loads(data))
    assert [d.pointer for d in loaded.diagnostics if d.code == "duplicate-key"] == ["/events"]


_TEXT = '{"n": 1180591620717411303425}'  # 2**70 + 1 in JSON text (no double equals it)


@pytest.mark.parametrize("content", [
    {"body": _TEXT, "encoding": "json"},
    {"body": base64.urlsafe_b64encode(_TEXT.encode()).decode().rstrip("="),
     "encoding": "base64url"},
    {"body": _TEXT},
], ids=["json string", "base64url", "no encoding"])
def test_json_text_in_a_body_is_shown_exactly(content: dict[str, str]) -> None:
    """A body that holds JSON as text (a JSON string, base64url, a string of a JSON mediatype) is
    decoded for the evidence and the viewer's decoded view as the loader reads JSON: 2**70
    + 1 stays 2**70 + 1, not orjson's float 1.1805916207174113e+21."""
    decoded = decode_text({**content, "mediatype": "application/json"})
    assert decoded.value == {"n": 2**70 + 1}
    assert "1180591620717411303425" in decoded.text


def test_the_argument_diff_reads_a_json_string_body_exactly() -> None:
    doc = vcon([tool("tool-invocation", 0, body=_TEXT, encoding="json",
                     mediatype="application/json"), tool("tool-result", 1)])
    model = build_model(load_bytes(orjson.dumps(doc)))
    attempt = model.operations[0].attempts[0]
    assert arguments_of(model, attempt)[0] == {"n": 2**70 + 1}


def test_a_body_with_an_integer_past_64_bits_is_laid_out_as_any_other() -> None:
    """The decoded view and the argument diff read a body line by line: an exact 2**70 (which
    orjson does not write) must not put the whole body on one line, as 2**60 does not."""
    assert dumps_pretty({"a": 2**70, "b": [1]}) == dumps_pretty({"a": 2**60, "b": [1]}).replace(
        str(2**60), str(2**70))


@pytest.mark.parametrize("text", ['"\ud800"', '{"a": "x\udc00"}', '["\ud83d"]'])
def test_a_lone_surrogate_in_text_is_refused_as_orjson_refuses_it(text: str) -> None:
    """``jsonenc.loads`` of a str (a body of JSON text an importer made with Python's json,
    which reads a lone surrogate) gives orjson's error, which its callers catch; msgspec
    raises UnicodeEncodeError for it, which they do not."""
    with pytest.raises(orjson.JSONDecodeError) as want:
        orjson.loads(text)
    with pytest.raises(orjson.JSONDecodeError) as got:
        jsonenc.loads(text)
    assert str(got.value) == str(want.value)
    shown = decode_text({"body": text, "encoding": "json", "mediatype": "application/json"})
    assert shown.kind == "text"


@pytest.mark.parametrize("text", ['"\ud800"', '{"a": "x\udc00"}'])
def test_an_importer_reads_a_lone_surrogate_as_pythons_json_does(text: str) -> None:
    assert common.json_loads(text) == json.loads(text)


@pytest.mark.parametrize("text", [
    b"[" * 1025 + b"]" * 1025,  # deeper than orjson reads (msgspec, on 3.12+, reads more)
    b"[" + b"9" * 400 + b"]",  # past a double: orjson's "number is infinity"
    b'{"a": NaN}', b'"\\ud800"', b"[1,]", b"",
])
def test_the_reader_refuses_what_orjson_refuses_with_its_message(text: bytes) -> None:
    with pytest.raises(orjson.JSONDecodeError) as ours:
        jsonenc.loads(text)
    with pytest.raises(orjson.JSONDecodeError) as theirs:
        orjson.loads(text)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("n", [2**63, 2**64, 2**70 + 1, -(2**63) - 1, -(2**64) - 7])
def test_the_reader_keeps_integers_orjson_cannot_hold(n: int) -> None:
    for text in (str(n).encode(), f'{{"v": [1, {n}]}}'.encode(), f'[{n}]'):
        got = jsonenc.loads(text)
        value = got if isinstance(got, int) else (got["v"][1] if isinstance(got, dict)
                                                  else got[0])
        assert value == n and type(value) is int
    deep = b"[" * 1000 + str(n).encode() + b"]" * 1000  # within orjson's depth
    assert jsonenc.loads(deep) is not None


# --- the recursion limit is one value for the process ------------------------------------------


def test_a_reader_waits_while_another_thread_holds_the_recursion_limit(deep_stack: None) -> None:
    """The exact reader lowers Python's recursion limit while msgspec reads, and the duplicate-key
    scan raises it while ``json`` reads: the limit is the whole process's, so a reader on one
    thread must not change it under a reader on another (``jsonenc.LIMIT_LOCK``). While a thread
    holds the lock, a read of text with a long digit run on another thread waits, and then
    reads exactly, under the limit orjson's depth asks for."""
    import threading

    from viewer import jsonenc

    seen: list[int] = []
    text = b'{"n": ' + str(2**70 + 1).encode() + b"}"
    done = threading.Event()
    got: list[object] = []

    def read() -> None:
        got.append(jsonenc.loads(text))
        done.set()

    with jsonenc.LIMIT_LOCK:
        worker = threading.Thread(target=read)
        worker.start()
        assert not done.wait(0.3), "the read ran while another thread held the limit"
        seen.append(sys.getrecursionlimit())
    worker.join(10)
    assert done.is_set()
    assert got == [{"n": 2**70 + 1}]
    assert seen == [20_000]  # untouched while this thread held it
    assert sys.getrecursionlimit() == 20_000  # put back after the read


# --- the duplicate-key count put off (the viewer's way: load_bytes(defer_key_check=True)) ------

_NESTED_TWICE = st.sampled_from([
    (b'"type":"tool-result"', b'"type":"x","type":"tool-result"'),  # in an event
    (b'{"k":', b'{"k":1,"k":'),  # in a body
    (b'"tool-invocation"', b'"tool-invocation","attempt":1'),  # an attempt named twice
    (b"", b""),
])


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow,
                                                   HealthCheck.function_scoped_fixture],
          deadline=None)
@given(data=_documents(), nested=_NESTED_TWICE)
def test_key_count_put_off_gives_the_model_every_command_builds(
        one_pass: None, data: bytes, nested: tuple[bytes, bytes]) -> None:
    """The viewer draws from the typed pass before counting keys named twice; once the checks
    it put off are made, its model is the one ``summary`` and ``check`` build, whatever key is
    named twice where (the vCon's, an event's, a body's) or spelt with an escape."""
    from viewer.model.build import build_stages, complete_checks
    from viewer.report.summary import to_json

    data = data.replace(*nested, 1) if nested[0] else data
    try:
        full = build_model(load_bytes(data))
    except LoadError as e:
        with pytest.raises(LoadError) as again:
            load_bytes(data, defer_key_check=True)
        assert again.value.message == e.message
        return
    loaded = load_bytes(data, defer_key_check=True)
    assert loaded.key_check is not None or "events" not in orjson.loads(
        data.removeprefix(b"\xef\xbb\xbf"))  # the typed pass read it
    *_, last = build_stages(loaded, first=1)
    done = complete_checks(last)
    assert done.unchecked is None and done.key_check is None
    assert done.diagnostics == full.diagnostics
    assert to_json(done) == to_json(full)


def test_a_key_named_twice_is_found_when_the_checks_are_made() -> None:
    doc = orjson.dumps(vcon([tool("tool-invocation", 0), tool("tool-result", 1)]))
    data = doc.replace(b'"type":"tool-result"', b'"type":"tool-result","type":"tool-result"')
    loaded = load_bytes(data, defer_key_check=True)
    first = build_model(loaded, check_events=False)
    assert first.key_check is not None
    assert not [d for d in first.diagnostics if d.code == "duplicate-key"]  # not counted yet
    from viewer.model.build import complete_checks

    done = complete_checks(first)
    assert [d.pointer for d in done.diagnostics if d.code == "duplicate-key"] == ["/events/1/type"]
    assert build_model(loaded).diagnostics == done.diagnostics  # headless: counted at once
    # a clean file: the count finds nothing, the model is completed in place
    clean = load_bytes(doc, defer_key_check=True)
    first = build_model(clean, check_events=False)
    done = complete_checks(first)
    assert done.vcon is first.vcon and done.operations is first.operations
