"""``vcon-view check``'s output lives in viewer.report.check: a registry of its formats, and
goldens of the text and JSON it prints (made before the move out of cli.py, byte for byte)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from viewer.cli import main
from viewer.report.check import CHECK_FORMATS, CheckOutcome, check_lines

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
GOLDEN = ROOT / "tests" / "golden" / "report"
UPDATE = os.environ.get("VCON_VIEW_UPDATE_GOLDEN") == "1"

#: golden name -> the check command's arguments (the file first, relative to the checkout)
CASES: dict[str, list[str]] = {
    "tour.check.txt": [str(Path("demo_vcons") / "tour.vcon.json")],
    "conformance.check.txt": [
        str(Path("demo_vcons") / "11-conformance-errors.vcon.json"), "--fail-on", "all"],
    "conformance.check.json": [
        str(Path("demo_vcons") / "11-conformance-errors.vcon.json"), "--format", "json",
        "--fail-on", "all"],
    "critical.check.txt": [
        str(Path("tests/fixtures") / "report_critical.vcon.json"), "--ignore-critical",
        "--require-signature"],
    "critical.check.json": [
        str(Path("tests/fixtures") / "report_critical.vcon.json"), "--ignore-critical",
        "--require-signature", "--format", "json"],
    "hostile.check.txt": [str(Path("tests/fixtures") / "report_hostile.vcon.json")],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_output_matches_its_golden(name: str, monkeypatch: pytest.MonkeyPatch,
                                         capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    monkeypatch.chdir(ROOT)  # the JSON names the file as given
    status = main(["check", *CASES[name]])
    out = capsysbinary.readouterr().out
    assert out.rstrip().endswith((f"-> exit {status}".encode(), b"}"))
    path = GOLDEN / name
    if UPDATE:
        path.write_bytes(out)
    assert out == path.read_bytes()


def offered_formats(command: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, ...]:
    """The --format choices the command's usage error offers a user who names a wrong one."""
    assert main([command, str(ROOT / "demo_vcons" / "tour.vcon.json"),
                 "--format", "no-such-format"]) == 2
    err = capsys.readouterr().err
    return tuple(re.findall(r"'([^']+)'", err.split("choose from", 1)[1]))


def test_check_formats_are_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    assert offered_formats("check", capsys) == tuple(CHECK_FORMATS) == ("text", "json")


def test_a_registered_check_format_is_a_choice(monkeypatch: pytest.MonkeyPatch,
                                               capsysbinary: pytest.CaptureFixture[bytes]
                                               ) -> None:
    seen: list[CheckOutcome] = []

    def tally(model, outcome: CheckOutcome) -> str:
        seen.append(outcome)
        return f"{len(check_lines(model))} lines, exit {outcome.status}\n"

    monkeypatch.setitem(CHECK_FORMATS, "tally", tally)
    small = str(Path("tests/fixtures") / "report_small.vcon.json")
    assert main(["check", small, "--format", "tally", "--fail-on", "all"]) == 1
    assert capsysbinary.readouterr().out.endswith(b" lines, exit 1\n")
    assert seen[0].fail_on and seen[0].status == 1 and seen[0].unmet is None
