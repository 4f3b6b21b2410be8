"""The "also found" items of issue 17 that touch writing: each failed on the old code.

- ``summary - -o in.json < in.json`` replaced the vCon read from stdin (now refused, exit 2);
- a full disk (/dev/full) truncated stdout in silence with exit 0 (now one line, exit 2);
- "refusing to write" printed the -o path unescaped; the export dialog's default path carried
  the input's name unescaped (OSC 52 in a file name reached the terminal on ``e``);
- SIGTERM during ``summary -o`` left a ``.tmp`` file behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from bench.shapes import operations
from tests.modelkit import tool, vcon
from viewer.tui.export import default_name

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def run(args: list[str], stdin: object = None, stdout: object = subprocess.PIPE,
        ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([PY, "-m", "viewer", *args], stdin=stdin, stdout=stdout,
                          stderr=subprocess.PIPE, env=ENV, cwd=ROOT, timeout=60, check=False)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    p = tmp_path / "in.json"
    p.write_bytes(orjson.dumps(vcon([tool("tool-invocation", 0), tool("tool-result", 1)])))
    return p


@pytest.mark.parametrize("cmd", [["summary", "-", "-f", "json", "-o"],
                                 ["import", "vcon", "-", "-o"]])
def test_output_that_is_stdin_is_refused(small: Path, cmd: list[str]) -> None:
    before = small.read_bytes()
    with small.open("rb") as fin:
        r = run([*cmd, str(small)], stdin=fin)
    assert small.read_bytes() == before
    if cmd[0] == "summary":
        assert r.returncode == 2, r.stderr
        assert b"refusing to write" in r.stderr and b"standard input" in r.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["summary", "-f", "json"], ["summary", "-f", "md"],
                                  ["summary", "-f", "csv"], ["summary", "-f", "text"],
                                  ["check"]])
def test_full_disk_on_stdout_is_one_line_exit_2(small: Path, args: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        r = run([args[0], str(small), *args[1:]], stdout=full)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "cannot write stdout" in lines[0], lines


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_import_to_a_full_stdout_is_exit_2(tmp_path: Path) -> None:
    src = ROOT / "tests" / "fixtures" / "import_denied.jsonl"
    with open("/dev/full", "wb") as full:
        r = run(["import", "mcp", str(src), "-o", "-"], stdout=full)
    assert r.returncode == 2 and b"cannot write stdout" in r.stderr, r.stderr


def test_refusal_escapes_the_path(tmp_path: Path) -> None:
    name = tmp_path / "x\x1b]52;c;AAAA\x07.json"
    name.write_bytes(orjson.dumps(vcon([tool("tool-invocation", 0)])))
    r = run(["summary", str(name), "-o", str(name)])
    assert r.returncode == 2
    assert b"\x1b" not in r.stderr and b"\\x1b" in r.stderr


def test_export_default_name_is_inert() -> None:
    name = default_name("/tmp/in\x1b]52;c;AAAA\x07\u202e.vcon.json", "md")
    assert name.endswith("in_]52;c;AAAA__.summary.md")
    assert all(ch.isprintable() for ch in name)


def test_sigterm_during_summary_output_leaves_no_tmp(tmp_path: Path) -> None:
    big = tmp_path / "big.vcon.json"
    big.write_bytes(orjson.dumps(operations(60000)))
    out = tmp_path / "out.json"
    proc = subprocess.Popen([PY, "-c", "from viewer.cli import console_main; console_main()",
                             "summary", str(big), "-f", "json", "-o", str(out)],
                            env=ENV, cwd=ROOT, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not list(tmp_path.glob(".out.json.*.tmp")):
        if proc.poll() is not None:
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert not list(tmp_path.glob(".out.json.*.tmp"))


def test_import_with_lone_surrogates_is_written(tmp_path: Path) -> None:
    """Python's json (the MCP importer's parser) reads "\\ud800"; writing the vCon then failed
    in orjson (exit 70). The writer now puts U+FFFD in its place: exit 0, a vCon that checks."""
    src = tmp_path / "sur.jsonl"
    src.write_text(
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t\\ud800",'
        '"arguments":{"x":"\\udc00"}}}\n'
        '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok\\ud800"}]}}\n')
    out = tmp_path / "out.vcon.json"
    r = run(["import", "mcp", str(src), "-o", str(out), "-q"])
    assert r.returncode in (0, 2), r.stderr
    if r.returncode == 0:
        assert "\ufffd" in out.read_text("utf-8")
        assert run(["check", str(out)]).returncode in (0, 1)


def test_sigterm_just_after_the_temporary_file_is_made_leaves_no_tmp(tmp_path: Path,
                                                                    monkeypatch) -> None:
    """The window the test above can only hit by luck: a SIGTERM that arrives as mkstemp
    returns (before the writer's ``try``) left the temporary file behind. It is held until
    the writer can remove the file."""
    import tempfile

    from viewer.report.write import write_atomic

    real = tempfile.mkstemp

    def mkstemp_then_term(*args, **kwargs):
        made = real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)
        return made

    def handler(signum, frame):
        raise SystemExit(128 + signum)

    import threading

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp_then_term)
    old = signal.signal(signal.SIGTERM, handler)
    # another thread alive, as in a long test session or summary's hashing thread: a process
    # signal blocked in the main thread would be taken by it
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        with pytest.raises(SystemExit):
            write_atomic(tmp_path / "out.json", b"{}", input_path=None)
    finally:
        signal.signal(signal.SIGTERM, old)
        stop.set()
    assert not list(tmp_path.glob(".out.json.*.tmp"))
    assert not (tmp_path / "out.json").exists()
