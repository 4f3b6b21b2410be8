"""The export-format registry: one table for `summary --format` and the export dialog."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from viewer import cli
from viewer.report.formats import (
    FORMATS,
    PIECE_LINES,
    ExportFormat,
    ReportOptions,
    ReportTimeError,
    as_bytes,
    line_pieces,
    register,
    report_time,
)
from viewer.tui.export import formats as dialog_names

TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"


def test_summary_choices_and_dialog_come_from_the_registry(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["summary", str(TOUR), "--format", "no-such-format"]) == 2
    offered = capsys.readouterr().err.split("choose from", 1)[1]
    assert tuple(re.findall(r"'([^']+)'", offered)) == tuple(FORMATS)
    assert set(dialog_names()) == {f.name for f in FORMATS.values() if f.in_dialog}
    assert "text" not in dialog_names() and "md" in dialog_names()


def test_a_registered_format_is_usable_from_summary(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[ReportOptions] = []

    def render(model: object, opts: ReportOptions) -> str:
        seen.append(opts)
        return f"ops={len(model.operations)}\n"  # type: ignore[attr-defined]

    monkeypatch.setitem(FORMATS, "probe", ExportFormat("probe", "txt", "text/plain", "t",
                                                       render))
    out = tmp_path / "o.txt"
    assert cli.main(["summary", str(TOUR), "-f", "probe", "--evidence", "all", "-o",
                     str(out)]) == 0
    assert out.read_text() == "ops=12\n"
    assert seen[0].evidence == "all"
    assert seen[0].command[:3] == ("summary", "--format", "probe")


def test_register_replaces_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("viewer.report.formats.FORMATS", dict(FORMATS))
    from viewer.report import formats as f

    fmt = ExportFormat("md", "md", "text/markdown", "other", lambda m, o: b"x")
    register(fmt)
    assert f.FORMATS["md"] is fmt
    assert as_bytes(fmt.render(None, ReportOptions())) == b"x"  # type: ignore[arg-type]
    assert as_bytes(iter([b"a", b"b"])) == b"ab"


def test_source_date_epoch_sets_the_report_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1775120400")
    assert report_time() == datetime(2026, 4, 2, 9, 0, tzinfo=UTC)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    with pytest.raises(ReportTimeError):
        report_time()


def test_bad_source_date_epoch_is_one_line_exit_2(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    assert cli.main(["summary", str(TOUR), "-f", "md"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "SOURCE_DATE_EPOCH" in err


@pytest.mark.parametrize("bad", [["--max-chars", "0"], ["--max-chars", "x"],
                                 ["--evidence", "some"], ["--format", "pdf"]])
def test_bad_report_options_are_usage_errors(bad: list[str]) -> None:
    assert cli.main(["summary", str(TOUR), *bad]) == 2


@pytest.mark.parametrize("n", [0, 1, PIECE_LINES - 1, PIECE_LINES, PIECE_LINES + 1,
                               2 * PIECE_LINES + 3])
def test_line_pieces_are_the_joined_lines_in_utf8(n: int) -> None:
    lines = [f"{i} → \ud800 é" if i % 5 else "" for i in range(n)]
    assert as_bytes(line_pieces(lines)) == "\n".join(lines).encode("utf-8", "replace")


def test_md_html_and_csv_pieces_are_the_reports() -> None:
    from viewer.pipeline import open_model
    from viewer.report.csv import to_csv
    from viewer.report.html import to_html
    from viewer.report.markdown import to_markdown

    model = open_model(str(TOUR))
    opts = ReportOptions(time=datetime(2026, 4, 2, tzinfo=UTC), evidence="all")
    assert as_bytes(FORMATS["md"].render(model, opts)) == \
        to_markdown(model, None, opts).encode("utf-8", "replace")
    assert as_bytes(FORMATS["html"].render(model, opts)) == \
        to_html(model, opts).encode("utf-8", "replace")
    assert as_bytes(FORMATS["csv"].render(model, opts)) == to_csv(model).encode("utf-8", "replace")
