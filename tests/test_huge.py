"""Huge content (issue 6): a 50 MB tool result, 100,000 attachments, 1,000,000 events.

The normal suite runs a scaled-down version (a 5 MB result, 10,000 attachments, 20,000 events)
and checks that nothing is decoded before it is looked at: the file is parsed once, no base64
is decoded, and building the model does not take longer with a bigger body. The full sizes run
with ``-m slow`` and print the peak RSS of a separate process (load, model, JSON and Markdown
export) for the release notes::

    .venv/bin/pytest -m slow tests/test_huge.py -s
"""

from __future__ import annotations

import base64
import binascii
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

import viewer.load as load_mod
from tests.modelkit import t, tool, vcon
from viewer import content
from viewer.load import load_bytes, load_path
from viewer.model import columns
from viewer.model.build import build_model
from viewer.report.csv import to_csv
from viewer.report.markdown import to_markdown
from viewer.report.summary import to_json
from viewer.report.text import to_text

MB = 1 << 20


def huge_vcon(result_bytes: int = 0, attachments: int = 0, operations: int = 1,
              b64: bool = True) -> dict[str, Any]:
    """``operations`` small operations, then one whose result is ``result_bytes`` long."""
    events: list[dict[str, Any]] = []
    for i in range(operations):
        op = f"op-{i}"
        events += [tool("tool-invocation", i, op=op), tool("tool-result", i + 0.5, op=op)]
    if result_bytes:
        payload = (b"0123456789abcdef" * (result_bytes // 16 + 1))[: result_bytes * 3 // 4]
        body: Any = base64.urlsafe_b64encode(payload).decode().rstrip("=") if b64 else \
            {"rows": ["x" * 1000] * (result_bytes // 1010)}
        events += [
            tool("tool-invocation", operations, op="op-big"),
            tool("tool-result", operations + 1, op="op-big", body=body,
                 encoding="base64url" if b64 else "json",
                 mediatype="application/octet-stream" if b64 else "application/json"),
        ]
    atts = [{"filename": f"file-{i}.txt", "body": f"attachment {i}", "encoding": "none",
             "mediatype": "text/plain", "start": t(0)} for i in range(attachments)]
    return vcon(events, attachments=atts)


def write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_bytes(orjson.dumps(doc))
    return path


# --- nothing decoded eagerly (normal suite) ----


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("huge")
    return write(d / "big.vcon.json", huge_vcon(5 * MB, attachments=10_000, operations=200))


def test_nothing_is_decoded_before_it_is_looked_at(big_file: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    inside: list[str] = []  # the JSON reader's own parse is the reader's call, counted once

    def counting(name: str, real: Any) -> Any:
        def f(*a: Any, **kw: Any) -> Any:
            if not inside:
                calls.append(name)
            inside.append(name)
            try:
                return real(*a, **kw)
            finally:
                inside.pop()
        return f

    for mod, name in ((binascii, "a2b_base64"), (base64, "urlsafe_b64decode"),
                      (base64, "b64decode"), (orjson, "loads"), (json, "loads")):
        monkeypatch.setattr(mod, name, counting(name, getattr(mod, name)))
    # the JSON reader (viewer.jsonenc.loads) as the loader, the events and the content use it
    for mod in (load_mod, columns, content):
        monkeypatch.setattr(mod, "loads", counting(f"{mod.__name__}.loads", mod.loads))
    model = build_model(load_path(str(big_file)))
    for export in (to_json, to_markdown, to_csv, to_text):
        export(model)
    # the file's members other than the events, once (the events: into their Structs); no
    # body decoded or re-parsed
    assert calls == ["viewer.load.loads"], calls
    assert len(model.attachments) == 10_000
    assert model.operation("op-big") is not None


def test_model_build_time_does_not_grow_with_body_size() -> None:
    small = load_bytes(orjson.dumps(huge_vcon(1024, operations=200)))
    big = load_bytes(orjson.dumps(huge_vcon(5 * MB, operations=200)))
    big_json = load_bytes(orjson.dumps(huge_vcon(5 * MB, operations=200, b64=False)))

    def best(loaded: Any) -> float:
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            build_model(loaded)
            times.append(time.perf_counter() - t0)
        return min(times)

    base = best(small)
    # a 5 MB base64url body is checked for its alphabet (one regex scan), never decoded;
    # a 5 MB JSON body is not looked at at all.
    assert best(big) < base + 0.15, (base, best(big))
    assert best(big_json) < base * 2 + 0.05, (base, best(big_json))


def _measure(path: Path, timeout: int = 600) -> dict[str, Any]:
    """Load, model and export in a fresh process: seconds and peak RSS (MiB)."""
    # VmHWM (Linux) is this process's own peak; ru_maxrss survives exec and would report
    # the parent's peak (pytest, holding the generated file) instead.
    code = (
        "import json, resource, sys, time\n"
        "def hwm():\n"
        "    try:\n"
        "        for line in open('/proc/self/status'):\n"
        "            if line.startswith('VmHWM:'):\n"
        "                return int(line.split()[1]) / 1024\n"
        "    except OSError:\n"
        "        pass\n"
        "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "t0 = time.perf_counter()\n"
        "from viewer.load import load_path\n"
        "from viewer.model.build import build_model\n"
        "from viewer.report.summary import to_json\n"
        "from viewer.report.markdown import to_markdown\n"
        "base = hwm()\n"
        "loaded = load_path(sys.argv[1]); t1 = time.perf_counter()\n"
        "model = build_model(loaded); t2 = time.perf_counter()\n"
        "to_json(model); to_markdown(model); t3 = time.perf_counter()\n"
        "print(json.dumps({'load_s': t1 - t0, 'build_s': t2 - t1, 'export_s': t3 - t2,\n"
        "  'import_rss_mib': base, 'operations': len(model.operations),\n"
        "  'peak_rss_mib': hwm()}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          timeout=timeout, check=True)
    out = json.loads(proc.stdout)
    out["file_mib"] = path.stat().st_size / MB
    print(f"\n{path.name}: {out}")
    return out


def _bare_parse_peak(path: Path) -> float:
    """Peak RSS (MiB) of a process that only reads the file and parses it with orjson."""
    code = (
        "import orjson, sys\n"
        "doc = orjson.loads(open(sys.argv[1], 'rb').read())\n"
        "print(next(int(l.split()[1]) for l in open('/proc/self/status')\n"
        "           if l.startswith('VmHWM:')) / 1024)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          timeout=1800, check=True)
    peak = float(proc.stdout)
    print(f"{path.name}: bare orjson parse peak {peak:.0f} MiB")
    return peak


def test_scaled_down_sizes_stay_bounded(big_file: Path, tmp_path: Path) -> None:
    r = _measure(big_file)
    assert r["operations"] == 201
    # parsed JSON costs a few times the file; nothing is copied or decoded on top of that
    assert r["peak_rss_mib"] < r["import_rss_mib"] + 8 * r["file_mib"] + 40, r
    events = write(tmp_path / "events.vcon.json", huge_vcon(operations=10_000))
    r = _measure(events)
    assert r["operations"] == 10_000
    assert r["load_s"] + r["build_s"] < 10, r


async def test_tui_opens_a_5_mb_result_and_stays_responsive(big_file: Path) -> None:
    from viewer.tui.app import make_app

    app = make_app(str(big_file))
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert type(app.screen).__name__ == "TimelineScreen"
        await pilot.press("end")
        t0 = time.perf_counter()
        await pilot.press("enter", "end", "l", "l")
        await pilot.pause()
        assert time.perf_counter() - t0 < 5
        assert type(app.screen).__name__ == "DetailScreen"
        await pilot.press("escape", "q")


# --- the full sizes (-m slow) ----


def _stream_events(path: Path, n_events: int) -> None:
    """Write a vCon of ``n_events`` events without holding them in memory."""
    head = vcon([])
    head.pop("events")
    with path.open("wb") as f:
        f.write(orjson.dumps(head)[:-1] + b',"events":[')
        for i in range(n_events // 2):
            op = f"op-{i}"
            if i:
                f.write(b",")
            f.write(orjson.dumps(tool("tool-invocation", i / 10, op=op)) + b"," +
                    orjson.dumps(tool("tool-result", i / 10 + 0.05, op=op)))
        f.write(b"]}")


@pytest.mark.slow
def test_50_mb_tool_result(tmp_path: Path) -> None:
    p = write(tmp_path / "r50.vcon.json", huge_vcon(50 * MB))
    r = _measure(p)
    # bounded by the parse: the model and exports add less than the parsed document itself
    assert r["peak_rss_mib"] < 2 * _bare_parse_peak(p) + 50, r


@pytest.mark.slow
def test_100k_attachments(tmp_path: Path) -> None:
    p = write(tmp_path / "a100k.vcon.json", huge_vcon(attachments=100_000))
    r = _measure(p)
    assert r["peak_rss_mib"] < 2 * _bare_parse_peak(p) + 50, r


@pytest.mark.slow
def test_1m_events(tmp_path: Path) -> None:
    p = tmp_path / "e1m.vcon.json"
    _stream_events(p, 1_000_000)
    r = _measure(p, timeout=1800)
    assert r["operations"] == 500_000
    # the goal: under twice a bare orjson parse of the same file
    assert r["peak_rss_mib"] < 2 * _bare_parse_peak(p) + 50, r


@pytest.mark.slow
async def test_tui_opens_a_50_mb_result_and_stays_responsive(tmp_path: Path) -> None:
    from viewer.tui.app import make_app

    p = write(tmp_path / "r50.vcon.json", huge_vcon(50 * MB))
    app = make_app(str(p))
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("end")
        t0 = time.perf_counter()
        await pilot.press("enter", "end", "l", "l")
        await pilot.pause()
        assert time.perf_counter() - t0 < 5
        await pilot.press("escape", "q")
