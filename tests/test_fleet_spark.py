"""``scan --engine spark`` and ``scan_tables`` (issue 15): the same rows as the pool.

One Spark session for the module (the JVM's start is the slow part): ``local[1]``, no UI, bound
to 127.0.0.1, its Python workers this interpreter. The corpus is every demo, the six bad files
(the empty one included: Spark never reads it), a gzip, a name with a space and a percent sign,
and a conserver lookup index the listing skips.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no java on this machine: Spark needs a JVM (.ci/run installs "
                "openjdk-17-jre-headless)", allow_module_level=True)

import pyarrow as pa
import pyarrow.parquet as pq

from viewer.cli import main
from viewer.fleet.scan import SCAN_JSON, read_scan_json, run_scan
from viewer.fleet.schema import TABLES
from viewer.fleet.spark import (
    TaskWriter,
    run_spark_scan,
    scan_tables,
    spark_path,
    uri_of,
)

ROOT = Path(__file__).resolve().parent.parent
DEMOS = ROOT / "demo_vcons"
BAD = ROOT / "tests" / "fixtures" / "fleet" / "bad"
SCAN_TIME = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def spark() -> Any:
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    session = (SparkSession.builder.master("local[1]").appName("vcon-view tests")
               .config("spark.ui.enabled", "false")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "1")
               # a test's queries are tiny: the JVM's start and code generation are its cost
               .config("spark.driver.extraJavaOptions",
                       "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:CICompilerCount=1")
               .config("spark.sql.codegen.wholeStage", "false")
               .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
               .config("spark.sql.adaptive.enabled", "false")
               # a few tasks on this small corpus (the parts are per partition), not one per
               # file: each task costs a round trip to the Python worker
               .config("spark.sql.files.maxPartitionBytes", str(2 << 20))
               .config("spark.sql.files.openCostInBytes", str(128 << 10))
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    day = root / "2026" / "03" / "10"
    day.mkdir(parents=True)
    for p in sorted(DEMOS.iterdir()):
        if p.name.endswith((".vcon.json", ".vcon.json.gz")):
            shutil.copy(p, day / p.name)
    data = (DEMOS / "04-double-refund.vcon.json").read_bytes()
    (day / "zipped.json.gz").write_bytes(gzip.compress(data, mtime=0))
    (day / "a name 100%.vcon").write_bytes(data)
    (root / "lookup").mkdir()
    (root / "lookup" / "uuid.txt").write_text("index\n")
    shutil.copytree(BAD, root / "bad")
    assert (root / "bad" / "empty.vcon.json").stat().st_size == 0
    return root


@pytest.fixture(scope="module")
def pool(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pool") / "out"
    run_scan([str(corpus)], str(out), jobs=1, scan_time=SCAN_TIME)
    return out


@pytest.fixture(scope="module")
def spark_out(spark: Any, corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("spark") / "out"
    run_spark_scan(spark, [str(corpus)], str(out), scan_time=SCAN_TIME)
    return out


def read(out: Path, name: str) -> pa.Table:
    """A table of a scan, every part, in file order (rows of one file keep their order)."""
    parts = sorted((out / name).rglob("*.parquet"))
    table = pa.concat_tables([pq.read_table(p) for p in parts])
    return table.take(pa.compute.sort_indices(table, [("file", "ascending")]))


def test_spark_scan_writes_the_pools_rows_and_schema(pool: Path, spark_out: Path) -> None:
    for name in TABLES:
        expected, got = read(pool, name), read(spark_out, name)
        assert got.schema.equals(expected.schema, check_metadata=True), name
        assert got.equals(expected), name
    vcons = read(spark_out, "vcons").to_pylist()
    empty = [r for r in vcons if r["file"].endswith("/bad/empty.vcon.json")]
    assert len(empty) == 1 and empty[0]["status"] == "refused" and empty[0]["exit_status"] == 2
    assert any(r["file"].endswith("/a%20name%20100%25.vcon") and r["status"] == "read"
               for r in vcons)


def test_spark_scan_json_is_last_and_names_what_spark_skipped(pool: Path,
                                                              spark_out: Path) -> None:
    ours, theirs = read_scan_json(str(spark_out)), read_scan_json(str(pool))
    assert ours["engine"] == "spark" and theirs["engine"] == "pool"
    for key in ("format", "files", "bytes", "rows", "output_format"):
        assert ours[key] == theirs[key], key
    assert sorted(ours["refused"], key=lambda r: r["file"]) == sorted(
        theirs["refused"], key=lambda r: r["file"])
    assert ours["listed"] == ours["files"]
    assert [u.rsplit("/", 1)[-1] for u in ours["not_returned_by_spark"]] == ["empty.vcon.json"]
    parts = ours["tables"]["vcons"]
    assert len(parts) >= 2 and all(re.fullmatch(r"vcons/part-\d{5}\.parquet", p) for p in parts)
    mtime = (spark_out / SCAN_JSON).stat().st_mtime_ns
    assert all(p.stat().st_mtime_ns <= mtime for p in spark_out.rglob("*.parquet"))
    assert not [p for p in spark_out.rglob(".*")]


def test_spark_scan_partitioned_by_date(spark: Any, corpus: Path, tmp_path: Path) -> None:
    run_scan([str(corpus)], str(tmp_path / "pool"), jobs=1, scan_time=SCAN_TIME,
             partition="date")
    run_spark_scan(spark, [str(corpus)], str(tmp_path / "spark"), partition="date",
                   scan_time=SCAN_TIME)
    days = {p.name for p in (tmp_path / "pool" / "vcons").iterdir()}
    assert {p.name for p in (tmp_path / "spark" / "vcons").iterdir()} == days
    for name in TABLES:
        assert read(tmp_path / "spark", name).equals(read(tmp_path / "pool", name)), name


def test_files_spark_cannot_read_are_the_pools_rows(spark: Any, tmp_path: Path) -> None:
    """A file named but missing, and an empty one, are never given to Spark: the driver makes
    their rows with the pool's function."""
    paths = [str(DEMOS / "tour.vcon.json"), str(BAD / "empty.vcon.json"),
             str(tmp_path / "no-such.vcon.json")]
    run_scan(paths, str(tmp_path / "pool"), jobs=1, scan_time=SCAN_TIME)
    result = run_spark_scan(spark, paths, str(tmp_path / "spark"), scan_time=SCAN_TIME)
    assert result.files == 3 and len(result.refused) == 2
    for name in TABLES:
        assert read(tmp_path / "spark", name).equals(read(tmp_path / "pool", name)), name
    errors = read(tmp_path / "spark", "vcons").column("error").to_pylist()
    assert any("no such file" in (e or "") for e in errors)


def test_spark_scan_ndjson_lines_are_the_pools(spark: Any, tmp_path: Path) -> None:
    paths = [str(DEMOS / "04-double-refund.vcon.json"), str(DEMOS / "tour.vcon.json"),
             str(BAD / "empty.vcon.json")]
    run_scan(paths, str(tmp_path / "pool"), jobs=1, fmt="ndjson", scan_time=SCAN_TIME)
    run_spark_scan(spark, paths, str(tmp_path / "spark"), fmt="ndjson", scan_time=SCAN_TIME)
    for name in TABLES:
        lines = {engine: sorted(line for part in sorted((tmp_path / engine / name).rglob("*"))
                                for line in part.read_bytes().splitlines())
                 for engine in ("pool", "spark")}
        assert lines["spark"] == lines["pool"], name


def test_scan_tables_dataframes_hold_the_pools_rows(spark: Any, corpus: Path,
                                                    pool: Path) -> None:
    frames = scan_tables(spark, [str(corpus)], scan_time=SCAN_TIME)
    assert set(frames) == set(TABLES)
    for name in TABLES:
        got = frames[name].toArrow()
        assert got.column_names == read(pool, name).column_names
        got = got.take(pa.compute.sort_indices(got, [("file", "ascending")]))
        assert got.to_pylist() == read(pool, name).to_pylist(), name


def test_cli_engine_spark_uses_the_active_session(spark: Any, corpus: Path, pool: Path,
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    keys = ("spark.sql.files.minPartitionNum", "spark.sql.files.openCostInBytes",
            "spark.driver.extraJavaOptions")
    before = {k: spark.conf.get(k, None) for k in keys}
    assert main(["scan", "--engine", "spark", str(corpus), "-o", str(out),
                 "--fail-on", "all"]) == 1  # the demos have findings
    err = capsys.readouterr().err
    assert "scanned" in err and "(6 not read)" in err
    assert read_scan_json(str(out))["rows"] == read_scan_json(str(pool))["rows"]
    # the scan's own settings are for a session it starts: the user's is left as it was
    assert {k: spark.conf.get(k, None) for k in keys} == before


def test_spark_submit_runs_this_module(spark: Any, corpus: Path, pool: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``spark-submit viewer/fleet/spark.py PATH -o OUT`` (the README's) is a scan."""
    import runpy

    import viewer.fleet.spark as module

    out = tmp_path / "submitted"
    monkeypatch.setattr(sys, "argv", [module.__file__, str(corpus), "-o", str(out)])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(module.__file__, run_name="__main__")
    assert done.value.code == 0
    assert read_scan_json(str(out))["rows"] == read_scan_json(str(pool))["rows"]


def test_cli_engine_spark_usage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    assert main(["scan", "--engine", "spark", "-j", "2", str(BAD), "-o",
                 str(tmp_path / "o")]) == 2
    assert "-j is the pool's" in capsys.readouterr().err
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pyspark" else real(name, *a))
    assert main(["scan", "--engine", "spark", str(BAD), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "pip install 'vcon-view[spark]'" in err


def test_a_retried_task_overwrites_its_own_parts(tmp_path: Path) -> None:
    from viewer.fleet.spark import tabulate

    data = (DEMOS / "04-double-refund.vcon.json").read_bytes()
    tmp = tmp_path / ".scan-1.tmp"
    for name in TABLES:
        (tmp / name).mkdir(parents=True)
    for attempt in (0, 1):
        w = TaskWriter(str(tmp), "parquet", None, 7, attempt)
        w.write(tabulate([("file:///x.vcon.json", data)], SCAN_TIME, "parquet"))
        if attempt == 0:
            w.abort_parts()  # the first attempt failed midway
            assert not list(tmp.rglob("*"))[len(TABLES):]
        else:
            w.publish()
    assert sorted(p.name for p in (tmp / "operations").iterdir()) == ["part-00007.parquet"]
    assert pq.read_table(tmp / "vcons" / "part-00007.parquet").num_rows == 1


def test_paths_between_the_listing_and_spark() -> None:
    uri = Path("/data/a b/c[1]%.json").as_uri()
    assert spark_path(uri) == "file:///data/a b/c\\[1\\]%.json"
    assert uri_of("file:/data/a b/c[1]%.json") == uri
    assert uri_of("file:///data/a b/c[1]%.json") == uri
    assert uri_of("s3://bucket/2026/01/02/x.json") == "s3://bucket/2026/01/02/x.json"
    assert orjson.loads(orjson.dumps(spark_path("s3://b/k*.json"))) == "s3://b/k\\*.json"
