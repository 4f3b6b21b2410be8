"""vcon-view import otlp: OpenTelemetry span dumps, OTLP/JSON exports and the coding agents'
tool log events -> tool-invocation events.

The expectations for the real samples were written by hand from the raw files, before the
importer was run on them (see SAMPLES).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
AGENTS = FIX / "agents" / "otel-genai"

# What a reviewer should see, read off the raw files by hand (before running the importer):
# (operation id, server, tool, outcome, decision, finding kinds), in time order.
#
# any-agent__OPENAI_trace.json: a {"spans": [...], "final_output": ...} dump, six spans of one
# trace. invoke_agent [any_agent] is the parent of all (context); three call_llm spans (the
# model) are ignored; two execute_tool spans are the tool calls, both status ok with
# gen_ai.tool.args and gen_ai.output recorded:
#   get_current_time {"timezone": "America/New_York"} -> {"timezone": ..., "datetime":
#   "2025-09-16T08:43:13-04:00", "is_dst": true}; then write_file {"text": "2025"} -> {}.
# No decision is recorded anywhere (a span dump has none): decision None, no finding.
#
# any-agent__LANGCHAIN_trace.json: the same task under LangChain: seven spans, four call_llm,
# one invoke_agent, the same two execute_tool spans (write_file's output is "null").
SAMPLES: dict[str, list[tuple[str, str, str, str, str | None, list[str]]]] = {
    "any-agent__OPENAI_trace.json": [
        ("op-0001", "!host", "get_current_time", "completed", None, []),
        ("op-0002", "!host", "write_file", "completed", None, []),
    ],
    "any-agent__LANGCHAIN_trace.json": [
        ("op-0001", "!host", "get_current_time", "completed", None, []),
        ("op-0002", "!host", "write_file", "completed", None, []),
    ],
}
#: Spans each sample has that are not tool calls, by kind (counted as ignored, not unmapped).
SAMPLE_IGNORED = {
    "any-agent__OPENAI_trace.json": {"call_llm": 3, "invoke_agent": 1},
    "any-agent__LANGCHAIN_trace.json": {"call_llm": 4, "invoke_agent": 1},
}
