"""Lifting: derived operations for vCons in the three pre-draft shapes, and import vcon."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.cli import main
from viewer.importers.lift import convert_vcon, derived_view, lift
from viewer.model.build import build_model
from viewer.pipeline import open_bytes
from viewer.report.summary import summary_dict

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
GOLDEN = ROOT / "tests" / "golden" / "import"
AGENT = FIX / "import_mcp" / "agent-session__paired-agent-session.json"
SESSION = FIX / "import_mcp" / "mcp-session__mcp-session-hybrid-example.json"
PROXY = FIX / "import_proxy.vcon.json"


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_bytes())


def summary(path: Path) -> dict[str, Any]:
    return summary_dict(build_model(open_bytes(path.read_bytes(), name=path.name)))


CASES = {
    AGENT: ("/analysis/0", "agent_trace",
            [("!host", "Grep"), ("!host", "Read"), ("!host", "Edit"), ("!host", "Bash"),
             ("!host", "Bash")]),
    SESSION: ("/dialog/0", "mcp_session",
              [("web_search", "web_search"), ("computer", "execute_python"),
               ("computer", "create_file")]),
    PROXY: ("/dialog/0", "vcon-mcp-proxy",
            [("https://weather.example.com/mcp", "get_forecast"),
             ("https://weather.example.com/mcp", "get_weather")]),
    FIX / "import_proxy_agent_server.vcon.json": (
        "/dialog/0", "vcon-mcp-proxy",
        [("notes-server", t) for t in (
            "list_notes", "read_note", "read_note", "search_notes", "write_note", "read_note",
            "read_note", "search_notes", "delete_note", "list_notes")]),
}


@pytest.mark.parametrize("path", list(CASES), ids=lambda p: p.name)
def test_summary_shows_derived_operations(path: Path) -> None:
    first, shape, targets = CASES[path]
    doc = summary(path)
    assert doc["derived"]["from"][0] == first
    assert [(o["server"], o["tool"]) for o in doc["operations"]] == targets
    codes = {d["code"]: d for d in doc["diagnostics"]}
    assert codes["derived-events"]["severity"] == "info"
    assert shape in codes["derived-events"]["message"]
    assert not [d for d in doc["diagnostics"] if d["severity"] == "error"]


def test_lift_is_pure_and_marks_provenance() -> None:
    v = load(AGENT)
    before = copy.deepcopy(v)
    events, prov = lift(v)
    assert v == before
    assert len(events) == 10 and prov.shapes == ("agent_trace",)
    assert prov.event_sources[0] == "/analysis/0/body(json)/session-trace/entries/3"
    assert {e["party"] for e in events} == {1}  # the agent party (role agent)
    assert prov.add_session == {"parties": [0, 1], "start": "2026-05-14T15:20:11.000Z"}


def test_no_lifting_when_the_file_has_lifecycle_events() -> None:
    v = load(AGENT)
    v["events"] = [{"type": "tool-result", "time": "2026-05-14T15:20:00Z"}]
    assert derived_view(v) is None
    assert build_model(open_bytes(json.dumps(v).encode())).derived_from == ()


def test_agent_session_is_a_supported_critical_extension(capsys: Any) -> None:
    assert main(["check", str(AGENT)]) == 0  # critical ["agent_session"]: no exit 3
    assert "derived-events" in capsys.readouterr().out


def test_mcp_session_tool_use_without_tool_call_is_warned() -> None:
    v = load(SESSION)
    _, prov = lift(v)
    assert any("no tool_call blocks" in w for w in prov.report.warnings)


def test_mcp_session_prefers_tool_call_blocks() -> None:
    v = load(SESSION)
    msg = v["dialog"][0]["body"]["messages"][1]
    call = dict(msg["content"][1], type="tool_call")
    msg["content"].append(call)
    events, prov = lift(v)
    assert [e["tool"] for e in events if e["type"] == "tool-invocation"] == ["web_search"]
    assert prov.report.ignored  # the tool_use blocks are the model's requests


def test_agent_trace_failure_status_and_mcp_names() -> None:
    v = load(AGENT)
    body = json.loads(v["analysis"][0]["body"])
    entries = body["session-trace"]["entries"]
    entries[3]["name"] = "mcp__github__search_code"
    entries[4]["status"] = "error"
    v["analysis"][0]["body"] = json.dumps(body)
    events, _ = lift(v)
    assert (events[0]["server"], events[0]["tool"]) == ("github", "search_code")
    assert events[1]["type"] == "tool-failure"


@pytest.mark.parametrize("path", list(CASES), ids=lambda p: p.name)
def test_import_vcon_writes_the_golden_bytes(path: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``import vcon`` writes is the serialisation of the golden vCon, byte for byte: the
    derived vCon is written as built (no deep copy: it is only serialised), and its members
    shared with the parsed input are never changed on the way."""
    from viewer.report.summary import dumps

    monkeypatch.chdir(path.parent)
    out = tmp_path / "out.vcon.json"
    assert main(["import", "vcon", path.name, "-o", str(out), "-q"]) == 0
    golden = GOLDEN / f"lifted-{path.name.split('.')[0]}.vcon.json"
    assert out.read_bytes() == dumps(json.loads(golden.read_bytes()))


def test_convert_vcon_writes_the_derived_vcon_without_copying_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A deep copy of the derived vCon protected nothing (it is only serialised) and cost
    ``import vcon`` time: the vCon returned is the one ``derived_vcon`` built."""
    from viewer.importers import lift as lift_module

    built: list[dict[str, Any]] = []
    original = lift_module.derived_vcon

    def recording(*args: Any) -> dict[str, Any]:
        built.append(original(*args))
        return built[-1]

    monkeypatch.setattr(lift_module, "derived_vcon", recording)
    vcon, _ = convert_vcon(PROXY.read_bytes(), source_name=PROXY.name)
    assert vcon is built[0]


@pytest.mark.parametrize("path", list(CASES), ids=lambda p: p.name)
def test_import_vcon_round_trip(path: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.vcon.json"
    assert main(["import", "vcon", str(path), "-o", str(out), "-q"]) == 0
    written = load(out)
    assert written["uuid"] != load(path).get("uuid")
    assert written["attachments"][-1]["purpose"] == "import-provenance"
    model = build_model(open_bytes(out.read_bytes()))
    assert model.derived_from == ()  # now the file's own events
    assert [d for d in model.diagnostics if d.severity == "error"] == []
    assert len(model.operations) == len(CASES[path][2])
    vcon, _ = convert_vcon(path.read_bytes(), source_name=path.name)
    gpath = GOLDEN / f"lifted-{path.name.split('.')[0]}.vcon.json"
    text = json.dumps(vcon, indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("VCON_VIEW_UPDATE_GOLDEN") == "1":
        gpath.write_text(text, encoding="utf-8")
    assert text == gpath.read_text(encoding="utf-8")


def test_import_vcon_refuses_nothing_to_lift(tmp_path: Path) -> None:
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"vcon": "0.4.0", "uuid": "u", "dialog": []}))
    assert main(["import", "vcon", str(plain), "-o", str(tmp_path / "o.json")]) == 2
    assert not (tmp_path / "o.json").exists()


# -- vcon-mcp-proxy: direction from the message, never from the parties' roles -----------------

AGENT_SERVER = FIX / "import_proxy_agent_server.vcon.json"
# Read from the raw file by hand: initialize, tools/list, then ten tools/call from party 0
# ("Claude Desktop", role user) to party 1 ("notes-server", role agent: the MCP server),
# each answered. search_notes (id 5) gets a progress notification; write_note (id 6) an
# elicitation/create whose server id 6 collides with the open call 6, accepted by the client;
# the server pings with id 8 while call 8 is open; delete_note answers isError: true.
AGENT_SERVER_OPS = [
    ("list_notes", "completed"), ("read_note", "completed"), ("read_note", "completed"),
    ("search_notes", "completed"), ("write_note", "completed"), ("read_note", "completed"),
    ("read_note", "completed"), ("search_notes", "completed"), ("delete_note", "failed"),
    ("list_notes", "completed"),
]


def _model(v: dict[str, Any]) -> Any:
    return build_model(open_bytes(json.dumps(v).encode(), name="proxy.vcon.json"))


def _no_parties(v: dict[str, Any]) -> dict[str, Any]:
    v = copy.deepcopy(v)
    del v["parties"]
    for d in v["dialog"]:
        d.pop("parties", None)
        d.pop("originator", None)
    return v


def _both_agent(v: dict[str, Any], *, one_sender: bool = False) -> dict[str, Any]:
    v = copy.deepcopy(v)
    for p in v["parties"]:
        p["role"] = "agent"
    if one_sender:  # every dialog says party 0 sent it: the senders are not evidence
        for d in v["dialog"]:
            d["originator"], d["parties"] = 0, [0, 1]
    return v


VARIANTS = {
    "server-role-agent": lambda v: v,
    "no-parties": _no_parties,
    "both-agent": _both_agent,
    "both-agent-one-sender": lambda v: _both_agent(v, one_sender=True),
    "client-no-role": lambda v: {**v, "parties": [{"name": "Claude Desktop"}, v["parties"][1]]},
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_proxy_direction_from_the_messages(variant: str) -> None:
    model = _model(VARIANTS[variant](load(AGENT_SERVER)))
    assert [(op.tool, op.outcome) for op in model.operations] == AGENT_SERVER_OPS
    assert {op.server for op in model.operations} == {"notes-server"}
    assert not any(op.flags for op in model.operations)
    texts = [d.message for d in model.diagnostics]
    assert not [t for t in texts if "no open request" in t or "could not be mapped" in t]
    assert [d for d in model.diagnostics if d.severity == "error"] == []
    write = model.operations[4]
    assert write.attempts[0].states == ("Running", "Input Required", "Running", "Completed")
    d = model.derivation
    assert (d.format, d.objects, d.unit, d.mapped, d.ignored, d.unmapped) == (
        "vcon-mcp-proxy", 30, "dialogs", 23, 7, 0)
    events = [e for e in model.vcon["events"] if "operation_id" in e]
    client = 0 if variant != "no-parties" else len(model.parties) - 1  # an added party
    assert {e["party"] for e in events} == {client}


def test_proxy_events_belong_to_the_client_party() -> None:
    # the MCP server party comes first and is the one with role "agent"
    v = load(AGENT_SERVER)
    v["parties"].reverse()
    for d in v["dialog"]:
        d["originator"] = 1 - d["originator"]
        d["parties"] = [1 - p for p in d["parties"]]
    events, _ = lift(v)
    assert {e["party"] for e in events} == {1}  # Claude Desktop, the sender of initialize


def test_proxy_direction_rule() -> None:
    from viewer.importers.lift import proxy_direction
    from viewer.importers.mcp import C2S, S2C, request_key

    def way(msg: dict[str, Any], side: str | None = None, c: Any = (), s: Any = (),
            **kw: Any) -> str | None:
        shape = ("request" if "id" in msg else "notification") if "method" in msg \
            else "response"
        return proxy_direction(msg, shape, side, {request_key(k): "m" for k in c},
                               {request_key(k): "elicitation/create" for k in s}, **kw)

    # requests: by method; ping by its sender, or by which side has its id in flight
    assert way({"id": 1, "method": "tools/call"}, S2C) == C2S
    for method in ("elicitation/create", "sampling/createMessage", "roots/list"):
        assert way({"id": 1, "method": method}, C2S) == S2C
    assert way({"id": 1, "method": "ping"}, S2C) == S2C
    assert way({"id": 1, "method": "ping"}, c=[1]) == S2C
    assert way({"id": 1, "method": "ping"}) == C2S
    # responses answer the open request of the other side with their id, whatever the sender
    assert way({"id": 1, "result": {}}, C2S, c=[1]) == S2C
    assert way({"id": 1, "result": {}}, S2C, s=[1]) == C2S
    assert way({"id": "1", "result": {}}, None, c=[1]) is None  # "1" is not 1
    assert way({"id": 1, "result": {"action": "accept"}}, None, c=[1], s=[1]) == C2S
    assert way({"id": 1, "result": {"content": []}}, None, c=[1], s=[1]) == S2C
    assert way({"id": 1, "result": {"content": []}}, C2S, c=[1], s=[1]) == C2S
    # notifications: the sender's side, else the client's notifications by name
    assert way({"method": "notifications/cancelled"}) == C2S
    assert way({"method": "notifications/progress"}) == S2C
    assert way({"method": "notifications/progress"}, C2S) == C2S
    # an explicit meta.direction is honoured
    assert way({"id": 1, "result": {}}, c=[1], explicit="client_to_server") == C2S


def test_proxy_mcp_type_disagreeing_with_the_body_is_warned() -> None:
    v = load(AGENT_SERVER)
    v["dialog"][1]["meta"]["mcp_type"] = "request"  # the initialize result
    _, prov = lift(v)
    assert any("meta.mcp_type" in w for w in prov.report.warnings)
    assert prov.report.unmapped == 0


def test_proxy_bench_session_is_all_answered() -> None:
    import importlib.util

    spec_ = importlib.util.spec_from_file_location("bench_proxy", ROOT / "bench" / "proxy.py")
    assert spec_ is not None and spec_.loader is not None
    bench = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(bench)
    model = _model(bench.proxy_vcon(600, pad=10))
    assert model.operations and {op.outcome for op in model.operations} <= {
        "completed", "failed"}
    assert model.derivation is not None and model.derivation.unmapped == 0


def _with_strays(n: int) -> dict[str, Any]:
    """The agent-server session plus ``n`` responses to requests never made."""
    v = load(AGENT_SERVER)
    for k in range(n):
        v["dialog"].append({"type": "text", "start": "2026-03-02T10:01:00.000Z",
                            "parties": [1, 0], "originator": 1, "encoding": "none",
                            "body": json.dumps({"jsonrpc": "2.0", "id": 900 + k,
                                                "result": {}}),
                            "meta": {"mcp_type": "response", "request_id": 900 + k}})
    return v


def test_unmapped_examples_are_whole_sentences() -> None:
    model = _model(_with_strays(26))
    warn = [d.message for d in model.diagnostics if "could not be mapped" in d.message]
    assert len(warn) == 1
    msg = warn[0]
    assert msg.startswith("26 input item(s) could not be mapped; the first 5: /dialog/30: ")
    examples = msg.split(": ", 1)[1].split("; ")
    assert len(examples) == 5
    assert all(e.endswith(": a response to no open request of the other side")
               for e in examples)
    assert model.derivation is not None and model.derivation.unmapped == 26
    assert "· 26 not mapped" in model.derivation.line()


def test_clip_shortens_the_value_not_the_sentence() -> None:
    from viewer.importers.common import clip

    assert clip("ok") == "'ok'"
    long = clip("x" * 500, 24)
    assert len(long) == 24 and long.startswith("'xx") and long.endswith("…'")


def test_import_vcon_with_unmapped_input_warns_and_exits_0(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "strays.vcon.json"
    src.write_text(json.dumps(_with_strays(2)))
    out = tmp_path / "out.vcon.json"
    assert main(["import", "vcon", str(src), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "wrote " in err and "10 operation(s)" in err
    assert ("warning: 2 input item(s) could not be mapped: /dialog/30: a response to no open "
            "request of the other side; /dialog/31: a response to no open request of the "
            "other side\n") in err
    written = load(out)
    prov = written["attachments"][-1]["body"]
    assert prov["unmapped"]["count"] == 2
    assert main(["import", "vcon", str(src), "-o", str(tmp_path / "q.json"), "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_convert_vcon_leaves_the_input_alone() -> None:
    data = AGENT_SERVER.read_bytes()
    before = json.loads(data)
    vcon, _ = convert_vcon(data, source_name=AGENT_SERVER.name)
    assert "events" not in before and len(vcon["events"]) == 23
    assert json.loads(data) == before


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_proxy_junk_never_crashes(data: st.DataObject) -> None:
    from tests.strategies import any_json

    v = load(AGENT_SERVER)
    dialogs = v["dialog"]
    for _ in range(data.draw(st.integers(0, 6))):
        k = data.draw(st.integers(0, len(dialogs) - 1))
        d = copy.deepcopy(dialogs[k])
        what = data.draw(st.sampled_from(["body", "meta", "originator", "parties", "id"]))
        if what == "body":
            d["body"] = json.dumps(data.draw(any_json))
        elif what == "id":
            body = json.loads(d["body"])
            if isinstance(body, dict):
                body["id"] = data.draw(any_json)
                d["body"] = json.dumps(body)
        else:
            d[what] = data.draw(any_json)
        dialogs.insert(data.draw(st.integers(0, len(dialogs))), d)
    if data.draw(st.booleans()):
        v["parties"] = data.draw(any_json)
    lift(v)  # neither raises: junk is counted, never a traceback
    assert _model(v).derived_from or not v["dialog"]


def test_proxy_parties_that_are_not_objects() -> None:
    """Found by the junk test: the party the messages show as the server was not an object."""
    v = load(AGENT_SERVER)
    v["parties"] = [None, None]
    events, prov = lift(v)
    assert {e["server"] for e in events if "server" in e} == {"notes-server"}  # serverInfo
    assert prov.report.unmapped == 0


def test_import_vcon_says_what_the_loader_found_wrong_with_the_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A key named twice in the input (a dialog's meta given two directions: readers keep one
    value in silence) is a finding about the recording itself; `vcon-view FILE` reports it as
    a duplicate-key error, so `import vcon`, which rewrites the file, must not drop it: it is a
    warning on stderr and in the provenance, with its pointer."""
    text = PROXY.read_text()
    i = text.index('"originator": 0,')
    doubled = text[:i] + '"subject": "first", "subject": "second", ' + text[i:]
    src = tmp_path / "dup.vcon.json"
    src.write_text(doubled)
    out = tmp_path / "out.vcon.json"
    assert main(["import", "vcon", str(src), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "duplicate-key at /dialog/0/subject" in err, err
    prov = json.loads(out.read_text())["attachments"][-1]["body"]
    assert any("duplicate-key at /dialog/0/subject" in w for w in prov["warnings"]), prov
    # a clean input: no such warning
    assert main(["import", "vcon", str(PROXY), "-o", str(tmp_path / "clean.json")]) == 0
    assert "the input vCon" not in capsys.readouterr().err


def _proxy_dialog(t: int, body: Any, sender: int, mcp_type: str) -> dict[str, Any]:
    return {"type": "text", "start": f"2026-03-02T09:00:0{t}.000Z", "parties": [sender, 1 - sender],
            "originator": sender, "mediatype": "application/json", "encoding": "none",
            "body": json.dumps(body), "meta": {"mcp_type": mcp_type}}


def test_proxy_dialog_holding_a_batch_maps_each_message() -> None:
    """MCP 2025-03-26 (basic/index, transports) lets either side send a JSON-RPC batch, an
    array of messages; a proxy that records one dialog per message it relays records a batch
    as one dialog whose body is that array. Each call in it is an operation, each answer in
    the answering batch ends its own call (by id, whatever the order), and the provenance
    points at each message."""
    call = {"jsonrpc": "2.0", "method": "tools/call"}
    vcon = {"vcon": "0.4.0", "uuid": "u", "parties": [
        {"name": "c", "role": "client"}, {"name": "weather", "role": "server"}], "dialog": [
        _proxy_dialog(0, [{**call, "id": 1, "params": {"name": "a", "arguments": {}}},
                          {**call, "id": 2, "params": {"name": "b", "arguments": {}}}],
                      0, "batch"),
        _proxy_dialog(1, [{"jsonrpc": "2.0", "id": 2, "result": {"content": []}},
                          {"jsonrpc": "2.0", "id": 1, "result": {"content": [],
                                                                 "isError": True}}],
                      1, "batch"),
    ]}
    events, prov = lift(vcon)
    assert [(e["type"], e["operation_id"], e.get("tool")) for e in events] == [
        ("tool-invocation", "op-0001", "a"), ("tool-invocation", "op-0002", "b"),
        ("tool-result", "op-0002", None), ("tool-failure", "op-0001", None)]
    assert prov.event_sources == ("/dialog/0/body(json)/0", "/dialog/0/body(json)/1",
                                  "/dialog/1/body(json)/0", "/dialog/1/body(json)/1")
    assert prov.report.unmapped == 0 and prov.report.mapped == 4


def test_mcp_session_result_moved_to_an_attachment_still_ends_its_call() -> None:
    """draft-howe-vcon-mcp-session, "Linking Attachments to Tool Invocations": a large tool
    output lives in an attachment, and the timeline keeps a placeholder ``tool_result`` whose
    ``content`` is ``{"id": <the call's id>, "ref": "attachment:N"}`` (no ``tool_use_id``).
    The call it answers completed: a tool-result whose content is the placeholder, as
    recorded (the output is not copied in)."""
    vcon = {"vcon": "0.4.0", "uuid": "u", "extensions": ["mcp_session"], "parties": [
        {"name": "agent", "meta": {"party_type": "ai_agent"}},
        {"name": "files", "meta": {"party_type": "mcp_server", "server_url": "https://f.example/mcp"}}],
        "dialog": [{"type": "mcp_session", "start": "2026-03-19T14:30:00Z", "parties": [0, 1],
                    "mediatype": "application/vnd.mcp-session+json", "encoding": "json",
                    "body": {"messages": [
                        {"party": 0, "to": 1, "role": "assistant",
                         "timestamp": "2026-03-19T14:30:05Z", "content": [
                             {"type": "tool_call", "id": "call_42", "name": "export",
                              "input": {"table": "orders"}}]},
                        {"party": 1, "to": 0, "role": "tool",
                         "timestamp": "2026-03-19T14:30:09Z", "content": [
                             {"type": "tool_result", "party": 1, "to": 0,
                              "content": {"id": "call_42", "ref": "attachment:0"}}]}]}}],
        "attachments": [{"type": "mcp_artifact", "dialog": 0, "mediatype": "application/json",
                         "encoding": "json", "body": "{}",
                         "meta": {"message_index": 1, "tool_result_id": "call_42"}}]}
    events, prov = lift(vcon)
    assert [(e["type"], e["operation_id"], e["time"]) for e in events] == [
        ("tool-invocation", "op-0001", "2026-03-19T14:30:05.000Z"),
        ("tool-result", "op-0001", "2026-03-19T14:30:09.000Z")]
    assert events[0]["server"] == "https://f.example/mcp"
    assert events[1]["body"] == {"content": {"id": "call_42", "ref": "attachment:0"}}
    assert prov.report.unmapped == 0


def test_agent_trace_in_the_vac_cddl_form() -> None:
    """The VAC record as draft-birkholz-verifiable-agent-conversations' CDDL defines it
    (agent-conversation.cddl): the trace under ``session`` (the agent-session draft's example
    says ``session-trace``), entries nested in an entry's ``children``, a call linked to its
    result by ``call-id`` (its own ``id`` is another name), its arguments in ``input``, times
    as epoch milliseconds, and ``is-error``. What a reviewer should see: both calls, in order,
    the nested one too; the failure where ``is-error`` says so; each event pointing at its
    entry."""
    record = {"version": "3.0", "id": "r1", "session": {
        "session-id": "s1", "agent-meta": {"model-id": "m", "model-provider": "p"},
        "entries": [
            {"type": "user", "id": "e1", "timestamp": 1778771205000, "content": "fix it"},
            {"type": "assistant", "id": "e2", "timestamp": 1778771206000, "children": [
                {"type": "tool-call", "id": "e3", "call-id": "toolu_1", "name": "Read",
                 "input": {"file_path": "a.py"}, "timestamp": 1778771207000}]},
            {"type": "tool-result", "id": "e4", "call-id": "toolu_1", "output": "no such file",
             "is-error": True, "timestamp": 1778771208000},
            {"type": "tool-call", "id": "e5", "call-id": "toolu_2", "name": "Bash",
             "input": {"command": "ls"}, "timestamp": 1778771209000},
            {"type": "tool-result", "id": "e6", "call-id": "toolu_2", "output": "a.txt",
             "status": "success", "timestamp": 1778771210000}]}}
    vcon = {"vcon": "0.4.0", "uuid": "u", "extensions": ["agent_session"],
            "parties": [{"name": "agent", "role": "agent"}],
            "analysis": [{"type": "agent_trace", "dialog": [], "encoding": "json",
                          "body": json.dumps(record)}]}
    events, prov = lift(vcon)
    assert [(e["type"], e["operation_id"], e.get("tool"), e["time"]) for e in events] == [
        ("tool-invocation", "op-0001", "Read", "2026-05-14T15:06:47.000Z"),
        ("tool-failure", "op-0001", None, "2026-05-14T15:06:48.000Z"),
        ("tool-invocation", "op-0002", "Bash", "2026-05-14T15:06:49.000Z"),
        ("tool-result", "op-0002", None, "2026-05-14T15:06:50.000Z")]
    assert events[0]["body"] == {"file_path": "a.py"}
    assert prov.event_sources[:2] == (
        "/analysis/0/body(json)/session/entries/1/children/0",
        "/analysis/0/body(json)/session/entries/2")
    assert prov.report.unmapped == 0


def vac_adapter_vcon() -> dict[str, Any]:
    """A vCon in the shape vcon-dev/vcon-vac-adapter writes (vac_builder.py at fc585f9…,
    the implementation the agent-session draft's site lists): the record wrapped in
    ``verifiable-agent-record``, its trace under ``session-trace``, each entry's type in
    ``kind`` (``message``, ``tool_call``, ``tool_result``, ``reasoning``, ``event``), a call's
    ``tool-name``, ``tool-use-id`` and ``tool-input``, a result's ``tool-use-id``,
    ``tool-output``, ``is-error`` and ``duration-ms``, ISO times. Made by hand (the repository
    has no output file); names and texts invented."""
    def entry(eid: str, kind: str, ts: str, **kw: Any) -> dict[str, Any]:
        return {"entry-id": eid, "kind": kind, "timestamp": ts, "agent-id": "main", **kw}

    record = {"verifiable-agent-record": {"version": "0.1", "session-trace": {
        "session-id": "5a1d0c8e-0000-5000-8000-000000000001",
        "started-at": "2026-05-18T14:00:00+00:00", "ended-at": "2026-05-18T14:00:09+00:00",
        "source-platform": "claude-code", "entries": [
            entry("u1", "message", "2026-05-18T14:00:00+00:00", role="user",
                  text="list open tickets"),
            entry("c1", "tool_call", "2026-05-18T14:00:02+00:00", **{
                "parent-id": "u1", "tool-name": "mcp__tickets__list_tickets",
                "tool-use-id": "toolu_01", "tool-input": {"status": "open"}}),
            entry("r1", "tool_result", "2026-05-18T14:00:03+00:00", **{
                "parent-id": "c1", "tool-use-id": "toolu_01", "tool-output": "4 tickets",
                "is-error": False, "duration-ms": 812}),
            entry("c2", "tool_call", "2026-05-18T14:00:04+00:00", **{
                "tool-name": "Bash", "tool-use-id": "toolu_02",
                "tool-input": {"command": "rm -rf /tmp/x"}}),
            entry("r2", "tool_result", "2026-05-18T14:00:05+00:00", **{
                "tool-use-id": "toolu_02", "tool-output": "permission denied",
                "is-error": True}),
            entry("a1", "message", "2026-05-18T14:00:09+00:00", role="assistant",
                  text="There are 4.")]},
        "agents": [{"agent-id": "main", "model-id": "claude-opus-4-6",
                    "provider": "anthropic"}]}}
    return {"vcon": "0.4.0", "uuid": "u", "extensions": ["agent_session"],
            "parties": [{"name": "user"}, {"name": "claude", "role": "agent"}],
            "analysis": [{"type": "agent_trace", "dialog": [], "vendor": "anthropic",
                          "schema": "https://datatracker.ietf.org/doc/"
                                    "draft-birkholz-verifiable-agent-conversations/",
                          "encoding": "json", "body": record}]}


def test_agent_trace_as_vcon_vac_adapter_writes_it() -> None:
    """Such a vCon was shown with "No operations" and no diagnostic (import vcon: "agent_trace
    body has no entries"). What a reviewer should see: both calls in order at their times, the
    MCP one on its server, the Bash one ending in a failure as ``is-error`` says, each result
    holding the recorded output, the messages counted as ignored."""
    events, prov = lift(vac_adapter_vcon())
    assert [(e["type"], e["operation_id"], e.get("server"), e.get("tool"), e["time"])
            for e in events] == [
        ("tool-invocation", "op-0001", "tickets", "list_tickets", "2026-05-18T14:00:02.000Z"),
        ("tool-result", "op-0001", None, None, "2026-05-18T14:00:03.000Z"),
        ("tool-invocation", "op-0002", "!host", "Bash", "2026-05-18T14:00:04.000Z"),
        ("tool-failure", "op-0002", None, None, "2026-05-18T14:00:05.000Z")]
    assert events[0]["body"] == {"status": "open"}
    assert events[1]["body"] == {"tool-output": "4 tickets", "is-error": False,
                                 "duration-ms": 812}
    assert prov.event_sources[0] == (
        "/analysis/0/body/verifiable-agent-record/session-trace/entries/1")
    assert prov.report.unmapped == 0 and prov.report.times == "recorded"
    # is-error says so: no status was read (it had said "status 'None' read as a failure")
    assert not any("read as a failure" in w for w in prov.report.lines())


def test_agent_trace_base64url_is_cbor_only_when_its_schema_says_so() -> None:
    """draft-howe-vcon-agent-session, CBOR Encoding: a CBOR record is base64url with
    ``schema`` qualified by ``?encoding=cbor``, and "Consumers MUST examine the schema URL to
    determine the encoding". A base64url body whose schema does not say CBOR is base64url
    JSON (the core draft's encoding), and its calls are read; a CBOR one is said to be
    unread, and an encrypted one (``encoding: "jwe"``) says why it is not read."""
    import base64

    trace = [{"type": "tool-call", "id": "c1", "name": "Read", "input": {}},
             {"type": "tool-result", "id": "r1", "parent-id": "c1", "output": "x"}]
    b64 = base64.urlsafe_b64encode(json.dumps(trace).encode()).decode().rstrip("=")
    schema = "https://datatracker.ietf.org/doc/draft-birkholz-verifiable-agent-conversations/"

    def vcon(analysis: dict[str, Any]) -> dict[str, Any]:
        return {"vcon": "0.4.0", "uuid": "u", "parties": [{"name": "a", "role": "agent"}],
                "analysis": [{"type": "agent_trace", "dialog": [], **analysis}]}

    events, _ = lift(vcon({"schema": schema, "encoding": "base64url", "body": b64}))
    assert [e["type"] for e in events] == ["tool-invocation", "tool-result"]
    events, prov = lift(vcon({"schema": schema + "?encoding=cbor", "encoding": "base64url",
                              "body": b64}))
    assert events == [] and "CBOR" in prov.report.examples[0]
    events, prov = lift(vcon({"schema": schema, "encoding": "jwe", "body": "eyJh.x.y.z.w"}))
    assert events == [] and "encrypted" in prov.report.examples[0]


def test_an_agent_trace_not_read_is_said_in_the_summary(tmp_path: Path) -> None:
    """A vCon whose only tool record is an agent_trace that cannot be read (CBOR, as the
    agent-session draft allows; here a record too) was summarised as "No operations" with no
    diagnostic at all, as if the agent had called nothing. What a reviewer should see: no
    operation, and a warning that the trace was there and why it was not read."""
    vcon = {"vcon": "0.4.0", "uuid": "u", "parties": [{"name": "a", "role": "agent"}],
            "analysis": [{"type": "agent_trace", "dialog": [], "encoding": "base64url",
                          "schema": "https://datatracker.ietf.org/doc/draft-birkholz-"
                                    "verifiable-agent-conversations/?encoding=cbor",
                          "body": "oWd2ZXJzaW9uYzEuMA"}]}
    path = tmp_path / "cbor.vcon.json"
    path.write_text(json.dumps(vcon), encoding="utf-8")
    got = summary(path)
    assert got["operations"] == []
    warn = [d for d in got["diagnostics"] if d["code"] == "derived-failed"]
    assert len(warn) == 1 and warn[0]["severity"] == "warning"
    assert "CBOR" in warn[0]["message"] and "/analysis/0" in warn[0]["message"]


def test_proxy_meta_direction_seen_from_the_server_is_turned_round() -> None:
    """An explicit ``meta.direction`` is honoured, but words like incoming/outgoing are
    relative: written on the server's side, the client's tools/call is "incoming". When the
    client-only requests all go the wrong way, every direction is turned round, with a
    warning, and the call is mapped (before, it was ignored as a server's request)."""
    vcon = {"vcon": "0.4.0", "uuid": "u", "parties": [
        {"name": "c", "role": "client"}, {"name": "weather", "role": "server"}], "dialog": [
        {**_proxy_dialog(0, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": {"name": "a", "arguments": {}}}, 0, "request"),
         "meta": {"mcp_type": "request", "direction": "incoming"}},
        {**_proxy_dialog(1, {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}, 1,
                         "response"),
         "meta": {"mcp_type": "response", "direction": "outgoing"}},
    ]}
    events, prov = lift(vcon)
    assert [(e["type"], e["operation_id"]) for e in events] == [
        ("tool-invocation", "op-0001"), ("tool-result", "op-0001")]
    assert any("turned round" in w for w in prov.report.warnings)


def test_proxy_meta_of_the_wrong_type_never_stops_the_lift() -> None:
    """A dialog whose ``meta.mcp_type`` is an object (broken or hostile input) is read by
    its message; before, it raised and no operation of the vCon was derived at all."""
    vcon = load(PROXY)
    vcon["dialog"][0]["meta"]["mcp_type"] = {"kind": "request"}
    events, _ = lift(vcon)
    assert events[0]["type"] == "tool-invocation"
    assert derived_view(vcon).derivation is not None


def test_mcp_session_tool_use_the_agent_never_called_is_said() -> None:
    """draft-howe-vcon-mcp-session, Tool Call Content: a ``tool_use`` with no ``tool_call``
    of its id is "a valid and meaningful record": the model asked for a tool that the agent
    did not call (declined, filtered or dropped). It is no operation (nothing ran), but the
    import says so, naming the tool, instead of counting it in silence."""
    v = load(SESSION)
    msgs = v["dialog"][0]["body"]["messages"]
    for msg in msgs:  # the first call is made; the later tool_use blocks are not
        for b in msg.get("content", []):
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id"):
                msg["content"].append(dict(b, type="tool_call"))
                break
        else:
            continue
        break
    msgs.append({"role": "assistant", "timestamp": "2026-03-19T14:40:00Z", "content": [
        {"type": "tool_use", "id": "toolu_999", "name": "delete_all", "input": {}}]})
    events, prov = lift(v)
    assert [e["tool"] for e in events if e["type"] == "tool-invocation"] == ["web_search"]
    said = [w for w in prov.report.warnings if "not called" in w]
    assert len(said) == 1 and "delete_all" in said[0]


def test_proxy_dialog_without_its_body_says_why_it_is_not_read() -> None:
    """A redacted vCon (core: the redacted content is removed, a content_hash may stay) or
    one whose dialog content is external (url) has proxy dialogs without an inline body:
    the import says that, not that the body is not a JSON-RPC message."""
    vcon = load(PROXY)
    d = vcon["dialog"][5]
    for k in ("body", "encoding"):
        d.pop(k, None)
    d["url"] = "https://example.com/msg.json"
    d["content_hash"] = "sha512-AAAA"
    _, prov = lift(vcon)
    assert prov.report.examples == [
        "/dialog/5: dialog has no inline body (redacted, or kept at its url, which is never "
        "fetched): not read"]


def test_proxy_vcon_of_the_newer_mapper_names_its_server_from_its_tags() -> None:
    """vcon-mcp-proxy's newer mapper (vcon-dev/vcon-mcp-proxy @ 992cfb99 src/vcon/mcp-mapper.ts,
    mapSessionToVcon) writes parties [client (role "user"), server (role "agent")], each
    dialog with only its sender in `parties` (a response on the server's party, everything
    else, a server's elicitation/create too, on the client's), and the server's name in the
    tags attachment (purpose "tags", "server_name:github") and the subject. No request shows
    which party is the server, so a reviewer saw both calls on "unknown-mcp-server". By hand:
    create_repo {name: x} on github, asked the user (elicitation) and failed (isError
    "permission denied"); list_repos {} on github, completed with a resource_link and
    structuredContent."""
    path = FIX / "variants" / "vcon_mcp_proxy_0_4_single_party_dialogs.vcon.json"
    m = build_model(open_bytes(path.read_bytes(), name=path.name))
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("github", "create_repo", "failed"), ("github", "list_repos", "completed")]
    vcon, rep = convert_vcon(path.read_bytes())
    assert [e["type"] for e in vcon["events"]] == [
        "tool-invocation", "tool-input", "tool-input-response", "tool-failure",
        "tool-invocation", "tool-result"]
    assert not any("not named" in w for w in rep.warnings)
