"""Codex CLI recordings -> tool-invocation events.

Two inputs, told apart by content:

* the **rollout** ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``: one ``RolloutLine`` a line,
  ``{timestamp, type: session_meta|response_item|event_msg|turn_context|compacted, payload}``
  (older rollouts: a first line of session meta, then bare response items with no time; older
  still: ``{id, msg: {type...}}`` protocol events; the TypeScript CLI's ``rollout-*.json``,
  one ``{session, items}`` document);
* ``codex exec --json``: ``thread.started``, ``turn.started``, ``item.started`` /
  ``item.completed`` (``command_execution``, ``mcp_tool_call``, ``file_change``...),
  ``turn.completed`` / ``turn.failed``. It carries no times: the order only.

One call (its ``call_id``) is one operation ``op-NNNN``; the call id stays in the invocation's
content. Codex writes one call several times (the model's ``function_call``, the
``exec_command_end`` / ``patch_apply_end`` / ``mcp_tool_call_end`` events, the
``function_call_output``): they are merged by call id, the end events decide the outcome (exit
code, status), the output is what the model was told. The rules that decide anything not
written in the rollout are named in each event's ``inferred`` member.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

import orjson

from viewer.importers.common import (
    EPOCH,
    HOST,
    Dialogs,
    Events,
    Report,
    assemble,
    parse_ts,
    vcon_uuid,
)
from viewer.importers.common import dict_or_empty as _d
from viewer.importers.common import nonempty_str as _str
from viewer.importers.formats import Format, ImportInputError, Sample, json_lines
from viewer.jsonenc import loads

ROLLOUT_TYPES: Final = frozenset({"session_meta", "response_item", "event_msg", "turn_context",
                                  "compacted", "world_state", "token_usage_record"})
EXEC_TYPES: Final = frozenset({"thread.started", "turn.started", "turn.completed",
                               "turn.failed", "item.started", "item.updated",
                               "item.completed", "item.plan.delta", "request_user_input",
                               "error"})
#: Response items that are a call / the output of a call (besides the named ones below).
CALL_ITEMS: Final = frozenset({"function_call", "custom_tool_call", "local_shell_call",
                               "tool_search_call"})
OUTPUT_ITEMS: Final = frozenset({"function_call_output", "custom_tool_call_output",
                                 "tool_search_output", "local_shell_call_output"})
#: Response items with no call id that are a whole call (invocation and end at once).
ONESHOT_ITEMS: Final = {"web_search_call": "web_search", "image_generation_call":
                        "image_generation"}
IGNORED_ITEMS: Final = frozenset({"message", "reasoning", "agent_message", "ghost_snapshot",
                                  "compaction", "compaction_summary", "other"})
IGNORED_EVENTS: Final = frozenset({
    "user_message", "agent_message", "agent_message_delta", "agent_reasoning",
    "agent_reasoning_delta", "agent_reasoning_raw_content", "agent_reasoning_section_break",
    "token_count", "task_started", "task_complete", "turn_started", "turn_complete",
    "context_compacted", "entered_review_mode", "exited_review_mode", "thread_name_updated",
    "thread_goal_updated", "thread_settings_applied", "sub_agent_activity", "undo_started",
    "undo_completed", "plan_update", "turn_diff", "background_event", "stream_error",
    "warning", "error", "session_configured", "shutdown_complete", "get_history_entry_response",
    "mcp_list_tools_response", "list_custom_prompts_response", "item_started",
    "exec_command_output_delta", "raw_response_item", "web_search_begin", "web_search_end",
    "image_generation_begin", "image_generation_end", "mcp_startup_update",
    "mcp_startup_complete", "deprecation_notice", "model_reroute", "world_state",
})
#: Event types that name a Codex protocol stream ({id, msg: {type}} lines).
PROTOCOL_EVENTS: Final = frozenset({
    "session_configured", "task_started", "task_complete", "agent_message",
    "agent_reasoning", "exec_command_begin", "exec_command_end", "exec_approval_request",
    "apply_patch_approval_request", "patch_apply_begin", "patch_apply_end",
    "mcp_tool_call_begin", "mcp_tool_call_end", "token_count", "background_event",
})
COLLAB_EVENTS: Final = frozenset({"collab_agent_spawn_end", "collab_waiting_end",
                                  "collab_close_end", "collab_agent_interaction_end",
                                  "collab_resume_end"})
#: ExecCommandSource of a command the user typed after "!": Codex ran it for the user.
USER_SHELL: Final = "user_shell"
ASKING: Final = frozenset({"on-request", "on-failure", "untrusted", "unless-trusted",
                           "unlesstrusted", "onrequest", "onfailure"})
NEVER: Final = frozenset({"never"})
MCP_NAME: Final = re.compile(r"^mcp__(.+?)__(.+)$")
FLAT_NAME: Final = re.compile(r"^([A-Za-z0-9][\w-]*?)__(\w.*)$")
#: "Exit code: N" (shell, freeform) or "Process exited with code N" (exec_command, after its
#: "Chunk ID" and "Wall time" lines).
EXIT_LINE: Final = re.compile(r"^(?:Exit code|exit code|Process exited with code)\s*:?\s*(-?\d+)",
                              re.M)
USER_REJECTED: Final = re.compile(r"^(?:exec command |patch )?rejected by user", re.I)
#: Codex's exec policy and approval policy refusals (exec_policy.rs, shell handler).
POLICY_REJECTED: Final = re.compile(
    r"^`[^`\n]*` rejected: |approval required by policy|"
    r"approval policy is \S+; reject command|rejected by (?:exec ?)?policy|"
    r"forbidden by (?:exec ?)?policy|blocked by (?:exec ?)?policy|execpolicy forbids|"
    r"not allowed by (?:exec ?)?policy|; rejected by user approval settings", re.I)
#: Codex's answer when a PreToolUse hook blocked the call (core/src/hook_runtime.rs): the
#: registry returns it to the model instead of running the tool, whatever the tool (an MCP
#: tool's too).
HOOK_BLOCKED: Final = re.compile(
    r"^(?:Command|Tool call) blocked by PreToolUse hook: ")
#: Codex's answers when its automatic approval reviewer (guardian, auto-review) refused a request
#: or did not finish in time (core/src/guardian: guardian_rejection_message,
#: guardian_timeout_message): the tool was not run. Newer rollouts keep no guardian_assessment
#: event, so this answer is the only record.
GUARDIAN_REJECTED: Final = re.compile(
    r"^This action was rejected due to unacceptable risk\.\s*(?:Reason: ([^\n]*))?")
GUARDIAN_LATE: Final = re.compile(
    r"^The automatic permission approval review did not finish before its deadline\.")
CANNOT_RUN: Final = re.compile(
    r"^(?:failed to parse function arguments|unsupported call|unsupported custom tool call|"
    r"unknown tool|tool .{0,80} not found|invalid arguments|missing field|"
    r"execution error: )", re.I)
#: Codex's own line for a call of its own tools that could not start (a spawn error, an
#: exec_command that never ran, an empty or unparsable patch); an MCP tool's text is its own.
HOST_CANNOT_RUN: Final = re.compile(
    r"^(?:failed to spawn |exec_command failed for |apply_patch handler received |"
    r"patch rejected: empty patch)", re.I)
#: Codex's own line for a call that ran (or tried) and did not succeed: a patch that failed
#: verification, a closed stdin, a sub-agent that could not be spawned, a sandbox denial.
TOOL_FAILED: Final = re.compile(
    r"^(?:apply_patch verification failed: |write_stdin failed: |collab \w+ failed: |"
    r"(?:sandbox error: )?sandbox denied exec error|Script failed\n)", re.I)
ABORTED: Final = re.compile(r"^aborted(?: by user(?: after [\d.]+\s*m?s)?)?\.?\s*$", re.I)
TIMED_OUT: Final = re.compile(r"command timed out|timed out after \d+", re.I)
#: Codex's own words for a command it stopped at its timeout, first in what it tells the
#: model (after the freeform header); words later in the output are the command's own.
CODEX_TIMEOUT: Final = re.compile(r"(?:command timed out|execution error: [^\n]{0,120}?"
                                  r"timed out)", re.I)
#: The header Codex writes before a command's output ("Exit code: N", "Wall time: ...",
#: unified exec's "Chunk ID: ..."), ended by an "Output:" line.
HEADER_START: Final = re.compile(r"(?:Command: [^\n]*\n)?(?:Exit code|Chunk ID|Wall time|"
                                 r"Process exited|Process running|"
                                 r"Script (?:completed|failed|running))\b", re.I)
#: A process (unified exec) or a code-mode script still running when the call returned: the
#: header names the session / cell a later write_stdin / wait reaches it by.
STILL_RUNNING: Final = re.compile(r"^(?:Process running with session ID|"
                                  r"Script running with cell ID)\s+(\S+)", re.M)
#: The arguments of a call that reaches a running process or script (write_stdin, wait).
POLL_KEYS: Final = (("session_id", "session"), ("cell_id", "cell"))
#: An MCP call's output when the call got no result (mcp_tool_call.rs): ``err: <Debug of the
#: error>`` (older), or the error text alone (newer): "tool call error: ...".
MCP_ERR: Final = re.compile(r'^(?:err: "?)?tool call error: ', re.I)
#: Codex's own words for an MCP call it did not make (mcp_tool_call.rs,
#: notify_mcp_tool_call_skip: the mcp_tool_call_end's Err, and the output): (pattern, decision,
#: why). A call Codex made and the server failed says "tool call error: ..." instead.
MCP_SKIPS: Final = (
    (re.compile(r'^(?:err: "?)?user (?:rejected|cancelled|canceled) MCP tool call', re.I),
     "permission-required", "the user declined (or cancelled) Codex's approval question for "
     "this MCP tool, so it did not run"),
    (re.compile(r"^MCP tool call blocked by app configuration"), "disallowed",
     "Codex's app configuration blocks this tool, so it did not run"),
    (re.compile(r"^Tool call was cancelled because of safety risks"), "disallowed",
     "Codex's safety monitor stopped the call before it ran"),
)
MCP_ERR_PREFIX: Final = "err: "
SANDBOX_DENIED: Final = re.compile(
    r"failed in sandbox|sandbox denied|operation not permitted|read-only file system|"
    r"permission denied", re.I)


def _loads(v: Any) -> Any:
    """A JSON string's value (arguments are JSON text), else the value as it is."""
    if isinstance(v, str):
        try:
            return json.loads(v)
        except (ValueError, RecursionError):
            return v
    return v


# --- records ----------------------------------------------------------------------------------


@dataclass
class Rec:
    kind: str  # rollout type, "exec" (codex exec --json) or "event_msg"/"response_item"
    payload: dict[str, Any]
    ts: datetime | None
    where: str
    raw: bytes = b""


def _ts_rollout(data: bytes) -> dict[str, Any] | None:
    """The TypeScript Codex CLI's rollout (2025, ``rollout-<date>-<id>.json``): one document
    ``{session: {timestamp, id, instructions}, items: [response items]}``; else None."""
    if data.lstrip()[:1] != b"{":
        return None
    try:
        doc = loads(data)
    except orjson.JSONDecodeError:
        return None
    if isinstance(doc, dict) and isinstance(doc.get("session"), dict) \
            and isinstance(doc.get("items"), list):
        return doc
    return None


def read(data: bytes, report: Report) -> tuple[list[Rec], str]:
    """Every line as a record (or counted as unmapped); the dialect read."""
    recs: list[Rec] = []
    doc = _ts_rollout(data)
    if doc is not None:
        ses = doc["session"]
        recs.append(Rec("session_meta", ses, parse_ts(ses.get("timestamp"))[0], "/session"))
        for i, item in enumerate(doc["items"]):
            if isinstance(item, dict):
                recs.append(Rec("response_item", item, None, f"/items/{i}"))
            else:
                report.fail(f"/items/{i}", "not a JSON object")
        report.warn("a TypeScript Codex CLI rollout: its items carry no times; its one time is "
                    "when the file was last saved, and every item takes it")
        return recs, "ts-rollout"
    dialects: set[str] = set()
    naive = False
    for n, line, obj in json_lines(data, report):
        where = f"line {n}"
        if not isinstance(obj, dict):
            report.fail(where, "not a JSON object")
            continue
        t = obj.get("type")
        ts, nv = parse_ts(obj.get("timestamp"))
        naive = naive or nv
        if isinstance(t, str) and isinstance(obj.get("payload"), dict):
            dialects.add("rollout")
            recs.append(Rec(t, obj["payload"], ts, where, line))
        elif isinstance(t, str) and t in EXEC_TYPES:
            dialects.add("exec-json")
            recs.append(Rec("exec", obj, ts, where, line))
        elif isinstance(obj.get("msg"), dict) and isinstance(obj["msg"].get("type"), str):
            dialects.add("protocol-events")
            recs.append(Rec("event_msg", obj["msg"], ts, where, line))
        elif isinstance(t, str):  # an older rollout's bare response item
            dialects.add("rollout-bare-items")
            recs.append(Rec("response_item", obj, ts, where, line))
        elif "record_type" in obj:
            report.ignore("rollout state record")
        elif _str(obj.get("id")) and ("instructions" in obj or "timestamp" in obj):
            dialects.add("rollout-bare-items")
            recs.append(Rec("session_meta", obj, ts, where, line))
        else:
            report.fail(where, "no type: neither a rollout line nor codex exec --json")
    if naive:
        report.warn("timestamps without a zone offset were read as UTC")
    return recs, "+".join(sorted(dialects)) or "none"


def resolve_times(recs: list[Rec], report: Report) -> list[datetime]:
    known = [r.ts for r in recs if r.ts is not None]
    if not known:
        if recs:
            report.times = "order-only"
        return [EPOCH + timedelta(milliseconds=i) for i in range(len(recs))]
    if len(known) < len(recs):
        report.times = "partial"
    out: list[datetime] = []
    prev = known[0]
    back = 0
    for r in recs:
        if r.ts is not None:
            if r.ts < prev:
                back += 1
            prev = r.ts
        out.append(prev)
    if back:
        report.warn(f"{back} record(s) have a time earlier than the record before them "
                    "(kept as recorded)")
    return out


# --- the mapper -------------------------------------------------------------------------------


@dataclass
class Call:
    cid: str
    op: str
    tool: str
    server: str
    body: dict[str, Any]
    start: datetime
    where: str
    slot: list[dict[str, Any]]
    attempt: int = 1
    escalated: bool = False
    justification: str | None = None
    command: str | None = None
    approval: str | None = None  # requested | approved | guardian-approved
    approval_reason: str | None = None
    approval_why: str | None = None
    invoked: bool = False  # the tool-invocation is written
    inv: dict[str, Any] | None = None
    ended: bool = False
    end_event: bool = False  # an *_end event was merged
    output_seen: bool = False
    sandbox_denied: bool = False
    from_end: bool = False  # no call record: made from its end event
    mcp_unsure: bool = False  # an MCP call ended by an output that keeps no isError
    pending: str | None = None  # "session:N" / "cell:N" while its process or script runs
    inferred: list[str] = field(default_factory=list)

    def asked_reason(self) -> str | None:
        """The reason of the decision to ask: Codex's words for asking, else the agent's
        justification said as the agent's (the draft's reason is the policy's; an agent's
        plea for escalation is not the policy's reason). Codex passes the justification on as
        the approval request's reason: the same words are the agent's."""
        own = self.approval_reason
        if own and own != self.justification:
            return own
        if self.justification:
            asked = "to run it with escalated permissions" if self.escalated else "it"
            return f"the agent asked {asked}, justifying: {self.justification}"
        return None


#: Text Codex injects as a user message (its context, the project's instructions): no dialog.
INJECTED_PREFIXES: Final = ("<environment_context>", "<user_instructions>", "<INSTRUCTIONS>",
                            "# AGENTS.md instructions", "<permissions instructions>",
                            "<turn_aborted>", "<user_shell_command>")


def message_text(p: dict[str, Any]) -> str | None:
    """What a user/assistant message item says: its input_text/output_text parts, without
    the parts Codex injects itself."""
    content = p.get("content")
    if isinstance(content, str):
        content = [{"type": "input_text", "text": content}]
    if not isinstance(content, list):
        return None
    parts = [b["text"] for b in content if isinstance(b, dict)
             and b.get("type") in ("input_text", "output_text", "text")
             and isinstance(b.get("text"), str)
             and not b["text"].lstrip().startswith(INJECTED_PREFIXES) and b["text"].strip()]
    return "\n\n".join(parts) if parts else None


#: Members of an invocation's content that name the call, not what it asks the tool to do.
_ID_KEYS: Final = frozenset({"call_id", "item_id", "namespace"})


class Mapper:
    def __init__(self, report: Report, dialogs: Dialogs | None = None) -> None:
        self.rep = report
        self.ev = Events(party=0)
        self.dialogs = dialogs or Dialogs([{}])
        self.slots: list[list[dict[str, Any]]] = []
        self.calls: dict[str, Call] = {}
        self.order: list[Call] = []
        self.policy: str | None = None
        self.policy_written: str | None = None
        self.sandbox: str | None = None
        self.sessions: list[str] = []
        self.seen_lines: set[bytes] = set()
        self.repeats = 0
        self.reused = 0
        self.oneshots = 0
        self.first_open = 0
        self.rolled_back = 0  # turns the user rolled back (thread_rolled_back)
        self.running: dict[str, Call] = {}  # "session:N" / "cell:N" -> the pending call

    # -- writing ----------------------------------------------------------------------------
    def _spec(self, slot: list[dict[str, Any]], etype: str, when: datetime, op: str | None,
              attempt: int, where: str, **kw: Any) -> dict[str, Any]:
        spec = {"etype": etype, "when": when, "op": op, "attempt": attempt, "where": where,
                "kw": kw}
        slot.append(spec)
        return spec

    def flush(self) -> Events:
        for slot in self.slots:
            for s in slot:
                ev = self.ev.add(s["etype"], s["when"], s["op"] or "", s["attempt"], s["where"],
                                 attempt_field=s["op"] is not None, **s["kw"])
                if s["op"] is None:
                    del ev["operation_id"]
        return self.ev

    def _new_call(self, cid: str, tool: str, server: str, body: dict[str, Any], when: datetime,
                  where: str) -> Call:
        old = self.calls.get(cid)
        if old is not None:
            self.reused += 1
        slot: list[dict[str, Any]] = []
        self.slots.append(slot)
        c = Call(cid, self.ev.new_operation(), tool, server, body, when, where, slot)
        self.calls[cid] = c
        self.order.append(c)
        return c

    def _decision(self, c: Call, when: datetime, where: str, decision: str,
                  reason: str | None, inferred: str) -> None:
        kw: dict[str, Any] = {"server": c.server, "tool": c.tool, "decision": decision,
                              "policy_life": "once", "operation": "tool-invocation",
                              "inferred": inferred}
        if reason:
            kw["reason"] = reason[:2000]
        self._spec(c.slot, "policy-decision", when, c.op, c.attempt, where, **kw)

    def _invoke(self, c: Call) -> None:
        if c.invoked:
            return
        if c.approval in ("requested", "approved", "guardian-approved") or (
                c.escalated and self._asks()):
            why = c.approval_why or (
                f"sandbox_permissions/with_escalated_permissions under approval_policy "
                f"{self.policy}: Codex asks before running an escalated command; it ran, so "
                "the request was approved")
            self._decision(c, c.start, c.where, "permission-required",
                           c.asked_reason(), why)
        kw: dict[str, Any] = {"server": c.server, "tool": c.tool, "body": c.body}
        if c.inferred:
            kw["inferred"] = "; ".join(c.inferred)
        c.inv = self._spec(c.slot, "tool-invocation", c.start, c.op, c.attempt, c.where, **kw)
        c.invoked = True

    def _end(self, c: Call, etype: str, when: datetime, where: str, body: Any,
             inferred: str | None = None) -> None:
        self._invoke(c)
        kw: dict[str, Any] = {"body": body if body is not None or etype == "tool-cancel"
                              else {}}
        if kw["body"] is None:
            del kw["body"]
        if inferred:
            kw["inferred"] = inferred
        self._spec(c.slot, etype, when, c.op, c.attempt, where, **kw)
        if etype != "tool-cancel":
            c.ended = True

    def _refuse(self, c: Call, when: datetime, where: str, decision: str, reason: str | None,
                inferred: str) -> None:
        """A call the host did not run: a once decision and no tool-invocation."""
        self._decision(c, c.start if c.start <= when else when, where, decision, reason,
                       inferred)
        # what was asked, when the record holds more than the call's ids (Events.asked)
        if any(v is not None for k, v in c.body.items() if k not in _ID_KEYS):
            self.ev.asked(c.op, c.attempt, c.body)
        c.ended = True
        c.invoked = True  # nothing more is written for this attempt

    def _asks(self) -> bool:
        return self.policy is not None and self.policy not in NEVER

    # -- policy -----------------------------------------------------------------------------
    def _approval_policy(self, value: Any, when: datetime, where: str, whence: str) -> bool:
        if isinstance(value, dict):  # {"granular": {...}} / {"reject": {...}}
            value = next(iter(value), None)
        if not isinstance(value, str):
            return False
        v = value.strip().lower()
        if v not in NEVER and v not in ASKING and v not in ("granular", "reject"):
            self.rep.warn(f"approval_policy {value[:40]!r} is not a value Codex defines: "
                          "no standing decision written for it")
            return False
        self.policy = v
        if v == self.policy_written:
            return False
        self.policy_written = v
        decision = "allowed" if v in NEVER else "permission-required"
        rule = ("approval_policy never: Codex runs every command without asking"
                if v in NEVER else
                f"approval_policy {v}: Codex asks the user before some commands (which ones "
                "is decided per call and is not recorded unless a prompt is)")
        slot: list[dict[str, Any]] = []
        self.slots.append(slot)
        self._spec(slot, "policy-decision", when, None, 0, where, server=HOST,
                   decision=decision, policy_life="standing", operation="tool-invocation",
                   reason=f"{whence} approval_policy {v}"
                          + (f", sandbox {self.sandbox}" if self.sandbox else ""),
                   inferred=rule)
        return True

    # -- records ----------------------------------------------------------------------------
    def record(self, r: Rec, when: datetime) -> None:
        if r.ts is not None and r.kind in ("response_item", "event_msg"):
            if r.raw in self.seen_lines:
                self.repeats += 1
                self.rep.ignore("repeated line (resumed or forked session)")
                return
            self.seen_lines.add(r.raw)
        k = r.kind
        p = r.payload
        if k == "session_meta":
            sid = p.get("id") or p.get("session_id")
            self.sessions.append(sid if isinstance(sid, str) else "?")
            self.rep.ignore("session metadata")
        elif k == "turn_context":
            sp = _d(p.get("sandbox_policy"))
            mode = _str(sp.get("type")) or _str(sp.get("mode"))
            if mode:
                self.sandbox = mode
            if self._approval_policy(p.get("approval_policy"), when, r.where, "turn_context"):
                self.rep.mapped += 1
            else:
                self.rep.ignore("turn context")
        elif k == "response_item":
            self.item(p, when, r.where)
        elif k == "event_msg":
            self.event(p, when, r.where)
        elif k == "exec":
            self.exec_json(p, when, r.where)
        elif k in ("compacted", "world_state", "inter_agent_communication_metadata",
                   "token_usage_record"):
            self.rep.ignore(k)
        else:
            self.rep.fail(r.where, f"unknown rollout line type {k[:40]!r}")

    def item(self, p: dict[str, Any], when: datetime, where: str) -> None:
        t = p.get("type")
        if t is None and "role" in p:
            t = "message"
        if t in CALL_ITEMS:
            self.call_item(t, p, when, where)
        elif t in OUTPUT_ITEMS:
            self.output_item(p, when, where)
        elif t in ONESHOT_ITEMS:
            self.oneshot(ONESHOT_ITEMS[t], p, when, where)
        elif t in IGNORED_ITEMS:
            if t == "message" and p.get("role") == "user":
                # older rollouts have no user_message event: the user's message ends the turn
                self.turn_end(when, where, "the next user message", None)
            text = message_text(p) if t == "message" else None
            if text is not None and p.get("role") == "user":
                self.dialogs.said(when, text, where)
                self.rep.mapped += 1
            elif text is not None and p.get("role") == "assistant":
                self.dialogs.replied(when, text, where)
                self.rep.mapped += 1
            else:
                self.rep.ignore(f"response item {t}")
        else:
            self.rep.fail(where, f"unknown response item type {str(t)[:40]!r}")

    def call_item(self, t: str, p: dict[str, Any], when: datetime, where: str) -> None:
        cid = _str(p.get("call_id")) or _str(p.get("id")) or f"(no call id, {where})"
        name = _str(p.get("name"))
        if t == "local_shell_call":
            name = name or "local_shell"
            args: Any = p.get("action")
        elif t == "tool_search_call":
            name = name or "tool_search"
            args = p.get("arguments")
        elif t == "custom_tool_call":
            args = p.get("input")
        else:
            args = _loads(p.get("arguments"))
        if name is None:
            self.rep.fail(where, f"{t} without a tool name")
            return
        server, tool = HOST, name
        ns = _str(p.get("namespace"))
        m = MCP_NAME.match(name) or FLAT_NAME.match(name)
        if ns and ns.startswith("mcp__") and len(ns) > 5:
            server = ns[5:].rstrip("_")  # newer rollouts: namespace mcp__<server>, name <tool>
        elif m:
            server, tool = m.group(1), m.group(2)  # mcp__<server>__<tool> (older <s>__<t>)
        body: dict[str, Any] = {"call_id": cid}
        body["input" if t == "custom_tool_call" else "arguments"] = args
        if ns:
            body["namespace"] = ns
        esc = False
        just = None
        cmd = None
        if isinstance(args, dict):
            esc = args.get("with_escalated_permissions") is True or args.get(
                "sandbox_permissions") in ("require_escalated", "with_escalated_permissions")
            just = _str(args.get("justification"))
            if "command" in args:
                cmd = json.dumps(args.get("command"), sort_keys=True)
        prev = self.order[-1] if self.order else None
        c = None
        if esc and prev is not None and prev.sandbox_denied and prev.command == cmd \
                and cmd is not None and prev.tool == tool and prev.ended:
            # the escalated re-run of the command the sandbox just refused
            c = prev
            c.attempt += 1
            c.start, c.where, c.body = when, where, body
            c.invoked = c.ended = c.end_event = c.output_seen = False
            c.sandbox_denied = False
            c.inferred = ["attempt 2: the same command re-run with escalated permissions "
                          "right after the sandbox refused it (the rollout's next call)"]
            if cid != c.cid:
                self.calls[cid] = c
                c.cid = cid
            self.rep.mapped += 1
        if c is None:
            c = self._new_call(cid, tool, server, body, when, where)
            self.rep.mapped += 1
        c.escalated, c.justification, c.command = esc, just, cmd
        if esc and self.policy in NEVER:
            c.inferred.append("escalation requested under approval_policy never")

    def output_item(self, p: dict[str, Any], when: datetime, where: str) -> None:
        cid = _str(p.get("call_id")) or _str(p.get("id"))
        c = self.calls.get(cid) if cid else None
        if c is None or c.output_seen:
            self.rep.fail(where, "an output for no recorded call" if c is None
                          else "a second output for one call id")
            return
        c.output_seen = True
        self.rep.mapped += 1
        if c.ended:
            return  # its end event came first and decided the outcome
        out = p.get("output")
        self.classify(c, out, when, where)

    def oneshot(self, tool: str, p: dict[str, Any], when: datetime, where: str) -> None:
        self.oneshots += 1
        cid = _str(p.get("call_id")) or _str(p.get("id")) or f"({tool}, {where})"
        body = {k: p[k] for k in ("id", "action", "revised_prompt", "status") if k in p}
        c = self._new_call(f"{cid}#{self.oneshots}", tool, HOST, body, when, where)
        c.inferred.append(f"{tool} is recorded once, when done: invocation and end share its "
                          "time")
        status = p.get("status")
        self.rep.mapped += 1
        etype = "tool-failure" if status in ("failed", "incomplete") else "tool-result"
        self._end(c, etype, when, where, {"status": status})

    # -- outcome of an output -----------------------------------------------------------------
    def classify(self, c: Call, out: Any, when: datetime, where: str) -> None:
        text, exit_code, success = _output_text(out)
        body: Any = out
        head = text.lstrip()[:400]
        said = _after_header(text).lstrip()[:400]  # the first words after Codex's header
        if ABORTED.match(head):  # what Codex writes for a call its aborted turn left open
            if not any(s["etype"] == "tool-cancel" for s in c.slot):
                self._end(c, "tool-cancel", when, where, body,
                          "the output says aborted: the turn was interrupted")
            return
        if exit_code is None and USER_REJECTED.match(head):
            self._refuse(c, when, where, "permission-required", head.splitlines()[0],
                         "the output says the user rejected it: Codex asked and the user "
                         "declined, so it did not run")
            return
        # Codex's own answer is plain text; content items or a CallToolResult are the tool's
        if exit_code is None and isinstance(out, str) and HOOK_BLOCKED.match(head):
            self._refuse(c, when, where, "disallowed", text[:2000],
                         "the output says a PreToolUse hook blocked the call: Codex did not "
                         "run it")
            return
        if exit_code is None and isinstance(out, str) and self.guardian_answer(
                c, head, text, when, where):
            return
        # a refusal is Codex's own answer instead of a run: an output with an exit code is a
        # command that ran, and an MCP tool's output is the tool's words (its server may well
        # say "blocked by policy")
        if exit_code is None and c.server == HOST and POLICY_REJECTED.search(
                head.partition("\n")[0]):  # Codex's refusal is one sentence, the output
            self._refuse(c, when, where, "disallowed", head.splitlines()[0],
                         "the output says Codex's policy rejected the command before running it")
            return
        if c.server != HOST and self.mcp_output(c, out, head, body, when, where):
            return
        if exit_code is None and (CANNOT_RUN.match(head) or (
                c.server == HOST and HOST_CANNOT_RUN.match(head))):
            self._end(c, "tool-error", when, where, body,
                      "the output says the call could not run (arguments, unknown tool or "
                      "a spawn error)")
            return
        if CODEX_TIMEOUT.match(said):
            self._end(c, "tool-timeout", when, where, body,
                      "the output says Codex stopped the command at its timeout")
            return
        if c.server == HOST and self.poll(c, text, exit_code, body, when, where):
            return
        failed = (exit_code is not None and exit_code != 0) or success is False \
            or head.startswith("failed in sandbox") \
            or (exit_code is None and c.server == HOST and TOOL_FAILED.match(head) is not None)
        if failed and SANDBOX_DENIED.search(text[:4000]) and self.sandbox != "danger-full-access":
            c.sandbox_denied = True
            self._end(c, "tool-failure", when, where, body,
                      "non-zero exit and a sandbox refusal in the output: the command started "
                      "inside the sandbox, which refused part of it")
            return
        if failed:
            self._end(c, "tool-failure", when, where, body,
                      f"exit code {exit_code}" if exit_code is not None else
                      "success false" if success is False else
                      "the output is Codex's own line for a call that did not succeed")
            return
        run = STILL_RUNNING.search(_header(text)) if c.server == HOST else None
        if run is not None:
            key = ("cell:" if run.group(0).startswith("Script") else "session:") + run.group(1)
            self._invoke(c)
            self._spec(c.slot, "tool-pending", when, c.op, c.attempt, where, body=body,
                       inferred=f"still running when the call returned ({key}): a later "
                                "write_stdin / wait reports its end")
            c.pending = key
            self.running[key] = c
            return
        self._end(c, "tool-result", when, where, body)

    def guardian_answer(self, c: Call, head: str, text: str, when: datetime,
                        where: str) -> bool:
        """Codex's plain-text answer that its automatic reviewer refused the call, or did not
        answer in time (as guardian_assessment denied / timed_out): a disallowed refusal, never
        run. True when this decided it."""
        m = GUARDIAN_REJECTED.match(text.lstrip()) if head.startswith("This action") else None
        if m is not None:
            self._refuse(c, when, where, "disallowed", (m.group(1) or "").strip()[:2000]
                         or text[:2000],
                         "the output says Codex's automatic approval reviewer rejected the "
                         "request for unacceptable risk: Codex did not run it")
            return True
        if GUARDIAN_LATE.match(head):
            self._refuse(c, when, where, "disallowed", text[:2000],
                         "the output says Codex's automatic approval review did not finish "
                         "before its deadline: Codex did not run it")
            return True
        return False

    def poll(self, c: Call, text: str, exit_code: int | None, body: Any, when: datetime,
             where: str) -> bool:
        """A write_stdin / wait reaching a process or script that an earlier call left running:
        while it runs, a progress of that call; once it ended (its exit code, 'Script
        completed|failed'), the end of that call. The polling call itself completed (it wrote
        and read). True when this decided it."""
        args = _d(c.body.get("arguments")) if isinstance(c.body, dict) else {}
        key = next((f"{kind}:{args[k]}" for k, kind in POLL_KEYS
                    if isinstance(args.get(k), (str, int)) and not isinstance(args[k], bool)),
                   None)
        target = self.running.get(key) if key else None
        if target is None or target is c or not HEADER_START.match(text.lstrip()):
            return False
        if target.ended:  # its end is recorded already (its exec_command_end, an earlier poll)
            self._end(c, "tool-result", when, where, body,
                      f"{c.tool} reached {key} of {target.op}, whose end is recorded already")
            return True
        head = _header(text)
        script = re.match(r"Script (completed|failed)\b", text.lstrip())
        if exit_code is None and script is None:
            if not STILL_RUNNING.search(head):
                return False
            self._spec(target.slot, "tool-progress", when, target.op, target.attempt, where,
                       body={"polled_by": c.cid, "output": body})
            self._end(c, "tool-result", when, where, body,
                      f"{c.tool} reached {key} of {target.op}, still running")
            return True
        bad = (exit_code is not None and exit_code != 0) or (script is not None
                                                             and script.group(1) == "failed")
        said = f"exit code {exit_code}" if exit_code is not None else f"Script {script.group(1)}"
        self._end(target, "tool-failure" if bad else "tool-result", when, where,
                  {"reported_by": c.cid, "output": body},
                  f"{key} ended ({said}), as {c.tool} {c.cid} reports")
        target.pending = None
        self._end(c, "tool-result", when, where, body,
                  f"{c.tool} reached {key} of {target.op}; the {said} is that call's end")
        return True

    def mcp_output(self, c: Call, out: Any, head: str, body: Any, when: datetime,
                   where: str) -> bool:
        """An MCP call's outcome from its output item alone (no mcp_tool_call_end): Codex
        wrote the CallToolResult as JSON (older: ``{"content":[...],"isError":true}``) or the
        error of a call that got no result; True when this decided it. Codex's own words are
        the output's plain text: content items or a result are the server's, whatever they say."""
        own = isinstance(out, str)
        if own and self.mcp_skipped(c, head, when, where):
            return True
        if own and (MCP_ERR.match(head) is not None or head.startswith(MCP_ERR_PREFIX)):
            self._end(c, "tool-error", when, where, body,
                      "the output is Codex's error for an MCP call that got no result "
                      "(a failed request, or arguments that were not JSON)")
            return True
        j = _loads(out) if isinstance(out, str) and out[:1] == "{" else out
        if isinstance(j, dict) and isinstance(j.get("content"), list) \
                and j.get("isError") is True:
            self._end(c, "tool-failure", when, where, body,
                      "the output is the MCP result, with isError true")
            return True
        if isinstance(j, dict) and isinstance(j.get("content"), list) \
                and isinstance(j.get("isError"), bool):
            return False  # the result says isError false: a result
        c.mcp_unsure = True
        return False

    def mcp_skipped(self, c: Call, text: str, when: datetime, where: str) -> bool:
        """Codex's own words for an MCP call it did not make (MCP_SKIPS; its automatic
        reviewer's answer): a refusal, never run. True when this decided it."""
        head = text.lstrip()[:400]
        if self.guardian_answer(c, head, text, when, where):
            return True
        for pattern, decision, why in MCP_SKIPS:
            if pattern.match(head):
                self._refuse(c, when, where, decision, head.splitlines()[0],
                             f"Codex's answer says it did not call the MCP server: {why}")
                return True
        return False

    # -- events -----------------------------------------------------------------------------
    def _call_for_end(self, cid: str | None, tool: str, server: str, body: dict[str, Any],
                      when: datetime, where: str) -> Call:
        c = self.calls.get(cid) if cid else None
        if c is None or c.end_event:
            c = self._new_call(cid or f"(no call id, {where})", tool, server, body, when, where)
            c.from_end = True
            c.inferred.append("no call record: the invocation is taken from the end event, "
                              "at its time")
        return c

    def event(self, p: dict[str, Any], when: datetime, where: str) -> None:
        t = p.get("type")
        cid = _str(p.get("call_id")) or _str(p.get("callId"))
        if t in ("exec_command_begin", "exec_command_end") and p.get("source") == USER_SHELL:
            self.rep.ignore("user shell command (the user's own ! command, not the agent's)")
            return
        if t in ("exec_command_begin", "mcp_tool_call_begin", "patch_apply_begin",
                 "dynamic_tool_call_request"):
            self.begin(t, p, cid, when, where)
        elif t in ("exec_approval_request", "apply_patch_approval_request"):
            c = self.calls.get(cid) if cid else None
            if c is None:
                tool = "shell" if t == "exec_approval_request" else "apply_patch"
                body = {"call_id": cid, **{k: p[k] for k in ("command", "cwd", "changes")
                                           if k in p}}
                c = self._new_call(cid or f"(no call id, {where})", tool, HOST, body, when,
                                   where)
            c.approval = "requested"
            c.approval_reason = _str(p.get("reason"))
            c.approval_why = (f"{t}: Codex asked the user; the command then ran, so it was "
                              "approved")
            self.rep.mapped += 1
        elif t == "exec_command_end":
            self.exec_end(p, cid, when, where)
        elif t == "patch_apply_end":
            self.patch_end(p, cid, when, where)
        elif t == "mcp_tool_call_end":
            self.mcp_end(p, cid, when, where)
        elif t == "dynamic_tool_call_response":
            c = self._call_for_end(cid, _str(p.get("tool")) or "dynamic_tool", HOST,
                                   {"call_id": cid, "arguments": p.get("arguments")}, when,
                                   where)
            self.rep.mapped += 1
            c.end_event = True
            if not c.ended:
                ok = p.get("success") is not False and p.get("error") in (None, "")
                self._end(c, "tool-result" if ok else "tool-failure", when, where,
                          {k: p[k] for k in ("content_items", "success", "error") if k in p})
        elif t == "view_image_tool_call":
            c = self._call_for_end(cid, "view_image", HOST, {"call_id": cid, "path":
                                                              p.get("path")}, when, where)
            self.rep.mapped += 1
            c.end_event = True
            if not c.ended:
                self._end(c, "tool-result", when, where, {"path": p.get("path")})
        elif t in COLLAB_EVENTS:
            c = self.calls.get(cid) if cid else None
            if c is None or c.ended:
                self.rep.ignore(f"sub-agent event {t}")
                return
            self.rep.mapped += 1
            c.end_event = True
            status = json.dumps(p.get("status"))[:200]
            bad = any(w in status.lower() for w in ("error", "fail", "not_found", "notfound"))
            self._end(c, "tool-failure" if bad else "tool-result", when, where,
                      {k: p[k] for k in ("status", "agent_statuses", "new_thread_id")
                       if k in p})
        elif t == "guardian_assessment":
            self.guardian(p, when, where)
        elif t == "item_completed":
            self.item_completed(_d(p.get("item")), when, where)
        elif t == "turn_aborted":
            self.turn_end(when, where, "turn_aborted", _str(p.get("reason")))
            self.rep.mapped += 1
        elif t == "user_message":
            self.turn_end(when, where, "the next user message", None)
            self.rep.ignore("event user_message")
        elif t == "thread_rolled_back":
            n = p.get("num_turns")
            self.rolled_back += n if type(n) is int and n > 0 else 1
            self.rep.ignore("event thread_rolled_back")
        elif t in IGNORED_EVENTS:
            self.rep.ignore(f"event {t}")
        else:
            self.rep.fail(where, f"unknown event_msg type {str(t)[:40]!r}")

    def begin(self, t: str, p: dict[str, Any], cid: str | None, when: datetime,
              where: str) -> None:
        inv = _d(p.get("invocation"))
        if not inv and t == "mcp_tool_call_begin" and _str(p.get("server")):
            # the first protocol (2025): server, tool and arguments on the event itself
            inv = {k: p[k] for k in ("server", "tool", "arguments") if k in p}
        c = self.calls.get(cid) if cid else None
        if c is None or c.ended:
            tool = {"exec_command_begin": "shell", "patch_apply_begin": "apply_patch"}.get(
                t, _str(inv.get("tool")) or _str(p.get("tool")) or "unknown")
            server = _str(inv.get("server")) or HOST if t == "mcp_tool_call_begin" else HOST
            body = {"call_id": cid, **{k: p[k] for k in ("command", "cwd", "changes",
                                                         "arguments") if k in p}}
            if inv:
                body["arguments"] = inv.get("arguments")
            c = self._new_call(cid or f"(no call id, {where})", tool, server, body, when,
                               where)
            c.inferred.append(f"no call record: the invocation is taken from {t}")
        if t == "mcp_tool_call_begin":
            self._mcp_target(c, inv)
        if t == "patch_apply_begin" and p.get("auto_approved") is False \
                and c.approval is None and self._asks():
            c.approval = "approved"
            c.approval_why = ("patch_apply_begin auto_approved false: the patch needed the "
                              "user's approval and was applied, so it was approved")
        self.rep.mapped += 1

    def _mcp_target(self, c: Call, inv: dict[str, Any]) -> None:
        server, tool = _str(inv.get("server")), _str(inv.get("tool"))
        if server and tool:
            c.server, c.tool = server, tool
            if c.inv is not None:
                c.inv["kw"]["server"], c.inv["kw"]["tool"] = server, tool

    def exec_end(self, p: dict[str, Any], cid: str | None, when: datetime, where: str) -> None:
        c = self._call_for_end(cid, "shell", HOST, {"call_id": cid, "command": p.get(
            "command"), "cwd": p.get("cwd")}, when, where)
        self.rep.mapped += 1
        c.end_event = True
        if c.ended:
            return
        body = {k: p[k] for k in ("exit_code", "status", "duration", "aggregated_output",
                                  "stdout", "stderr", "formatted_output") if k in p}
        status = p.get("status")
        code = p.get("exit_code") if type(p.get("exit_code")) is int else None
        text = str(p.get("aggregated_output") or p.get("stderr") or "")
        if status == "declined":
            decision = "disallowed" if POLICY_REJECTED.search(text) else "permission-required"
            self._refuse(c, when, where, decision, text.strip()[:400] or "declined",
                         "exec_command_end status declined: Codex did not run the command"
                         + (" (its policy refused it)" if decision == "disallowed"
                            else " (the user declined it)"))
            return
        told = _after_header(str(p.get("formatted_output") or "")).lstrip()
        if (code == 124 and TIMED_OUT.search(text)) or TIMED_OUT.match(text.strip()) \
                or CODEX_TIMEOUT.match(told):
            self._end(c, "tool-timeout", when, where, body,
                      "exit code 124 and 'timed out': Codex stopped the command at its timeout")
            return
        if (code is not None and code != 0) or status == "failed":
            if SANDBOX_DENIED.search(text[:4000]) and self.sandbox != "danger-full-access":
                c.sandbox_denied = True
            self._end(c, "tool-failure", when, where, body,
                      f"exec_command_end exit code {code}" if code is not None
                      else "exec_command_end status failed")
            return
        self._end(c, "tool-result", when, where, body)

    def patch_end(self, p: dict[str, Any], cid: str | None, when: datetime, where: str) -> None:
        c = self._call_for_end(cid, "apply_patch", HOST, {"call_id": cid, "changes": p.get(
            "changes")}, when, where)
        self.rep.mapped += 1
        c.end_event = True
        if c.ended:
            return
        body = {k: p[k] for k in ("success", "status", "stdout", "stderr") if k in p}
        if p.get("status") == "declined":
            self._refuse(c, when, where, "permission-required",
                         str(p.get("stderr") or "declined")[:400],
                         "patch_apply_end status declined: the patch was not applied (the "
                         "user declined it)")
            return
        ok = p.get("success") is True or p.get("status") == "completed"
        self._end(c, "tool-result" if ok else "tool-failure", when, where, body,
                  None if ok else "patch_apply_end success false")

    def mcp_end(self, p: dict[str, Any], cid: str | None, when: datetime, where: str) -> None:
        inv = _d(p.get("invocation"))
        c = self._call_for_end(cid, _str(inv.get("tool")) or "unknown",
                               _str(inv.get("server")) or "unknown-mcp-server",
                               {"call_id": cid, "arguments": inv.get("arguments")}, when, where)
        self._mcp_target(c, inv)
        self.rep.mapped += 1
        c.end_event = True
        c.mcp_unsure = False
        if c.ended:
            return
        res = p.get("result")
        body = {k: p[k] for k in ("result", "duration") if k in p}
        said = _err_text(res.get("Err") if isinstance(res, dict) else None)
        if said and self.mcp_skipped(c, said, when, where):
            return
        if isinstance(res, dict) and "Err" in res:
            self._end(c, "tool-error", when, where, body,
                      "mcp_tool_call_end result Err: the MCP call did not complete")
        elif isinstance(res, dict) and _d(res.get("Ok")).get("isError") is True:
            self._end(c, "tool-failure", when, where, body, "MCP result isError true")
        else:
            self._end(c, "tool-result", when, where, body)

    def item_completed(self, item: dict[str, Any], when: datetime, where: str) -> None:
        """Newer rollouts' thread items (the app-server's shapes)."""
        it = item.get("type")
        cid = _str(item.get("id"))
        if it == "CommandExecution":
            self.exec_end({**item, "status": _lower(item.get("status"))}, cid, when, where)
        elif it == "McpToolCall":
            st = _lower(item.get("status"))
            res = item.get("result")
            err = item.get("error")
            r = {"Err": err} if err not in (None, "") or (st == "failed" and res is None) \
                else {"Ok": res if isinstance(res, dict) else {}}
            self.mcp_end({"invocation": {"server": item.get("server"), "tool": item.get("tool"),
                                         "arguments": item.get("arguments")},
                          "result": r, "duration": item.get("duration")}, cid, when, where)
        elif it == "FileChange":
            st = _lower(item.get("status"))
            self.patch_end({"changes": item.get("changes"), "status": st,
                            "success": st == "completed", "stdout": item.get("stdout"),
                            "stderr": item.get("stderr")}, cid, when, where)
        else:
            self.rep.ignore(f"item_completed {str(it)[:40]}")

    def guardian(self, p: dict[str, Any], when: datetime, where: str) -> None:
        status = _lower(p.get("status"))
        target = _str(p.get("target_item_id"))
        c = self.calls.get(target) if target else None
        reason = _str(p.get("rationale"))
        if status == "approved":
            if c is None or c.invoked:
                self.rep.ignore("guardian assessment (approved) of no pending call")
                return
            c.approval = "guardian-approved"
            c.approval_reason = reason
            c.approval_why = ("guardian_assessment approved: Codex's automatic reviewer "
                              "answered the approval request")
            self.rep.mapped += 1
        elif status in ("denied", "timed_out", "aborted"):
            if c is None or c.invoked:
                act = _d(p.get("action"))
                at = act.get("type")
                server, tool = HOST, {"command": "shell", "execve": "shell",
                                      "apply_patch": "apply_patch"}.get(str(at), str(at))
                if at == "mcp_tool_call":
                    server = _str(act.get("server")) or "unknown-mcp-server"
                    tool = _str(act.get("tool_name")) or "unknown"
                c = self._new_call(target or f"(guardian, {where})", tool, server,
                                   {"action": act}, when, where)
            self._refuse(c, when, where, "disallowed", reason or f"guardian {status}",
                         f"guardian_assessment {status}: Codex's automatic reviewer refused "
                         "the request; it did not run")
            self.rep.mapped += 1
        else:
            self.rep.ignore(f"guardian assessment {status}")

    def turn_end(self, when: datetime, where: str, why: str, reason: str | None) -> None:
        """The turn ended: open calls waiting on a prompt were not approved; with
        turn_aborted, running calls were cancelled."""
        while self.first_open < len(self.order) and self.order[self.first_open].ended:
            self.first_open += 1  # calls before it have all ended: not scanned again
        for c in self.order[self.first_open:]:
            if c.ended or c.from_end:
                continue
            waiting = not c.invoked and (c.approval == "requested"
                                         or (c.escalated and self._asks()))
            if waiting:
                self._refuse(c, when, where, "permission-required",
                             c.asked_reason(),
                             f"Codex asked to run it (escalation or approval request under "
                             f"approval_policy {self.policy}); no output followed and the turn "
                             f"ended ({why}{': ' + reason if reason else ''}): not approved")
            elif why == "turn_aborted" and not c.ended and c.pending is None:
                if c.invoked and any(s["etype"] == "tool-cancel" for s in c.slot):
                    continue
                self._end(c, "tool-cancel", when, where,
                          {"turn_aborted": reason} if reason else None,
                          "turn_aborted while the call had no output")

    # -- codex exec --json ------------------------------------------------------------------
    def exec_json(self, p: dict[str, Any], when: datetime, where: str) -> None:
        t = p.get("type")
        if t in ("item.started", "item.updated", "item.completed"):
            item = _d(p.get("item"))
            it = item.get("type") or item.get("item_type")
            if t == "item.completed" and it == "agent_message" \
                    and self.dialogs.replied(when, item.get("text"), where):
                self.rep.mapped += 1  # exec --json has the agent's answer, not the prompt
                return
            if it not in ("command_execution", "mcp_tool_call", "file_change", "web_search",
                          "collab_tool_call"):
                self.rep.ignore(f"{t} {str(it)[:40]}")
                return
            iid = _str(item.get("id")) or f"({where})"
            if t == "item.updated":
                self.rep.ignore("item.updated")
                return
            c = self.calls.get(iid)
            if c is None or c.ended:
                server, tool = HOST, {"command_execution": "shell", "file_change":
                                      "apply_patch", "web_search": "web_search"}.get(it, it)
                if it == "collab_tool_call":
                    tool = _str(item.get("tool")) or "collab_tool"
                if it == "mcp_tool_call":
                    server = _str(item.get("server")) or "unknown-mcp-server"
                    tool = _str(item.get("tool")) or "unknown"
                body = {"item_id": iid, **{k: item[k] for k in ("command", "arguments",
                                                                 "changes", "query", "prompt",
                                                                 "receiver_thread_ids")
                                           if k in item}}
                c = self._new_call(iid, str(tool), server, body, when, where)
                if t == "item.completed":
                    c.inferred.append("no item.started: the invocation is taken from "
                                      "item.completed")
            self.rep.mapped += 1
            if t == "item.started":
                return
            status = item.get("status")
            res = {k: item[k] for k in ("status", "exit_code", "aggregated_output", "result",
                                        "error", "changes") if k in item}
            if status == "declined":
                self._refuse(c, when, where, "disallowed", "declined",
                             "codex exec item status declined: no one can be asked in exec "
                             "mode, so the host refused it")
            elif it == "mcp_tool_call" and item.get("error") not in (None, ""):
                said = _err_text(item["error"])
                if not (said and self.mcp_skipped(c, said, when, where)):
                    self._end(c, "tool-error", when, where, res, "mcp_tool_call error")
            elif status == "failed" or (type(item.get("exit_code")) is int
                                        and item["exit_code"] != 0):
                self._end(c, "tool-failure", when, where, res,
                          f"status {status}, exit code {item.get('exit_code')}")
            else:
                self._end(c, "tool-result", when, where, res)
        elif t in ("turn.failed",):
            self.turn_end(when, where, "turn_aborted", "turn.failed")
            self.rep.mapped += 1
        else:
            self.rep.ignore(str(t))

    def finish(self) -> None:
        for c in self.order:
            if not c.invoked:
                self._invoke(c)  # no outcome recorded: the operation stays open
        if len(set(self.sessions)) > 1 or len(self.sessions) > 1:
            self.rep.warn(f"{len(self.sessions)} session_meta records: the file holds several "
                          "sessions (resumed, forked or sub-agent threads) read as one")
        if self.repeats:
            self.rep.warn(f"{self.repeats} line(s) repeat earlier lines byte for byte (a "
                          "resumed or forked session): each was counted once")
        unsure = sum(1 for c in self.order if c.mcp_unsure)
        if unsure:
            self.rep.warn(f"{unsure} MCP call(s) end only at their output item, which this "
                          "Codex version writes without the tool's isError: shown as "
                          "completed, the tool may have reported an error")
        if self.reused:
            self.rep.warn(f"{self.reused} call id(s) were used by more than one call: each "
                          "call is its own operation")
        if self.rolled_back:
            self.rep.warn(f"the user rolled back {self.rolled_back} turn(s) "
                          "(thread_rolled_back): their calls ran and are shown; the model no "
                          "longer saw them")


def _err_text(err: Any) -> str:
    """The words of an MCP call's error: the Err string of mcp_tool_call_end, or the message
    of a thread item's error object ('' when there are none)."""
    return err if isinstance(err, str) else _str(_d(err).get("message")) or ""


def _lower(v: Any) -> str | None:
    if not isinstance(v, str):
        return None
    return re.sub(r"(?<!^)(?=[A-Z])", "_", v).lower()


def _after_header(text: str) -> str:
    """What follows the header Codex writes before a command's output, else the text."""
    if HEADER_START.match(text.lstrip()):
        _, sep, rest = text.partition("\nOutput:")
        if sep:
            return rest[1:] if rest[:1] == "\n" else rest
    return text


def _output_text(out: Any) -> tuple[str, int | None, bool | None]:
    """(text the model saw, exit code when the output says, success when it says)."""
    success = None
    if isinstance(out, dict):
        if isinstance(out.get("success"), bool):
            success = out["success"]
        inner = out.get("content", out.get("text", out.get("output")))
        if inner is not None and inner is not out:
            t, code, s = _output_text(inner)
            return t, code, success if success is not None else s
        return json.dumps(out)[:20000], None, success
    if isinstance(out, list):  # content items (input_text...): the same text, in parts
        parts = [x.get("text") for x in out if isinstance(x, dict)
                 and isinstance(x.get("text"), str)]
        joined = "\n".join(parts)
        return joined, _header_exit(joined), None
    if not isinstance(out, str):
        return "" if out is None else str(out), None, None
    j = _loads(out) if out[:1] == "{" else None
    if isinstance(j, dict) and "output" in j:  # {"output", "metadata": {"exit_code"}}
        meta = _d(j.get("metadata"))
        code = meta["exit_code"] if type(meta.get("exit_code")) is int else None
        return str(j.get("output")), code, success
    return out, _header_exit(out), success


def _header(text: str) -> str:
    """The header Codex writes before "Output:" ("" when the text does not start with one)."""
    text = text.lstrip()
    return text[:600].partition("\nOutput:")[0] if HEADER_START.match(text) else ""


def _header_exit(text: str) -> int | None:
    """The exit code in the header Codex writes before "Output:" ("Exit code: N", "Process
    exited with code N"); what follows the header is the command's own output, whose words
    are not Codex's, and a text with no such header states no exit code."""
    m = EXIT_LINE.search(_header(text))
    return int(m.group(1)) if m else None


# --- the vCon ---------------------------------------------------------------------------------


def convert(data: bytes, *, source_name: str = "-",
            created: str | None = None) -> tuple[dict[str, Any], Report]:
    report = Report()
    recs, dialect = read(data, report)
    if not recs:
        raise ImportInputError("no Codex rollout line or codex exec --json event could be read")
    times = resolve_times(recs, report)
    meta = next((r.payload for r in recs if r.kind == "session_meta"), {})
    cli = _str(meta.get("cli_version"))
    parties = [{"name": "Codex CLI" + (f" {cli}" if cli else ""), "role": "agent",
                **({"meta": {"codex_session_id": meta["id"]}} if _str(meta.get("id")) else {})}]
    dialogs = Dialogs(parties)
    m = Mapper(report, dialogs)
    for r, when in zip(recs, times, strict=True):
        try:
            m.record(r, when)
        except (TypeError, ValueError, AttributeError, KeyError, RecursionError) as e:
            report.fail(r.where, f"could not be read ({type(e).__name__})")
    m.finish()
    events = m.flush()
    if events.operations == 0:
        report.warn("the recording has no tool call: the vCon has no operations")
    provenance = {
        "tool": "vcon-view import codex",
        "source": {"file": source_name, "sha256": hashlib.sha256(data).hexdigest(),
                   "format": f"codex {dialect}", "records": len(recs)},
        "mapping": "one call id = one operation; built-in tools on server !host; MCP tools "
                   "on their server; approval_policy -> standing decisions; refusals -> once "
                   "decisions without a tool-invocation (each rule in 'inferred')",
        **report.as_dict(),
    }
    vcon = assemble(uid=vcon_uuid(data), subject=f"Codex CLI session imported from {source_name}",
                    parties=parties, events=events, start=times[0] if times else None,
                    provenance=provenance, created=created, dialogs=dialogs)
    return vcon, report


def sniff(smp: Sample) -> bool:
    doc = smp.doc if smp.is_doc else None
    if isinstance(doc, dict) and isinstance(doc.get("session"), dict) and isinstance(
            doc.get("items"), list):
        return "id" in doc["session"] and any(
            isinstance(x, dict) and x.get("type") in CALL_ITEMS | OUTPUT_ITEMS | {"message"}
            for x in doc["items"])
    recs = smp.records() if not smp.is_doc else []
    if not recs:
        return False
    roll = sum(1 for r in recs if r.get("type") in ROLLOUT_TYPES
               and isinstance(r.get("payload"), dict))
    if roll and (roll * 2 > len(recs) or recs[0].get("type") == "session_meta"):
        return True
    ex = sum(1 for r in recs if r.get("type") in EXEC_TYPES)
    if ex * 2 > len(recs) and any(str(r.get("type")).startswith(("thread.", "turn.", "item."))
                                  for r in recs):
        return True
    proto = sum(1 for r in recs if isinstance(r.get("msg"), dict)
                and r["msg"].get("type") in PROTOCOL_EVENTS and "id" in r)
    if proto and proto * 2 > len(recs):
        return True  # {id, msg} protocol events (codex proto, early codex exec --json)
    first = recs[0]
    if _str(first.get("id")) and "timestamp" in first and "type" not in first and (
            "instructions" in first or "git" in first):
        return any(r.get("type") in CALL_ITEMS | OUTPUT_ITEMS | {"message", "reasoning"}
                   or "record_type" in r for r in recs[1:])
    return False


FORMAT = Format(name="codex", title="Codex CLI rollout", unit="lines",
                sniff=sniff, convert=convert,
                help="a Codex CLI rollout (~/.codex/sessions/.../rollout-*.jsonl) or "
                     "codex exec --json output")
