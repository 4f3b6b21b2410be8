"""Claude Code transcripts -> tool-invocation events.

Accepted (recognised by content): a session file (``~/.claude/projects/<dir>/<session>.jsonl``),
its sub-agent files (``<session>/subagents/agent-*.jsonl``: ``isSidechain``, ``agentId``), the
JSON-array copy of a session (``logs/chat.json`` of the claude-code-hooks-mastery stop hook),
``claude -p --output-format stream-json`` output (system/assistant/user/result records) and hook
payload logs (JSON arrays of PreToolUse/PostToolUse/... payloads). A project directory is read by
``convert_path`` (every session file, then its sub-agent files).

Mapping: one ``tool_use`` block = one operation (``op-NNNN``, attempt 1, ``tool-invocation``
with server/tool, the host id ``toolu_…`` kept in the content); the ``tool_result`` naming it
ends it. A call the host refused has a once ``policy-decision`` and no invocation. Permission
modes are standing decisions. Where the transcript is ambiguous (the same text for a declined
prompt and for Esc pressed while calls run) a fixed order of rules decides and the event says
which rule (``inferred``); every rule that fired is counted in the report.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

import msgspec
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
    writable,
)
from viewer.importers.common import nonempty_str as _s
from viewer.importers.cursor import is_stream_record as is_cursor_stream
from viewer.importers.formats import Format, ImportInputError, Sample, split_lines
from viewer.jsonenc import loads

#: The host's words when the user declined a prompt OR pressed Esc while calls ran (the trap).
USER_DECLINE: Final = ("doesn't want to proceed with this tool use",
                       "doesn't want to take this action right now")
USER_DECLINE_RESULT: Final = "User rejected tool use"
#: toolDenialKind (Claude Code 2.1.x) of the same trap: written with the decline text both for a
#: declined prompt and for Esc while the call ran (a real 2.1.270 capture), so the
#: decline-or-cancel rules decide it, not the kind.
DENIAL_TRAP: Final = "user-rejected"
#: toolDenialKind values that are a cancel of the open call (interrupted by the user or by a
#: shutdown; the call's abort signal), not a refusal.
DENIAL_CANCELS: Final = frozenset({"interrupted", "cancelled", "canceled"})
INTERRUPT_FOR_TOOL: Final = "[Request interrupted by user for tool use]"
INTERRUPT: Final = "[Request interrupted by user"  # also "...]" while the model was answering
#: 2.1.328's words for a Read or Edit deny rule ("Permission to read <path> has been denied.",
#: "Permission to edit <path> has been denied."): written for its own file tools only, so an
#: MCP server's error answer in like words stays the server's (``_refusal``).
_FILE_DENY: Final = re.compile(r"Permission to (?:read|edit) .{0,400}? has been denied",
                               re.I | re.S)
#: The decline-vs-cancel rules, in the order they are tried (the first that holds decides).
DECLINE_RULES: Final = (
    ("otel", "otel tool_decision source={source}"),
    ("bypass", "decline-or-cancel rule 1: permissionMode bypassPermissions shows no prompt, "
               "so the call was cancelled (Esc), not declined"),
    ("progress", "decline-or-cancel rule 2: the call had reported progress, so it was running "
                 "and was cancelled"),
    ("hook", "decline-or-cancel rule 3: a hook had run for the call, so it was under way and "
             "was cancelled"),
    ("declined", "decline-or-cancel rule 4: no sign the call started: a permission prompt the "
                 "user declined"),
)
_RULE_TEXT: Final = dict(DECLINE_RULES)
#: One of several parallel calls failed, so Claude Code ran none of the others and answered each
#: with these words: they never ran (not an error of theirs). Matched at the start of the result.
SIBLING: Final = re.compile(r"(?:<tool_use_error>)?\s*Sibling tool call errored\b")
SIBLING_RULE: Final = ("Sibling tool call errored: a call made in parallel with this one failed, "
                       "so Claude Code cancelled this one before it ran (no prompt was shown; "
                       "the draft has no event for a call cancelled before it starts, so it is "
                       "a once permission-required decision never granted: not performed)")
SIBLING_RUNNING: Final = ("Sibling tool call errored after this call had started (it had "
                          "reported progress or a hook had run for it): Claude Code cancelled "
                          "it while it ran")
#: Refusals written by the host itself (no user in the loop): (pattern, decision, who decided).
#: Each is matched at the start of the result text (after an optional "Error: "), never inside
#: tool output: a git hook's "pre-commit hook error" in a Bash result is a failure, not a refusal.
_REFUSALS: Final = (
    (re.compile(r"PreToolUse:\S* hook (?:error|stopped continuation)|\S+ operation blocked by "
                r"hook|Hook PreToolUse:\S* (?:denied|blocked)", re.I),
     "disallowed", "a PreToolUse hook blocked the call"),
    # Claude Code's DONT_ASK_REJECT_MESSAGE and AUTO_REJECT_MESSAGE append "IMPORTANT: You
    # *may* attempt ..." to "Permission to use <tool> has been denied"; a deny rule's message
    # stops at "denied." (README "Claude Code")
    (re.compile(r"Permission to use .{0,400}? has been denied because Claude Code is running "
                r"in don't ask mode", re.I | re.S),
     "disallowed", "permission mode dontAsk (a call that would ask is denied)"),
    (re.compile(r"Permission to use .{0,400}? has been denied\.\s+IMPORTANT: You \*may\* "
                r"attempt", re.I | re.S),
     "permission-required", "no prompt could be shown (an agent that cannot ask, such as a "
     "background sub-agent, and no PermissionRequest hook decided)"),
    # Claude Code 2.1.224+ (2.1.328's UQe, e3o, Jdr): a call that would ask, in a session where
    # nobody can answer (claude -p --permission-prompts none, a headless host, a turn no user
    # opened); 2.1.328 also counts e3o and UQe as one kind (its VYs)
    (re.compile(r"Permission for this tool use was denied(?:\. It requires approval, and this "
                r"session has no approval surface|: it requires interactive approval)|This call "
                r"was denied and did not run\. It needs the user's answer", re.I),
     "permission-required", "no prompt could be shown (a session where nobody can answer a "
     "permission prompt, such as claude -p --permission-prompts none, and no PermissionRequest "
     "hook decided)"),
    # a plugin's tool.judge / tool.check hook (2.1.328: "Permission to use <tool> denied by
    # plugin <name>[: reason]", "... by plugins <a>, <b>"); before the deny rule's, whose lazy
    # span could reach a "has been denied" in the plugin's reason
    (re.compile(r"Permission to use \S{1,300} denied by plugins? ", re.I),
     "disallowed", "a plugin's hook (tool.judge / tool.check) denied the call"),
    (re.compile(r"Permission to use .{0,400}? has been denied|[^\n]{0,200}?denied by your "
                r"permission settings|[^\n]{0,200}?denied by (?:a |your )?(?:permission|deny) "
                r"rule", re.I | re.S),
     "disallowed", "a permission deny rule"),
    (_FILE_DENY, "disallowed", "a permission deny rule"),
    (re.compile(r"cd to .{0,300}? was blocked\. For security|[^\n]{0,200}?only (?:access|list|"
                r"read|change to) .{0,80}?allowed working director", re.I | re.S),
     "disallowed", "the working-directory guard"),
    (re.compile(r"Permission denied by (?:\S+ )?hook\b", re.I),
     "disallowed", "a hook answered the permission request: deny"),
    # 2.1.328 reads "Permission for this action has been denied. Reason: " as the classifier's
    # too (its hCa), the words it writes when the classifier's outcome is not shown
    (re.compile(r"Permission for this (?:\w+ was denied by the Claude Code auto mode classifier|"
                r"action has been denied\. Reason: )", re.I), "disallowed",
     "the auto-mode classifier"),
    (re.compile(r"Permission for this \w+ was denied by a built-in Claude Code safety check",
                re.I), "disallowed", "a built-in safety check"),
    (re.compile(r"Denied by (?:an? )?(?:Enterprise|managed|organi[sz]ation) polic", re.I),
     "disallowed", "a managed (enterprise) policy"),
    (re.compile(r"Claude requested permissions? to (?:use|write|read|run|edit)[^\n]{0,200}?"
                r"haven't granted", re.I),
     "permission-required", "a permission prompt that could not be shown (non-interactive)"),
)
#: Claude Code's own record of the calls it refused (stream-json's ``result``
#: ``permission_denials``, the Agent SDK's authoritative list, and ``system``/
#: ``permission_denied`` records): such a call did not run, whatever its error answer says.
LISTED_RULE: Final = ("listed in Claude Code's permission denials (the result's "
                      "permission_denials or a system permission_denied record): refused, "
                      "not run")
#: Claude Code's words for a Bash command it killed at its timeout (SIGTERM): first, or after
#: "Exit code 143" (2.1.328 writes them only for exit code 143). One rule for a transcript's
#: answer and a PostToolUseFailure hook's error, on the host's own tools only (an MCP server
#: that runs commands may answer in the same words: its failure).
_TIMEOUT: Final = re.compile(r"(?:Exit code 143[ \t]*\r?\n)?Command timed out after", re.I)
TIMEOUT_RULE: Final = "host timeout text -> tool-timeout"
_BG_TEXT: Final = re.compile(
    r"running in background with ID:\s*([A-Za-z0-9_.-]+)|shell ID:\s*([A-Za-z0-9_.-]+)|"
    r"agentId:\s*([A-Za-z0-9_.-]+)", re.I)
_STATUS_TEXT: Final = re.compile(r"<status>\s*([a-z_]+)\s*</status>", re.I)
_NOTE_TASK: Final = re.compile(r"<task-id>\s*([^<\s]+)\s*</task-id>")
_NOTE_TOOL: Final = re.compile(r"<tool-use-id>\s*([^<\s]+)\s*</tool-use-id>")
_NOTE_SUMMARY: Final = re.compile(r"<summary>(.*?)</summary>", re.S)
NOTIFICATION: Final = "<task-notification>"
_POLL_TOOLS: Final = frozenset({"BashOutput", "TaskOutput", "AgentOutputTool"})
_KILL_TOOLS: Final = frozenset({"KillBash", "KillShell", "TaskStop"})
_BG_KEYS: Final = ("bash_id", "shell_id", "task_id", "agentId", "agent_id", "id")
#: Claude Code's own background threads, written beside the sub-agents
#: (``subagents/agent-acompact-<hex>.jsonl``: the conversation compaction;
#: ``agent-aprompt_suggestion-<hex>``: the next-prompt suggestion; ``agent-aside_question-<hex>``:
#: a /btw side question): agentId ``a<kind>-<hex>``. No Task launched them: not sub-agents
#: (README "Claude Code"), nor are 2.0.x's warmups. A tool call in one is the main agent's,
#: replayed (these threads fork the conversation).
_OWN_THREAD: Final = re.compile(r"a(compact|prompt_suggestion|side_question)-[0-9a-f]+")
_OWN_IGNORED: Final = ("Claude Code's own thread (compaction, prompt suggestion, side question, "
                       "warmup)")
#: The prompt of Claude Code 2.0.x's start-up warmup threads (``agent-<id>.jsonl`` beside the
#: sessions): not a Task's sub-agent.
WARMUP: Final = "Warmup"
#: permissionMode -> standing decision for every MCP server of the session, and for each
#: built-in tool the session calls that Claude Code asks about in that mode. Only
#: bypassPermissions lets every call run unasked; under the others the transcript does not say
#: which calls were approved by a prompt or an allow rule, so they are read as asking
#: (permission-required: the model then notes the grant is not recorded).
MODES: Final = {
    "bypassPermissions": "allowed",
    "default": "permission-required",
    "acceptEdits": "permission-required",
    "plan": "permission-required",
    "dontAsk": "permission-required",
    "auto": "permission-required",  # a classifier approves: the grant is not in the record
}
#: Built-in tools Claude Code runs without asking in every mode (its documented read-only
#: tier: reading and searching files, the to-do list, sub-agents, background-task output;
#: AskUserQuestion is itself a question to the user; ToolSearch loads deferred tools' schemas,
#: Claude Code 2.1.69 on, and ListMcpResourcesTool lists MCP resources: no permission in Claude
#: Code's tools reference; TaskCreate/TaskGet/TaskList/TaskUpdate are TodoWrite's replacement,
#: the same to-do list). Not the plan-mode tools: see PLAN_TOOLS.
NEVER_ASKS: Final = frozenset({
    "Read", "Glob", "Grep", "LS", "NotebookRead", "TodoWrite", "TodoRead", "Task", "Agent",
    "BashOutput", "TaskOutput", "AgentOutputTool",
    "KillBash", "KillShell", "TaskStop", "AskUserQuestion",
    "ToolSearch", "ListMcpResourcesTool", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate",
})
#: The plan-mode tools ask the user: EnterPlanMode "REQUIRES user approval - they must consent
#: to entering plan mode" (its description, Claude Code 2.0.51 on); ExitPlanMode asks the user
#: to approve the plan (a PermissionRequest hook fires for it; see PLAN_APPROVED).
PLAN_TOOLS: Final = {
    "EnterPlanMode": "EnterPlanMode asks the user to consent to plan mode",
    "ExitPlanMode": "ExitPlanMode asks the user to approve the plan",
}
#: ExitPlanMode's answer when the user approved the plan (Claude Code's ExitPlanMode and
#: ExitPlanModeV2 tools): the user's once grant, given when the answer was written.
PLAN_APPROVED: Final = re.compile(r"User has approved (?:your plan|exiting plan mode)\b")
PLAN_RULE: Final = "the user approved the plan (ExitPlanMode's answer)"
#: Tools that put a choice to the user (a directive request: the draft keeps these apart from
#: permission, and its result is the answer): run unasked, open while the question is.
QUESTIONS: Final = frozenset({"AskUserQuestion"})
#: Built-in tools that also run unasked in acceptEdits mode (file edits).
EDIT_TOOLS: Final = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})


def mode_decision(mode: str, tool: str) -> tuple[str, str]:
    """(decision, why) of a permissionMode for one built-in tool."""
    decision = MODES.get(mode, "permission-required")
    if decision == "allowed":
        return decision, f"permissionMode {mode}"
    if tool in QUESTIONS:  # a directive request, not a permission (the draft's PD-6)
        return "allowed", f"permissionMode {mode}: {tool} is itself a question to the user"
    if tool in NEVER_ASKS:
        return "allowed", f"permissionMode {mode}: {tool} is read-only, never asked about"
    if mode == "acceptEdits" and tool in EDIT_TOOLS:
        return "allowed", f"permissionMode {mode}: file edits are accepted unasked"
    if tool in PLAN_TOOLS:
        return decision, f"permissionMode {mode}: {PLAN_TOOLS[tool]}"
    if mode == "auto" and tool in EDIT_TOOLS:  # acceptEdits' baseline, then the classifier
        return decision, ("permissionMode auto: file edits inside the working directory run "
                          "unasked, others the auto-mode classifier decides (its approvals are "
                          "not recorded)")
    if mode == "auto":  # no prompt: the classifier approves or refuses, and only refusals show
        return decision, (f"permissionMode auto: the auto-mode classifier decides {tool} calls "
                          "unless an allow rule covers them (its approvals are not recorded)")
    return decision, f"permissionMode {mode}: {tool} asks unless an allow rule covers it"


_HOOK_TOOL_EVENTS: Final = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure",
                                      "PermissionRequest", "PermissionDenied", "PostToolBatch"})
#: Tool hooks of other agents that write Claude Code's payload shape (hook_event_name,
#: session_id, transcript_path): Gemini CLI's and Cursor's. Their tool calls are not read here.
OTHER_AGENT_HOOKS: Final = {
    "BeforeTool": "Gemini CLI", "AfterTool": "Gemini CLI",
    "beforeShellExecution": "Cursor", "afterShellExecution": "Cursor",
    "beforeMCPExecution": "Cursor", "afterMCPExecution": "Cursor", "afterFileEdit": "Cursor",
    "beforeReadFile": "Cursor",
}
#: The Notification hook's message when Claude Code shows a permission prompt.
_PROMPT_NOTICE: Final = re.compile(r"Claude needs your permission to use (.{1,200})$", re.S)
#: Claude Code 2.1.x's wording of it, naming no tool (notification_type "permission_prompt").
_PROMPT_NOTICE_BARE: Final = "Claude needs your permission"
_TRANSCRIPT_TYPES: Final = frozenset({"user", "assistant", "system", "result", "progress"})
_MAX_DEPTH: Final = 3  # agent_progress nesting followed


#: The server of the Messages API's server tools (``server_tool_use``: web_search, web_fetch,
#: code execution, tool search): Anthropic's API runs them, not Claude Code's host.
API_SERVER: Final = "anthropic"


def _server_failure(content: Any) -> str | None:
    """Why a server tool's result content says it failed (an ``*_error`` content, or a
    non-zero ``return_code`` of code execution), else None."""
    if not isinstance(content, dict):
        return None
    t = content.get("type")
    if isinstance(t, str) and t.endswith("_error"):
        code = content.get("error_code")
        return f"{t[:60]}" + (f" {str(code)[:60]}" if code is not None else "")
    rc = content.get("return_code")
    if type(rc) is int and rc != 0:
        return f"return_code {rc}"
    return None


def _own_thread(agent_id: str | None) -> str | None:
    """The kind of Claude Code's own thread an agentId names (``acompact-e1f845`` ->
    ``compact``), else None (a Task's sub-agent: ``a2898e3``)."""
    m = _OWN_THREAD.fullmatch(agent_id) if agent_id else None
    return m.group(1) if m else None


def _has_tool_blocks(r: dict[str, Any]) -> bool:
    msg = r.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return isinstance(content, list) and any(
        isinstance(b, dict) and isinstance(b.get("type"), str)
        and (b["type"] in ("tool_use", "tool_result", "server_tool_use", "mcp_tool_use")
             or b["type"].endswith("_tool_result")) for b in content)


def split_tool(name: str) -> tuple[str, str]:
    """``mcp__<server>__<tool>`` -> (server, tool); a built-in -> ("!host", name)."""
    if name.startswith("mcp__"):
        rest = name[5:]
        server, sep, tool = rest.partition("__")
        if sep and server and tool:
            return server, tool
    return HOST, name


def _text(content: Any) -> str:
    """The text of a tool_result's content (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content
                         if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def _host_head(text: str) -> str:
    """Where Claude Code's own words stand in an answer or a hook's error: first (after an
    optional "Error: "), tool output after them; the rules match here, never inside output."""
    head = text.lstrip()[:1000]
    return head[7:] if head.startswith("Error: ") else head


def _refusal(head: str, own_tool: bool = True) -> tuple[str, str] | None:
    """The decision and who made it, when the host's words (``_host_head``) are a refusal of
    ``_REFUSALS`` (the first that matches); ``_FILE_DENY`` only for a call on the host's own
    tools (``own_tool``)."""
    for pat, decision, who in _REFUSALS:
        if (own_tool or pat is not _FILE_DENY) and pat.match(head):
            return decision, who
    return None


def _denial_kind(r: dict[str, Any], tid: str | None) -> tuple[str | None, str]:
    """The call's denial kind and the field it was read from: a transcript's
    ``toolDenialKind``, or stream-json's ``tool_result_meta`` entry for the call, whose
    ``non_execution_kind`` is that same field (the Agent SDK 0.3.337 converter copies one
    into the other), so one set of rules reads both."""
    kind = _s(r.get("toolDenialKind"))
    if kind is not None:
        return kind, "toolDenialKind"
    meta = r.get("tool_result_meta")
    for m in meta if isinstance(meta, list) else ():
        if isinstance(m, dict) and m.get("id") == tid and _s(m.get("non_execution_kind")):
            return _s(m.get("non_execution_kind")), "non_execution_kind"
    return None, "toolDenialKind"


def _prompt_text(r: dict[str, Any]) -> str | None:
    """The text of a user record (a sub-agent thread's first record is the Task's prompt)."""
    if r.get("type") != "user":
        return None
    msg = r.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, list):
        texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
                 and isinstance(b.get("text"), str)]
        return "\n".join(texts) if texts else None
    return content if isinstance(content, str) else None


_COMMAND_RE: Final = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS_RE: Final = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_BASH_INPUT_RE: Final = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
_REMINDER_RE: Final = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
#: User text Claude Code writes itself, not something the user typed (no dialog).
_NOT_TYPED: Final = ("<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
                     "<bash-stdout>", "<bash-stderr>", "Caveat: The messages below were "
                     "generated by the user", INTERRUPT, "<task-notification>")


def typed_text(text: str) -> str | None:
    """What the user typed in a user record's text, or None for the host's own lines: a slash
    command reads '/name args', a ! shell line '! command'; system reminders are dropped."""
    cmd = _COMMAND_RE.search(text)
    if cmd is not None:
        args = _COMMAND_ARGS_RE.search(text)
        line = cmd.group(1).strip()
        if args is not None and args.group(1).strip():
            line += " " + args.group(1).strip()
        return line or None
    bash = _BASH_INPUT_RE.search(text)
    if bash is not None:
        return "! " + bash.group(1).strip()
    stripped = text.lstrip()
    if stripped.startswith(_NOT_TYPED):
        return None
    text = _REMINDER_RE.sub("", text)
    return text if text.strip() else None


# --- input -----------------------------------------------------------------------------------


@dataclass
class Rec:
    obj: Any
    where: str


def read_records(data: bytes, label: str = "") -> tuple[list[Rec], str]:
    """Records of one file: a JSON array/object, or JSONL. (records, form)."""
    pre = f"{label}:" if label else ""
    text = data[3:] if data[:3] == b"\xef\xbb\xbf" else data
    try:
        doc = loads(text)
    except orjson.JSONDecodeError:
        doc = None
    else:
        if isinstance(doc, list):
            return [Rec(o, f"{pre}/{i}") for i, o in enumerate(doc)], "json-array"
        if isinstance(doc, dict):
            return [Rec(doc, f"{pre}line 1")], "jsonl"
    out: list[Rec] = []
    for n, ln in enumerate(split_lines(text), 1):
        if not ln.strip():
            continue
        try:
            out.append(Rec(loads(ln), f"{pre}line {n}"))
        except orjson.JSONDecodeError:
            out.append(Rec(None, f"{pre}line {n}"))
    return out, "jsonl"


def _digest(v: Any) -> bytes:
    """A digest of a JSON value (sorted keys); a value too deep to write gets a unique one."""
    try:
        return hashlib.sha1(orjson.dumps(v, option=orjson.OPT_SORT_KEYS)).digest()
    except TypeError:
        pass
    try:  # an integer past 64 bits, which orjson does not write
        return hashlib.sha1(msgspec.json.encode(v, order="sorted")).digest()
    except (TypeError, ValueError, RecursionError):
        return os.urandom(20)


def _is_transcript(r: Any) -> bool:
    if not isinstance(r, dict):
        return False
    t = r.get("type")
    msg = r.get("message")
    if t in ("user", "assistant") and isinstance(msg, dict) and msg.get("role") in (
            "user", "assistant") and "content" in msg and (
            "sessionId" in r or "session_id" in r or "uuid" in r or "parentUuid" in r
            or "parent_tool_use_id" in r):
        return True
    if t == "file-history-snapshot" and "snapshot" in r:
        return True
    if t == "system" and r.get("subtype") == "init" and "session_id" in r and (
            "tools" in r or "permissionMode" in r):
        return True
    if t == "result" and "session_id" in r and isinstance(r.get("permission_denials"), list):
        return True  # claude -p's result (stream-json's last record, or --output-format json)
    return t == "progress" and isinstance(r.get("data"), dict) and (
        "toolUseID" in r or "parentToolUseID" in r)


def _is_hook(r: Any) -> bool:
    return isinstance(r, dict) and isinstance(r.get("hook_event_name"), str) and (
        "session_id" in r or "transcript_path" in r)


def sniff(smp: Sample) -> bool:
    recs = smp.records()
    if not recs or any("vcon" in r and "parties" in r for r in recs[:2]):
        return False
    if any(is_cursor_stream(r) for r in recs):
        return False  # cursor-agent's stream-json looks like Claude Code's: the cursor importer's
    if any(_is_transcript(r) for r in recs):
        return True
    hooks = [r for r in recs if _is_hook(r)]
    return bool(hooks) and len(hooks) * 2 > len(recs)


# --- the mapper ------------------------------------------------------------------------------


@dataclass
class _Op:
    id: str
    name: str
    server: str
    tool: str
    tool_use_id: str | None
    party: int
    when: datetime
    where: str
    body: Any
    invoked: bool = False
    ended: bool = False
    progress: int = 0
    hook: bool = False
    bg: str | None = None  # background task / shell id once pending
    session: str | None = None  # the sessionId of the record that made the call
    is_task: bool = False
    description: str | None = None
    api_call: bool = False  # a server_tool_use / mcp_tool_use block: the API ran it
    hook_deny: tuple[datetime, str, str] | None = None  # a hook refused it: (when, where, why)
    asked: bool = False  # a PermissionRequest hook payload names it
    #: made from a PermissionRequest payload: no PreToolUse in the log says it was to start
    asked_only: bool = False
    rewritten: str | None = None  # a PreToolUse hook replaced its input: the note
    #: (when, where) of a ``permission_denied`` record naming it: refused there if no answer
    #: or result follows (a stream cut off)
    listed_at: tuple[datetime, str] | None = None


@dataclass
class _Agent:
    party: int
    task: _Op | None


@dataclass
class Mapper:
    events: Events
    report: Report
    parties: list[dict[str, Any]]
    mcp_servers: set[str]
    host_tools: set[str]
    dialogs: Dialogs
    otel: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: tool_use_id -> the refusal's words (or None) of the calls Claude Code lists as denied
    denied: dict[str, str | None] = field(default_factory=dict)
    mode: str | None = None
    ops: dict[str, _Op] = field(default_factory=dict)
    aliases: dict[str, tuple[str, _Op]] = field(default_factory=dict)  # poll/kill ids
    bg: dict[str, _Op] = field(default_factory=dict)
    agents: dict[str, _Agent] = field(default_factory=dict)  # agentId/parent id -> party
    agent_of_task: dict[str, str] = field(default_factory=dict)  # agentId -> Task tool_use_id
    uuids: dict[str, bytes] = field(default_factory=dict)
    rules: dict[str, int] = field(default_factory=dict)
    repeats: dict[str, int] = field(default_factory=dict)
    last: datetime | None = None
    times_missing: bool = False
    #: the first recorded time of the input: a record before it (Claude Code 2.1.x opens a file
    #: with untimed permission-mode / last-prompt lines) takes it, not 1970-01-01
    first: datetime | None = None
    before_first: bool = False
    otel_used: set[str] = field(default_factory=set)
    sessions: set[str] = field(default_factory=set)
    unpaired: bool = False
    said: set[str] = field(default_factory=set)  # uuid#block of the turns written
    session: str | None = None  # the sessionId of the record being read
    warmups: set[str] = field(default_factory=set)  # agentIds/thread roots of warmups
    side_root: dict[str, str] = field(default_factory=dict)  # sidechain uuid -> thread's first

    # -- helpers ----------------------------------------------------------------------------
    def fired(self, rule: str) -> None:
        self.rules[rule] = self.rules.get(rule, 0) + 1

    def repeat(self, why: str) -> None:
        self.repeats[why] = self.repeats.get(why, 0) + 1

    def time_of(self, r: dict[str, Any], fallback: datetime | None = None) -> datetime:
        t, naive = parse_ts(r.get("timestamp"))
        if naive:
            self.report.warn("timestamps without a zone offset were read as UTC")
        if t is None:
            self.times_missing = True
            t = fallback or self.last
            if t is None:
                self.before_first = self.first is not None
                t = self.first or EPOCH
        self.last = t
        return t

    def emit(self, etype: str, when: datetime, op: _Op, where: str, **kw: Any) -> None:
        if kw.get("body") is not None and not writable(kw["body"]):
            kw["body"] = {"omitted": "content nested too deep to write (JSON writers stop "
                                     "at 255 levels)"}
            self.report.warn("some content was nested too deep to write: replaced by a note")
        self.events.add(etype, when, op.id, 1, where, party=op.party, **kw)

    def invoke(self, op: _Op, before: datetime | None = None) -> None:
        if not op.invoked:
            op.invoked = True
            when = op.when if before is None or before >= op.when else before
            kw = {"inferred": op.rewritten} if op.rewritten else {}
            self.emit("tool-invocation", when, op, op.where, body=op.body, server=op.server,
                      tool=op.tool, **kw)

    def end(self, op: _Op, etype: str, when: datetime, where: str, body: Any = None,
            **kw: Any) -> None:
        self.invoke(op, when)
        self.emit(etype, when, op, where, body=body, **kw)
        op.ended = True

    def decide(self, op: _Op, when: datetime, where: str, decision: str, reason: str | None,
               inferred: str) -> None:
        kw: dict[str, Any] = {"decision": decision, "policy_life": "once",
                              "operation": "tool-invocation", "server": op.server,
                              "tool": op.tool, "inferred": inferred}
        if reason:
            kw["reason"] = reason[:2000]
        self.events.add("policy-decision", when, op.id, 1, where, party=op.party, **kw)
        # what was asked, for the decision should the call never run (common.Events.asked)
        if isinstance(op.body, dict) and op.body.get("input") is not None:
            self.events.asked(op.id, 1, op.body)

    def standing(self, when: datetime, where: str, decision: str, server: str,
                 tool: str | None, inferred: str, reason: str | None = None) -> None:
        kw: dict[str, Any] = {"decision": decision, "policy_life": "standing",
                              "operation": "tool-invocation", "server": server,
                              "inferred": inferred}
        if tool is not None:
            kw["tool"] = tool
        if reason:
            kw["reason"] = reason
        ev = self.events.add("policy-decision", when, "", 1, where, attempt_field=False, **kw)
        del ev["operation_id"]

    def set_mode(self, mode: Any, when: datetime, where: str) -> bool:
        """A permissionMode change: standing decisions from then on. Built-in tools get one
        each (the modes treat them differently, and a decision for all of ``!host`` beside
        one for a tool would disagree); MCP servers one for all their tools."""
        if not isinstance(mode, str) or mode == self.mode:
            return False
        self.mode = mode
        decision = MODES.get(mode)
        why = f"permissionMode {mode[:60]}"
        if decision is None:
            why = f"unknown permissionMode {mode[:60]!r}, read as asking"
            self.report.warn(f"permissionMode {mode[:40]!r} is not a mode vcon-view knows: "
                             "read as asking (permission-required)")
            mode = "(unknown)"
        for tool in sorted(self.host_tools):
            d, w = mode_decision(mode, tool)
            self.standing(when, where, d, HOST, tool, w if decision else why,
                          reason=w if decision else why)
        if not self.host_tools:
            self.standing(when, where, decision or "permission-required", HOST, None, why,
                          reason=why)
        for server in sorted(self.mcp_servers):
            d = decision or "permission-required"
            self.standing(when, where, d, server, None, why, reason=why)
        self.fired(f"permissionMode {mode} -> standing decisions")
        return True

    def party_for(self, key: str, task: _Op | None, agent_id: str | None) -> int:
        a = self.agents.get(key)
        if a is not None:
            if a.task is None and task is not None:
                a.task = task
                self._link(a)
            return a.party
        label = agent_id or (task.description if task else None) or key
        self.parties.append({"name": f"sub-agent {label[:80]}", "role": "agent"})
        a = _Agent(len(self.parties) - 1, task)
        self.agents[key] = a
        if agent_id:
            self.parties[-1]["meta"] = {"agentId": agent_id}
        self._link(a)
        return a.party

    def _link(self, a: _Agent) -> None:
        if a.task is None:
            return
        meta = self.parties[a.party].setdefault("meta", {})
        meta["launched_by"] = {"operation_id": a.task.id, "tool_use_id": a.task.tool_use_id}
        if a.task.description and "description" not in meta:
            meta["description"] = a.task.description[:200]

    # -- records ----------------------------------------------------------------------------
    def record(self, rec: Rec) -> None:
        r = rec.obj
        if not isinstance(r, dict):
            self.report.fail(rec.where, "not a JSON object" if r is not None else "not JSON")
            return
        try:
            self._record(r, rec.where)
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError) as e:
            self.report.fail(rec.where, f"could not be read ({type(e).__name__})")

    def _record(self, r: dict[str, Any], where: str, depth: int = 0,
                party_key: str | None = None) -> None:
        uid = _s(r.get("uuid"))
        t = r.get("type")
        if depth == 0:
            self.unpaired = False
        if depth == 0 and uid is not None and t in _TRANSCRIPT_TYPES:
            # a resumed session writes old lines again (new times, same uuid and message)
            digest = _digest(r.get("message", r.get("data")))
            seen = self.uuids.get(uid)
            if seen == digest:
                self.repeat("a record with the same uuid")
                self.report.ignore("repeated record (same uuid)")
                return
            if seen is not None:
                self.report.warn("some records share a uuid but differ: each was read")
            self.uuids[uid] = digest
        if depth == 0:
            sid = _s(r.get("sessionId")) or _s(r.get("session_id"))
            if sid:
                self.sessions.add(sid)
            self.session = sid
        if isinstance(r.get("hook_event_name"), str):
            self.hook_payload(r, where)
            return
        if uid is not None and r.get("isSidechain") is True and uid not in self.side_root:
            # every record of a sidechain thread (results too) names the thread's first record
            self.side_root[uid] = self.side_root.get(_s(r.get("parentUuid")) or "") or uid
        if self.own_thread(r) and not _has_tool_blocks(r):
            # Claude Code's own compaction/suggestion/warmup thread: its request and reply are
            # not the conversation, and no Task launched it
            if depth == 0:
                self.report.ignore(_OWN_IGNORED)
            return
        affected = False
        mode = r.get("permissionMode")
        if mode is not None and t in ("user", "permission-mode", "system", None):
            affected = self.set_mode(mode, self.time_of(r, self.last), where) or affected
        if t == "assistant":
            affected = self.assistant(r, where, party_key) or affected
        elif t == "user":
            affected = self.user(r, where, party_key) or affected
        elif t == "progress":
            affected = self.progress(r, where, depth) or affected
        elif t == "system":
            affected = self.system(r, where) or affected
        elif t == "result" and ("permission_denials" in r or "subtype" in r):
            affected = self.result_record(r, where) or affected
        elif t == "attachment":
            affected = self.attachment(r, where) or affected
        elif t == "queue-operation":
            affected = self.queued(r, where) or affected
        if depth:
            return
        if affected:
            self.report.mapped += 1
        elif self.unpaired:
            self.report.fail(where, "a tool_result naming no tool_use of the input")
        elif t == "permission-mode":
            self.report.ignore("permission-mode (unchanged)")
        elif isinstance(t, str) and t:
            self.report.ignore(t[:40] if t in _KNOWN_KINDS else "unknown record type")
        else:
            self.report.fail(where, "a JSON object with no record type")

    def _agent_party(self, r: dict[str, Any]) -> int | None:
        """The sub-agent party of a record, or None for the main agent."""
        parent = _s(r.get("parent_tool_use_id"))
        if parent is not None:  # stream-json: messages of a sub-agent name its Task call
            task = self.ops.get(parent)
            return self.party_for(parent, task, None)
        if self.own_thread(r):  # a fork replays the main agent's calls (_OWN_THREAD)
            return None
        if r.get("isSidechain") is True:
            aid = _s(r.get("agentId"))
            if aid is None:
                return self._thread_party(r)
            task = self.ops.get(self.agent_of_task.get(aid, ""))
            return self.party_for(aid, task, aid)
        return None

    def _thread_party(self, r: dict[str, Any]) -> int:
        """The party of a sidechain record without agentId (older versions wrote sub-agents
        into the session file): one party per sidechain thread (its parentUuid chain up to the
        thread's first record), linked to the Task whose prompt began the thread (open ones
        first), else to the only open Task no thread has claimed. Parallel Tasks are not
        merged into one."""
        uid = _s(r.get("uuid"))
        root = self.side_root.get(uid or "") or uid
        key = f"sidechain:{root}" if root else "sidechain"
        if key in self.agents:
            return self.agents[key].party
        claimed = {id(a.task) for a in self.agents.values() if a.task is not None}
        unclaimed = [o for o in self.ops.values() if o.is_task and id(o) not in claimed]
        free = [o for o in unclaimed if not o.ended]
        prompt = _prompt_text(r)
        # the prompt decides, even for a Task whose result was written before its thread
        task = next((o for o in free + unclaimed[::-1] if prompt is not None
                     and isinstance(o.body, dict) and isinstance(o.body.get("input"), dict)
                     and o.body["input"].get("prompt") == prompt), None)
        if task is not None:
            self.fired("a sidechain without agentId linked to the Task whose prompt began it")
        elif len(free) == 1:
            task = free[0]
            self.fired("a sidechain without agentId linked to the one open Task")
        return self.party_for(key, task, None)

    def assistant(self, r: dict[str, Any], where: str, party_key: str | None) -> bool:
        msg = r.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if not isinstance(content, list):
            self.time_of(r)
            return False
        when = self.time_of(r)
        party = self.agents[party_key].party if party_key in self.agents else \
            self._agent_party(r)
        party = 0 if party is None else party
        own = self.own_thread(r) is not None
        did = False
        for i, b in enumerate(content):
            if not isinstance(b, dict):
                continue
            if b.get("type") == "text" and not own:
                # what the agent said (never its thinking)
                listener = self.dialogs.user if party == 0 else self.launcher(party)
                did = self.turn(r, i, when, party, listener, b.get("text"), where) or did
            bt = b.get("type")
            if bt == "tool_use":
                did = self.tool_use(b, when, where, party) or did
            elif bt == "server_tool_use":
                did = self.tool_use(b, when, where, party, server=API_SERVER) or did
            elif bt == "mcp_tool_use":  # the API's MCP connector: the API called the server
                srv = _s(b.get("server_name"))  # never "!host", the agent's own host
                did = self.tool_use(b, when, where, party, server=srv if srv and not
                                    srv.startswith("!") else "unknown-mcp-server") or did
            elif isinstance(bt, str) and bt.endswith("_tool_result"):
                did = self.server_result(b, when, where) or did
        return did

    def server_result(self, b: dict[str, Any], when: datetime, where: str) -> bool:
        """A server tool's result block (``web_search_tool_result``...), in the model's own
        message: it ends the ``server_tool_use`` it names (README "Claude Code")."""
        tid = _s(b.get("tool_use_id"))
        op = self.ops.get(tid or "")
        if op is None or not op.api_call:
            self.unpaired = True
            return False
        if op.ended:
            self.repeat("a tool_result for a call already ended")
            return False
        content = b.get("content")
        body = {"tool_use_id": tid, "type": b.get("type"), "content": content}
        failed = _server_failure(content)
        if failed is None and b.get("is_error") is True:
            failed = "is_error true"
        if failed is not None:
            self.end(op, "tool-failure", when, where, body,
                     inferred=f"the server tool's result says it failed ({failed})")
        else:
            self.end(op, "tool-result", when, where, body)
        return True

    def own_thread(self, r: dict[str, Any]) -> str | None:
        """The kind of Claude Code's own thread a record belongs to (_OWN_THREAD, or a sidechain
        of 2.0.x's start-up warmup: a thread whose first record is the user message "Warmup"
        that no Task's prompt was), else None."""
        aid = _s(r.get("agentId"))
        own = _own_thread(aid)
        if own or r.get("isSidechain") is not True:
            return own
        thread = aid or self.side_root.get(_s(r.get("uuid")) or "") or ""
        if r.get("parentUuid") is None and _prompt_text(r) == WARMUP and not any(
                o.is_task and isinstance(o.body, dict) and isinstance(o.body.get("input"), dict)
                and o.body["input"].get("prompt") == WARMUP for o in self.ops.values()):
            self.warmups.add(thread)
        return "warmup" if thread and thread in self.warmups else None

    def launcher(self, party: int) -> int:
        """The party that launched the sub-agent ``party`` (its Task call's), else the main."""
        for a in self.agents.values():
            if a.party == party and a.task is not None:
                return a.task.party
        return 0

    def turn(self, r: dict[str, Any], block: int, when: datetime, speaker: int,
             listener: int, text: Any, where: str) -> bool:
        """A conversation turn, once per record uuid and block (a resumed session and a
        sub-agent's progress copies repeat them)."""
        uid = _s(r.get("uuid"))
        key = f"{uid}#{block}" if uid else None
        if key is not None and key in self.said:
            return False
        if not self.dialogs.add(when, speaker, listener, text, where):
            return False
        if key is not None:
            self.said.add(key)
        return True

    def prompt(self, r: dict[str, Any], content: Any, when: datetime, where: str,
               party_key: str | None) -> bool:
        """The user's prompt (a sub-agent's: the prompt its launcher gave it) as a turn."""
        if r.get("isMeta") is True or r.get("isCompactSummary") is True:
            return False
        if isinstance(content, str):
            blocks: list[tuple[int, Any]] = [(0, content)]
        else:
            blocks = [(i, b.get("text")) for i, b in enumerate(content)
                      if isinstance(b, dict) and b.get("type") == "text"]
        party = self.agents[party_key].party if party_key in self.agents else \
            self._agent_party(r)
        if self.own_thread(r):
            return False
        did = False
        for i, text in blocks:
            typed = typed_text(text) if isinstance(text, str) else None
            if typed is None:
                continue
            if party is None:
                speaker, listener = self.dialogs.user, 0
            else:
                speaker, listener = self.launcher(party), party
            did = self.turn(r, i, when, speaker, listener, typed, where) or did
        return did

    def tool_use(self, b: dict[str, Any], when: datetime, where: str, party: int,
                 server: str | None = None) -> bool:
        tid = _s(b.get("id"))
        name = _s(b.get("name"))
        if name is None:
            self.report.fail(where, "a tool_use block without a name")
            return False
        if tid is not None and (tid in self.ops or tid in self.aliases):
            self.repeat("a tool_use with the same id")
            return False
        inp = b.get("input")
        if name in _POLL_TOOLS | _KILL_TOOLS and isinstance(inp, dict):
            for k in _BG_KEYS:
                target = self.bg.get(str(inp.get(k)))
                if target is not None and tid is not None:
                    self.aliases[tid] = ("kill" if name in _KILL_TOOLS else "poll", target)
                    self.fired(f"{name} call mapped onto the background operation it names")
                    return True
        if server is not None:  # the API ran it: no Claude Code permission decision
            tool = name
        else:
            server, tool = split_tool(name)
            if server != HOST:
                self.mcp_servers.add(server)
        op = _Op(self.events.new_operation(), name, server, tool, tid, party, when, where,
                 {"tool_use_id": tid, "input": inp})
        op.api_call = server is not None
        op.is_task = name in ("Task", "Agent")
        if op.is_task and isinstance(inp, dict):
            op.description = _s(inp.get("description")) or _s(inp.get("subagent_type"))
        op.session = self.session
        self.ops[tid or f"#{op.id}"] = op
        o = self.otel.get(tid or "")
        if o is not None:  # a call the host may still refuse is invoked when it shows it ran
            self.otel_before(op, o)
        return True

    # OTel: decisions recorded at the call (the refusal ones wait for the result)
    def otel_before(self, op: _Op, o: dict[str, Any]) -> None:
        src = o["source"]
        when = o["time"] or op.when
        why = _RULE_TEXT["otel"].format(source=src)
        self.otel_used.add(op.tool_use_id or "")
        self.fired(why)
        if when > op.when:
            # the host decides after the model asked: the call starts at the decision (OTel's
            # recorded time), not at the tool_use record, so the decision governs it
            op.when = when
        if src in ("config", "user_permanent"):
            self.standing(when, op.where, "allowed", op.server, op.tool, why)
        elif src == "user_temporary":
            self.decide(op, when, op.where, "permission-required", None, why)
        elif src == "hook" and o["accept"]:
            self.decide(op, when, op.where, "allowed", None, why)

    def user(self, r: dict[str, Any], where: str, party_key: str | None = None) -> bool:
        msg = r.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        when = self.time_of(r)
        did = False
        tur = r.get("toolUseResult", r.get("tool_use_result"))
        if isinstance(content, list):
            results = [b for b in content if isinstance(b, dict) and b.get("type") ==
                       "tool_result"]
            if not results:
                did = self.prompt(r, content, when, where, party_key) or did
            for b in results:
                did = self.tool_result(b, r, tur if len(results) == 1 else None, when,
                                       where) or did
            for b in content:
                if isinstance(b, dict) and b.get("type") == "text" and str(
                        b.get("text")).startswith(INTERRUPT):
                    did = self.interrupt(when, where, str(b["text"])[:100]) or did
        elif isinstance(content, str) and content.startswith(INTERRUPT):
            did = self.interrupt(when, where, content[:100]) or did
        elif isinstance(content, str) and content.lstrip().startswith(NOTIFICATION):
            did = self.notification(content, when, where) or did
        elif isinstance(content, str):
            did = self.prompt(r, content, when, where, party_key) or did
        if isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") == "text" and str(
                        b.get("text")).lstrip().startswith(NOTIFICATION):
                    did = self.notification(str(b["text"]), when, where) or did
        return did

    def notification(self, text: str, when: datetime, where: str) -> bool:
        """A ``<task-notification>`` Claude Code delivers when background work (a
        run_in_background command, a background agent) stops: its ``<status>`` ends the
        operation that went pending (completed, failed, killed), at the time it was recorded
        (queued, else delivered). The model need not poll, so this may be the only end."""
        m = _NOTE_TASK.search(text)
        t = _NOTE_TOOL.search(text)
        op = (self.bg.get(m.group(1)) if m else None) or (
            self.ops.get(t.group(1)) if t else None)
        st = _STATUS_TEXT.search(text)
        if op is None or op.ended or st is None or op.bg is None:
            return False
        status = st.group(1).lower()
        summary = _NOTE_SUMMARY.search(text)
        body = {"task_id": m.group(1) if m else op.bg, "status": status,
                **({"summary": summary.group(1).strip()[:2000]} if summary else {})}
        why = f"the task-notification for the background work says status {status[:30]}"
        if status in ("completed", "done", "success"):
            self.end(op, "tool-result", when, where, body, inferred=why)
        elif status in ("failed", "error"):
            self.end(op, "tool-failure", when, where, body, inferred=why)
        elif status in ("killed", "cancelled", "canceled", "stopped"):
            self.end(op, "tool-cancel", when, where, body, inferred=why)
        else:
            self.emit("tool-progress", when, op, where, body=body)
            return True
        self.fired("a task-notification ended the background work it names")
        return True

    def queued(self, r: dict[str, Any], where: str) -> bool:
        """A ``queue-operation`` record: an enqueued task-notification is the moment the
        background work stopped (it is delivered to the model later)."""
        when = self.time_of(r)
        content = r.get("content")
        if r.get("operation") == "enqueue" and isinstance(content, str) \
                and content.lstrip().startswith(NOTIFICATION):
            return self.notification(content, when, where)
        return False

    def interrupt(self, when: datetime, where: str, why: str) -> bool:
        """Cancel the calls still open in this session (a call another session of a project
        directory left open was not interrupted by this Esc, possibly days later)."""
        open_ops = [o for o in self.ops.values() if not o.ended and o.bg is None and (
            o.session is None or self.session is None or o.session == self.session)]
        for op in open_ops:
            self.end(op, "tool-cancel", when, where, body={"reason": why},
                     inferred="the user interrupted while the call was open")
            self.fired("open calls cancelled by an interrupt")
        return bool(open_ops)

    def tool_result(self, b: dict[str, Any], r: dict[str, Any], tur: Any, when: datetime,
                    where: str) -> bool:
        tid = _s(b.get("tool_use_id"))
        if tid in self.aliases:
            return self.bg_result(tid, b, tur, when, where)
        op = self.ops.get(tid or "")
        if op is None:
            self.unpaired = True
            return False
        if op.ended:
            self.repeat("a tool_result for a call already ended")
            return False
        text = _text(b.get("content"))
        if op.hook_deny is not None:  # never ran: the text is the hook's message
            self.refuse_by_hook(op, text or None)
            return True
        is_error = b.get("is_error") is True
        body: dict[str, Any] = {"tool_use_id": tid, "content": b.get("content")}
        if is_error:
            body["is_error"] = True
        o = self.otel.get(tid or "")
        head = _host_head(text)
        decline = (is_error and any(w in head[:120] for w in USER_DECLINE)) or \
            tur == USER_DECLINE_RESULT
        kind, field_name = _denial_kind(r, tid)
        if is_error and SIBLING.match(head) and (op.progress or op.hook):
            self.end(op, "tool-cancel", when, where, body, inferred=SIBLING_RUNNING)
            self.fired(SIBLING_RUNNING)
            return True
        if is_error and SIBLING.match(head):  # before OTel: the host's words say it never ran
            self.decide(op, when, where, "permission-required", text, SIBLING_RULE)
            op.ended = True
            self.fired(SIBLING_RULE)
            return True
        if o is not None:
            return self.otel_result(op, o, text, body, when, where, decline)
        if kind is not None and kind.lower() in DENIAL_CANCELS:
            why = (f"{field_name} {kind[:40]}: the user interrupted, or the host stopped, the "
                   "open call (a cancel, not a refusal)")
            self.end(op, "tool-cancel", when, where, body, inferred=why)
            self.fired(why)
            return True
        if kind is not None and r.get("toolDenialAfterRun") is True:
            why = (f"toolDenialAfterRun ({field_name} {kind[:40]}): the call ran, then Claude "
                   "Code refused its result")
            self.end(op, "tool-failure", when, where, body, inferred=why)
            self.fired(why)
            return True
        pd = r.get("permissionDecision")
        before = r.get("toolDenialBeforeRun") is True or (
            isinstance(pd, dict) and pd.get("source") == "user_reject")
        if kind is not None and not (decline and kind.lower() == DENIAL_TRAP and not before):
            declined = any(w in kind.lower() for w in ("user", "prompt", "reject", "ask"))
            why = f"{field_name} {kind[:40]}" + (
                ", before the call ran (toolDenialBeforeRun / permissionDecision user_reject)"
                if before else "")
            decision = "permission-required" if declined else "disallowed"
            # the host's kind for any other denial ("permission-rule" in 2.1.328, an ask no
            # prompt could show included): its words say which refusal it was
            refusal = None if declined else _refusal(head)
            if refusal is not None:
                decision, who = refusal
                why += f"; refused by the host: {who}"
            self.decide(op, when, where, decision, text or kind, why)
            op.ended = True
            self.fired(why)
            return True
        if decline:
            return self.decline_or_cancel(op, text, body, when, where)
        if is_error:
            refusal = _refusal(head, op.server == HOST)
            if refusal is not None:
                decision, who = refusal
                self.decide(op, when, where, decision, text, f"refused by the host: {who}")
                op.ended = True
                self.fired(f"refused by the host: {who}")
                return True
            if tid in self.denied:  # the host's words name no refusal; its own list does
                self.refuse_listed(op, when, where, text)
                return True
            if "<tool_use_error>" in text:
                self.end(op, "tool-error", when, where, body)
                return True
            if op.server == HOST and _TIMEOUT.match(head):
                self.timed_out(op, when, where, body)
                return True
            if head.startswith(INTERRUPT):
                self.end(op, "tool-cancel", when, where, body,
                         inferred="the user interrupted while the call was open")
                self.fired("open calls cancelled by an interrupt")
                return True
            self.end(op, "tool-failure", when, where, body)
            return True
        if isinstance(tur, dict) and tur.get("interrupted") is True:
            self.end(op, "tool-cancel", when, where, body,
                     inferred="the result says interrupted: true")
            self.fired("interrupted: true -> tool-cancel")
            return True
        bgid = self.bg_id(op, tur, text)
        if bgid is not None:
            self.invoke(op)
            self.emit("tool-pending", when, op, where, body=body)
            op.bg = bgid
            self.bg[bgid] = op
            self.fired("run_in_background -> tool-pending")
            return True
        if op.name == "ExitPlanMode" and not op.invoked and PLAN_APPROVED.match(head):
            # the plan waited for the user: the call runs once it is approved
            op.when = when
            self.decide(op, when, where, "allowed", text, PLAN_RULE)
            self.fired(PLAN_RULE)
        if op.is_task and isinstance(tur, dict) and _s(tur.get("agentId")):
            aid = tur["agentId"]
            self.agent_of_task[aid] = tid or ""
            a = self.agents.get(aid)
            if a is not None and a.task is None:
                a.task = op
                self._link(a)
        self.end(op, "tool-result", when, where, body)
        if op.name == "EnterPlanMode":  # plan mode starts when the call succeeds
            self.set_mode("plan", when, where)
        return True

    def timed_out(self, op: _Op, when: datetime, where: str, body: Any) -> None:
        """The host killed the call at its timeout (its words, ``_TIMEOUT``)."""
        self.end(op, "tool-timeout", when, where, body,
                 inferred="the host killed the command (timeout text)")
        self.fired(TIMEOUT_RULE)

    def refuse_by_hook(self, op: _Op, reason: str | None) -> None:
        when, where, why = op.hook_deny or (op.when, op.where, "")
        self.decide(op, when, where, "disallowed", reason, why)
        op.ended = True

    def decline_or_cancel(self, op: _Op, text: str, body: Any, when: datetime,
                          where: str) -> bool:
        if self.mode == "bypassPermissions":
            rule = "bypass"
        elif op.progress:
            rule = "progress"
        elif op.hook:
            rule = "hook"
        else:
            rule = "declined"
        self.fired(_RULE_TEXT[rule])
        if rule == "declined":
            self.decide(op, when, where, "permission-required", text, _RULE_TEXT[rule])
            op.ended = True
        else:
            self.end(op, "tool-cancel", when, where, body, inferred=_RULE_TEXT[rule])
        return True

    def otel_result(self, op: _Op, o: dict[str, Any], text: str, body: Any, when: datetime,
                    where: str, decline: bool) -> bool:
        src = o["source"]
        why = _RULE_TEXT["otel"].format(source=src)
        if src == "user_reject" or (src == "hook" and not o["accept"]):
            decision = "permission-required" if src == "user_reject" else "disallowed"
            self.decide(op, o["time"] or when, where, decision, text or None, why)
            op.ended = True
            return True
        if src == "user_abort" or decline:
            self.end(op, "tool-cancel", when, where, body, inferred=why)
            return True
        etype = "tool-error" if "<tool_use_error>" in text else (
            "tool-failure" if isinstance(body, dict) and body.get("is_error") else
            "tool-result")
        self.end(op, etype, when, where, body)
        return True

    def bg_id(self, op: _Op, tur: Any, text: str) -> str | None:
        inp = op.body.get("input") if isinstance(op.body, dict) else None
        if not (isinstance(inp, dict) and inp.get("run_in_background") is True) and not (
                isinstance(tur, dict) and (_s(tur.get("backgroundTaskId"))
                                           or tur.get("status") == "async_launched")) \
                and "running in background with ID" not in text:  # Ctrl+B moves a call too
            return None
        if isinstance(tur, dict):
            for k in ("backgroundTaskId", "shellId", "bash_id", "taskId", "agentId"):
                if _s(tur.get(k)):
                    return str(tur[k])
        m = _BG_TEXT.search(text)
        return next((g for g in m.groups() if g), None) if m else None

    def bg_result(self, tid: str, b: dict[str, Any], tur: Any, when: datetime,
                  where: str) -> bool:
        kind, op = self.aliases.pop(tid)
        self.aliases[tid] = (kind + "-done", op)  # a repeated result is not mapped twice
        if kind.endswith("-done"):
            self.repeat("a tool_result for a call already ended")
            return False
        if op.ended:
            return True
        body = {"tool_use_id": tid, "content": b.get("content")}
        text = _text(b.get("content"))
        if kind == "kill":
            if b.get("is_error") is True:
                self.emit("tool-progress", when, op, where, body=body)
            else:
                self.end(op, "tool-cancel", when, where, body,
                         inferred="a kill call stopped the background work")
            return True
        status = None
        if isinstance(tur, dict):
            task = tur.get("task") if isinstance(tur.get("task"), dict) else tur
            status = _s(task.get("status"))
        if status is None:
            m = _STATUS_TEXT.search(text)
            status = m.group(1) if m else None
        status = (status or "").lower()
        if status in ("completed", "done", "success"):
            self.end(op, "tool-result", when, where, body)
        elif status in ("failed", "error"):
            self.end(op, "tool-failure", when, where, body)
        elif status in ("killed", "cancelled", "canceled", "stopped"):
            self.end(op, "tool-cancel", when, where, body,
                     inferred="the background work was killed")
        else:
            self.emit("tool-progress", when, op, where, body=body)
        return True

    def progress(self, r: dict[str, Any], where: str, depth: int) -> bool:
        data = r.get("data")
        if not isinstance(data, dict):
            self.time_of(r)
            return False
        dtype = data.get("type")
        tid = _s(r.get("parentToolUseID")) or _s(r.get("toolUseID"))
        op = self.ops.get(tid or "")
        if dtype == "agent_progress" and isinstance(data.get("message"), dict) \
                and depth < _MAX_DEPTH:
            aid = _s(data.get("agentId"))
            if op is not None:
                if aid:
                    self.agent_of_task[aid] = op.tool_use_id or ""
                key = aid or (op.tool_use_id or op.id)
                self.party_for(key, op, aid)
                self.invoke(op)
                op.progress += 1
                inner = data["message"]
                self.time_of(r)
                self._record(inner, where, depth + 1, party_key=key)
                return True
            self.time_of(r)
            return False
        when = self.time_of(r)
        if op is None or op.ended:
            return False
        if dtype == "hook_progress":
            op.hook = True
            return True
        op.progress += 1
        self.invoke(op)
        self.emit("tool-progress", when, op, where,
                  body={"tool_use_id": op.tool_use_id, "progress": data})
        return True

    def system(self, r: dict[str, Any], where: str) -> bool:
        when = self.time_of(r)
        if r.get("subtype") == "init":
            return self.set_mode(r.get("permissionMode"), when, where)
        if r.get("subtype") == "permission_denied":  # its words were read before: ``_denied``
            op = self.ops.get(_s(r.get("tool_use_id")) or "")
            if op is not None and op.listed_at is None:
                op.listed_at = (when, where)
            return op is not None
        tid = _s(r.get("toolUseID"))
        op = self.ops.get(tid or "")
        content = str(r.get("content", ""))
        if op is not None and ("PreToolUse" in content or "PostToolUse" in content):
            op.hook = True
            return True
        return False

    def attachment(self, r: dict[str, Any], where: str) -> bool:
        a = r.get("attachment")
        if not isinstance(a, dict):
            return False
        op = self.ops.get(_s(a.get("toolUseID")) or "")
        if op is not None and a.get("type") == "hook_permission_decision":
            return self.hook_decision(op, a, self.time_of(r), where)
        if op is not None and str(a.get("type", "")).startswith("hook_"):
            self.time_of(r)
            op.hook = True
            if a.get("type") == "hook_success" and a.get("hookEvent") == "PreToolUse":
                self.hook_rewrite(op, a)
            return True
        return False

    def hook_rewrite(self, op: _Op, a: dict[str, Any]) -> None:
        """A PreToolUse hook's ``hookSpecificOutput.updatedInput`` (its stdout, JSON) replaced
        the call's input before it ran (Claude Code's hooks reference): the invocation shows
        the model's input and, beside it, the one that ran."""
        if op.invoked or op.ended or not isinstance(op.body, dict):
            return
        try:
            out = orjson.loads(str(a.get("stdout") or "").strip() or "null")
        except ValueError:
            return
        spec = out.get("hookSpecificOutput") if isinstance(out, dict) else None
        new = spec.get("updatedInput") if isinstance(spec, dict) else None
        if not isinstance(new, dict) or new == op.body.get("input"):
            return
        by = _s(a.get("command")) or _s(a.get("hookName")) or "?"
        op.body = {**op.body, "updated_input": new, "updated_by": f"PreToolUse hook {by[:200]}"}
        op.rewritten = ("a PreToolUse hook replaced the input (hookSpecificOutput.updatedInput): "
                        "the request sent to the tool was updated_input, not input")
        self.fired("PreToolUse hook updatedInput -> the hook's input replaced the model's")

    def hook_decision(self, op: _Op, a: dict[str, Any], when: datetime, where: str) -> bool:
        """A hook's answer to the call's permission request (``hook_permission_decision``):
        allow is the call's once decision, and the call starts at it; deny refuses it (the
        decision is written with the result, whose text is the hook's message)."""
        decision = str(a.get("decision", "")).lower()
        event = _s(a.get("hookEvent")) or "a"
        why = (f"hook_permission_decision {decision[:20]}: the {event[:40]} hook answered the "
               "permission request")
        op.hook = True
        if op.invoked or op.ended or decision not in ("allow", "deny"):
            return decision in ("allow", "deny")
        # counted by the decision alone: the recorded hookEvent is in the event's inferred
        self.fired(f"hook_permission_decision {decision}: a PermissionRequest hook "
                   "answered the permission request")
        if decision == "allow":
            if when > op.when:
                op.when = when
            self.decide(op, when, where, "allowed", None, why)
        else:
            op.hook_deny = (when, where, why)
        return True

    def refuse_listed(self, op: _Op, when: datetime, where: str, text: str | None) -> None:
        """A call Claude Code lists as denied (the result's ``permission_denials``, its
        authoritative record, or a ``system``/``permission_denied`` record) that no words of
        ``_REFUSALS`` or denial kind placed: refused and not run, with the permission it
        needed never given; its error answer is the refusal's words, not a failure's."""
        words = text or self.denied.get(op.tool_use_id or "")
        self.decide(op, when, where, "permission-required", words, LISTED_RULE)
        self.fired(LISTED_RULE)
        op.ended = True

    def result_record(self, r: dict[str, Any], where: str) -> bool:
        """stream-json's ``result``: a call its permission_denials name that no answer ended
        (the answers were read by ``tool_result``, which knows the list) is refused here."""
        when = self.time_of(r)
        did = False
        for d in r.get("permission_denials") or ():
            op = self.ops.get(_s(d.get("tool_use_id")) or "") if isinstance(d, dict) else None
            if op is not None and not op.invoked and not op.ended:
                self.refuse_listed(op, when, where, None)
                did = True
        return did

    # -- hook payload logs ------------------------------------------------------------------
    def hook_payload(self, r: dict[str, Any], where: str) -> None:
        ev = r["hook_event_name"]
        when = self.time_of(r)
        moded = self.set_mode(r.get("permission_mode"), when, where)
        if ev == "PostToolBatch":  # each call of a parallel batch, once it ended
            calls = r.get("tool_calls")
            did = False
            for i, tc in enumerate(calls if isinstance(calls, list) else ()):
                if isinstance(tc, dict) and _s(tc.get("tool_name")):
                    did = self.hook_call(tc, "PostToolBatch", when, f"{where}/tool_calls/{i}") \
                        or did
            if did or moded:
                self.report.mapped += 1
            else:
                self.report.ignore("hook PostToolBatch (its calls ended at their PostToolUse)")
            return
        if ev not in _HOOK_TOOL_EVENTS:
            if (ev == "Notification" and self.prompt_notice(r.get("message"), when, where)) \
                    or moded:
                self.report.mapped += 1
            else:
                self.report.ignore(f"hook {ev[:40]}")
            return
        if _s(r.get("tool_name")) is None:
            self.report.fail(where, f"{ev} payload without tool_name")
            return
        self.report.mapped += 1
        self.hook_call(r, ev, when, where)

    def hook_call(self, r: dict[str, Any], ev: str, when: datetime, where: str) -> bool:
        """One tool-call hook payload (or one call of a PostToolBatch) on its operation."""
        name = str(r.get("tool_name"))
        tid = _s(r.get("tool_use_id"))
        inp = r.get("tool_input")
        ikey = "hook:" + name + ":" + _digest(inp).hex()
        op = None if ev == "PreToolUse" else self._hook_op(tid, ikey)
        if op is None and ev == "PostToolBatch" and any(
                o.ended for o in self.hook_open.get(tid or ikey, ())):
            return False  # its PostToolUse already ended it
        if ev == "PostToolBatch":
            ev = "PostToolUseFailure" if r.get("error") not in (None, "") else "PostToolUse"
        if op is None:
            server, tool = split_tool(name)
            op = _Op(self.events.new_operation(), name, server, tool, tid, 0, when, where,
                     {"tool_use_id": tid, "input": inp})
            for k in (tid, ikey):
                if k:
                    self.hook_open.setdefault(k, []).append(op)
            if ev in ("PostToolUse", "PostToolUseFailure"):
                self.fired("PostToolUse without its PreToolUse in the log: invocation at the "
                           "PostToolUse")
            op.asked_only = ev == "PermissionRequest"
        if ev == "PreToolUse":
            return True  # invoked when it ends, or at the end of the log (fires before the check)
        if ev == "PermissionRequest":
            why = ("a PermissionRequest hook payload: Claude Code asked for permission for "
                   "this call (the answer is not in the log)")
            if when > op.when:
                op.when = when  # the call can run only once it is approved
            self.decide(op, when, where, "permission-required", None, why)
            op.asked = True
            self.fired(why)
            return True
        if ev == "PermissionDenied":
            why = "a PermissionDenied hook payload: the auto-mode classifier refused the call"
            reason = r.get("reason")
            self.decide(op, when, where, "disallowed",
                        reason if isinstance(reason, str) else None, why)
            op.ended = True
            self.fired(why)
            return True
        if ev == "PostToolUse":
            resp = r.get("tool_response")
            if isinstance(resp, dict) and resp.get("interrupted") is True:
                self.end(op, "tool-cancel", when, where, {"tool_response": resp},
                         inferred="the result says interrupted: true")
            else:
                self.end(op, "tool-result", when, where, {"tool_response": resp})
        else:
            err = r.get("error")
            body = {"error": err}
            if r.get("is_interrupt") is True:
                self.end(op, "tool-cancel", when, where, body,
                         inferred="PostToolUseFailure with is_interrupt")
            elif op.server == HOST and isinstance(err, str) and _TIMEOUT.match(_host_head(err)):
                self.timed_out(op, when, where, body)
            else:
                self.end(op, "tool-failure", when, where, body)
        return True

    def prompt_notice(self, message: Any, when: datetime, where: str) -> bool:
        """A Notification that Claude Code showed a permission prompt ("Claude needs your
        permission to use <tool>"; an MCP tool as "<server> - <Title> (MCP)"; 2.1.x: "Claude
        needs your permission", no tool): the call it names (2.1.x: any open call), when exactly
        one open call of the log fits, asked (once permission-required)."""
        m = _PROMPT_NOTICE.match(message) if isinstance(message, str) else None
        bare = isinstance(message, str) and message.strip() == _PROMPT_NOTICE_BARE
        if m is None and not bare:
            return False
        name = m.group(1).strip() if m else ""
        mcp = re.fullmatch(r"(.+?) - .+ \(MCP\)", name)
        # 2.1.x names no tool: the one open call of the log that can ask, if only one is open
        fits = {id(op): op for q in self.hook_open.values() for op in q
                if not op.ended and not op.asked and not op.invoked
                and (not (op.server == HOST and op.tool in NEVER_ASKS) if bare else
                     (op.server == mcp.group(1) if mcp else
                      op.server == HOST and op.tool == name))}
        if len(fits) != 1:
            return False
        op = next(iter(fits.values()))
        why = ("a Notification says Claude Code showed a permission prompt for this call (the "
               "answer is not in the log)")
        if when > op.when:
            op.when = when
        self.decide(op, when, where, "permission-required", None, why)
        op.asked = True
        self.fired(why)
        return True

    def _hook_op(self, tid: str | None, ikey: str) -> _Op | None:
        """The open call a hook payload names: by tool_use_id, else (PermissionRequest names
        none, older hooks neither) the first open call of the same tool and input."""
        for k in (tid, ikey):
            for op in self.hook_open.get(k or "", ()):
                if not op.ended and (tid is None or op.tool_use_id in (None, tid)):
                    return op
        return None

    hook_open: dict[str, list[_Op]] = field(default_factory=dict)

    def finish(self) -> None:
        for op in self.ops.values():
            if not op.ended and op.hook_deny is not None:
                self.refuse_by_hook(op, None)
            if not op.ended and not op.invoked and op.listed_at is not None:
                self.refuse_listed(op, *op.listed_at, None)
            if not op.ended and not op.invoked:
                self.invoke(op)  # no result recorded: the call is shown unterminated
        hook_ops = list({id(op): op for q in self.hook_open.values() for op in q}.values())
        hook_ops.sort(key=lambda op: op.id)
        still = [op for op in hook_ops if not op.ended]
        for op in still:
            # no end recorded: the call is shown unterminated; but a call known only from its
            # PermissionRequest was asked, and nothing says it started: no invocation is made
            # up (its decision says what was asked; the warning below says the rest)
            if not op.asked_only:
                self.invoke(op)
        asked = sum(1 for op in still if op.asked)
        if len(still) > asked:
            self.report.warn(f"{len(still) - asked} PreToolUse "
                             "payload(s) have no PostToolUse in this log: their end is "
                             "not recorded (PostToolUse fires only after success)")
        if asked:
            only = sum(1 for op in still if op.asked_only)
            self.report.warn(f"{asked} call(s) asked for permission (PermissionRequest) and "
                             "have no PostToolUse in this log: whether each was approved and "
                             "ran is not recorded" + (
                                 f" ({only} with no PreToolUse either: shown with the "
                                 "decision and what was asked, no attempt)" if only else ""))
        orphans = [k for k, a in self.agents.items() if a.task is None]
        if orphans:
            self.report.warn(f"{len(orphans)} sub-agent(s) whose launching Task call is not in "
                             "the input (import the project directory to link them)")
        for rule, n in sorted(self.rules.items()):
            self.report.warn(f"rule fired {n}x: {rule}")
        for why, n in sorted(self.repeats.items()):
            self.report.warn(f"{n} repeated record(s) (resumed session or copies of sub-agent "
                             f"records): {why} seen again; counted once")
        unjoined = len(set(self.otel) - self.otel_used - {""})
        if unjoined:
            self.report.warn(f"{unjoined} OTel tool_decision event(s) name a tool_use_id not "
                             "in the transcript: not joined")
        if len(self.sessions) > 1:
            self.report.warn(f"the input holds {len(self.sessions)} sessions: all are in one "
                             "vCon")


_KNOWN_KINDS: Final = frozenset({
    "user", "assistant", "system", "progress", "summary", "file-history-snapshot", "result",
    "attachment", "queue-operation", "mode", "agent-name", "custom-title", "ai-title",
    "last-prompt", "frame-link", "pr-link", "started", "relocated", "worktree-state",
    "bridge-session", "atis-latch", "tag", "stream_event", "rate_limit_event",
    "control_request", "control_response",
})


# --- OTel join ------------------------------------------------------------------------------


def _otel_index(otel: list[dict[str, Any]] | None, report: Report) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for d in otel or ():
        if not isinstance(d, dict):
            continue
        tid, src = _s(d.get("tool_use_id")), _s(d.get("source"))
        if tid is None or src is None:
            report.warn("some OTel tool_decision events have no tool_use_id: not joined")
            continue
        t = d.get("time")
        out[tid] = {"source": src, "accept": str(d.get("decision", "")).lower() in (
            "accept", "allow", "allowed", "approve", "yes"),
            "time": t if isinstance(t, datetime) else None}
    return out


# --- convert --------------------------------------------------------------------------------


def _prescan_tools(recs: list[Rec]) -> tuple[set[str], set[str]]:
    """(MCP servers, built-in tool names) the input calls: permissionMode decisions name
    them from the first record on."""
    servers: set[str] = set()
    host: set[str] = set()

    def note(name: Any) -> None:
        if isinstance(name, str) and name:
            server, tool = split_tool(name)
            (host.add(tool) if server == HOST else servers.add(server))

    def walk(v: Any, depth: int) -> None:
        if depth > 8:
            return
        if isinstance(v, list):
            for x in v:
                walk(x, depth + 1)
        elif isinstance(v, dict):
            if v.get("type") == "tool_use":
                note(v.get("name"))
            for k in ("message", "data", "content"):
                if k in v:
                    walk(v[k], depth + 1)

    for rec in recs:
        raw = rec.obj
        if isinstance(raw, dict):
            walk(raw, 0)
            note(raw.get("tool_name"))
            calls = raw.get("tool_calls")  # a PostToolBatch payload's calls
            for tc in calls if isinstance(calls, list) else ():
                if isinstance(tc, dict):
                    note(tc.get("tool_name"))
    return servers, host


def _denied(recs: list[Rec]) -> dict[str, str | None]:
    """The calls Claude Code lists as denied (``LISTED_RULE``), by tool_use_id, with the
    refusal's words when a ``permission_denied`` record gives them: read before the answers,
    which come first in the stream."""
    out: dict[str, str | None] = {}
    for rec in recs:
        r = rec.obj
        if not isinstance(r, dict):
            continue
        if r.get("type") == "result" and isinstance(r.get("permission_denials"), list):
            for d in r["permission_denials"]:
                tid = _s(d.get("tool_use_id")) if isinstance(d, dict) else None
                if tid is not None:
                    out.setdefault(tid, None)
        elif r.get("type") == "system" and r.get("subtype") == "permission_denied":
            tid = _s(r.get("tool_use_id"))
            if tid is not None:
                out[tid] = _s(r.get("message")) or out.get(tid)
    return out


def _result_only(results: list[dict[str, Any]]) -> str:
    """Why ``claude -p --output-format json`` output (the ``result`` alone) is not imported:
    it names the calls Claude Code refused but none that ran, so a vCon of it would show an
    agent that only made refused calls."""
    n = sum(len(r["permission_denials"]) for r in results
            if isinstance(r.get("permission_denials"), list))
    sid = next((str(r["session_id"])[:80] for r in results if r.get("session_id")), "?")
    return (f"claude -p's result record alone (what --output-format json prints): it records "
            f"the final answer and "
            f"the {n} call(s) Claude Code refused (permission_denials), not the calls that ran; "
            "record with --output-format stream-json --verbose, or import the session's "
            f"transcript (~/.claude/projects/<project-dir>/{sid}.jsonl)")


def _convert_files(files: list[tuple[str, bytes]], source_name: str, digest: str,
                   otel: list[dict[str, Any]] | None,
                   links: dict[str, str] | None = None) -> tuple[dict[str, Any], Report]:
    """``links``: agentId -> the tool_use id of the Task/Agent call that launched it (from
    the sub-agent files' ``agent-<id>.meta.json``)."""
    report = Report()
    all_recs: list[Rec] = []
    forms: set[str] = set()
    for label, data in files:
        recs, form = read_records(data, label)
        all_recs += recs
        forms.add(form)
    good = [r.obj for r in all_recs if isinstance(r.obj, dict)]
    if not any(_is_transcript(o) or _is_hook(o) for o in good):
        raise ImportInputError("no Claude Code transcript record or hook payload could be read "
                               "(accepted: session JSONL, sub-agent JSONL, chat.json arrays, "
                               "stream-json, hook payload logs)")
    if all(o.get("type") == "result" for o in good):
        raise ImportInputError(_result_only(good))
    hooks = [o for o in good if _is_hook(o)]
    if hooks and len(hooks) == len(good) and not any(
            o["hook_event_name"] in _HOOK_TOOL_EVENTS for o in hooks):
        kinds = sorted({str(o["hook_event_name"])[:40] for o in hooks})
        where = next((o["transcript_path"] for o in hooks
                      if isinstance(o.get("transcript_path"), str)), None)
        tail = f"; the session's transcript was {where[:300]}" if where else ""
        other = sorted(set(kinds) & set(OTHER_AGENT_HOOKS))
        if other:  # the same payload shape, another agent's hook names: its tool calls
            raise ImportInputError(
                f"hook payloads of {OTHER_AGENT_HOOKS[other[0]]} ({', '.join(other[:4])}), "
                "not Claude Code's: vcon-view reads Claude Code's PreToolUse/PostToolUse "
                "logs, not these (import that agent's session instead)" + tail)
        raise ImportInputError(
            f"a hook log of {', '.join(kinds)} events: it records no tool call "
            "(PreToolUse/PostToolUse logs and session transcripts do)" + tail)
    if hooks and len(hooks) == len(good):  # hook payloads only: no transcript was read
        report.title, report.unit = "Claude Code hook log", "hook payloads"
    elif forms == {"json-array"}:  # chat.json: a transcript's records in one array
        report.unit = "records"
    parties: list[dict[str, Any]] = [{"name": "Claude Code (main agent)", "role": "agent"}]
    events = Events(party=0)
    dialogs = Dialogs(parties)
    m = Mapper(events, report, parties, *_prescan_tools(all_recs), dialogs,
               _otel_index(otel, report))
    m.agent_of_task.update(links or {})
    m.denied = _denied(all_recs)
    m.first = next((t for t in (parse_ts(o.get("timestamp"))[0] for o in good) if t), None)
    if m.first is None:
        report.times = "order-only"
        base = EPOCH
        m.last = base
        step = [0]

        def synth(r: dict[str, Any], fallback: datetime | None = None) -> datetime:
            step[0] += 1
            m.last = base + timedelta(milliseconds=step[0])
            return m.last

        m.time_of = synth  # type: ignore[method-assign]
    for rec in all_recs:
        m.record(rec)
    m.finish()
    if m.times_missing and report.times == "recorded":
        report.times = "partial"
    if m.before_first:
        report.warn("records before the first timestamp (e.g. a leading permission-mode line) "
                    "take the first recorded time")
    if events.operations == 0:
        report.warn("the input has no tool call: the vCon has no operations")
    # events were written as the record showed each call ran: put them back in time order
    order = sorted(range(len(events.events)), key=lambda i: events.events[i]["time"])
    events.events = [events.events[i] for i in order]
    events.sources = [events.sources[i] for i in order]
    times = [parse_ts(e["time"])[0] for e in events.events]
    start = times[0] if times else None
    provenance = {
        "tool": "vcon-view import claude-code",
        "source": {"file": source_name, "sha256": digest, "format": "+".join(sorted(forms)),
                   "files": [label for label, _ in files] if len(files) > 1 else None},
        "mapping": "draft-petrie-vcon-tool-invocation; Claude Code tool_use/tool_result",
        "decline_or_cancel_rules": [text for _, text in DECLINE_RULES],
        **report.as_dict(),
    }
    vcon = assemble(uid=vcon_uuid(digest.encode()), subject=f"Claude Code session imported "
                    f"from {source_name}", parties=parties, events=events, start=start,
                    provenance=provenance, dialogs=dialogs)
    return vcon, report


def convert(data: bytes, *, source_name: str = "-",
            otel: list[dict[str, Any]] | None = None) -> tuple[dict[str, Any], Report]:
    """A Claude Code transcript or hook log's bytes -> (vCon, report). ``otel``: the list of
    ``claude_code.tool_decision`` events (see ``viewer.importers.otlp.claude_tool_decisions``)."""
    return _convert_files([("", data)], source_name, hashlib.sha256(data).hexdigest(), otel)


def project_files(path: str) -> list[str]:
    """A project directory's session files, each followed by its sub-agent files."""
    out: list[str] = []
    names = sorted(os.listdir(path))
    for n in names:
        p = os.path.join(path, n)
        if n.endswith(".jsonl") and os.path.isfile(p):
            out.append(p)
            sub = os.path.join(path, n.rsplit(".", 1)[0], "subagents")
            if os.path.isdir(sub):
                out += [os.path.join(sub, s) for s in sorted(os.listdir(sub))
                        if s.startswith("agent-") and s.endswith(".jsonl")]
    for n in names:  # sub-agent folders whose session file is missing
        sub = os.path.join(path, n, "subagents")
        if os.path.isdir(sub) and not os.path.isfile(os.path.join(path, n + ".jsonl")):
            out += [os.path.join(sub, s) for s in sorted(os.listdir(sub))
                    if s.startswith("agent-") and s.endswith(".jsonl")]
    return out


def convert_path(path: str, *, source_name: str | None = None,
                 otel: list[dict[str, Any]] | None = None) -> tuple[dict[str, Any], Report]:
    """A file, or a project directory (``~/.claude/projects/<dir>/``) -> (vCon, report).
    ``otel``: the decisions list, or the path of an OTel logs file."""
    if isinstance(otel, str):
        otel = _read_otel(otel)
    if not os.path.isdir(path):
        with open(path, "rb") as f:
            data = f.read()
        return convert(data, source_name=source_name or os.path.basename(path), otel=otel)
    files = []
    h = hashlib.sha256()
    for p in project_files(path):
        with open(p, "rb") as f:
            data = f.read()
        label = os.path.relpath(p, path).replace("\\", "/")
        files.append((label, data))
        h.update(label.encode() + b"\0" + hashlib.sha256(data).digest())
    if not files:
        raise ImportInputError("the directory holds no session file (*.jsonl)")
    name = source_name or os.path.basename(os.path.normpath(path))
    return _convert_files(files, name, h.hexdigest(), otel, _meta_links(path, files))


def _meta_links(path: str, files: list[tuple[str, bytes]]) -> dict[str, str]:
    """agentId -> launching tool_use id, from each sub-agent file's ``agent-<id>.meta.json``
    (``toolUseId``): it links a sub-agent whose Task/Agent result names no agentId (the call
    was interrupted, still running, or written by a version that does not say)."""
    out: dict[str, str] = {}
    for label, _ in files:
        if "/subagents/agent-" not in "/" + label or not label.endswith(".jsonl"):
            continue
        meta = os.path.join(path, label[:-len(".jsonl")] + ".meta.json")
        try:
            with open(meta, "rb") as f:
                doc = orjson.loads(f.read(1 << 20))
        except (OSError, orjson.JSONDecodeError):
            continue
        tid = _s(doc.get("toolUseId")) if isinstance(doc, dict) else None
        if tid is not None:
            out[label.rsplit("/agent-", 1)[1][:-len(".jsonl")]] = tid
    return out


def _add_arguments(p: Any) -> None:
    p.add_argument("--otel", metavar="LOGS", default=None,
                   help="Claude Code OTel logs (OTLP JSON) whose claude_code.tool_decision "
                        "events decide the calls they name (joined on tool_use_id)")


def load_otel(path: str) -> list[dict[str, Any]]:
    """The tool decisions of an OTel logs file (needs viewer.importers.otlp)."""
    try:
        from viewer.importers.otlp import claude_tool_decisions  # type: ignore[attr-defined]
    except ImportError as exc:
        raise ImportInputError("--otel needs the otlp importer (claude_tool_decisions), "
                               "which this build does not have") from exc
    with open(path, "rb") as f:
        return list(claude_tool_decisions(f.read()))


def _convert_cli(data: bytes, *, source_name: str = "-", otel: Any = None,
                 ) -> tuple[dict[str, Any], Report]:
    """``convert`` as the registry calls it: ``otel`` may be the --otel path."""
    if isinstance(otel, str):
        otel = _read_otel(otel)
    return convert(data, source_name=source_name, otel=otel)


def _read_otel(path: str) -> list[dict[str, Any]]:
    try:
        return load_otel(path)
    except OSError as exc:
        raise ImportInputError(f"--otel: cannot read {path} ({exc.strerror})") from None


FORMAT = Format(name="claude-code", title="Claude Code transcript", unit="lines",
                sniff=sniff, convert=_convert_cli,
                help="a Claude Code session JSONL, project directory, chat.json, stream-json "
                     "or hook payload log",
                add_arguments=_add_arguments, options=("otel",))
