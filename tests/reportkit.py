"""Shared by the report tests: demo models under stable names, fixed report options, goldens."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from viewer.load import load_bytes
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.report.formats import ReportOptions

ROOT = Path(__file__).resolve().parent.parent
DEMOS = ROOT / "demo_vcons"
GOLDEN = Path(__file__).resolve().parent / "golden" / "report"
#: A fixed report time and command, so goldens are byte-stable.
WHEN = datetime(2026, 4, 2, 12, 0, tzinfo=UTC)
COMMAND = ("summary", "--format", "md", "--evidence", "findings", "--max-chars", "2000")
HOSTILE_DEMO = "12-hostile-content.vcon.json"


def demo(name: str) -> Model:
    data = (DEMOS / name).read_bytes()
    return build_model(load_bytes(data, name=f"demo_vcons/{name}"))


def opts(**kw: object) -> ReportOptions:
    base: dict[str, object] = {"time": WHEN, "command": COMMAND}
    base.update(kw)
    return ReportOptions(**base)  # type: ignore[arg-type]


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("VCON_VIEW_UPDATE_GOLDEN") == "1":
        path.write_bytes(actual.encode("utf-8"))
    assert path.exists(), f"missing golden {path}; run with VCON_VIEW_UPDATE_GOLDEN=1"
    assert actual == path.read_bytes().decode("utf-8")


#: The hostile demo has no finding: its golden quotes every operation, so the hostile content
#: itself is in it.
GOLDEN_MODES = {"tour.vcon.json": "findings", HOSTILE_DEMO: "all"}


def golden_opts(name: str, fmt: str) -> ReportOptions:
    mode = GOLDEN_MODES[name]
    return opts(evidence=mode, command=("summary", "--format", fmt, "--evidence", mode,
                                        "--max-chars", "2000"))
