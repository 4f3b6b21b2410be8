"""A recording with no times (an Invariant trace, a hook log, a Cursor transcript...) is
imported on a synthetic clock that gives the order only. The human reports show its times as
the viewer does, as steps, never as a time of day in 1970 that nothing happened at; the
machine formats keep the values (their derivation says "order-only")."""

from __future__ import annotations

import re
from pathlib import Path

from viewer.pipeline import open_model
from viewer.report.formats import ReportOptions
from viewer.report.html import to_html
from viewer.report.markdown import to_markdown

FIX = Path(__file__).resolve().parent / "fixtures" / "agents" / "invariant-trace"
TRACE = FIX / "explorer__trace_for_analysis.jsonl"
TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"


def test_reports_show_order_only_times_as_steps() -> None:
    # written by hand from the trace: the user's request (step 1), then get_most_recent_
    # transactions asked and answered (steps 2, 3), then send_money (steps 4, 5)
    model = open_model(str(TRACE))
    md = to_markdown(model, options=ReportOptions())
    assert "| op-0001 | 1 | step 2 | step 3 |" in md
    assert "| op-0002 | 1 | step 4 | step 5 |" in md
    html = to_html(model, ReportOptions())
    for text in (md, html):
        assert "1970-01-01" not in text and "00:00:00" not in text
    # the timeline's ruler counts whole steps, each once (from the request to the answer)
    ruler = re.findall(r">(step \d+)</text>", html)
    assert ruler == [f"step {n}" for n in range(1, 7)]


def test_the_csv_gives_steps_too() -> None:
    """The CSV has no column saying the times are synthetic: a spreadsheet of a recording
    with no times shows steps, not 1970."""
    from viewer.report.csv import to_csv

    rows = to_csv(open_model(str(TRACE))).splitlines()
    assert "1970" not in "\n".join(rows)
    assert any(",step 2,step 3," in r for r in rows) and any(",step 4,step 5," in r for r in rows)


def test_recorded_times_are_unchanged() -> None:
    model = open_model(str(TOUR))
    md = to_markdown(model, options=ReportOptions())
    assert "step " not in md and "2026-04-02T09:00:" in md


async def test_the_detail_does_not_show_a_synthetic_session_start() -> None:
    from viewer.tui.app import make_app

    # a hook log: no times; its session's start is the importers' clock
    hooks = FIX.parent / "claude-code-hooks" / "quantstats__pre_tool_use.json"
    app = make_app(str(hooks))
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        info = str(app.screen.query_one("#event-info").render())
        assert "start=(order only)" in info and "1970" not in info


def test_evidence_gives_a_dialog_turns_order_only_time_as_a_step() -> None:
    """The evidence's 'Dialog turn before it (dialog 0, …)' gave the recorded start of a turn
    the importer timed on its synthetic clock: 1970-01-01T00:00:00.000Z in a Cursor report."""
    model = open_model(str(FIX.parent / "cursor" / "agent-sessions__cursor_test-session.jsonl"))
    md = to_markdown(model, options=ReportOptions(evidence="all"))
    html = to_html(model, ReportOptions(evidence="all"))
    assert "Dialog turn before it (dialog 0, step 1)" in md
    assert "Dialog turn before it (dialog 3, step 4)" in md
    for text in (md, html):
        assert "1970-01-01" not in text and "00:00:00" not in text


def test_a_standing_decisions_order_only_time_is_a_step(tmp_path: Path) -> None:
    """The standing decisions' Time column gave rfc3339 of the synthetic clock (1970-01-01…)
    in Markdown, HTML and text, where every other time of an order-only report is a step."""
    import json
    import subprocess
    import sys

    hooks = FIX.parent / "claude-code-hooks" / "quantstats__pre_tool_use.json"
    out = tmp_path / "hooks.vcon.json"
    subprocess.run([sys.executable, "-m", "viewer", "import", "claude-code", str(hooks),
                    "-o", str(out)], check=True, capture_output=True)
    vcon = json.loads(out.read_text())
    first = vcon["events"][0]
    vcon["events"].insert(0, {
        "type": "policy-decision", "time": "1970-01-01T00:00:00.000Z", "sessions": [0],
        "operation": "tool-invocation", "server": "!host", "decision": "allowed",
        "policy_life": "standing", "reason": "permission_mode bypassPermissions"})
    assert first["time"] == "1970-01-01T00:00:00.001Z"
    out.write_text(json.dumps(vcon))
    from viewer.report.text import to_text

    model = open_model(str(out))
    assert model.standing
    md = to_markdown(model, options=ReportOptions())
    html = to_html(model, ReportOptions())
    text = to_text(model, width=200)
    for report in (md, html, text):
        assert "1970" not in report
    assert "| 0 | step 1 |" in md
