"""scripts/screenshots.py still runs and writes every screenshot the README embeds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "screenshots.py"

#: file → text that must be on that screen (SVG text uses &#160; for spaces: single words only)
EXPECTED = {
    "timeline.svg": "op-07aa",
    "detail-json.svg": "jsonrpc",
    "diff.svg": "op-03f1",
    "findings.svg": "policy-violation",
    "help.svg": "filter",
    "filter.svg": "flag:late",
    "context.svg": "op-03f1",
    "subagent.svg": "↳",
    "claude-code.svg": "derived&#160;from&#160;96&#160;lines",
    "claude-code-context.svg": "sub-agent&#160;afb92ff",
    "timeline-light.svg": "op-12d6",
    "timeline-high-contrast.svg": "op-12d6",
    "timeline-colorblind.svg": "op-12d6",
    "detail-light.svg": "jsonrpc",
    "detail-high-contrast.svg": "jsonrpc",
    "detail-colorblind.svg": "jsonrpc",
}


def test_screenshot_script_writes_every_screen(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    written = {p.name for p in tmp_path.glob("*.svg")}
    assert written == set(EXPECTED)
    for name, text in EXPECTED.items():
        svg = (tmp_path / name).read_text(encoding="utf-8")
        assert svg.lstrip().startswith("<svg"), name
        assert text in svg, f"{name} lacks {text!r}"
    # the light theme really is light: its background is not the dark default's
    assert (tmp_path / "timeline-light.svg").read_text() != (tmp_path / "timeline.svg").read_text()
    assert "#ffffff" in (tmp_path / "timeline-light.svg").read_text().lower()
    # the committed screenshots are the script's output (regenerate after a UI change)
    for name in EXPECTED:
        committed = ROOT / "screenshots" / name
        assert committed.exists(), f"screenshots/{name} missing: run {SCRIPT.name}"


def test_script_rejects_unknown_shot_names() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--out", "/nonexistent", "nope"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "unknown shot(s): nope" in done.stderr
