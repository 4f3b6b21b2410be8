"""The conversation of imported sessions: user prompts and agent replies as text dialogs.

The expectations (first prompt, its time and line) were read by hand from the raw samples.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from viewer.cli import main
from viewer.importers import claude_code, codex, copilot, cursor, gemini
from viewer.importers.common import MAX_DIALOG_CHARS, cut_text
from viewer.model.build import build_model
from viewer.pipeline import open_bytes
from viewer.tui.present import dialog_text

AG = Path(__file__).parent / "fixtures" / "agents"

#: sample -> (importer, first prompt (start of its text), its time, its input line)
FIRST_PROMPT: dict[str, tuple[Any, str, str, str]] = {
    "claude-code-transcript/spotter__short.jsonl": (
        claude_code, "mix phx.server doesnt seem to start", "2026-02-10T21:11:56.846Z", "line 4"),
    # a slash command reads as the user typed it; the skill text Claude Code expands it to
    # (line 5, isMeta) is not the user's
    "claude-code-transcript/spotter__subagent.jsonl": (
        claude_code, "/handgemacht:create-beads websearch to learn how to fastest setup",
        "2026-02-10T21:54:53.186Z", "line 4"),
    "codex-rollout/agent-history__codex_with_escalation.jsonl": (
        codex, "Create a test file", "2025-12-05T11:00:02.000Z", "line 3"),
    "gemini-cli/agent-history__gemini_with_tool_error.jsonl": (
        gemini, "Edit the config file to change the port to 9000", "2025-12-06T15:00:00.000Z",
        None),
    "copilot-cli/agent-sessions__copilot_events.jsonl": (
        copilot, "List the files", "2026-03-26T17:50:35.000Z", "line 2"),
    # no timestamps in this transcript: order-only times from the epoch, as its events
    "cursor/agent-sessions__cursor_test-session.jsonl": (
        cursor, "run ls command", "1970-01-01T00:00:00.000Z", "line 1"),
}


def _model(data: bytes, name: str) -> Any:
    return build_model(open_bytes(data, name=name))


@pytest.mark.parametrize("rel", sorted(FIRST_PROMPT))
def test_first_prompt_is_dialog_0(rel: str) -> None:
    mod, text, when, line = FIRST_PROMPT[rel]
    data = (AG / rel).read_bytes()
    vcon, _ = mod.convert(data, source_name=rel)
    user = len(vcon["parties"]) - 1
    assert vcon["parties"][user] == {"name": "user", "role": "user"}
    d0 = vcon["dialog"][0]
    assert d0["body"].startswith(text)
    # the speaker first: the core draft's implied originator, so no originator member
    assert (d0["type"], d0["start"], d0["parties"]) == ("text", when, [user, 0])
    assert not any("originator" in d for d in vcon["dialog"])
    assert (d0["mediatype"], d0["encoding"]) == ("text/plain", "none")
    assert vcon["sessions"][0]["dialog"] == list(range(len(vcon["dialog"])))
    prov = vcon["attachments"][0]["body"]["dialog"]
    assert len(prov) == len(vcon["dialog"]) and prov[0]["dialog"] == 0
    if line is not None:
        assert prov[0]["from"] == line
    # the agent answers the user
    assert any(d["parties"] == [0, user] for d in vcon["dialog"])
    m = _model(data, rel)
    assert [d for d in m.diagnostics if d.severity == "error"] == []
    assert len(m.dialog) == len(vcon["dialog"])


def test_claude_code_subagent_turns_are_on_its_party() -> None:
    """spotter__subagent: the Task prompt (line 37, the main agent to sub-agent afb92ff) and
    the replies; thinking, isMeta skill text and the interrupt (line 69) are no dialog."""
    vcon, _ = claude_code.convert((AG / "claude-code-transcript/spotter__subagent.jsonl")
                                  .read_bytes(), source_name="s")
    sub = [d for d in vcon["dialog"] if 1 in d["parties"]]
    assert [(d["parties"], d["start"]) for d in sub] == [
        ([0, 1], "2026-02-10T21:58:15.453Z")]
    assert sub[0]["body"].startswith("Draft bead content")
    bodies = [d["body"] for d in vcon["dialog"]]
    assert "create the beads" in bodies
    assert not any(b.startswith(("[Request interrupted", "Create beads (epic")) for b in bodies)
    assert len(bodies) == 10


def _cc_line(uid: str, ts: str, content: Any, **kw: Any) -> dict[str, Any]:
    return {"type": "user", "uuid": uid, "timestamp": ts, "sessionId": "s",
            "message": {"role": "user", "content": content}, **kw}


def test_claude_code_noise_is_skipped_and_meta_not_a_prompt() -> None:
    recs = [
        _cc_line("u1", "2026-01-01T00:00:00Z", "<system-reminder>x</system-reminder>hello"),
        _cc_line("u2", "2026-01-01T00:00:01Z", "skill text", isMeta=True),
        _cc_line("u3", "2026-01-01T00:00:02Z", "<local-command-stdout>ok</local-command-stdout>"),
        _cc_line("u4", "2026-01-01T00:00:03Z", "Summary", isCompactSummary=True),
        _cc_line("u5", "2026-01-01T00:00:04Z", [{"type": "text", "text": "<bash-input>ls"
                                                  "</bash-input>"}]),
        {"type": "assistant", "uuid": "a1", "timestamp": "2026-01-01T00:00:05Z",
         "message": {"role": "assistant", "content": [
             {"type": "thinking", "thinking": "secret"}, {"type": "text", "text": "hi there"}]}},
    ]
    data = b"\n".join(orjson.dumps(r) for r in recs)
    vcon, rep = claude_code.convert(data, source_name="t")
    assert [(d["body"], d["parties"][0]) for d in vcon["dialog"]] == [
        ("hello", 1), ("! ls", 1), ("hi there", 0)]
    assert rep.mapped == 3 and rep.ignored == {"user": 3} and rep.unmapped == 0


def test_codex_injected_context_is_no_dialog() -> None:
    lines = [
        {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
         "payload": {"id": "x", "cli_version": "1"}},
        {"timestamp": "2026-01-01T00:00:01Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "<environment_context>cwd</environment_context>"}]}},
        {"timestamp": "2026-01-01T00:00:02Z", "type": "response_item", "payload": {
            "type": "message", "role": "developer", "content": [
                {"type": "input_text", "text": "be careful"}]}},
        {"timestamp": "2026-01-01T00:00:03Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "fix it"}]}},
    ]
    vcon, rep = codex.convert(b"\n".join(orjson.dumps(x) for x in lines), source_name="t")
    assert [d["body"] for d in vcon["dialog"]] == ["fix it"]
    assert rep.mapped == 1 and rep.ignored["response item message"] == 2


HOSTILE = "\x1b[31mRED\x1b[0m \x1b]0;pwned\x07 \x9b2J \u202eevil\u202c\x00end"


def test_hostile_prompt_is_recorded_and_inert(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    recs = [_cc_line("u1", "2026-01-01T00:00:00Z", HOSTILE),
            {"type": "assistant", "uuid": "a1", "timestamp": "2026-01-01T00:00:01Z",
             "message": {"role": "assistant", "content": [
                 {"type": "text", "text": HOSTILE},
                 {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"c": 1}}]}}]
    src = tmp_path / "t.jsonl"
    src.write_bytes(b"\n".join(orjson.dumps(r) for r in recs))
    vcon, _ = claude_code.convert(src.read_bytes(), source_name="t")
    assert vcon["dialog"][0]["body"] == HOSTILE  # recorded whole, as data
    m = _model(src.read_bytes(), "t.jsonl")
    for d in m.dialog:
        shown = dialog_text(d, 500)
        assert not any(c in shown for c in "\x1b\x07\x9b\x00\u202e")
    for fmt in ("text", "md"):
        capsys.readouterr()
        assert main(["summary", str(src), "--format", fmt]) in (0, 1)
        out = capsys.readouterr().out
        assert not any(c in out for c in "\x1b\x07\x9b\x00\u202e")
    out_file = tmp_path / "o.vcon.json"
    assert main(["import", "claude-code", str(src), "-o", str(out_file)]) == 0
    assert json.loads(out_file.read_text())["dialog"][0]["body"] == HOSTILE


def test_long_body_is_cut_with_a_visible_note() -> None:
    text = "x" * (MAX_DIALOG_CHARS + 10)
    assert cut_text(text) == "x" * MAX_DIALOG_CHARS + "\u2026 [10 more characters]"
    assert cut_text("short") == "short"
    line = {"role": "user", "message": {"content": [{"type": "text", "text": text}]}}
    vcon, _ = cursor.convert(orjson.dumps(line), source_name="t")
    assert vcon["dialog"][0]["body"].endswith("[10 more characters]")


def test_gemini_and_copilot_every_line_counted_once() -> None:
    for mod, rel in ((gemini, "gemini-cli/agent-history__gemini_with_tool_error.jsonl"),
                     (copilot, "copilot-cli/agent-sessions__copilot_small.jsonl")):
        data = (AG / rel).read_bytes()
        _, rep = mod.convert(data, source_name=rel)
        total = rep.mapped + sum(rep.ignored.values()) + rep.unmapped
        assert total == len([x for x in data.splitlines() if x.strip()])


def test_asked_before_names_the_users_request_not_the_agents_narration() -> None:
    from viewer.tui.present import said_before

    rel = "claude-code-transcript/spotter__subagent.jsonl"
    m = _model((AG / rel).read_bytes(), rel)
    ops = {o.operation_id: o for o in m.operations}
    assert said_before(m, ops["op-0001"].first_time).startswith(
        "2 user (user): /handgemacht:create-beads")
    assert said_before(m, ops["op-0022"].first_time) == "2 user (user): create the beads"
