"""``vcon-view query`` and ``vcon-view report`` over a scan (issue 15).

The fleet report is pinned to ``tests/golden/fleet/`` (the checkout's path written as <ROOT>);
regenerate with ``VCON_VIEW_UPDATE_GOLDEN=1`` and review the diff. Hostile recordings (the
demo, the fixtures, and a file whose very name carries bidi and zero-width characters) go
through query and report: no raw control, bidi or zero-width character comes out.
"""

from __future__ import annotations

import io
import os
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

from viewer.cli import main
from viewer.fleet.query import run_query
from viewer.fleet.report import build, to_html, to_markdown
from viewer.fleet.scan import run_scan
from viewer.fleet.schema import TABLES
from viewer.fleet.triage import TRIAGE
from viewer.textsafe import UNSAFE_TABLE

ROOT = Path(__file__).resolve().parent.parent
DEMOS = ROOT / "demo_vcons"
BAD = ROOT / "tests" / "fixtures" / "fleet" / "bad"
GOLDEN = ROOT / "tests" / "golden" / "fleet"
UPDATE = os.environ.get("VCON_VIEW_UPDATE_GOLDEN") == "1"
SCAN_TIME = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
UNSAFE = frozenset(chr(c) for c in UNSAFE_TABLE) - {"\n"}
HOSTILE = [DEMOS / "12-hostile-content.vcon.json",
           ROOT / "tests" / "fixtures" / "hostile_content.vcon.json",
           ROOT / "tests" / "fixtures" / "report_hostile.vcon.json"]


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fleet") / "out"
    run_scan([str(DEMOS), str(BAD)], str(out), jobs=1, scan_time=SCAN_TIME)
    return out


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("hostile")
    for p in HOSTILE:
        shutil.copy(p, src / p.name)
    shutil.copy(DEMOS / "tour.vcon.json", src / "evil\u202egnp.\u200bx\x1b[2J.vcon.json")
    out = src / "out"
    run_scan([str(src)], str(out), jobs=1, scan_time=SCAN_TIME)
    return out


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.BytesIO(), io.StringIO()
    wrapper = io.TextIOWrapper(out, encoding="utf-8")
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = wrapper, err
    try:
        code = main(argv)
        wrapper.flush()
    finally:
        sys.stdout, sys.stderr = old
        wrapper.detach()
    return code, out.getvalue().decode("utf-8"), err.getvalue()


def test_views_are_the_tables(fleet: Path) -> None:
    import pyarrow.parquet as pq

    for name in TABLES:
        names, rows = run_query(str(fleet), f"select * from {name}")
        table = pq.read_table(fleet / name)
        assert names == table.column_names
        assert len(rows) == table.num_rows


def test_ndjson_and_partitions_answer_the_same(fleet: Path, tmp_path: Path) -> None:
    run_scan([str(DEMOS), str(BAD)], str(tmp_path / "nd"), jobs=2, fmt="ndjson",
             partition="date", scan_time=SCAN_TIME)
    run_scan([str(DEMOS), str(BAD)], str(tmp_path / "pp"), jobs=2, partition="date",
             scan_time=SCAN_TIME)
    for name in TABLES:
        sql = f"select * from {name} order by all"
        want = run_query(str(fleet), sql)
        assert run_query(str(tmp_path / "nd"), sql) == want, name
        assert run_query(str(tmp_path / "pp"), sql) == want, name
    md = to_markdown(build(str(fleet)))
    assert to_markdown(build(str(tmp_path / "nd"))).replace(
        str(tmp_path / "nd"), "X") == md.replace(str(fleet), "X")


@pytest.mark.parametrize("name", list(TRIAGE))
def test_triage_queries_run(fleet: Path, name: str) -> None:
    code, out, err = run(["query", str(fleet), TRIAGE[name][1]])
    assert code == 0, err
    assert out.rstrip().endswith(("row)", "rows)"))


def test_query_formats_and_errors(fleet: Path, tmp_path: Path) -> None:
    sql = "select kind, count(*) as n from findings group by all order by n desc, kind"
    code, table, _ = run(["query", str(fleet), sql])
    assert code == 0 and table.splitlines()[0].split() == ["kind", "n"]
    assert "retry" in table and "(10 rows)" in table
    code, js, _ = run(["query", str(fleet), sql, "--format", "json"])
    doc = orjson.loads(js)
    assert doc[0] == {"kind": "permission-inferred", "n": 8}
    code, csv, _ = run(["query", str(fleet), sql, "--format", "csv"])
    assert csv.splitlines()[:2] == ["kind,n", "permission-inferred,8"]
    code, _, err = run(["query", str(fleet), "select nope from vcons"])
    assert code == 2 and err.startswith("vcon-view: query: Binder Error") and err.count("\n") == 1
    (tmp_path / "empty").mkdir()
    code, _, err = run(["query", str(tmp_path / "empty"), "select 1"])
    assert code == 2 and "not a finished scan" in err


def _assert_clean(text: str, where: str) -> None:
    bad = {f"U+{ord(c):04X}" for c in text if c in UNSAFE}
    assert not bad, f"{where}: raw {sorted(bad)}"


def test_hostile_through_query_and_report(hostile: Path) -> None:
    _, rows = run_query(str(hostile), "select * from vcons")
    assert any("\u202e" in (r[0] or "") or "%E2%80%AE" in (r[0] or "") for r in rows)
    for name in TABLES:
        for fmt in ("table", "csv", "json"):
            code, out, err = run(["query", str(hostile), f"select * from {name}",
                                  "--format", fmt, "--width", "10000"])
            assert code == 0, err
            _assert_clean(out, f"query {name} {fmt}")
    _, out, _ = run(["query", str(hostile), "select server, tool, message from findings "
                     "union all select pointer, code, message from diagnostics"])
    _assert_clean(out, "query")
    doc = build(str(hostile))
    md, page = to_markdown(doc), to_html(doc)
    _assert_clean(md, "report md")
    _assert_clean(page, "report html")
    assert "\\u202e" in md and "\\u202e" in page  # the file's name, escaped visibly
    assert "<script" not in page.lower() and "href" not in page.lower()


def test_report_period_and_output_file(fleet: Path, tmp_path: Path) -> None:
    code, out, err = run(["report", str(fleet), "--since", "2026-03-01",
                          "--until", "2026-03-31"])
    assert code == 0, err
    assert "Period: 2026-03-01 to 2026-03-31" in out
    assert "tour.vcon.json" not in out and "04-double-refund" in out
    assert run(["report", str(fleet), "--since", "2026-04-01", "--until", "2026-03-01"])[0] == 2
    assert run(["report", str(fleet), "--since", "March"])[0] == 2
    code, _, _ = run(["report", str(fleet), "-o", str(tmp_path / "fleet.html")])
    assert code == 0 and (tmp_path / "fleet.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_golden_fleet_report(fleet: Path, fmt: str) -> None:
    doc = build(str(fleet))
    text = to_html(doc) if fmt == "html" else to_markdown(doc)
    text = text.replace(str(ROOT), "<ROOT>")
    path = GOLDEN / f"report.{fmt}"
    if UPDATE or not path.exists():
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
