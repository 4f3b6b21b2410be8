"""The HTML timeline's ruler: each tick's label names a different time, so a reader can tell
them apart (README, *Reports*). A Codex session whose every event has one recorded time drew
nine ticks all labelled '+0s'; a session of a few seconds gave '+0s +0s +1s +1s...'."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import orjson

from viewer.load import load_bytes
from viewer.model.build import build_model
from viewer.pipeline import open_model
from viewer.report.formats import ReportOptions
from viewer.report.html import to_html

ROOT = Path(__file__).resolve().parent
CODEX = ROOT / "fixtures" / "agents" / "codex-rollout" / "agent-sessions__codex_small.jsonl"
TOUR = ROOT.parent / "demo_vcons" / "tour.vcon.json"


def _labels(page: str) -> list[str]:
    svg = page.split('<svg class="tl"', 1)[1].split("</svg>", 1)[0]
    return re.findall(r'<text x="[\d.]+" y="\d+" fill="[^"]+" text-anchor="\w+">([^<]+)</text>',
                      svg)


def test_one_recorded_time_draws_one_label() -> None:
    labels = _labels(to_html(open_model(str(CODEX)), ReportOptions()))
    assert labels == ["10:48:56"], labels


def test_a_short_session_has_distinct_labels() -> None:
    vcon = orjson.loads(TOUR.read_bytes())
    times = [e["time"] for e in vcon["events"] if "time" in e]
    t0 = min(datetime.fromisoformat(t) for t in times)

    def squeeze(t: str) -> str:  # the tour's minute and more pressed into a tenth of a second
        return (t0 + (datetime.fromisoformat(t) - t0) / 1000).isoformat()

    for item in (*vcon["events"], *vcon.get("dialog", ())):
        for key in ("time", "start"):
            if isinstance(item.get(key), str):
                item[key] = squeeze(item[key])
    m = build_model(load_bytes(orjson.dumps(vcon), name="short.vcon.json"))
    labels = _labels(to_html(m, ReportOptions()))
    assert len(labels) == 9, labels
    assert len(set(labels)) == len(labels), labels


def test_a_diagnostic_message_is_given_whole_as_in_markdown() -> None:
    """The derived-events diagnostic of a long path was cut in the HTML report ('…(323
    characters)') while the Markdown report gave it whole: the same length in both."""
    from viewer.report.markdown import to_markdown

    m = open_model(str(CODEX))
    msg = next(d.message for d in m.diagnostics if d.code == "derived-events")
    assert 300 < len(msg) < 1000
    page = to_html(m, ReportOptions())
    assert "writes the vCon)</td>" in page
    assert "writes the vCon)" in to_markdown(m, options=ReportOptions())



def test_the_timeline_heading_says_what_its_rows_give() -> None:
    """The timeline's heading read 'operation · tool @ server' above rows that give the id and
    the tool (the server is in the operations table: an MCP server's URL would not fit)."""
    chat = ROOT / "fixtures" / "agents" / "claude-code-transcript"
    chat = chat / "attio-mcp-server__logs_chat.json"
    page = to_html(open_model(str(chat)), ReportOptions())
    assert "@ server" not in page
    assert ">operation · tool</text>" in page
    assert ">op-0003  search-records</text>" in page
