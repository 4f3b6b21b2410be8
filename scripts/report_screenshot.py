"""Open HTML reports in headless Chromium: screenshots, and what the page did.

    .venv/bin/python scripts/report_screenshot.py [--out DIR]

writes ``report-tour.png`` and ``report-hostile.png`` (the tour and the hostile demo's HTML
reports) to ``screenshots/``. ``tests/test_chromium.py`` uses ``load`` to assert that a report
makes no network request and runs no script: the page's requests are read from Chromium's
net log (those on behalf of the ``file://`` page; the browser's own update and sign-in checks
are not the page's), its console from ``--enable-logging``, its DOM from ``--dump-dom``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)
WINDOW = "1280,1800"
#: Report time of the screenshots (2026-04-02T12:00:00Z): the same input, the same page.
EPOCH = "1775131200"


def chromium() -> str | None:
    """The Chromium binary (Debian's ``chromium``), or None."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


@dataclass(frozen=True, slots=True)
class Loaded:
    dom: str  # --dump-dom, or "" for a screenshot run
    console: list[str]  # the page's console lines (CONSOLE in Chromium's log)
    page_requests: list[str]  # URLs requested on behalf of the file:// page
    returncode: int


def _page_requests(netlog: Path) -> list[str]:
    data = json.loads(netlog.read_text(encoding="utf-8", errors="replace") or "{}")
    types = {v: k for k, v in data.get("constants", {}).get("logEventTypes", {}).items()}
    out = []
    for e in data.get("events", []):
        if types.get(e.get("type")) != "URL_REQUEST_START_JOB":
            continue
        p = e.get("params") or {}
        if "file://" in str(p.get("network_isolation_key", "")) or \
                str(p.get("url", "")).startswith("file:"):
            out.append(str(p.get("url")))
    return out


def load(page: Path, workdir: Path, *, screenshot: Path | None = None,
         timeout: float = 90) -> Loaded:
    """Open ``page`` once: a screenshot when ``screenshot`` is given, else the DOM."""
    exe = chromium()
    if exe is None:
        raise FileNotFoundError("chromium is not installed")
    workdir.mkdir(parents=True, exist_ok=True)
    profile = Path(tempfile.mkdtemp(prefix="profile-", dir=workdir))
    netlog = workdir / f"{page.stem}-{'shot' if screenshot else 'dom'}.netlog.json"
    argv = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr",
            "--v=0", f"--log-net-log={netlog}", f"--window-size={WINDOW}",
            "--hide-scrollbars"]
    argv.append(f"--screenshot={screenshot}" if screenshot else "--dump-dom")
    argv.append(page.resolve().as_uri())
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          errors="replace")
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return Loaded("" if screenshot else proc.stdout, console, _page_requests(netlog),
                  proc.returncode)


def write_report(name: str, out: Path) -> Path:
    """The HTML report of a demo (at the fixed report time)."""
    os.environ["SOURCE_DATE_EPOCH"] = EPOCH
    from viewer.load import load_bytes
    from viewer.model.build import build_model
    from viewer.report.formats import ReportOptions, report_time
    from viewer.report.html import to_html

    data = (ROOT / "demo_vcons" / name).read_bytes()
    model = build_model(load_bytes(data, name=f"demo_vcons/{name}"))
    mode = "all" if "hostile" in name else "findings"
    opts = ReportOptions(evidence=mode, time=report_time(),
                         command=("summary", "--format", "html", "--evidence", mode))
    path = out / (name.removesuffix(".vcon.json") + ".report.html")
    path.write_text(to_html(model, opts), encoding="utf-8")
    return path


SHOTS = {"report-tour.png": "tour.vcon.json",
         "report-hostile.png": "12-hostile-content.vcon.json"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "screenshots")
    args = p.parse_args(argv)
    if chromium() is None:
        print("chromium is not installed", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for shot, demo in SHOTS.items():
            page = write_report(demo, work)
            loaded = load(page, work, screenshot=args.out / shot)
            print(f"{args.out / shot}: page requests {len(loaded.page_requests)}, "
                  f"console lines {len(loaded.console)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
