"""``vcon-view scan`` (issue 15): inputs, the pool, the parts and ``_scan.json``, exit codes.

Every scan here is local: object stores are a ``pyarrow.fs`` filesystem over a temporary folder
put in the place of the real one (never the network).
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from viewer.cli import main  # noqa: E402
from viewer.fleet import inputs  # noqa: E402
from viewer.fleet.scan import SCAN_JSON, ScanError, read_scan_json, run_scan  # noqa: E402
from viewer.fleet.schema import FORMAT, META_FORMAT, TABLES  # noqa: E402
from viewer.fleet.tables import json_value  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEMOS = ROOT / "demo_vcons"
BAD = ROOT / "tests" / "fixtures" / "fleet" / "bad"
SCAN_TIME = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def conserver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vcon-server file-storage tree: YYYY/MM/DD/<uuid>.json, .vcon, gzip, lookup indexes,
    plus the six bad files and a file of another suffix."""
    root = tmp_path_factory.mktemp("conserver")
    demos = sorted(p for p in DEMOS.iterdir() if p.name.endswith(".vcon.json"))
    for i, p in enumerate(demos):
        day = root / "2026" / "03" / f"{10 + i % 3:02d}"
        day.mkdir(parents=True, exist_ok=True)
        data = p.read_bytes()
        if i % 4 == 0:
            (day / f"{i:04d}.json.gz").write_bytes(gzip.compress(data, mtime=0))
        elif i % 4 == 1:
            (day / f"{i:04d}.vcon").write_bytes(data)
        else:
            (day / f"{i:04d}.json").write_bytes(data)
    (root / "lookup").mkdir()
    (root / "lookup" / "uuid-index.txt").write_text("0001 2026/03/10/0000.json.gz\n")
    (root / "notes.md").write_text("# not a vCon\n")
    shutil.copytree(BAD, root / "bad")
    return root


def tables(out: Path) -> dict[str, Any]:
    return {name: pq.read_table(out / name) for name in TABLES}


def test_folder_listing_keeps_vcon_suffixes_and_gzip(conserver: Path) -> None:
    items = inputs.expand([str(conserver)])
    names = [i.uri.rsplit("/", 1)[-1] for i in items]
    assert not any(n.endswith((".txt", ".md")) for n in names)
    assert any(n.endswith(".json.gz") for n in names) and any(n.endswith(".vcon") for n in names)
    assert "empty.vcon.json" in names and "encrypted.vcon" in names
    assert [i.uri for i in items] == sorted(i.uri for i in items)
    assert all(i.uri.startswith("file:///") for i in items)
    # a file named on the command line is read whatever its suffix; a glob; no duplicates
    md = inputs.expand([str(conserver / "notes.md"), str(conserver / "notes.md")])
    assert [i.uri for i in md] == [(conserver / "notes.md").as_uri()]
    globbed = inputs.expand([str(conserver / "2026" / "*" / "1[01]")])
    assert globbed and all("/2026/03/1" in i.uri for i in globbed)
    assert {i.uri for i in globbed} < {i.uri for i in items}


def test_j1_and_j2_give_identical_tables(conserver: Path, tmp_path: Path) -> None:
    r1 = run_scan([str(conserver)], str(tmp_path / "j1"), jobs=1, scan_time=SCAN_TIME)
    r2 = run_scan([str(conserver)], str(tmp_path / "j2"), jobs=2, scan_time=SCAN_TIME)
    t1, t2 = tables(tmp_path / "j1"), tables(tmp_path / "j2")
    for name in TABLES:
        assert t1[name].equals(t2[name], check_metadata=True), name
        assert t1[name].schema.metadata[META_FORMAT] == FORMAT.encode()
    assert r1.rows == r2.rows and r1.refused == r2.refused
    assert r1.rows["vcons"] == r1.files == len(inputs.expand([str(conserver)]))
    assert len(r1.refused) == 6
    assert not [p for p in (tmp_path / "j1").iterdir() if p.name.startswith(".")]


def test_rows_are_the_per_file_function(tmp_path: Path) -> None:
    from viewer.fleet.tables import file_tables, to_arrow

    demo = DEMOS / "04-double-refund.vcon.json"
    run_scan([str(demo)], str(tmp_path / "o"), jobs=1, scan_time=SCAN_TIME)
    expected = to_arrow(file_tables(demo.read_bytes(), demo.as_uri(), scan_time=SCAN_TIME))
    got = tables(tmp_path / "o")
    for name in TABLES:
        assert got[name].equals(expected[name]), name


def test_scan_json_is_written_last_and_says_what_was_read(conserver: Path,
                                                          tmp_path: Path) -> None:
    out = tmp_path / "o"
    result = run_scan([str(conserver)], str(out), jobs=1, scan_time=SCAN_TIME)
    doc = read_scan_json(str(out))
    assert doc["format"] == FORMAT and doc["output_format"] == "parquet"
    assert doc["inputs"] == [str(conserver)] and doc["files"] == result.files
    assert doc["rows"] == result.rows
    assert {r["file"].rsplit("/", 1)[-1] for r in doc["refused"]} == {
        p.name for p in BAD.iterdir()}
    assert all(r["exit_status"] == 2 and r["error"] for r in doc["refused"])
    assert doc["tables"]["vcons"] == ["vcons/part-00000.parquet"]
    mtime = (out / SCAN_JSON).stat().st_mtime_ns
    assert all(p.stat().st_mtime_ns <= mtime for p in out.rglob("*.parquet"))
    # a second scan over the first replaces its tables (fewer files now)
    run_scan([str(DEMOS / "tour.vcon.json")], str(out), jobs=1, scan_time=SCAN_TIME)
    assert tables(out)["vcons"].num_rows == 1
    assert read_scan_json(str(out))["files"] == 1


def test_partition_by_date(conserver: Path, tmp_path: Path) -> None:
    run_scan([str(conserver)], str(tmp_path / "flat"), jobs=1, scan_time=SCAN_TIME)
    run_scan([str(conserver)], str(tmp_path / "part"), jobs=2, scan_time=SCAN_TIME,
             partition="date")
    flat = tables(tmp_path / "flat")
    parts = sorted(p.relative_to(tmp_path / "part").as_posix()
                   for p in (tmp_path / "part" / "vcons").rglob("*.parquet"))
    assert "vcons/date=__HIVE_DEFAULT_PARTITION__/part-00000.parquet" in parts
    assert "vcons/date=2026-03-17/part-00000.parquet" in parts
    for p in (tmp_path / "part" / "operations").rglob("*.parquet"):
        day = p.parent.name.removeprefix("date=")
        assert {str(d) for d in pq.read_table(p).column("date").to_pylist()} == {day}
    for name in TABLES:
        rows = [r for p in sorted((tmp_path / "part" / name).rglob("*.parquet"))
                for r in pq.read_table(p).to_pylist()]
        key = lambda r: orjson.dumps(r, default=str)  # noqa: E731
        assert sorted(rows, key=key) == sorted(flat[name].to_pylist(), key=key), name


def test_ndjson_holds_the_same_values(conserver: Path, tmp_path: Path) -> None:
    run_scan([str(conserver)], str(tmp_path / "pq"), jobs=1, scan_time=SCAN_TIME)
    run_scan([str(conserver)], str(tmp_path / "nd"), jobs=2, fmt="ndjson",
             scan_time=SCAN_TIME)
    assert read_scan_json(str(tmp_path / "nd"))["output_format"] == "ndjson"
    want = tables(tmp_path / "pq")
    for name in TABLES:
        raw = (tmp_path / "nd" / name / "part-00000.ndjson").read_bytes()
        assert raw.isascii() or "\u202e" not in raw.decode()
        got = [orjson.loads(line) for line in raw.splitlines()]
        expected = [{k: _plain(v) for k, v in r.items()} for r in want[name].to_pylist()]
        assert got == expected, name


def _plain(v: Any) -> Any:
    return json_value(v)


def test_object_store_uri_through_pyarrow_fs(conserver: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from pyarrow import fs as pafs

    bucket_root = tmp_path / "store"
    shutil.copytree(conserver, bucket_root / "bucket" / "vcons")
    store = pafs.SubTreeFileSystem(str(bucket_root), pafs.LocalFileSystem())
    seen: list[tuple[str, str]] = []

    def fake(scheme: str, netloc: str) -> Any:
        seen.append((scheme, netloc))
        return store

    monkeypatch.setattr(inputs, "filesystem_for", fake)
    run_scan(["s3://bucket/vcons"], str(tmp_path / "s3"), jobs=2, scan_time=SCAN_TIME)
    run_scan([str(conserver)], str(tmp_path / "local"), jobs=1, scan_time=SCAN_TIME)
    assert seen and {s for s, _ in seen} == {"s3"}
    s3, local = tables(tmp_path / "s3"), tables(tmp_path / "local")
    uris = s3["vcons"].column("file").to_pylist()
    assert all(u.startswith("s3://bucket/vcons/") for u in uris)
    assert not any(u.endswith(".txt") for u in uris)
    for name in TABLES:
        a = s3[name].drop_columns(["file"]).to_pylist()
        b = local[name].drop_columns(["file"]).to_pylist()
        for r in a + b:  # the refusal lines name the file
            if r.get("error"):
                r["error"] = r["error"].split(": ", 1)[1]
        assert a == b, name


def test_file_uri_and_stdin_paths(conserver: Path, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(p) for p in sorted(conserver.rglob("*.json"))]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(files) + "\n\n"))
    assert main(["scan", "-", "-o", str(tmp_path / "stdin"), "-j", "1"]) == 0
    assert tables(tmp_path / "stdin")["vcons"].num_rows == len(files)
    uri = (conserver / "2026").as_uri()
    assert main(["scan", uri, "-o", str(tmp_path / "uri"), "-j", "1"]) == 0
    got = tables(tmp_path / "uri")["vcons"].column("file").to_pylist()
    assert got == [i.uri for i in inputs.expand([str(conserver / "2026")])]
    assert "scanned" in capsys.readouterr().err


def test_exit_statuses(conserver: Path, tmp_path: Path,
                       capsys: pytest.CaptureFixture[str]) -> None:
    tour = str(DEMOS / "tour.vcon.json")
    assert main(["scan", str(BAD), "-o", str(tmp_path / "bad"), "-j", "1"]) == 0
    assert main(["scan", tour, "-o", str(tmp_path / "a"), "-j", "1",
                 "--fail-on", "policy-violation"]) == 1
    assert main(["scan", str(DEMOS / "07-not-performed.vcon.json"), "-o",
                 str(tmp_path / "b"), "--fail-on", "all", "-j", "1"]) == 0
    capsys.readouterr()
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("mine")
    assert main(["scan", tour, "-o", str(tmp_path / "busy")]) == 2
    assert (tmp_path / "busy" / "keep.txt").read_text() == "mine"
    (tmp_path / "file").write_text("x")
    assert main(["scan", tour, "-o", str(tmp_path / "file")]) == 2
    assert main(["scan", tour, "-o", str(tmp_path / "c"), "-j", "0"]) == 2
    assert main(["scan", "nosuch://x/y", "-o", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert "is not empty" in err and "exists and is not a folder" in err
    assert all(line.startswith(("vcon-view", "usage", "  ")) for line in err.splitlines())
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o500)
        assert main(["scan", tour, "-o", str(ro)]) == 2


def test_missing_file_is_a_refused_row(tmp_path: Path) -> None:
    missing = tmp_path / "gone.vcon.json"
    run_scan([str(missing)], str(tmp_path / "o"), jobs=1, scan_time=SCAN_TIME)
    (v,) = tables(tmp_path / "o")["vcons"].to_pylist()
    assert (v["status"], v["exit_status"]) == ("refused", 2)
    assert v["error"].endswith(": no such file")


def test_unlistable_store_is_usage(tmp_path: Path) -> None:
    with pytest.raises(ScanError):
        run_scan(["nosuch://bucket/x"], str(tmp_path / "o"))
    assert not (tmp_path / "o").exists()


def test_missing_extra_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("pyarrow", "duckdb") else real(name, *a))
    tour = str(DEMOS / "tour.vcon.json")
    assert main(["scan", tour, "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err == "vcon-view: scan --format parquet needs pyarrow: pip install 'vcon-view[fleet]'\n"
    assert main(["query", str(tmp_path / "o"), "select 1"]) == 2
    assert "pip install 'vcon-view[fleet]'" in capsys.readouterr().err
    # ndjson needs no extra
    assert main(["scan", tour, "-o", str(tmp_path / "nd"), "--format", "ndjson", "-j", "1"]) == 0


def test_plain_vcon_view_imports_neither_pyarrow_nor_duckdb() -> None:
    code = (
        "import sys, io, contextlib\n"
        "from viewer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['summary', '--format', 'json', {str(DEMOS / 'tour.vcon.json')!r}])\n"
        f"    main(['check', {str(DEMOS / 'tour.vcon.json')!r}])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyarrow', 'duckdb')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_scan_command_imports_no_pandas_and_leaves_it_importable(tmp_path: Path) -> None:
    # pyarrow imports pandas on its first conversion of Python lists, only to ask whether they
    # are pandas objects: more CPU than pyarrow's own import, in every process of a scan
    code = (
        "import sys\n"
        "from viewer.cli import main\n"
        f"assert main(['scan', {str(DEMOS)!r}, '-o', {str(tmp_path / 'o1')!r}, '-j', '1']) == 0\n"
        f"assert main(['scan', {str(DEMOS)!r}, '-o', {str(tmp_path / 'o2')!r}, '-j', '2']) == 0\n"
        "print('pandas' in sys.modules)\n"
        "import pandas\n"
        "print(pandas.__name__)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=False)
    if "No module named 'pandas'" in run.stderr:
        pytest.skip("pandas is not installed (the spark extra)")
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False", "pandas"]
    a, b = (pq.read_table(tmp_path / o / "operations") for o in ("o1", "o2"))
    assert a.num_rows and a.equals(b)


def test_out_inside_the_scanned_folder_is_not_read(tmp_path: Path) -> None:
    shutil.copy(DEMOS / "tour.vcon.json", tmp_path / "a.vcon.json")
    for fmt in ("ndjson", "parquet"):
        for _ in range(2):  # the second scan finds the first one's _scan.json under OUT
            r = run_scan([str(tmp_path)], str(tmp_path / f"out-{fmt}"), jobs=1, fmt=fmt,
                         scan_time=SCAN_TIME)
            assert r.files == 1 and not r.refused


def test_progress_line_says_files_mb_rate_and_refused() -> None:
    from viewer.fleet.scan import Progress, Result

    stream = io.StringIO()
    progress = Progress(stream)
    result = Result(files=50, bytes=3_000_000)
    result.refused = [{"file": "x"}] * 2
    progress(result, 100, 6_000_000, 2.0)
    progress(result, 100, 6_000_000, 2.1)  # within 0.2 s: not drawn again
    progress.done()
    text = stream.getvalue()
    assert text.count("\r") == 1 and text.endswith("\n")
    assert "50/100 files" in text and "3.0/6.0 MB" in text and "25 files/s" in text
    assert "2 refused" in text


def test_progress_only_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import viewer.fleet.scan as scan

    drawn: list[int] = []
    real = scan.Progress.__call__
    monkeypatch.setattr(scan.Progress, "__call__",
                        lambda self, r, *a: drawn.append(r.files) or real(self, r, *a))
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["scan", str(DEMOS / "tour.vcon.json"), "-o", str(tmp_path / "a"),
                 "-j", "1"]) == 0
    assert not drawn and "\r" not in err.getvalue()
    err.isatty = lambda: True  # type: ignore[method-assign]
    assert main(["scan", str(DEMOS / "tour.vcon.json"), "-o", str(tmp_path / "b"),
                 "-j", "1"]) == 0
    assert drawn and "\r[" in err.getvalue()
