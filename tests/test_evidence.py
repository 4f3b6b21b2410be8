"""Reports that carry the evidence: provenance, per-operation quotes, gaps in words, links
from findings, and golden Markdown reports of the tour and the hostile demo.

Goldens live in tests/golden/report/ (VCON_VIEW_UPDATE_GOLDEN=1 regenerates; review the diff).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from reportkit import DEMOS, GOLDEN_MODES, HOSTILE_DEMO, check_golden, demo, golden_opts, opts

from viewer import cli
from viewer.report.csv import to_csv
from viewer.report.evidence import duration, evidence, signature_status
from viewer.report.markdown import md, to_markdown
from viewer.textsafe import UNSAFE_TABLE


@pytest.mark.parametrize("name", list(GOLDEN_MODES))
def test_golden_markdown_report(name: str) -> None:
    stem = name.removesuffix(".vcon.json")
    check_golden(f"{stem}.report.md", to_markdown(demo(name), None, golden_opts(name, "md")))


def test_tour_report_shows_the_duplicate_refund() -> None:
    out = to_markdown(demo("tour.vcon.json"), None, opts())
    section = out.split("### Operation 3\n", 1)[1].split("\n### ", 1)[0]
    assert "R-7779" in section and "R-7781" in section
    assert "came 5.9 s after the attempt became Timed Out (event 14), 5.4 s after attempt 2 " \
           "was invoked: a late answer." in section
    assert "Attempt 2 started 15.5 s after attempt 1 started, while attempt 1 was still " \
           "Timed Out." in section
    assert "Dialog turn before it (dialog 3" in section


def test_provenance_names_the_file_its_hash_and_how_the_report_was_made() -> None:
    m = demo("tour.vcon.json")
    out = to_markdown(m, None, opts())
    head = out.split("\n## ", 1)[0]
    assert f"| SHA-256 | {m.source.sha256} |" in head
    assert f"| Size | {m.source.size:,} bytes |" in head
    assert "| Made at | 2026-04-02T12:00:00Z |" in head
    assert "| Options | summary --format md --evidence findings --max-chars 2000 |" in head
    assert "| Form | unsigned |" in head
    assert "vcon-view 0.1.0" in head


def test_signature_status_is_one_helper() -> None:
    m = demo("10-signed.vcon.json")
    status = signature_status(m.source)  # viewer.signatures.describe
    assert status.startswith("signed, 1 layer: valid-signature-untrusted")
    out = to_markdown(m, None, opts())
    assert f"| Form | {md(status)} |" in out
    assert "| Signature | layer 1, signature 0: valid-signature-untrusted; RS256" in out


def test_every_finding_links_to_its_operations_section() -> None:
    out = to_markdown(demo("tour.vcon.json"), None, opts())
    findings = out.split("\n## Findings\n", 1)[1].split("\n## Diagnostics\n", 1)[0]
    lines = [line for line in findings.splitlines() if line.startswith("- **")]
    assert lines and all(re.search(r" → \[evidence\]\(#operation-\d+\)$", x) for x in lines)
    for n in re.findall(r"#operation-(\d+)", findings):
        assert f"\n### Operation {n}\n" in out


def test_evidence_modes() -> None:
    m = demo("tour.vcon.json")
    with_findings = {op.operation_id for op in m.operations if op.flags}
    ev = evidence(m, opts())
    assert {e.operation.operation_id for e in ev.operations} <= {
        f.operation_id for f in m.findings}
    assert len(evidence(m, opts(evidence="all")).operations) == len(m.operations)
    assert evidence(m, opts(evidence="none")).operations == ()
    none = to_markdown(m, None, opts(evidence="none"))
    assert "### Operation" not in none and "Not quoted (--evidence none)." in none
    assert "](#operation-" not in none  # no link to a section that is not there
    assert with_findings


def test_quotes_are_cut_at_the_stated_length_with_the_full_length() -> None:
    out = to_markdown(demo("tour.vcon.json"), None, opts(max_chars=40))
    assert "(first 40 of 146 characters)" in out
    assert "R-7779" not in out.split("## Evidence", 1)[1]  # cut before the refund id


def test_attempt_rows_carry_every_flag() -> None:
    m = demo("tour.vcon.json")
    rows = [r for r in csv.DictReader(io.StringIO(to_csv(m))) if r["operation_id"] == "op-09f5"]
    assert rows[0]["flags"] == "decision-after-invocation"
    md = to_markdown(m, None, opts())
    attempts = md.split("### Attempts", 1)[1].split("\n## ", 1)[0]
    row = next(x for x in attempts.splitlines() if x.startswith("| op-09f5 |"))
    assert row.rstrip(" |").endswith("decision-after-invocation")
    for op in m.operations:  # one vocabulary: every attempt's flag is a finding of it
        for a in op.attempts:
            kinds = {f.kind for f in m.findings
                     if f.operation_id == op.operation_id and f.attempt == a.number}
            assert a.flags <= kinds


def test_hostile_demo_report_is_inert() -> None:
    out = to_markdown(demo(HOSTILE_DEMO), None, opts(evidence="all"))
    assert not {c for c in out if ord(c) in UNSAFE_TABLE and c != "\n"}
    for line in out.splitlines():
        line = re.sub(r" → \[evidence\]\(#operation-\d+\)$", "", line.removeprefix("> "))
        assert not re.search(r"(?<!\\)[\[\]<>`&]", line), line
        assert not re.search(r"(?i)\b(?:https?|ftp|javascript|data):(?!\])", line), line
        assert not re.search(r"(?i)(?<![\w.\\])www\.", line), line


def test_duration_in_words() -> None:
    assert duration(0.25) == "250 ms"
    assert duration(15.0) == "15 s" and duration(5.94) == "5.9 s"
    assert duration(123) == "2 min 3 s" and duration(3725) == "1 h 2 min"
    assert duration(-2) == "minus 2 s"


def test_source_date_epoch_makes_the_cli_report_byte_stable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1775131200")
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    tour = str(DEMOS / "tour.vcon.json")
    assert cli.main(["summary", tour, "-f", "md", "-o", str(a)]) == 0
    assert cli.main(["summary", tour, "-f", "md", "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()
    assert "| Made at | 2026-04-02T12:00:00Z |" in a.read_text()
