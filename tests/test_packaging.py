"""What an installed vcon-view needs at run time is inside the package."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from viewer import cli

ROOT = Path(__file__).resolve().parent.parent


def test_demo_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--list"]) == 0
    names = capsys.readouterr().out.split()
    assert "tour.vcon.json" in names and "04-double-refund.vcon.json" in names


def test_demo_opens_the_named_file(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[list[str]] = []
    monkeypatch.setattr(cli, "cmd_tui", lambda argv: opened.append(list(argv)) or 0)
    assert cli.main(["demo"]) == 0
    assert cli.main(["demo", "04", "--theme", "vcon-light"]) == 0
    assert cli.main(["demo", "07"]) == 0  # not 03-mcp-2026-07-28
    assert cli.main(["demo", "double-refund"]) == 0
    assert Path(opened[0][0]).name == "tour.vcon.json"
    assert Path(opened[1][0]).name == "04-double-refund.vcon.json"
    assert opened[1][1:] == ["--theme", "vcon-light"]
    assert Path(opened[2][0]).name == "07-not-performed.vcon.json"
    assert Path(opened[3][0]).name == "04-double-refund.vcon.json"


def test_unknown_demo_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no demo named" in err


def test_wheel_carries_themes_demos_and_styles(tmp_path: Path) -> None:
    """pip builds the wheel from the design card's top-level folders."""
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
         "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for theme in ROOT.glob("themes/*.toml"):
        assert f"viewer/data/themes/{theme.name}" in names
    assert "viewer/data/demo_vcons/tour.vcon.json" in names
    assert "viewer/tui/app.tcss" in names
    packages = {n.rsplit("/", 1)[0] for n in names if n.endswith("__init__.py")}
    on_disk = {str(p.parent.relative_to(ROOT)) for p in (ROOT / "viewer").rglob("__init__.py")}
    assert on_disk <= packages, "a viewer subpackage is missing from pyproject's packages list"
