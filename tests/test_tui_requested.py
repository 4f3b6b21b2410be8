"""A call the host refused has a once decision and no invocation; the importers write what the
agent asked for on that decision (``requested``, README *Importing agent traffic*). The detail
shows it in the content area, decoded and made safe as an invocation's arguments are, under a
head that says it did not run."""

from __future__ import annotations

import html
import re
from pathlib import Path

import orjson

from viewer.importers import claude_code
from viewer.model.build import build_model
from viewer.pipeline import open_path
from viewer.tui.app import make_app
from viewer.tui.detail import DetailScreen

AGENTS = Path(__file__).resolve().parent / "fixtures" / "agents"
DMUX = AGENTS / "claude-code-transcript" / "dmux__logs_chat.json"
HEAD = "requested (not run): the arguments the agent asked for"


def app_of(path: Path):
    return make_app(str(path), model=build_model(open_path(str(path))))


def text_of(widget: object) -> str:
    return str(widget.render())  # type: ignore[attr-defined]


def screen_text(app) -> str:
    svg = app.export_screenshot()
    return html.unescape(" ".join(re.findall(r">([^<]*)</text>", svg))).replace("\xa0", " ")


async def test_detail_of_a_declined_call_shows_the_command_it_asked_for() -> None:
    """dmux op-0050: the user declined the prompt for `gh repo view …`; the detail says what
    was refused, at 80x24 too."""
    app = app_of(DMUX)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.select_operation(app.model.by_operation["op-0050"])
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        body = app.screen.query_one("#content-body")
        shown = "".join(str(r) for r in _plain(body))
        assert HEAD in shown
        assert "gh repo view applab-nl/dmux" in shown
        assert "toolu_014UEZLiBKrLPtqAtah8gFDn" in shown
        assert "gh repo view" in screen_text(app)
        assert "requested" in text_of(app.screen.query_one("#event-info"))


def _plain(widget) -> list[str]:
    """The text of the content area's renderables (a Group of Text and Syntax)."""
    from rich.console import Console

    console = Console(width=200, record=True, color_system=None)
    console.print(widget.content)
    return [console.export_text()]


async def test_requested_is_made_safe_and_a_decision_without_it_says_no_content(
        tmp_path: Path) -> None:
    """Recording text never acts on the terminal: markup stays inert, escapes and bidi
    controls are neutralised. A decision without the member shows no content, as before."""
    vcon, _ = claude_code.convert(DMUX.read_bytes(), source_name="chat.json")
    ev = next(e for e in vcon["events"] if "requested" in e)
    ev["requested"] = {"input": {"command": "[bold]x[/bold] \x1b[31mred\u202e"}}
    path = tmp_path / "v.vcon.json"
    path.write_bytes(orjson.dumps(vcon))
    app = app_of(path)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        app.select_operation(app.model.by_operation["op-0050"])
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        shown = _plain(app.screen.query_one("#content-body"))[0]
        assert HEAD in shown and "[bold]x[/bold]" in shown
        assert "\x1b" not in shown and "\u202e" not in shown
    del ev["requested"]
    path.write_bytes(orjson.dumps(vcon))
    app = app_of(path)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        app.select_operation(app.model.by_operation["op-0050"])
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        shown = _plain(app.screen.query_one("#content-body"))[0]
        assert HEAD not in shown and "content: no content" in shown


async def test_the_pane_under_the_list_says_what_a_refused_call_asked_for() -> None:
    """Codex op-0004: the escalated `rm test.txt` the user never approved; the pane under the
    list gives its arguments on one line at 80x24, beside the decision (compact JSON, as the
    pane gives an invocation's)."""
    app = app_of(AGENTS / "codex-rollout" / "agent-history__codex_with_escalation.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.select_operation(app.model.by_operation["op-0004"])
        await pilot.pause()
        pane = str(app.screen.query_one("DetailPane").render())
        assert "requested (not run)" in pane and '"command":"rm test.txt"' in pane, pane


async def test_the_free_text_filter_finds_a_refused_call_by_what_it_asked() -> None:
    app = app_of(DMUX)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert app.apply_filter("viewerPermission") is None
        await pilot.pause()
        shown = [app.model.operations[i].operation_id for i in app.shown]
        assert shown == ["op-0050"]
