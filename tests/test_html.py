"""``--format html``: golden reports, and nothing from the recording becomes markup.

The hostile demo's report is parsed with ``html.parser``: every element, attribute, link and
style must be vcon-view's own; recorded text may only ever be text.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from reportkit import GOLDEN_MODES, HOSTILE_DEMO, check_golden, demo, golden_opts, opts

from viewer.report import html as H
from viewer.report.html import CSP, to_html
from viewer.textsafe import UNSAFE_TABLE

TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h4", "p", "table",
    "tr", "th", "td", "section", "span", "b", "a", "ul", "li", "details", "summary", "pre",
    "svg", "line", "text", "rect", "circle",
}
#: Attribute name -> the only values it may have (a regex over the whole value).
ATTRS = {
    "lang": r"en", "charset": r"utf-8", "http-equiv": r"Content-Security-Policy",
    "content": r"(?:" + re.escape(CSP) + r"|no-referrer|width=device-width, initial-scale=1)",
    "name": r"referrer|viewport",
    "id": r"op-\d+|timeline|findings|diagnostics|operations|standing|evidence",
    "class": r"prov|banner|nw|dim|note|mono|legend|tl|k\d|sev-(?:error|warning|info)",
    "href": r"#op-\d+", "open": r"", "viewbox": r"0 0 \d+ \d+",
    "xmlns": r"http://www\.w3\.org/2000/svg", "font-family": r"DejaVu Sans Mono, monospace",
    "font-size": r"\d+", "role": r"img", "font-weight": r"bold",
    "x": r"-?[\d.]+", "y": r"-?[\d.]+", "x1": r"-?[\d.]+", "x2": r"-?[\d.]+",
    "y1": r"-?[\d.]+", "y2": r"-?[\d.]+", "cx": r"-?[\d.]+", "cy": r"-?[\d.]+", "r": r"\d+",
    "width": r"[\d.]+", "height": r"[\d.]+", "fill": r"#[0-9a-f]{6}|none",
    "stroke": r"#[0-9a-f]{6}", "stroke-width": r"[\d.]+", "stroke-opacity": r"[\d.]+",
    "stroke-dasharray": r"3 3", "text-anchor": r"start|middle|end",
}


class Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str | None]] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(tag, k, v) for k, v in attrs]
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        (self.styles if self._in_style else self.text).append(data)

    def handle_comment(self, data: str) -> None:
        raise AssertionError(f"a comment: {data[:80]!r}")

    def handle_pi(self, data: str) -> None:
        raise AssertionError(f"a processing instruction: {data[:80]!r}")


def parse(doc: str) -> Collect:
    c = Collect()
    c.feed(doc)
    c.close()
    return c


@pytest.mark.parametrize("name", list(GOLDEN_MODES))
def test_golden_html_report(name: str) -> None:
    stem = name.removesuffix(".vcon.json")
    check_golden(f"{stem}.report.html", to_html(demo(name), golden_opts(name, "html")))


@pytest.mark.parametrize("name", list(GOLDEN_MODES))
def test_no_element_attribute_link_or_style_comes_from_content(name: str) -> None:
    doc = to_html(demo(name), opts(evidence="all"))
    assert not {c for c in doc if ord(c) in UNSAFE_TABLE and c != "\n"}
    c = parse(doc)
    assert set(c.tags) <= TAGS, set(c.tags) - TAGS
    assert c.tags.count("style") == 1 and c.tags.count("a") == doc.count("<a ")
    for tag, key, value in c.attrs:
        assert key in ATTRS, (tag, key, value)
        assert re.fullmatch(ATTRS[key], value or ""), (tag, key, value)
    # the page's only style is ours, allowed by its hash in the CSP
    (css,) = c.styles
    digest = base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in CSP and css == H.CSS
    assert "default-src 'none'" in CSP and "<script" not in doc.lower()


def test_hostile_text_is_text() -> None:
    doc = to_html(demo(HOSTILE_DEMO), opts(evidence="all"))
    text = "".join(parse(doc).text)
    # what the recording tried to smuggle is there, to be read, as text
    assert "[@click=app.quit]click me[/]" in text
    assert "\\x1b]52;c;" in text or "\\u001b]52;c;" in text
    assert "evil.example" in text


def test_big_files_draw_findings_first_and_a_density_lane(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(H, "MAX_ROWS", 4)
    m = demo("tour.vcon.json")
    doc = to_html(m, opts())
    assert "Showing 4 of 12 operations: those with findings first" in doc
    assert "all 12 operations (density)" in doc
    svg = doc.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert "op-07aa" in svg  # the policy violation (an error) is drawn
    assert "op-01a7" not in svg  # an operation with no finding is not


def test_html_is_in_the_export_dialog_and_summary(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from viewer import cli
    from viewer.tui.export import formats, render_export

    assert "html" in formats()
    m = demo("tour.vcon.json")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1775131200")
    data = render_export(m, "html", [m.operations[2]])
    assert data.startswith(b"<!DOCTYPE html>") and b"R-7781" in data
    assert b"1 of 12 (a selection)" in data and b"(viewer)" in data
    out = tmp_path / "r.html"
    tour = str(Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json")
    assert cli.main(["summary", tour, "--format", "html", "-o", str(out)]) == 0
    assert m.source.sha256.encode() in out.read_bytes()
