"""``vcon-view serve FILE``: the viewer in a browser through textual-serve, on 127.0.0.1 only.

The refusals (missing extra, bad file, busy port) come before anything is served; the command
textual-serve runs is quoted word by word for its shell.
"""

from __future__ import annotations

import argparse
import os
import shlex
import socket
import sys
from pathlib import Path

import pytest

from viewer import cli, serve

ROOT = Path(__file__).resolve().parent.parent
TOUR = ROOT / "demo_vcons" / "tour.vcon.json"
#: A file name a shell would split and run: it must reach the viewer as one word.
HOSTILE_NAME = "my tour; touch PWNED $(touch PWNED2) `touch PWNED3`.vcon.json"


@pytest.fixture
def never_served(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """textual-serve's Server.serve replaced by a recorder: nothing listens."""
    from textual_serve.server import Server

    served: list[object] = []
    monkeypatch.setattr(Server, "serve", lambda self, debug=False: served.append(self))
    return served


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


def free_port() -> int:
    """A port nothing listens on now (the OS's pick on loopback)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
    assert "0.0.0.0" not in capsys.readouterr().out


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
