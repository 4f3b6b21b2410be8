"""Every default-ignorable and blank-looking code point is neutralised visibly (issue 17), and an
identifier that carries one is flagged.

The ranges are the Unicode property Default_Ignorable_Code_Point (``textsafe.DEFAULT_IGNORABLE``,
with its source) plus the blank look-alikes (braille blank, interlinear annotation). Before:
U+3164 HANGUL FILLER, U+115F, U+1160, U+FFA0, U+2800, variation selectors, the tag characters
(U+E0000 block) and U+034F passed raw to the terminal and every export, and no diagnostic said
that ``op-07aa`` + fillers is another id than ``op-07aa``.
"""

from __future__ import annotations

import csv
import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.modelkit import model_of, standing, tool
from viewer.report.check import check_lines
from viewer.report.csv import to_csv
from viewer.report.markdown import to_markdown
from viewer.report.summary import to_json
from viewer.report.text import to_text
from viewer.textsafe import BLANK_LOOKALIKES, DEFAULT_IGNORABLE, UNSAFE_TABLE, safe, safe_block

CODE_POINTS = sorted({cp for lo, hi in (*DEFAULT_IGNORABLE, *BLANK_LOOKALIKES)
                      for cp in range(lo, hi + 1)})
NAMED = [0x3164, 0x115F, 0x1160, 0xFFA0, 0x2800, 0xFE0F, 0xE0041, 0xE0001, 0xE0100, 0x2061,
         0x206F, 0x034F, 0x17B4, 0x180F, 0x1BCA0, 0x1D173]


def test_the_named_code_points_are_in_the_table() -> None:
    for cp in NAMED:
        assert cp in UNSAFE_TABLE, hex(cp)
        assert chr(cp) not in safe("x" + chr(cp)), hex(cp)


def _outputs(cp: int) -> dict[str, str]:
    c = chr(cp)
    m = model_of([
        standing(0, "allowed", server="srv" + c, tool_name="t" + c),
        tool("tool-invocation", 1, op="op-07aa" + c * 3, server="srv" + c, tool="t" + c,
             body={"q": "x" + c}),
        tool("tool-result", 2, op="op-07aa" + c * 3, body="r" + c, encoding="none",
             mediatype="text/plain"),
    ], parties=[{"name": "Alice" + c}, {"name": "Agent"}])
    return {
        "model": m,  # type: ignore[dict-item]
        "json": to_json(m).decode(),
        "md": to_markdown(m),
        "csv": to_csv(m),
        "text": to_text(m, width=200),
        "check": "\n".join(check_lines(m)),
    }


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CODE_POINTS))
def test_no_ignorable_character_reaches_an_output(cp: int) -> None:
    out = _outputs(cp)
    c = chr(cp)
    m = out.pop("model")
    for name, text in out.items():
        assert c not in text, (name, hex(cp))
    # JSON keeps the exact value: the escape decodes back to the character
    doc = json.loads(out["json"])
    assert doc["operations"][0]["operation_id"] == "op-07aa" + c * 3
    rows = list(csv.reader(io.StringIO(out["csv"])))
    assert rows and all(c not in cell for row in rows for cell in row)
    # the identifiers are flagged, naming the code point and the pointer
    sus = [d for d in m.diagnostics if d.code == "suspicious-text"]  # type: ignore[attr-defined]
    where = {d.pointer for d in sus}
    assert {"/events/1/operation_id", "/events/1/server", "/events/1/tool",
            "/parties/0/name"} <= where, where
    assert all(f"U+{cp:04X}" in d.message and d.severity == "warning" for d in sus)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from([chr(c) for c in CODE_POINTS] + list("ab\n")),
               max_size=40))
def test_safe_leaves_no_ignorable_character(s: str) -> None:
    for f in (safe, safe_block):
        out = f(s)
        assert not any(ord(ch) in UNSAFE_TABLE and ch not in "\n\t" for ch in out)


def test_plain_identifiers_are_not_flagged() -> None:
    op = "op-é-日本"
    m = model_of([tool("tool-invocation", 1, op=op), tool("tool-result", 2, op=op)])
    assert not [d for d in m.diagnostics if d.code == "suspicious-text"]


def test_markdown_has_no_bare_link() -> None:
    """A recorded URL, www. host or e-mail address became a live link in a Markdown viewer
    (GFM autolinks): defanged now, as security reports do."""
    import re

    from viewer.report.markdown import md

    for s in ["see https://evil.example/x", "WWW.evil.example", "bob@evil.example",
              "javascript://%0aalert(1)", "ftp://a.example"]:
        out = md(s)
        assert not re.search(r"(?i)[a-z]://|www\.|\w@\w", out), out
    m = model_of([tool("tool-invocation", 1, server="https://evil.example/mcp"),
                  tool("tool-result", 2)])
    assert "https://" not in to_markdown(m)
    assert "09:00:01" in md("09:00:01")  # colons elsewhere untouched


def test_escaped_identifiers_do_not_multiply_the_output() -> None:
    """A 300,000-character bidi operation id and tool on a 3-attempt retry: before, every
    finding message quoted the escaped id whole (summary JSON 2.9x, Markdown 3.9x the input, and
    more with more findings); messages now quote 200 characters, report cells 1,000, and only
    the exact fields of the summary JSON carry the whole value."""
    import orjson

    from viewer.load import load_bytes
    from viewer.model.build import build_model

    op, t = "op-" + "\u202e" * 300_000, "t" + "\u202e" * 300_000
    evs = []
    for a in range(1, 4):
        evs += [tool("tool-invocation", 2 * a, op=op, attempt=a, tool=t),
                tool("tool-timeout", 2 * a + 1, op=op, attempt=a)]
    from tests.modelkit import vcon

    data = orjson.dumps(vcon(evs))
    m = build_model(load_bytes(data))
    assert len(to_markdown(m)) < len(data) / 20
    assert len("\n".join(check_lines(m))) < len(data) / 20
    assert len(to_json(m)) < 2 * len(data)
    assert all(len(f.message) < 2000 for f in m.findings)  # 200 characters, escaped
