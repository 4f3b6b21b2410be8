"""``vcon-view serve`` in headless Chromium: the tour in a browser, a key, a screenshot.

    .venv/bin/python scripts/serve_screenshot.py [--out DIR]

starts ``vcon-view serve`` on the tour demo (127.0.0.1, a free port), opens it in headless
Chromium (Debian's ``chromium``) driven over its DevTools protocol (aiohttp's websocket client,
which textual-serve brings), waits for the timeline rows, presses ``j`` and writes
``serve-tour.png`` to ``screenshots/``. ``tests/test_serve.py`` runs the same ``tour``.

The page's terminal is xterm.js, drawn on a canvas: its text is read from xterm's own buffer.
textual-serve keeps the terminal in a closure, so a script added before the page's own catches
the object when the page stores it (``this.terminal = new Terminal(...)``).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from report_screenshot import CHROMIUM_FLAGS, chromium  # noqa: E402

#: The report's flags, no QUIC, and every host name but 127.0.0.1 unresolvable: whatever the
#: page asks for, nothing leaves this machine.
FLAGS = (*CHROMIUM_FLAGS, "--disable-quic",
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
VIEWPORT = (1280, 720)
TOUR = ROOT / "demo_vcons" / "tour.vcon.json"
#: An operation id as the rows show it.
OP_ID = re.compile(r"\bop-\d\d[0-9a-f]{2}\b")

CATCH_TERMINAL = r"""
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal",
                          {value, writable: true, configurable: true, enumerable: true});
    if (value && value.buffer && typeof value.onData === "function") window.__term = value;
  },
});
"""

#: Each row of the page's terminal: its text and each cell's look (background, reverse video).
READ_SCREEN = r"""
(() => {
  const t = window.__term;
  if (!t) return null;
  const rows = [];
  for (let y = 0; y < t.rows; y++) {
    const line = t.buffer.active.getLine(y);
    const look = [];
    for (let x = 0; x < t.cols; x++) {
      const c = line.getCell(x);
      look.push(c ? [c.getBgColorMode(), c.getBgColor(), c.isInverse()].join(":") : "");
    }
    rows.push({text: line.translateToString(true), look});
  }
  return rows;
})()
"""


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Served:
    """A running ``vcon-view serve``: its URL line, then (once stopped) the rest and status."""

    proc: subprocess.Popen[str]
    port: int
    first_line: str
    rest: str = ""
    stderr: str = ""
    returncode: int | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"


@contextmanager
def served(file: Path, cwd: Path, port: int | None = None) -> Iterator[Served]:
    """``vcon-view serve FILE`` in ``cwd`` until the block ends, then Ctrl+C (SIGINT)."""
    port = port or free_port()
    proc = subprocess.Popen([sys.executable, "-m", "viewer", "serve", str(file),
                             "--port", str(port)], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    run = Served(proc, port, proc.stdout.readline())  # the URL line: printed once it listens
    try:
        yield run
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            run.rest, run.stderr = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            run.rest, run.stderr = proc.communicate()
        run.returncode = proc.returncode


class Page:
    """One Chromium page over the DevTools protocol: calls, and the events seen so far."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.next_id = 0
        self.waiting: dict[int, asyncio.Future[Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            data = msg.json()
            future = self.waiting.pop(data.get("id", -1), None)
            if future is None:
                self.events.append(data)
            elif "error" in data:
                future.set_exception(RuntimeError(str(data["error"])))
            else:
                future.set_result(data.get("result", {}))

    async def call(self, method: str, **params: Any) -> Any:
        self.next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        await self.ws.send_json({"id": self.next_id, "method": method, "params": params})
        return await asyncio.wait_for(future, 30)

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    async def screen(self) -> list[dict[str, Any]]:
        return await self.evaluate(READ_SCREEN) or []

    async def press(self, key: str) -> None:
        """A key typed into the focused terminal (as a person would)."""
        await self.evaluate("window.__term.focus()")
        code = f"Key{key.upper()}" if key.isalpha() else key
        for kind in ("keyDown", "keyUp"):
            await self.call("Input.dispatchKeyEvent", type=kind, key=key, code=code,
                            text=key if kind == "keyDown" else "",
                            windowsVirtualKeyCode=ord(key.upper()))

    def requested(self) -> list[str]:
        """Every URL the page asked for (documents, scripts, fonts, websockets)."""
        out = [e["params"]["request"]["url"] for e in self.events
               if e.get("method") == "Network.requestWillBeSent"]
        return out + [e["params"]["url"] for e in self.events
                      if e.get("method") == "Network.webSocketCreated"]


def selected(screen: list[dict[str, Any]]) -> list[str]:
    """The operation ids drawn unlike most ids (the selection: another background or reverse
    video), each id taken where it first appears (a status line repeating it is not a row)."""
    seen: dict[str, str] = {}
    for row in screen:
        for m in OP_ID.finditer(row["text"]):
            if m.group() not in seen and m.start() < len(row["look"]):
                seen[m.group()] = row["look"][m.start()]
    if len(seen) < 3:
        return []
    usual = Counter(seen.values()).most_common(1)[0][0]
    return [op for op, bg in seen.items() if bg != usual]


def text(screen: list[dict[str, Any]]) -> str:
    return "\n".join(row["text"] for row in screen)


@dataclass
class Tour:
    """What the browser showed: the screen before the key, the selection before and after."""

    before: str = ""
    selected_before: list[str] = field(default_factory=list)
    after: str = ""
    selected_after: list[str] = field(default_factory=list)
    requested: list[str] = field(default_factory=list)


async def _until(page: Page, done: Any, timeout: float) -> list[dict[str, Any]]:
    """Poll the page's terminal until ``done(screen)`` or the time is up; the last screen."""
    end = time.monotonic() + timeout
    screen = await page.screen()
    while not done(screen) and time.monotonic() < end:
        await asyncio.sleep(0.25)
        screen = await page.screen()
    return screen


async def _tour(devtools: str, url: str, shot: Path, key: str, timeout: float) -> Tour:
    import aiohttp

    port = devtools.split("//", 1)[1].split("/", 1)[0]
    async with aiohttp.ClientSession() as http:
        async with http.get(f"http://{port}/json/list") as reply:
            targets = await reply.json()
        target = next(t for t in targets if t["type"] == "page")
        async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            page = Page(ws)
            await page.call("Network.enable")
            await page.call("Page.enable")
            await page.call("Emulation.setDeviceMetricsOverride", width=VIEWPORT[0],
                            height=VIEWPORT[1], deviceScaleFactor=1, mobile=False)
            await page.call("Page.addScriptToEvaluateOnNewDocument", source=CATCH_TERMINAL)
            await page.call("Page.navigate", url=url)
            tour = Tour()
            screen = await _until(page, lambda s: len(selected(s)) == 1, timeout)
            tour.before, tour.selected_before = text(screen), selected(screen)
            await page.press(key)
            screen = await _until(page, lambda s: selected(s) not in ([], tour.selected_before),
                                  timeout)
            tour.after, tour.selected_after = text(screen), selected(screen)
            await asyncio.sleep(0.5)  # the last frame drawn on the canvas
            png = await page.call("Page.captureScreenshot", format="png")
            shot.write_bytes(base64.b64decode(png["data"]))
            tour.requested = page.requested()
            page.reader.cancel()
            return tour


def tour(url: str, shot: Path, workdir: Path, *, key: str = "j", timeout: float = 60) -> Tour:
    """Open ``url`` in a fresh headless Chromium, wait for the rows, press ``key``, save
    ``shot``; what was seen."""
    exe = chromium()
    if exe is None:
        raise FileNotFoundError("chromium is not installed")
    workdir.mkdir(parents=True, exist_ok=True)
    profile = Path(tempfile.mkdtemp(prefix="profile-", dir=workdir))
    log = workdir / "chromium.log"
    with log.open("w") as err:
        browser = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={profile}",
                                    "--remote-debugging-port=0", "about:blank"],
                                   stdout=subprocess.DEVNULL, stderr=err)
    try:
        end = time.monotonic() + timeout
        while not (m := re.search(r"DevTools listening on (ws://\S+)", log.read_text())):
            if browser.poll() is not None or time.monotonic() > end:
                raise RuntimeError(f"chromium did not start: {log.read_text()[-2000:]}")
            time.sleep(0.1)
        return asyncio.run(_tour(m.group(1), url, shot, key, timeout))
    finally:
        browser.terminate()
        try:
            browser.wait(timeout=30)
        except subprocess.TimeoutExpired:
            browser.kill()
            browser.wait()
        shutil.rmtree(profile, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "screenshots")
    args = p.parse_args(argv)
    if chromium() is None:
        print("chromium is not installed", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp, served(TOUR, Path(tmp)) as run:
        seen = tour(run.url, args.out / "serve-tour.png", Path(tmp))
    print(f"{args.out / 'serve-tour.png'}: selected {seen.selected_before} -> "
          f"{seen.selected_after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
