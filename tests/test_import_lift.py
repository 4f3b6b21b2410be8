"""Lifting: derived operations for vCons in the three pre-draft shapes, and import vcon."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from viewer.cli import main
from viewer.importers.lift import convert_vcon, derived_view, lift
from viewer.load import load_bytes
from viewer.model.build import build_model
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
    return summary_dict(build_model(load_bytes(path.read_bytes(), name=path.name)))


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
    assert build_model(load_bytes(json.dumps(v).encode())).derived_from == ()


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
def test_import_vcon_round_trip(path: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.vcon.json"
    assert main(["import", "vcon", str(path), "-o", str(out), "-q"]) == 0
    written = load(out)
    assert written["uuid"] != load(path).get("uuid")
    assert written["attachments"][-1]["purpose"] == "import-provenance"
    model = build_model(load_bytes(out.read_bytes()))
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
