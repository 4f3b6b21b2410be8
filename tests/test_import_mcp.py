"""vcon-view import mcp: the draft's MCP mapping on the spec examples and the corpus cassettes.

Goldens (tests/golden/import/*.vcon.json) were reviewed by hand; regenerate with
VCON_VIEW_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


# --- a recorded tasks session (tests/fixtures/import_tasks_session.jsonl, written by hand after
# MCP 2025-11-25 with tasks): research_topic asks the user a question through elicitation/create
# related to its task (after a status input_required); its first working status arrives before
# the CreateTaskResult of the same instant; crawl_site is cancelled with tasks/cancel, the
# server confirms with status cancelled, and a later tasks/result answers with an error.

SESSION = FIX / "import_tasks_session.jsonl"


def session() -> tuple[dict[str, Any], Any]:
    return imported(SESSION)


def test_tasks_session_what_a_reviewer_sees() -> None:
    vcon, report = session()
    m = model_of(vcon)
    no_errors(m)
    assert [(o.tool, o.server, o.outcome) for o in m.operations] == [
        ("research_topic", "research-server", "completed"),
        ("crawl_site", "research-server", "cancel-requested"),
    ]
    assert shape(m) == [
        ("op-0001", "completed", [["Running", "Pending", "Pending", "Pending", "Input Required",
                                   "Pending", "Pending", "Completed"]]),
        ("op-0002", "cancel-requested", [["Running", "Pending", "Pending", "Cancel Requested"]]),
    ]
    assert report.unmapped == 0 and report.warnings == []
    assert vcon["parties"][0]["name"] == "research-agent"


def test_task_elicitation_is_the_tool_input_content() -> None:
    vcon, _ = session()
    inputs = [e for e in vcon["events"] if e["type"] == "tool-input"]
    assert len(inputs) == 1  # the status input_required made no second tool-input
    body = inputs[0]["body"]
    assert body["message"].startswith("Two sources are behind a paywall")
    assert body["requestedSchema"]["required"] == ["include_paywalled"]
    assert inputs[0]["time"] == "2026-03-02T10:00:04.200Z"  # input was asked for at the status
    i = vcon["events"].index(inputs[0])
    prov = vcon["attachments"][0]["body"]["events"]
    assert prov[i]["from"] == "line 9 + line 11"  # the status and the elicitation
    answer = next(e for e in vcon["events"] if e["type"] == "tool-input-response")
    assert answer["body"]["action"] == "accept" and answer["operation_id"] == "op-0001"


def _lines(*msgs: tuple[str, str, dict[str, Any]]) -> bytes:
    return "".join(json.dumps({"ts": ts, "dir": d, "msg": m}) + "\n"
                   for ts, d, m in msgs).encode()


def _call(rid: int, name: str, task: bool = True) -> dict[str, Any]:
    p: dict[str, Any] = {"name": name, "arguments": {}}
    if task:
        p["task"] = {"ttl": 60000}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": p}


def _created(rid: int, tid: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": {"task": {"taskId": tid, "status": "working"}}}


def _status(tid: str, status: str, text: str | None = None) -> dict[str, Any]:
    p = {"taskId": tid, "status": status, **({"statusMessage": text} if text else {})}
    return {"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": p}


def test_task_elicitation_without_a_status_first() -> None:
    elicit = {"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {
        "message": "Overwrite?", "requestedSchema": {"type": "object"},
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}}}
    data = _lines(("2026-03-02T10:00:00Z", "c2s", _call(1, "write")),
                  ("2026-03-02T10:00:01Z", "s2c", _created(1, "t1")),
                  ("2026-03-02T10:00:02Z", "s2c", elicit),
                  ("2026-03-02T10:00:03Z", "c2s", {"jsonrpc": "2.0", "id": 7,
                                                   "result": {"action": "decline"}}))
    vcon, report = convert(data, created=CREATED, server="s")
    evs = [(e["type"], e.get("body")) for e in vcon["events"]]
    assert evs[2][0] == "tool-input" and evs[2][1]["message"] == "Overwrite?"
    assert evs[3] == ("tool-input-response", {"action": "decline"})
    assert report.mapped == 4


def test_cancelled_task_is_acknowledged_not_failed() -> None:
    vcon, report = session()
    types = [e["type"] for e in vcon["events"] if e["operation_id"] == "op-0002"]
    assert types == ["tool-invocation", "tool-pending", "tool-progress", "tool-cancel"]
    m = model_of(vcon)
    assert m.operations[1].outcome == "cancel-requested"
    assert "out-of-model" not in m.operations[1].flags
    assert "late-response" not in m.operations[1].flags
    prov = vcon["attachments"][0]["body"]
    assert prov["ignored"]["a tasks/result error after the attempt ended"] == 1
    assert any("acknowledges the cancellation of op-0002" in n for n in prov["notes"])
    assert any(n.startswith("line 23: a tasks/result error") for n in prov["notes"])
    assert report.ignored["a tasks/result error after the attempt ended"] == 1


def test_nothing_is_added_to_an_ended_attempt() -> None:
    data = _lines(("2026-03-02T10:00:00Z", "c2s", _call(1, "t")),
                  ("2026-03-02T10:00:01Z", "s2c", _created(1, "t1")),
                  ("2026-03-02T10:00:02Z", "s2c", _status("t1", "failed", "boom")),
                  ("2026-03-02T10:00:03Z", "c2s", {"jsonrpc": "2.0", "id": 2,
                                                   "method": "tasks/result",
                                                   "params": {"taskId": "t1"}}),
                  ("2026-03-02T10:00:04Z", "s2c", {"jsonrpc": "2.0", "id": 2,
                                                   "error": {"code": -32603, "message": "x"}}),
                  ("2026-03-02T10:00:05Z", "s2c", _status("t1", "completed")))
    vcon, report = convert(data, created=CREATED, server="s")
    assert [e["type"] for e in vcon["events"]] == [
        "tool-invocation", "tool-pending", "tool-failure"]
    assert report.ignored == {"a tasks/result error after the attempt ended": 1,
                              "a task status after the attempt ended": 1}
    assert report.mapped + sum(report.ignored.values()) + report.unmapped == 6


def test_cancelled_status_without_a_cancel_request_is_a_failure() -> None:
    data = _lines(("2026-03-02T10:00:00Z", "c2s", _call(1, "t")),
                  ("2026-03-02T10:00:01Z", "s2c", _created(1, "t1")),
                  ("2026-03-02T10:00:02Z", "s2c", _status("t1", "cancelled", "by admin")))
    vcon, _ = convert(data, created=CREATED, server="s")
    assert vcon["events"][-1]["type"] == "tool-failure"


def test_status_before_its_create_result_is_paired() -> None:
    vcon, report = session()
    assert not any("not created" in x for x in report.examples)
    first = [e for e in vcon["events"] if e["operation_id"] == "op-0001"][:3]
    assert [e["type"] for e in first] == ["tool-invocation", "tool-pending", "tool-progress"]
    assert first[2]["body"] == "Gathering sources…"
    assert first[2]["time"] == first[1]["time"] == "2026-03-02T10:00:01.120Z"


def test_status_for_a_task_never_created_is_still_reported() -> None:
    noise = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info"}}
    msgs = [("2026-03-02T10:00:00Z", "s2c", _status("ghost", "working", "hi"))]
    msgs += [(f"2026-03-02T10:00:{i:02d}Z", "s2c", noise) for i in range(1, 21)]
    msgs += [("2026-03-02T10:00:30Z", "c2s", _call(1, "t")),
             ("2026-03-02T10:00:31Z", "s2c", _created(1, "ghost"))]  # too late to pair
    vcon, report = convert(_lines(*msgs), created=CREATED, server="s")
    assert report.unmapped == 1
    assert "for a task not created in this transcript" in report.examples[0]
    assert "tool-progress" not in [e["type"] for e in vcon["events"]]
    assert report.mapped + sum(report.ignored.values()) + report.unmapped == len(msgs)


def test_working_status_messages_are_progress() -> None:
    vcon, _ = session()
    prog = [(e["operation_id"], e["body"], e["mediatype"]) for e in vcon["events"]
            if e["type"] == "tool-progress"]
    assert prog == [
        ("op-0001", "Gathering sources…", "text/plain"),  # notification (before the handle)
        ("op-0001", "Analyzing content…", "text/plain"),  # tasks/get result
        ("op-0001", "Writing the summary…", "text/plain"),  # notification
        ("op-0002", "Gathering sources…", "text/plain"),  # tasks/get result
    ]


def test_repeated_working_message_is_one_progress() -> None:
    get = {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": "t1"}}
    res = {"jsonrpc": "2.0", "id": 2, "result": {"taskId": "t1", "status": "working",
                                                 "statusMessage": "Indexing…"}}
    data = _lines(("2026-03-02T10:00:00Z", "c2s", _call(1, "t")),
                  ("2026-03-02T10:00:01Z", "s2c", _created(1, "t1")),
                  ("2026-03-02T10:00:02Z", "c2s", get), ("2026-03-02T10:00:03Z", "s2c", res),
                  ("2026-03-02T10:00:04Z", "c2s", {**get, "id": 3}),
                  ("2026-03-02T10:00:05Z", "s2c", {**res, "id": 3}))
    vcon, report = convert(data, created=CREATED, server="s")
    assert [e["type"] for e in vcon["events"]].count("tool-progress") == 1
    assert report.mapped == 6


def _count(report: Any) -> int:
    return report.mapped + sum(report.ignored.values()) + report.unmapped


JSONL_FIXTURES = sorted(
    [p.name for p in FIX.glob("import_*.jsonl")]
    + [f"import_mcp/{p.name}" for p in (FIX / "import_mcp").glob("*.jsonl")])


@pytest.mark.parametrize("name", JSONL_FIXTURES)
def test_every_input_line_is_counted_once(name: str) -> None:
    data = (FIX / name).read_bytes()
    _, report = convert(data, created=CREATED)
    assert _count(report) == sum(1 for ln in data.split(b"\n") if ln.strip())


@pytest.mark.parametrize(("name", "items"), [
    # request + response per interaction (lifecycle interactions counted as ignored)
    ("import_mcp/mcp-recorder__mock_session.cassette.json", None),
    ("import_mcp/agent-vcr__calculator-errors.vcr.json", None),
    ("import_inspector_history.json", 10),  # 6 entries, 4 of them with a response inline
])
def test_every_message_of_a_document_is_counted_once(name: str, items: int | None) -> None:
    doc = json.loads((FIX / name).read_text(encoding="utf-8"))
    if items is None and "session" in doc:
        s = doc["session"]
        items = sum(1 for k in ("initialize_request", "initialize_response") if k in s) + sum(
            ("request" in it) + ("response" in it) + len(it.get("notifications", []))
            for it in s["interactions"])
    elif items is None:
        items = sum(1 if it.get("type") == "lifecycle" else
                    ("request" in it and it["request"] is not None)
                    + ("response" in it and it["response"] is not None)
                    for it in doc["interactions"])
    _, report = imported(FIX / name)
    assert _count(report) == items


def test_dir_spellings() -> None:
    from viewer.importers.mcp import C2S, S2C, read_transcript

    t = read_transcript(SESSION.read_bytes())
    assert [m.dir for m in t.messages[:2]] == [C2S, S2C]  # client->server, server->client
    for word, d in (("client_to_server", C2S), ("server_to_client", S2C), ("c2s", C2S),
                    ("s2c", S2C), ("client->server", C2S), ("server->client", S2C)):
        line = json.dumps({"dir": word, "msg": {"jsonrpc": "2.0", "method": "x"}}).encode()
        assert read_transcript(line + b"\n" + line).messages[0].dir == d


def test_jsonl_lines_split_on_newline_only() -> None:
    text = "one\u2028two\u2029three\x85four"
    lines = [
        {"ts": "2026-03-02T10:00:00Z", "dir": "c2s", "msg": _call(1, "echo", task=False)},
        {"ts": "2026-03-02T10:00:01Z", "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 1,
         "result": {"content": [{"type": "text", "text": text}], "isError": False}}},
    ]
    data = "".join(json.dumps(x, ensure_ascii=False) + "\r\n" for x in lines).encode()
    assert "\u2028".encode() in data
    vcon, report = convert(data, created=CREATED, server="s")
    assert report.unmapped == 0 and _count(report) == 2
    assert vcon["events"][-1]["body"]["content"][0]["text"] == text


INSPECTOR = FIX / "import_inspector_history.json"


def test_inspector_history_export() -> None:
    """MCP Inspector v2 MessageEntry list (core/mcp/types.ts): direction is the kind of message
    (request/response/notification), origin (client/server) who sent it; a request entry
    carries its response inline, at timestamp + duration."""
    vcon, report = imported(INSPECTOR)
    m = model_of(vcon)
    no_errors(m)
    assert [(o.tool, o.server, o.outcome) for o in m.operations] == [
        ("get_forecast", "weather-server", "completed"), ("delete_city", "weather-server",
                                                          "errored")]
    assert shape(m)[0][2] == [["Running", "Running", "Input Required", "Running", "Completed"]]
    evs = vcon["events"]
    # the server's elicitation (id 1) and the client's tools/call (id 1) are paired apart; the
    # inline answers keep their time order (the elicitation answer at 03.200 before the tool
    # result at 03.400, both after the progress of 01.500)
    assert [(e["type"], e["time"][-7:]) for e in evs[:5]] == [
        ("tool-invocation", "01.000Z"), ("tool-progress", "01.500Z"),
        ("tool-input", "02.000Z"), ("tool-input-response", "03.200Z"),
        ("tool-result", "03.400Z")]
    assert evs[-1]["type"] == "tool-error" and evs[-1]["time"].endswith("05.008Z")
    prov = vcon["attachments"][0]["body"]
    assert prov["source"]["format"] == "mcp-inspector-history"
    assert report.unmapped == 1 and "/5/message" in report.examples[0]  # the orphan response


def test_inspector_history_wrapped_and_jsonl(tmp_path: Path) -> None:
    from viewer.importers.formats import detect

    entries = json.loads(INSPECTOR.read_text(encoding="utf-8"))
    want = [(e["type"], e["time"]) for e in imported(INSPECTOR)[0]["events"]]
    wrapped = json.dumps({"messages": entries}).encode()
    lines = "".join(json.dumps(e) + "\n" for e in entries).encode()
    for data in (INSPECTOR.read_bytes(), wrapped, lines):
        fmt = detect(data)
        assert fmt is not None and fmt.name == "mcp"
        vcon, report = convert(data, created=CREATED)
        assert [(e["type"], e["time"]) for e in vcon["events"]] == want
        assert _count(report) == 10
    out = tmp_path / "o.vcon.json"
    src = tmp_path / "history.json"
    src.write_bytes(wrapped)
    assert main(["summary", str(src), "--format", "json"]) == 0
    assert main(["import", "mcp", str(src), "-o", str(out), "-q"]) == 0


def test_cli_summary_on_the_session(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(SESSION), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "research_topic" in json.dumps(out)


def _big_transcript(n: int) -> bytes:
    out = []
    for k in range(1, n // 3 + 1):
        ts = f"2026-03-02T{k // 36000 % 24:02d}:{k // 600 % 60:02d}:{k / 10 % 60:06.3f}Z"
        out.append({"ts": ts, "dir": "c2s", "msg": {
            "jsonrpc": "2.0", "id": k, "method": "tools/call",
            "params": {"name": f"tool_{k % 50}", "arguments": {"n": k},
                       "_meta": {"progressToken": k}}}})
        out.append({"ts": ts, "dir": "s2c", "msg": {"jsonrpc": "2.0", "method":
                    "notifications/progress", "params": {"progressToken": k, "progress": 1}}})
        out.append({"ts": ts, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": k, "result": {
            "content": [{"type": "text", "text": f"r{k}"}], "isError": False}}})
    return "".join(json.dumps(x) + "\n" for x in out).encode()


def test_pairing_is_linear() -> None:
    """Import time grows with the input, not its square: 8x the lines cost about 8x the CPU
    (~30x when each tools/call scanned every earlier operation; a generated 80k-line file took
    ~40 s of CPU then, ~3 s now). The bound is loose for a loaded machine."""
    import gc
    import time

    def cpu(n: int) -> float:
        # Collector paused, as the CLI runs: in a long test session a full collection of the
        # session's whole heap could land in one run and pass for a square.
        data = _big_transcript(n)
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            _, report = convert(data, created=CREATED, server="s")
            spent = time.process_time() - start
        finally:
            gc.enable()
        assert report.unmapped == 0 and report.mapped == n // 3 * 3
        return spent

    small, big = cpu(3_000), cpu(24_000)
    assert big / small < 16, f"{small:.2f} s for 3k lines, {big:.2f} s for 24k"


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(st.one_of(
    st.binary(max_size=40),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                 lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c,
                                                                     max_size=4),
                 max_leaves=12).map(lambda v: json.dumps(v).encode()),
    st.sampled_from([b'{"ts": 1, "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 1}}',
                     b'{"direction": "request", "message": {"jsonrpc": "2.0", "id": 3}, '
                     b'"response": 5, "duration": "x"}',
                     b'{"dir": "c2s", "msg": {"jsonrpc": "2.0", "id": [], "method": "tasks/get",'
                     b' "params": {"taskId": {}}}}', b"[" * 5000]),
), max_size=8), st.randoms(use_true_random=False))
def test_junk_mixed_into_a_session_never_crashes(junk: list[bytes], rnd: Any) -> None:
    lines = SESSION.read_bytes().split(b"\n")
    for j in junk:
        lines.insert(rnd.randrange(len(lines) + 1), j.replace(b"\n", b" "))
    data = b"\n".join(lines)
    try:
        _, report = convert(data, created=CREATED)
    except ImportInputError:
        return
    assert _count(report) >= sum(1 for ln in data.split(b"\n") if ln.strip())


def test_huge_durations_never_crash() -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}
    done = {"jsonrpc": "2.0", "id": 1, "result": {}}
    entry = {"timestamp": "9999-12-31T23:59:59Z", "direction": "request", "origin": "client",
             "message": call, "response": done, "duration": 9e11}
    vcr = {"session": {"interactions": [{"timestamp": "9999-12-31T23:59:59Z", "request": call,
                                         "response": done, "latency_ms": 9e11}]}}
    for doc in ([entry], vcr):
        vcon, _ = convert(json.dumps(doc).encode(), created=CREATED, server="s")
        assert [e["type"] for e in vcon["events"]] == ["tool-invocation", "tool-result"]


def test_nan_in_a_line_is_not_mapped_not_written_as_null() -> None:
    """NaN/Infinity are not JSON: the line is counted as not mapped with its reason, where it
    used to be read and its NaN later written as null in silence."""
    good = (b'{"ts": "2026-03-01T10:00:00Z", "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 1,'
            b' "method": "tools/call", "params": {"name": "t", "arguments": {}}}}')
    bad = (b'{"ts": "2026-03-01T10:00:01Z", "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 1,'
           b' "result": {"content": [], "score": NaN}}}')
    vcon, rep = convert(good + b"\n" + bad)
    assert rep.unmapped == 1 and "not JSON" in rep.examples[0]
    assert b"NaN" not in orjson.dumps(vcon) and all(
        e["type"] != "tool-result" for e in vcon["events"])


def test_jsonrpc_batches_are_recognised_and_each_call_is_an_operation(tmp_path: Path) -> None:
    """MCP 2025-03-26 allowed JSON-RPC batches: a {ts, dir, msg} line whose msg is an array,
    or a bare array line. The reader split them already, but the file was refused as 'not a
    recording' when batch lines were half of it or more. Each call is its own operation."""
    init = [{"ts": "2025-05-01T10:00:00.000Z", "dir": "c2s", "msg": {
        "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}}},
        {"ts": "2025-05-01T10:00:00.100Z", "dir": "s2c", "msg": {
            "jsonrpc": "2.0", "id": 0, "result": {
                "protocolVersion": "2025-03-26", "capabilities": {"tools": {}},
                "serverInfo": {"name": "srv", "version": "1"}}}}]
    calls = [{"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": n, "arguments": {}}} for i, n in ((1, "a"), (2, "b"))]
    answers = [{"jsonrpc": "2.0", "id": 2, "result": {"content": [], "isError": True}},
               {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}]
    wrapped = [*init, {"ts": "2025-05-01T10:00:01.000Z", "dir": "c2s", "msg": calls},
               {"ts": "2025-05-01T10:00:02.000Z", "dir": "s2c", "msg": answers}]
    bare = [*(x["msg"] for x in init), calls, answers]
    for name, lines in (("wrapped.jsonl", wrapped), ("bare.jsonl", bare)):
        f = tmp_path / name
        f.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
        out = tmp_path / (name + ".vcon.json")
        assert main(["import", "mcp", str(f), "-q", "-o", str(out)]) == 0
        m = model_of(json.loads(out.read_text()))
        no_errors(m)
        assert [(o.tool, o.outcome) for o in m.operations] == [("a", "completed"),
                                                               ("b", "failed")]
        assert main(["summary", str(f), "--format", "json"]) == 0  # recognised by content


def test_integers_past_64_bits_are_kept_exactly() -> None:
    """An argument of 2**70 is shown as recorded, never as a float's 1.1805916207174113e+21."""
    big = 2**70
    call = _call(1, "transfer", task=False)
    call["params"]["arguments"] = {"amount": big, "ids": [-(2**65), 7]}
    data = _lines(("2026-03-02T10:00:00.000Z", "c2s", call),
                  ("2026-03-02T10:00:01.000Z", "s2c",
                   {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "total": big + 1}}))
    vcon, _ = convert(data, created=CREATED)
    inv = next(e for e in vcon["events"] if e["type"] == "tool-invocation")
    assert inv["body"] == {"amount": big, "ids": [-(2**65), 7]}
    res = next(e for e in vcon["events"] if e["type"] == "tool-result")
    assert res["body"]["total"] == big + 1


@pytest.mark.parametrize("depth", [990, 1020])
def test_an_argument_nested_as_deep_as_orjson_reads_is_read(depth: int) -> None:
    """A message nested under orjson's 1,024 levels was read before msgspec read first (whose
    RecursionError comes at Python's recursion limit, lower, less the caller's frames): it is
    still read, not counted as unmapped for nesting too deep."""
    call = _call(1, "transfer", task=False)
    call["params"]["arguments"] = {"deep": 0}
    data = _lines(("2026-03-02T10:00:00.000Z", "c2s", call),
                  ("2026-03-02T10:00:01.000Z", "s2c",
                   {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}))
    data = data.replace(b'{"deep": 0}', b'{"deep": ' + b"[" * depth + b"]" * depth + b"}", 1)
    assert b"[" * depth in data
    vcon, _ = convert(data, created=CREATED)
    inv = next(e for e in vcon["events"] if e["type"] == "tool-invocation")
    assert "deep" in inv["body"]


def test_an_argument_nested_deeper_than_orjson_reads_is_refused() -> None:
    call = _call(1, "transfer", task=False)
    call["params"]["arguments"] = {"deep": 0}
    data = _lines(("2026-03-02T10:00:00.000Z", "c2s", call))
    data = data.replace(b'{"deep": 0}', b'{"deep": ' + b"[" * 1100 + b"]" * 1100 + b"}", 1)
    with pytest.raises(ImportInputError):
        convert(data, created=CREATED)


DEBUG_RECORD = FIX / "import_mcp_debug_record.jsonl"


def test_mcp_debug_recording() -> None:
    """mcp-debug --record (docs/RECORDING.md, integration/dynamic_wrapper.go): two ``#``
    comment lines, a session header ``{start_time, server_info, messages: []}``, then one
    ``{timestamp, direction: request|response, message_type, tool_name, server_name,
    message}`` per message, where ``message`` is the CallToolRequest without a JSON-RPC id,
    or the bare CallToolResult. What a reviewer should see: each call an operation of its
    upstream server (server_name), its result or failure paired with the open request of the
    same tool (inferred, and said so, when several are open), a response with no request and
    the cut last line counted as not mapped, the comments and the header as ignored."""
    from viewer.importers.formats import detect

    data = DEBUG_RECORD.read_bytes()
    fmt = detect(data)
    assert fmt is not None and fmt.name == "mcp"
    vcon, report = imported(DEBUG_RECORD)
    m = model_of(vcon)
    assert [d for d in m.diagnostics if d.severity == "error"] == []
    assert [(o.tool, o.server, o.outcome) for o in m.operations] == [
        ("fs_read_file", "filesystem", "completed"), ("math_calculate", "math", "failed"),
        ("fs_read_file", "filesystem", "completed"), ("fs_read_file", "filesystem", "completed"),
        ("fs_write_file", "filesystem", "running")]
    evs = vcon["events"]
    assert [(e["type"], e["operation_id"], e["time"]) for e in evs[:4]] == [
        ("tool-invocation", "op-0001", "2026-01-13T06:45:42.940Z"),
        ("tool-result", "op-0001", "2026-01-13T06:45:43.123Z"),
        ("tool-invocation", "op-0002", "2026-01-13T06:45:50.000Z"),
        ("tool-failure", "op-0002", "2026-01-13T06:45:50.250Z")]
    assert evs[0]["body"] == {"path": "/etc/hosts"}
    assert evs[3]["body"]["isError"] is True
    # two calls of fs_read_file open together: the order pairs them, and the events say so
    results = [(e["operation_id"], e["body"]["content"][0]["text"], "inferred" in e)
               for e in evs if e["type"] == "tool-result"]
    assert results == [("op-0001", "127.0.0.1 localhost", False),
                       ("op-0003", "first answer", True), ("op-0004", "second answer", True)]
    assert "inferred" not in evs[1] and "inferred" not in evs[3]
    assert vcon["parties"][1]["name"] == "Dynamic MCP Proxy v1.0.0"
    assert report.times == "recorded"
    assert report.ignored == {"comment line": 2, "recording header": 1}
    assert report.unmapped == 2
    assert report.examples[0].startswith("line 12/message: ")  # server_list: no request
    assert report.examples[1] == "line 14: not JSON"  # the cut last line
    assert _count(report) == 14
    assert any("paired" in w for w in report.lines())


def test_an_mcp_debug_server_name_never_names_the_agents_host() -> None:
    """``!host`` is the draft's name for the agent's own host, never an MCP server's: a record
    whose server_name says ``!host`` (broken or hostile) must not make its MCP call look like
    one of the agent's built-in tools; the recording's own server name stands instead, as it
    does for a serverInfo or log name starting with '!'."""
    rec = {"timestamp": "2026-01-13T06:45:42Z", "message_type": "tool_call",
           "tool_name": "run", "server_name": "!host"}
    data = "".join(json.dumps(r) + "\n" for r in (
        {"start_time": "2026-01-13T06:45:40Z", "server_info": "Dynamic MCP Proxy v1.0.0",
         "messages": []},
        {**rec, "direction": "request", "message": {"method": "tools/call", "params": {
            "name": "run", "arguments": {}}}},
        {**rec, "direction": "response", "message": {"content": []}})).encode()
    vcon, _ = convert(data, created=CREATED)
    assert [e.get("server") for e in vcon["events"] if e["type"] == "tool-invocation"] == [
        "Dynamic MCP Proxy v1.0.0"]


def _bare(*msgs: dict[str, Any]) -> bytes:
    return "".join(json.dumps({"jsonrpc": "2.0", **m}) + "\n" for m in msgs).encode()


def test_a_server_ping_with_the_id_of_an_open_call_is_the_server_s() -> None:
    """basic/utilities/ping: either side may send ``ping``, and each side numbers its own
    requests, so a server's ping can carry the id of the client's open tools/call. In a
    capture without directions (bare JSON-RPC lines, as a stdio tap writes them) the ping
    must not take the call's place, and its empty answer must not end the call: the call
    completes with its own result, the ping and its answer are ignored."""
    data = _bare(
        {"id": 1, "method": "tools/call", "params": {"name": "slow", "arguments": {},
                                                     "_meta": {"progressToken": "t1"}}},
        {"id": 1, "method": "ping"},
        {"id": 1, "result": {}},
        {"method": "notifications/progress", "params": {"progressToken": "t1", "progress": 1}},
        {"id": 1, "result": {"content": [{"type": "text", "text": "done"}]}},
    )
    vcon, report = convert(data, created=CREATED, server="s")
    assert [e["type"] for e in vcon["events"]] == [
        "tool-invocation", "tool-progress", "tool-result"]
    assert vcon["events"][-1]["body"]["content"][0]["text"] == "done"
    assert report.unmapped == 0 and _count(report) == 5


def test_a_server_ping_answered_before_the_call_is_still_the_server_s() -> None:
    """The same, with the ping's answer after the call's result: each answer goes to its
    own request (a tool result to the call, the empty result to the ping)."""
    data = _bare(
        {"id": 7, "method": "tools/call", "params": {"name": "slow", "arguments": {}}},
        {"id": 7, "method": "ping"},
        {"id": 7, "result": {"content": [], "isError": True}},
        {"id": 7, "result": {}},
    )
    vcon, report = convert(data, created=CREATED, server="s")
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation", "tool-failure"]
    assert report.unmapped == 0 and _count(report) == 4


def test_a_request_id_used_again_while_open_is_said() -> None:
    """A capture of two sessions (a restarted stdio server numbers from 1 again) can hold a
    tools/call whose id is still open from the first: the answer goes to the later call,
    the earlier stays unanswered, and the import says why."""
    data = _bare(
        {"id": 1, "method": "tools/call", "params": {"name": "a", "arguments": {}}},
        {"id": 1, "method": "tools/call", "params": {"name": "b", "arguments": {}}},
        {"id": 1, "result": {"content": []}},
    )
    vcon, report = convert(data, created=CREATED, server="s")
    m = model_of(vcon)
    assert [(o.tool, o.outcome) for o in m.operations] == [("a", "running"), ("b", "completed")]
    assert any("used again" in w for w in report.warnings)


def test_a_cancellation_that_crossed_the_answer_is_context() -> None:
    """basic/utilities/cancellation, Timing Considerations: a notifications/cancelled may be
    sent after the response was (the two cross on the wire). The call stays Completed, and
    the cancellation is counted as ignored and described in the provenance notes, not as
    input that could not be read (nor as an event after the end)."""
    lines = [
        {"ts": "2026-03-02T10:00:00Z", "dir": "c2s", "msg": _call(4, "echo", task=False)},
        {"ts": "2026-03-02T10:00:01Z", "dir": "s2c", "msg": {
            "jsonrpc": "2.0", "id": 4, "result": {"content": []}}},
        {"ts": "2026-03-02T10:00:01.001Z", "dir": "c2s", "msg": {
            "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 4, "reason": "User requested cancellation"}}},
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    vcon, report = convert(data, created=CREATED, server="s")
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation", "tool-result"]
    assert report.unmapped == 0 and _count(report) == 3
    notes = vcon["attachments"][0]["body"]["notes"]
    assert any("notifications/cancelled" in n and "op-0001" in n for n in notes)


def test_a_response_recorded_twice_is_context() -> None:
    """Streamable HTTP resumability (transports, Resumability and Redelivery): a server may
    replay messages after a reconnection, so a capture can hold one response twice. The
    first ends the call; the second is counted as ignored and described in the notes, never
    as an unreadable message nor as a second end."""
    lines = [
        {"ts": "2026-03-02T10:00:00Z", "dir": "c2s", "msg": _call(9, "echo", task=False)},
        {"ts": "2026-03-02T10:00:01Z", "dir": "s2c", "msg": {
            "jsonrpc": "2.0", "id": 9, "result": {"content": []}}},
        {"ts": "2026-03-02T10:00:05Z", "dir": "s2c", "msg": {
            "jsonrpc": "2.0", "id": 9, "result": {"content": []}}},
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    vcon, report = convert(data, created=CREATED, server="s")
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation", "tool-result"]
    assert report.unmapped == 0 and _count(report) == 3
    notes = vcon["attachments"][0]["body"]["notes"]
    assert any("line 3" in n and "op-0001" in n for n in notes)


def test_directions_seen_from_the_server_are_turned_round() -> None:
    """"incoming"/"outgoing" (and in/out, send/recv) are relative words: a capture made on
    the server's side writes a tools/call as incoming. Only a client sends initialize and
    tools/call (basic/lifecycle, server/tools), so when the capture's directions have those
    requests going to the client, every direction is turned round, and the import says so.
    Before, every call was dropped as a 'server request'."""
    lines = [
        {"ts": "2026-03-02T10:00:00Z", "direction": "incoming", "msg": {
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"clientInfo": {"name": "cc", "version": "1"}}}},
        {"ts": "2026-03-02T10:00:00.100Z", "direction": "outgoing", "msg": {
            "jsonrpc": "2.0", "id": 0, "result": {"serverInfo": {"name": "srv", "version": "1"}}}},
        {"ts": "2026-03-02T10:00:01Z", "direction": "incoming",
         "msg": _call(1, "echo", task=False)},
        {"ts": "2026-03-02T10:00:01.500Z", "direction": "outgoing", "msg": {
            "jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": 5, "progress": 1}}},
        {"ts": "2026-03-02T10:00:02Z", "direction": "outgoing", "msg": {
            "jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": True}}},
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    vcon, report = convert(data, created=CREATED)
    m = model_of(vcon)
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [("srv", "echo", "failed")]
    assert any("turned round" in w for w in report.warnings)


def test_request_and_response_are_kinds_not_directions() -> None:
    """A capture's ``direction: "request"|"response"`` (as mcp-debug and the Inspector write
    it) names the kind of message, not its way: a server's elicitation/create is a request
    too. The way is then read from the message, so the elicitation is the call's tool-input
    and the call keeps its own answer (before, the elicitation was taken as the client's
    request with the call's id, and the call stayed Running)."""
    lines = [
        {"ts": "2026-03-02T10:00:01Z", "direction": "request",
         "msg": _call(1, "deploy", task=False)},
        {"ts": "2026-03-02T10:00:02Z", "direction": "request", "msg": {
            "jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
            "params": {"message": "Deploy to production?", "requestedSchema": {}}}},
        {"ts": "2026-03-02T10:00:03Z", "direction": "response", "msg": {
            "jsonrpc": "2.0", "id": 1, "result": {"action": "accept"}}},
        {"ts": "2026-03-02T10:00:04Z", "direction": "response", "msg": {
            "jsonrpc": "2.0", "id": 1, "result": {"content": []}}},
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    vcon, report = convert(data, created=CREATED, server="s")
    assert [e["type"] for e in vcon["events"]] == [
        "tool-invocation", "tool-input", "tool-input-response", "tool-result"]
    assert report.unmapped == 0


CLAUDE_LOG = FIX / "import_claude_desktop_mcp.log"


def test_claude_desktop_mcp_log() -> None:
    """Claude Desktop's MCP logs (``mcp.log``, ``mcp-server-NAME.log``): one line per event,
    ``<time> [level] [server] Message from client|server: <JSON-RPC>`` (older builds write
    ``[server] [level]``; newer ones add `` { metadata: undefined }`` after the JSON),
    among the host's own lines and the server's stderr. ``mcp.log`` holds every server's
    connection, each numbering its requests from 0. What a reviewer should see: each server's
    calls paired within that server only (both have a tools/call with id 1), the server named
    by its serverInfo, the unanswered write still Running when the transport closed, the
    other lines counted as ignored."""
    from viewer.importers.formats import detect

    data = CLAUDE_LOG.read_bytes()
    fmt = detect(data)
    assert fmt is not None and fmt.name == "mcp"
    vcon, report = imported(CLAUDE_LOG)
    m = model_of(vcon)
    assert [d for d in m.diagnostics if d.severity == "error"] == []
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("secure-filesystem-server", "read_file", "completed"),
        ("ably-mcp", "list_channels", "errored"),
        ("secure-filesystem-server", "write_file", "running")]
    evs = vcon["events"]
    assert [(e["type"], e["operation_id"], e["time"]) for e in evs] == [
        ("tool-invocation", "op-0001", "2026-03-01T09:40:00.000Z"),
        ("tool-invocation", "op-0002", "2026-03-01T09:40:00.050Z"),
        ("tool-result", "op-0001", "2026-03-01T09:40:00.400Z"),
        ("tool-error", "op-0002", "2026-03-01T09:40:01.969Z"),
        ("tool-invocation", "op-0003", "2026-03-01T09:40:05.000Z")]
    assert evs[2]["body"]["content"][0]["text"] == "buy milk"
    assert vcon["parties"][0]["name"] == "claude-ai"
    assert report.unmapped == 0 and report.times == "recorded"
    assert _count(report) == 15
    assert report.ignored["log line (not an MCP message)"] == 4
    assert report.ignored["server output (not an MCP message)"] == 1


CLAUDE_REDACTED_LOG = FIX / "import_claude_desktop_redacted_mcp.log"


def test_claude_desktop_redacted_mcp_log() -> None:
    """Claude Desktop builds since mid-2026 write each message in a compact form with no
    JSON: ``Message from client: method="tools/call" id=3 params`` and ``Message from
    server: id=3 result(2 blocks)`` or ``id=4 error(code=-32603)`` (seen in
    anthropics/claude-ai-mcp#664 and in public repos' notes and tests quoting their own
    logs). Such a log was refused as "no MCP JSON-RPC message". What a reviewer should see:
    the three calls in order at their times on the log's server, the tool name shown as not
    recorded (never invented), the invocation holding the log's own words (no arguments
    were recorded, so none are shown as empty), the result marked inferred since the log
    does not record isError, the JSON-RPC error with its code, the unanswered call still
    Running, and a warning saying what the log leaves out."""
    from viewer.importers.formats import detect

    data = CLAUDE_REDACTED_LOG.read_bytes()
    fmt = detect(data)
    assert fmt is not None and fmt.name == "mcp"
    vcon, report = imported(CLAUDE_REDACTED_LOG)
    m = model_of(vcon)
    assert [d for d in m.diagnostics if d.severity == "error"] == []
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("notes-remote", "?", "completed"),
        ("notes-remote", "?", "errored"),
        ("notes-remote", "?", "running")]
    evs = vcon["events"]
    assert [(e["type"], e["operation_id"], e["time"]) for e in evs] == [
        ("tool-invocation", "op-0001", "2026-09-14T07:05:40.880Z"),
        ("tool-result", "op-0001", "2026-09-14T07:05:41.907Z"),
        ("tool-invocation", "op-0002", "2026-09-14T07:05:52.004Z"),
        ("tool-error", "op-0002", "2026-09-14T07:05:52.231Z"),
        ("tool-invocation", "op-0003", "2026-09-14T07:06:30.500Z")]
    assert evs[0]["body"] == 'method="tools/call" id=3 params'
    assert evs[1]["body"] == "result(2 blocks)"
    assert "isError" in evs[1]["inferred"]
    assert evs[3]["body"] == {"code": -32603}
    assert "inferred" not in evs[3]
    assert any("tool name, arguments and results are not recorded" in w
               for w in report.warnings)
    assert report.unmapped == 0 and report.times == "recorded"
    assert _count(report) == 20
    assert report.ignored["log line (not an MCP message)"] == 4
    assert report.ignored["server output (not an MCP message)"] == 4


def test_claude_desktop_compact_log_notifications_without_params() -> None:
    """In the compact log a notification's params are not written (``method=
    "notifications/cancelled" params``): which request it names is not recorded. It is
    counted as not mapped with that reason, not as a cancel of 'no open tools/call' or a
    progress of 'an unknown progressToken' while a call is open, and the call is left as
    recorded (Running)."""
    lines = [
        '2026-09-14T07:05:40.880Z [x] [info] Message from client: method="tools/call" id=3 '
        "params { metadata: undefined }",
        '2026-09-14T07:05:41.000Z [x] [info] Message from server: '
        'method="notifications/progress" params { metadata: undefined }',
        '2026-09-14T07:05:45.907Z [x] [info] Message from client: '
        'method="notifications/cancelled" params { metadata: undefined }',
    ]
    vcon, report = convert("\n".join(lines).encode(), created=CREATED)
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation"]
    assert report.unmapped == 2
    text = " ".join(report.lines())
    assert "no open tools/call" not in text and "unknown progressToken" not in text
    assert text.count("the compact log does not record which request it names") == 2


def test_claude_desktop_compact_log_elicitation() -> None:
    """A server's elicitation/create during a call, and the client's answer, in the compact
    log: a tool-input and a tool-input-response holding the log's words (the question and
    the answer are not recorded: no invented empty object), neither marked with the
    isError inference, which belongs to the call's result only."""
    lines = [
        '2026-09-14T07:05:40.880Z [x] [info] Message from client: method="tools/call" id=3 '
        "params { metadata: undefined }",
        '2026-09-14T07:05:41.000Z [x] [info] Message from server: '
        'method="elicitation/create" id=0 params { metadata: undefined }',
        "2026-09-14T07:05:43.000Z [x] [info] Message from client: id=0 result "
        "{ metadata: undefined }",
        "2026-09-14T07:05:45.907Z [x] [info] Message from server: id=3 result(1 blocks) "
        "{ metadata: undefined }",
    ]
    vcon, _ = convert("\n".join(lines).encode(), created=CREATED)
    got = [(e["type"], e["body"], "inferred" in e) for e in vcon["events"]]
    assert got == [
        ("tool-invocation", 'method="tools/call" id=3 params', False),
        ("tool-input", 'method="elicitation/create" id=0 params', False),
        ("tool-input-response", "result", False),
        ("tool-result", "result(1 blocks)", True)]


def test_jsonl_with_the_message_under_frame() -> None:
    """A tap's session log writes ``{dir, frame, raw, seq, ts}`` per line: the JSON-RPC
    message under ``frame`` (null, with the line kept under ``raw``, when it did not parse).
    Shape seen in a public repository's tests of its MCP tap (glassport
    ``SessionLog.record``); this fixture is made by hand. It was refused as "no MCP JSON-RPC
    message". What a reviewer should see: the call with its arguments and result at the
    recorded times, the unparsed line counted as not mapped."""
    lines = [
        {"dir": "c2s", "frame": {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
         "raw": None, "seq": 1, "ts": "2026-05-01T10:00:00.000Z"},
        {"dir": "s2c", "frame": {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}},
         "raw": None, "seq": 2, "ts": "2026-05-01T10:00:00.010Z"},
        {"dir": "c2s", "frame": {"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                                 "params": {"name": "echo", "arguments": {"x": 1}}},
         "raw": None, "seq": 3, "ts": "2026-05-01T10:00:01.000Z"},
        {"dir": "s2c", "frame": None, "raw": "Traceback (most recent call last):", "seq": 4,
         "ts": "2026-05-01T10:00:01.100Z"},
        {"dir": "s2c", "frame": {"jsonrpc": "2.0", "id": 6,
                                 "result": {"content": [{"type": "text", "text": "1"}]}},
         "raw": None, "seq": 5, "ts": "2026-05-01T10:00:01.200Z"},
    ]
    from viewer.importers.formats import detect

    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    fmt = detect(data)
    assert fmt is not None and fmt.name == "mcp"
    vcon, report = convert(data, created=CREATED, server="s")
    assert [(e["type"], e["time"], e["body"]) for e in vcon["events"]] == [
        ("tool-invocation", "2026-05-01T10:00:01.000Z", {"x": 1}),
        ("tool-result", "2026-05-01T10:00:01.200Z", {"content": [{"type": "text", "text": "1"}]})]
    assert report.unmapped == 1 and _count(report) == 5


def test_claude_desktop_mcp_log_and_server_log_read_together() -> None:
    """Claude Desktop writes each message to ``mcp.log`` (``[info] [server]``) and to
    ``mcp-server-NAME.log`` (``[server] [info]`` ... ``{ metadata: undefined }``) with the
    same time; the MCP docs' ``tail -n 20 -F ~/Library/Logs/Claude/mcp*.log`` (or a ``cat``
    of both) gives every message twice, under ``==> FILE <==`` headers (seen so in public
    write-ups quoting their logs). It was read as two calls, the first one's copy a second
    operation. What a reviewer should see: one call, one result; each copy counted as
    ignored, and said."""
    call = ('{"method":"tools/call","params":{"name":"rcon","arguments":{"command":"time set '
            'night"}},"jsonrpc":"2.0","id":4}')
    res = ('{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"Set the time '
           'to 13000"}],"isError":false}}')
    lines = [
        "==> /Users/u/Library/Logs/Claude/mcp.log <==",
        f"2025-10-03T07:51:59.739Z [info] [mc] Message from client: {call}",
        f"2025-10-03T07:52:10.577Z [info] [mc] Message from server: {res}",
        "",
        "==> /Users/u/Library/Logs/Claude/mcp-server-mc.log <==",
        "INFO:mcp.server.lowlevel.server:Processing request of type CallToolRequest",
        f"2025-10-03T07:51:59.739Z [mc] [info] Message from client: {call} "
        "{ metadata: undefined }",
        f"2025-10-03T07:52:10.577Z [mc] [info] Message from server: {res} "
        "{ metadata: undefined }",
    ]
    vcon, report = convert("\n".join(lines).encode(), created=CREATED)
    assert [(e["type"], e["operation_id"], e["time"]) for e in vcon["events"]] == [
        ("tool-invocation", "op-0001", "2025-10-03T07:51:59.739Z"),
        ("tool-result", "op-0001", "2025-10-03T07:52:10.577Z")]
    assert report.unmapped == 0
    assert sum(v for k, v in report.ignored.items() if "again" in k) == 2
    assert any("mcp-server-NAME.log" in w for w in report.warnings)


def test_odd_values_where_names_belong_never_crash() -> None:
    """A method, tool_name or server_name that is an object (hostile or broken input) is
    read as data: the line is counted, the import goes on."""
    lines = [
        {"ts": "2026-03-02T10:00:00Z", "dir": "c2s",
         "msg": {"jsonrpc": "2.0", "id": 1, "method": {"x": 1}}},
        {"timestamp": "2026-03-02T10:00:01Z", "direction": "request", "message_type": "tool_call",
         "tool_name": {"x": 1}, "server_name": [1],
         "message": {"method": "tools/call", "params": {"name": "a", "arguments": {}}}},
        {"timestamp": "2026-03-02T10:00:02Z", "direction": "response", "message_type": "tool_call",
         "tool_name": {"x": 1}, "server_name": [1], "message": {"content": []}},
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    vcon, report = convert(data, created=CREATED, server="s")
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation", "tool-result"]
    assert _count(report) == 3


def test_inspector_entry_with_an_object_for_a_method_never_crashes() -> None:
    """An Inspector entry whose message names its method with an object (broken or hostile
    input) and carries an inline response is counted, not a crash of the whole import."""
    entries = json.loads(INSPECTOR.read_text(encoding="utf-8"))
    entries.insert(0, {"id": "x", "timestamp": "2026-03-02T10:00:00Z", "direction": "request",
                       "message": {"jsonrpc": "2.0", "id": 99, "method": {"x": 1}},
                       "response": {"jsonrpc": "2.0", "id": 99, "result": {}}})
    vcon, report = convert(json.dumps(entries).encode(), created=CREATED)
    assert [o["operation_id"] for o in vcon["events"]][:1] == ["op-0001"]
    assert _count(report) == 12


def test_cancelling_a_request_that_is_not_a_call_is_not_tool_traffic() -> None:
    """2026-07-28 (basic/patterns/cancellation): a server ends a subscriptions/listen stream
    with notifications/cancelled naming that request; a client may stop waiting on a
    tasks/result. Neither cancels a tool: counted as ignored, not as unreadable input, and
    the call is untouched."""
    data = _bare(
        {"id": 1, "method": "subscriptions/listen", "params": {}},
        {"id": 2, "method": "tools/call", "params": {"name": "a", "arguments": {}}},
        {"method": "notifications/cancelled", "params": {"requestId": 1}},
        {"id": 2, "result": {"content": []}},
    )
    vcon, report = convert(data, created=CREATED, server="s")
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation", "tool-result"]
    assert report.unmapped == 0
    assert report.ignored["notifications/cancelled for a request that is not a tools/call"] == 1


def test_agent_vcr_as_its_recorder_writes_it() -> None:
    """agent-vcr's recorder saves ``recording.model_dump(mode="json")`` (recorder.py,
    core/format.py): every member of its pydantic models is written, absent ones as null,
    so a success is ``{"result": {...}, "error": null}``, an error ``{"result": null,
    "error": {...}}`` and a request without params has ``"params": null``. A null member is
    absent (as in the vCon reading): the successful call completes, the error errs; before,
    every successful call of a real recording showed Errored with a null error. Its
    ``direction`` is "server_to_client" whenever a response was recorded (session.py): the
    request is still the client's."""
    def resp(rid: int, result: Any = None, error: Any = None) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": rid, "result": result, "error": error}

    def call(rid: int, name: str, args: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                "params": {"name": name, "arguments": args}}

    doc = {"format_version": "1.0.0", "metadata": {
        "version": "1.0", "recorded_at": "2026-02-08T16:00:00.000000", "transport": "stdio",
        "client_info": {}, "server_info": {}, "server_command": "python",
        "server_args": ["calc.py"], "tags": {}, "session_id": None, "endpoint_id": None,
        "agent_id": None},
        "session": {
            "initialize_request": {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                   "params": {"clientInfo": {"name": "c", "version": "1"}}},
            "initialize_response": resp(0, {"serverInfo": {"name": "calc", "version": "1"}}),
            "capabilities": {},
            "interactions": [
                {"sequence": 0, "timestamp": "2026-02-08T16:00:01.000000",
                 "direction": "server_to_client", "request": {
                     "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": None},
                 "response": resp(1, {"tools": []}), "notifications": [], "latency_ms": 2.0},
                {"sequence": 1, "timestamp": "2026-02-08T16:00:02.000000",
                 "direction": "server_to_client", "request": call(2, "add", {"a": 1, "b": 2}),
                 "response": resp(2, {"content": [{"type": "text", "text": "3"}]}),
                 "notifications": [], "latency_ms": 5.2},
                {"sequence": 2, "timestamp": "2026-02-08T16:00:03.000000",
                 "direction": "server_to_client", "request": call(3, "divide", {"a": 1, "b": 0}),
                 "response": resp(3, None, {"code": -32603, "message": "Division by zero",
                                            "data": None}),
                 "notifications": [], "latency_ms": 1.0}]}}
    vcon, report = convert(json.dumps(doc).encode(), created=CREATED)
    m = model_of(vcon)
    assert [(o.tool, o.outcome) for o in m.operations] == [("add", "completed"),
                                                           ("divide", "errored")]
    err = next(e for e in vcon["events"] if e["type"] == "tool-error")
    assert err["body"]["message"] == "Division by zero"
    assert report.unmapped == 0
    # its direction says an answer was recorded (session.py), not the request's way
    assert not any("turned round" in w for w in report.warnings)


def test_a_401_before_the_session_is_not_a_tool_denial_nor_unreadable() -> None:
    """basic/authorization: a server that needs a token answers the client's first request
    (initialize) with HTTP 401 and no JSON-RPC body. That is the authorization step, not a
    tool's denial: counted as ignored. A 403 on a tools/call is still tool-denied."""
    lines = [
        {"ts": "2026-03-02T10:00:00Z", "dir": "c2s", "msg": {
            "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}},
        {"ts": "2026-03-02T10:00:00.100Z", "dir": "s2c", "http_status": 401, "msg": None,
         "reply_to": 0},
        {"ts": "2026-03-02T10:00:05Z", "dir": "c2s", "msg": _call(1, "echo", task=False)},
        {"ts": "2026-03-02T10:00:05.100Z", "dir": "s2c", "http_status": 403, "msg": None,
         "reply_to": 1},
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    vcon, report = convert(data, created=CREATED, server="s")
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation", "tool-denied"]
    assert report.unmapped == 0
    assert report.ignored["HTTP 401 for a request that is not a tools/call"] == 1


def test_ts_dir_lines_holding_the_message_under_message() -> None:
    """A {ts, dir, message} line (the message under ``message`` rather than ``msg``) was
    recognised as MCP traffic by the sniffer and then refused by the reader, every line
    'neither a JSON-RPC message nor {ts, dir, msg}': it is read as {ts, dir, msg}."""
    lines = [
        {"ts": "2026-03-02T10:00:00Z", "dir": "c2s", "message": _call(1, "a", task=False)},
        {"ts": "2026-03-02T10:00:01Z", "dir": "s2c",
         "message": {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}},
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    vcon, report = convert(data, created=CREATED, server="s")
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation", "tool-result"]
    assert report.unmapped == 0


def test_agent_vcr_times_as_its_recorder_stamps_them() -> None:
    """agent-vcr's format says ``latency_ms`` is the time between request and response
    (core/format.py), and its own example cassettes read so (request at ``timestamp``, answer
    ``latency_ms`` later: ``test_agent_vcr_cassette``). Its recorder writes something else
    (recorder.py, core/session.py): it records an interaction when the answer arrives, stamps
    it then, and sets ``latency_ms`` to the time since the interaction recorded before (0 for
    the first). Read as the format says, a real file put each answer that much after the call,
    past the calls that followed (a call made a minute after the last one "took" a minute).
    When every latency is the gap to the interaction before, the file is the recorder's: each
    answer is at its timestamp, and so is its request (whose own time is not recorded), and
    the import says so."""
    def inter(seq: int, ts: str, lat: float, rid: int, tool: str) -> dict[str, Any]:
        return {"sequence": seq, "timestamp": ts, "direction": "server_to_client",
                "request": {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                            "params": {"name": tool, "arguments": {}}},
                "response": {"jsonrpc": "2.0", "id": rid, "error": None,
                             "result": {"content": [{"type": "text", "text": "ok"}]}},
                "notifications": [], "latency_ms": lat}

    doc = {"format_version": "1.0.0", "metadata": {
        "version": "1.0", "recorded_at": "2026-02-08T16:00:00.000000", "transport": "stdio",
        "client_info": {}, "server_info": {"name": "calc"}},
        "session": {"initialize_request": {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                           "params": {}},
                    "initialize_response": {"jsonrpc": "2.0", "id": 0, "result": {}},
                    "capabilities": {},
                    "interactions": [
                        inter(0, "2026-02-08T16:00:01.000000", 0.0, 1, "a"),
                        inter(1, "2026-02-08T16:01:01.000000", 60000.0, 2, "b"),
                        inter(2, "2026-02-08T16:01:03.500000", 2500.0, 3, "c")]}}
    vcon, report = convert(json.dumps(doc).encode(), created=CREATED)
    assert [(e["type"], e["time"][11:]) for e in vcon["events"]] == [
        ("tool-invocation", "16:00:01.000Z"), ("tool-result", "16:00:01.000Z"),
        ("tool-invocation", "16:01:01.000Z"), ("tool-result", "16:01:01.000Z"),
        ("tool-invocation", "16:01:03.500Z"), ("tool-result", "16:01:03.500Z")]
    assert any("when its answer arrived" in w for w in report.warnings)
    # one latency that is not the gap: read as the format says
    doc["session"]["interactions"][2]["latency_ms"] = 40.0
    vcon, report = convert(json.dumps(doc).encode(), created=CREATED)
    assert vcon["events"][5]["time"] == "2026-02-08T16:01:03.540Z"
    assert vcon["events"][3]["time"] == "2026-02-08T16:02:01.000Z"
    assert not any("when its answer arrived" in w for w in report.warnings)


# --- VS Code's MCP output channel ("MCP: <server>") --------------------------------------------
# VS Code's extension host logs each message to the server's output channel: older builds
# '[Client Says] ' + message and '[Server Says] ' + each stdout line (src/vs/workbench/api/node/
# extHostMcpNode.ts), newer ones '[editor -> server] ' + JSON and '[server -> editor] ' + JSON
# (mcpServerRequestHandler.ts), each line after the channel's "YYYY-MM-DD HH:MM:SS.mmm [level]".
# The first test's two lines have the shape of the log posted in microsoft/vscode issue #244377
# (its values changed).

VSCODE_244377 = (
    '2025-03-23 16:38:00.970 [info] [Client Says] {"jsonrpc":"2.0","id":4,"method":"tools/call",'
    '"params":{"name":"validate_username","arguments":{"username":"alice"}}}\n'
    '2025-03-23 16:38:00.989 [info] [Server Says] {"jsonrpc":"2.0","id":4,"result":{"content":'
    '[{"type":"text","text":"{\\"is_valid\\": false}"}],"isError":false}}\n')


def test_vscode_mcp_output_channel_log() -> None:
    """Reviewer: one call of validate_username, completed at 16:38:00.989 (the tool answered
    with isError false; its text is its own), the times read as UTC and said so. Before: the
    file was refused ('not a recording vcon-view imports')."""
    vcon, report = convert(VSCODE_244377.encode(), source_name="mcp.log", created=CREATED)
    m = model_of(vcon)
    assert [(o.tool, o.outcome) for o in m.operations] == [("validate_username", "completed")]
    evs = vcon["events"]
    assert [e["type"] for e in evs] == ["tool-invocation", "tool-result"]
    assert evs[1]["time"].startswith("2025-03-23T16:38:00.989")
    assert report.mapped == 2 and report.unmapped == 0
    assert any("zone" in w for w in report.warnings)


def test_vscode_mcp_output_channel_newer_arrows_and_noise() -> None:
    """The newer arrows, a JSON-RPC error, the channel's own lines (state changes, server
    stderr) counted as ignored, never as calls."""
    lines = [
        "2026-03-02 09:00:00.000 [info] Starting server weather",
        "2026-03-02 09:00:00.100 [info] Connection state: Running",
        '2026-03-02 09:00:01.000 [debug] [editor -> server] {"jsonrpc":"2.0","id":7,"method":'
        '"tools/call","params":{"name":"forecast","arguments":{"city":"Oslo"}}}',
        "2026-03-02 09:00:01.200 [warning] [server stderr] fetching Oslo",
        '2026-03-02 09:00:01.500 [debug] [server -> editor] {"jsonrpc":"2.0","id":7,"error":'
        '{"code":-32602,"message":"unknown city"}}',
    ]
    vcon, report = convert("\n".join(lines).encode(), created=CREATED)
    m = model_of(vcon)
    assert [(o.tool, o.outcome) for o in m.operations] == [("forecast", "errored")]
    assert report.mapped == 2 and sum(report.ignored.values()) == 3


def _spy(ts: str, typ: str, msg: dict[str, Any], client: bool) -> dict[str, Any]:
    """A record as MCPSpy writes it (its --output JSONL; loncarales/MCPSpy
    tests/expected_output_stdio.jsonl @ 7e77671d…, the tool's own golden output of an eBPF
    capture): the message's members flattened beside timestamp, transport_type,
    stdio_transport and type, an ``error`` of {} on every record that has none (a JSON-RPC
    error's code left out), and the message as it went over the wire in ``raw``."""
    pids = {"from_pid": 488671, "from_comm": "python", "to_pid": 488673, "to_comm": "python"}
    if not client:
        pids = {"from_pid": 488674, "from_comm": "python", "to_pid": 488671,
                "to_comm": "python"}
    rec: dict[str, Any] = {"timestamp": ts, "transport_type": "stdio",
                           "stdio_transport": pids, "type": typ}
    rec.update({k: v for k, v in msg.items() if k in ("id", "method", "params", "result")})
    err = msg.get("error")
    rec["error"] = {"message": err["message"]} if isinstance(err, dict) else {}
    rec["raw"] = json.dumps(msg, separators=(",", ":"))
    return rec


def test_mcpspy_records_read_by_their_raw_message() -> None:
    """MCPSpy (eBPF capture of MCP traffic) writes ``"error": {}`` on every record, also on
    a successful response. Before, a reviewer saw both tools/call of its own golden capture
    (get_weather -> 'Weather in New York: 20°C', isError false; process_data_with_progress
    -> 'Processed 3 items', isError false) as errored, and the resources/read error line as
    not mapped. By hand: both calls completed with their results, at the captured times; the
    server is 'Comprehensive MCP Demo Server' (its serverInfo); nothing unmapped."""
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "mcp", "version": "0.1.0"}}}
    init_r = {"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "Comprehensive MCP Demo Server", "version": "1.12.0"}}}
    read = {"jsonrpc": "2.0", "id": 5, "method": "resources/read",
            "params": {"uri": "file://logs/nonexistent.txt"}}
    read_r = {"jsonrpc": "2.0", "id": 5, "error": {
        "code": 0, "message": "Unknown log file: nonexistent.txt"}}
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "get_weather", "arguments": {"city": "New York", "units": "metric"}}}
    call_r = {"jsonrpc": "2.0", "id": 7, "result": {
        "content": [{"type": "text", "text": "Weather in New York: 20°C"}],
        "structuredContent": {"result": "Weather in New York: 20°C"}, "isError": False}}
    call2 = {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
        "name": "process_data_with_progress",
        "arguments": {"data": ["item1"], "operation": "uppercase"}}}
    note = {"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": "Starting uppercase operation on 1 items"}}
    call2_r = {"jsonrpc": "2.0", "id": 8, "result": {
        "content": [{"type": "text", "text": "Processed 1 items"}], "isError": False}}
    recs = [_spy("2025-07-28T18:59:13.995551345+03:00", "request", init, True),
            _spy("2025-07-28T18:59:13.997413554+03:00", "response", init_r, False),
            _spy("2025-07-28T18:59:14.00845341+03:00", "request", read, True),
            _spy("2025-07-28T18:59:14.009788645+03:00", "response", read_r, False),
            _spy("2025-07-28T18:59:14.012255233+03:00", "request", call, True),
            _spy("2025-07-28T18:59:14.014437907+03:00", "response", call_r, False),
            _spy("2025-07-28T18:59:14.015447664+03:00", "request", call2, True),
            _spy("2025-07-28T18:59:14.017050723+03:00", "notification", note, False),
            _spy("2025-07-28T18:59:14.32007819+03:00", "response", call2_r, False)]
    data = "\n".join(json.dumps(r, ensure_ascii=False) for r in recs).encode()
    from viewer.importers import formats
    assert formats.detect(data).name == "mcp"
    vcon, rep = convert(data, source_name="spy.jsonl")
    m = model_of(vcon)
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("Comprehensive MCP Demo Server", "get_weather", "completed"),
        ("Comprehensive MCP Demo Server", "process_data_with_progress", "completed")]
    ev = vcon["events"]
    assert ev[0]["time"] == "2025-07-28T15:59:14.012Z"
    assert rep.unmapped == 0
    no_errors(m)


def test_gh_aw_mcp_gateway_rpc_messages_are_read_per_server() -> None:
    """GitHub Agentic Workflows' MCP gateway (github/gh-aw-mcpg internal/logger
    jsonl_logger.go, rpc_logger.go) logs every message it relays to
    /tmp/gh-aw/mcp-logs/rpc-messages.jsonl: {timestamp, type REQUEST|RESPONSE (schema v2:
    event rpc_request|rpc_response, _schema), direction OUT (to the server) | IN, server_id,
    error (the gateway's own, the payload then null), payload (the JSON-RPC message)}, and
    DIFC_FILTERED records (items its integrity policy withheld). The file was refused as no
    known format. Each server numbers its own requests (github's and safeoutputs' ids are both
    1), and older gateways log a request without its id (connection.go marshals only jsonrpc,
    method and params). By hand, v2 (2026-08-15 23:48): github list_issues {owner, repo}
    40.100-40.350 completed; safeoutputs add_comment {body} 41.000-41.040 failed (isError
    "denied"); github issue_read {number: 1} 42.233, no answer but the gateway's "backend
    connection failed" at 47.233: errored; github get_me 48.000-48.300 completed (its answer
    carries the gateway's id 7, not the request's). The DIFC records are no calls. v1 (the
    gh-aw test's own lines): github list_issues 10:00:01.0-01.2 completed."""
    vcon, rep = imported(FIX / "variants" / "gh_aw_mcpg_rpc_messages_v2.jsonl")
    m = model_of(vcon)
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("github", "list_issues", "completed"), ("safeoutputs", "add_comment", "failed"),
        ("github", "issue_read", "errored"), ("github", "get_me", "completed")]
    ev = [(e["type"], e["time"][11:23]) for e in vcon["events"]]
    assert ev == [("tool-invocation", "23:48:40.100"), ("tool-result", "23:48:40.350"),
                  ("tool-invocation", "23:48:41.000"), ("tool-failure", "23:48:41.040"),
                  ("tool-invocation", "23:48:42.233"), ("tool-error", "23:48:47.233"),
                  ("tool-invocation", "23:48:48.000"), ("tool-result", "23:48:48.300")]
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert inv[0]["body"] == {"owner": "github", "repo": "gh-aw"}
    err = next(e for e in vcon["events"] if e["type"] == "tool-error")
    assert "backend connection failed" in json.dumps(err)
    assert rep.unmapped == 0 and rep.ignored.get("gateway DIFC_FILTERED record") == 1
    assert any("DIFC" in w for w in rep.warnings)
    vcon, rep = imported(FIX / "variants" / "gh_aw_mcpg_rpc_messages_v1.jsonl")
    assert [(o.server, o.tool, o.outcome) for o in model_of(vcon).operations] == [
        ("github", "list_issues", "completed")]
    assert rep.ignored.get("gateway DIFC_FILTERED record") == 2


def test_gh_aw_mcp_gateway_error_only_response_ends_the_open_call() -> None:
    """The gateway logs its own failure to reach a server (connection.go: LogRPCResponse with
    the error and no payload) right after the request it relayed, whether or not that request
    carries an id: a tools/call with id 3 then `error: "backend connection failed"`, payload
    null, was left Running and the error counted as not mapped. By hand: github issue_read,
    errored, the error's message the gateway's."""
    recs = [
        {"timestamp": "2026-08-15T23:48:42.233Z", "event": "rpc_request",
         "_schema": "rpc-message/v2", "direction": "OUT", "server_id": "github",
         "method": "tools/call", "payload": {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                             "params": {"name": "issue_read",
                                                        "arguments": {"number": 1}}}},
        {"timestamp": "2026-08-15T23:48:47.233Z", "event": "rpc_response",
         "_schema": "rpc-message/v2", "direction": "IN", "server_id": "github",
         "error": "backend connection failed", "payload": None}]
    vcon, rep = convert(b"\n".join(json.dumps(r).encode() for r in recs) + b"\n",
                        source_name="rpc-messages.jsonl", created=CREATED)
    assert [(o.tool, o.outcome) for o in model_of(vcon).operations] == [("issue_read", "errored")]
    assert rep.unmapped == 0
    err = next(e for e in vcon["events"] if e["type"] == "tool-error")
    assert "backend connection failed" in json.dumps(err)


#: Licence of the three quotes below: users' logs pasted in public GitHub issues, no licence
#: stated; kept as quoted, for the shape of Cursor's lines only (tests/fixtures/SOURCES.md).
#: Cursor's combined "Cursor MCP.log" (2025 builds, window1/exthost/anysphere.cursor-always-local/),
#: as quoted by a user in AgentDeskAI/browser-tools-mcp#34 (2025-03-02, `tail -F` of the file):
#: verbatim, the tag `db10:` is Cursor's short name for the server. The excerpt ends after
#: the third call's "getOrCreateClient" line.
CURSOR_34 = """\
2025-02-25 01:21:18.277 [info] db10: Handling CallTool action for tool 'getConsoleLogs'
2025-02-25 01:21:18.278 [info] db10: Calling tool 'getConsoleLogs'
2025-02-25 01:21:18.278 [info] db10: getOrCreateClient for stdio server
2025-02-25 01:21:18.278 [info] db10: Reusing existing stdio client
2025-02-25 01:21:18.354 [info] db10: Successfully called tool 'getConsoleLogs'
2025-02-25 01:21:21.790 [info] db10: Handling CallTool action for tool 'getConsoleErrors'
2025-02-25 01:21:21.790 [info] db10: Calling tool 'getConsoleErrors'
2025-02-25 01:21:21.790 [info] db10: getOrCreateClient for stdio server
2025-02-25 01:21:21.790 [info] db10: Reusing existing stdio client
2025-02-25 01:21:21.796 [info] db10: Successfully called tool 'getConsoleErrors'
2025-02-25 01:21:25.425 [info] db10: Handling CallTool action for tool 'getNetworkErrors'
2025-02-25 01:21:25.426 [info] db10: Calling tool 'getNetworkErrors'
2025-02-25 01:21:25.426 [info] db10: getOrCreateClient for stdio server
"""
#: The failure line as quoted in upstash/context7-legacy#41 (2025-04-20, verbatim, last line);
#: the two lines before it are written here in the shape of CURSOR_34 (its call's own lines
#: were not quoted).
CURSOR_CONTEXT7_41 = """\
2025-04-20 10:22:07.301 [info] ext7: Handling CallTool action for tool 'resolve_library_id'
2025-04-20 10:22:07.302 [info] ext7: Calling tool 'resolve_library_id'
2025-04-20 10:22:07.324 [error] ext7: Error calling tool 'resolve_library_id': MCP error -32602: \
MCP error -32602: Tool resolve_library_id not found
"""
#: A per-server channel of a newer build (Cursor 2.1.50, no tag: one server a channel), as
#: quoted in GuDaStudio/codexmcp#30 (2025-12-09, verbatim up to its cut): the server's stderr
#: is logged at [error] level (a Python server's INFO lines, wrapped), and the excerpt ends
#: before any answer to the call.
_CODEX_STDERR = ("2025-12-09 11:34:34.852 [error] [12/09/25 11:34:34] INFO     Processing "
                 "request of type            server.py:709\n"
                 + " " * 29 + "CallToolRequest" + " " * 36 + "\n")
CURSOR_CODEXMCP_30 = (
    "2025-12-09 11:33:42.128 [info] Found 1 tools, 0 prompts, and 0 resources\n"
    "2025-12-09 11:34:08.200 [info] Handling GetInstructions action\n"
    "2025-12-09 11:34:34.842 [info] Handling CallTool action for tool 'codex'\n"
    "2025-12-09 11:34:34.842 [info] Calling tool 'codex' with toolCallId: "
    "toolu_01847rL4k7zubLqrzgp9oM8W\n"
    + _CODEX_STDERR + "\n" + _CODEX_STDERR)


def test_cursor_mcp_log_calls_answered_as_logged() -> None:
    """Cursor's MCP log was refused ('no MCP JSON-RPC message'). A reviewer of CURSOR_34
    should see three calls on the server the log tags db10, at the logged times (no zone in
    the log: read as UTC, said so): two completed, marked inferred since the log does not
    record isError, the third still running (the excerpt ends before its answer); each
    invocation holds the log's own words (no arguments are logged), and Cursor's other lines
    are counted as ignored."""
    from viewer.importers.formats import detect

    data = CURSOR_34.encode()
    fmt = detect(data)
    assert fmt is not None and fmt.name == "mcp"
    vcon, report = convert(data, source_name="Cursor MCP.log", created=CREATED)
    m = model_of(vcon)
    assert [d for d in m.diagnostics if d.severity == "error"] == []
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("db10", "getConsoleLogs", "completed"),
        ("db10", "getConsoleErrors", "completed"),
        ("db10", "getNetworkErrors", "running")]
    evs = vcon["events"]
    assert [(e["type"], e["operation_id"], e["time"]) for e in evs] == [
        ("tool-invocation", "op-0001", "2025-02-25T01:21:18.278Z"),
        ("tool-result", "op-0001", "2025-02-25T01:21:18.354Z"),
        ("tool-invocation", "op-0002", "2025-02-25T01:21:21.790Z"),
        ("tool-result", "op-0002", "2025-02-25T01:21:21.796Z"),
        ("tool-invocation", "op-0003", "2025-02-25T01:21:25.426Z")]
    assert evs[0]["body"] == "Calling tool 'getConsoleLogs'"
    assert evs[1]["body"] == "Successfully called tool 'getConsoleLogs'"
    assert "isError" in evs[1]["inferred"]
    assert "inferred" not in evs[0]
    assert report.mapped == 5 and report.unmapped == 0 and _count(report) == 13
    assert any("zone" in w for w in report.warnings)
    assert any("isError" in w for w in report.warnings)


def test_cursor_mcp_log_error_line_is_the_calls_error() -> None:
    """context7-legacy#41: `Error calling tool 'X': MCP error -32602: …` ends the open call
    of X with a tool-error (the JSON-RPC error code as logged, the log's text as its
    message), never a result."""
    vcon, report = convert(CURSOR_CONTEXT7_41.encode(), source_name="Cursor MCP.log",
                           created=CREATED)
    m = model_of(vcon)
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("ext7", "resolve_library_id", "errored")]
    err = vcon["events"][1]
    assert err["type"] == "tool-error" and err["time"] == "2025-04-20T10:22:07.324Z"
    assert err["body"] == {"code": -32602, "message": "MCP error -32602: MCP error -32602: "
                                                      "Tool resolve_library_id not found"}
    assert report.mapped == 2 and report.unmapped == 0
    assert any("records no arguments, results or isError" in w for w in report.warnings)


def test_cursor_mcp_channel_stderr_at_error_level_is_not_a_failure() -> None:
    """codexmcp#30: a per-server channel (no tag) whose server writes its INFO lines to
    stderr, which Cursor logs at [error]: the call keeps its toolCallId in the logged words
    and stays running (nothing answered it in the excerpt), the stderr lines are ignored,
    never an error; the server is not named in the channel (unknown, --server names it)."""
    vcon, report = convert(CURSOR_CODEXMCP_30.encode(), source_name="MCP user-codex.log",
                           created=CREATED)
    m = model_of(vcon)
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("unknown-mcp-server", "codex", "running")]
    assert vcon["events"][0]["body"] == (
        "Calling tool 'codex' with toolCallId: toolu_01847rL4k7zubLqrzgp9oM8W")
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation"]
    assert report.mapped == 1 and report.unmapped == 0
    vcon, _ = convert(CURSOR_CODEXMCP_30.encode(), server="codex", created=CREATED)
    assert [o.server for o in model_of(vcon).operations] == ["codex"]


def test_cursor_mcp_log_answer_with_no_open_call_is_not_mapped() -> None:
    """A `Successfully called tool` line for a tool with no open call is counted as not
    mapped, never made a call; two open calls of one tool are answered oldest first, the
    pairing marked inferred."""
    text = (
        "2025-02-25 01:21:18.000 [info] db10: Successfully called tool 'other'\n"
        "2025-02-25 01:21:18.100 [info] db10: Calling tool 'a'\n"
        "2025-02-25 01:21:18.200 [info] db10: Calling tool 'a'\n"
        "2025-02-25 01:21:18.300 [info] db10: Successfully called tool 'a'\n")
    vcon, report = convert(text.encode(), created=CREATED)
    m = model_of(vcon)
    assert [(o.tool, o.outcome) for o in m.operations] == [("a", "completed"), ("a", "running")]
    assert report.unmapped == 1
    res = next(e for e in vcon["events"] if e["type"] == "tool-result")
    assert res["operation_id"] == "op-0001" and "oldest" in res["inferred"]


#: Licence of the two quotes below: users' logs pasted in public GitHub issues and a project's
#: README, kept as quoted for the shape of the lines only (tests/fixtures/SOURCES.md).
#: Claude Desktop's mcp.log as quoted in supermemoryai/apple-mcp#53 (2025-06-09, verbatim, last
#: line): the MCP TypeScript SDK's request timeout (src/shared/protocol.ts: after 60 s without an
#: answer, McpError(ErrorCode.RequestTimeout = -32001, "Request timed out"), and it sends
#: notifications/cancelled whose reason is String(error)). The tools/call line before it is
#: written here in the shape of the log (the issue shows the call, `reminders` with
#: `{"operation": "list"}`, as the chat displayed it; id 25 is the cancel's), 60 s before.
APPLE_MCP_53 = """\
2025-06-09T15:17:27.219Z [info] [apple-mcp] Message from client: {"method":"tools/call","params":\
{"name":"reminders","arguments":{"operation":"list"}},"jsonrpc":"2.0","id":25}
2025-06-09T15:18:27.222Z [info] [apple-mcp] Message from client: {"jsonrpc":"2.0","method":\
"notifications/cancelled","params":{"requestId":25,"reason":"Error: MCP error -32001: Request \
timed out"}}
"""
#: Cursor's error line for the same SDK timeout, as opendatalab/MinerU projects/mcp/README.md
#: (§8.4, AGPL-3.0) quotes it for its `parse_documents` tool (verbatim); the time, tag and the
#: call line before it are written here in the shape of CURSOR_34.
CURSOR_MINERU = """\
2025-05-10 09:00:00.000 [info] m1: Calling tool 'parse_documents'
2025-05-10 09:01:00.004 [error] m1: Error calling tool 'parse_documents': MCP error -32001: \
Request timed out
"""


def test_sdk_timeout_cancel_is_a_timeout_then_a_cancel() -> None:
    """apple-mcp#53: the client's notifications/cancelled whose reason is the SDK's own
    request timeout was shown as a cancel only. A reviewer should see that the client stopped
    waiting (tool-timeout, the draft's "no message; the client stops waiting", holding the
    reason as its detail), then asked the server to stop (tool-cancel, the notification's
    params), both at the notification's time: Running, Timed Out, Cancel Requested. One
    message, counted once."""
    vcon, report = convert(APPLE_MCP_53.encode(), source_name="mcp.log", created=CREATED)
    m = model_of(vcon)
    no_errors(m)
    assert shape(m) == [("op-0001", "cancel-requested",
                         [["Running", "Timed Out", "Cancel Requested"]])]
    evs = vcon["events"]
    assert [(e["type"], e["time"]) for e in evs] == [
        ("tool-invocation", "2025-06-09T15:17:27.219Z"),
        ("tool-timeout", "2025-06-09T15:18:27.222Z"),
        ("tool-cancel", "2025-06-09T15:18:27.222Z")]
    assert evs[1]["body"] == "Error: MCP error -32001: Request timed out"
    assert evs[2]["body"] == {"requestId": 25,
                              "reason": "Error: MCP error -32001: Request timed out"}
    assert report.mapped == 2 and report.unmapped == 0 and report.ignored == {}


def test_sdk_timeout_then_the_servers_late_answer() -> None:
    """The server's answer after the client timed out is recorded (the draft: a tool may
    still respond after the agent timed out or asked it to stop), a late response the client
    no longer waited for; a cancel whose reason is not a timeout stays a cancel only."""
    late = (APPLE_MCP_53 + '2025-06-09T15:18:40.100Z [info] [apple-mcp] Message from server: '
            '{"jsonrpc":"2.0","id":25,"result":{"content":[{"type":"text","text":"[]"}]}}\n')
    vcon, _ = convert(late.encode(), source_name="mcp.log", created=CREATED)
    m = model_of(vcon)
    assert shape(m) == [("op-0001", "completed",
                         [["Running", "Timed Out", "Cancel Requested", "Completed"]])]
    assert m.operations[0].late_responses == 1
    user = APPLE_MCP_53.replace("Error: MCP error -32001: Request timed out", "User cancelled")
    vcon, _ = convert(user.encode(), source_name="mcp.log", created=CREATED)
    assert [e["type"] for e in vcon["events"]] == ["tool-invocation", "tool-cancel"]


def test_elicitation_after_the_sdk_timeout_is_context() -> None:
    """After the client stopped waiting, the server's elicitation/create for the call is not
    a tool-input (the draft: only from Running or Pending): counted as ignored, kept as a
    note, and the attempt stays Cancel Requested."""
    text = (APPLE_MCP_53 + '2025-06-09T15:18:30.000Z [info] [apple-mcp] Message from server: '
            '{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"Which '
            'list?","requestedSchema":{"type":"object","properties":{}}}}\n')
    vcon, report = convert(text.encode(), source_name="mcp.log", created=CREATED)
    assert shape(model_of(vcon)) == [("op-0001", "cancel-requested",
                                      [["Running", "Timed Out", "Cancel Requested"]])]
    assert report.ignored == {"elicitation/create after a cancellation": 1}


def test_server_error_minus_32001_on_the_wire_is_its_answer() -> None:
    """-32001 is the SDK's local code, but a JSON-RPC error response in a capture is a message
    the server sent (a proxy may forward its own upstream's timeout): it stays a tool-error,
    never the client's timeout."""
    lines = [
        {"ts": "2026-04-01T10:00:00.000Z", "dir": "c2s",
         "msg": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "slow", "arguments": {}}}},
        {"ts": "2026-04-01T10:01:00.000Z", "dir": "s2c",
         "msg": {"jsonrpc": "2.0", "id": 1,
                 "error": {"code": -32001, "message": "Request timed out"}}}]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    vcon, _ = convert(data, created=CREATED)
    assert shape(model_of(vcon)) == [("op-0001", "errored", [["Running", "Errored"]])]


def test_cursor_mcp_log_sdk_timeout_is_the_clients_timeout() -> None:
    """MinerU's README quotes Cursor's `Error calling tool 'X': MCP error -32001: Request timed
    out`: the client's SDK gave up waiting (no server message says so), shown today as the
    server's tool-error. A reviewer should see a tool-timeout holding the log's words, the
    attempt Timed Out (the log says nothing of an answer after it), never Errored."""
    vcon, report = convert(CURSOR_MINERU.encode(), source_name="Cursor MCP.log",
                           created=CREATED)
    m = model_of(vcon)
    assert [d for d in m.diagnostics if d.severity == "error"] == []
    assert shape(m) == [("op-0001", "timed-out", [["Running", "Timed Out"]])]
    ev = vcon["events"][1]
    assert ev["type"] == "tool-timeout" and ev["time"] == "2025-05-10T09:01:00.004Z"
    assert ev["body"] == ("Error calling tool 'parse_documents': MCP error -32001: "
                          "Request timed out")
    assert report.mapped == 2 and report.unmapped == 0


#: MCP 2025-11-25 client/elicitation "URL Elicitation Required Error": the error response as
#: the specification gives it (verbatim, its comment left out; /work/shared/spec/mcp/2025-11-25,
#: modelcontextprotocol/modelcontextprotocol, MIT), in its flow "URL Mode With Elicitation
#: Required Error" (tools/call, the error, notifications/elicitation/complete, the retried
#: tools/call), as AWS AgentCore Gateway's exception-based URL mode uses it for a target's
#: OAuth ("the request closes, the user completes the action at the URL, then the client
#: retries the original tool call", its gateway-mcp-elicitation guide). The tool, its
#: arguments, ids and times are written here.
_URL_ELICITATION_ERROR = {
    "code": -32042,
    "message": "This request requires more information.",
    "data": {"elicitations": [{
        "mode": "url",
        "elicitationId": "550e8400-e29b-41d4-a716-446655440000",
        "url": "https://mcp.example.com/connect?elicitationId="
               "550e8400-e29b-41d4-a716-446655440000",
        "message": "Authorization is required to access your Example Co files."}]}}


def _url_elicitation_flow(retry_args: dict[str, Any] | None) -> bytes:
    call = {"name": "list_files", "arguments": {"folder": "reports"}}
    lines: list[dict[str, Any]] = [
        {"ts": "2026-03-01T10:00:00.000Z", "dir": "c2s",
         "msg": {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}},
        {"ts": "2026-03-01T10:00:00.300Z", "dir": "s2c",
         "msg": {"jsonrpc": "2.0", "id": 2, "error": _URL_ELICITATION_ERROR}},
        {"ts": "2026-03-01T10:00:41.000Z", "dir": "s2c",
         "msg": {"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
                 "params": {"elicitationId": "550e8400-e29b-41d4-a716-446655440000"}}}]
    if retry_args is not None:
        lines += [
            {"ts": "2026-03-01T10:00:41.200Z", "dir": "c2s",
             "msg": {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                     "params": {"name": "list_files", "arguments": retry_args}}},
            {"ts": "2026-03-01T10:00:41.900Z", "dir": "s2c",
             "msg": {"jsonrpc": "2.0", "id": 3,
                     "result": {"content": [{"type": "text", "text": "q3.pdf"}]}}}]
    return b"\n".join(json.dumps(x).encode() for x in lines) + b"\n"


def test_url_elicitation_required_then_retry_is_one_operation() -> None:
    """-32042 is a JSON-RPC error response: the draft's mapping makes it a tool-error (a
    policy-decision is the host's, never a tool's answer; tool-denied is for a denial the
    protocol identifies, HTTP 401/403), the elicitations kept in its body. The client's
    retry of the same tool and arguments once the user finished at the URL is the next
    attempt of that operation (the draft: an agent may retry after any ended attempt), as
    after HTTP 401/403. Before: two operations, an errored call and an unrelated completed
    one. A reviewer should see: list_files, attempt 1 errored (URL elicitation required,
    with its URL), attempt 2 completed; the completion notification kept as context."""
    vcon, report = convert(_url_elicitation_flow({"folder": "reports"}), created=CREATED)
    m = model_of(vcon)
    no_errors(m)
    assert shape(m) == [("op-0001", "completed", [["Running", "Errored"],
                                                  ["Running", "Completed"]])]
    assert m.operations[0].retries == 1
    err = next(e for e in vcon["events"] if e["type"] == "tool-error")
    assert err["body"] == _URL_ELICITATION_ERROR and err["attempt"] == 1
    assert report.unmapped == 0 and report.mapped == 4 and _count(report) == 5


def test_url_elicitation_required_without_retry_or_with_other_arguments() -> None:
    """No retry: the call errored, its error holding the URL. A later call with other
    arguments is another operation, not this one's retry."""
    vcon, _ = convert(_url_elicitation_flow(None), created=CREATED)
    assert shape(model_of(vcon)) == [("op-0001", "errored", [["Running", "Errored"]])]
    vcon, _ = convert(_url_elicitation_flow({"folder": "drafts"}), created=CREATED)
    assert shape(model_of(vcon)) == [
        ("op-0001", "errored", [["Running", "Errored"]]),
        ("op-0002", "completed", [["Running", "Completed"]])]
