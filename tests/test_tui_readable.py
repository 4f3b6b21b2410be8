"""Pilot tests: what a screen cuts to fit one line can still be read whole on that screen, and
what a row must say is not the part cut at 80 columns."""

from __future__ import annotations

import re
from pathlib import Path

from test_tui_keys import screen_text

from viewer.model.build import build_model
from viewer.pipeline import open_path
from viewer.tui.app import make_app
from viewer.tui.context import ContextScreen
from viewer.tui.detail import DetailScreen
from viewer.tui.findings import FindingsScreen

ROOT = Path(__file__).resolve().parent.parent
TOUR = ROOT / "demo_vcons" / "tour.vcon.json"
NARROW = (80, 24)


def tour_app():
    return make_app(str(TOUR), model=build_model(open_path(str(TOUR))))


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


async def test_findings_screen_shows_the_highlighted_finding_whole_at_80_columns() -> None:
    app = tour_app()
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, FindingsScreen)
        model = app.model
        top = next(f for f in model.findings if f.severity == "error")  # the list's first
        assert len(top.message) > 60  # wider than its column at 80
        assert flat(top.message) in flat(screen_text(app))
        await pilot.press("j")  # the next one is said in turn
        await pilot.pause()
        nxt = next(f for f in model.findings if f.severity == "warning")
        assert flat(nxt.message) in flat(screen_text(app))
        assert flat(top.message) not in flat(screen_text(app))


async def test_context_screen_shows_the_highlighted_turn_whole_at_80_columns() -> None:
    app = tour_app()
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ContextScreen)
        rl = app.screen.query_one("#context")
        bodies = [d.get("body") for d in app.model.dialog]
        long = next(b for b in bodies if len(b) > 80)  # wider than the screen
        assert flat(long) not in flat(screen_text(app))  # cut on its row
        for _ in range(rl.count):
            if flat(long) in flat(screen_text(app)):
                break
            await pilot.press("j")
            await pilot.pause()
        assert flat(long) in flat(screen_text(app))


async def test_detail_flags_are_not_cut_at_80_columns() -> None:
    """The late result of op-03f1 attempt 1: its row says "late" and its event number."""
    app = tour_app()
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        app.select_operation(app.model.by_operation["op-03f1"])
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        op = app.operation
        late = [i for i in op.attempts[0].events if app.model.events[i].type == "tool-result"]
        text = screen_text(app)
        assert "late…" not in text and re.search(r"\blate\b", text)
        assert f"#{late[0]}" in text  # the row ends whole, its event number on it
