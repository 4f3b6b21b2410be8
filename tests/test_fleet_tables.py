"""The fleet tables' per-file function (issue 15): its rows are ``summary --format json``.

Each file is read twice: by ``vcon-view summary --format json FILE`` (the command, in-process)
and by ``viewer.fleet.tables.file_tables``; every summary value must be in the rows, flattened,
times as the same instants, through Arrow and back. A file summary refuses is one ``vcons`` row
with summary's exit status and its one-line error. On every demo, on corpus files, on six kinds
of bad file, and under the hypothesis fuzzing of ``tests/strategies.py``.
"""

from __future__ import annotations

import io
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from tests import strategies as S
from viewer import jsonenc
from viewer.cli import main
from viewer.fleet import schema
from viewer.fleet.tables import canonical_uri, file_tables

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
DEMOS = sorted(p for p in (ROOT / "demo_vcons").iterdir() if ".vcon.json" in p.name)
CORPUS = sorted(p for d in ("load", "validate") for p in (FIX / d).rglob("*") if p.is_file())
BAD = sorted((FIX / "fleet" / "bad").iterdir())
SCAN_TIME = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def run_summary(path: str) -> tuple[int, bytes, str]:
    """``vcon-view summary --format json PATH`` in-process: (status, stdout, stderr)."""
    out, err = io.BytesIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    wrapper = io.TextIOWrapper(out, encoding="utf-8")
    sys.stdout, sys.stderr = wrapper, err
    try:
        code = main(["summary", "--format", "json", path])
        wrapper.flush()
    finally:
        sys.stdout, sys.stderr = old
        wrapper.detach()
    return code, out.getvalue(), err.getvalue()


def _same_time(row_value: Any, text: str | None) -> bool:
    if text is None:
        return row_value is None
    return row_value == datetime.fromisoformat(text)


def _int64(v: int | None) -> int | None:
    return v if v is None or v <= schema.INT64_MAX else None


def assert_rows_are_summary(rows: dict[str, list[dict[str, Any]]], doc: dict[str, Any],
                            uri: str) -> None:
    """Every value of the summary document is in the rows (an independent flattening)."""
    src = doc["source"]
    assert set(rows) == set(schema.TABLES)
    for name, items in rows.items():
        cols = set(schema.column_names(name))
        for r in items:
            assert set(r) == cols, name
            assert (r["file"], r["sha256"], r["uuid"]) == (uri, src["sha256"], src["uuid"])
    (v,) = rows["vcons"]
    assert (v["status"], v["exit_status"], v["error"]) == ("read", 0, None)
    for key in ("size", "form", "gzip", "extensions", "critical", "unsupported_critical",
                "critical_override", "signed_layers"):
        assert v[key] == src[key], key
    assert len(v["signatures"]) == len(src["signatures"])
    for got, want in zip(v["signatures"], src["signatures"], strict=True):
        assert set(got) == set(want)
        assert {k: x for k, x in got.items() if k != "checked_at"} == {
            k: x for k, x in want.items() if k != "checked_at"}
        if got["time_source"] == "now":  # the clock at each reading: two readings differ
            assert abs(got["checked_at"] - datetime.fromisoformat(want["checked_at"])
                       ) < timedelta(minutes=5)
        else:
            assert _same_time(got["checked_at"], want["checked_at"])
    assert v["signature_statuses"] == sorted({g["verified"] for g in src["signatures"]})
    derived = doc.get("derived")
    assert v["derived"] is (derived is not None)
    if derived:
        assert v["derived_from"] == derived["from"]
        for key in ("format", "title", "objects", "unit", "mapped", "ignored", "unmapped",
                    "times"):
            assert v[f"derived_{key}"] == derived.get(key), key
    counts = doc["counts"]
    assert (v["n_findings"], v["n_diagnostics"]) == (counts["findings"], counts["diagnostics"])
    assert (v["errors"], v["warnings"], v["infos"]) == tuple(
        counts["by_severity"][s] for s in ("error", "warning", "info"))
    assert v["finding_kinds"] == sorted({f["kind"] for f in doc["findings"]})
    assert v["diagnostic_codes"] == sorted({d["code"] for d in doc["diagnostics"]})
    assert v["n_operations"] == len(doc["operations"])
    assert v["n_standing_decisions"] == len(doc["standing_decisions"])

    ops = rows["operations"]
    assert len(ops) == len(doc["operations"])
    atts = iter(rows["attempts"])
    n_attempts = 0
    for r, op in zip(ops, doc["operations"], strict=True):
        for key, value in op.items():
            if key == "attempts":
                assert r["n_attempts"] == len(value)
            elif key == "first_time":
                assert _same_time(r["first_time"], value)
            elif key == "party":
                want = (_int64(value["index"]), value["name"], value["role"]) if value else None
                assert (r["party_index"], r["party_name"], r["party_role"]) == (
                    want or (None, None, None))
            elif key == "requested":  # tool content: the tables copy none (README)
                assert key not in r
            elif key == "decision_reason":  # a string as it is, another value as JSON text
                assert r[key] == (value if isinstance(value, str)
                                  else jsonenc.dumps(value).decode()), key
            else:
                assert r[key] == value, key
        if "decision_reason" not in op:  # a member present only with a value
            assert r["decision_reason"] is None
        for a in op["attempts"]:
            n_attempts += 1
            ra = next(atts)
            assert (ra["operation_id"], ra["server"], ra["tool"]) == (
                op["operation_id"], op["server"], op["tool"])
            for key, value in a.items():
                if key in ("start", "end"):
                    assert _same_time(ra[f"{key}_time"], value), key
                elif key == "attempt":
                    assert ra["attempt"] == _int64(value)
                else:
                    assert ra[key] == value, key
    assert next(atts, None) is None
    assert v["n_attempts"] == n_attempts

    targets = {op["operation_id"]: (op["server"], op["tool"]) for op in doc["operations"]}
    for r, f in zip(rows["findings"], doc["findings"], strict=True):
        assert {k: r[k] for k in f if k != "attempt"} == {k: f[k] for k in f if k != "attempt"}
        assert r["attempt"] == _int64(f["attempt"])
        assert (r["server"], r["tool"]) == targets.get(f["operation_id"], (None, None))
    for r, d in zip(rows["diagnostics"], doc["diagnostics"], strict=True):
        assert {k: r[k] for k in d} == d
    for r, d in zip(rows["standing_decisions"], doc["standing_decisions"], strict=True):
        assert {k: r[k] for k in d if k != "time"} == {k: d[k] for k in d if k != "time"}
        assert _same_time(r["time"], d["time"])
    assert len(rows["findings"]) == len(doc["findings"])
    assert len(rows["diagnostics"]) == len(doc["diagnostics"])
    assert len(rows["standing_decisions"]) == len(doc["standing_decisions"])


def assert_arrow_round_trip(rows: dict[str, list[dict[str, Any]]]) -> None:
    """The Arrow tables hold the rows' values exactly (the schema fits every value)."""
    pytest.importorskip("pyarrow")
    from viewer.fleet.tables import to_arrow

    tables = to_arrow(rows)
    for name, table in tables.items():
        assert table.schema.metadata[schema.META_FORMAT] == schema.FORMAT.encode()
        assert table.to_pylist() == rows[name], name


def check_file(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Summary and rows of one file agree; returns the rows."""
    code, out, err = run_summary(str(path))
    rows = file_tables(path.read_bytes(), str(path), scan_time=SCAN_TIME)
    if code == 0:
        assert_rows_are_summary(rows, orjson.loads(out), str(path))
    else:
        (v,) = rows["vcons"]
        assert v["status"] == ("failed" if code == 70 else "refused")
        assert v["exit_status"] == code
        assert err == f"vcon-view: {v['error']}\n"
        assert v["size"] == path.stat().st_size
        assert all(not rows[t] for t in schema.TABLES if t != "vcons")
    (v,) = rows["vcons"]
    assert v["scan_time"] == SCAN_TIME
    assert_arrow_round_trip(rows)
    return rows


@pytest.mark.parametrize("path", DEMOS, ids=lambda p: p.name)
def test_demo_rows_are_its_summary(path: Path) -> None:
    rows = check_file(path)
    (v,) = rows["vcons"]
    assert v["status"] == "read" and v["date"] is not None
    assert v["first_event"] is not None and v["date"] == v["first_event"].date()


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus_rows_are_its_summary(path: Path) -> None:
    check_file(path)


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_file_is_one_refused_row(path: Path) -> None:
    rows = check_file(path)
    (v,) = rows["vcons"]
    assert (v["status"], v["exit_status"]) == ("refused", 2)
    assert "\n" not in v["error"]
    if path.name.startswith("encrypted"):
        assert v["form"] == "encrypted"


def test_six_kinds_of_bad_file() -> None:
    assert {p.name.split(".")[0] for p in BAD} == {
        "truncated", "not-json", "not-a-vcon", "encrypted", "array", "empty"}


def test_internal_error_is_a_failed_row(monkeypatch: pytest.MonkeyPatch) -> None:
    import viewer.fleet.tables as tables

    def boom(*a: Any, **k: Any) -> Any:
        raise RuntimeError("boom \u202e")

    monkeypatch.setattr(tables, "model_tuples", boom)
    rows = file_tables(DEMOS[0].read_bytes(), "x.json", scan_time=SCAN_TIME)
    (v,) = rows["vcons"]
    assert (v["status"], v["exit_status"]) == ("failed", 70)
    assert v["error"].startswith("internal error: RuntimeError: boom \\u202e")


def test_date_falls_back_to_created_at() -> None:
    doc = {"vcon": "0.4.0", "uuid": "u", "created_at": "2026-05-01T23:30:00-02:00",
           "extensions": ["tool-invocation"], "events": []}
    (v,) = file_tables(orjson.dumps(doc), "x.json", scan_time=SCAN_TIME)["vcons"]
    assert str(v["date"]) == "2026-05-02" and v["first_event"] is None


def test_party_index_past_int64_is_null_in_the_operations_table() -> None:
    """The summary keeps the recorded index; the 64-bit column cannot, so it is null there."""
    inv = {"type": "tool-invocation", "time": "2026-03-01T09:00:00Z", "party": 2**63,
           "operation_id": "op-1", "attempt": 1, "server": "s", "tool": "t"}
    doc = {"vcon": "0.4.0", "uuid": "u", "created_at": "2026-03-01T09:00:00Z",
           "extensions": ["tool-invocation"], "parties": [{"name": "agent"}], "events": [inv]}
    rows = file_tables(orjson.dumps(doc), "x.json", scan_time=SCAN_TIME)
    (op,) = rows["operations"]
    assert op["party_index"] is None and op["operation_id"] == "op-1"
    assert_arrow_round_trip(rows)


def test_canonical_uri(tmp_path: Path) -> None:
    assert canonical_uri("s3://bucket/2026/01/02/a.vcon") == "s3://bucket/2026/01/02/a.vcon"
    assert canonical_uri("gs://b/k.json") == "gs://b/k.json"
    p = tmp_path / "a b.json"
    assert canonical_uri(str(p)) == p.as_uri()
    assert canonical_uri(str(p)).startswith("file:///")


def test_schema_names_are_unique_and_prefixed() -> None:
    for name, cols in schema.TABLES.items():
        names = [c.name for c in cols]
        assert len(names) == len(set(names)), name
        assert names[:4] == ["file", "sha256", "uuid", "date"]
        assert all(c.doc for c in cols)


FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(S.vcon_bytes())
def test_fuzzed_rows_are_the_summary(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fuzz.vcon.json"
        path.write_bytes(data)
        check_file(path)


def test_lone_surrogate_becomes_replacement_character() -> None:
    """An importer's Python json reads "\\ud800": the tables write U+FFFD there, as the
    summary JSON does, instead of failing the chunk."""
    pytest.importorskip("pyarrow")
    from viewer.fleet.tables import empty_tuples, tuples_to_arrow

    rows = empty_tuples()
    rows["diagnostics"].append(("x", "s", "u\ud800", None, "code", "info", "/", "m\udfff"))
    table = tuples_to_arrow(rows)["diagnostics"]
    assert table.column("uuid").to_pylist() == ["u\ufffd"]
    assert table.column("message").to_pylist() == ["m\ufffd"]
