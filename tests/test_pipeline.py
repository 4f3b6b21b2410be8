"""The one way in (viewer.pipeline): a vCon is loaded as it is; a recording that is not a vCon is
recognised by its content, imported, and shown as derived; anything else gets one line."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.cli import main
from viewer.importers import formats
from viewer.load import LoadError, load_bytes
from viewer.model.build import build_model
from viewer.pipeline import open_bytes
from viewer.report.summary import summary_dict

FIX = Path(__file__).parent / "fixtures"
TRACE = FIX / "import_2025_flow.jsonl"


def test_a_vcon_is_loaded_as_it_is() -> None:
    data = (Path(__file__).parent.parent / "demo_vcons" / "tour.vcon.json").read_bytes()
    loaded = open_bytes(data, name="tour.vcon.json")
    assert loaded.derivation is None and loaded.derived_from == ()
    assert loaded.vcon == load_bytes(data).vcon


def test_a_transcript_opens_directly_and_says_it_is_derived() -> None:
    data = TRACE.read_bytes()
    model = build_model(open_bytes(data, name=str(TRACE)))
    d = model.derivation
    assert d is not None and d.format == "mcp"
    assert d.mapped + d.ignored + d.unmapped == d.objects > 0
    assert [op.outcome for op in model.operations] == [
        "cancel-requested", "completed", "errored", "failed"]
    # the source is the file the user gave, not the vCon the importer wrote
    assert model.source.sha256 == hashlib.sha256(data).hexdigest()
    assert model.source.size == len(data)
    codes = [x.code for x in model.diagnostics]
    assert "derived-events" in codes
    assert not [x for x in model.diagnostics if x.severity == "error"]
    doc = summary_dict(model)
    assert doc["derived"]["from"] == ["mcp:import_2025_flow.jsonl"]


def test_same_operations_as_import(tmp_path: Path) -> None:
    out = tmp_path / "out.vcon.json"
    assert main(["import", "mcp", str(TRACE), "-q", "-o", str(out)]) == 0
    imported = build_model(load_bytes(out.read_bytes()))
    direct = build_model(open_bytes(TRACE.read_bytes(), name=str(TRACE)))
    assert [(o.operation_id, o.tool, o.outcome) for o in imported.operations] == \
        [(o.operation_id, o.tool, o.outcome) for o in direct.operations]


def test_gzip_and_bom_transcripts_open() -> None:
    data = TRACE.read_bytes()
    for variant in (gzip.compress(data), b"\xef\xbb\xbf" + data):
        model = build_model(open_bytes(variant, name="t"))
        assert model.derivation is not None and len(model.operations) == 4


def test_unknown_file_is_one_line_naming_what_was_tried(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(LoadError) as exc:
        open_bytes(b'{"a": 1}\n{"b": 2}\n', name="x.jsonl")
    msg = exc.value.message
    assert "\n" not in msg and "tried: vCon" in msg and "MCP JSON-RPC transcript" in msg
    assert exc.value.exit_code == 2


def test_cli_refuses_unknown_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    f = tmp_path / "notes.jsonl"
    f.write_bytes(b'{"hello": "world"}\n')
    assert main(["summary", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tried:" in err


def test_empty_input_is_not_sent_to_importers() -> None:
    with pytest.raises(LoadError) as exc:
        open_bytes(b"", name="e")
    assert "empty input" in exc.value.message and "tried" not in exc.value.message


def test_a_signed_payload_that_is_not_a_vcon_is_not_imported() -> None:
    import base64

    payload = base64.urlsafe_b64encode(TRACE.read_bytes().split(b"\n")[0]).rstrip(b"=")
    jws = orjson.dumps({"payload": payload.decode(), "signatures": [{"protected": "e30",
                                                                     "signature": "AA"}]})
    with pytest.raises(LoadError) as exc:
        open_bytes(jws, name="s")
    assert "tried" not in exc.value.message


def test_ambiguous_file_is_refused_naming_the_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    real = formats.formats()
    greedy = formats.Format(name="greedy", title="Greedy log", unit="lines",
                            sniff=lambda s: True, convert=real[0].convert)
    monkeypatch.setattr(formats, "formats", lambda: [*real, greedy])
    with pytest.raises(LoadError) as exc:
        open_bytes(TRACE.read_bytes(), name="t.jsonl")
    msg = exc.value.message
    assert "could be read as an MCP JSON-RPC transcript or a Greedy log;" in msg
    assert "vcon-view import mcp" in msg and "vcon-view import greedy" in msg


def test_split_lines_keeps_unicode_line_separators_inside_strings() -> None:
    line = orjson.dumps({"s": "a\u2028b\u2029c\x85d"})
    assert formats.split_lines(line + b"\r\n" + line) == [line, line]


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "message", "jsonrpc", "id", "method", "dir", "msg", "ts",
                         "resourceSpans", "payload", "data", "timestamp", "toolCalls"]),
        inner, max_size=4),
    max_leaves=12)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_json.map(lambda v: json.dumps(v).encode()) | st.binary(max_size=20),
                max_size=8))
def test_junk_never_crashes_the_way_in(lines: list[bytes]) -> None:
    data = b"\n".join(lines)
    try:
        loaded = open_bytes(data, name="junk")
    except LoadError as exc:
        assert "\n" not in exc.message
        return
    build_model(loaded)


def test_the_pipeline_lifts_a_pre_draft_vcon_and_the_model_does_not() -> None:
    """load -> lift when needed -> build: the model builds what it is given (a proxy capture's
    own events are none), the pipeline hands it the lifted vCon."""
    from viewer.pipeline import lifted

    data = (FIX / "import_proxy.vcon.json").read_bytes()
    raw = load_bytes(data, name="p.vcon.json")
    assert build_model(raw).derivation is None and not build_model(raw).operations
    opened = open_bytes(data, name="p.vcon.json")
    assert opened.derivation is not None and opened.derivation.format == "vcon-mcp-proxy"
    assert opened.derived_from[0] == "/dialog/0"
    assert "derived-events" in [d.code for d in opened.diagnostics]
    assert [o.tool for o in build_model(opened).operations] == ["get_forecast", "get_weather"]
    assert lifted(opened) is opened  # lifted once; an imported or draft vCon as it is
    draft = load_bytes((FIX / "report_small.vcon.json").read_bytes())
    assert lifted(draft) is draft
    assert raw.vcon == orjson.loads(data)  # the file's vCon is never changed
