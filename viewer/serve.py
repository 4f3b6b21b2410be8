"""``vcon-view serve FILE``: the same viewer in a browser, through textual-serve.

textual-serve (the ``serve`` extra) is Textual's own web front end: for each browser tab it
starts the command below with Textual's web driver and relays the terminal over a websocket,
so there is no terminal emulation of ours to keep. The command is ``python -m viewer FILE``
with every word quoted (textual-serve hands it to ``/bin/sh``): a file name is never read by a
shell. The server listens on 127.0.0.1 only, and its page asks for nothing elsewhere (the web
font textual-serve's page would fetch is the copy it ships): the recording stays here.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import shlex
import signal
import socket
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from viewer.cli import EX_OK, EX_USAGE, PROG, _Exit, _load_model, _trust_arg
from viewer.textsafe import safe

#: Loopback only: a recording's content must not be offered to the network.
HOST = "127.0.0.1"
#: The default port (textual-serve's own default); ``--port`` picks another.
PORT = 8000


#: textual-serve's page fetches Roboto Mono from a web font service, a font it also ships: the
#: page is served with that link replaced by the shipped font, so it asks nothing of the network.
WEB_FONT = re.compile(r'<link\s+rel="stylesheet"\s+href="https://fonts\.googleapis\.com/[^"]*"\s*/?>')
FONT = "{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf"
LOCAL_FONT = (f'<link rel="preload" as="font" type="font/ttf" href="{FONT}" crossorigin />\n'
              '    <style>@font-face { font-family: "Roboto Mono"; '
              f'src: url("{FONT}"); }}</style>')


def local_page(textual_serve_dir: Path, dest: Path) -> Path:
    """A copy of textual-serve's templates in ``dest``, the page's web font made local."""
    for template in (textual_serve_dir / "templates").iterdir():
        text = template.read_text(encoding="utf-8")
        (dest / template.name).write_text(WEB_FONT.sub(lambda _: LOCAL_FONT, text),
                                          encoding="utf-8")
    return dest


def _port(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if not 1 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 1-65535, got {value!r}")
    return n


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} serve",
        description=f"Serve the viewer on FILE to a browser at http://{HOST}:PORT/ (this "
                    "machine only); each browser tab runs its own viewer. Ctrl+C stops.",
    )
    p.add_argument("file", metavar="FILE", help="vCon or agent recording (not stdin)")
    p.add_argument("--port", type=_port, default=PORT, metavar="N",
                   help=f"port on {HOST} (default {PORT})")
    p.add_argument("--ignore-critical", action="store_true",
                   help="open a vCon whose 'critical' names unsupported extensions (marked)")
    p.add_argument("--theme", metavar="NAME", help="theme name")
    _trust_arg(p)
    p.add_argument("--goto", metavar="OPERATION_ID", help="open with this operation selected")
    return p


def app_command(args: argparse.Namespace) -> str:
    """The shell command textual-serve runs per browser tab: this interpreter, ``-m viewer``,
    the absolute file name and the options, each word quoted for ``/bin/sh``."""
    argv = [sys.executable, "-m", "viewer", os.path.abspath(args.file)]
    if args.ignore_critical:
        argv.append("--ignore-critical")
    if args.theme:
        argv += ["--theme", args.theme]
    if args.trust:
        argv += ["--trust", os.path.abspath(args.trust)]
    if args.goto is not None:
        argv += ["--goto", args.goto]
    return shlex.join(argv)


def _check_port(port: int) -> None:
    """Bind and release the port first, so a busy one is one line before anything is shown."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError as exc:
            raise _Exit(f"serve: cannot listen on {HOST}:{port}: {exc.strerror or exc}; "
                        "try --port N", EX_USAGE) from None


def cmd_serve(argv: Sequence[str]) -> int:
    """Check the extra, the file and the port, then serve until Ctrl+C."""
    args = _parser().parse_args(argv)
    try:
        import textual_serve
        from textual_serve.server import Server
    except ImportError:
        raise _Exit("serve needs textual-serve: pip install 'vcon-view[serve]'",
                    EX_USAGE) from None
    if args.file == "-":
        raise _Exit("serve: name a FILE; each browser tab reads it afresh, so stdin cannot "
                    "be served", EX_USAGE)
    _load_model(args.file, args.ignore_critical, args.trust)  # a bad FILE: one line, here
    _check_port(args.port)
    command = app_command(args)
    name = safe(os.path.basename(args.file))
    hosts = (f"{HOST}:{args.port}", f"localhost:{args.port}")

    def refuse_other_sites(request: Any) -> None:
        """Only this server's own page may start a viewer: browsers let a page of any site
        open a websocket to 127.0.0.1 (Origin: that site), or reach it under the site's own
        name (Host: a name rebound to 127.0.0.1), and read the recording and type keys. A
        browser always says both; other local programs are not stopped (no login)."""
        origin = request.headers.get("Origin", f"http://{request.host}")
        if request.host not in hosts or origin not in {f"http://{h}" for h in hosts}:
            from aiohttp import web

            raise web.HTTPForbidden(text=f"{PROG} serve: only its own page may connect")

    class ViewerServer(Server):  # type: ignore[misc]
        """textual-serve, logging only warnings and saying one line: the URL, once the port
        listens (aiohttp's ``print`` hook, which textual-serve's ``serve`` silences)."""

        def initialize_logging(self) -> None:
            logging.basicConfig(level=logging.WARNING, format=f"{PROG} serve: %(message)s")

        async def on_startup(self, app: object) -> None:
            """No banner."""

        async def handle_index(self, request: Any) -> Any:
            refuse_other_sites(request)
            return await super().handle_index(request)

        async def handle_websocket(self, request: Any) -> Any:
            refuse_other_sites(request)
            return await super().handle_websocket(request)

        def serve(self, debug: bool = False) -> None:
            from aiohttp import web

            self.debug = debug
            self.initialize_logging()
            loop = asyncio.new_event_loop()
            try:
                for signum in (signal.SIGINT, signal.SIGTERM):
                    loop.add_signal_handler(signum, self.request_exit)
                web.run_app(self._make_app(), host=self.host, port=self.port, loop=loop,
                            handle_signals=False, print=lambda _: print(
                                f"{PROG}: serving {name} at {self.public_url}/ (this machine "
                                "only; Ctrl+C stops)", flush=True))
            finally:
                loop.close()  # and with it, its signal handlers

    try:
        with tempfile.TemporaryDirectory(prefix="vcon-view-serve-") as pages:
            server = ViewerServer(
                command, host=HOST, port=args.port,
                title=f"vcon-view {name}",
                templates_path=local_page(Path(textual_serve.__file__).parent, Path(pages)))
            server.serve()
    except OSError as exc:
        raise _Exit(f"serve: cannot listen on {HOST}:{args.port}: {exc.strerror or exc}",
                    EX_USAGE) from None
    return EX_OK
