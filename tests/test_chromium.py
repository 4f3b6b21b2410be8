"""The HTML report in a real browser: headless Chromium (Debian's ``chromium``, installed by
``.ci/run``) loads it, takes a screenshot, and shows that the page made no network request
and ran no script. A control page (the same report with a script, an image and a stylesheet
injected) proves the checks can see both, and that the report's CSP blocks them.

Skipped only when Chromium is not installed (CI installs it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from scriptkit import load_script

ROOT = Path(__file__).resolve().parent.parent


RS = load_script("report_screenshot")
pytestmark = pytest.mark.skipif(RS.chromium() is None, reason="chromium is not installed")

INJECTED = ('<script>document.body.setAttribute("data-ran","1")</script>'
            '<img src="http://127.0.0.1:9/leak.png">'
            '<link rel="stylesheet" href="http://127.0.0.1:9/x.css">')


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("reports")
    return {demo: RS.write_report(demo, out) for demo in RS.SHOTS.values()}


@pytest.mark.parametrize("demo", list(RS.SHOTS.values()))
def test_report_loads_with_no_request_and_no_script(demo: str, reports: dict[str, Path],
                                                    tmp_path: Path) -> None:
    page = reports[demo]
    shot = tmp_path / "shot.png"
    loaded = RS.load(page, tmp_path, screenshot=shot)
    assert loaded.returncode == 0
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # drawn, not blank
    assert loaded.page_requests == []
    assert loaded.console == []  # not even a refused load or script: nothing tried
    dom = RS.load(page, tmp_path)
    assert dom.returncode == 0 and dom.page_requests == [] and dom.console == []
    assert "<script" not in dom.dom.lower()
    assert "incident report" in dom.dom and "<svg" in dom.dom
    # the DOM the browser built holds exactly the report's elements (nothing added but the
    # <tbody> a parser puts in every table)
    count = len(re.findall(r"<(?!/|!)", page.read_text(encoding="utf-8")))
    assert len(re.findall(r"<(?!/|!|tbody>)", dom.dom)) == count


def test_the_checks_see_what_a_page_tries_and_the_csp_stops_it(
        reports: dict[str, Path], tmp_path: Path) -> None:
    report = reports["tour.vcon.json"].read_text(encoding="utf-8")
    injected = tmp_path / "injected.html"
    injected.write_text(report.replace("<body>", "<body>" + INJECTED, 1), encoding="utf-8")
    bare = tmp_path / "no-csp.html"
    bare.write_text(injected.read_text(encoding="utf-8").replace(
        'http-equiv="Content-Security-Policy"', 'http-equiv="X-None"'), encoding="utf-8")
    # without the CSP the script runs and the image is requested: the checks can see both
    open_page = RS.load(bare, tmp_path / "bare")
    assert re.search(r"<body[^>]*data-ran=\"1\"", open_page.dom)
    assert any("127.0.0.1:9" in u for u in open_page.page_requests)
    # with the report's CSP: nothing runs, nothing is fetched, and the console says why
    guarded = RS.load(injected, tmp_path / "guarded")
    assert not re.search(r"<body[^>]*data-ran", guarded.dom)
    assert guarded.page_requests == []
    refused = " ".join(guarded.console)
    assert "Content Security Policy" in refused and "blocked" in refused
