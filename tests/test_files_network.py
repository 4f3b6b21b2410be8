"""Files and network (issue 6): the input is evidence, and vcon-view never phones home.

* The input is opened read-only and never modified: its hash and mtime are the same after
  load, model, every export, the CLI with ``-o`` everywhere, and a TUI session that presses
  every key.
* Exports are atomic and refuse to overwrite the input (by path, symlink, hard link, or a
  spelling such as ``dir/../file``).
* A missing, unreadable or directory path gets one clear line and exit status 2.
* No socket of an internet family is created, no name is resolved, while loading, building,
  exporting and viewing the demo files (some hold external ``url`` content) in the TUI.
* Every file in the shared corpus and every demo opens in every export format and in the TUI
  (Pilot) without a traceback.
"""

from __future__ import annotations

import builtins
import hashlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.modelkit import tool, vcon
from viewer.load import LoadError, load_path
from viewer.model.build import build_model
from viewer.model.types import Model
from viewer.report.csv import to_csv
from viewer.report.markdown import to_markdown
from viewer.report.summary import to_json
from viewer.report.text import to_text
from viewer.report.write import write_atomic

ROOT = Path(__file__).resolve().parent.parent
DEMOS = ROOT / "demo_vcons"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"  # vcons/ and the MCP traces (which are refused in one line)
HOSTILE = ROOT / "tests" / "fixtures" / "hostile_content.vcon.json"
SHA512 = "sha512-" + "A" * 86


def _files(folder: Path, patterns: tuple[str, ...]) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for pat in patterns for p in folder.rglob(pat) if p.is_file())


DEMO_FILES = _files(DEMOS, ("*.vcon.json", "*.vcon.json.gz"))
CORPUS_FILES = [p for p in _files(CORPUS, ("*",)) if p.name != "MANIFEST.md"]


def _id(p: Path) -> str:
    return p.name


def url_vcon() -> bytes:
    """Our own file with external content (url + content_hash) in events and the vCon."""
    import orjson

    ev = tool("tool-result", 1, url="https://files.example.com/result.json",
              content_hash=SHA512)
    del ev["body"], ev["encoding"]
    doc = vcon([tool("tool-invocation", 0), ev],
               attachments=[{"url": "https://files.example.com/a.pdf", "content_hash": SHA512,
                             "mediatype": "application/pdf", "filename": "a.pdf"}],
               dialog=[{"type": "recording", "start": "2026-03-01T09:00:00Z", "parties": [0],
                        "url": "http://127.0.0.1:9/audio.wav", "content_hash": SHA512,
                        "mediatype": "audio/x-wav"}])
    return orjson.dumps(doc)


def all_exports(model: Model) -> dict[str, bytes]:
    from viewer.report.check import check_lines

    return {
        "json": to_json(model),
        "md": to_markdown(model).encode(),
        "csv": to_csv(model).encode(),
        "text": to_text(model).encode(),
        "check": "\n".join(check_lines(model)).encode(),
    }


def _state(p: Path) -> tuple[str, int, int]:
    st = p.stat()
    return hashlib.sha256(p.read_bytes()).hexdigest(), st.st_mtime_ns, st.st_mode


# --- the input is never written ------------------------------------------------------------------


@pytest.fixture
def input_copy(tmp_path: Path) -> Path:
    p = tmp_path / "evidence.vcon.json"
    p.write_bytes(HOSTILE.read_bytes())
    return p


def test_loader_opens_the_input_read_only(input_copy: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[tuple[str, str]] = []
    real_open = builtins.open

    def spy(file: Any, mode: str = "r", *a: Any, **kw: Any) -> Any:
        opened.append((str(file), mode))
        return real_open(file, mode, *a, **kw)

    real_os_open = os.open
    os_opened: list[tuple[str, int]] = []

    def os_spy(path: Any, flags: int, *a: Any, **kw: Any) -> int:
        os_opened.append((str(path), flags))
        return real_os_open(path, flags, *a, **kw)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(os, "open", os_spy)
    model = build_model(load_path(str(input_copy)))
    all_exports(model)
    mine = [m for f, m in opened if f == str(input_copy)]
    assert mine == ["rb"]
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
    assert all(not (fl & write_flags) for f, fl in os_opened if f == str(input_copy))


def test_a_read_only_input_loads(input_copy: Path) -> None:
    input_copy.chmod(0o444)
    assert build_model(load_path(str(input_copy))).operations


@pytest.mark.parametrize("fmt", ["text", "json", "md", "csv"])
def test_cli_session_leaves_the_input_untouched(input_copy: Path, tmp_path: Path,
                                                fmt: str) -> None:
    before = _state(input_copy)
    out = tmp_path / f"out.{fmt}"
    for args in (["summary", "-f", fmt, "-o", str(out)], ["check"], ["check", "-f", "json"],
                 ["summary", "-f", fmt]):
        proc = subprocess.run([sys.executable, "-m", "viewer.cli", *args, str(input_copy)],
                              capture_output=True, timeout=120, check=False)
        assert proc.returncode in (0, 1), proc.stderr[-500:]
    assert out.stat().st_size > 0
    assert _state(input_copy) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["evidence.vcon.json",
                                                                 out.name])


# --- exports: atomic, never over the input ---------------------------------------------


def _aliases(input_copy: Path, tmp_path: Path) -> Iterator[Path]:
    yield input_copy
    yield tmp_path / "sub" / ".." / input_copy.name
    link = tmp_path / "link.json"
    link.symlink_to(input_copy)
    yield link
    hard = tmp_path / "hard.json"
    os.link(input_copy, hard)
    yield hard


def test_write_atomic_refuses_the_input_in_every_spelling(input_copy: Path,
                                                          tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    before = _state(input_copy)
    for target in _aliases(input_copy, tmp_path):
        with pytest.raises(ValueError, match="input file"):
            write_atomic(target, b"{}", input_path=str(input_copy))
    assert _state(input_copy) == before


@pytest.mark.parametrize("fmt", ["json", "md", "csv", "text"])
def test_cli_refuses_to_export_over_the_input(input_copy: Path, tmp_path: Path,
                                              fmt: str) -> None:
    before = _state(input_copy)
    (tmp_path / "sub").mkdir()
    for target in _aliases(input_copy, tmp_path):
        proc = subprocess.run(
            [sys.executable, "-m", "viewer.cli", "summary", "-f", fmt, "-o", str(target),
             str(input_copy)], capture_output=True, timeout=120, check=False)
        assert proc.returncode == 2
        err = proc.stderr.decode()
        assert err.count("\n") == 1 and "input file" in err and "Traceback" not in err
    assert _state(input_copy) == before


def test_failed_export_leaves_the_old_file_and_no_temporary(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    target = tmp_path / "report.md"
    target.write_bytes(b"old report\n")

    def boom(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        write_atomic(target, b"new report\n" * 1000, input_path=None)
    assert target.read_bytes() == b"old report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]


def test_export_replaces_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The target is only ever swapped by one rename of a complete temporary file."""
    target = tmp_path / "report.json"
    target.write_bytes(b"old")
    calls: list[tuple[str, str, bytes]] = []
    real_replace = os.replace

    def spy(src: Any, dst: Any) -> None:
        calls.append((str(src), str(dst), Path(src).read_bytes()))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    write_atomic(target, b"complete", input_path=None)
    assert len(calls) == 1 and calls[0][1] == str(target) and calls[0][2] == b"complete"
    assert Path(calls[0][0]).parent == tmp_path
    assert target.read_bytes() == b"complete"


# --- one clear line for a path that cannot be read -----------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "viewer.cli", *args], capture_output=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("command", [["summary"], ["check"], ["summary", "-f", "json"]])
def test_missing_and_directory_paths_get_one_line(tmp_path: Path, command: list[str]) -> None:
    for path, words in ((tmp_path / "nope.json", "no such file"),
                        (tmp_path, "is a directory")):
        proc = _cli(*command, str(path))
        err = proc.stderr.decode()
        assert proc.returncode == 2
        assert proc.stdout == b""
        assert err.count("\n") == 1 and words in err and "Traceback" not in err


def test_unreadable_path_gets_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Simulated (tests may run as root, where chmod 000 does not stop a read)."""
    p = tmp_path / "locked.json"
    p.write_bytes(url_vcon())
    real_open = builtins.open

    def deny(file: Any, mode: str = "r", *a: Any, **kw: Any) -> Any:
        if str(file) == str(p):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, mode, *a, **kw)

    monkeypatch.setattr(builtins, "open", deny)
    with pytest.raises(LoadError) as exc:
        load_path(str(p))
    assert exc.value.exit_code == 2 and exc.value.message.endswith("permission denied")
    from viewer.cli import main

    assert main(["summary", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "permission denied" in err


async def test_tui_with_a_missing_or_directory_path_shows_one_line(tmp_path: Path) -> None:
    """The TUI shows the loader's one line in a notice and quits with status 2."""
    from viewer.tui.app import make_app
    from viewer.tui.loading import LoadErrorScreen

    for path, words in ((tmp_path / "nope.json", "no such file"), (tmp_path, "is a directory")):
        app = make_app(str(path))
        async with app.run_test(size=(100, 30)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert isinstance(app.screen, LoadErrorScreen)
            assert app.load_error is not None
            msg = app.load_error.message
            assert "\n" not in msg and words in msg
            await pilot.press("enter")
            await pilot.pause()
        assert app.return_code == 2


# --- no network ------------------------------------------------------------------------


class NetworkUsed(AssertionError):
    pass


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Any internet socket, connection or name lookup raises (and is recorded).

    AF_UNIX socket pairs stay allowed: asyncio's event loop (the TUI) wakes itself with one.
    """
    attempts: list[str] = []
    real_socket = socket.socket

    class GuardedSocket(real_socket):  # type: ignore[misc,valid-type]
        def __init__(self, family: Any = -1, type: Any = -1, proto: Any = -1,
                     fileno: Any = None) -> None:
            fam = socket.AF_INET if family == -1 and fileno is None else family
            if fam in (socket.AF_INET, socket.AF_INET6):
                attempts.append(f"socket({fam!r})")
                raise NetworkUsed(f"vcon-view created an internet socket ({fam!r})")
            super().__init__(family, type, proto, fileno)

        def connect(self, address: Any) -> None:
            attempts.append(f"connect({address!r})")
            raise NetworkUsed(f"vcon-view connected to {address!r}")

    def refuse(name: str) -> Any:
        def f(*a: Any, **kw: Any) -> Any:
            attempts.append(f"{name}{a!r}")
            raise NetworkUsed(f"vcon-view called socket.{name}")
        return f

    monkeypatch.setattr(socket, "socket", GuardedSocket)
    for name in ("create_connection", "getaddrinfo", "gethostbyname", "gethostbyname_ex",
                 "gethostbyaddr", "create_server"):
        monkeypatch.setattr(socket, name, refuse(name))
    return attempts


def test_guard_catches_a_connection(no_network: list[str]) -> None:
    with pytest.raises(NetworkUsed):
        socket.create_connection(("127.0.0.1", 9))
    with pytest.raises(NetworkUsed):
        socket.socket()
    a, b = socket.socketpair()  # local pairs stay allowed
    a.close()
    b.close()
    assert len(no_network) == 2


def test_no_network_while_loading_building_and_exporting(no_network: list[str],
                                                         tmp_path: Path) -> None:
    own = tmp_path / "urls.vcon.json"
    own.write_bytes(url_vcon())
    for path in [own, *DEMO_FILES]:
        try:
            model = build_model(load_path(str(path)))
        except LoadError:
            continue
        exports = all_exports(model)
        assert all(v for k, v in exports.items() if k != "check")
        write_atomic(tmp_path / "x.md", exports["md"], input_path=str(path))
    assert no_network == []


# --- every corpus file and demo: every export, no traceback ------------------------------------


@pytest.mark.parametrize("path", DEMO_FILES + CORPUS_FILES, ids=_id)
def test_every_file_loads_and_exports(path: Path) -> None:
    before = _state(path)
    try:
        model = build_model(load_path(str(path)))
    except LoadError as e:
        assert e.exit_code in (2, 3) and "\n" not in e.message
        return
    for name, data in all_exports(model).items():
        assert data or name == "check", name
    assert _state(path) == before


@pytest.mark.parametrize("path", DEMO_FILES + CORPUS_FILES, ids=_id)
def test_every_file_through_the_cli(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from viewer.cli import main

    for args in (["summary", "-f", "json"], ["summary", "-f", "md"], ["summary", "-f", "csv"],
                 ["summary"], ["check"], ["check", "-f", "json"]):
        status = main([*args, str(path)])
        out, err = capsys.readouterr()
        assert "internal error" not in err, err[-1000:]
        assert status in (0, 1, 2, 3)
        if status in (2, 3):
            assert err.count("\n") == 1 and out == ""
        else:
            assert out and err == ""


# --- the TUI (Pilot): every file opens; a session with every key; no network ---------------------

SESSION_KEYS = (
    "j", "j", "k", "l", "h", "pagedown", "pageup", "end", "home", "G", "g",
    "enter", "l", "h", "j", "k", "r", "a", "space", "pagedown", "pageup", "t", "n", "N", "y",
    "d", "escape", "escape",
    "r", "escape", "n", "N", "f", "j", "k", "escape",
    "slash", "o", "p", "enter", "escape", "t", "t", "plus", "minus", "equals_sign", "0",
    "d", "escape", "y", "e", "escape", "question_mark", "escape",
)


async def _open(path: Path, keys: tuple[str, ...] = (), size: tuple[int, int] = (120, 36)
                ) -> tuple[Any, str]:
    """Open ``path`` in the TUI, press ``keys``, quit; (app, final screen's class name).

    A traceback inside the app makes ``run_test`` raise, which fails the test.
    """
    from viewer.tui.app import make_app

    app = make_app(str(path))
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        first = type(app.screen).__name__
        for k in keys:
            await pilot.press(k)
        await pilot.pause()
        assert "\x1b" not in app.export_screenshot().replace("\x1b[", "")
        await pilot.press("escape", "escape", "q")
    return app, first


@pytest.fixture
def no_clipboard(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``y`` copies: record instead of touching the machine's clipboard."""
    import pyperclip

    copied: list[str] = []
    monkeypatch.setattr(pyperclip, "copy", copied.append)
    return copied


@pytest.mark.parametrize("path", DEMO_FILES + CORPUS_FILES, ids=_id)
async def test_every_file_opens_in_the_tui(path: Path) -> None:
    app, first = await _open(path, ("j", "enter", "escape"))
    assert first in ("TimelineScreen", "LoadErrorScreen")
    if first == "LoadErrorScreen":
        assert app.load_error is not None and "\n" not in app.load_error.message


async def test_tui_session_with_every_key_leaves_the_input_untouched(
    tmp_path: Path, no_clipboard: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    evidence = tmp_path / "evidence.vcon.json"
    evidence.write_bytes(HOSTILE.read_bytes())
    before = _state(evidence)
    monkeypatch.chdir(tmp_path)  # a default export name lands here, never over the input
    _app, first = await _open(evidence, SESSION_KEYS)
    assert first == "TimelineScreen"
    assert _state(evidence) == before
    assert no_clipboard, "y copied nothing"
    for copied in no_clipboard:
        assert "\x1b" not in copied and "\u202e" not in copied


URL_DEMOS = [p for p in DEMO_FILES if p.suffix == ".json" and b'"url"' in p.read_bytes()]


# One demo with url content and our own fixture in the normal suite (a session with every key
# takes seconds); every demo and corpus file in the slow test below.
@pytest.mark.parametrize("path", [*URL_DEMOS[:1], "own-url-fixture"], ids=str)
async def test_no_network_while_viewing(path: Path | str, no_network: list[str],
                                        no_clipboard: list[str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Demo files with external url content, and our own, viewed with every key."""
    if path == "own-url-fixture":
        path = tmp_path / "urls.vcon.json"
        path.write_bytes(url_vcon())
    monkeypatch.chdir(tmp_path)
    await _open(Path(path), SESSION_KEYS)
    assert no_network == []


@pytest.mark.slow
@pytest.mark.parametrize("path", DEMO_FILES + CORPUS_FILES, ids=_id)
async def test_every_file_survives_a_session_with_every_key(
    path: Path, no_network: list[str], no_clipboard: list[str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    before = _state(path)
    await _open(path, SESSION_KEYS)
    assert no_network == []
    assert _state(path) == before
