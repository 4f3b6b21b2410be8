"""No crash at any depth (issue 17): content nested up to the loader's own limit (orjson reads
1,024 levels; it writes 254, Python's repr and json give up near 1,000) through every path:
load, model, every export, check, import, the viewer's detail, raw view, copy and diff.

Before: the viewer's detail printed a RecursionError traceback over the screen (``repr`` of the
body), the text of a too-deep value was the repr fallback, and a too-deep vCon could not be
written by ``dumps`` (orjson's recursion limit: exit 70).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.modelkit import tool, vcon
from viewer.cli import main
from viewer.jsonenc import depth, dumps, dumps_deep
from viewer.load import load_bytes
from viewer.model.build import build_model
from viewer.report.summary import dumps as summary_dumps
from viewer.textsafe import safe, safe_block

LIMIT = 1000  # deeper than repr/json/orjson-writes, within what orjson reads


def deep(n: int) -> Any:
    return orjson.loads("[" * n + '"\\u202eend"' + "]" * n)


def deep_vcon_bytes(n: int = LIMIT) -> bytes:
    """A retried operation whose arguments and results are nested n levels deep (written by
    hand: no Python encoder writes it)."""
    doc = vcon([
        tool("tool-invocation", 0, body="DEEP"), tool("tool-timeout", 1),
        tool("tool-invocation", 2, attempt=2, body="DEEP"),
        tool("tool-result", 3, attempt=2, body="DEEP"),
    ])
    text = orjson.dumps(doc).decode().replace('"DEEP"', "[" * n + '"\\u202eend"' + "]" * n)
    return text.encode()


@pytest.fixture(scope="module")
def deep_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("deep") / "deep.vcon.json"
    p.write_bytes(deep_vcon_bytes())
    return p


def test_encoder_writes_any_depth_as_orjson_would() -> None:
    value = {"a": [1, 2.5, None, True, {"b": "x\u2028\"\\"}], "c": {}, "d": []}
    assert dumps_deep(value) == orjson.dumps(value).decode()
    assert dumps_deep(value, True) == orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    d = deep(LIMIT)
    assert depth(d) == LIMIT
    text = dumps(d)
    assert text.startswith(b"[" * LIMIT) and text.endswith(b"]" * LIMIT)
    assert orjson.loads(text) is not None  # valid JSON, read back at the loader's limit


def test_encoder_writes_an_integer_past_64_bits_exactly() -> None:
    """orjson refuses 2**64 and beyond; the fallback writes it as recorded."""
    value = {"n": 2**70, "m": [-(2**64), 2**64 - 1]}
    assert dumps(value) == (b'{"n":1180591620717411303424,'
                            b'"m":[-18446744073709551616,18446744073709551615]}')
    assert json.loads(dumps(value, option=orjson.OPT_INDENT_2)) == value


def test_safe_text_of_a_deep_value() -> None:
    d = deep(LIMIT)
    for f in (safe, safe_block):
        out = f(d)
        assert out.startswith("[[[") and "\\u202e" in out and "\u202e" not in out


def test_model_and_summary_dumps(deep_file: Path) -> None:
    model = build_model(load_bytes(deep_file.read_bytes()))
    assert [op.outcome for op in model.operations] == ["completed"]
    # a document holding the body itself (as import writes a vCon) is still written
    out = summary_dumps({"body": model.events[0].raw["body"]})
    assert out.count(b"[") == LIMIT


@pytest.mark.parametrize("args", [
    ["summary", "-f", "json"], ["summary", "-f", "md"], ["summary", "-f", "csv"],
    ["summary", "-f", "text"], ["check"], ["check", "-f", "json"],
])
def test_every_command_at_depth(deep_file: Path, args: list[str],
                                capsys: pytest.CaptureFixture[str]) -> None:
    status = main([*args[:1], str(deep_file), *args[1:]])
    assert status in (0, 1), capsys.readouterr().err
    assert "internal error" not in capsys.readouterr().err


def test_import_writes_a_deep_vcon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``import mcp`` of a transcript whose arguments are nested 1,000 deep: written (by the
    deep encoder), never exit 70; the output loads again."""
    args = "[" * LIMIT + "1" + "]" * LIMIT
    lines = [
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":'
        '{"x":' + args + '}}}',
        '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}',
    ]
    src = tmp_path / "deep.jsonl"
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.vcon.json"
    status = main(["import", "mcp", str(src), "-o", str(out)])
    err = capsys.readouterr().err
    assert status in (0, 2), err
    assert "internal error" not in err
    if status == 0:
        model = build_model(load_bytes(out.read_bytes()))
        assert [d for d in model.diagnostics if d.severity == "error"] == []


FIXTURES = Path(__file__).parent / "fixtures"


def deepen_first_body(doc: Any, n: int) -> str:
    """The JSON text of ``doc`` with its first tool-ish body (arguments, params, input, body)
    replaced by {"deep": <n levels>, "was": <the value>}, as the red-team mutator did."""
    marker = "@@DEEP@@"
    done = False
    stack = [doc]
    while stack and not done:
        o = stack.pop()
        items = o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else ()
        for k, v in list(items):
            if k in ("arguments", "params", "input", "body") and isinstance(v, (dict, list)):
                o[k] = {"deep": marker, "was": v}
                done = True
                break
            if isinstance(v, str) and v[:1] in "{[":  # a JSON string body (agent_trace)
                try:
                    inner = json.loads(v)
                except ValueError:
                    continue
                text = deepen_first_body(inner, n)
                if text != json.dumps(inner):
                    o[k] = text
                    done = True
                    break
            stack.append(v)
    return json.dumps(doc).replace(f'"{marker}"', "[" * n + "1" + "]" * n)


def test_import_vcon_never_exit_70(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``import vcon`` of the real agent-session vCon with a tool body nested 900 deep (exit 70
    before: RecursionError in the lifter's deepcopy): written, or one line and exit 2."""
    doc = json.loads((FIXTURES / "load" / "agent-session__paired-agent-session.json").read_text())
    src = tmp_path / "trace.vcon.json"
    src.write_text(deepen_first_body(doc, 900))
    status = main(["import", "vcon", src.as_posix(), "--ignore-critical",
                   "-o", str(tmp_path / "o.json")])
    err = capsys.readouterr().err
    assert status in (0, 2) and "internal error" not in err, err


async def test_viewer_detail_raw_copy_diff_at_depth(deep_file: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.test_tui_keys import SIZE, screen_text
    from viewer.tui.app import make_app
    from viewer.tui.detail import DetailScreen
    from viewer.tui.diff import DiffScreen
    from viewer.tui.timeline import TimelineScreen

    copied: list[str] = []
    monkeypatch.setattr("pyperclip.copy", copied.append)
    app = make_app(str(deep_file))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        text = screen_text(app)
        assert "nested too deep to display (depth 1001)" in text or \
            "nested too deep to display (depth 1000)" in text, text[:2000]
        assert "Traceback" not in text and "RecursionError" not in text
        await pilot.press("a")  # the whole body: still the notice
        await pilot.press("r")
        await pilot.pause()
        assert app.screen.raw
        assert "[[[[[[" in screen_text(app)
        await pilot.press("y")
        assert copied and copied[-1].startswith("{")
        await pilot.press("escape")
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DiffScreen)
        await pilot.press("escape")
        await pilot.press("q")
