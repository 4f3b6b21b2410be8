"""vcon-view import claude-code: Claude Code transcripts, sub-agents, stream-json, hook logs.

The expected values of the corpus samples were written by hand from the raw files, before the
importer was run on them (what a reviewer who knows the session should see).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.cli import main
from viewer.importers import claude_code as cc
from viewer.importers.formats import ImportInputError, detect, sample
from viewer.load import load_bytes
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.pipeline import open_bytes

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures" / "agents"
TR = FIX / "claude-code-transcript"
HK = FIX / "claude-code-hooks"
DECLINE = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
           "(eg. if it was a file edit, the new_string was NOT written to the file). STOP what "
           "you are doing and wait for the user to tell you how to proceed.")


def model_of(vcon: dict[str, Any]) -> Model:
    return build_model(load_bytes(json.dumps(vcon).encode(), name="imported"))


def conv(lines: list[Any], **kw: Any) -> tuple[dict[str, Any], Any, Model]:
    data = b"\n".join(x if isinstance(x, bytes) else json.dumps(x).encode() for x in lines)
    vcon, rep = cc.convert(data, source_name="t.jsonl", **kw)
    return vcon, rep, model_of(vcon)


def no_errors(m: Model) -> None:
    assert [d for d in m.diagnostics if d.severity == "error"] == []


def ops(m: Model) -> list[tuple[str, str | None, str | None, str, str | None, set[str]]]:
    return [(o.operation_id, o.server, o.tool, o.outcome, o.decision, set(o.flags))
            for o in m.operations]


def party_of(m: Model, op_id: str) -> int:
    for e in m.events:
        if e.raw.get("operation_id") == op_id:
            return e.raw["party"]
    raise KeyError(op_id)


def counted(rep: Any, n_lines: int) -> None:
    assert rep.mapped + sum(rep.ignored.values()) + rep.unmapped == n_lines


# --- helpers building records ---------------------------------------------------------------

T0 = "2026-03-01T10:00:0{}.000Z"


def _t(i: int) -> str:
    return f"2026-03-01T10:{i // 60:02d}:{i % 60:02d}.000Z"


def use(i: int, tid: str, name: str, inp: Any = None, **extra: Any) -> dict[str, Any]:
    return {"type": "assistant", "uuid": f"a{i}", "sessionId": "s", "timestamp": _t(i),
            "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": tid, "name": name, "input": inp or {}}]}, **extra}


def res(i: int, tid: str, content: Any, is_error: bool | None = None, tur: Any = None,
        **extra: Any) -> dict[str, Any]:
    b: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": content}
    if is_error is not None:
        b["is_error"] = is_error
    r: dict[str, Any] = {"type": "user", "uuid": f"u{i}", "sessionId": "s", "timestamp": _t(i),
                         "message": {"role": "user", "content": [b]}, **extra}
    if tur is not None:
        r["toolUseResult"] = tur
    return r


def prompt(i: int, text: str, mode: str | None = None) -> dict[str, Any]:
    r: dict[str, Any] = {"type": "user", "uuid": f"p{i}", "sessionId": "s", "timestamp": _t(i),
                         "message": {"role": "user", "content": text}}
    if mode:
        r["permissionMode"] = mode
    return r


def hook(i: int, tid: str, event: str = "PreToolUse") -> dict[str, Any]:
    return {"type": "progress", "uuid": f"h{i}", "sessionId": "s", "timestamp": _t(i),
            "toolUseID": tid, "parentToolUseID": tid,
            "data": {"type": "hook_progress", "hookEvent": event, "hookName": f"{event}:Bash",
                     "command": "x"}}


def bash_progress(i: int, tid: str) -> dict[str, Any]:
    return {"type": "progress", "uuid": f"g{i}", "sessionId": "s", "timestamp": _t(i),
            "toolUseID": f"bash-progress-{i}", "parentToolUseID": tid,
            "data": {"type": "bash_progress", "output": "x", "elapsedTimeSeconds": 3}}


# --- the corpus samples (expected values written by hand) -----------------------------------

ALLOWED, PR = "allowed", "permission-required"
UNT = {"unterminated"}
PINF = {"permission-inferred"}


def test_sample_short_bypass_cancel() -> None:
    """v2.1.38 under bypassPermissions: Bash (a PreToolUse hook ran) and Glob both answered
    "The user doesn't want to proceed" in the same ms as "[Request interrupted by user for tool
    use]": Esc while they ran, not a declined prompt (rule 1: bypass shows no prompt)."""
    data = (TR / "spotter__short.jsonl").read_bytes()
    vcon, rep = cc.convert(data, source_name="short.jsonl")
    m = model_of(vcon)
    no_errors(m)
    assert ops(m) == [
        ("op-0001", "!host", "Bash", "cancel-requested", ALLOWED, UNT),
        ("op-0002", "!host", "Glob", "cancel-requested", ALLOWED, UNT),
    ]
    # one standing decision per built-in tool the session calls (modes treat tools apart)
    assert [(s.server, s.tool, s.decision) for s in m.standing] == [
        ("!host", "Bash", ALLOWED), ("!host", "Glob", ALLOWED)]
    assert m.standing[0].time == datetime(2026, 2, 10, 21, 11, 56, 846000, tzinfo=UTC)
    cancels = [e.raw for e in m.events if e.type == "tool-cancel"]
    assert len(cancels) == 2
    assert all(c["inferred"].startswith("decline-or-cancel rule 1") for c in cancels)
    assert not [e for e in m.events if e.type == "policy-decision"
                and e.raw.get("policy_life") == "once"]
    assert (rep.mapped, rep.unmapped) == (7, 0)  # lines 4 (mode, prompt), 7 (reply), 8-12
    counted(rep, 15)
    assert any("rule 1" in w for w in rep.warnings)


SUBAGENT_MAIN = [
    ("op-0001", "!host", "WebFetch", "completed", None, set()),
    ("op-0002", "!host", "WebSearch", "completed", None, set()),
    ("op-0003", "!host", "WebSearch", "completed", None, set()),
    ("op-0004", "!host", "WebSearch", "completed", None, set()),
    ("op-0005", "!host", "Glob", "completed", None, set()),
    ("op-0006", "!host", "WebSearch", "completed", None, set()),
    ("op-0007", "!host", "Read", "completed", None, set()),
    ("op-0008", "!host", "WebSearch", "completed", None, set()),
    ("op-0009", "!host", "AskUserQuestion", "completed", None, set()),
    ("op-0010", "!host", "Task", "completed", None, set()),
]
SUBAGENT_CHILD = [  # the Plan sub-agent (agentId afb92ff), run inside op-0010
    ("op-0011", "!host", "Read", "failed", None, set()),  # EISDIR
    # <tool_use_error>Sibling tool call errored: never ran (the host cancelled them)
    ("op-0012", "!host", "Read", "not-performed", PR, set()),
    ("op-0013", "!host", "Bash", "not-performed", PR, set()),
    ("op-0014", "!host", "Bash", "completed", None, set()),
    ("op-0015", "!host", "Bash", "completed", None, set()),
    ("op-0016", "!host", "Read", "completed", None, set()),
    ("op-0017", "!host", "Bash", "completed", None, set()),
    ("op-0018", "!host", "Read", "completed", None, set()),
    ("op-0019", "!host", "Read", "completed", None, set()),
]
SUBAGENT_AFTER = [  # permissionMode default from 22:01:14: the four Bash calls ask
    ("op-0020", "!host", "Write", "completed", None, set()),
    # "User has approved exiting plan mode" at 22:01:10: the user's once grant
    ("op-0021", "!host", "ExitPlanMode", "completed", ALLOWED, set()),
    ("op-0022", "!host", "Bash", "completed", PR, PINF),
    ("op-0023", "!host", "Bash", "completed", PR, PINF),
    ("op-0024", "!host", "Bash", "completed", PR, PINF),
    ("op-0025", "!host", "Bash", "completed", PR, PINF),
]


def test_sample_subagent() -> None:
    data = (TR / "spotter__subagent.jsonl").read_bytes()
    vcon, rep = cc.convert(data, source_name="subagent.jsonl")
    m = model_of(vcon)
    no_errors(m)
    assert ops(m) == SUBAGENT_MAIN + SUBAGENT_CHILD + SUBAGENT_AFTER
    assert [party_of(m, o[0]) for o in SUBAGENT_MAIN + SUBAGENT_AFTER] == [0] * 16
    assert {party_of(m, o[0]) for o in SUBAGENT_CHILD} == {1}
    sub = vcon["parties"][1]
    assert sub["name"] == "sub-agent afb92ff" and sub["role"] == "agent"
    assert sub["meta"]["launched_by"] == {"operation_id": "op-0010",
                                          "tool_use_id": "toolu_01Cz2Pnv7qNcnK1ZiocxWhQX"}
    # permissionMode default: the tools that ask are permission-required (ExitPlanMode asks
    # the user to approve the plan), the read-only tier is allowed (Claude Code never asks
    # about it), so only the Bash calls are inferred
    assert {(s.tool, s.decision) for s in m.standing} == {
        ("Bash", PR), ("WebFetch", PR), ("WebSearch", PR), ("Write", PR),
        ("AskUserQuestion", ALLOWED), ("ExitPlanMode", PR), ("Glob", ALLOWED),
        ("Read", ALLOWED), ("Task", ALLOWED)}
    assert {s.server for s in m.standing} == {"!host"}
    counted(rep, len([x for x in data.split(b"\n") if x.strip()]))
    assert rep.unmapped == 0


def test_sample_dmux_declined_prompt() -> None:
    """v2.0.42, no permissionMode recorded: the last Bash (gh repo view) was answered "The user
    doesn't want to proceed"; no hook, no progress, no bypass: a declined prompt (rule 4)."""
    data = (TR / "dmux__logs_chat.json").read_bytes()
    vcon, rep = cc.convert(data, source_name="chat.json")
    m = model_of(vcon)
    no_errors(m)
    got = ops(m)
    assert len(got) == 50
    failed = {o[0] for o in got if o[3] == "failed"}
    assert failed == {"op-0039", "op-0042"}  # Exit code 1
    last = got[-1]
    assert last == ("op-0050", "!host", "Bash", "not-performed", PR, set())
    assert all(o[3] == "completed" for o in got if o[0] not in failed | {"op-0050"})
    dec = [e.raw for e in m.events if e.type == "policy-decision"]
    assert len(dec) == 1 and dec[0]["inferred"].startswith("decline-or-cancel rule 4")
    assert "doesn't want to proceed" in dec[0]["reason"]
    assert not [e for e in m.events if e.raw.get("operation_id") == "op-0050"
                and e.type == "tool-invocation"]
    assert m.standing == ()
    assert rep.unmapped == 0
    counted(rep, len(json.loads(data)))


ATTIO_FAILED = {9, 13, 18, 19, 21, 26}
ATTIO_HOST = {1: "TodoWrite", 2: "TodoWrite", 10: "Write", 11: "TodoWrite", 14: "Edit",
              22: "Edit", 25: "TodoWrite", 27: "Edit", 28: "TodoWrite", 29: "Edit", 30: "Edit"}


def test_sample_attio_mcp_tools() -> None:
    data = (TR / "attio-mcp-server__logs_chat.json").read_bytes()
    vcon, rep = cc.convert(data, source_name="chat.json")
    m = model_of(vcon)
    no_errors(m)
    got = ops(m)
    assert len(got) == 30
    for i, o in enumerate(got, 1):
        if i in ATTIO_HOST:
            assert (o[1], o[2]) == ("!host", ATTIO_HOST[i])
        else:
            assert o[1] == "attio" and "__" not in (o[2] or "")
        assert o[3] == ("failed" if i in ATTIO_FAILED else "completed"), o
        assert o[4] is None
    assert got[2][2] == "search-records"
    assert rep.unmapped == 0
    counted(rep, len(json.loads(data)))


def test_sample_schema_breadth() -> None:
    """agent-sessions' trimmed fixture: modes bypassPermissions, "ask" (not a real mode: read
    as asking), default, a trimmed one; a sidechain tool_use with no id whose results cannot be
    paired; trimmed timestamps."""
    data = (TR / "agent-sessions__claude_small.jsonl").read_bytes()
    vcon, rep = cc.convert(data, source_name="small.jsonl")
    m = model_of(vcon)
    no_errors(m)
    got = ops(m)
    assert [(o[2], o[3], o[4]) for o in got] == [
        ("bash", "running", PR),  # its result names no tool_use id: never paired
        ("Bash", "completed", PR),
        ("[trimmed for fixture]", "running", PR),
    ]
    assert rep.unmapped == 2  # the two tool_results with tool_use_id null
    assert rep.times == "partial"
    counted(rep, len([x for x in data.split(b"\n") if x.strip()]))


PRE_TOOLS = ["Bash", "Bash", "TodoWrite", "Glob", "Glob", "TodoWrite", "Read", "Read",
             "TodoWrite", "Edit", "TodoWrite", "Bash", "Bash", "Bash", "TodoWrite", "Read",
             "Edit", "Read", "Edit", "TodoWrite"]
POST_TOOLS = ["TodoWrite", "Read", "Read", "TodoWrite", "Edit", "TodoWrite", "Bash", "Bash",
              "TodoWrite", "Read", "Edit", "Read", "Edit", "TodoWrite"]


def test_sample_hook_logs() -> None:
    pre = (HK / "quantstats__pre_tool_use.json").read_bytes()
    post = (HK / "quantstats__post_tool_use.json").read_bytes()
    assert detect(pre).name == "claude-code" and detect(post).name == "claude-code"
    v1, r1 = cc.convert(pre, source_name="pre_tool_use.json")
    m1 = model_of(v1)
    no_errors(m1)
    assert [(o[1], o[2], o[3]) for o in ops(m1)] == [("!host", t, "running") for t in PRE_TOOLS]
    assert r1.times == "order-only" and r1.mapped == 20
    v2, r2 = cc.convert(post, source_name="post_tool_use.json")
    m2 = model_of(v2)
    no_errors(m2)
    assert [(o[2], o[3]) for o in ops(m2)] == [(t, "completed") for t in POST_TOOLS]
    assert r2.mapped == 14


def test_other_hook_logs_are_recognised_and_refused_with_the_reason() -> None:
    # recognised as Claude Code's (a refusal saying "not a recording vcon-view imports" would
    # be wrong), and refused because they hold no tool call: one line naming the hook events
    for name in ("attio__notification.json", "attio__stop.json", "attio__session_start.json"):
        assert detect((HK / name).read_bytes()).name == "claude-code"
        with pytest.raises(ImportInputError, match="it records no tool call"):
            cc.convert((HK / name).read_bytes())


# --- mapping rules ---------------------------------------------------------------------------


def test_tool_use_is_one_operation_with_host_id_in_content() -> None:
    _vcon, rep, m = conv([use(1, "toolu_1", "Read", {"file_path": "a"}),
                         res(2, "toolu_1", "ok"),
                         use(3, "toolu_2", "mcp__github__list_issues", {"repo": "x"}),
                         res(4, "toolu_2", [{"type": "text", "text": "[]"}])])
    no_errors(m)
    assert ops(m) == [("op-0001", "!host", "Read", "completed", None, set()),
                      ("op-0002", "github", "list_issues", "completed", None, set())]
    inv = [e.raw for e in m.events if e.type == "tool-invocation"]
    assert inv[0]["body"] == {"tool_use_id": "toolu_1", "input": {"file_path": "a"}}
    assert inv[0]["attempt"] == 1
    assert rep.mapped == 4


def test_result_kinds_failure_error_timeout() -> None:
    _, rep, m = conv([
        use(1, "t1", "Bash", {"command": "false"}), res(2, "t1", "Exit code 1", True),
        use(3, "t2", "Read"), res(4, "t2", "<tool_use_error>File does not exist.</tool_use_error>",
                                  True),
        use(5, "t3", "Bash"), res(6, "t3", "Command timed out after 2m 0.0s", True),
    ])
    no_errors(m)
    assert [o[3] for o in ops(m)] == ["failed", "errored", "timed-out"]
    assert any("timeout" in w for w in rep.warnings)


@pytest.mark.parametrize(("text", "decision"), [
    ("Bash operation blocked by hook:\n- [guard.sh]: no rm -rf", "disallowed"),
    ("Permission to use Bash with command rm -rf / has been denied.", "disallowed"),
    ("cd to '/etc' was blocked. For security, Claude Code may only change directories to "
     "the allowed working directories", "disallowed"),
    ("Claude requested permissions to use Bash, but you haven't granted it yet.", PR),
    ("File is in a directory that is denied by your permission settings.", "disallowed"),
    ("PreToolUse:Bash hook error: [npx block-no-verify]: BLOCKED: --no-verify", "disallowed"),
    ("Permission for this action was denied by the Claude Code auto mode classifier. Reason: "
     "Blocked by classifier.", "disallowed"),
    ("Permission for this command was denied by a built-in Claude Code safety check, not by "
     "the user.", "disallowed"),
])
def test_host_refusal_is_a_decision_without_invocation(text: str, decision: str) -> None:
    _, rep, m = conv([use(1, "t1", "Bash", {"command": "rm -rf /"}), hook(2, "t1"),
                      res(3, "t1", text, True)])
    no_errors(m)
    o = m.operations[0]
    assert (o.tool, o.decision, o.decision_life, o.attempts) == ("Bash", decision, "once", ())
    assert o.outcome == ("disallowed" if decision == "disallowed" else "not-performed")
    dec = next(e.raw for e in m.events if e.type == "policy-decision")
    assert dec["reason"] == text and dec["inferred"].startswith("refused by the host")
    assert any("refused by the host" in w for w in rep.warnings)


# Refusal texts of Claude Code 2.1.328 (its npm build, @anthropic-ai/claude-code-linux-x64
# 2.1.328, read from the binary's string table; Claude Code's own words, (c) Anthropic PBC,
# quoted as the host output the importer reads) that older transcripts carry without a
# toolDenialKind. APPROVAL_SURFACE is a tool_result line as a real `claude -p
# --permission-prompts none` session (Claude Code 2.1.280) wrote it, quoted whole in a public
# rendered stream-json transcript of a course-tutor pilot (found by exact string in the public
# code index, which did not name its repository, so its licence is unknown: only Claude Code's
# words are taken from it, the same as 2.1.328's template UQe); the same words stand in other
# public reports of 2.1.263+ sessions. The others are the 2.1.328 templates filled in.
APPROVAL_SURFACE = (
    "Permission for this tool use was denied. It requires approval, and this session has no "
    "approval surface \u2014 nobody can answer a permission prompt here \u2014 so it was denied "
    "automatically. The action was NOT performed; do not claim it succeeded, and do not retry "
    "it: this action, and anything else that requires approval, will be denied the same way "
    "for the rest of this session. Tell the user what was blocked and why you needed it, then "
    "continue with the parts of the task that do not require approval. What required "
    "approval: This command requires approval")
NO_PROMPTS = (
    "Permission for this tool use was denied: it requires interactive approval, and permission "
    "prompts are not available in this session. The action was NOT performed. Do not claim it "
    "succeeded, and do not retry it in this session \u2014 report the limitation to the user, or "
    "suggest an alternative. What was requested: Claude requested permissions to use Bash, but "
    "you haven't granted it yet.")
NOBODY_HERE = (
    "This call was denied and did not run. It needs the user's answer, and the user has not "
    "written since something other than their message opened a turn, so nobody may be here to "
    "give one. You can go on with work that needs no approval. The user reads your reply when "
    "they come back: if it says what is waiting, they can tell you whether to go ahead, and "
    "after their message you can make the call again. What is waiting: This command requires "
    "approval")


@pytest.mark.parametrize(("text", "decision", "who"), [
    (APPROVAL_SURFACE, PR, "no prompt could be shown"),
    (NO_PROMPTS, PR, "no prompt could be shown"),
    (NOBODY_HERE, PR, "no prompt could be shown"),
    ("Permission to read /home/u/app/.env has been denied.", "disallowed", "deny rule"),
    ("Permission to read /w/link has been denied (it resolves, through a symbolic link, to a "
     "path a Read rule denies).", "disallowed", "deny rule"),
    ("Permission to edit /home/u/app/settings.py has been denied.", "disallowed", "deny rule"),
    ("Permission to use Bash denied by plugin guard: rm -rf outside the project",
     "disallowed", "plugin"),
    ("Permission to use mcp__github__merge_pull_request denied by plugins guard, audit",
     "disallowed", "plugin"),
    ("Permission for this action has been denied. Reason: deletes files outside the project.",
     "disallowed", "auto-mode classifier"),
])
def test_2_1_328_refusal_texts_without_denial_kind(text: str, decision: str, who: str) -> None:
    """An older transcript (no toolDenialKind) answering a call with one of these texts: the
    call never ran. Reviewer: one once decision each (permission-required where no prompt could
    be shown, as for the known "IMPORTANT: You *may* attempt" text; disallowed for a Read/Edit
    deny rule, a plugin's tool.judge / tool.check deny and the classifier's outcome-hidden
    text), no invocation. Before: each was a tool-failure, a call shown as run that never
    ran."""
    _, rep, m = conv([use(1, "t1", "Bash", {"command": "uv sync"}), res(2, "t1", text, True)])
    no_errors(m)
    o = m.operations[0]
    assert (o.decision, o.decision_life, o.attempts) == (decision, "once", ())
    assert o.outcome == ("disallowed" if decision == "disallowed" else "not-performed")
    dec = next(e.raw for e in m.events if e.type == "policy-decision")
    assert dec["reason"] == text and who in dec["inferred"]
    assert any("refused by the host" in w for w in rep.warnings)


@pytest.mark.parametrize("text", [
    "Permission to read issue 42 has been denied.",
    "Permission to edit /repo/README.md has been denied.",
    "Permission for this operation has been denied. Reason: the token lacks the repo scope",
])
def test_an_mcp_servers_own_denial_words_are_its_failure(text: str) -> None:
    """Claude Code writes "Permission to read|edit <path> has been denied." only for its own
    file tools (a Read or Edit deny rule) and "Permission for this action has been denied.
    Reason: " for the classifier; an MCP server's error answer in like words is the server's
    (the call ran and failed). Reviewer: failed, no decision. Before: a once disallowed
    decision, not run, as if Claude Code's deny rule or classifier had refused it."""
    _, _, m = conv([use(1, "t1", "mcp__github__get_issue", {"n": 42}), res(2, "t1", text, True)])
    o = m.operations[0]
    assert (o.outcome, o.decision) == ("failed", None)


def test_denial_kind_permission_rule_of_an_ask_nobody_could_answer() -> None:
    """Claude Code 2.1.328 writes toolDenialKind "permission-rule" for every denial that is not
    the user's or the classifier's (its Ube), among them the ask that no prompt could show
    (decisionReason asyncAgent: "no approval surface in this session; permission request denied
    automatically"). Reviewer: t1, t2 (the same answers with and without the kind) read alike,
    permission-required, as README says of these texts; t3, a deny rule's text with the kind,
    stays disallowed. Before: t1 disallowed (the kind alone), t2 permission-required (the
    text): one event, two pictures depending on the version that wrote it."""
    _, _, m = conv([
        use(1, "t1", "Bash", {"command": "uv sync"}),
        res(2, "t1", APPROVAL_SURFACE, True, "Error: " + APPROVAL_SURFACE,
            toolDenialKind="permission-rule"),
        use(3, "t2", "Bash", {"command": "uv sync"}), res(4, "t2", APPROVAL_SURFACE, True),
        use(5, "t3", "Read", {"file_path": "/w/.env"}),
        res(6, "t3", "Permission to read /w/.env has been denied.", True,
            toolDenialKind="permission-rule")])
    no_errors(m)
    assert [(o.outcome, o.decision) for o in m.operations] == [
        ("not-performed", PR), ("not-performed", PR), ("disallowed", "disallowed")]
    why = [e.raw["inferred"] for e in m.events if e.type == "policy-decision"]
    assert "toolDenialKind permission-rule" in why[0] and "no prompt could be shown" in why[0]
    assert "toolDenialKind permission-rule" in why[2] and "deny rule" in why[2]


def test_refusal_words_inside_tool_output_stay_a_failure() -> None:
    """The host's words are matched at the start of the answer only: a command whose own output
    says so failed (it ran)."""
    _, _, m = conv([use(1, "t1", "Bash", {"command": "./deploy.sh"}),
                    res(2, "t1", "Exit code 1\nPermission to read /etc/shadow has been denied.",
                        True),
                    use(3, "t2", "Bash", {"command": "./check.sh"}),
                    res(4, "t2", "Exit code 1\nCommand timed out after 5s", True)])
    assert [(o.outcome, o.decision) for o in m.operations] == [("failed", None), ("failed", None)]


# Claude Code kills a Bash command at its timeout with SIGTERM and, only for exit code 143,
# puts "Command timed out after <duration>" first in the output after "Exit code 143" (2.1.328:
# `e===143` sets timedOut). Real captures quote the answer so: "Error: Exit code 143\nCommand
# timed out after 2m 0s" (the toolUseResult string of a public hook test, "captured verbatim"),
# "Exit code 143\nCommand timed out after 10m 0s" (called "THE dominant real case" of a public
# PostToolUseFailure hook's tests).
TIMEOUT_143 = "Exit code 143\nCommand timed out after 10m 0s"


def test_exit_143_timeout_text_is_a_timeout() -> None:
    """Reviewer: both calls timed out (the host killed them). Before: the first, with the
    exit-code line Claude Code puts first, read as failed."""
    _, rep, m = conv([
        use(1, "t1", "Bash", {"command": "pytest"}),
        res(2, "t1", TIMEOUT_143 + "\n........ [ 78%]", True, "Error: " + TIMEOUT_143),
        use(3, "t2", "Bash", {"command": "sleep 200"}),
        res(4, "t2", "Command timed out after 2m 0.0s", True)])
    no_errors(m)
    assert [o.outcome for o in m.operations] == ["timed-out", "timed-out"]
    assert any("timeout" in w for w in rep.warnings)


def test_tool_output_naming_a_hook_error_is_a_failure() -> None:
    _, _, m = conv([use(1, "t1", "Bash", {"command": "git commit"}),
                    res(2, "t1", "Exit code 1\nhusky - pre-commit hook error: lint failed", True)])
    assert (m.operations[0].outcome, m.operations[0].decision) == ("failed", None)


def test_tool_denial_kind() -> None:
    _, _, m = conv([use(1, "t1", "Write"),
                    res(2, "t1", "denied", True, toolDenialKind="rule")])
    assert (m.operations[0].decision, m.operations[0].outcome) == ("disallowed", "disallowed")


ESC_TEXT = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. "
            "if it was a file edit, the new_string was NOT written to the file). STOP what you "
            "are doing and wait for the user to tell you how to proceed.")


def test_tool_denial_kind_user_rejected_is_still_the_decline_or_cancel_trap() -> None:
    """Claude Code 2.1.x marks the answer with toolDenialKind (its enum: user-rejected,
    permission-rule, automode-blocked, automode-unavailable, automode-parsing-error,
    interrupted, cancelled; the 2.1.328 npm build). A real capture of Claude Code 2.1.270
    (Esc pressed while a `python3 -c 'time.sleep(40)'` Bash call ran, a PreToolUse hook having
    fired) shows it writes toolDenialKind "user-rejected", toolUseResult "User rejected tool
    use" and the decline text, then "[Request interrupted by user for tool use]": the same
    marks as a declined prompt. So user-rejected decides nothing alone; the decline-or-cancel
    rules do. Reviewer: t1 (a hook ran: it was under way) cancelled, not a declined prompt;
    t2 (no sign it started) declined at the prompt, not run; t3 under bypassPermissions (no
    prompt is shown) cancelled. Before: all three 'declined, not run' (permission-required),
    hiding that t1 and t3 had started."""
    _, _, m = conv([
        use(1, "t1", "Bash", {"command": "python3 -c 'import time; time.sleep(40)'"}),
        hook(2, "t1"),
        res(3, "t1", ESC_TEXT, True, "User rejected tool use", toolDenialKind="user-rejected"),
        use(4, "t2", "Bash", {"command": "rm -rf build"}),
        res(5, "t2", ESC_TEXT, True, "User rejected tool use", toolDenialKind="user-rejected"),
        prompt(6, "go on", "bypassPermissions"),
        use(7, "t3", "Bash", {"command": "make"}),
        res(8, "t3", ESC_TEXT, True, "User rejected tool use", toolDenialKind="user-rejected"),
    ])
    no_errors(m)
    assert [(o.outcome, o.decision) for o in m.operations] == [
        ("cancel-requested", None), ("not-performed", PR), ("cancel-requested", ALLOWED)]


def test_tool_denial_before_or_after_run_says_whether_it_ran() -> None:
    """Claude Code 2.1.328 (its npm build) adds to the answer's user record
    toolDenialBeforeRun / toolDenialAfterRun and, for a prompt the user declined,
    permissionDecision {decision: "reject", source: "user_reject"}; its own transcript view
    reads user-rejected with either of the first as 'refused, never ran' and a denial after the
    run as a call that ran. Reviewer: t1 (a PreToolUse hook ran, then the user declined the
    prompt: toolDenialBeforeRun) declined, not run, not the cancel rule 3 would guess; t2 the
    same told by permissionDecision; t3 ran, then a hook refused its result
    (toolDenialAfterRun): it ran and failed, not 'never ran'. Before: t1 and t2 cancelled,
    t3 disallowed with no attempt."""
    _, _, m = conv([
        use(1, "t1", "Bash", {"command": "rm -rf build"}), hook(2, "t1"),
        res(3, "t1", ESC_TEXT, True, "User rejected tool use", toolDenialKind="user-rejected",
            toolDenialBeforeRun=True),
        use(4, "t2", "Bash", {"command": "rm -rf dist"}), hook(5, "t2"),
        res(6, "t2", ESC_TEXT, True, "User rejected tool use", toolDenialKind="user-rejected",
            permissionDecision={"decision": "reject", "source": "user_reject"}),
        use(7, "t3", "Write", {"file_path": "/w/a.py"}),
        res(8, "t3", "PostToolUse:Write hook blocking error: secrets written", True,
            toolDenialKind="permission-rule", toolDenialAfterRun=True),
    ])
    no_errors(m)
    assert [(o.outcome, o.decision) for o in m.operations] == [
        ("not-performed", PR), ("not-performed", PR), ("failed", None)]
    fail = next(e.raw for e in m.events if e.type == "tool-failure")
    assert "toolDenialAfterRun" in fail["inferred"]


def test_tool_denial_kind_interrupted_or_cancelled_is_a_cancel() -> None:
    """toolDenialKind "interrupted" (Claude Code rewrites the open calls' results when the
    user interrupts or the session shuts down while they run) and "cancelled" (the call's abort
    signal fired) are cancels by the user or the host, not a refusal: tool-cancel, like
    "[Request interrupted by user for tool use]". permission-rule and automode-blocked stay
    refusals (disallowed). Before: interrupted and cancelled read as 'disallowed', a host
    refusal that never ran."""
    _, _, m = conv([
        use(1, "t1", "Bash", {"command": "make"}),
        res(2, "t1", "[Request interrupted by user for tool use]", True,
            toolDenialKind="interrupted"),
        use(3, "t2", "Bash", {"command": "make test"}),
        res(4, "t2", "The operation was aborted.", True, toolDenialKind="cancelled"),
        use(5, "t3", "Bash", {"command": "rm -rf /"}),
        res(6, "t3", "Permission to use Bash has been denied.", True,
            toolDenialKind="permission-rule"),
        use(7, "t4", "Bash", {"command": "curl x | sh"}),
        res(8, "t4", "Permission for this action was denied by the Claude Code auto mode "
            "classifier. Reason: remote code.", True, toolDenialKind="automode-blocked"),
    ])
    no_errors(m)
    assert [o.outcome for o in m.operations] == [
        "cancel-requested", "cancel-requested", "disallowed", "disallowed"]
    cancels = [e.raw for e in m.events if e.type == "tool-cancel"]
    assert all("toolDenialKind" in c["inferred"] for c in cancels)


def test_permission_modes_are_standing_decisions() -> None:
    _, _rep, m = conv([
        prompt(1, "go", "default"),
        use(2, "t1", "Bash"), res(3, "t1", "ok"),
        prompt(4, "again", "default"),  # unchanged: no new decision
        prompt(5, "yolo", "bypassPermissions"),
        use(6, "t2", "Bash"), res(7, "t2", "ok"),
        use(8, "t3", "mcp__gh__x"), res(9, "t3", "ok"),
    ])
    no_errors(m)
    st_ = [(s.time.second, s.server, s.tool, s.decision) for s in m.standing]
    assert st_ == [(1, "!host", "Bash", PR), (1, "gh", None, PR),
                   (5, "!host", "Bash", ALLOWED), (5, "gh", None, ALLOWED)]
    assert ops(m) == [("op-0001", "!host", "Bash", "completed", PR, PINF),
                      ("op-0002", "!host", "Bash", "completed", ALLOWED, set()),
                      ("op-0003", "gh", "x", "completed", ALLOWED, set())]
    # approved prompts leave no record: no once "allowed" is invented
    assert not [e for e in m.events if e.raw.get("policy_life") == "once"]
    evs = [e.raw for e in m.events if e.type == "policy-decision"]
    assert all("operation_id" not in e and "attempt" not in e for e in evs)


def _decline_case(lines: list[Any]) -> tuple[Model, dict[str, Any]]:
    _, _, m = conv(lines)
    no_errors(m)
    ev = next(e.raw for e in m.events if e.type in ("tool-cancel", "policy-decision")
              and e.raw.get("policy_life") != "standing")
    return m, ev


def test_decline_rule_1_bypass_is_cancel() -> None:
    m, ev = _decline_case([prompt(1, "x", "bypassPermissions"), use(2, "t1", "Bash"),
                           res(3, "t1", DECLINE, True, USER_REJECTED := "User rejected tool use")])
    assert USER_REJECTED
    assert m.operations[0].outcome == "cancel-requested"
    assert ev["type"] == "tool-cancel" and "rule 1" in ev["inferred"]


def test_decline_rule_2_progress_is_cancel() -> None:
    m, ev = _decline_case([prompt(1, "x", "default"), use(2, "t1", "Bash"),
                           bash_progress(3, "t1"), res(4, "t1", DECLINE, True)])
    assert m.operations[0].outcome == "cancel-requested"
    assert "rule 2" in ev["inferred"]
    assert [e.type for e in m.events if e.raw.get("operation_id") == "op-0001"] == [
        "tool-invocation", "tool-progress", "tool-cancel"]


def test_decline_rule_3_hook_is_cancel() -> None:
    m, ev = _decline_case([prompt(1, "x", "default"), use(2, "t1", "Bash"), hook(3, "t1"),
                           res(4, "t1", DECLINE, True)])
    assert m.operations[0].outcome == "cancel-requested"
    assert "rule 3" in ev["inferred"]


def test_decline_rule_4_declined_prompt() -> None:
    m, ev = _decline_case([prompt(1, "x", "default"), use(2, "t1", "Edit"),
                           res(3, "t1", DECLINE, True, "User rejected tool use"),
                           prompt(4, "[Request interrupted by user for tool use]")])
    o = m.operations[0]
    assert (o.decision, o.decision_life, o.outcome) == (PR, "once", "not-performed")
    assert ev["type"] == "policy-decision" and "rule 4" in ev["inferred"]
    assert ev["reason"] == DECLINE


SIBLING = "<tool_use_error>Sibling tool call errored</tool_use_error>"


def test_sibling_errored_is_not_run() -> None:
    """Parallel calls: the first fails, so Claude Code runs neither of the others and answers
    them "Sibling tool call errored". They never ran: not performed, not errored, and the
    decision says why (the host's words as its reason, the rule as ``inferred``)."""
    lines = [prompt(1, "x", "bypassPermissions"), use(2, "t1", "Read"), use(2, "t2", "Read"),
             use(2, "t3", "Bash"), res(3, "t1", "EISDIR: illegal operation on a directory", True),
             res(3, "t2", SIBLING, True, "Sibling tool call errored"),
             res(3, "t3", [{"type": "text", "text": SIBLING}], True)]
    _, rep, m = conv(lines)
    no_errors(m)
    assert [(o.operation_id, o.outcome, o.decision, o.decision_life) for o in m.operations] == [
        ("op-0001", "failed", ALLOWED, "standing"),
        ("op-0002", "not-performed", PR, "once"),
        ("op-0003", "not-performed", PR, "once")]
    for op in ("op-0002", "op-0003"):
        evs = [e.raw for e in m.events if e.raw.get("operation_id") == op]
        assert [e["type"] for e in evs] == ["policy-decision"]  # no tool-invocation: never ran
        assert evs[0]["reason"] == SIBLING
        assert "Sibling tool call errored" in evs[0]["inferred"]
        assert "before it ran" in evs[0]["inferred"]
    assert [w for w in rep.warnings if "Sibling" in w and w.startswith("rule fired 2x")]


def test_sibling_errored_after_the_call_started_is_a_cancel() -> None:
    """The same words for a call that had reported progress (or had a hook run): it was under
    way, so Claude Code cancelled it while it ran (as decline-or-cancel rules 2 and 3 read)."""
    lines = [prompt(1, "x", "bypassPermissions"), use(2, "t1", "Bash"), use(2, "t2", "Bash"),
             use(2, "t3", "Bash"), bash_progress(3, "t2"), hook(3, "t3"),
             res(4, "t1", "exit 1", True), res(4, "t2", SIBLING, True), res(4, "t3", SIBLING, True)]
    _, _, m = conv(lines)
    no_errors(m)
    assert {o.operation_id: o.outcome for o in m.operations} == {
        "op-0001": "failed", "op-0002": "cancel-requested", "op-0003": "cancel-requested"}
    for op in ("op-0002", "op-0003"):
        evs = [e.raw for e in m.events if e.raw.get("operation_id") == op]
        assert evs[0]["type"] == "tool-invocation" and evs[-1]["type"] == "tool-cancel"
        assert "Sibling tool call errored" in evs[-1]["inferred"]
        assert evs[-1]["body"]["content"] == SIBLING


def test_sibling_text_in_tool_output_is_not_a_cancel() -> None:
    """The words inside a tool's own output (not at the start of an error) change nothing."""
    _, _, m = conv([use(1, "t1", "Bash"), res(2, "t1", "log: Sibling tool call errored", True),
                    use(3, "t2", "Bash"), res(4, "t2", SIBLING, False)])
    assert [o.outcome for o in m.operations] == ["failed", "completed"]


def test_decline_rules_order_bypass_wins_over_nothing() -> None:
    """No hook and no progress, but bypassPermissions: rule 1 decides before rule 4."""
    _m, ev = _decline_case([prompt(1, "x", "bypassPermissions"), use(2, "t1", "Glob"),
                           res(3, "t1", DECLINE, True)])
    assert "rule 1" in ev["inferred"]


def test_interrupt_cancels_open_calls() -> None:
    _, _rep, m = conv([use(1, "t1", "Bash"), bash_progress(2, "t1"), use(3, "t2", "Read"),
                      {"type": "user", "uuid": "i", "sessionId": "s", "timestamp": _t(4),
                       "message": {"role": "user", "content": [
                           {"type": "text", "text": "[Request interrupted by user for tool use]"}
                       ]}},
                      use(5, "t3", "Bash"), res(6, "t3", "partial", False,
                                                {"stdout": "", "interrupted": True})])
    no_errors(m)
    assert [o[3] for o in ops(m)] == ["cancel-requested"] * 3


BG_TUR = {"stdout": "", "stderr": "", "interrupted": False, "backgroundTaskId": "bash_1"}


def test_background_work_is_one_operation() -> None:
    _, rep, m = conv([
        use(1, "t1", "Bash", {"command": "npm run dev", "run_in_background": True}),
        res(2, "t1", "Command running in background with ID: bash_1", False, BG_TUR),
        use(3, "t2", "BashOutput", {"bash_id": "bash_1"}),
        res(4, "t2", "<status>running</status>\n<stdout>ready</stdout>", False,
            {"shellId": "bash_1", "status": "running"}),
        use(5, "t3", "BashOutput", {"bash_id": "bash_1"}),
        res(6, "t3", "<status>completed</status>", False,
            {"shellId": "bash_1", "status": "completed", "exitCode": 0}),
        use(7, "t4", "Bash", {"command": "sleep 99", "run_in_background": True}),
        res(8, "t4", "Command running in background with ID: bash_2", False,
            {**BG_TUR, "backgroundTaskId": "bash_2"}),
        use(9, "t5", "TaskOutput", {"task_id": "bash_2"}),
        res(10, "t5", "…", False, {"retrieval_status": "success",
                                   "task": {"task_id": "bash_2", "status": "running"}}),
        use(11, "t6", "KillShell", {"shell_id": "bash_2"}),
        res(12, "t6", "Successfully killed shell: bash_2"),
        # moved to the background by the user (Ctrl+B): no run_in_background in the input
        use(13, "t7", "Bash", {"command": "make"}),
        res(14, "t7", "Command running in background with ID: b2f8b9", False),
        use(15, "t8", "BashOutput", {"bash_id": "b2f8b9"}),
        res(16, "t8", "<status>failed</status>\n<exit_code>2</exit_code>", False),
    ])
    no_errors(m)
    assert [(o[2], o[3]) for o in ops(m)] == [("Bash", "completed"),
                                              ("Bash", "cancel-requested"), ("Bash", "failed")]
    types = [e.type for e in m.events if e.raw.get("operation_id") == "op-0001"]
    assert types == ["tool-invocation", "tool-pending", "tool-progress", "tool-result"]
    types = [e.type for e in m.events if e.raw.get("operation_id") == "op-0002"]
    assert types == ["tool-invocation", "tool-pending", "tool-progress", "tool-cancel"]
    assert rep.mapped == 16


def _task(i: int, tid: str) -> dict[str, Any]:
    return use(i, tid, "Task", {"description": "look around", "subagent_type": "Explore",
                                "prompt": "p"})


def test_subagent_progress_records() -> None:
    inner_use = {"type": "assistant", "timestamp": _t(3), "uuid": "x1",
                 "message": {"role": "assistant", "content": [
                     {"type": "tool_use", "id": "s1", "name": "Grep", "input": {}}]}}
    inner_res = {"type": "user", "timestamp": _t(4), "uuid": "x2",
                 "message": {"role": "user", "content": [
                     {"type": "tool_result", "tool_use_id": "s1", "content": "hit"}]}}

    def prog(i: int, msg: dict[str, Any]) -> dict[str, Any]:
        return {"type": "progress", "uuid": f"pp{i}", "sessionId": "s", "timestamp": _t(i),
                "parentToolUseID": "task1", "toolUseID": "agent_msg_1",
                "data": {"type": "agent_progress", "agentId": "ab12", "message": msg}}

    vcon, _rep, m = conv([_task(1, "task1"), prog(3, inner_use), prog(4, inner_res),
                         res(5, "task1", "done", None, {"status": "completed",
                                                        "agentId": "ab12"})])
    no_errors(m)
    assert [(o[2], o[3]) for o in ops(m)] == [("Task", "completed"), ("Grep", "completed")]
    assert party_of(m, "op-0002") == 1 and party_of(m, "op-0001") == 0
    assert vcon["parties"][1]["name"] == "sub-agent ab12"
    assert vcon["parties"][1]["meta"]["launched_by"]["operation_id"] == "op-0001"


def test_project_directory_with_subagent_file(tmp_path: Path) -> None:
    proj = tmp_path / "-home-me-proj"
    (proj / "sess1" / "subagents").mkdir(parents=True)
    main_lines = [_task(1, "task1"),
                  res(9, "task1", "done", None, {"status": "completed", "agentId": "ab12"})]
    side = [{**use(3, "s1", "Grep"), "isSidechain": True, "agentId": "ab12", "uuid": "q1"},
            {**res(4, "s1", "hit"), "isSidechain": True, "agentId": "ab12", "uuid": "q2"}]
    (proj / "sess1.jsonl").write_text("\n".join(json.dumps(x) for x in main_lines))
    (proj / "sess1" / "subagents" / "agent-ab12.jsonl").write_text(
        "\n".join(json.dumps(x) for x in side))
    (proj / "notes.txt").write_text("not a session")
    vcon, _rep = cc.convert_path(str(proj))
    m = model_of(vcon)
    no_errors(m)
    assert [(o[2], o[3]) for o in ops(m)] == [("Task", "completed"), ("Grep", "completed")]
    assert party_of(m, "op-0002") == 1
    assert vcon["parties"][1]["meta"]["launched_by"]["operation_id"] == "op-0001"
    out = tmp_path / "out.vcon.json"
    assert main(["import", "claude-code", str(proj), "-q", "-o", str(out)]) == 0
    assert len(json.loads(out.read_text())["events"]) == len(vcon["events"])


def test_resumed_session_repeats_are_flagged_not_double_counted() -> None:
    a, b = use(1, "t1", "Bash"), res(2, "t1", "ok")
    again_new_uuid = {**use(5, "t1", "Bash"), "uuid": "zz"}
    _, rep, m = conv([a, b, {**a, "timestamp": _t(3)}, {**b, "timestamp": _t(4)},
                      again_new_uuid])
    assert len(m.operations) == 1
    assert any("repeated" in w for w in rep.warnings)
    counted(rep, 5)
    assert rep.ignored.get("repeated record (same uuid)") == 2


def test_unknown_and_broken_lines_are_counted() -> None:
    _, rep, m = conv([use(1, "t1", "Bash"), b"{not json", {"type": "brand-new-kind", "x": 1},
                      [1, 2], {"no": "type"}, res(2, "t1", "ok"), {"type": "summary"}])
    assert rep.unmapped == 3  # not JSON, an array, an object with no type
    assert rep.ignored["unknown record type"] == 1 and rep.ignored["summary"] == 1
    counted(rep, 7)
    assert m.operations[0].outcome == "completed"


def test_stream_json() -> None:
    lines = [
        {"type": "system", "subtype": "init", "session_id": "s", "permissionMode": "default",
         "tools": ["Bash", "Task"], "mcp_servers": []},
        {"type": "assistant", "session_id": "s", "parent_tool_use_id": None,
         "message": {"role": "assistant", "content": [
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "rm x"}},
             {"type": "tool_use", "id": "t2", "name": "Task", "input": {"description": "d"}}]}},
        {"type": "user", "session_id": "s", "parent_tool_use_id": None,
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
              "content": "Claude requested permissions to use Bash, but you haven't granted "
                         "it yet."}]}},
        {"type": "assistant", "session_id": "s", "parent_tool_use_id": "t2",
         "message": {"role": "assistant", "content": [
             {"type": "tool_use", "id": "t3", "name": "Read", "input": {}}]}},
        {"type": "user", "session_id": "s", "parent_tool_use_id": "t2",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "t3", "content": "x"}]}},
        {"type": "user", "session_id": "s", "parent_tool_use_id": None,
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "t2", "content": "done"}]}},
        {"type": "result", "subtype": "success", "session_id": "s", "is_error": False,
         "permission_denials": [{"tool_name": "Bash", "tool_use_id": "t1",
                                 "tool_input": {"command": "rm x"}}]},
    ]
    data = b"\n".join(json.dumps(x).encode() for x in lines)
    assert detect(data).name == "claude-code"
    vcon, rep = cc.convert(data)
    m = model_of(vcon)
    no_errors(m)
    assert rep.times == "order-only"
    # operations are listed by their first event: the refused Bash's is its decision, at
    # the tool_result (after the Task was invoked)
    assert sorted((o[0], o[2], o[3], o[4]) for o in ops(m)) == [
        ("op-0001", "Bash", "not-performed", PR), ("op-0002", "Task", "completed", ALLOWED),
        ("op-0003", "Read", "completed", ALLOWED)]
    assert party_of(m, "op-0003") == 1



# Real claude -p --output-format stream-json lines, trimmed: HOOK_DENIED from a public design
# note's live run of Claude Code 2.1.241 (a PreToolUse hook denied the Bash call; its tool_result
# carries tool_result_meta non_execution_kind "permission-rule", the transcript's toolDenialKind
# as the Agent SDK 0.3.337 converter writes it, and the result's permission_denials lists it);
# NEEDS_APPROVAL from a public probe report of Claude Code 2.1.281 (-p with no permission
# handler: a call that needs approval is auto-denied, system/permission_denied, then an
# is_error tool_result, and permission_denials lists it). Neither call ran.
HOOK_TEXT = ("Denied by the board's claudeDirBashHook (T-0411): this Bash command appears to "
             "write under .claude/. Edit/Write is refused there by the CLI's own sensitive-file "
             "protection; Bash is refused the same way here, or it's an open bypass (see "
             "T-0408).")
NEEDS_TEXT = "touch in '/x/made-by-agent.txt' needs approval."


def _stream_lines() -> list[dict[str, Any]]:
    def a(tid: str, name: str, inp: dict[str, Any]) -> dict[str, Any]:
        return {"type": "assistant", "session_id": "s", "parent_tool_use_id": None,
                "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": tid, "name": name, "input": inp}]}}

    def u(tid: str, text: str, err: bool, **extra: Any) -> dict[str, Any]:
        return {"type": "user", "session_id": "s", "parent_tool_use_id": None,
                "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": tid, "content": text,
                     "is_error": err}]}, **extra}

    node = "node -e \"require('fs').writeFileSync('.claude/rules/t0411-scratch.md', 'scratch')\""
    return [
        {"type": "system", "subtype": "init", "session_id": "s", "tools": ["Bash", "Write"],
         "permissionMode": "default", "claude_code_version": "2.1.274"},
        a("toolu_1", "Bash", {"command": "echo probe-ok"}), u("toolu_1", "probe-ok", False),
        a("toolu_013D", "Bash", {"command": node}),
        u("toolu_013D", HOOK_TEXT, True, tool_result_meta=[
            {"id": "toolu_013D", "non_execution_kind": "permission-rule"}]),
        a("toolu_016n", "Bash", {"command": "touch made-by-agent.txt"}),
        {"type": "system", "subtype": "permission_denied", "tool_name": "Bash",
         "tool_use_id": "toolu_016n", "message": NEEDS_TEXT, "session_id": "s"},
        u("toolu_016n", NEEDS_TEXT, True),
        a("toolu_9", "Bash", {"command": "false"}), u("toolu_9", "Exit code 1", True),
        {"type": "result", "subtype": "success", "is_error": False, "session_id": "s",
         "terminal_reason": "completed", "permission_denials": [
             {"tool_name": "Bash", "tool_use_id": "toolu_013D", "tool_input": {"command": node}},
             {"tool_name": "Bash", "tool_use_id": "toolu_016n",
              "tool_input": {"command": "touch made-by-agent.txt"}}]},
    ]


@pytest.mark.parametrize("form", ["stream-json", "json --verbose"])
def test_stream_json_denied_calls_did_not_run(form: str) -> None:
    """What a reviewer should see, written from the lines: the echo ran; the hook's refusal
    (its own words, the permission-rule kind) and the auto-denied touch never ran, each refused
    once; the failed command (not in permission_denials) ran and failed. The same for
    ``--output-format json --verbose``, which writes the records as one JSON array."""
    lines = _stream_lines()
    data = (json.dumps(lines).encode() if form != "stream-json"
            else b"\n".join(json.dumps(x).encode() for x in lines))
    assert detect(data).name == "claude-code"
    vcon, rep = cc.convert(data)
    m = model_of(vcon)
    no_errors(m)
    assert [(o.operation_id, o.outcome, o.decision, o.decision_life) for o in m.operations] == [
        ("op-0001", "completed", PR, "standing"),
        ("op-0002", "disallowed", "disallowed", "once"),
        ("op-0003", "not-performed", PR, "once"),
        ("op-0004", "failed", PR, "standing")]
    for op, text, why in (("op-0002", HOOK_TEXT, "non_execution_kind permission-rule"),
                          ("op-0003", NEEDS_TEXT, "permission_denials")):
        evs = [e.raw for e in m.events if e.raw.get("operation_id") == op]
        assert [e["type"] for e in evs] == ["policy-decision"]  # refused once, never run
        assert evs[0]["reason"] == text and why in evs[0]["inferred"]
    assert rep.ignored.get("system", 0) == 0  # the permission_denied record was read
    counted(rep, len(lines))




def test_stream_json_cut_after_permission_denied_is_refused_not_open() -> None:
    """A stream cut off (the process killed) after Claude Code's permission_denied record,
    before the call's answer and the result: the call was refused, not left running."""
    lines = _stream_lines()[:7]
    assert lines[-1]["subtype"] == "permission_denied"
    _, rep, m = conv(lines)
    assert [(o.operation_id, o.outcome, o.decision, o.decision_life) for o in m.operations][
        -1] == ("op-0003", "not-performed", PR, "once")
    counted(rep, len(lines))
    dec = [e.raw for e in m.events if e.raw.get("operation_id") == "op-0003"]
    assert [e["type"] for e in dec] == ["policy-decision"] and dec[0]["reason"] == NEEDS_TEXT


# claude -p --output-format json without --verbose: the one result object. session_id,
# stop_reason, total_cost_usd, terminal_reason, uuid and the permission_denials entry (its
# tool_input shortened) are a real 2.1.x result's, from a public capture (haiku-4-5, an MCP
# call refused); num_turns and the result text are made up. It carries a uuid, so it used to
# load as an empty vCon.
PLAIN_RESULT = {
    "type": "result", "subtype": "success", "is_error": False, "num_turns": 5,
    "result": "Done.", "stop_reason": "end_turn",
    "session_id": "d6661320-e513-41fb-9014-3909ff45a373", "total_cost_usd": 0.0505197,
    "permission_denials": [{"tool_name": "mcp__flywheel__search",
                            "tool_use_id": "toolu_01NrceAE6wu4mjRr7Q37MeqL",
                            "tool_input": {"action": "query", "limit": 10}}],
    "terminal_reason": "completed", "uuid": "9c7a6165-31a0-4b97-b334-78639ab3d270"}


def test_print_json_result_alone_is_named_not_shown_as_an_empty_vcon() -> None:
    """The result alone names the refused calls but none of the calls that ran: importing
    it would show an agent that only made refused calls. It is recognised and refused with
    what to record instead, never opened as a vCon with no operations."""
    from viewer.load import LoadError

    data = json.dumps(PLAIN_RESULT).encode()
    assert detect(data).name == "claude-code"
    with pytest.raises(LoadError) as exc:
        open_bytes(data, name="out.json")
    msg = str(exc.value)
    assert "--output-format json" in msg and "stream-json --verbose" in msg
    assert "1 call" in msg and "d6661320-e513-41fb-9014-3909ff45a373" in msg


def test_otel_join() -> None:
    t = datetime(2026, 3, 1, 10, 0, 10, 500000, tzinfo=UTC)  # after the tool_use at 10:00:10
    otel = [
        {"tool_use_id": "t1", "tool_name": "Bash", "source": "config", "decision": "accept",
         "time": t},
        {"tool_use_id": "t2", "tool_name": "Bash", "source": "user_temporary",
         "decision": "accept", "time": datetime(2026, 3, 1, 10, 0, 20, 500000, tzinfo=UTC)},
        {"tool_use_id": "t3", "tool_name": "Bash", "source": "user_reject",
         "decision": "reject", "time": None},
        {"tool_use_id": "t4", "tool_name": "Bash", "source": "user_abort", "decision": "reject",
         "time": None},
        {"tool_use_id": "t5", "tool_name": "Bash", "source": "hook", "decision": "reject",
         "time": None},
        {"tool_use_id": "t6", "tool_name": "Bash", "source": "user_permanent",
         "decision": "accept", "time": None},
        {"tool_use_id": "nope", "tool_name": "Bash", "source": "config", "decision": "accept",
         "time": None},
    ]
    lines = [prompt(0, "x", "default")]
    for k in range(1, 7):
        lines += [use(10 * k, f"t{k}", "Bash" if k != 6 else "Write"),
                  res(10 * k + 1, f"t{k}", DECLINE if k in (3, 4) else "ok",
                      True if k in (3, 4) else None)]
    _, rep, m = conv(lines, otel=otel)
    no_errors(m)
    got = [(o[0], o[3], o[4], o[5] if isinstance(o[5], set) else None) for o in ops(m)]
    # config: standing allowed for Bash (tool-level beats the mode's server-level)
    assert got[0][1:3] == ("completed", ALLOWED)
    assert got[1][1:3] == ("completed", PR)  # once permission-required, then it ran
    assert got[2][1:3] == ("not-performed", PR)  # user_reject: not run
    assert got[3][1] == "cancel-requested"  # user_abort
    assert got[4][1:3] == ("disallowed", "disallowed")  # hook reject
    assert got[5][1:3] == ("completed", ALLOWED)  # user_permanent: standing allowed Write
    assert not [f for f in m.findings if f.kind == "decision-after-invocation"]
    inv2 = next(e for e in m.events if e.type == "tool-invocation"
                and e.raw["operation_id"] == "op-0002")
    assert inv2.time == datetime(2026, 3, 1, 10, 0, 20, 500000, tzinfo=UTC)  # OTel's time
    inferred = {e.raw.get("inferred") for e in m.events if e.raw.get("inferred")}
    assert "otel tool_decision source=user_reject" in inferred
    assert "otel tool_decision source=user_abort" in inferred
    assert any("not joined" in w for w in rep.warnings)


def test_otel_option_without_otlp_module(tmp_path: Path, monkeypatch: Any) -> None:
    f = tmp_path / "s.jsonl"
    f.write_bytes((TR / "spotter__short.jsonl").read_bytes())
    logs = tmp_path / "logs.json"
    logs.write_text("{}")
    import viewer.importers.otlp as otlp

    def fake(data: bytes) -> list[dict[str, Any]]:
        return [{"tool_use_id": "toolu_01FdQ8qTyVyZjE3Kw4dguQGx", "tool_name": "Glob",
                 "source": "user_reject", "decision": "reject", "time": None}]

    monkeypatch.setattr(otlp, "claude_tool_decisions", fake, raising=False)
    out = tmp_path / "o.vcon.json"
    assert main(["import", "claude-code", str(f), "--otel", str(logs), "-q",
                 "-o", str(out)]) == 0
    m = model_of(json.loads(out.read_text()))
    assert [(o[2], o[3]) for o in ops(m)] == [("Bash", "cancel-requested"),
                                              ("Glob", "not-performed")]


def test_sniff_is_specific() -> None:
    assert not cc.sniff(sample(b'{"vcon": "0.4.0", "parties": [], "uuid": "x"}'))
    assert not cc.sniff(sample(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call"}\n'))
    assert not cc.sniff(sample(b'{"timestamp": "x", "type": "response_item", "payload": {}}\n'))
    for f in sorted(TR.iterdir()):
        assert cc.sniff(sample(f.read_bytes())), f.name


def test_nothing_readable() -> None:
    with pytest.raises(ImportInputError):
        cc.convert(b"hello\nworld\n")
    with pytest.raises(ImportInputError):
        cc.convert(b"[1, 2, 3]")


def test_cli_import_and_summary(tmp_path: Path, capsys: Any) -> None:
    src = str(TR / "spotter__subagent.jsonl")
    out = tmp_path / "o.vcon.json"
    assert main(["import", "claude-code", src, "-o", str(out)]) == 0
    assert json.loads(out.read_text())["events"]
    capsys.readouterr()
    assert main(["summary", src, "--format", "json"]) == 0
    assert '"operations"' in capsys.readouterr().out


def test_pipeline_opens_raw_transcript() -> None:
    loaded = open_bytes((TR / "spotter__short.jsonl").read_bytes(), name="short.jsonl")
    assert loaded.derivation is not None and loaded.derivation.format == "claude-code"
    assert loaded.derivation.objects == 15


JUNK = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                 st.text(max_size=20),
                 st.dictionaries(st.sampled_from(["type", "message", "uuid", "timestamp",
                                                  "toolUseResult", "data", "permissionMode",
                                                  "isSidechain", "agentId", "parentToolUseID",
                                                  "hook_event_name", "tool_name"]),
                                 st.one_of(st.none(), st.text(max_size=10), st.integers(),
                                           st.sampled_from(["user", "assistant", "progress",
                                                            "t1", "PreToolUse"]),
                                           st.fixed_dictionaries({"role": st.just("user"),
                                                                  "content": st.just([{
                                                                      "type": "tool_result",
                                                                      "tool_use_id": "t1"}])})),
                                 max_size=6))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(JUNK, max_size=8), st.integers(min_value=0, max_value=4))
def test_junk_never_crashes(junk: list[Any], at: int) -> None:
    base = [use(1, "t1", "Bash"), hook(2, "t1"), res(3, "t1", DECLINE, True)]
    lines = base[:at] + [json.dumps(j).encode() for j in junk] + base[at:]
    data = b"\n".join(x if isinstance(x, bytes) else json.dumps(x).encode() for x in lines)
    try:
        vcon, rep = cc.convert(data)
    except ImportInputError:
        return
    m = model_of(vcon)
    no_errors(m)
    counted(rep, len([x for x in data.split(b"\n") if x.strip()]))


def test_enter_plan_mode_is_a_mode_change() -> None:
    _, _, m = conv([prompt(1, "x", "bypassPermissions"), use(2, "t1", "EnterPlanMode"),
                    res(3, "t1", "Entered plan mode."), use(4, "t2", "Read"), res(5, "t2", "ok")])
    # plan mode: the read-only tools stay unasked (one decision per tool the session calls);
    # EnterPlanMode asks the user's consent (its description: "REQUIRES user approval")
    assert [(s.time.second, s.tool, s.decision) for s in m.standing] == [
        (1, "EnterPlanMode", ALLOWED), (1, "Read", ALLOWED),
        (3, "EnterPlanMode", PR), (3, "Read", ALLOWED)]
    assert ops(m)[1][4] == ALLOWED


def test_modes_treat_tools_as_claude_code_does() -> None:
    """default: the read-only tier runs unasked (no 'grant is not recorded' note on a Read),
    Bash and edits ask; acceptEdits: edits run unasked, Bash still asks. One decision per
    tool, so no tool-level decision disagrees with one for all of !host."""
    _, _, m = conv([
        prompt(1, "go", "default"),
        use(2, "t1", "Read"), res(3, "t1", "ok"),
        use(4, "t2", "Edit"), res(5, "t2", "ok"),
        use(6, "t3", "Bash"), res(7, "t3", "ok"),
        prompt(8, "edits ok", "acceptEdits"),
        use(9, "t4", "Edit"), res(10, "t4", "ok"),
        use(11, "t5", "Bash"), res(12, "t5", "ok"),
    ])
    no_errors(m)
    assert [(o[2], o[4], o[5]) for o in ops(m)] == [
        ("Read", ALLOWED, set()), ("Edit", PR, PINF), ("Bash", PR, PINF),
        ("Edit", ALLOWED, set()), ("Bash", PR, PINF)]
    assert not [f for f in m.findings if f.kind == "standing-conflict"]
    reasons = {e.raw["tool"]: e.raw["reason"] for e in m.events
               if e.type == "policy-decision" and e.time.second == 1}
    assert "read-only" in reasons["Read"] and "asks" in reasons["Bash"]


def test_deep_values_do_not_break_the_import(tmp_path: Path) -> None:
    deep: Any = "x"
    for _ in range(300):  # orjson reads 1024 levels but writes 255
        deep = {"a": deep}
    _, rep, m = conv([use(1, "t1", "mcp__s__t", deep), res(2, "t1", "ok"),
                      {"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash",
                       "tool_input": deep}])
    no_errors(m)
    assert [o[3] for o in ops(m)][:1] == ["completed"]
    counted(rep, 3)
    assert any("too deep" in w for w in rep.warnings)
    f = tmp_path / "deep.jsonl"
    f.write_text(json.dumps(use(1, "t1", "Bash", deep)))
    assert main(["import", "claude-code", str(f), "-q", "-o", str(tmp_path / "o.json")]) == 0


def test_hook_log_pairs_by_tool_use_id_and_failure() -> None:
    def h(ev: str, tid: str, **kw: Any) -> dict[str, Any]:
        return {"session_id": "s", "transcript_path": "/x.jsonl", "hook_event_name": ev,
                "tool_name": "Bash", "tool_input": {"command": "make"}, "tool_use_id": tid,
                **kw}

    data = json.dumps([
        h("PreToolUse", "t1"), h("PreToolUse", "t2"), h("PreToolUse", "t3"),
        h("PostToolUse", "t2", tool_response={"stdout": "ok"}),
        h("PostToolUseFailure", "t1", error="Exit code 2"),
        h("PostToolUseFailure", "t3", error="interrupted", is_interrupt=True),
        {"session_id": "s", "hook_event_name": "Notification", "message": "waiting"},
    ]).encode()
    assert detect(data).name == "claude-code"
    vcon, rep = cc.convert(data)
    m = model_of(vcon)
    no_errors(m)
    assert [o[3] for o in ops(m)] == ["failed", "completed", "cancel-requested"]
    assert rep.ignored == {"hook Notification": 1} and rep.mapped == 6


def test_hook_log_post_tool_use_failure_timeout() -> None:
    """A PostToolUseFailure whose error is Claude Code's timeout text (the same words, and the
    same rule, as a transcript's answer). Reviewer: t1, t2 and t4 (a call of a PostToolBatch,
    read as its PostToolUseFailure) timed out; t3 failed (its own output, exit 1). Before: all
    four failed."""
    def h(ev: str, tid: str, **kw: Any) -> dict[str, Any]:
        return {"session_id": "s", "hook_event_name": ev, "tool_name": "Bash",
                "tool_input": {"command": tid}, "tool_use_id": tid, **kw}

    data = json.dumps([
        h("PreToolUse", "t1"), h("PostToolUseFailure", "t1", error=TIMEOUT_143,
                                 is_interrupt=False),
        h("PreToolUse", "t2"), h("PostToolUseFailure", "t2",
                                 error="Command timed out after 2m 0s"),
        h("PreToolUse", "t3"), h("PostToolUseFailure", "t3",
                                 error="Exit code 1\nCommand timed out after 5s"),
        {"session_id": "s", "hook_event_name": "PostToolBatch", "tool_calls": [
            {"tool_name": "Bash", "tool_input": {"command": "t4"}, "tool_use_id": "t4",
             "error": "Error: " + TIMEOUT_143}]},
    ]).encode()
    vcon, rep = cc.convert(data)
    m = model_of(vcon)
    no_errors(m)
    assert [o[3] for o in ops(m)] == ["timed-out", "timed-out", "failed", "timed-out"]
    assert any("timeout" in w for w in rep.warnings)


def test_an_mcp_servers_own_timeout_words_are_its_failure() -> None:
    """Claude Code writes "Command timed out after" for its own Bash tool; an MCP server that
    runs commands (desktop-commander, an ssh server) answering an error in those words failed
    as the server says, the host killed nothing. Reviewer: both MCP calls failed, the Bash
    call of the hook log timed out. Before: both MCP calls timed out, 'the host killed the
    command (timeout text)'."""
    mcp = "mcp__desktop-commander__start_process"
    _, _, m = conv([use(1, "t1", mcp, {"command": "make"}),
                    res(2, "t1", "Command timed out after 30000ms", True)])
    assert [o.outcome for o in m.operations] == ["failed"]

    def h(ev: str, tid: str, tool: str, **kw: Any) -> dict[str, Any]:
        return {"session_id": "s", "hook_event_name": ev, "tool_name": tool,
                "tool_input": {"command": tid}, "tool_use_id": tid, **kw}

    data = json.dumps([
        h("PreToolUse", "t1", mcp),
        h("PostToolUseFailure", "t1", mcp, error="Command timed out after 30s"),
        h("PreToolUse", "t2", "Bash"),
        h("PostToolUseFailure", "t2", "Bash", error="Command timed out after 2m 0s"),
    ]).encode()
    vcon, _ = cc.convert(data)
    assert [o[3] for o in ops(model_of(vcon))] == ["failed", "timed-out"]


def test_subagent_file_alone() -> None:
    side = [{**use(3, "s1", "Grep"), "isSidechain": True, "agentId": "ab12", "uuid": "q1"},
            {**res(4, "s1", "hit"), "isSidechain": True, "agentId": "ab12", "uuid": "q2"}]
    vcon, rep, m = conv(side)
    no_errors(m)
    assert ops(m)[0][2:4] == ("Grep", "completed") and party_of(m, "op-0001") == 1
    assert vcon["parties"][1]["name"] == "sub-agent ab12"
    assert any("launching Task" in w for w in rep.warnings)


def test_a_hook_log_without_tool_calls_is_named_not_refused_blindly() -> None:
    """A Notification/Stop hook log is recognised as Claude Code's, and refused in one line
    that says why (no tool call in it) and where the session's transcript was."""
    from viewer.load import LoadError

    with pytest.raises(LoadError) as exc:
        open_bytes((HK / "attio__notification.json").read_bytes(), name="notification.json")
    msg = exc.value.message
    assert "\n" not in msg and exc.value.exit_code == 2
    assert "hook log of Notification events: it records no tool call" in msg
    assert "278a2245-9881-4e57-8176-beb93e3d7fd3.jsonl" in msg


# --- sub-agents written into the session file (isSidechain, no agentId: Claude Code 1.0.x) -----


def _side_thread(k: int, t0: int) -> list[dict[str, Any]]:
    """One sub-agent thread as 1.0.x wrote it into the session file: the Task's prompt, a
    call, its result, the answer; chained by parentUuid, no agentId."""
    def side(r: dict[str, Any], uid: str, parent: str | None) -> dict[str, Any]:
        return {**r, "uuid": uid, "parentUuid": parent, "isSidechain": True}
    return [side(prompt(t0, f"find thing {k}"), f"r{k}", None),
            side(use(t0 + 1, f"g{k}", "Grep", {"pattern": str(k)}), f"c{k}", f"r{k}"),
            side(res(t0 + 2, f"g{k}", f"hit {k}"), f"o{k}", f"c{k}"),
            side({"type": "assistant", "sessionId": "s", "timestamp": _t(t0 + 3),
                  "message": {"role": "assistant", "content": [
                      {"type": "text", "text": f"thing {k} is here"}]}}, f"e{k}", f"o{k}")]


def _parallel_tasks(n: int, order: list[int]) -> list[dict[str, Any]]:
    """n Task calls launched together, their sidechain records interleaved record by record
    in ``order`` (a thread index per step), then the n Task results."""
    tasks = [use(1, f"task{k}", "Task", {"description": f"job {k}", "prompt": f"find thing {k}",
                                         "subagent_type": "general-purpose"})
             for k in range(n)]
    threads = [_side_thread(k, 10 + 10 * k) for k in range(n)]
    side: list[dict[str, Any]] = []
    pos = [0] * n
    for k in order + [k for k in range(n) for _ in range(4)]:
        if pos[k] < 4:
            side.append(threads[k][pos[k]])
            pos[k] += 1
    done = [res(90 + k, f"task{k}", [{"type": "text", "text": f"thing {k} is here"}])
            for k in range(n)]
    return tasks + side + done


def test_parallel_sidechain_subagents_each_get_their_task() -> None:
    """Two Tasks launched in parallel, their sub-agents' records interleaved in the session
    file with no agentId: each sub-agent is its own party, linked to the Task whose prompt
    began its thread (before: one unlinked 'sub-agent sidechain' party for both, and a warning
    that the launching Task is not in the input although it is)."""
    vcon, rep, m = conv(_parallel_tasks(2, [1, 0, 1, 0, 1, 0, 1, 0]))
    no_errors(m)
    assert [(o[2], o[3]) for o in ops(m)] == [("Task", "completed")] * 2 + [
        ("Grep", "completed")] * 2
    by_tool_input = {e.raw["body"]["input"]["pattern"]: e.raw["party"] for e in m.events
                     if e.raw.get("type") == "tool-invocation" and e.raw.get("tool") == "Grep"}
    p0, p1 = by_tool_input["0"], by_tool_input["1"]
    assert p0 != p1 and 0 not in (p0, p1)
    assert vcon["parties"][p0]["meta"]["launched_by"]["tool_use_id"] == "task0"
    assert vcon["parties"][p1]["meta"]["launched_by"]["tool_use_id"] == "task1"
    assert not any("launching Task" in w for w in rep.warnings)
    said = {(d["parties"][0], d["parties"][1], d["body"]) for d in vcon["dialog"]}
    assert (0, p1, "find thing 1") in said and (p0, 0, "thing 0 is here") in said


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=1, max_value=4).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.integers(min_value=0, max_value=n - 1),
                                             max_size=4 * n))))
def test_sidechain_threads_never_merge_whatever_the_interleaving(case: tuple[int, list[int]],
                                                                 ) -> None:
    """Property: n parallel sidechain threads, interleaved in any order, give n sub-agent
    parties, each holding exactly its own thread's call and linked to its own Task."""
    n, order = case
    vcon, _rep, m = conv(_parallel_tasks(n, order))
    no_errors(m)
    party = {e.raw["body"]["input"]["pattern"]: e.raw["party"] for e in m.events
             if e.raw.get("type") == "tool-invocation" and e.raw.get("tool") == "Grep"}
    assert len(set(party.values())) == n and 0 not in party.values()
    for k in range(n):
        assert vcon["parties"][party[str(k)]]["meta"]["launched_by"]["tool_use_id"] == f"task{k}"


def test_sidechain_written_after_its_task_ended_is_linked_by_its_prompt() -> None:
    """A sidechain thread whose records come after its Task's result (the file is written as
    records arrive) still names that Task: the thread's first record is the Task's prompt."""
    lines = _parallel_tasks(1, [])
    task_use, thread, done = lines[0], lines[1:5], lines[5]
    vcon, rep, m = conv([task_use, done, *thread])
    no_errors(m)
    p = party_of(m, "op-0002")
    assert p != 0 and vcon["parties"][p]["meta"]["launched_by"]["tool_use_id"] == "task0"
    assert not any("launching Task" in w for w in rep.warnings)


def test_project_directory_links_a_subagent_through_its_meta_json(tmp_path: Path) -> None:
    """A sub-agent whose Task call never returned (interrupted: no result, so no agentId in
    the main transcript) is linked to that call by ``agent-<id>.meta.json``'s toolUseId, as
    Claude Code writes it beside the sub-agent file."""
    proj = tmp_path / "-home-me-proj"
    (proj / "sess1" / "subagents").mkdir(parents=True)
    main_lines = [_task(1, "task1"), _task(2, "task2"),
                  {**prompt(9, "[Request interrupted by user for tool use]"), "uuid": "i9"}]
    side = [{**use(3, "s1", "Grep"), "isSidechain": True, "agentId": "ab12", "uuid": "q1"},
            {**res(4, "s1", "hit"), "isSidechain": True, "agentId": "ab12", "uuid": "q2"}]
    (proj / "sess1.jsonl").write_text("\n".join(json.dumps(x) for x in main_lines))
    (proj / "sess1" / "subagents" / "agent-ab12.jsonl").write_text(
        "\n".join(json.dumps(x) for x in side))
    (proj / "sess1" / "subagents" / "agent-ab12.meta.json").write_text(json.dumps(
        {"agentType": "Explore", "description": "look around", "toolUseId": "task2"}))
    vcon, rep = cc.convert_path(str(proj))
    m = model_of(vcon)
    no_errors(m)
    p = party_of(m, "op-0003")
    assert p != 0 and vcon["parties"][p]["meta"]["launched_by"]["tool_use_id"] == "task2"
    assert not any("launching Task" in w for w in rep.warnings)


def test_an_interrupt_cancels_only_its_own_sessions_calls(tmp_path: Path) -> None:
    """A project directory: session A left a call open (the terminal was closed while it
    ran); two days later session B's Esc cancels B's open call. A's call stays unterminated at
    its own time, not 'cancelled' by B's interrupt (before: both were cancelled at B's time)."""
    proj = tmp_path / "-home-me-proj"
    proj.mkdir()
    a = [{**use(1, "tA", "Bash", {"command": "make"}), "sessionId": "A",
          "timestamp": "2025-11-01T10:00:01.000Z"}]
    b = [{**use(2, "tB", "Bash", {"command": "ls"}), "sessionId": "B",
          "timestamp": "2025-11-03T09:00:01.000Z"},
         {**prompt(3, "[Request interrupted by user for tool use]"), "sessionId": "B",
          "timestamp": "2025-11-03T09:00:05.000Z"}]
    (proj / "A.jsonl").write_text("\n".join(json.dumps(x) for x in a))
    (proj / "B.jsonl").write_text("\n".join(json.dumps(x) for x in b))
    vcon, _rep = cc.convert_path(str(proj))
    m = model_of(vcon)
    no_errors(m)
    assert [(o[2], o[3]) for o in ops(m)] == [("Bash", "running"), ("Bash", "cancel-requested")]
    cancels = [e.raw for e in m.events if e.raw.get("type") == "tool-cancel"]
    assert [c["operation_id"] for c in cancels] == ["op-0002"]


# --- background work ended by a <task-notification> (no poll) ----------------------------------


def _note(task_id: str, status: str, tool: str | None = None) -> str:
    return ("<task-notification>\n<task-id>" + task_id + "</task-id>\n"
            + (f"<tool-use-id>{tool}</tool-use-id>\n" if tool else "")
            + f"<output-file>/tmp/t/{task_id}.output</output-file>\n<status>{status}</status>\n"
            "<summary>Background command \"make test\" finished</summary>\n"
            "</task-notification>")


def test_task_notification_ends_background_work_nobody_polled() -> None:
    """Claude Code tells the model that background work stopped with a <task-notification>
    (queued when it stopped, delivered later as a user message); the model need not poll. A
    command that failed was shown Pending, never ended (before). The queued time is its end;
    the delivery does not end it twice; the notification is not a dialog."""
    q = {"type": "queue-operation", "operation": "enqueue", "sessionId": "s",
         "timestamp": _t(30), "content": _note("bg1", "failed", "t1")}
    delivered = {**prompt(40, _note("bg1", "failed", "t1")), "uuid": "n40"}
    vcon, rep, m = conv([
        use(1, "t1", "Bash", {"command": "make test", "run_in_background": True}),
        res(2, "t1", "Command running in background with ID: bg1", False,
            {**BG_TUR, "backgroundTaskId": "bg1"}),
        q, delivered,
        use(50, "t2", "Bash", {"command": "sleep 9", "run_in_background": True}),
        res(51, "t2", "Command running in background with ID: bg2", False,
            {**BG_TUR, "backgroundTaskId": "bg2"}),
        {**prompt(60, _note("bg2", "killed")), "uuid": "n60"},
        use(70, "t3", "Bash", {"command": "npm run dev", "run_in_background": True}),
        res(71, "t3", "Command running in background with ID: bg3", False,
            {**BG_TUR, "backgroundTaskId": "bg3"}),
        {**prompt(80, _note("bg3", "completed")), "uuid": "n80"},
    ])
    no_errors(m)
    assert [(o[2], o[3]) for o in ops(m)] == [("Bash", "failed"), ("Bash", "cancel-requested"),
                                              ("Bash", "completed")]
    fail = next(e.raw for e in m.events if e.raw.get("type") == "tool-failure")
    assert fail["time"] == _t(30) and "status failed" in fail["inferred"]
    assert not any("task-notification" in str(d.get("body")) for d in vcon.get("dialog", []))
    counted(rep, 10)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["completed", "failed", "killed", "running"]), st.booleans())
def test_task_notification_status_decides(status: str, by_tool_id: bool) -> None:
    """Property: the notification's status decides the end, whether it names the work by its
    task id or (task id unknown) by the tool_use id; a status that is not an end is progress."""
    note = _note("bg1" if not by_tool_id else "other", status, "t1" if by_tool_id else None)
    _, _rep, m = conv([
        use(1, "t1", "Bash", {"command": "x", "run_in_background": True}),
        res(2, "t1", "Command running in background with ID: bg1", False,
            {**BG_TUR, "backgroundTaskId": "bg1"}),
        {**prompt(9, note), "uuid": "n9"}])
    want = {"completed": "completed", "failed": "failed", "killed": "cancel-requested",
            "running": "pending"}[status]
    assert [o[3] for o in ops(m)] == [want]


def test_integers_past_64_bits_in_a_tool_input_are_kept_exactly() -> None:
    """orjson reads 2**70 + 1 as a float: the evidence must show the recorded integer (+ 1:
    2**70 itself equals its float, so ``==`` would not tell them apart)."""
    big = 2**70 + 1
    base = {"sessionId": "s-1", "cwd": "/w", "version": "2.1.38", "isSidechain": False}
    lines = [
        {**base, "type": "assistant", "uuid": "a1", "timestamp": "2026-02-10T21:12:01.117Z",
         "message": {"role": "assistant", "content": [
             {"type": "tool_use", "id": "toolu_1", "name": "Transfer",
              "input": {"amount": big, "ids": [-(2**65), 7]}}]}},
        {**base, "type": "user", "uuid": "u1", "parentUuid": "a1",
         "timestamp": "2026-02-10T21:12:02.480Z",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}},
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    vcon, _ = cc.convert(data)
    inv = next(e for e in vcon["events"] if e["type"] == "tool-invocation")
    assert inv["body"]["input"] == {"amount": big, "ids": [-(2**65), 7]}
    assert type(inv["body"]["input"]["ids"][0]) is int


def test_compaction_thread_is_claude_codes_own_not_a_sub_agent(tmp_path: Path) -> None:
    """A real ``subagents/agent-acompact-<hex>.jsonl`` (marot/spotter, Claude Code 2.1.39): the
    thread Claude Code runs to compact the conversation. No Task launched it, its prompt is
    Claude Code's summary request and its reply the summary: no sub-agent party, no dialogs,
    no warning that a launching Task is missing; its lines are counted as ignored."""
    real = (TR / "spotter__agent-acompact-e1f845.jsonl").read_bytes()
    vcon, rep = cc.convert(real, source_name="agent-acompact-e1f845.jsonl")
    assert [p["name"] for p in vcon["parties"]] == ["Claude Code (main agent)"]
    assert vcon.get("dialog", []) == []
    assert not any("launching Task" in w for w in rep.warnings)
    counted(rep, 5)
    assert rep.mapped == 0
    # in a project directory beside its session file: the session's own call and prompt stay
    proj = tmp_path / "-home-USER-projects-spotter"
    (proj / "s1" / "subagents").mkdir(parents=True)
    (proj / "s1.jsonl").write_text("\n".join(json.dumps(x) for x in [
        prompt(1, "fix the build"), use(2, "t1", "Bash", {"command": "mix test"}),
        res(3, "t1", "ok")]))
    (proj / "s1" / "subagents" / "agent-acompact-e1f845.jsonl").write_bytes(real)
    vcon, rep = cc.convert_path(str(proj))
    m = model_of(vcon)
    no_errors(m)
    assert [(o[2], o[3]) for o in ops(m)] == [("Bash", "completed")]
    assert [p["name"] for p in vcon["parties"]] == ["Claude Code (main agent)", "user"]
    assert [d["body"] for d in vcon["dialog"]] == ["fix the build"]
    assert not any("sub-agent" in w for w in rep.warnings)


def test_a_call_in_claude_codes_own_thread_is_the_main_agents_replayed() -> None:
    """Claude Code's compaction and prompt-suggestion threads fork the conversation: a tool
    call in one (agentId ``a<kind>-<hex>``) is the main agent's, replayed. Alone, it is shown
    as the main agent's; after the session that made it, it is the same call (counted once)."""
    side = {"isSidechain": True, "agentId": "aprompt_suggestion-4e4eb6"}
    copies = [{**use(3, "s1", "Read"), **side, "uuid": "q1"},
              {**res(4, "s1", "x"), **side, "uuid": "q2"}]
    vcon, rep, m = conv(copies)
    no_errors(m)
    assert ops(m)[0][2:4] == ("Read", "completed") and party_of(m, "op-0001") == 0
    assert [p["name"] for p in vcon["parties"]] == ["Claude Code (main agent)"]
    assert not any("launching Task" in w for w in rep.warnings)
    vcon, rep, m = conv([use(3, "s1", "Read"), res(4, "s1", "x"), *copies])
    assert [(o[2], o[3]) for o in ops(m)] == [("Read", "completed")]
    assert any("repeated" in w for w in rep.warnings)


#: Claude Code's DENIAL_WORKAROUND_GUIDANCE, which its AUTO_REJECT_MESSAGE (a background agent
#: that cannot show a prompt) and DONT_ASK_REJECT_MESSAGE append; a deny rule's message is
#: "Permission to use <tool>[ with <content>] has been denied." alone.
GUIDANCE = ("IMPORTANT: You *may* attempt to accomplish this action using other tools that might "
            "naturally be used to accomplish this goal, e.g. using head instead of cat. But you "
            "*should not* attempt to work around this denial in malicious ways, e.g. do not use "
            "your ability to run tests to execute non-test actions. You should only try to work "
            "around this restriction in reasonable ways that do not attempt to bypass the intent "
            "behind this denial. If you believe this capability is essential to complete the "
            "user's request, STOP and explain to the user what you were trying to do and why you "
            "need this permission. Let the user decide how to proceed.")


@pytest.mark.parametrize(("text", "decision", "who"), [
    ("Permission to use Write has been denied.", "disallowed", "a permission deny rule"),
    ("Permission to use Write with /etc/x has been denied.", "disallowed",
     "a permission deny rule"),
    (f"Permission to use Write has been denied. {GUIDANCE}", PR, "no prompt could be shown"),
    ("Permission to use Write has been denied because Claude Code is running in don't ask "
     f"mode. {GUIDANCE}", "disallowed", "dontAsk"),
])
def test_who_refused_a_call_the_host_denied(text: str, decision: str, who: str) -> None:
    """The shape of a real 2.1.47 background sub-agent (agentId a241764, a public repository
    found by text search): every Write/Read/Bash it tried was answered "Permission to use Write
    has been denied. IMPORTANT: ..." (Claude Code's AUTO_REJECT_MESSAGE: a background agent
    cannot show a permission prompt, and no PermissionRequest hook decided). That is not a
    deny rule: the call needed a permission nobody could give (permission-required, not run).
    dontAsk mode's own text names the mode."""
    side = {"isSidechain": True, "agentId": "a241764"}
    _, rep, m = conv([{**use(1, "t1", "Write", {"file_path": "/w/x.md"}), **side},
                      {**res(2, "t1", text, True, "Error: " + text), **side}])
    no_errors(m)
    o = m.operations[0]
    assert (o.tool, o.decision, o.decision_life, o.attempts) == ("Write", decision, "once", ())
    dec = next(e.raw for e in m.events if e.type == "policy-decision")
    assert dec["reason"] == text and who in dec["inferred"]
    assert any(who in w for w in rep.warnings)


def _warmup(agent_id: str | None, version: str, n: int) -> list[dict[str, Any]]:
    """Claude Code 2.0.x's start-up warmup thread, in the shape of real files (a flat-layout
    ``agent-ac0c74c.jsonl`` of 2.0.67 with agentId, a 2.0.26 one without): a sidechain whose
    first record is the user message "Warmup", then the model's short reply."""
    side: dict[str, Any] = {"isSidechain": True, "sessionId": "s", "version": version,
                            "userType": "external", "cwd": "/w"}
    if agent_id:
        side["agentId"] = agent_id
    return [{**side, "type": "user", "uuid": f"w{n}", "parentUuid": None, "timestamp": _t(n),
             "message": {"role": "user", "content": "Warmup"}},
            {**side, "type": "assistant", "uuid": f"w{n + 1}", "parentUuid": f"w{n}",
             "timestamp": _t(n + 1), "message": {"role": "assistant", "model": "claude-haiku-4-5",
                                                 "content": [{"type": "text",
                                                              "text": "I'm ready to help."}]}}]


@pytest.mark.parametrize(("agent_id", "version"), [("ac0c74c", "2.0.67"), (None, "2.0.26")])
def test_warmup_thread_is_claude_codes_own_not_a_sub_agent(tmp_path: Path, agent_id: str | None,
                                                           version: str) -> None:
    """Claude Code 2.0.x wrote, in the project directory beside each session, agent files whose
    thread begins with the user message "Warmup" (pre-warming, at start-up): no Task launched
    them and nobody said "Warmup". No sub-agent party, no dialog, no warning about a missing
    launching Task; a Task's real sub-agent is still its own party, linked to the Task."""
    proj = tmp_path / "-w"
    proj.mkdir()
    task = use(2, "task1", "Task", {"description": "find", "prompt": "Find the config"})
    sub: dict[str, Any] = {"isSidechain": True}
    if agent_id:
        sub["agentId"] = "a1b2c3d"
    side = [{**prompt(3, "Find the config"), **sub, "uuid": "q0", "parentUuid": None},
            {**use(4, "g1", "Grep"), **sub, "uuid": "q1", "parentUuid": "q0"},
            {**res(5, "g1", "hit"), **sub, "uuid": "q2", "parentUuid": "q1"}]
    done = res(20, "task1", "found", None,
               {"status": "completed", "agentId": "a1b2c3d"} if agent_id else None)
    main_lines = [prompt(1, "look around"), task] + ([] if agent_id else side) + [done]
    (proj / "s1.jsonl").write_text("\n".join(json.dumps(x) for x in main_lines))
    if agent_id:
        (proj / "agent-a1b2c3d.jsonl").write_text("\n".join(json.dumps(x) for x in side))
    (proj / f"agent-{agent_id or 'a0f0f0f'}.jsonl").write_text(
        "\n".join(json.dumps(x) for x in _warmup(agent_id, version, 0)))
    vcon, rep = cc.convert_path(str(proj))
    m = model_of(vcon)
    no_errors(m)
    assert [(o[2], o[3]) for o in ops(m)] == [("Task", "completed"), ("Grep", "completed")]
    assert len(vcon["parties"]) == 3 and vcon["parties"][2]["name"] == "user"
    assert vcon["parties"][1]["meta"]["launched_by"]["tool_use_id"] == "task1"
    bodies = [d["body"] for d in vcon["dialog"]]
    assert "Warmup" not in bodies and "I'm ready to help." not in bodies
    assert not any("launching Task" in w for w in rep.warnings)
    assert sum(n for k, n in rep.ignored.items() if "own thread" in k) == 2


def test_a_side_question_fork_is_not_a_sub_agent() -> None:
    """``agent-aside_question-<hex>.jsonl`` (a /btw side question) forks the conversation like
    the compaction does: the shape other readers of these files describe, the inherited history
    (a tool call of the main agent's, replayed) then the question and its answer, whether or not
    the records say isSidechain. No sub-agent party, no missing-Task warning; the replayed call
    is the main agent's, counted once beside the session."""
    fork = {"agentId": "aside_question-94d26433f3755c77"}
    lines = [use(1, "t1", "TodoWrite"), res(2, "t1", "ok"),
             {**use(1, "t1", "TodoWrite"), **fork, "uuid": "f1"},
             {**prompt(5, "actual side question"), **fork, "uuid": "f2"},
             {"type": "assistant", "uuid": "f3", "timestamp": _t(6), **fork,
              "message": {"role": "assistant", "content": [{"type": "text", "text": "answer"}]}}]
    vcon, rep, m = conv(lines)
    no_errors(m)
    assert [(o[2], o[3]) for o in ops(m)] == [("TodoWrite", "completed")]
    assert [p["name"] for p in vcon["parties"]] == ["Claude Code (main agent)"]
    assert not any("launching Task" in w for w in rep.warnings)
    assert sum(n for k, n in rep.ignored.items() if "own thread" in k) == 2
    counted(rep, 5)


@pytest.mark.parametrize(("path", "title", "unit", "objects"), [
    # a hook log (a JSON array of hook payloads) is neither a transcript nor lines
    (HK / "quantstats__pre_tool_use.json", "Claude Code hook log", "hook payloads", 20),
    # the hooks-mastery stop hook's chat.json: a transcript, as a JSON array of records
    (TR / "dmux__logs_chat.json", "Claude Code transcript", "records", None),
    # a session JSONL: a transcript, counted in lines
    (TR / "spotter__short.jsonl", "Claude Code transcript", "lines", 15),
])
def test_derivation_names_what_was_read(path: Path, title: str, unit: str,
                                        objects: int | None) -> None:
    loaded = open_bytes(path.read_bytes(), name=path.name)
    d = loaded.derivation
    assert d is not None and (d.title, d.unit) == (title, unit)
    if objects is not None:
        assert d.objects == objects
    first = next(x for x in loaded.diagnostics if x.code == "derived-events")
    article = "an" if title[0] in "AEIOU" else "a"
    assert f"is {article} {title}, not a vCon" in first.message
