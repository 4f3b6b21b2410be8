"""Quit does not wait for worker threads (issue 13): `vcon-view FILE` in a terminal, with the
conformance check stuck in its thread, still ends on `q` and leaves the terminal restored."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import sys
import termios
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "tests" / "fixtures" / "tui_small.vcon.json"

CHILD = """
import sys, threading
import viewer.model.build as build
def stuck(model):
    threading.Event().wait()  # a check that never ends: quit must not wait for it
build.complete_checks = stuck
from viewer.cli import console_main
sys.exit(console_main())
"""


def test_quit_does_not_wait_for_a_worker_thread() -> None:
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover (the child)
        os.chdir(ROOT)
        os.environ["TERM"] = "xterm-256color"
        os.execv(sys.executable, [sys.executable, "-c", CHILD, str(SMALL)])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    out: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return
            if not data:
                return
            out.append(data)

    threading.Thread(target=drain, daemon=True).start()
    try:
        deadline = time.monotonic() + 60
        while b"op-" not in b"".join(out) and time.monotonic() < deadline:
            time.sleep(0.05)  # the timeline is on screen
        assert b"op-" in b"".join(out)
        os.write(fd, b"q")
        deadline = time.monotonic() + 60
        done, status = 0, 0
        while time.monotonic() < deadline and not done:
            done, status = os.waitpid(pid, os.WNOHANG)
            time.sleep(0.05)
        assert done, "the viewer did not end: quit waited for the stuck check"
        assert os.waitstatus_to_exitcode(status) == 0
        time.sleep(0.1)
        tail = b"".join(out)[-4000:]
        assert b"\x1b[?1049l" in tail and b"\x1b[?25h" in tail  # the screen given back
    finally:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
