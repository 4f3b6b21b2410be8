"""vcon-view import mcp: the draft's MCP mapping on the spec examples and the corpus cassettes.

Goldens (tests/golden/import/*.vcon.json) were reviewed by hand; regenerate with
VCON_VIEW_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from viewer.cli import main
from viewer.importers.mcp import ImportInputError, convert
from viewer.load import load_bytes
from viewer.model.build import build_model
from viewer.model.types import Model

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
GOLDEN = ROOT / "tests" / "golden" / "import"
CREATED = "2026-04-01T00:00:00.000Z"


def imported(path: Path, **kw: Any) -> tuple[dict[str, Any], Any]:
    return convert(path.read_bytes(), source_name=path.name, created=CREATED, **kw)


def model_of(vcon: dict[str, Any]) -> Model:
    return build_model(load_bytes(json.dumps(vcon).encode(), name="imported"))


def golden(name: str, vcon: dict[str, Any]) -> None:
    path = GOLDEN / f"{name}.vcon.json"
    text = json.dumps(vcon, indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("VCON_VIEW_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def shape(m: Model) -> list[tuple[str, str, list[list[str | None]]]]:
    return [(o.operation_id, o.outcome, [list(a.states) for a in o.attempts])
            for o in m.operations]


def no_errors(m: Model) -> None:
    assert [d for d in m.diagnostics if d.severity == "error"] == []
    assert [d for d in m.diagnostics if d.severity == "warning"] == []


CASES = {
    "import_2025_flow.jsonl": [
        ("op-0001", "cancel-requested", [["Running", "Cancel Requested"]]),
        ("op-0002", "completed",
         [["Running", "Running", "Input Required", "Running", "Completed"]]),
        ("op-0003", "errored", [["Running", "Errored"]]),
        ("op-0004", "failed", [["Running", "Failed"]]),
    ],
    "import_2025_tasks.jsonl": [("op-0001", "completed", [["Running", "Pending", "Completed"]])],
    "import_2026_mrtr.jsonl": [
        ("op-0001", "completed", [["Running", "Input Required", "Running", "Completed"]]),
    ],
    "import_sep2663_flow.jsonl": [
        ("op-0001", "completed",
         [["Running", "Pending", "Input Required", "Pending", "Completed"]]),
    ],
    "import_denied.jsonl": [
        ("op-0001", "completed", [["Running", "Denied"], ["Running", "Completed"]]),
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_spec_flows_map_and_pass_check(name: str) -> None:
    vcon, _ = imported(FIX / name)
    m = model_of(vcon)
    no_errors(m)
    assert shape(m) == CASES[name]
    golden(name.removesuffix(".jsonl"), vcon)


def test_2025_flow_types_and_pairing_by_direction() -> None:
    vcon, report = imported(FIX / "import_2025_flow.jsonl")
    types = [(e["type"], e["operation_id"]) for e in vcon["events"]]
    # the server's elicitation id 1 and the client's tools/call id 1 are open together: the
    # client's answer (id 1, c2s) goes to the elicitation, never to the tools/call
    assert ("tool-input-response", "op-0002") in types
    assert types[-1] == ("tool-cancel", "op-0001")
    assert ("tool-progress", "op-0002") in types
    err = next(e for e in vcon["events"] if e["type"] == "tool-error")
    assert err["body"]["code"] == -32602
    assert report.unmapped == 0


def test_operation_id_is_never_the_jsonrpc_id() -> None:
    vcon, _ = imported(FIX / "import_2026_mrtr.jsonl")
    ids = {e["operation_id"] for e in vcon["events"]}
    assert ids == {"op-0001"}  # the reissued request (JSON-RPC id 3) stays in the operation
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert len(inv) == 1 and inv[0]["attempt"] == 1  # retry with inputResponses: same attempt
    resp = next(e for e in vcon["events"] if e["type"] == "tool-input-response")
    assert resp["body"]["inputResponses"]["github_login"]["action"] == "accept"


def test_every_event_has_what_check_requires() -> None:
    vcon, _ = imported(FIX / "import_2025_flow.jsonl")
    assert vcon["extensions"] == ["tool-invocation"]
    assert [p["role"] for p in vcon["parties"]] == ["agent", "tool-server"]
    for e in vcon["events"]:
        assert e["sessions"] == [0] and e["party"] == 0 and e["attempt"] >= 1
        assert e["mediatype"] == "application/json" and e["encoding"] == "json"
        assert ("server" in e) == (e["type"] == "tool-invocation")


def test_denied_retry_is_a_new_attempt_without_credentials() -> None:
    vcon, _ = imported(FIX / "import_denied.jsonl")
    denied = next(e for e in vcon["events"] if e["type"] == "tool-denied")
    assert denied["body"]["http_status"] == 403
    assert "insufficient_scope" in denied["body"]["www_authenticate"]
    assert "Authorization" not in json.dumps(vcon)
    m = model_of(vcon)
    assert {f.kind for f in m.findings} == {"retry", "escalation"}


def test_mcp_recorder_cassette() -> None:
    vcon, report = imported(FIX / "import_mcp" / "mcp-recorder__mock_session.cassette.json")
    m = model_of(vcon)
    no_errors(m)
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("add", "completed"), ("multiply", "completed"), ("echo", "completed"),
        ("get_weather", "completed")]
    assert {o.server for o in m.operations} == {"http://127.0.0.1:8000"}
    assert report.times == "order-only"
    prov = vcon["attachments"][0]["body"]
    assert prov["times"] == "order-only" and prov["source"]["format"] == "mcp-recorder"
    assert vcon["events"][0]["time"].startswith("2026-02-17T20:25:23")
    golden("mcp-recorder__mock_session", vcon)


def test_agent_vcr_cassette() -> None:
    vcon, report = imported(FIX / "import_mcp" / "agent-vcr__calculator-errors.vcr.json")
    m = model_of(vcon)
    assert [d for d in m.diagnostics if d.severity == "error"] == []
    assert [(o.tool, o.outcome) for o in m.operations] == [
        ("divide", "errored"), ("nonexistent_tool", "errored"), ("add", "completed")]
    codes = [e["body"]["code"] for e in vcon["events"] if e["type"] == "tool-error"]
    assert codes == [-32603, -32601]
    assert {o.server for o in m.operations} == {"calculator-server"}
    # response time = request timestamp + latency_ms
    assert vcon["events"][1]["time"] == "2026-02-08T16:00:01.054Z"
    assert any("zone offset" in w for w in report.warnings)
    golden("agent-vcr__calculator-errors", vcon)


@pytest.mark.parametrize("name", [
    "spec-2025-11-25__doc-messages.jsonl", "spec-2026-07-28__doc-messages.jsonl",
    "spec-2026-07-28__schema-examples.jsonl", "spec-sep2663-tasks-extension__doc-messages.jsonl",
])
def test_whole_doc_block_files_keep_what_maps(name: str) -> None:
    """Not coherent sessions: the importer keeps what maps and reports the rest."""
    vcon, report = imported(FIX / "import_mcp" / name)
    m = model_of(vcon)
    assert [d for d in m.diagnostics if d.severity == "error"] == []
    assert m.operations and report.unmapped > 0
    assert len(report.examples) <= 5


def test_partial_input_reports_count_and_examples() -> None:
    vcon, report = imported(FIX / "import_partial.jsonl")
    assert len(vcon["events"]) == 2
    assert report.unmapped == 3
    assert any("not JSON" in x for x in report.examples)
    assert vcon["attachments"][0]["body"]["unmapped"]["count"] == 3


def test_unknown_direction_prefers_shape() -> None:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "t", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
         "params": {"message": "ok?", "requestedSchema": {"type": "object"}}},
        {"jsonrpc": "2.0", "id": 1, "result": {"action": "decline"}},
        {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": False}},
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    vcon, _ = convert(data, created=CREATED, server="https://mcp.example.com/mcp")
    assert [e["type"] for e in vcon["events"]] == [
        "tool-invocation", "tool-input", "tool-input-response", "tool-result"]
    assert vcon["events"][0]["server"] == "https://mcp.example.com/mcp"


def test_nothing_readable_raises() -> None:
    with pytest.raises(ImportInputError):
        convert(b"hello\nworld\n")
    with pytest.raises(ImportInputError):
        convert(b'{"not": "mcp"}')


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "o.vcon.json"
    src = FIX / "import_partial.jsonl"
    assert main(["import", "mcp", str(src), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "3 input item(s) could not be mapped" in err
    assert main(["check", str(out)]) == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nope\n")
    assert main(["import", "mcp", str(bad), "-o", str(tmp_path / "x.json")]) == 2
    assert not (tmp_path / "x.json").exists()
    copy = tmp_path / "in.jsonl"
    copy.write_bytes(src.read_bytes())
    assert main(["import", "mcp", str(copy), "-o", str(copy)]) == 2  # never over the input
    assert copy.read_bytes() == src.read_bytes()


def test_cli_output_dash_is_stdout(tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`-o -` writes the vCon to stdout (as `summary -o -`), never a file named '-'."""
    import json

    monkeypatch.chdir(tmp_path)
    src = FIX / "import_partial.jsonl"
    assert main(["import", "mcp", str(src), "-o", "-"]) == 0
    captured = capfdbinary.readouterr()
    vcon = json.loads(captured.out)
    assert vcon["events"] and not (tmp_path / "-").exists()
    assert b"wrote stdout:" in captured.err
