"""Hostile content: recorded text crafted to attack whoever reads it (issue 6).

``tests/fixtures/hostile_content.vcon.json`` carries ANSI CSI and OSC sequences (OSC 52 clipboard
writes, OSC 8 links, title changes), C0 and C1 controls, carriage returns and backspaces, bidi
overrides and zero-width characters, Rich console markup and a very long line in every place a
vCon holds text: tool bodies (json, none and base64url), reasons, tool and server names, party
names, attachment filenames, operation_ids and values quoted in diagnostics. In every export
none of it may act: it shows escaped, visibly. The TUI's own Pilot tests cover its rendering.

Regenerate the fixture with ``.venv/bin/python -m tests.test_hostile``.
"""

from __future__ import annotations

import base64
import csv
import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from rich.console import Console

from tests.modelkit import once, standing, t, tool, vcon
from viewer.load import load_path
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.report.csv import to_csv
from viewer.report.markdown import to_markdown
from viewer.report.summary import to_json
from viewer.report.text import render_text, to_text
from viewer.textsafe import UNSAFE_TABLE, safe

FIXTURE = Path(__file__).parent / "fixtures" / "hostile_content.vcon.json"

#: name -> hostile string. Each must be neutralised wherever it appears.
HOSTILE: dict[str, str] = {
    "csi_clear": "\x1b[2J\x1b[3J\x1b[Hscreen cleared",
    "csi_sgr": "\x1b[31;1;5mblinking red\x1b[0m",
    "osc52": "\x1b]52;c;cm0gLXJmIH4vKgo=\x07copied to your clipboard",
    "osc52_st": "\x1b]52;p;ZWNobyBwd25lZAo=\x1b\\primary selection",
    "osc8": "\x1b]8;;https://evil.example/x\x1b\\click me\x1b]8;;\x1b\\",
    "osc_title": "\x1b]0;sudo password please\x07",
    "dcs": "\x1bP+q544e\x1b\\",
    "c1_csi": "\x9b2J\x9d52;c;AAAA\x9c c1 controls",
    "c0": "nul\x00 bell\x07 vt\x0b ff\x0c del\x7f",
    "cr": "approved\rDENIED  ",
    "backspace": "rm -rf /\b\b\b\b\b\b\b\bls -la   ",
    "bidi": "invoice\u202etxt.exe\u202c and \u2066isolate\u2069 \u200fRLM",
    "zero_width": "pay\u200bpal\u200c\u200d\u2060\ufeff.com\u00ad",
    "rich_markup": "[bold red]ALERT[/] [link=https://evil.example]login[/link] "
                   "[@click=app.quit]quit[/] [on red]:warning:[/]",
    "textual_markup": "$accent [b]$text[/b] \\[escaped] [/]",
    "line_sep": "line\u2028separator\u2029paragraph\u0085nel",
    "formula": "=HYPERLINK(\"https://evil.example\",\"x\")",
}
LONG = "L" * 200_000  # a very long line
_UNSAFE = frozenset(chr(c) for c in UNSAFE_TABLE)
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def hostile_vcon() -> dict[str, Any]:
    """A vCon with every hostile string in every place that holds text."""
    names = list(HOSTILE)
    all_text = " | ".join(HOSTILE.values())
    events: list[dict[str, Any]] = [
        standing(0, "disallowed", tool_name=HOSTILE["osc8"], server=HOSTILE["bidi"],
                 reason=all_text),
    ]
    at = 1.0
    for i, name in enumerate(names):
        op = f"op-{name}-{HOSTILE[name]}"
        h = HOSTILE[name]
        events += [
            once(at, "permission-required", op=op, server=h, tool=h, reason=h),
            tool("tool-invocation", at + 0.1, op=op, server=h, tool=h,
                 body={h: [h, {"nested": h}]}),
            tool("tool-progress", at + 0.2, op=op, body=h, encoding="none",
                 mediatype="text/plain"),
            tool("tool-result" if i % 2 else "tool-failure", at + 0.3, op=op,
                 body=base64.urlsafe_b64encode(h.encode()).decode().rstrip("="),
                 encoding="base64url", mediatype=h),
            # a wrong value quoted in a diagnostic message
            tool("tool-progress", at + 0.4, op=op, encoding=h, party=h, attempt=h),
        ]
        at += 1
    events.append(tool("tool-invocation", at, op="op-long-" + LONG[:5000], tool=LONG,
                       body=LONG, encoding="none", mediatype="text/plain"))
    events.append({"type": HOSTILE["osc52"], "time": t(at + 1), "note": all_text})
    events.append(tool("tool-result", at + 2, op="op-time", time=HOSTILE["csi_clear"]))
    return vcon(
        events,
        subject=all_text,
        uuid=HOSTILE["osc_title"],
        extensions=["tool-invocation", HOSTILE["c1_csi"]],
        parties=[{"name": h, "role": h} for h in HOSTILE.values()],
        attachments=[{"filename": h, "purpose": h, "body": h, "encoding": "none",
                      "mediatype": "text/plain"} for h in HOSTILE.values()],
    )


def fixture_bytes() -> bytes:
    return orjson.dumps(hostile_vcon(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


@pytest.fixture(scope="module")
def model() -> Model:
    return build_model(load_path(str(FIXTURE)))


def _bad(text: str, allow: str = "\n") -> set[str]:
    return {c for c in set(text) & _UNSAFE if c not in allow}


def test_fixture_is_current() -> None:
    assert FIXTURE.read_bytes() == fixture_bytes(), "run: .venv/bin/python -m tests.test_hostile"


def test_fixture_reaches_every_place(model: Model) -> None:
    assert len(model.operations) == len(HOSTILE) + 2
    assert {op.server for op in model.operations} >= set(HOSTILE.values())
    assert model.standing[0].reason is not None and HOSTILE["osc52"] in model.standing[0].reason
    codes = {d.code for d in model.diagnostics}
    assert {"invalid-value", "invalid-type", "time-unparsable"} <= codes


# --- the summary JSON: exact values, escaped bytes ----


def test_json_export_escapes_every_hostile_character_and_keeps_values_exact(model: Model) -> None:
    raw = to_json(model)
    text = raw.decode("utf-8")
    assert _bad(text) == set()
    assert "\\u001b" in text and "\\u202e" in text and "\\u009b" in text
    doc = orjson.loads(raw)
    ids = {op["operation_id"] for op in doc["operations"]}
    for name, h in HOSTILE.items():
        assert f"op-{name}-{h}" in ids  # scripts can still match the recorded value exactly
    assert doc["standing_decisions"][0]["reason"] == model.standing[0].reason


# --- Markdown: inert text ----


def test_markdown_export_is_inert(model: Model) -> None:
    md = to_markdown(model)
    assert _bad(md) == set()
    for line in md.splitlines():
        if line.startswith("|"):  # a hostile value never adds a cell or ends a row
            assert len(re.findall(r"(?<!\\)\|", line)) in (3, 8, 11, 12), line[:200]
    assert "[link=" not in md.replace("\\[link=", "")
    assert "<" not in md.replace("\\<", "")
    assert "\\\\x1b\\]52" in md  # the OSC 52 shows, visibly escaped


# --- CSV: cells inert for spreadsheets ----


def test_csv_export_is_inert(model: Model) -> None:
    text = to_csv(model)
    assert _bad(text.replace("\r\n", "\n")) == set()
    csv.field_size_limit(sys.maxsize)  # the 200,000-character tool name is one cell
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 1 + sum(max(1, len(op.attempts)) for op in model.operations)
    for row in rows:
        assert len(row) == len(rows[0])
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@")), cell[:80]
    servers = {r[2] for r in rows[1:]}
    assert safe(HOSTILE["osc52"]) in servers
    assert "'" + safe(HOSTILE["formula"]) in servers


# --- the terminal: only vcon-view's own styling reaches it ----


def _terminal_output(model: Model, color: bool) -> str:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, color_system="truecolor" if color else None,
                      width=140, highlight=False, emoji=False, legacy_windows=False)
    console.print(render_text(model))
    return buf.getvalue()


@pytest.mark.parametrize("color", [True, False])
def test_text_export_sends_no_escape_of_the_input_to_the_terminal(model: Model,
                                                                  color: bool) -> None:
    out = _terminal_output(model, color)
    plain = _SGR.sub("", out)  # Rich's own SGR styling is the only escape allowed
    assert _bad(plain) == set(), sorted(map(hex, map(ord, _bad(plain))))
    assert "\x1b]" not in out and "\x1bP" not in out
    assert "\\x1b]52;c;" in plain  # shown, escaped
    assert "[bold red]ALERT[/]" in plain.replace("\n", "")  # markup shown as text, not applied
    assert "\\u202e" in plain


def test_plain_text_export_is_inert(model: Model) -> None:
    text = to_text(model)
    assert _bad(text) == set()
    assert "\x1b" not in text


def test_check_lines_are_inert(model: Model) -> None:
    from viewer.report.check import check_lines

    lines = check_lines(model)
    assert lines
    for line in lines:
        assert "\n" not in line and _bad(line) == set()


# --- the command line, end to end ----


@pytest.mark.parametrize(
    "args",
    [["summary"], ["summary", "-f", "json"], ["summary", "-f", "md"], ["summary", "-f", "csv"],
     ["check"], ["check", "-f", "json"]],
)
def test_cli_output_is_inert(args: list[str]) -> None:
    env = {**os.environ, "FORCE_COLOR": "1", "COLUMNS": "120"}
    env.pop("NO_COLOR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "viewer.cli", *args, str(FIXTURE)],
        capture_output=True, env=env, timeout=120, check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert proc.stderr == b""
    out = proc.stdout.decode("utf-8")
    plain = _SGR.sub("", out)
    allow = "\n\r" if "csv" in args else "\n"
    assert _bad(plain, allow) == set()
    assert "\x1b]" not in out


def test_load_error_message_about_a_hostile_path_is_one_inert_line(tmp_path: Path) -> None:
    name = tmp_path / "x\x1b]52;c;AAAA\x07\u202e.json"
    proc = subprocess.run([sys.executable, "-m", "viewer.cli", "summary", str(name)],
                          capture_output=True, timeout=60, check=False)
    assert proc.returncode == 2
    err = proc.stderr.decode("utf-8")
    assert err.count("\n") == 1 and _bad(err) == set()
    assert "no such file" in err and "\\x1b]52" in err


if __name__ == "__main__":
    FIXTURE.write_bytes(fixture_bytes())
    print(f"wrote {FIXTURE} ({FIXTURE.stat().st_size} bytes)")


def test_dialog_preview_is_one_readable_line() -> None:
    """A turn's line breaks show as ⏎ in the one-line previews (context lane and screen);
    a lone CR, escapes and bidi overrides stay escaped, visibly."""
    from viewer.tui.present import dialog_text

    d = {"type": "text", "encoding": "none", "body": "first\r\nsecond\n\nthird\rX\x1b[2J\u202e"}
    out = dialog_text(d, 200)
    assert out == "first ⏎ second ⏎  ⏎ third\\x0dX\\x1b[2J\\u202e"
    assert "\n" not in out and "\x1b" not in out
