"""vcon-view import codex: rollout shapes Codex writes that the corpus samples do not show.
Each fixture is built by hand from the shape as codex-rs defines it (the source is named at
each test); the expectation is what a reviewer should see, written before the fix.
"""

from __future__ import annotations

import json
from typing import Any

from viewer.importers import codex
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.pipeline import open_bytes


def jl(*recs: dict[str, Any]) -> bytes:
    return b"\n".join(json.dumps(r).encode() for r in recs) + b"\n"


def model_of(data: bytes) -> Model:
    return build_model(open_bytes(data, name="codex-test"))


def ops(m: Model) -> list[tuple[str | None, str | None, str, str | None]]:
    return [(o.server, o.tool, o.outcome, o.decision) for o in m.operations]


def line(sec: int, typ: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": f"2026-03-01T10:00:{sec:02d}.000Z", "type": typ, "payload": payload}


def call(sec: int, cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return line(sec, "response_item", {"type": "function_call", "name": name,
                                       "arguments": json.dumps(args), "call_id": cid})


def output(sec: int, cid: str, out: Any) -> dict[str, Any]:
    return line(sec, "response_item", {"type": "function_call_output", "call_id": cid,
                                       "output": out})


META = line(0, "session_meta", {"id": "s-1", "cli_version": "0.60.0"})


def test_persisted_events_of_newer_rollouts_are_known() -> None:
    """codex-rs core/src/rollout/policy.rs persists thread_rolled_back (the user rolled back
    turns) in every rollout, and collab_resume_end in extended ones. Reviewer: the shell call
    still ran and completed (a rollback takes turns out of the model's context, it does not
    undo them); nothing is reported as unreadable; the rollback is said."""
    _, rep = codex.convert(jl(
        META, call(1, "c1", "shell", {"command": ["ls"]}),
        output(2, "c1", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\na\n"),
        line(3, "event_msg", {"type": "thread_rolled_back", "num_turns": 1}),
        call(4, "c2", "resume_agent", {"id": "t-2"}),
        line(5, "event_msg", {"type": "collab_resume_end", "call_id": "c2",
                              "receiver_thread_id": "t-2", "status": "running"})))
    assert rep.unmapped == 0, rep.examples
    assert any("rolled back" in w for w in rep.warnings)
    m = model_of(jl(META, call(1, "c1", "shell", {"command": ["ls"]}),
                    output(2, "c1", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\na\n"),
                    line(3, "event_msg", {"type": "thread_rolled_back", "num_turns": 1})))
    assert ops(m) == [("!host", "shell", "completed", None)]


def test_the_users_own_shell_command_is_not_an_agent_call() -> None:
    """ExecCommandBegin/End carry `source` (agent, user_shell, unified_exec_startup,
    unified_exec_interaction; codex-rs protocol.rs ExecCommandSource): user_shell is the
    command the user typed after '!', run by Codex for the user. Reviewer: the agent made one
    call (c1); the user's `git status` is not an operation of the agent. Before: an operation
    'shell' made from the end event, as if the agent had run it."""
    data = jl(META,
              line(1, "event_msg", {"type": "exec_command_begin", "call_id": "u1",
                                    "command": ["bash", "-lc", "git status"], "cwd": "/w",
                                    "source": "user_shell"}),
              line(2, "event_msg", {"type": "exec_command_end", "call_id": "u1",
                                    "command": ["bash", "-lc", "git status"], "cwd": "/w",
                                    "source": "user_shell", "exit_code": 0,
                                    "aggregated_output": "clean", "stdout": "", "stderr": "",
                                    "formatted_output": "", "duration": "0.1s"}),
              call(3, "c1", "shell", {"command": ["ls"]}),
              line(4, "event_msg", {"type": "exec_command_end", "call_id": "c1",
                                    "source": "agent", "exit_code": 0,
                                    "aggregated_output": "a", "stdout": "a", "stderr": "",
                                    "formatted_output": "a", "duration": "0.1s"}),
              output(5, "c1", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\na\n"))
    m = model_of(data)
    assert ops(m) == [("!host", "shell", "completed", None)]
    _, rep = codex.convert(data)
    assert rep.unmapped == 0
    assert any("user" in k and "shell" in k for k in rep.ignored)


def test_exit_code_is_read_from_the_header_not_the_commands_output() -> None:
    """The exec_command tool's output (unified exec) is a header (Chunk ID, Wall time, then
    'Process exited with code N' or 'Process running with session ID N'), then 'Output:' and
    the command's own output. Reviewer: a call whose process is still running is pending (not
    failed, even when the program printed 'exit code: 2'); a call whose header says 'Process
    exited with code 1' failed. Before: the program's words made it a failure."""
    running = ("Chunk ID: ab12\nWall time: 10.0 seconds\nProcess running with session ID 5\n"
               "Original token count: 9\nOutput:\nstep 1\nexit code: 2\n")
    exited = ("Chunk ID: cd34\nWall time: 1.0 seconds\nProcess exited with code 1\n"
              "Original token count: 3\nOutput:\nboom\n")
    m = model_of(jl(META, call(1, "c1", "exec_command", {"cmd": "make -k"}),
                    output(2, "c1", running),
                    call(3, "c2", "exec_command", {"cmd": "false"}), output(4, "c2", exited)))
    assert ops(m) == [("!host", "exec_command", "pending", None),
                      ("!host", "exec_command", "failed", None)]


def test_codex_timeout_is_its_own_words_not_the_commands() -> None:
    """Codex's own timeout (core tools: format_exec_output_str) puts 'command timed out after
    N milliseconds' first in the output it gives the model (exit code 124), after the freeform
    header or as the JSON form's output. A command that printed 'Connection timed out after
    30001 milliseconds' (curl, exit 28) was not stopped by Codex: it failed. Likewise a JSON
    output with an exit code is a command that ran, whatever its first words ('missing
    field ...' is Codex's 'could not run' only with no exit code). Before: curl's words made
    a tool-timeout, and the 'missing field' run a tool-error."""
    curl = "curl: (28) Connection timed out after 30001 milliseconds\n"
    m = model_of(jl(
        META,
        call(1, "a", "shell", {"command": ["curl", "x"]}),
        output(2, "a", f"Exit code: 28\nWall time: 30.0 seconds\nOutput:\n{curl}"),
        call(3, "b", "shell", {"command": ["curl", "x"]}),
        output(4, "b", json.dumps({"output": curl, "metadata": {"exit_code": 28,
                                                                "duration_seconds": 30.0}})),
        call(5, "c", "shell", {"command": ["sleep", "99"]}),
        output(6, "c", "Exit code: 124\nWall time: 10.0 seconds\nOutput:\n"
                       "command timed out after 10000 milliseconds\n"),
        call(7, "d", "shell", {"command": ["sleep", "99"]}),
        output(8, "d", json.dumps({"output": "command timed out after 10000 milliseconds\n",
                                   "metadata": {"exit_code": 124, "duration_seconds": 10.0}})),
        call(9, "e", "shell", {"command": ["cargo", "run"]}),
        output(10, "e", json.dumps({"output": "missing field `name` at line 1\n",
                                    "metadata": {"exit_code": 1, "duration_seconds": 0.2}}))))
    assert [o[2] for o in ops(m)] == ["failed", "failed", "timed-out", "timed-out", "failed"]


def test_exec_end_timeout_from_what_the_model_was_told() -> None:
    """exec_command_end's formatted_output is the output as the model saw it: Codex's timeout
    note is there (its aggregated_output is the command's raw output)."""
    m = model_of(jl(META, call(1, "a", "shell", {"command": ["sleep", "99"]}),
                    line(2, "event_msg", {
                        "type": "exec_command_end", "call_id": "a", "exit_code": 124,
                        "aggregated_output": "", "stdout": "", "stderr": "",
                        "formatted_output": "command timed out after 10000 milliseconds\n",
                        "duration": "10s"})))
    assert [o[2] for o in ops(m)] == ["timed-out"]


def test_policy_words_inside_a_read_files_text_are_not_a_refusal() -> None:
    """Codex's policy refusals are the whole output, one sentence ("approval policy is
    Never; reject command — ...", "`cmd` rejected: ..."). A file read whose text mentions
    'blocked by policy' on a later line ran and returned it. Before: a disallowed refusal
    with no invocation."""
    m = model_of(jl(META, call(1, "a", "read_file", {"path": "SECURITY.md"}),
                    output(2, "a", "L1: # Security\nL2: Pushes to main are blocked by policy.\n"),
                    call(3, "b", "shell", {"command": ["rm", "-rf", "/"],
                                           "with_escalated_permissions": True}),
                    output(4, "b", "approval policy is Never; reject command — you should not "
                                   "ask for escalated permissions if the approval policy is "
                                   "Never")))
    assert [(o[1], o[2], o[3]) for o in ops(m)] == [("read_file", "completed", None),
                                                    ("shell", "disallowed", "disallowed")]


# Codex answers a call it could not carry out with its own one-line error as the whole output
# (FunctionCallError::RespondToModel in codex-rs core/src/tools: handlers/apply_patch.rs,
# unified_exec, error.rs SandboxErr, safety.rs "patch rejected: {reason}"); these lines are
# seen in real rollouts.
OWN_ERRORS = [
    ("aborted by user after 5.2s", "shell", "cancel-requested", None),
    ("apply_patch verification failed: Failed to find expected lines in /w/a.py:\n    def f",
     "apply_patch", "failed", None),
    ("write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true",
     "write_stdin", "failed", None),
    ("collab spawn failed: agent thread limit reached (max 6)", "spawn_agent", "failed", None),
    ("sandbox denied exec error, exit code: 2, stdout: , stderr: touch: /etc/x: Operation not "
     "permitted", "shell", "failed", None),
    ("patch rejected: writing outside of the project; rejected by user approval settings",
     "apply_patch", "disallowed", "disallowed"),
    ("patch rejected: writing is blocked by read-only sandbox; rejected by user approval "
     "settings", "apply_patch", "disallowed", "disallowed"),
    ("patch rejected: empty patch", "apply_patch", "errored", None),
    ("apply_patch handler received invalid patch input", "apply_patch", "errored", None),
    ("exec_command failed for `/bin/zsh -lc 'uv run pytest'`: CreateProcess { }",
     "exec_command", "errored", None),
    ("failed to spawn code-mode host /u/bin/codex-code-mode-host: No such file",
     "exec", "errored", None),
]


def test_codex_own_error_lines_decide_the_outcome() -> None:
    """Reviewer: a call Codex stopped when the user pressed Esc ('aborted by user after
    5.2s') was cancelled; a patch that failed verification, a closed stdin, a refused spawn
    and a sandbox denial failed (the tool tried); a patch the approval settings refused never
    ran (disallowed); an empty or unparsable patch and a command that could not be spawned are
    errors of the request. Before: all but the last one showed as completed."""
    recs: list[dict[str, Any]] = [META]
    for i, (out, tool, _, _) in enumerate(OWN_ERRORS):
        recs += [call(2 * i + 1, f"c{i}", tool, {"x": i}), output(2 * i + 2, f"c{i}", out)]
    m = model_of(jl(*recs))
    got = [(o[1], o[2], o[3]) for o in ops(m)]
    assert got == [(tool, outcome, decision) for _, tool, outcome, decision in OWN_ERRORS]


def test_an_mcp_tools_own_words_are_not_codex_error_lines() -> None:
    """Codex's one-line errors for its own tools (a spawn that failed, an exec_command that
    could not start, a rejected patch) are Codex's words; an MCP tool's text output is the
    tool's. Reviewer: a browser MCP tool that answered 'Failed to spawn browser: ...' (no
    isError recorded) returned that text: completed, as before those lines were read, not an
    error of the request."""
    recs: list[dict[str, Any]] = [META]
    said = ["Failed to spawn browser: chromium is not installed", "exec_command failed for job 3",
            "patch rejected: empty patch (the review server's words)"]
    for i, out in enumerate(said):
        recs += [call(2 * i + 1, f"m{i}", "mcp__web__open", {"x": i}),
                 output(2 * i + 2, f"m{i}", out)]
    m = model_of(jl(*recs))
    assert [(o[0], o[2]) for o in ops(m)] == [("web", "completed")] * len(said)


def custom(sec: int, cid: str, name: str, inp: str) -> dict[str, Any]:
    return line(sec, "response_item", {"type": "custom_tool_call", "status": "completed",
                                       "call_id": cid, "name": name, "input": inp})


def custom_out(sec: int, cid: str, out: Any) -> dict[str, Any]:
    return line(sec, "response_item", {"type": "custom_tool_call_output", "call_id": cid,
                                       "output": out})


def texts(*parts: str) -> list[dict[str, str]]:
    return [{"type": "input_text", "text": p} for p in parts]


def test_code_mode_script_outcome_is_its_preamble() -> None:
    """Code mode (codex-rs core tests, code_mode): the `exec` custom tool runs a script; its
    output is a list of input_text items, first 'Script completed|failed\\nWall time N
    seconds\\nOutput:\\n' or 'Script running with cell ID N...', then the script's text, and
    for a failure a last 'Script error:\\n...' item; `wait` {cell_id} returns the same shape
    for a running script. Reviewer: a completed script completed (even when its text reports
    failing tests or an 'exit code: 2'); a failed one failed; a running one is pending until
    the wait on its cell reports that it failed (the wait itself completed: it reported).
    Before: every script call showed as completed."""
    m = model_of(jl(
        META,
        custom(1, "x1", "exec", "text(await tools.exec_command({cmd: 'npm test'}))"),
        custom_out(2, "x1", texts("Script completed\nWall time 3.1 seconds\nOutput:\n",
                                  "Tests: 1 failed, 3 passed, 4 total\nexit code: 2\n")),
        custom(3, "x2", "exec", "text('before crash'); throw new Error('boom')"),
        custom_out(4, "x2", texts("Script failed\nWall time 0.0 seconds\nOutput:\n",
                                  "before crash",
                                  "Script error:\nError: boom\n    at <anonymous>:1:30")),
        custom(5, "x3", "exec", "await tools.exec_command({cmd: 'npx jest'})"),
        custom_out(6, "x3", texts("Script running with cell ID 28\nWall time 10.0 seconds\n"
                                  "Output:\n", "")),
        call(7, "w1", "wait", {"cell_id": "28", "yield_time_ms": 10000}),
        output(8, "w1", "Script failed\nWall time 2.0 seconds\nOutput:\n\nScript error:\n"
                        "exec_command failed: Too many open files (os error 24)")))
    assert [(o[1], o[2]) for o in ops(m)] == [("exec", "completed"), ("exec", "failed"),
                                              ("exec", "failed"), ("wait", "completed")]


def test_content_item_outputs_keep_their_exit_code() -> None:
    """function_call_output.output is either a string or a list of content items
    (codex-rs protocol models.rs FunctionCallOutputBody: Text | ContentItems, e.g. when an image
    is returned). Reviewer: an exec_command whose header, given as an input_text item, says
    'Process exited with code 1' failed; an MCP tool whose own text mentions an exit code is
    not read for one. Before: the list form never had an exit code (completed)."""
    m = model_of(jl(
        META,
        call(1, "a", "exec_command", {"cmd": "make"}),
        output(2, "a", [*texts("Chunk ID: ab\nWall time: 1.0 seconds\nProcess exited with "
                               "code 1\nOriginal token count: 3\nOutput:\nboom\n"),
                        {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}]),
        call(3, "b", "mcp__ci__job_status", {"id": 3}),
        output(4, "b", texts("Job 3 finished.\nExit code: 2 (the job's own)"))))
    assert [(o[1], o[2]) for o in ops(m)] == [("exec_command", "failed"),
                                              ("job_status", "completed")]


def test_newer_envelope_rows_are_known() -> None:
    """Rollouts of Codex 0.145+ also hold `world_state` and `token_usage_record` rows beside
    the documented ones: bookkeeping, no tool call; counted as ignored, not as unreadable."""
    _, rep = codex.convert(jl(META, line(1, "token_usage_record", {"input_tokens": 5}),
                              line(2, "world_state", {"cwd": "/w"}),
                              call(3, "a", "shell", {"command": ["ls"]}),
                              output(4, "a", "Exit code: 0\nWall time: 0 seconds\nOutput:\n")))
    assert rep.unmapped == 0, rep.examples


def unified(chunk: str, state: str, out: str) -> str:
    return (f"Chunk ID: {chunk}\nWall time: 1.0000 seconds\n{state}\nOriginal token count: 4\n"
            f"Output:\n{out}")


def test_a_poll_after_the_process_end_event_completes() -> None:
    """A rollout that keeps every event (codex-rs rollout policy, full history) also holds the
    exec_command_end Codex emits when a unified exec process exits, under the exec_command's
    call_id, and it can come before the output of the write_stdin that found the process
    exited. Reviewer: the exec_command failed (exit code 1, its end event); the write_stdin
    wrote and read: completed, not failed as if writing had failed."""
    m = model_of(jl(
        META,
        call(1, "c1", "exec_command", {"cmd": "npm run dev"}),
        output(2, "c1", unified("a1", "Process running with session ID 7", "starting\n")),
        call(5, "c3", "write_stdin", {"session_id": 7, "chars": "q\n"}),
        line(6, "event_msg", {"type": "exec_command_end", "call_id": "c1",
                              "command": ["npm", "run", "dev"], "cwd": "/w", "exit_code": 1,
                              "aggregated_output": "boom", "stdout": "", "stderr": "",
                              "formatted_output": "boom", "duration": "5s",
                              "source": "unified_exec_startup"}),
        output(6, "c3", unified("c3", "Process exited with code 1", "boom\n"))))
    assert [(o[1], o[2]) for o in ops(m)] == [("exec_command", "failed"),
                                              ("write_stdin", "completed")]


def test_a_running_process_is_pending_until_a_poll_reports_its_end() -> None:
    """Unified exec (codex-rs core unified_exec: 'Process running with session ID N' while the
    process runs, 'Process exited with code N' once it ended) keeps a process across calls:
    exec_command starts it, write_stdin {session_id, chars} writes to it and reads what it
    printed since. Reviewer: the exec_command is pending (the tool accepted it and completes
    it later), each write_stdin that finds it running is a progress of it, and the one that
    finds it exited ends it there with the process's exit code (failed, code 1); the
    write_stdin calls themselves completed (they wrote and read). Before: the exec_command
    showed completed and the last write_stdin failed, as if writing had failed."""
    m = model_of(jl(
        META,
        call(1, "c1", "exec_command", {"cmd": "npm run dev", "yield_time_ms": 10000}),
        output(2, "c1", unified("a1", "Process running with session ID 7", "starting\n")),
        call(3, "c2", "write_stdin", {"session_id": 7, "chars": ""}),
        output(4, "c2", unified("b2", "Process running with session ID 7", "ready\n")),
        call(5, "c3", "write_stdin", {"session_id": 7, "chars": "q\n"}),
        output(6, "c3", unified("c3", "Process exited with code 1", "boom\n")),
        call(7, "c4", "exec_command", {"cmd": "tail -f log"}),
        output(8, "c4", unified("d4", "Process running with session ID 9", ""))))
    assert [(o[1], o[2]) for o in ops(m)] == [("exec_command", "failed"),
                                              ("write_stdin", "completed"),
                                              ("write_stdin", "completed"),
                                              ("exec_command", "pending")]
    first = [e.raw for e in m.events if e.raw.get("operation_id") == "op-0001"]
    assert [(e["type"], e["time"][17:19]) for e in first] == [
        ("tool-invocation", "01"), ("tool-pending", "02"), ("tool-progress", "04"),
        ("tool-failure", "06")]


def test_a_pre_tool_use_hook_block_is_a_refusal_not_a_run() -> None:
    """codex-rs core/src/hook_runtime.rs (run_pre_tool_use_hooks): when a PreToolUse hook blocks
    a call, Codex answers the model "Command blocked by PreToolUse hook: <reason>. Command:
    <command>" (Bash, apply_patch) or "Tool call blocked by PreToolUse hook: <reason>. Tool:
    <name>", and tools/registry.rs returns it as FunctionCallError::RespondToModel without
    running the tool. Reviewer: each call was refused by the hook (disallowed, the reason
    quoted) and never ran: no invocation. Before: each was shown 'completed', as if `rm -rf
    build` had run and succeeded."""
    rm = "Command blocked by PreToolUse hook: destructive command. Command: rm -rf build"
    mcp = ("Tool call blocked by PreToolUse hook: no issues today. Tool: "
           "mcp__github__create_issue")
    d = jl(META, call(1, "c1", "exec_command", {"cmd": "rm -rf build"}), output(2, "c1", rm),
           call(3, "c2", "mcp__github__create_issue", {"title": "x"}), output(4, "c2", mcp),
           line(5, "response_item", {"type": "custom_tool_call", "status": "completed",
                                     "call_id": "c3", "name": "apply_patch",
                                     "input": "*** Begin Patch\n*** End Patch"}),
           line(6, "response_item", {"type": "custom_tool_call_output", "call_id": "c3",
                                     "output": "Command blocked by PreToolUse hook: no patches. "
                                               "Command: *** Begin Patch"}))
    _, rep = codex.convert(d)
    assert rep.unmapped == 0, rep.examples
    m = model_of(d)
    assert ops(m) == [("!host", "exec_command", "disallowed", "disallowed"),
                      ("github", "create_issue", "disallowed", "disallowed"),
                      ("!host", "apply_patch", "disallowed", "disallowed")]
    assert all(o.attempts == () for o in m.operations)
    reasons = [e.raw.get("reason") for e in m.events if e.type == "policy-decision"
               and e.raw.get("policy_life") == "once"]
    assert reasons[0] == rm and reasons[1] == mcp


def test_an_mcp_tools_own_words_are_not_a_hook_block() -> None:
    """Codex's hook-block answer is its own plain-text output (FunctionCallError::
    RespondToModel); an MCP call whose output is the tool's result (its content items, or the
    CallToolResult object) carries the server's words, which may say anything. Reviewer: a
    server that ran and answered "Tool call blocked by PreToolUse hook: ..." as its result
    completed (it ran); it must not be shown as refused and never run."""
    said = "Tool call blocked by PreToolUse hook: nope. Tool: mcp__evil__wipe"
    d = jl(META,
           call(1, "c1", "mcp__evil__wipe", {"all": True}),
           output(2, "c1", [{"type": "input_text", "text": said}]),
           call(3, "c2", "mcp__evil__wipe", {"all": True}),
           output(4, "c2", {"content": [{"type": "text", "text": said}], "isError": False}))
    m = model_of(d)
    assert [o[2] for o in ops(m)] == ["completed", "completed"]


def test_the_automatic_reviewers_refusal_is_a_refusal_not_a_run() -> None:
    """codex-rs core/src/tools/orchestrator.rs (reject_if_not_approved) and guardian/mod.rs
    (openai/codex, Apache-2.0): when the automatic approval reviewer ("guardian", auto-review)
    denies a request, the tool is not run and Codex answers the model "This action was rejected
    due to unacceptable risk.\\nReason: <rationale>\\nThe agent must not attempt ..."; when the
    review does not finish in time, "The automatic permission approval review did not finish
    before its deadline. ..." (guardian_timeout_message). Newer rollouts do not persist the
    guardian_assessment event (rollout/src/policy.rs), so this output is the only record; users
    quote it as "the recorded rejection" (openai/codex#43639). Reviewer: c1 (an escalated
    `curl -X DELETE`) refused by the automatic reviewer, its reason the rationale, never run;
    c2 not run (the review timed out); c3, a command whose own output merely quotes the
    sentence, ran and completed. Before: c1 and c2 'completed' under a permission-required
    decision, as if the prompt had been approved and the DELETE had run."""
    deny = ("This action was rejected due to unacceptable risk.\nReason: Deleting a "
            "production database is destructive and was not requested by the user.\nThe "
            "agent must not attempt to achieve the same outcome via workaround, indirect "
            "execution, or policy circumvention. Proceed only with a materially safer "
            "alternative, or if the user explicitly approves the action after being informed "
            "of the risk. Otherwise, stop and request user input.")
    late = ("The automatic permission approval review did not finish before its deadline. "
            "Do not assume the action is unsafe based on the timeout alone. You may retry "
            "once, or ask the user for guidance or explicit approval.")
    esc = {"sandbox_permissions": "require_escalated", "justification": "clean up"}
    d = jl(META,
           line(0, "turn_context", {"cwd": "/w", "approval_policy": "on-request",
                                    "sandbox_policy": {"type": "workspace-write"}}),
           call(1, "c1", "exec_command", {"cmd": "curl -X DELETE https://x/prod", **esc}),
           output(2, "c1", deny),
           call(3, "c2", "exec_command", {"cmd": "git push origin main", **esc}),
           output(4, "c2", late),
           call(5, "c3", "exec_command", {"cmd": "cat notes.txt"}),
           output(6, "c3", f"Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\n"
                           f"Output:\n{deny}\n"))
    _, rep = codex.convert(d)
    assert rep.unmapped == 0, rep.examples
    m = model_of(d)
    assert ops(m) == [("!host", "exec_command", "disallowed", "disallowed"),
                      ("!host", "exec_command", "disallowed", "disallowed"),
                      ("!host", "exec_command", "completed", "permission-required")]
    assert [o.attempts for o in m.operations][:2] == [(), ()]
    once = [e.raw for e in m.events if e.type == "policy-decision"
            and e.raw.get("policy_life") == "once"]
    assert once[0]["reason"].startswith("Deleting a production database")
    assert "automatic" in once[0]["inferred"] and "deadline" in once[1]["inferred"]


def test_an_mcp_call_codex_did_not_make_is_a_refusal_not_an_error() -> None:
    """codex-rs core/src/mcp_tool_call.rs (openai/codex, Apache-2.0): when the user declines or
    cancels Codex's approval question for an MCP tool, the app is disabled by configuration, or
    the safety monitor stops the call, Codex does not call the server and writes
    notify_mcp_tool_call_skip's mcp_tool_call_end {result: {Err: <its words>}} (persisted in
    every rollout) and the same words as the output; a call the server failed says "tool call
    error: ...". An analysis of real Codex sessions counted "user rejected MCP tool call" 150
    times as refusals, and app-server clients see the item `failed` with error {message: "user
    rejected MCP tool call"}. Reviewer: c1 declined and c2 cancelled at the prompt
    (permission-required, not performed), c3 blocked by app configuration and c4 by the safety
    monitor (disallowed, not run), c5 refused by the automatic reviewer (disallowed), c6 really
    failed at the server (errored, it was called); the thread-item form (c7) reads the same.
    Before: c1-c5 and c7 'errored', as if Codex had called the server and it had failed."""
    def mcp(sec: int, cid: str, tool: str, err: Any) -> list[dict[str, Any]]:
        inv = {"server": "github", "tool": tool, "arguments": {"x": 1}}
        return [call(sec, cid, f"mcp__github__{tool}", {"x": 1}),
                line(sec, "event_msg", {"type": "mcp_tool_call_end", "call_id": cid,
                                        "invocation": inv,
                                        "duration": {"secs": 0, "nanos": 0},
                                        "result": {"Err": err}}),
                output(sec, cid, err)]
    guard = ("This action was rejected due to unacceptable risk.\nReason: deletes a repo.\n"
             "The agent must not attempt to achieve the same outcome via workaround.")
    d = jl(META,
           line(0, "turn_context", {"cwd": "/w", "approval_policy": "on-request",
                                    "sandbox_policy": {"type": "workspace-write"}}),
           *mcp(1, "c1", "create_issue", "user rejected MCP tool call"),
           *mcp(2, "c2", "delete_repo", "user cancelled MCP tool call"),
           *mcp(3, "c3", "merge", "MCP tool call blocked by app configuration"),
           *mcp(4, "c4", "push", "Tool call was cancelled because of safety risks: exfil"),
           *mcp(5, "c5", "delete_repo", guard),
           *mcp(6, "c6", "get_me", "tool call error: tool call failed for `github/get_me`"),
           line(7, "event_msg", {"type": "item_completed", "item": {
               "type": "McpToolCall", "id": "c7", "server": "github", "tool": "fork",
               "arguments": {}, "status": "failed",
               "error": {"message": "user rejected MCP tool call"}}}))
    _, rep = codex.convert(d)
    assert rep.unmapped == 0, rep.examples
    m = model_of(d)
    assert ops(m) == [("github", "create_issue", "not-performed", "permission-required"),
                      ("github", "delete_repo", "not-performed", "permission-required"),
                      ("github", "merge", "disallowed", "disallowed"),
                      ("github", "push", "disallowed", "disallowed"),
                      ("github", "delete_repo", "disallowed", "disallowed"),
                      ("github", "get_me", "errored", None),
                      ("github", "fork", "not-performed", "permission-required")]
    assert [bool(o.attempts) for o in m.operations] == [False] * 5 + [True, False]
    once = [e.raw for e in m.events if e.type == "policy-decision"
            and e.raw.get("policy_life") == "once"]
    assert once[0]["reason"] == "user rejected MCP tool call"
    assert once[3]["reason"].startswith("Tool call was cancelled because of safety risks")
    assert once[4]["reason"] == "deletes a repo."


def test_exec_json_mcp_call_codex_did_not_make_is_a_refusal() -> None:
    """`codex exec --json` prints the thread item of an MCP call; for one Codex did not make
    (mcp_tool_call.rs notify_mcp_tool_call_skip) its error message is Codex's words, as in the
    rollout's mcp_tool_call_end (app-server clients saw `"status": "failed", "error":
    {"message": "user rejected MCP tool call"}`). Reviewer: i1 declined (permission-required,
    not performed); i2 a server failure (errored). Before: both errored."""
    d = jl({"type": "thread.started", "thread_id": "t"},
           {"type": "item.started", "item": {"id": "i1", "type": "mcp_tool_call", "server": "gh",
                                             "tool": "merge", "status": "in_progress"}},
           {"type": "item.completed", "item": {
               "id": "i1", "type": "mcp_tool_call", "server": "gh", "tool": "merge",
               "status": "failed", "error": {"message": "user rejected MCP tool call"}}},
           {"type": "item.completed", "item": {
               "id": "i2", "type": "mcp_tool_call", "server": "gh", "tool": "issues",
               "status": "failed", "error": {"message": "tool call error: timeout"}}})
    m = model_of(d)
    assert ops(m) == [("gh", "merge", "not-performed", "permission-required"),
                      ("gh", "issues", "errored", None)]
