"""``vcon-view serve FILE``: the viewer in a browser through textual-serve, on 127.0.0.1 only.

The refusals (missing extra, bad file, busy port) come before anything is served; the command
textual-serve runs is quoted word by word for its shell. Then the real thing: the server on a
free port, headless Chromium (Debian's ``chromium``, installed by ``.ci/run``) driven over its
DevTools protocol by ``scripts/serve_screenshot.py``: the rows appear, ``j`` moves the
selection, a screenshot. Skipped only where Chromium is missing outside CI (CI=true fails).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from scriptkit import load_script

from viewer import cli, serve

ROOT = Path(__file__).resolve().parent.parent
TOUR = ROOT / "demo_vcons" / "tour.vcon.json"
#: A file name a shell would split and run, with markup: it reaches the viewer as one word, and
#: the page names it as text.
HOSTILE_NAME = "my tour; touch PWNED $(touch PWNED2) `touch PWNED3` <b>x.vcon.json"


@pytest.fixture
def never_served(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The textual-serve servers made; aiohttp's run_app replaced by a recorder that says the
    URL line as when listening: nothing listens."""
    from aiohttp import web
    from textual_serve.server import Server

    made: list[object] = []
    init = Server.__init__

    def record(self: Server, *args: object, **kwargs: object) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    def run_app(app: Any, **kwargs: Any) -> None:
        app.close()  # the coroutine that would make the aiohttp app
        assert (kwargs["host"], kwargs["port"]) == (made[-1].host, made[-1].port)
        kwargs["print"]("aiohttp's own banner")

    monkeypatch.setattr(Server, "__init__", record)
    monkeypatch.setattr(web, "run_app", run_app)
    return made


def _one_line(err: str) -> str:
    assert err.count("\n") == 1, err
    assert err.startswith("vcon-view: "), err
    return err


def test_the_command_quotes_every_word(tmp_path: Path) -> None:
    path = tmp_path / HOSTILE_NAME
    args = argparse.Namespace(file=str(path), ignore_critical=True, theme="vcon-light",
                              trust="anchors; rm -rf x.pem", goto="op-03f1")
    command = serve.app_command(args)
    assert shlex.split(command) == [
        sys.executable, "-m", "viewer", str(path), "--ignore-critical", "--theme", "vcon-light",
        "--trust", os.path.abspath("anchors; rm -rf x.pem"), "--goto", "op-03f1"]


def test_a_relative_file_is_served_by_its_absolute_name(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    args = argparse.Namespace(file="summary", ignore_critical=False, theme=None, trust=None,
                              goto=None)
    # "summary" would be the subcommand; an absolute name is always the file
    assert shlex.split(serve.app_command(args))[3] == str(tmp_path / "summary")


SS = load_script("serve_screenshot")
free_port = SS.free_port


def test_serves_the_file_on_loopback_only(never_served: list[object],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    assert cli.main(["serve", str(TOUR), "--port", str(port)]) == 0
    (server,) = never_served
    assert server.host == "127.0.0.1"  # type: ignore[attr-defined]
    assert server.port == port  # type: ignore[attr-defined]
    assert server.public_url == f"http://127.0.0.1:{port}"  # type: ignore[attr-defined]
    assert shlex.split(server.command)[1:] == [  # type: ignore[attr-defined]
        "-m", "viewer", str(TOUR)]
    assert server.title == "vcon-view tour.vcon.json"  # type: ignore[attr-defined]
    assert capsys.readouterr().out == (f"vcon-view: serving tour.vcon.json at http://127.0.0.1:"
                                       f"{port}/ (this machine only; Ctrl+C stops)\n")


def test_default_port(never_served: list[object], capsys: pytest.CaptureFixture[str]) -> None:
    if cli.main(["serve", str(TOUR)]) == 0:
        assert never_served[0].port == serve.PORT == 8000  # type: ignore[attr-defined]
    else:  # something else listens there: the refusal names the default
        assert "127.0.0.1:8000" in capsys.readouterr().err


def test_there_is_no_host_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["serve", str(TOUR), "--host", "0.0.0.0"]) == 2
    assert "unrecognized arguments: --host" in capsys.readouterr().err


def test_missing_extra_is_one_line_naming_it(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "textual_serve", None)  # import textual_serve fails
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    assert cli.main(["serve", str(TOUR)]) == 2
    err = _one_line(capsys.readouterr().err)
    assert "pip install 'vcon-view[serve]'" in err


@pytest.mark.parametrize("case", ["missing", "folder", "not-json", "not-a-vcon", "stdin"])
def test_a_bad_file_is_refused_before_serving(case: str, tmp_path: Path,
                                              never_served: list[object],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = {"missing": str(tmp_path / "nope.vcon.json"), "folder": str(tmp_path),
            "not-json": str(tmp_path / "x.json"), "not-a-vcon": str(tmp_path / "y.json"),
            "stdin": "-"}[case]
    (tmp_path / "x.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "y.json").write_text('{"hello": "world"}', encoding="utf-8")
    status = cli.main(["serve", path])
    assert status != 0
    _one_line(capsys.readouterr().err)
    assert never_served == []


def test_a_busy_port_is_one_line(never_served: list[object],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert cli.main(["serve", str(TOUR), "--port", str(port)]) == 2
    err = _one_line(capsys.readouterr().err)
    assert f"127.0.0.1:{port}" in err and "--port" in err
    assert never_served == []


@pytest.mark.parametrize("port", ["0", "65536", "http", "-1"])
def test_a_bad_port_is_a_usage_error(port: str, never_served: list[object],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["serve", str(TOUR), "--port", port]) == 2
    assert "port number 1-65535" in capsys.readouterr().err
    assert never_served == []


def test_the_served_viewer_draws_on_its_pipes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under textual-serve stdout is a pipe to the server: that is its terminal."""
    read, write = os.pipe()
    try:
        monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
        with pytest.raises(Exception, match="needs a terminal"):
            cli.need_terminal(write)
        monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
        cli.need_terminal(write)  # no refusal, and stdin is left to the driver
    finally:
        os.close(read)
        os.close(write)


def test_the_page_template_asks_nothing_of_the_network(tmp_path: Path) -> None:
    import textual_serve

    shipped = Path(textual_serve.__file__).parent
    page = serve.local_page(shipped, tmp_path) / "app_index.html"
    original = (shipped / "templates" / "app_index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis.com" in original  # what is replaced (else this test is moot)
    text = page.read_text(encoding="utf-8")
    assert "googleapis" not in text and "https://" not in text
    assert (shipped / "static" / "fonts" / "RobotoMono-VariableFont_wght.ttf").is_file()
    assert "fonts/RobotoMono-VariableFont_wght.ttf" in text


def _listening(port: int) -> set[str]:
    """The local addresses of the sockets listening on ``port`` (Linux's /proc/net)."""
    found = set()
    for table in ("tcp", "tcp6"):
        path = Path("/proc/net") / table
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                raw = bytes.fromhex(address)
                found.add(socket.inet_ntoa(raw[::-1]) if table == "tcp" else
                          socket.inet_ntop(socket.AF_INET6, b"".join(
                              raw[i:i + 4][::-1] for i in range(0, 16, 4))))
    return found


async def _handshake(port: int, origin: str | None) -> int:
    """The websocket handshake's status with this Origin (a browser always sends one)."""
    import aiohttp

    headers = {"Origin": origin} if origin else {}
    async with aiohttp.ClientSession() as http:
        try:
            async with http.ws_connect(f"http://127.0.0.1:{port}/ws?width=80&height=24",
                                       headers=headers) as ws:
                await ws.receive(timeout=30)  # the viewer's first output
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


def _get_page(port: int, host: str) -> int:
    """The status of GET / under this Host header."""
    import urllib.error

    try:
        return _page(port, host)[0]
    except urllib.error.HTTPError as exc:
        return exc.code


def _page(port: int, host: str | None = None) -> tuple[int, str]:
    import urllib.request

    request = urllib.request.Request(f"http://127.0.0.1:{port}/",
                                     headers={"Host": host} if host else {})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return int(reply.status), reply.read().decode("utf-8")


def test_only_its_own_page_may_open_the_viewer(tmp_path: Path) -> None:
    """A page of another site in the same browser could otherwise open the websocket, read the
    recording and type keys (an export writes files)."""
    import asyncio

    with SS.served(TOUR, tmp_path) as run:
        port = run.port
        assert _listening(port) == {"127.0.0.1"}  # (also without Chromium)
        statuses = {origin: asyncio.run(_handshake(port, origin)) for origin in (
            "http://evil.example", f"http://evil.example:{port}", "null",
            f"http://127.0.0.1:{port + 1}", f"https://127.0.0.1:{port}",
            f"http://127.0.0.1:{port}", f"http://localhost:{port}")}
        pages = {host: _get_page(port, host) for host in (
            f"evil.example:{port}", f"127.0.0.1:{port}", f"localhost:{port}")}
    # a site's name rebound to 127.0.0.1 does not get the page (nor the file name in it)
    assert pages == {f"evil.example:{port}": 403, f"127.0.0.1:{port}": 200,
                     f"localhost:{port}": 200}
    assert statuses == {
        "http://evil.example": 403, f"http://evil.example:{port}": 403, "null": 403,
        f"http://127.0.0.1:{port + 1}": 403, f"https://127.0.0.1:{port}": 403,
        f"http://127.0.0.1:{port}": 101, f"http://localhost:{port}": 101}


# --- in a browser ---------------------------------------------------------------------------


@dataclass
class Browsed:
    run: Any  # serve_screenshot.Served
    seen: Any  # serve_screenshot.Tour
    listening: set[str]
    html: str  # the page as served
    cwd: Path
    shot: Path


@pytest.fixture(scope="module")
def browsed(tmp_path_factory: pytest.TempPathFactory) -> Browsed:
    """The tour, copied under a name a shell would run, served and opened in Chromium."""
    if SS.chromium() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed, and CI must run the browser test "
                        "(.ci/run installs it)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    work = tmp_path_factory.mktemp("serve")
    file = work / HOSTILE_NAME
    shutil.copyfile(TOUR, file)
    cwd = work / "cwd"  # where a shell-read file name would create PWNED
    cwd.mkdir()
    shot = work / "serve-tour.png"
    with SS.served(file, cwd) as run:
        listening = _listening(run.port)
        html = _page(run.port)[1]
        seen = SS.tour(run.url, shot, work / "chromium")
    return Browsed(run, seen, listening, html, cwd, shot)


def test_the_browser_shows_the_rows_and_j_moves_the_selection(browsed: Browsed) -> None:
    seen = browsed.seen
    for text in ("op-01a7", "lookup_order", "op-03f1", "issue_refund", "op-12d6"):
        assert text in seen.before, f"{text!r} not in the page's terminal:\n{seen.before}"
    assert seen.selected_before == ["op-01a7"]
    assert seen.selected_after == ["op-02c4"]
    data = browsed.shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # drawn, not blank


def test_the_file_name_reaches_the_viewer_as_one_word(browsed: Browsed) -> None:
    assert HOSTILE_NAME in browsed.seen.before  # the header names the file, whole
    assert not list(browsed.cwd.parent.rglob("PWNED*"))  # no shell ran any part of it
    assert "&lt;b&gt;x" in browsed.html and "<b>" not in browsed.html  # named as text


def test_it_listens_on_loopback_only(browsed: Browsed) -> None:
    assert browsed.listening == {"127.0.0.1"}


def test_the_page_asks_nothing_beyond_the_server(browsed: Browsed) -> None:
    port = browsed.run.port
    requested = browsed.seen.requested
    assert f"ws://127.0.0.1:{port}/ws" in {u.split("?")[0] for u in requested}
    outside = [u for u in requested
               if not u.startswith((f"http://127.0.0.1:{port}/", f"ws://127.0.0.1:{port}/"))]
    assert outside == []


def test_one_line_with_the_url_then_a_clean_stop(browsed: Browsed) -> None:
    run = browsed.run
    assert run.first_line == (f"vcon-view: serving {HOSTILE_NAME} at "
                              f"http://127.0.0.1:{run.port}/ (this machine only; Ctrl+C stops)\n")
    assert run.rest == ""  # nothing more on stdout, up to Ctrl+C
    assert run.returncode == 0
