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
    the command's own output. Reviewer: a call whose process is still running returned
    normally (completed), even when the program printed 'exit code: 2'; a call whose header
    says 'Process exited with code 1' failed. Before: the program's words made it a failure."""
    running = ("Chunk ID: ab12\nWall time: 10.0 seconds\nProcess running with session ID 5\n"
               "Original token count: 9\nOutput:\nstep 1\nexit code: 2\n")
    exited = ("Chunk ID: cd34\nWall time: 1.0 seconds\nProcess exited with code 1\n"
              "Original token count: 3\nOutput:\nboom\n")
    m = model_of(jl(META, call(1, "c1", "exec_command", {"cmd": "make -k"}),
                    output(2, "c1", running),
                    call(3, "c2", "exec_command", {"cmd": "false"}), output(4, "c2", exited)))
    assert ops(m) == [("!host", "exec_command", "completed", None),
                      ("!host", "exec_command", "failed", None)]
