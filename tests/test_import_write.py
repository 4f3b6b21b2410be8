"""What `import` writes in pieces is the document byte for byte, and the bodies a lift reads at
once are read as one by one (integers past 64 bits exact)."""

from __future__ import annotations

import json

import orjson
import pytest

from viewer import jsonenc
from viewer.report import summary


def _document(n: int) -> dict:
    deep: object = 1
    for _ in range(300):  # deeper than orjson writes: the exact writer's fallback
        deep = [deep]
    return {
        "vcon": "0.4.0",
        "parties": [{"name": "p\u202e\x7f"}],
        "dialog": [{"type": "text", "body": f"m{k} caf\u00e9", "n": 2**70 + k if k % 7 == 0
                    else k} for k in range(n)],
        "events": [{"type": "tool-invocation", "body": deep if k == 3 else {"k": k}}
                   for k in range(n + 2)],
        "attachments": [{"body": {"events": [{"event": 0}]}}],
    }


@pytest.mark.parametrize("batch", [1, 2, 5, 512])
@pytest.mark.parametrize("n", [0, 1, 9])
def test_iter_dumps_is_dumps(monkeypatch: pytest.MonkeyPatch, batch: int, n: int) -> None:
    monkeypatch.setattr(summary, "BATCH", batch)
    doc = _document(n)
    whole = summary.dumps(doc)
    assert b"".join(summary.iter_dumps(doc, ("dialog", "events"))) == whole
    assert b"".join(summary.iter_dumps(doc, ("events",))) == whole
    assert b"".join(summary.iter_dumps(doc, ("missing", "vcon"))) == whole


def test_iter_dumps_keeps_the_members_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(summary, "BATCH", 2)
    doc = {"events": [1, 2, 3], "a": {"dialog": []}, "dialog": [{"x": "y"}] * 5}
    out = b"".join(summary.iter_dumps(doc, ("dialog", "events")))
    assert out == summary.dumps(doc)
    assert list(orjson.loads(out)) == ["events", "a", "dialog"]


def test_reader_is_loads_when_any_text_holds_a_long_digit_run() -> None:
    plain = [json.dumps({"id": k, "v": "1234567890"}) for k in range(10_000)]
    assert jsonenc.reader(plain) is orjson.loads
    assert jsonenc.reader([]) is orjson.loads
    # a run of 19 digits made only by joining two texts is no run
    assert jsonenc.reader(["1" * 10, "1" * 10]) is orjson.loads
    late = [*plain, json.dumps({"id": 2**70})]  # in the last of several batches
    read = jsonenc.reader(late)
    assert read is jsonenc.loads
    assert read(late[-1]) == {"id": 2**70}
    assert jsonenc.reader(["\ud800 \u00e9 x" + "9" * 19]) is jsonenc.loads  # a lone surrogate


@pytest.mark.parametrize("batch", [1, 3, 512])
def test_iter_dumps_is_dumps_with_floats_beside_a_long_integer(
        monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    """A document holding an integer past 64 bits is written by the exact writer; its floats
    must read as orjson writes them, or the pieces (most written by orjson, the one holding
    the integer by the exact writer) would not be the document: 1e-07 against 1e-7."""
    monkeypatch.setattr(summary, "BATCH", batch)
    floats = [1e-07, 1.5e-05, 1e16, 1.7976931348623157e308, 5e-324, -0.0, 0.1, 100.0, 1e22]
    doc = {"a": 1e-07, "dialog": [{"f": f} for f in floats],
           "events": [{"f": f, "n": k} for k, f in enumerate(floats)] + [{"big": 2**70 + 1}]}
    whole = summary.dumps(doc)
    assert b"".join(summary.iter_dumps(doc, ("dialog", "events"))) == whole
    assert json.loads(whole) == doc
    # the exact writer's floats are orjson's: a big integer elsewhere changes no float's text
    assert jsonenc.dumps([*floats, 2**70]) == orjson.dumps([*floats, 0])[:-3] + b"," + \
        str(2**70).encode() + b"]"
