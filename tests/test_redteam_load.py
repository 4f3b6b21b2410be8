"""Loader items of issue 17 (each failed on the old code):

- duplicate JSON keys resolved last-wins in silence (a standing decision flipped from
  ``disallowed`` to ``allowed``): now a ``duplicate-key`` error with the key's pointer, found by
  a cheap colon-count pre-check and an exact scan only when a duplicate is possible;
- the gzip guard bounded each stream alone (three nested layers inflated 7 GiB): now the total.
"""

from __future__ import annotations

import base64
import gzip

import orjson
import pytest

import viewer.load as load_mod
from tests.modelkit import standing, tool, vcon
from viewer.load import LoadError, duplicate_keys, load_bytes
from viewer.model.build import build_model


def _flip() -> bytes:
    doc = orjson.dumps(vcon([standing(0, "disallowed"), tool("tool-invocation", 1),
                             tool("tool-result", 2)])).decode()
    # the standing decision names "decision" twice: disallowed, then allowed
    return doc.replace('"decision":"disallowed"',
                       '"decision":"disallowed","decision":"allowed"', 1).encode()


def test_duplicate_key_is_an_error_with_its_pointer() -> None:
    model = build_model(load_bytes(_flip()))
    dups = [d for d in model.diagnostics if d.code == "duplicate-key"]
    assert [(d.severity, d.pointer) for d in dups] == [("error", "/events/0/decision")]
    assert "2 times" in dups[0].message


def test_no_duplicate_no_diagnostic_even_with_colons_in_strings() -> None:
    doc = vcon([tool("tool-invocation", 0, body={"url": "https://x:1/a:b", "k:": ":"}),
                tool("tool-result", 1)])
    model = build_model(load_bytes(orjson.dumps(doc)))
    assert not [d for d in model.diagnostics if d.code == "duplicate-key"]


def test_escaped_colon_cannot_hide_a_duplicate() -> None:
    """An escaped colon (\\u003a) makes the raw count one short; with a duplicate the counts
    would agree: the pre-check sends any escaped colon to the exact scan."""
    raw = _flip().replace(b'"sessions":0', b'"sessions":0,"note":"a\\u003a"', 1)
    model = build_model(load_bytes(raw))
    assert [d.pointer for d in model.diagnostics if d.code == "duplicate-key"] == [
        "/events/0/decision"]


def test_duplicate_keys_scan_pointer_escapes() -> None:
    raw = b'{"a/b":{"x~":1,"x~":2},"l":[{"k":1,"k":2,"k":3}]}'
    got = [(d.pointer, d.message.split(" appears")[1][:8]) for d in duplicate_keys(raw)]
    assert got == [("/a~1b/x~0", " 2 times"), ("/l/0/k", " 3 times")]


def _jws(payload: bytes) -> bytes:
    enc = base64.urlsafe_b64encode(payload).rstrip(b"=").decode()
    hdr = base64.urlsafe_b64encode(b'{"alg":"ES256"}').rstrip(b"=").decode()
    return orjson.dumps({"payload": enc, "signatures": [{"protected": hdr, "signature": "c2ln"}]})


def test_gzip_guard_bounds_the_total_over_nested_layers(monkeypatch: pytest.MonkeyPatch) -> None:
    inner = orjson.dumps(vcon([tool("tool-invocation", 0, body={"pad": "x" * 6000}),
                               tool("tool-result", 1)]))
    outer = gzip.compress(_jws(gzip.compress(inner)))
    outer_inflated = len(gzip.decompress(outer))
    # each layer alone is under the limit; together they are over it
    limit = max(len(inner), outer_inflated) + 100
    assert len(inner) + outer_inflated > limit
    monkeypatch.setattr(load_mod, "MAX_DECOMPRESSED", limit)
    with pytest.raises(LoadError, match="in total"):
        load_bytes(outer)
    monkeypatch.setattr(load_mod, "MAX_DECOMPRESSED", len(inner) + outer_inflated + 10)
    assert load_bytes(outer).source.gzip


def test_importer_json_loads_refuses_nan() -> None:
    """Python's json reads NaN and Infinity; the importers' output then had null in silence.
    common.json_loads refuses them (the MCP importer and the lifter are to use it)."""
    from viewer.importers.common import NotJSONConstant, json_loads

    assert json_loads('{"a": 1.5}') == {"a": 1.5}
    for bad in ('{"a": NaN}', "[Infinity]", "[-Infinity]"):
        with pytest.raises(NotJSONConstant):
            json_loads(bad)
        with pytest.raises(ValueError):
            json_loads(bad)


def test_a_key_twice_inside_a_body_or_an_event_is_found() -> None:
    """The events are decoded into Structs, which keep one value per field as a dict does per
    key: a key named twice in an event or deep in its body is still a ``duplicate-key``."""
    doc = orjson.dumps(vcon([tool("tool-invocation", 0, body={"a": {"k": 1}}),
                             tool("tool-result", 1)])).decode()
    raw = doc.replace('{"k":1}', '{"k":1,"k":2}', 1).encode()
    dups = [d.pointer for d in build_model(load_bytes(raw)).diagnostics
            if d.code == "duplicate-key"]
    assert dups == ["/events/0/body/a/k"]
    raw = doc.replace('"party":1', '"party":1,"party":0', 1).encode()
    model = build_model(load_bytes(raw))
    assert [d.pointer for d in model.diagnostics if d.code == "duplicate-key"] == [
        "/events/0/party"]
    assert model.events[0].party == 0 and model.events[0].raw["party"] == 0  # the last, as read


def test_a_vendor_member_passes_its_column_and_a_key_twice_in_it_is_found() -> None:
    """An event with a member no column names is read like any clean one (no diagnostic),
    and a key named twice inside that member is still a ``duplicate-key``."""
    doc = vcon([tool("tool-invocation", 0), tool("tool-result", 1)])
    doc["events"][0]["x-vendor"] = {"k": 1}
    model = build_model(load_bytes(orjson.dumps(doc)))
    assert not [d for d in model.diagnostics if d.code == "duplicate-key"]
    assert model.events[0].get("x-vendor") == {"k": 1} == model.events[0].raw["x-vendor"]
    raw = orjson.dumps(doc).replace(b'{"k":1}', b'{"k":1,"k":2}', 1)
    assert [d.pointer for d in build_model(load_bytes(raw)).diagnostics
            if d.code == "duplicate-key"] == ["/events/0/x-vendor/k"]
