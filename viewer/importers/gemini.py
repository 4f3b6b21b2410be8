"""Gemini CLI recordings -> tool-invocation events.

* the **session** ``~/.gemini/tmp/<hash>/chats/session-*.json`` (ChatRecordingService:
  ``{sessionId, projectHash, startTime, lastUpdated, messages: [{id, timestamp, type, content,
  toolCalls: [{id, name, args, result, status, timestamp, resultDisplay, displayName}]}]}``)
  and its newer JSONL form (a metadata line, message lines, a message line again each time the
  message changes, ``{"$set": ...}`` metadata updates and ``{"$rewindTo": id}``);
* ``gemini -p --output-format stream-json`` (output/types.ts: ``tool_use`` / ``tool_result``
  by ``tool_id``, ``message``, ``init``, ``result``);
* a ``/chat save`` **checkpoint** (``checkpoint-<tag>.json``: the model's Content history,
  ``functionCall`` / ``functionResponse`` parts; no times, no status);
* the **telemetry outfile** (``--telemetry-outfile``): the OpenTelemetry SDK's log records
  written as pretty-printed JSON one after another; ``gemini_cli.tool_call`` records
  (function_name, function_args, duration_ms, success, decision, error, error_type) are the
  calls, ``gemini_cli.config`` gives the approval mode. Plain OTLP/JSON (``resourceSpans``,
  ``resourceLogs``) is the otlp importer's, not this one's.

One tool call is one operation ``op-NNNN``; Gemini's call id stays in the invocation content.
A session records one time per call (``timestamp``): the invocation takes the message's time
when that is not later, else the call's; the end takes the call's.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import re
from dataclasses import dataclass
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
    rfc3339,
    vcon_uuid,
)
from viewer.importers.common import dict_or_empty as _d
from viewer.importers.common import nonempty_str as _str
from viewer.importers.formats import Format, ImportInputError, Sample, json_records
from viewer.jsonenc import loads

#: How many leading outfile records are looked at to recognise the outfile.
SCAN: Final = 64
DENIED_BY_POLICY: Final = re.compile(r"denied by policy|policy_violation|blocked by policy",
                                     re.I)
#: Other refusals of Gemini's policy (scheduler/policy.ts): a tool outside plan mode's read and
#: search tools, and a call the policy would ask about in a run that cannot ask. Never run.
POLICY_NOT_RUN: Final = re.compile(
    r"You are in Plan Mode - adjust your prompt|requires user confirmation, which is not "
    r"supported in non-interactive mode")
INFER_POLICY_NOT_RUN: Final = ("Gemini's policy refused the call before it ran (plan mode allows "
                               "only read and search tools; a non-interactive run cannot ask "
                               "for a confirmation)")
#: A BeforeTool hook's answer instead of running the tool (core/coreToolHookTriggers.ts, the
#: scheduler's evaluateBeforeToolHook): it blocked the call, or stopped the agent.
HOOK_BLOCKED: Final = re.compile(
    r"^(?:Tool execution blocked|Agent execution stopped by hook): .*", re.M)
INFER_HOOK: Final = ("a BeforeTool hook blocked the call (\"Tool execution blocked\" / \"Agent "
                     "execution stopped by hook\"): it did not run")
USER_DECLINED: Final = re.compile(r"did not allow tool call|user (?:denied|declined|rejected)",
                                  re.I)
CANNOT_RUN: Final = re.compile(
    r"not found in registry|tool \S+ not found|invalid (?:tool )?param|invalid_tool_params|"
    r"tool_not_registered|params must|must have required property|unknown tool", re.I)
#: mcp-tool.ts's answer when the MCP result has isError: the tool's own error text follows.
MCP_TOOL_ERROR: Final = re.compile(r"^MCP tool '[^'\n]{1,200}' reported tool error for "
                                   r"function call", re.M)
TIMED_OUT: Final = re.compile(r"timed out|timeout exceeded|execution_timeout", re.I)
#: The scheduler's reason for the calls still queued when the user cancels at a confirmation
#: (cancelAllQueued): they were never sent to the tool.
BATCH_CANCELLED: Final = re.compile(r"\[Operation Cancelled\] Reason: User cancelled operation\b")
#: One rule of ``STATUS_RULES``: (the pattern of the result text, None for any; the outcome;
#: what it quotes: "match" the words matched, "first" the text's first line, None nothing; why).
_Rule = tuple[re.Pattern[str] | None, str, str | None, str]
#: The outcome of a call that ended in error, by its error text, the session's and the
#: stream-json's alike: the first rule that matches decides; when none does, the tool ran and
#: failed. (An MCP tool's own error is read before these: its words are the tool's.)
ERROR_RULES: Final[tuple[_Rule, ...]] = (
    (HOOK_BLOCKED, "refuse-disallowed", "match", "status error: " + INFER_HOOK),
    (DENIED_BY_POLICY, "refuse-disallowed", "first",
     "status error, 'denied by policy': Gemini's policy engine refused the call; it did not "
     "run"),
    (POLICY_NOT_RUN, "refuse-disallowed", "first", "status error: " + INFER_POLICY_NOT_RUN),
    (USER_DECLINED, "refuse-declined", "first",
     "the user declined the confirmation; it did not run"),
    (CANNOT_RUN, "error", None,
     "status error: the call could not run (unknown tool or invalid parameters)"),
    (TIMED_OUT, "timeout", None, "status error, 'timed out': the host stopped the tool"),
)
#: A session call's outcome by its status (error, cancelled, awaiting_approval) and its result
#: text: the first rule that matches decides.
STATUS_RULES: Final[dict[str, tuple[_Rule, ...]]] = {
    "error": (*ERROR_RULES, (None, "failure", None,
                             "status error with a tool result: the tool ran and reported "
                             "failure")),
    "cancelled": (
        (USER_DECLINED, "refuse-declined", "first",
         "status cancelled, 'did not allow': the user declined the confirmation; it did not "
         "run"),
        (BATCH_CANCELLED, "refuse-declined", "first",
         "status cancelled, 'User cancelled operation': Gemini cancels the calls still queued "
         "when the user declines one of the batch at its confirmation; it did not run"),
        (None, "cancel", None, "status cancelled"),
    ),
    "awaiting_approval": (
        (None, "refuse-declined", None,
         "status awaiting_approval when the session was saved: the confirmation was never "
         "answered"),
    ),
}
#: run_shell_command's answer to the model ends with these lines (shell.ts): a command that
#: exited non-zero or was killed by a signal is still status "success" in the session.
SHELL_TAIL: Final = re.compile(
    r"\n(?:Exit Code: (-?\d+)(?:\nSignal: ([^\n]*))?|Signal: ([^\n]*))"
    r"(?:\nBackground PIDs: [^\n]*)?(?:\nProcess Group PGID: [^\n]*)?\s*\Z")
#: Older shell.ts (2025): every line written, "(none)" for what is unset, after "Command: ...",
#: "Directory: ...", "Output: ..." (or "Stdout: ..."/"Stderr: ...") and "Error: ...".
OLD_SHELL_TAIL: Final = re.compile(
    r"(?:\nError: ([^\n]*))?\nExit Code: (-?\d+|\(none\))\nSignal: ([^\n]*)"
    r"(?:\nBackground PIDs: [^\n]*)?"
    r"(?:\nProcess Group PGID: [^\n]*)?\s*\Z")
#: agents/local-invocation.ts's answer to the model when a sub-agent failed; it leaves out the
#: error (so the session says status success) to show its progress display instead.
#: It names the sub-agent, the call's own tool: another tool's output quoting it is that tool's.
SUBAGENT_FAILED: Final = re.compile(r"^Subagent '([^'\n]{1,200})' failed(?: via [^.\n]*)?\. Error:")
#: Its answer when the sub-agent ended (local-executor.ts AgentTerminateMode): GOAL is done; the
#: others stopped short of it once its recovery turn did not finish (status still success).
SUBAGENT_ENDED: Final = re.compile(
    r"^Subagent '([^'\n]{1,200})' finished\.\nTermination Reason: ([A-Z_]{1,40})\n")
SUBAGENT_SHORT: Final = {
    "TIMEOUT": ("timeout", "the sub-agent stopped at its time limit"),
    "MAX_TURNS": ("failure", "the sub-agent stopped at its turn limit"),
    "ERROR": ("failure", "the sub-agent stopped on an error"),
    "ERROR_NO_COMPLETE_TASK_CALL": ("failure", "the sub-agent stopped without calling "
                                               "complete_task"),
    "ABORTED": ("cancel", "the sub-agent was aborted"),
}
SHELL_TIMEOUT: Final = "Command was automatically cancelled because it exceeded the timeout"
SHELL_ABORTED: Final = ("Command was cancelled by user before it could complete",
                        "Command was cancelled by user before it could start")
#: Newer shell.ts wraps its whole answer to the model (utils/textUtils.ts wrapUntrusted, an
#: inner closing tag escaped): the lines inside are read as the answer.
UNTRUSTED: Final = re.compile(r"\A<untrusted_context>\n(.*)\n</untrusted_context>\s*\Z", re.S)
MCP_DISPLAY: Final = re.compile(r"^(.*) \((.+) MCP Server\)$")
MCP_NAME: Final = re.compile(r"^(?:mcp__)?([^_].*?)__(.+)$")
#: Newer Gemini CLI (mcp-tool.ts MCP_TOOL_PREFIX, separator "_"): mcp_<server>_<tool>.
MCP_PREFIXED: Final = re.compile(r"^mcp_([^_]+)_(.+)$")
#: Approval modes: yolo runs everything; the others ask (auto_edit: all but edits).
MODES: Final = {"yolo": "allowed", "default": "permission-required",
                "auto_edit": "permission-required", "autoedit": "permission-required",
                "plan": "permission-required"}


@dataclass
class Msg:
    rec: dict[str, Any]
    where: str
    #: known only from a ``$set`` of the whole message list (updateMessagesFromHistory): Gemini's
    #: rewritten history (its setup context, a compression summary), not words said then
    rewritten: bool = False


# --- reading ----------------------------------------------------------------------------------


def _concatenated(text: str) -> tuple[list[Any], bool]:
    """JSON values written one after another (the telemetry outfile), and whether text that
    is not JSON follows them (a record cut short when Gemini CLI was stopped)."""
    dec = json.JSONDecoder()
    out: list[Any] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            break
        try:
            v, i = dec.raw_decode(text, i)
        except (ValueError, RecursionError):
            return out, True
        out.append(v)
    return out, False


def _is_telemetry(rec: Any) -> bool:
    if not isinstance(rec, dict):
        return False
    name = _d(rec.get("attributes")).get("event.name")
    return isinstance(name, str) and name.startswith("gemini_cli.")


def checkpoint_history(doc: Any) -> list[Any] | None:
    """The history of a ``/chat save`` checkpoint (``checkpoint-<tag>.json``): the model's
    Content list (``{role: user|model, parts: [...]}``), bare or as ``{history: [...]}``."""
    hist = doc.get("history") if isinstance(doc, dict) and "sessionId" not in doc else doc
    if not isinstance(hist, list) or not hist:
        return None
    ok = all(isinstance(x, dict) and x.get("role") in ("user", "model")
             and isinstance(x.get("parts"), list) for x in hist[:20])
    return hist if ok else None


#: ``gemini -p --output-format stream-json`` event types (output/types.ts JsonStreamEventType).
STREAM_TYPES: Final = frozenset({"init", "message", "tool_use", "tool_result", "error",
                                 "result"})


def is_stream_record(r: Any) -> bool:
    """A record only Gemini CLI's stream-json writes: its ``init`` (session_id, model), or a
    ``tool_use`` / ``tool_result`` with a ``tool_id`` (Claude Code's stream-json nests tool
    blocks inside messages; Cursor's has ``tool_call``)."""
    if not isinstance(r, dict):
        return False
    t = r.get("type")
    if t == "init":
        return isinstance(r.get("session_id"), str) and "model" in r and "subtype" not in r
    return t in ("tool_use", "tool_result") and isinstance(r.get("tool_id"), str) \
        and "message" not in r


def stream_records(data: bytes) -> list[tuple[int, dict[str, Any]]] | None:
    """The lines of a stream-json output, or None when the input is not one."""
    if not any(is_stream_record(r) for _, r, _ in itertools.islice(json_records(data), SCAN)):
        return None
    return [(n, r) if r is not None else (n, {"type": None, "_why": why})
            for n, r, why in json_records(data)]


def read_session(data: bytes, report: Report) -> tuple[dict[str, Any], list[Msg], str]:
    """(session metadata, messages in order, form). Raises ImportInputError."""
    try:
        doc = loads(data)
        is_doc = True
    except orjson.JSONDecodeError:
        doc, is_doc = None, False
    if is_doc and isinstance(doc, dict) and isinstance(doc.get("messages"), list):
        msgs = []
        for i, m in enumerate(doc["messages"]):
            if isinstance(m, dict):
                msgs.append(Msg(m, f"/messages/{i}"))
            else:
                report.fail(f"/messages/{i}", "not an object")
        meta = {k: v for k, v in doc.items() if k != "messages"}
        return meta, msgs, "session-json"
    if is_doc and isinstance(doc, list) and doc and all(
            isinstance(m, dict) and "type" in m for m in doc[:5]):
        return {}, [Msg(m, f"/{i}") for i, m in enumerate(doc) if isinstance(m, dict)], \
            "messages-array"
    # JSONL
    meta: dict[str, Any] = {}
    latest: dict[str, Msg] = {}
    order: list[str] = []
    rewinds = 0
    for n, rec, why in json_records(data):
        where = f"line {n}"
        if rec is None:
            report.fail(where, why)
            continue
        if isinstance(rec.get("$rewindTo"), str):
            rewinds += 1
            report.ignore("rewind record")
        elif isinstance(rec.get("$set"), dict):
            upd = rec["$set"]
            if isinstance(upd.get("messages"), list):
                for i, m in enumerate(upd["messages"]):
                    if isinstance(m, dict) and isinstance(m.get("id"), str) \
                            and m["id"] not in latest:
                        latest[m["id"]] = Msg(m, f"{where}/$set/messages/{i}", rewritten=True)
                        order.append(m["id"])
            report.ignore("metadata update")
        elif isinstance(rec.get("id"), str) and isinstance(rec.get("type"), str):
            mid = rec["id"]
            if mid in latest:
                report.ignore("earlier version of a message (superseded)")
            else:
                order.append(mid)
            latest[mid] = Msg(rec, where)
        elif isinstance(rec.get("sessionId"), str):
            meta.update(rec)
            report.ignore("session metadata")
        else:
            report.fail(where, "neither a message, a metadata line nor an update")
    if rewinds:
        report.warn(f"the session was rewound {rewinds} time(s): the tool calls of the "
                    "messages it removed are kept (they ran)")
    if not latest and not meta:
        raise ImportInputError("no Gemini CLI session message or telemetry record could be read")
    return meta, [latest[i] for i in order], "session-jsonl"


# --- mapping ----------------------------------------------------------------------------------


def content_text(content: Any) -> str | None:
    """A message's text: a string, or the text of its parts ({text} or plain strings); one
    part alone is a PartListUnion too."""
    if isinstance(content, str):
        return content if content.strip() else None
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        parts = [b if isinstance(b, str) else b.get("text") for b in content
                 if isinstance(b, (str, dict))]
        text = "\n".join(p for p in parts if isinstance(p, str) and p.strip())
        return text or None
    return None


class Mapper:
    def __init__(self, report: Report) -> None:
        self.rep = report
        self.ev = Events(party=0)
        self.parties: list[dict[str, Any]] = [{"name": "Gemini CLI", "role": "agent"}]
        self.dialogs = Dialogs(self.parties)
        self.prev: datetime | None = None
        self.mode: str | None = None

    def time(self, value: Any) -> datetime | None:
        t, naive = parse_ts(value)
        if naive:
            self.rep.warn("timestamps without a zone offset were read as UTC")
        if t is None:
            if self.prev is not None:
                self.rep.times = "partial"
            return self.prev
        self.prev = t
        return t

    def standing(self, mode: str, when: datetime, where: str, whence: str) -> bool:
        key = mode.lower().replace("-", "_").replace(" ", "_")
        key = "auto_edit" if key in ("autoedit", "auto_edit") else key
        if key not in MODES or key == self.mode:
            return False
        self.mode = key
        ev = self.ev.add("policy-decision", when, "", 0, where, attempt_field=False,
                         server=HOST, decision=MODES[key], policy_life="standing",
                         operation="tool-invocation", reason=f"approval mode {key}",
                         inferred=f"{whence}: approval mode {key} "
                                  + ("runs every tool without asking" if key == "yolo" else
                                     "asks before tools that change things"))
        del ev["operation_id"]
        return True

    def target(self, call: dict[str, Any]) -> tuple[str, str]:
        name = _str(call.get("name")) or "unknown"
        server = _str(call.get("serverName")) or _str(call.get("server_name")) \
            or _str(call.get("mcp_server_name"))
        if server:
            prefix = f"{server}__"
            return server, name[len(prefix):] if name.startswith(prefix) else name
        dm = MCP_DISPLAY.match(str(call.get("displayName") or ""))
        if dm:  # "<tool> (<server> MCP Server)": what every Gemini CLI names an MCP tool
            return dm.group(2), dm.group(1)
        m = MCP_NAME.match(name)
        if m:
            return m.group(1), m.group(2)
        m = MCP_PREFIXED.match(name)
        if m:  # newer Gemini CLI: mcp_<server>_<tool>, split as its parseMcpToolName does
            if "_" in m.group(2):
                self.rep.warn("MCP tool names mcp_<server>_<tool> without a displayName were "
                              "split at the first '_' after mcp_, as Gemini CLI does: a server "
                              "name with '_' in it shows cut short")
            return m.group(1), m.group(2)
        return HOST, name

    def call(self, call: dict[str, Any], start: datetime, end: datetime, where: str,
             outcome: tuple[str, str | None, str | None], body: Any,
             decision: tuple[str, str] | None = None, end_where: str | None = None) -> None:
        """outcome: (kind, reason/inferred, ...). kind: result | failure | error | timeout |
        cancel | refuse-disallowed | refuse-declined | open. ``end_where``: the record of
        the end, when it is not the call's own (a refusal is placed at the end's record)."""
        server, tool = self.target(call)
        op = self.ev.new_operation()
        kind, reason, why = outcome
        inv_body = {"id": call.get("id", call.get("callId")),
                    "args": call.get("args", call.get("function_args"))}
        if kind.startswith("refuse-"):
            # what was asked, when the record holds the arguments (Events.asked)
            self.ev.asked(op, 1, inv_body if inv_body["args"] is not None else None)
            self.ev.add("policy-decision", start, op, 1, end_where or where, server=server,
                        tool=tool,
                        decision="disallowed" if kind == "refuse-disallowed"
                        else "permission-required", policy_life="once",
                        operation="tool-invocation", **({"reason": reason[:2000]}
                                                        if reason else {}),
                        inferred=why)
            return
        if decision is not None:
            self.ev.add("policy-decision", start, op, 1, where, server=server, tool=tool,
                        decision=decision[0], policy_life="once",
                        operation="tool-invocation", inferred=decision[1])
        self.ev.add("tool-invocation", start, op, 1, where, server=server, tool=tool,
                    body=inv_body)
        if kind == "open":
            return
        etype = {"result": "tool-result", "failure": "tool-failure", "error": "tool-error",
                 "timeout": "tool-timeout", "cancel": "tool-cancel"}[kind]
        kw: dict[str, Any] = {"inferred": why} if why else {}
        self.ev.add(etype, end, op, 1, end_where or where,
                    body=body if body is not None else {}, **kw)

    # -- session ----------------------------------------------------------------------------
    def session(self, meta: dict[str, Any], msgs: list[Msg]) -> None:
        self.time(meta.get("startTime"))
        for m in msgs:
            try:
                self.message(m)
            except (TypeError, ValueError, AttributeError, KeyError, RecursionError) as e:
                self.rep.fail(m.where, f"could not be read ({type(e).__name__})")

    def message(self, m: Msg) -> None:
        rec = m.rec
        t = rec.get("type")
        when = self.time(rec.get("timestamp"))
        calls = rec.get("toolCalls")
        text = content_text(rec.get("content")) if t in ("user", "gemini") else None
        if m.rewritten and text is not None:
            text = None  # not what the user or the model said at that time
            if not (isinstance(calls, list) and calls):
                self.rep.ignore("message text from a rewritten history ($set messages)")
                return
        if text is not None:  # the conversation: the user's prompt, the model's answer
            if when is None:
                when = EPOCH
                self.rep.times = "order-only"
            if t == "user":
                self.dialogs.said(when, text, m.where)
            else:
                self.dialogs.replied(when, text, m.where)
        if not isinstance(calls, list) or not calls:
            if text is not None:
                self.rep.mapped += 1
            else:
                self.rep.ignore(f"message {str(t)[:30]}")
            return
        self.rep.mapped += 1
        for i, c in enumerate(calls):
            where = f"{m.where}/toolCalls/{i}"
            if not isinstance(c, dict) or not _str(c.get("name")):
                self.rep.fail(where, "a tool call without a name")
                continue
            self.session_call(c, when, where)

    def session_call(self, c: dict[str, Any], msg_time: datetime | None, where: str) -> None:
        ct, naive = parse_ts(c.get("timestamp"))
        if naive:
            self.rep.warn("timestamps without a zone offset were read as UTC")
        end = ct or msg_time
        if end is None:
            end = msg_time or self.prev or EPOCH
            self.rep.times = "partial" if self.prev else "order-only"
        start = msg_time if msg_time is not None and msg_time <= end else end
        status = c.get("status")
        text = _result_text(c)
        body = {k: c[k] for k in ("result", "resultDisplay", "error", "errorType") if k in c}
        if status == "success":
            self.call(c, start, end, where, _shell_outcome(c), body)
        elif status == "error" and (c.get("errorType") == "mcp_tool_error"
                                    or MCP_TOOL_ERROR.search(text)):
            # the MCP tool ran and said isError: its own words (which may say "timed out",
            # "denied by policy", "not found") are the tool's, not Gemini's
            self.call(c, start, end, where, ("failure", None,
                      "status error, an MCP tool error (mcp-tool.ts: the tool's result had "
                      "isError): the tool ran and reported failure"), body)
        elif isinstance(status, str) and status in STATUS_RULES:
            self.call(c, start, end, where, _by_rules(STATUS_RULES[status], text), body)
        else:
            self.call(c, start, end, where, ("open", None, None), body)
            if status is None:
                self.rep.warn("a tool call has no status (and so no outcome): the call is "
                              "left open")
            elif status not in ("executing", "scheduled", "validating"):
                self.rep.warn(f"tool call status {str(status)[:30]!r} is not one Gemini CLI "
                              "writes: the call is left open")

    # -- /chat save checkpoint ---------------------------------------------------------------
    def checkpoint(self, hist: list[Any], prefix: str) -> None:
        """The Content list Gemini resumes from: each ``functionCall`` part is a call, the
        ``functionResponse`` that answers it (by id, else by name in order) its end, read by
        the session's rules (a response ``{error: ...}`` is status error, one that starts
        "[Operation Cancelled]" cancelled, any other success). No times: order only."""
        self.rep.times = "order-only"
        tick = iter(EPOCH + timedelta(milliseconds=k) for k in range(1, 10**9))
        calls: list[dict[str, Any]] = []
        for i, content in enumerate(hist):
            where = f"{prefix}/{i}"
            if not (isinstance(content, dict) and content.get("role") in ("user", "model")
                    and isinstance(content.get("parts"), list)):
                self.rep.fail(where, "not a Content {role, parts}")
                continue
            when = next(tick)
            parts = content["parts"]
            used = False
            text = content_text([p for p in parts if isinstance(p, dict)
                                 and isinstance(p.get("text"), str) and not p.get("thought")])
            if text is not None:
                if content["role"] == "user":
                    used = self.dialogs.said(when, text, where) or used
                else:
                    used = self.dialogs.replied(when, text, where) or used
            for j, p in enumerate(parts):
                fc = p.get("functionCall") if isinstance(p, dict) else None
                fr = p.get("functionResponse") if isinstance(p, dict) else None
                if isinstance(fc, dict) and _str(fc.get("name")):
                    calls.append({"c": {"id": fc.get("id"), "name": fc["name"],
                                        "args": fc.get("args")},
                                  "start": when, "where": f"{where}/parts/{j}", "end": None})
                    used = True
                elif isinstance(fr, dict):
                    rid, name = _str(fr.get("id")), _str(fr.get("name"))
                    match = next((e for e in calls if e["end"] is None and (
                        e["c"]["id"] == rid if rid and _str(e["c"]["id"]) else
                        e["c"]["name"] == name)), None)
                    if match is None:
                        self.rep.fail(f"{where}/parts/{j}", "a functionResponse answering no "
                                                            "recorded functionCall")
                        continue
                    match["end"], match["c"]["result"] = when, [p]
                    used = True
            if used:
                self.rep.mapped += 1
            else:
                self.rep.ignore(f"{content['role']} content without text or tool parts")
        for e in calls:
            c = e["c"]
            if e["end"] is None:
                self.call(c, e["start"], e["start"], e["where"], ("open", None, None), {})
                self.rep.warn("a functionCall with no functionResponse in the checkpoint: "
                              "how it ended is not recorded, the call is left open")
                continue
            resp = _d(_d(c["result"][0].get("functionResponse")).get("response"))
            err = resp.get("error")
            c["status"] = "success" if err is None else "cancelled" if str(err).startswith(
                "[Operation Cancelled]") else "error"
            c["timestamp"] = rfc3339(e["end"])
            self.session_call(c, e["start"], e["where"])
        if calls:
            self.rep.warn("a /chat checkpoint records no times and no call status: times give "
                          "the order only, and each outcome is read from the call's response")

    # -- gemini -p --output-format stream-json -------------------------------------------
    def stream(self, recs: list[tuple[int, dict[str, Any]]]) -> None:
        """``tool_use`` (tool_id, tool_name, parameters) -> invocation; ``tool_result`` (same
        tool_id; status success | error, output, error {type, message}) -> its end, by the
        session's rules; ``message`` -> the conversation (assistant deltas joined)."""
        open_: dict[str, tuple[dict[str, Any], datetime, str]] = {}
        reply: list[Any] = []  # the assistant's deltas not yet written: [when, where, text]
        for n, r in recs:
            where = f"line {n}"
            if "_why" in r:
                self.rep.fail(where, str(r["_why"]))
                continue
            t = r.get("type")
            when = self.time(r.get("timestamp"))
            if when is None:
                when = EPOCH
                self.rep.times = "order-only"
            if reply and not (t == "message" and r.get("role") == "assistant"
                              and r.get("delta") is True):
                self.dialogs.replied(reply[0], reply[2], reply[1])
                reply = []
            if t == "tool_use":
                tid, name = _str(r.get("tool_id")), _str(r.get("tool_name"))
                if tid is None or name is None:
                    self.rep.fail(where, "a tool_use without tool_id and tool_name")
                    continue
                if tid in open_:
                    self.rep.warn("a tool_id was used again before its result: the earlier "
                                  "call is left open")
                    self._open_stream_call(*open_.pop(tid))
                open_[tid] = ({"id": tid, "name": name, "args": r.get("parameters")}, when,
                              where)
                self.rep.mapped += 1
            elif t == "tool_result":
                tid = _str(r.get("tool_id"))
                entry = open_.pop(tid, None) if tid else None
                if entry is None:
                    self.rep.fail(where, "a tool_result for no recorded tool_use")
                    continue
                c, start, at = entry
                body = {k: r[k] for k in ("status", "output", "error") if k in r}
                self.call(c, start, when, at, _stream_outcome(r, c["name"]), body,
                          end_where=where)
                self.rep.mapped += 1
            elif t == "message" and r.get("role") in ("user", "assistant"):
                text = r.get("content")
                if not isinstance(text, str) or not text:
                    self.rep.ignore("message without text")
                elif r["role"] == "user":
                    self.dialogs.said(when, text, where)
                    self.rep.mapped += 1
                elif r.get("delta") is True:
                    reply = [reply[0], reply[1], reply[2] + text] if reply else \
                        [when, where, text]
                    self.rep.mapped += 1
                else:
                    self.dialogs.replied(when, text, where)
                    self.rep.mapped += 1
            elif t in ("init", "result", "error", "message"):
                self.rep.ignore(str(t))
            else:
                self.rep.fail(where, "not a stream-json event")
        if reply:
            self.dialogs.replied(reply[0], reply[2], reply[1])
        for entry in open_.values():
            self._open_stream_call(*entry)

    def _open_stream_call(self, c: dict[str, Any], start: datetime, where: str) -> None:
        self.call(c, start, start, where, ("open", None, None), {})
        self.rep.warn("a tool_use with no tool_result: how it ended is not recorded, the call "
                      "is left open")

    # -- telemetry outfile ------------------------------------------------------------------
    def telemetry(self, recs: list[Any]) -> None:
        for i, r in enumerate(recs):
            where = f"record {i + 1}"
            if not isinstance(r, dict):
                self.rep.fail(where, "not a JSON object")
                continue
            try:
                self.tele_record(r, where)
            except (TypeError, ValueError, AttributeError, KeyError, RecursionError) as e:
                self.rep.fail(where, f"could not be read ({type(e).__name__})")

    def tele_record(self, r: dict[str, Any], where: str) -> None:
        attrs = _d(r.get("attributes"))
        name = attrs.get("event.name")
        stamp = next((v for v in (attrs.get("event.timestamp"), _hr(r.get("hrTime")),
                                  r.get("timestamp")) if parse_ts(v)[0] is not None), None)
        when = self.time(stamp)
        if when is None:
            when = EPOCH
            self.rep.times = "order-only"
        if name == "gemini_cli.tool_call":
            self.rep.mapped += 1
            self.tele_call(attrs, when, where)
        elif name == "gemini_cli.config" and isinstance(attrs.get("approval_mode"), str):
            if self.standing(attrs["approval_mode"], when, where, "gemini_cli.config"):
                self.rep.mapped += 1
            else:
                self.rep.ignore("gemini_cli.config")
        elif isinstance(name, str):
            self.rep.ignore(name[:60])
        elif "spanContext" in r or "_spanContext" in r or "name" in r:
            self.rep.ignore("span or metric")
        else:
            self.rep.fail(where, "not a Gemini CLI telemetry record")

    def tele_call(self, a: dict[str, Any], when: datetime, where: str) -> None:
        args: Any = a.get("function_args")
        if isinstance(args, str):
            with contextlib.suppress(ValueError, RecursionError):
                args = json.loads(args)
        call = {"name": a.get("function_name"), "args": args, "callId": a.get("call_id"),
                "mcp_server_name": a.get("mcp_server_name")}
        # newer records carry start_time / end_time; else the record's time for both
        start, _ = parse_ts(a.get("start_time"))
        end, _ = parse_ts(a.get("end_time"))
        end = end or when
        start = start if start is not None and start <= end else end
        body = {k: a[k] for k in ("success", "duration_ms", "error", "error_type", "decision",
                                  "content_length", "start_time", "end_time", "prompt_id")
                if k in a}
        decision = a.get("decision")
        err = f"{a.get('error') or ''} {a.get('error_type') or ''}"
        ok = a.get("success")
        if isinstance(ok, str) and ok.lower() in ("true", "false"):
            ok = ok.lower() == "true"  # some exporters write attribute values as text
        dec: tuple[str, str] | None = None
        if decision in ("accept", "modify"):
            dec = ("permission-required", f"decision {decision}: the user was asked and "
                   "approved" + (" a modified call" if decision == "modify" else ""))
        elif decision == "auto_accept":
            # Gemini logs auto_accept for a confirmation answered "always allow"
            # (ProceedAlways*): the user was asked
            dec = ("permission-required", "decision auto_accept: the user was asked and chose "
                   "'always allow'")
        if decision == "reject":
            self.call(call, start, end, where, ("refuse-declined", _first(err.strip()) or None,
                      "decision reject: the user declined the confirmation; it did not run"),
                      body)
        elif ok is not True and (a.get("error_type") == "mcp_tool_error"
                                 or MCP_TOOL_ERROR.search(err)):
            self.call(call, start, end, where, ("failure", None, "error_type mcp_tool_error: "
                      "the MCP tool ran and reported failure (its own words follow)"), body,
                      dec)
        elif DENIED_BY_POLICY.search(err):
            self.call(call, start, end, where, ("refuse-disallowed", _first(err.strip()),
                      "error 'denied by policy': Gemini's policy engine refused the call"), body)
        elif ok is not True and POLICY_NOT_RUN.search(err):
            self.call(call, start, end, where, ("refuse-disallowed", _first(err.strip()),
                      "error: " + INFER_POLICY_NOT_RUN), body)
        elif ok is True and (code := meta_exit_code(a.get("metadata"))) not in (None, 0):
            self.call(call, start, end, where, ("failure", None, f"success true, but the "
                      f"record's metadata says exitCode {code}: the tool ran and the command "
                      "failed"), {**body, "metadata": a.get("metadata")}, dec)
        elif ok is True:
            self.call(call, start, end, where, ("result", None, None), body, dec)
        elif ok is None and not err.strip():
            # neither success nor an error recorded: how it ended is unknown, not a failure
            self.call(call, start, end, where, ("open", None, None), body, dec)
            self.rep.warn("a gemini_cli.tool_call record has no success and no error: its "
                          "outcome is not recorded, the call is left open")
        elif CANNOT_RUN.search(err):
            self.call(call, start, end, where, ("error", None, "error_type: the call could "
                      "not run"), body, dec)
        elif TIMED_OUT.search(err):
            self.call(call, start, end, where, ("timeout", None, "the tool timed out"), body,
                      dec)
        else:
            self.call(call, start, end, where, ("failure", None, "success false"), body, dec)


def meta_exit_code(meta: Any) -> int | None:
    """The ``exitCode`` of a tool_call record's ``metadata`` (the call's response data, a JSON
    text, as a shell command's {exitCode, isError}); None: it records none."""
    if isinstance(meta, str) and len(meta) < 100_000:
        with contextlib.suppress(ValueError, RecursionError):
            meta = json.loads(meta)
    code = meta.get("exitCode") if isinstance(meta, dict) else None
    return code if type(code) is int else None


def _hr(v: Any) -> Any:
    if isinstance(v, list) and len(v) == 2 and all(type(x) is int for x in v):
        return v[0] + v[1] / 1e9
    return None


def _first(text: str) -> str:
    return text.strip().splitlines()[0][:400] if text.strip() else ""


def _by_rules(rules: tuple[_Rule, ...], text: str) -> tuple[str, str | None, str]:
    """(outcome, the words quoted, why) of the first of ``rules`` the result text matches."""
    for pattern, outcome, quote, why in rules:
        m = pattern.search(text) if pattern is not None else None
        if pattern is None or m is not None:
            said = (m.group(0)[:400] if quote == "match" and m is not None
                    else _first(text) if quote == "first" else None)
            return outcome, said, why
    raise AssertionError("every rule list ends with a rule for any text")


def _shell_outcome(c: dict[str, Any]) -> tuple[str, None, str | None]:
    """The outcome of a status-success call: a shell command's own answer can say it failed
    (``Exit Code: N``, ``Signal: S``), timed out or was cancelled; anything else is a result."""
    outs = [resp["output"] for item in (c.get("result") if isinstance(c.get("result"), list)
                                        else [c.get("result")])
            if isinstance((resp := _d(_d(_d(item).get("functionResponse")).get("response")))
                          .get("output"), str)]
    out = outs[-1] if outs else ""
    if "\n" not in out and "\\nExit Code: " in out:
        # a copy of the session that wrote the answer's line breaks as the two characters \n
        out = out.replace("\\n", "\n")
    if c.get("name") == "run_shell_command" and (inner := UNTRUSTED.match(out)) is not None:
        out = inner.group(1)
    shown = _d(c.get("resultDisplay"))
    # the sub-agent is the call's own tool, or the one an invoke_agent call names
    names = (c.get("name"), c.get("displayName"), _d(c.get("args")).get("agent_name"))
    sub = SUBAGENT_FAILED.match(out)
    if (sub is not None and sub.group(1) in names) or (
            shown.get("isSubagentProgress") is True and shown.get("state") == "error"):
        return "failure", None, ("status success, but the sub-agent failed (its answer says "
                                 "\"Subagent ... failed. Error:\", its display state error): "
                                 "the tool ran and failed")
    ended = SUBAGENT_ENDED.match(out)
    if ended is not None and ended.group(1) in names and ended.group(2) in SUBAGENT_SHORT:
        kind, what = SUBAGENT_SHORT[ended.group(2)]
        return kind, None, (f"status success, but the answer says Termination Reason "
                            f"{ended.group(2)}: {what}")
    if c.get("name") != "run_shell_command" and not out.startswith("Output: "):
        return "result", None, None
    if out.startswith(SHELL_TIMEOUT):
        return "timeout", None, "run_shell_command says the command exceeded its timeout"
    if out.startswith(SHELL_ABORTED):
        return "cancel", None, "run_shell_command says the user cancelled the command"
    m = SHELL_TAIL.search(out) if out.startswith("Output: ") else None
    code, sig = (m.group(1), m.group(2) or m.group(3)) if m is not None else (None, None)
    old = OLD_SHELL_TAIL.search(out) if out.startswith("Command: ") else None
    if old is not None:
        code = old.group(2) if old.group(2) != "(none)" else None
        # signal 0 is no signal (no process is killed by it)
        sig = old.group(3) if old.group(3).strip() not in ("(none)", "", "0") else None
        err = (old.group(1) or "").strip()
        if code is None and not sig and err not in ("", "(none)"):
            return "error", None, ("status success, but run_shell_command's Error line says the "
                                   "command could not run, with no exit code")
    if code not in (None, "0") or sig:
        how = f"exit code {code}" if code not in (None, "0") else f"signal {str(sig)[:20]}"
        return "failure", None, (f"status success, but the shell command ended with {how} "
                                 "(run_shell_command's Exit Code/Signal line): the tool ran "
                                 "and failed")
    return "result", None, None


#: run_shell_command's display when the command printed nothing (shell.ts): the only place
#: stream-json shows how a command ended (its output replaces it otherwise).
STREAM_SHELL: Final = re.compile(r"^(?:Command exited with code: (-?\d+)|Command terminated by "
                                 r"signal: (.+))\s*$")
#: Its display of a command the user cancelled or stopped at its timeout: the message alone,
#: or followed by "\n\nOutput before cancellation:\n..." when it printed something. Nothing
#: else may follow the message: a command's own output that starts with these words is output.
DISPLAY_CANCELLED: Final = "Command cancelled by user."
DISPLAY_STOPPED: Final = re.compile(
    rf"(?:({re.escape(DISPLAY_CANCELLED)})|{re.escape(SHELL_TIMEOUT)}[^\n]{{0,200}})"
    r"(?:\n\nOutput before cancellation:\n|\Z)")


def _stream_outcome(r: dict[str, Any], name: str) -> tuple[str, str | None, str | None]:
    """The end of a stream-json ``tool_result``: ``success`` is a result (a shell command's
    display can still say it exited non-zero); ``error`` by the session's rules, read from the
    error's ``type`` (Gemini's ToolErrorType) and ``message``."""
    if r.get("status") == "success":
        out = r.get("output")
        shell = name == "run_shell_command" and isinstance(out, str)
        stopped = DISPLAY_STOPPED.match(out) if shell else None
        if stopped is not None and not stopped.group(1):
            return "timeout", None, ("run_shell_command's display says the command exceeded its "
                                     "timeout")
        if stopped is not None:
            return "cancel", None, "run_shell_command says the user cancelled the command"
        m = STREAM_SHELL.match(out) if shell else None
        if m is not None and (m.group(2) or m.group(1) not in ("0", None)):
            return "failure", None, ("status success, but run_shell_command's display says the "
                                     "command " + ("exited with code " + m.group(1)
                                                   if m.group(1) else "was killed by a signal")
                                     + ": the tool ran and failed")
        return "result", None, None
    err = _d(r.get("error"))
    text = f"{err.get('message') or ''}\n{err.get('type') or ''}"
    if r.get("status") != "error" and not text.strip():
        return "open", None, None
    if err.get("type") == "mcp_tool_error" or MCP_TOOL_ERROR.search(text):
        return "failure", None, "error type mcp_tool_error: the MCP tool ran and reported failure"
    return _by_rules((*ERROR_RULES, (None, "failure", None,
                                     "status error: the tool ran and reported failure")), text)


def _result_text(c: dict[str, Any]) -> str:
    """The error/result text of a tool call, for the rules (first 4000 characters)."""
    parts: list[str] = []
    for k in ("error", "errorType", "resultDisplay"):
        if isinstance(c.get(k), str):
            parts.append(c[k])
    res = c.get("result")
    for item in res if isinstance(res, list) else [res]:
        fr = _d(_d(item).get("functionResponse"))
        resp = _d(fr.get("response"))
        for k in ("error", "output"):
            if isinstance(resp.get(k), str):
                parts.append(resp[k])
    return "\n".join(parts)[:4000]


# --- the vCon ---------------------------------------------------------------------------------


def convert(data: bytes, *, source_name: str = "-",
            created: str | None = None) -> tuple[dict[str, Any], Report]:
    report = Report()
    m = Mapper(report)
    text = data.decode("utf-8-sig", errors="replace")
    tele = None
    if text.lstrip()[:1] == "{":
        try:
            one = loads(data)
        except orjson.JSONDecodeError:
            tele, cut = _concatenated(text)
            if not any(_is_telemetry(r) for r in tele[:SCAN]):
                tele = None
            elif cut:
                report.fail(f"after record {len(tele)}", "not JSON (a record cut short?)")
        else:
            tele = [one] if _is_telemetry(one) else None
    ckpt, prefix = None, ""
    if tele is None and text.lstrip()[:1] in ("[", "{"):
        with contextlib.suppress(orjson.JSONDecodeError):
            doc = loads(data)
            ckpt = checkpoint_history(doc)
            prefix = "/history" if isinstance(doc, dict) else ""
    stream = None if tele is not None or ckpt is not None else stream_records(data)
    if stream is not None:
        m.stream(stream)
        meta = {"sessionId": next((r["session_id"] for _, r in stream if r.get("type") == "init"
                                   and _str(r.get("session_id"))), None)}
        form = "stream-json"
    elif ckpt is not None:
        m.checkpoint(ckpt, prefix)
        meta: dict[str, Any] = {}
        form = "checkpoint"
    elif tele is not None:
        if any(isinstance(r, dict) and ("resourceSpans" in r or "resourceLogs" in r)
               for r in tele):
            report.warn("OTLP/JSON records are left to the otlp importer")
        m.telemetry(tele)
        meta = {}
        form = "telemetry-outfile"
    else:
        meta, msgs, form = read_session(data, report)
        try:
            m.session(meta, msgs)
        except (TypeError, ValueError, AttributeError, KeyError, RecursionError) as e:
            report.fail("session", f"could not be read ({type(e).__name__})")
    events = m.ev
    if events.operations == 0:
        report.warn("the recording has no tool call: the vCon has no operations")
    start, _ = parse_ts(meta.get("startTime"))
    if start is None and events.events:
        start, _ = parse_ts(events.events[0]["time"])
    sid = _str(meta.get("sessionId"))
    parties = m.parties
    if sid:
        parties[0]["meta"] = {"gemini_session_id": sid}
    provenance = {
        "tool": "vcon-view import gemini",
        "source": {"file": source_name, "sha256": hashlib.sha256(data).hexdigest(),
                   "format": f"gemini {form}"},
        "mapping": "one tool call = one operation; built-in tools on server !host, MCP tools "
                   "on their server; denied by policy -> disallowed, declined confirmation -> "
                   "permission-required, each without a tool-invocation (rules in 'inferred')",
        **report.as_dict(),
    }
    vcon = assemble(uid=vcon_uuid(data), subject=f"Gemini CLI session imported from "
                    f"{source_name}", parties=parties, events=events, start=start,
                    provenance=provenance, created=created, dialogs=m.dialogs)
    return vcon, report


def sniff(smp: Sample) -> bool:
    doc = smp.doc
    if smp.is_doc:
        if checkpoint_history(doc) is not None:
            return True  # a /chat save checkpoint: the model's Content list
        if isinstance(doc, dict):
            if "resourceSpans" in doc or "resourceLogs" in doc:
                return False
            if _is_telemetry(doc):
                return True
            msgs = doc.get("messages")
            if not (isinstance(msgs, list) and isinstance(doc.get("sessionId"), str)):
                return False
            if isinstance(doc.get("projectHash"), str) and isinstance(
                    doc.get("startTime"), str):
                return True  # ChatRecordingService's ConversationRecord, whatever its types
            return all(  # message types across versions (the first had user/system/error)
                isinstance(x, dict) and x.get("type") in ("user", "gemini", "info", "error",
                                                          "warning", "system")
                for x in msgs[:20])
        return False
    head = smp.head.lstrip()
    if head[:1] == b"{" and (b'"event.name": "gemini_cli.' in head
                             or b'"event.name":"gemini_cli.' in head) \
            and b'"resourceSpans"' not in head and b'"resourceLogs"' not in head:
        return True  # the telemetry outfile: pretty-printed records one after another
    recs = smp.records()
    if not recs:
        return False
    if any(is_stream_record(r) for r in recs) and all(
            r.get("type") in STREAM_TYPES for r in recs):
        return True  # gemini -p --output-format stream-json
    first = recs[0]
    if isinstance(first.get("sessionId"), str) and isinstance(first.get("projectHash"), str) \
            and "resourceSpans" not in first and "resourceLogs" not in first:
        return True
    hits = sum(1 for r in recs if isinstance(r.get("id"), str)
               and r.get("type") in ("user", "gemini") and "timestamp" in r)
    return hits * 2 > len(recs) and any(r.get("type") == "gemini" for r in recs)


FORMAT = Format(name="gemini", title="Gemini CLI session", unit="records",
                sniff=sniff, convert=convert,
                help="a Gemini CLI session (~/.gemini/tmp/<hash>/chats/session-*.json or "
                     ".jsonl), its stream-json output, a /chat save checkpoint, or its "
                     "--telemetry-outfile")
