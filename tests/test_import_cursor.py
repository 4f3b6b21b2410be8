"""vcon-view import cursor: Cursor agent transcripts (JSONL) -> tool-invocation events.

The per-sample expectations were written by hand from the raw file before the importer was run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.cli import main
from viewer.importers import formats
from viewer.importers.cursor import convert, sniff
from viewer.importers.formats import ImportInputError, sample
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.pipeline import open_bytes

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures" / "agents" / "cursor"
SESSION = FIX / "agent-sessions__cursor_test-session.jsonl"


def model_of(data: bytes, name: str = "t.jsonl") -> Model:
    return build_model(open_bytes(data, name=name))


def no_errors(m: Model) -> None:
    assert [d for d in m.diagnostics if d.severity == "error"] == []


# agent-sessions__cursor_test-session.jsonl (6 lines, no ids, no results, no times):
#   line 1 user "run ls command" -> ignored;
#   line 2 assistant text + tool_use Shell {"command": "ls -la /tmp", ...} -> op-0001 !host/Shell;
#       nothing records its result -> it stays Running, flagged unterminated;
#   line 3 assistant text (the listing, as prose) -> ignored;
#   line 4 user "now show me the git status" -> ignored;
#   line 5 assistant text + tool_use Shell {"command": "git status", ...} -> op-0002, the same;
#   line 6 assistant text -> ignored.
#   No decision anywhere. Mapped 2, ignored 4, unmapped 0; no timestamps: times order-only.
EXPECTED = [
    ("op-0001", "!host", "Shell", "running", None, ["unterminated"]),
    ("op-0002", "!host", "Shell", "running", None, ["unterminated"]),
]


def test_corpus_sample_reads_as_written_by_hand() -> None:
    data = SESSION.read_bytes()
    m = model_of(data, SESSION.name)
    no_errors(m)
    assert [(o.operation_id, o.server, o.tool, o.outcome, o.decision, sorted(o.flags))
            for o in m.operations] == EXPECTED
    vcon, rep = convert(data, source_name=SESSION.name)
    # every message has text: the turns are dialogs, so every line is mapped
    assert (rep.mapped, sum(rep.ignored.values()), rep.unmapped) == (6, 0, 0)
    assert rep.times == "order-only"
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert inv[1]["body"]["arguments"]["command"] == "git status"
    assert [e["time"] for e in inv] == ["1970-01-01T00:00:00.001Z", "1970-01-01T00:00:00.004Z"]


def line(role: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "message": {"content": list(blocks)}}


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def use(name: str, inp: Any, **kw: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": inp, **kw}


def jsonl(*recs: Any) -> bytes:
    return b"\n".join(r.encode() if isinstance(r, str) else orjson.dumps(r) for r in recs) + b"\n"


def test_mcp_calls_name_their_server_and_results_pair_by_id() -> None:
    data = jsonl(
        line("user", text("<timestamp>2026-07-17T07:08:09.123-06:00</timestamp>\n"
                          "<user_query>\nlist apps\n</user_query>")),
        line("assistant", text("ok"),
             use("CallMcpTool", {"server": "clerk", "toolName": "list_apps",
                                 "arguments": {"limit": 5}}, id="t1"),
             use("CallDynamicTool", {"namespace": "playwright", "toolName": "browser_navigate",
                                     "arguments": {"url": "https://example.com"}}, id="t2")),
        line("user", {"type": "tool_result", "tool_use_id": "t1", "content": "[]"},
             {"type": "tool_result", "tool_use_id": "t2", "content": "boom", "is_error": True}),
        {"type": "turn_ended", "status": "success"},
    )
    vcon, rep = convert(data)
    m = model_of(data)
    no_errors(m)
    assert [(o.server, o.tool, o.outcome) for o in m.operations] == [
        ("clerk", "list_apps", "completed"), ("playwright", "browser_navigate", "failed")]
    inv = [e for e in vcon["events"] if e["type"] == "tool-invocation"]
    assert inv[0]["body"] == {"toolUseId": "t1", "arguments": {"limit": 5},
                              "cursorTool": "CallMcpTool"}
    # the user turn's <timestamp> is the only time: the calls after it take it
    assert {e["time"] for e in vcon["events"]} == {"2026-07-17T13:08:09.123Z"}
    assert rep.times == "partial" and rep.mapped == 3  # the user's turn is a dialog
    assert rep.ignored == {"turn_ended": 1}


def test_the_human_timestamp_form_is_read() -> None:
    data = jsonl(line("user", text("<timestamp>Friday, Jul 17, 2026, 7:08 AM (UTC-6)</timestamp>"
                                   "<user_query>x</user_query>")),
                 line("assistant", use("Shell", {"command": "ls"})))
    vcon, rep = convert(data)
    assert vcon["events"][0]["time"] == "2026-07-17T13:08:00.000Z"
    assert rep.times == "partial"


def test_junk_and_unknown_lines_are_counted() -> None:
    data = jsonl(line("user", text("hi")), "not json", "[1]", {"role": "system", "message": {}},
                 line("assistant", use("Shell", {"command": "ls"}), use(7, {})),
                 {"type": "something_else"})
    vcon, rep = convert(data)
    assert rep.mapped == 2 and rep.unmapped == 4  # not json, [1], system, something_else
    assert rep.ignored == {}  # the user's "hi" is a dialog
    assert len(vcon["events"]) == 1
    no_errors(model_of(orjson.dumps(vcon), "t.vcon.json"))


def test_bad_whole_input() -> None:
    with pytest.raises(ImportInputError):
        convert(b"")
    with pytest.raises(ImportInputError):
        convert(b'{"a": 1}\n')


def test_sniff_claims_cursor_and_nothing_else() -> None:
    assert formats.detect(SESSION.read_bytes()).name == "cursor"
    copilot = (ROOT / "tests/fixtures/agents/copilot-cli/agent-sessions__copilot_events.jsonl")
    assert formats.detect(copilot.read_bytes()).name == "copilot"
    claude = jsonl({"type": "assistant", "uuid": "u", "sessionId": "s",
                    "message": {"role": "assistant", "content": [use("Bash", {})]}})
    chat = jsonl({"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"})
    for other in (claude, chat, b'{"vcon": "0.4.0"}', copilot.read_bytes()):
        assert sniff(sample(other)) is False


JUNK = st.one_of(
    st.binary(max_size=30),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=6),
                 lambda c: st.lists(c, max_size=3) | st.dictionaries(
                     st.sampled_from(["role", "message", "content", "type", "name", "input",
                                      "id", "tool_use_id", "text", "is_error"]), c, max_size=4),
                 max_leaves=10).map(lambda v: json.dumps(v).encode()),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(JUNK, max_size=8), st.integers(min_value=0, max_value=6))
def test_junk_never_crashes(junk: list[bytes], at: int) -> None:
    lines = SESSION.read_bytes().splitlines()
    lines[at:at] = [j.replace(b"\n", b" ") for j in junk]
    data = b"\n".join(lines)
    try:
        vcon, rep = convert(data)
    except ImportInputError:
        return
    n = sum(1 for ln in data.split(b"\n") if ln.strip())
    assert rep.mapped + sum(rep.ignored.values()) + rep.unmapped == n
    m = build_model(open_bytes(orjson.dumps(vcon), name="x.vcon.json"))
    assert [d for d in m.diagnostics if d.severity == "error"] == []


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.vcon.json"
    assert main(["import", "cursor", str(SESSION), "-o", str(out), "-q"]) == 0
    assert len(json.loads(out.read_text())["events"]) == 2
    capsys.readouterr()
    assert main(["summary", str(SESSION), "--format", "json"]) == 0
    assert [op["tool"] for op in json.loads(capsys.readouterr().out)["operations"]] == [
        "Shell", "Shell"]


# Cursor's text transcript (~/.cursor/projects/<project>/agent-transcripts/<uuid>.txt), the form
# Cursor wrote before its JSONL: turns opened by "user:" / "assistant:" lines ("A:" in some
# versions), "[Thinking] ..." lines, "[Tool call] NAME" with "  key: value" argument lines, and a
# bare "[Tool result] NAME" per call, in call order, recording no output and no outcome. (The shape
# as public readers of these files parse it: e.g. the parsers of agent-transcripts/*.txt in
# session-search and transcript-index tools; this fixture is made by hand in that shape.)
TEXT_TRANSCRIPT = """user:
<user_query>
start the app
</user_query>

assistant:
[Thinking] **Starting dev server**
[Tool call] Shell
  command: npm run dev
  working_directory: /work/app
  block_until_ms: 0
  description: Start Next.js dev server
[Tool call] ReadFile
  path: /work/app/terminals/1.txt

[Tool result] Shell

[Tool result] ReadFile

assistant:
The dev server is running.

user:
<user_query>
who am I on GitHub?
</user_query>

assistant:
[Tool call] CallMcpTool
  server: github
  toolName: get_me
  arguments: {}

[Tool result] CallMcpTool

A:
[Tool call] Grep
  pattern: TODO
"""
# What a reviewer should see, written by hand from the text above:
#   op-0001 !host/Shell, arguments as recorded text {command: "npm run dev", working_directory:
#     "/work/app", block_until_ms: "0", description: ...}; its [Tool result] says it returned but
#     not how: no end event, Running + unterminated, and the invocation's `inferred` says so;
#   op-0002 !host/ReadFile {path: ...}, the same (the second [Tool result] is ReadFile's);
#   op-0003 github/get_me (CallMcpTool names its server and tool), arguments "{}" as recorded;
#   op-0004 !host/Grep {pattern: "TODO"}: no [Tool result] at all, Running, no `inferred`.
#   No decision anywhere; no times: order only. Dialogs: the two user queries (without their
#   tags), "[Thinking] **Starting dev server**" and "The dev server is running." as written.
#   Every non-blank line is mapped (turn lines, calls and their arguments, the result markers).


def test_text_transcript_reads_as_written_by_hand() -> None:
    data = TEXT_TRANSCRIPT.encode()
    assert formats.detect(data).name == "cursor"
    m = model_of(data, "t.txt")
    no_errors(m)
    assert [(o.operation_id, o.server, o.tool, o.outcome, o.decision, sorted(o.flags))
            for o in m.operations] == [
        ("op-0001", "!host", "Shell", "running", None, ["unterminated"]),
        ("op-0002", "!host", "ReadFile", "running", None, ["unterminated"]),
        ("op-0003", "github", "get_me", "running", None, ["unterminated"]),
        ("op-0004", "!host", "Grep", "running", None, ["unterminated"]),
    ]
    vcon, rep = convert(data, source_name="t.txt")
    inv = vcon["events"]
    assert [e["type"] for e in inv] == ["tool-invocation"] * 4
    assert inv[0]["body"] == {"arguments": {
        "command": "npm run dev", "working_directory": "/work/app", "block_until_ms": "0",
        "description": "Start Next.js dev server"}}
    assert inv[1]["body"] == {"arguments": {"path": "/work/app/terminals/1.txt"}}
    assert inv[2]["body"] == {"arguments": "{}", "cursorTool": "CallMcpTool"}
    assert ["inferred" in e for e in inv] == [True, True, True, False]
    assert "[Tool result] Shell" in inv[0]["inferred"]
    assert [d["body"] for d in vcon["dialog"]] == [
        "start the app", "[Thinking] **Starting dev server**", "The dev server is running.",
        "who am I on GitHub?"]
    n = sum(1 for ln in data.split(b"\n") if ln.strip())
    assert (rep.mapped, rep.ignored, rep.unmapped) == (n, {}, 0)
    assert rep.times == "order-only"


def test_text_transcript_edges() -> None:
    # a value's further lines (indented), an unknown [Tool result], text before any turn,
    # a result marker's own output lines, CRLF and a byte order mark
    data = ("\ufeffuser:\r\n<user_query>\r\nfix it\r\n</user_query>\r\n\r\nassistant:\r\n"
            "[Tool call] Write\r\n  path: a.py\r\n  contents: line 1\r\n  line 2\r\n\r\n"
            "[Tool result] Write\r\nwrote 2 lines\r\n\r\nand a blank before this one\r\n"
            "[Tool result] Delete\r\n").encode()
    vcon, rep = convert(data)
    assert vcon["events"][0]["body"] == {"arguments": {"path": "a.py",
                                                       "contents": "line 1\nline 2"}}
    # the result's output runs to the next mark, blank lines and all: not the agent's words
    assert rep.unmapped == 1 and rep.ignored == {"[Tool result] output (records no outcome)": 2}
    assert [d["body"] for d in vcon["dialog"]] == ["fix it"]
    n = sum(1 for ln in data.split(b"\n") if ln.strip())
    assert rep.mapped + sum(rep.ignored.values()) + rep.unmapped == n


def test_a_user_line_inside_a_tool_result_is_the_tools_output() -> None:
    """A result's output is the tool's text: a file read there may well hold a line "user:"
    (a YAML key). Cursor opens a user turn with its own tag on the next line (<user_query>,
    <cursor_commands>...). Reviewer: ReadFile and Shell are two calls of the agent; the only
    words of the user are "show the config". Before: the rest of the file and the
    "[Tool call] Shell" line were shown as the user's words, and the Shell call was dropped."""
    data = (b"user:\n<user_query>\nshow the config\n</user_query>\n\nassistant:\n"
            b"[Tool call] ReadFile\n  path: config.yml\n\n[Tool result] ReadFile\n"
            b"database:\n  host: x\nuser:\n  name: admin\n\n"
            b"[Tool call] Shell\n  command: make\n\nuser:\n<user_query>\nthanks\n"
            b"</user_query>\n")
    vcon, rep = convert(data, source_name="t.txt")
    assert [e["tool"] for e in vcon["events"]] == ["ReadFile", "Shell"]
    assert [d["body"] for d in vcon["dialog"]] == ["show the config", "thanks"]
    assert rep.unmapped == 0


def test_text_transcript_sniff_claims_only_its_shape() -> None:
    for other in (b"user: hello\nassistant: hi\n", b"user:\nhello\n", b"notes\nuser:\n",
                  b"assistant\n[Tool call] Shell\n", b"user:\nhello\n\nassistant:\nhi\n"):
        assert sniff(sample(other)) is False
    assert sniff(sample(b"user:\n<user_query>\nhi\n</user_query>\n")) is True
    assert sniff(sample(b"\n\nassistant:\n[Tool call] Shell\n  command: ls\n")) is True


TEXT_JUNK = st.sampled_from(["user:", "assistant:", "A:", "[Tool call] X", "[Tool call]",
                             "[Tool result] X", "[Tool result]", "  k: v", "  cont", "   ",
                             "<user_query>", "[Thinking] hm", "{\"a\": 1}", "\r", "\u2028"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TEXT_JUNK | st.text(max_size=12), max_size=10),
       st.integers(min_value=0, max_value=40))
def test_text_transcript_junk_never_crashes(junk: list[str], at: int) -> None:
    lines = TEXT_TRANSCRIPT.split("\n")
    lines[at:at] = [j.replace("\n", " ") for j in junk]
    data = "\n".join(lines).encode()
    try:
        vcon, rep = convert(data)
    except ImportInputError:
        return
    n = sum(1 for ln in data.split(b"\n") if ln.strip())
    assert rep.mapped + sum(rep.ignored.values()) + rep.unmapped == n
    m = build_model(open_bytes(orjson.dumps(vcon), name="x.vcon.json"))
    assert [d for d in m.diagnostics if d.severity == "error"] == []


def test_results_answer_calls_that_carry_no_id_in_order() -> None:
    """agent-sessions__cursor_large.jsonl (jazzyalex/agent-sessions, a Cursor transcript
    fixture): its tool_use blocks carry no id, and each is answered by the next user line's
    tool_result naming an id ("t1", "t2") that no tool_use has. By hand: Bash {"command": "ls
    -la"} returned "file1.txt\\nfile2.txt", then Read {"file_path": "file1.txt"} returned
    "hello world": both completed, in that order (they were shown Running, their results
    skipped). A result whose id no call has answers the oldest open call without an id; the
    result event says so in ``inferred``."""
    data = (FIX / "agent-sessions__cursor_large.jsonl").read_bytes()
    m = model_of(data, "agent-sessions__cursor_large.jsonl")
    no_errors(m)
    assert [(o.operation_id, o.tool, o.outcome, sorted(o.flags)) for o in m.operations] == [
        ("op-0001", "Bash", "completed", []), ("op-0002", "Read", "completed", [])]
    vcon, rep = convert(data)
    res = [e for e in vcon["events"] if e["type"] == "tool-result"]
    assert [(e["operation_id"], e["body"]["toolUseId"]) for e in res] == [
        ("op-0001", "t1"), ("op-0002", "t2")]
    assert all("no tool_use carries" in e["inferred"] for e in res)
    assert rep.unmapped == 0
    assert not any("skipped" in w or "stay Running" in w for w in rep.warnings)
    # a call with an id is never answered by a result naming another id
    data = jsonl(line("assistant", use("Bash", {"command": "ls"}, id="a")),
                 line("user", {"type": "tool_result", "tool_use_id": "b", "content": "x"}))
    assert [o.outcome for o in model_of(data).operations] == ["running"]
