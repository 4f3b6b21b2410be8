"""The vcon-view command: every exit status, --fail-on, -o, stdin, and no traceback ever."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from viewer.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SMALL = str(FIXTURES / "report_small.vcon.json")  # warnings only; a policy-violation finding
HOSTILE = str(FIXTURES / "report_hostile.vcon.json")  # an error diagnostic
CRITICAL = str(FIXTURES / "report_critical.vcon.json")  # critical: x-secret-sauce


def run(*args: str, stdin: bytes | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "viewer.cli", *args], input=stdin, capture_output=True,
        cwd=ROOT, env={**os.environ, **(env or {})}, timeout=60, check=False,
    )


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("vcon-view: ")
    assert "Traceback" not in err
    return lines[0]


# --- summary --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "md", "csv"])
def test_summary_formats_exit_0(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", SMALL, "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "op-shell" in out


def test_summary_default_format_is_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", SMALL]) == 0
    out = capsys.readouterr().out
    assert out.startswith("File:") and "Operations" in out


def test_summary_exits_0_despite_error_diagnostics(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", HOSTILE, "-f", "json"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert any(d["severity"] == "error" for d in doc["diagnostics"])


def test_summary_json_is_the_report_export(capsys: pytest.CaptureFixture[str]) -> None:
    from viewer.load import load_path
    from viewer.model.build import build_model
    from viewer.report.summary import to_json

    assert main(["summary", SMALL, "-f", "json"]) == 0
    assert capsys.readouterr().out.encode() == to_json(build_model(load_path(SMALL)))


# --- check ----------------------------------------------------------------------------------


def test_check_warnings_only_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", SMALL]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("warning  missing-recommended  /events/12  ")
    assert any(line.startswith("error    policy-violation  operation=op-shell attempt=1 "
                               "events=4,5  ") for line in out)
    assert out[-1].endswith("-> exit 0")


def test_check_error_diagnostic_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", HOSTILE]) == 1
    out = capsys.readouterr().out
    assert "invalid-value  /events/3/decision" in out
    assert "\x1b" not in out and "\u202e" not in out and "\x9b" not in out


@pytest.mark.parametrize(
    ("fail_on", "status"),
    [
        ("policy-violation", 1),
        ("late-response,unterminated", 1),
        (" retry ", 1),
        ("duplicate-execution-risk", 0),
        ("standing-conflict,decision-after-invocation", 0),
        ("all", 1),
    ],
)
def test_check_fail_on(fail_on: str, status: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", SMALL, "--fail-on", fail_on]) == status
    assert capsys.readouterr().out.rstrip().endswith(f"-> exit {status}")


def test_check_fail_on_unknown_kind_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", SMALL, "--fail-on", "policy-violation,bogus"]) == 2
    err = capsys.readouterr().err
    assert "unknown finding kind(s): bogus" in err and "Traceback" not in err


@pytest.mark.parametrize("fail_on", ["", " ", ",", " , "])
def test_check_fail_on_naming_nothing_is_usage_error(fail_on: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """An unset $KINDS in CI must not silently turn the gate into a no-op."""
    assert main(["check", SMALL, "--fail-on", fail_on]) == 2
    assert "names no finding kind" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from viewer import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"vcon-view {__version__}\n"


def test_check_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", SMALL, "-f", "json", "--fail-on", "late-response"]) == 1
    doc = orjson.loads(capsys.readouterr().out)
    assert doc["exit"] == 1
    assert doc["fail_on"] == ["late-response"]
    assert [d["code"] for d in doc["diagnostics"]] == ["missing-recommended"]
    assert len(doc["findings"]) == 7
    assert {"diagnostics", "findings", "exit"} <= doc.keys()


def test_check_json_hostile_exact_values(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", HOSTILE, "-f", "json"]) == 1
    raw = capsys.readouterr().out
    assert "\x9b" not in raw and "\u202e" not in raw and "\x1b" not in raw
    doc = orjson.loads(raw)
    assert doc["findings"][0]["operation_id"].startswith("+op\x1b[2J")


# --- refusals: 2 and 3 -------------------------------------------------------------------------


def test_critical_exit_3_both_commands(capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in ("summary", "check"):
        assert main([cmd, CRITICAL]) == 3
        err = capsys.readouterr().err
        assert "x-secret-sauce" in one_line_error(err)


def test_ignore_critical_marks_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", CRITICAL, "--ignore-critical", "-f", "json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["produced_under_override"] is True
    assert main(["check", CRITICAL, "--ignore-critical"]) == 0
    assert capsys.readouterr().out.startswith("warning  produced-under-override")
    assert main(["check", CRITICAL, "--ignore-critical", "-f", "json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["produced_under_override"] is True


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not json at all",
        b"[1, 2, 3]",
        b'{"vcon": "0.4.0", "events": [',
        b"\x1f\x8b\x08\x00garbage",
        b'{"unrelated": true}',
        b'{"ciphertext": "abc", "recipients": [], "unprotected": {"uuid": "u-1", "enc": "A"}}',
        bytes(range(256)),
    ],
)
def test_unreadable_exit_2_one_line(content: bytes, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.vcon"
    bad.write_bytes(content)
    for cmd in ("summary", "check"):
        assert main([cmd, str(bad)]) == 2
        one_line_error(capsys.readouterr().err)


def test_missing_file_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", "/nonexistent/x.vcon"]) == 2
    one_line_error(capsys.readouterr().err)


def test_no_arguments_prints_usage_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: vcon-view")


def test_bad_format_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", SMALL, "-f", "xml"]) == 2
    assert main(["check", SMALL, "-f", "md"]) == 2


def test_help_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", "-h"]) == 0
    assert "--format" in capsys.readouterr().out


def test_top_level_help_names_every_import_format(capsys: pytest.CaptureFixture[str]) -> None:
    """``vcon-view --help`` lists the recordings it opens and ``import``'s formats: every
    registered format is named in it (the Invariant importer was missing)."""
    from viewer.importers.formats import formats

    assert main(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for f in formats():
        assert f.name in out, f.name


def test_import_hook_without_importers(capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "viewer.importers", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "viewer.importers.cli", None)  # also when imported before
    assert main(["import", "x"]) == 2
    assert "import is not available" in capsys.readouterr().err


# --- -o -------------------------------------------------------------------------------------


def test_output_file_written_atomically(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.vcon.json"
    src.write_bytes(Path(SMALL).read_bytes())
    before = src.read_bytes()
    for fmt in ("json", "md", "csv", "text"):
        out = tmp_path / f"out.{fmt}"
        assert main(["summary", str(src), "-f", fmt, "-o", str(out)]) == 0
        assert "op-shell" in out.read_text()
    assert capsys.readouterr().out == ""
    assert src.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "in.vcon.json", "out.csv", "out.json", "out.md", "out.text"]


def test_output_refuses_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "in.vcon.json"
    src.write_bytes(Path(SMALL).read_bytes())
    before = src.read_bytes()
    link = tmp_path / "alias.json"
    link.symlink_to(src)
    monkeypatch.chdir(tmp_path)
    for target in (str(src), "in.vcon.json", "./in.vcon.json", str(link)):
        assert main(["summary", "in.vcon.json", "-f", "json", "-o", target]) == 2
        assert "input file" in one_line_error(capsys.readouterr().err)
    assert src.read_bytes() == before
    assert link.is_symlink()


def test_output_unwritable_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", SMALL, "-f", "json", "-o", str(tmp_path / "no" / "x.json")]) == 2
    assert "cannot write" in one_line_error(capsys.readouterr().err)


# --- internal errors --------------------------------------------------------------------------


def test_internal_error_exit_70_without_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError("kaput\x1b[2J")

    monkeypatch.setattr("viewer.model.build.build_model", boom)
    monkeypatch.delenv("VCON_VIEW_DEBUG", raising=False)
    assert main(["summary", SMALL]) == 70
    line = one_line_error(capsys.readouterr().err)
    assert line.startswith("vcon-view: internal error: RuntimeError: kaput\\x1b[2J")
    monkeypatch.setenv("VCON_VIEW_DEBUG", "1")
    with pytest.raises(RuntimeError):
        main(["summary", SMALL])


def test_gc_paused_during_command_and_restored(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import gc

    import viewer.model.build as build

    seen: list[bool] = []

    original = build.build_model

    def spy(loaded: object) -> object:
        seen.append(gc.isenabled())
        return original(loaded)  # type: ignore[arg-type]

    monkeypatch.setattr(build, "build_model", spy)
    assert gc.isenabled()
    assert main(["summary", SMALL, "-f", "json"]) == 0
    assert main(["check", "/nonexistent"]) == 2
    assert seen == [False]  # collector paused while building
    assert gc.isenabled()  # and restored afterwards, also after a refusal



def test_gc_paused_while_importing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """An import builds its events in one go, as summary builds a model: collector passes
    over them were half of an MCP capture's import time."""
    import gc

    from viewer.importers import common

    seen: list[bool] = []
    original = common.Events.add

    def spy(self: object, *args: object, **kw: object) -> object:
        seen.append(gc.isenabled())
        return original(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(common.Events, "add", spy)
    src = FIXTURES / "agents" / "claude-code-transcript" / "spotter__short.jsonl"
    assert main(["import", "claude-code", str(src), "-o", str(tmp_path / "out.vcon.json")]) == 0
    assert seen and not any(seen)
    assert gc.isenabled()

@pytest.mark.parametrize("error", [ValueError("a bug"), OSError(5, "a bug")])
def test_a_failure_while_making_the_output_is_an_internal_error_also_with_o(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        error: Exception) -> None:
    """``-o`` writes the summary JSON as it is made: a failure of the making (a bug) is still
    an internal error (exit 70), as on stdout, never taken for a refused target or a write
    error of OUT (exit 2), and OUT is not made."""
    from viewer import jsonenc

    dumps = jsonenc.dumps

    def broken(value: object, option: int | None = None) -> bytes:
        if isinstance(value, dict) and "operations" in value:
            raise error
        return dumps(value, option)

    monkeypatch.setattr(jsonenc, "dumps", broken)
    out = tmp_path / "out.json"
    for target in ([], ["-o", str(out)]):
        assert main(["summary", "--format", "json", *target, SMALL]) == 70
        assert "internal error" in capsys.readouterr().err
    assert sorted(tmp_path.iterdir()) == []


# --- subprocess: stdin, pipes, start-up -------------------------------------------------------


def test_stdin() -> None:
    data = Path(SMALL).read_bytes()
    res = run("summary", "-", "-f", "json", stdin=data)
    assert res.returncode == 0, res.stderr
    doc = orjson.loads(res.stdout)
    assert doc["source"]["file"] == "-"
    assert len(doc["operations"]) == 5
    res = run("check", "-", stdin=b"garbage")
    assert res.returncode == 2
    one_line_error(res.stderr.decode())


def test_garbage_no_traceback_subprocess(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.write_bytes(b"\xff\xfe{{{")
    res = run("check", str(bad))
    assert res.returncode == 2
    assert res.stdout == b""
    one_line_error(res.stderr.decode())


def test_broken_pipe_is_quiet(tmp_path: Path) -> None:
    events = []
    for i in range(3000):
        op = f"op-{i}"
        t = f"2026-03-01T09:{i // 60 % 60:02d}:{i % 60:02d}Z"
        events.append({"type": "tool-invocation", "time": t, "sessions": 0, "party": 1,
                       "operation_id": op, "attempt": 1, "server": "s", "tool": "t"})
    big = tmp_path / "big.vcon.json"
    big.write_bytes(orjson.dumps({"vcon": "0.4.0", "parties": [{}, {}],
                                  "sessions": [{}], "events": events}))
    for fmt in ("json", "csv", "text"):
        proc = subprocess.Popen(
            [sys.executable, "-m", "viewer.cli", "summary", str(big), "-f", fmt],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.read(100)
        proc.stdout.close()  # like `| head -c 100`
        err = proc.stderr.read()
        proc.stderr.close()
        assert proc.wait(timeout=60) == 0, err
        assert err == b"", err


def test_summary_json_does_not_import_rich_or_textual() -> None:
    code = (
        "import sys, io; from viewer.cli import main; "
        "sys.stdout = io.TextIOWrapper(io.BytesIO()); "
        f"rc = main(['summary', {SMALL!r}, '-f', 'json']); "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'textual')); "
        "sys.stderr.write(repr((rc, bad)))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT,
                         timeout=60, check=False)
    assert res.stderr.decode() == "(0, [])"


def test_check_does_not_import_rich_or_textual() -> None:
    code = (
        "import sys, io; from viewer.cli import main; "
        "sys.stdout = io.TextIOWrapper(io.BytesIO()); "
        f"rc = main(['check', {SMALL!r}]); "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'textual')); "
        "sys.stderr.write(repr((rc, bad)))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT,
                         timeout=60, check=False)
    assert res.stderr.decode() == "(0, [])"


# --- the TUI entry ----------------------------------------------------------------------------


class _PipedStdin(io.TextIOWrapper):
    """A piped standard input: not a terminal."""

    def isatty(self) -> bool:
        return False


def test_file_argument_opens_the_tui(monkeypatch: pytest.MonkeyPatch) -> None:
    import viewer.cli as cli
    import viewer.tui.app as app

    calls: list[tuple[str, bool, str | None, bytes | None]] = []
    trusts: list[object] = []

    def fake_run(path: str, *, ignore_critical: bool = False, theme: str | None = None,
                 data: bytes | None = None, trust: object = None) -> int:
        calls.append((path, ignore_critical, theme, data))
        trusts.append(trust)
        return 0

    checked: list[int] = []
    monkeypatch.setattr(app, "run", fake_run)
    monkeypatch.setattr(cli, "need_terminal", lambda: checked.append(1))
    monkeypatch.setattr(sys, "stdin", _PipedStdin(io.BytesIO(b'{"vcon": "0.3.0"}')))
    assert main([SMALL]) == 0
    assert checked == [1]  # a terminal is asked for before the viewer starts
    assert main(["-", "--ignore-critical", "--theme", "nord"]) == 0
    # stdin is read whole before the viewer starts, then the terminal takes its place
    assert calls == [(SMALL, False, None, None), ("-", True, "nord", b'{"vcon": "0.3.0"}')]
    assert checked == [1, 1]
    assert trusts == [None, None]  # no --trust: no anchors (and cryptography not needed)


def test_viewer_without_a_terminal_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """vcon-view FILE >out (a script, CI): refused with exit 2 instead of drawing forever."""
    import viewer.tui.app as app

    r, w = os.pipe()
    try:
        from viewer.cli import Refusal, need_terminal

        with pytest.raises(Refusal) as exc:
            need_terminal(w)
        assert exc.value.code == 2 and "stdout is not one" in exc.value.message
    finally:
        os.close(r)
        os.close(w)
    # and through main, where pytest's captured stdout is no terminal either
    original = app.run
    app.run = lambda *a, **k: pytest.fail("TUI started")
    try:
        assert main([SMALL]) == 2
    finally:
        app.run = original
    assert "needs a terminal" in one_line_error(capsys.readouterr().err)


def test_tui_refuses_stdin_that_is_the_terminal(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    import viewer.tui.app as app

    class Terminal(_PipedStdin):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(app, "run", lambda *a, **k: pytest.fail("TUI started"))
    monkeypatch.setattr(sys, "stdin", Terminal(io.BytesIO(b"")))
    assert main(["-"]) == 2
    assert "stdin is the terminal" in one_line_error(capsys.readouterr().err)


def test_keys_from_terminal_puts_the_terminal_in_place_of_a_pipe() -> None:
    from viewer.cli import keys_from_terminal

    master, slave = os.openpty()
    r, w = os.pipe()
    try:
        assert not os.isatty(r)
        keys_from_terminal(r, os.ttyname(slave))
        assert os.isatty(r)  # the descriptor now reads the terminal
        os.write(master, b"j\n")  # the terminal is line-buffered (canonical mode)
        assert os.read(r, 1) == b"j"
    finally:
        for fd in (master, slave, r, w):
            os.close(fd)


def test_keys_from_terminal_without_a_terminal_is_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    from viewer.cli import Refusal, keys_from_terminal

    r, w = os.pipe()
    try:
        with pytest.raises(Refusal) as exc:
            keys_from_terminal(r, "/nonexistent/tty")
        assert exc.value.code == 2
        assert "summary -" in exc.value.message
        assert not os.isatty(r)  # left as it was
    finally:
        os.close(r)
        os.close(w)


def test_tui_load_error_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    import viewer.tui.app as app
    from viewer.load import LoadError

    def refuse(path: str, **_kw: object) -> int:
        raise LoadError("x.vcon: critical extension(s) not supported", 3)

    monkeypatch.setattr(app, "run", refuse)
    monkeypatch.setattr("viewer.cli.need_terminal", lambda: None)
    assert main([SMALL]) == 3  # an existing file: the pre-check passes, run() refuses
    assert one_line_error(capsys.readouterr().err) == (
        "vcon-view: x.vcon: critical extension(s) not supported")


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_tui_path_refused_on_the_command_line(kind: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A path that cannot be opened gets one line and exit 2 before any screen is drawn."""
    import viewer.tui.app

    monkeypatch.setattr(viewer.tui.app, "run", lambda *a, **k: pytest.fail("TUI started"))
    path = tmp_path / "nope.json" if kind == "missing" else tmp_path
    assert main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert ("no such file" if kind == "missing" else "is a directory") in err


# --- the corpus files their source project rejects ------------------------------------------


#: vcon-server's invalid fixtures -> the error diagnostics each must get (code, pointer)
REJECTED = {
    "vcon-server__bad_dialog_types.json": [
        ("index-out-of-range", "/dialog/0/parties/0"),
        ("index-out-of-range", "/dialog/0/parties/1"),
        ("invalid-type", "/dialog/0/mimetype")],
    "vcon-server__empty_vcon.json": [("invalid-value", "/uuid")],
    "vcon-server__missing_uuid_and_vcon_version.json": [("missing-required", "")],
    "vcon-server__null_dialog_string_analysis.json": [("invalid-structure", "/analysis")],
    "vcon-server__null_parties.json": [("missing-required", ""),
                                       ("invalid-type", "/dialog/0/mimetype")],
    "vcon-server__out_of_range_party_indices.json": [
        ("index-out-of-range", "/dialog/0/parties/1"),
        ("index-out-of-range", "/dialog/0/parties/2"),
        ("index-out-of-range", "/dialog/0/originator")],
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_check_fails_every_vcon_its_source_rejects(name: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """vcon-server's invalid fixtures (uuid, parties, dialog indices and types, shapes)."""
    assert main(["check", str(FIXTURES / "load" / "invalid" / name), "--format", "json"]) == 1
    report = orjson.loads(capsys.readouterr().out)
    errors = [(d["code"], d["pointer"]) for d in report["diagnostics"] if d["severity"] == "error"]
    assert errors == REJECTED[name]


def test_every_rejected_fixture_is_pinned() -> None:
    assert {p.name for p in (FIXTURES / "load" / "invalid").glob("*.json")} == set(REJECTED)


def test_piped_text_summary_is_wide_enough_to_grep(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Piped (no terminal): 160 columns, so a server URL stays on one line; COLUMNS wins."""
    tour = str(ROOT / "demo_vcons" / "tour.vcon.json")
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["summary", tour]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any("https://mcp.shop.example/mcp" in line for line in lines)  # not folded
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["summary", tour]) == 0
    assert max(map(len, capsys.readouterr().out.splitlines())) <= 80
