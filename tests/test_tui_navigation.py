"""Issue 13, navigation that stays on the incident: zoom centres on the selected attempt,
H/L pan, the ruler's ticks are round and whole, absolute time says the date, --goto."""

from __future__ import annotations

import re
from pathlib import Path

from viewer.tui.app import make_app
from viewer.tui.timeline import StatusLine, TimelineView

TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"


async def _ready(app, pilot) -> TimelineView:
    await app.workers.wait_for_complete()
    await pilot.pause()
    return app.screen.query_one(TimelineView)


def _ruler_lane(view: TimelineView) -> str:
    width = view.lane_width()
    return view.render_line(0).text[view.columns(width).lane_x:width]


async def test_zoom_centres_on_the_selected_attempt() -> None:
    app = make_app(str(TOUR), goto="op-03f1")
    async with app.run_test(size=(120, 24)) as pilot:
        view = await _ready(app, pilot)
        await pilot.press("l")  # attempt 2, invoked ~15 s after the operation began
        for _ in range(4):
            await pilot.press("plus")
        await pilot.pause()
        axis = view.axis
        assert axis is not None and app.zoom == 16
        start = axis.secs(app.attempt.start)
        assert axis.ws <= start <= axis.we, (axis.ws, start, axis.we)
        await pilot.press("h")  # back to attempt 1: the window follows
        await pilot.pause()
        assert axis.ws <= axis.secs(app.attempt.start) <= axis.we


async def test_H_and_L_pan_the_zoomed_window() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 24)) as pilot:
        view = await _ready(app, pilot)
        await pilot.press("L")
        await pilot.pause()
        status = str(app.screen.query_one(StatusLine).render())
        assert "zoom in" in status  # nothing to pan at ×1: said in the status line
        await pilot.press("plus", "plus")
        await pilot.pause()
        ws = view.axis.ws
        await pilot.press("L")
        await pilot.pause()
        assert view.axis.ws > ws
        await pilot.press("shift+left", "shift+left")
        await pilot.pause()
        assert view.axis.ws < ws or view.axis.ws == 0
        ruler = _ruler_lane(view)
        await pilot.press("shift+right")
        await pilot.pause()
        assert _ruler_lane(view) != ruler  # the ruler moved with the window


async def test_ruler_ticks_are_round_and_no_label_is_cut() -> None:
    for size in ((200, 50), (120, 14), (80, 24)):
        app = make_app(str(TOUR))
        async with app.run_test(size=size) as pilot:
            view = await _ready(app, pilot)
            lane = _ruler_lane(view)
            labels = re.findall(r"[^─┬]+", lane)
            assert len(labels) >= 2, lane
            for label in labels:  # +0s, +20s, +1m00s: whole, never +20.130s or +1m06.
                assert re.fullmatch(r"\+(\d+m)?\d+s", label), (size, lane)


async def test_absolute_time_shows_the_date_once_in_the_ruler() -> None:
    app = make_app(str(TOUR))
    async with app.run_test(size=(120, 24)) as pilot:
        view = await _ready(app, pilot)
        while app.time_mode != "absolute":
            await pilot.press("t")
        await pilot.pause()
        ruler = view.render_line(0).text
        assert len(re.findall(r"\d{4}-\d\d-\d\d", ruler)) == 1, ruler
        assert re.search(r"┬09:00:\d0", ruler), ruler


async def test_goto_opens_with_the_operation_selected() -> None:
    app = make_app(str(TOUR), goto="op-10b8")
    async with app.run_test(size=(120, 14)) as pilot:
        view = await _ready(app, pilot)
        assert app.operation.operation_id == "op-10b8"
        texts = [view.render_line(y).text for y in range(view.size.height)]
        assert any(t.startswith("›op-10b8") for t in texts)  # scrolled into sight


async def test_goto_takes_the_start_of_an_id() -> None:
    app = make_app(str(TOUR), goto="op-11")
    async with app.run_test(size=(120, 24)) as pilot:
        await _ready(app, pilot)
        assert app.operation.operation_id == "op-11e2"


async def test_goto_an_unknown_id_opens_the_file_and_says_so() -> None:
    app = make_app(str(TOUR), goto="op-nope")
    async with app.run_test(size=(120, 24)) as pilot:
        await _ready(app, pilot)
        assert app.operation.operation_id == "op-01a7"
        status = str(app.screen.query_one(StatusLine).render())
        assert "--goto: no operation 'op-nope'" in status
        await pilot.press("j")  # the note goes once the user moves on
        await pilot.pause()
        assert "--goto" not in str(app.screen.query_one(StatusLine).render())


def test_goto_is_an_option_of_the_viewer(monkeypatch) -> None:
    import viewer.tui.app as app_module
    from viewer import cli

    seen: dict[str, object] = {}
    monkeypatch.setattr(app_module, "run", lambda path, **kw: seen.update(kw) or 0)
    monkeypatch.setattr(cli, "need_terminal", lambda: None)
    assert cli.main([str(TOUR), "--goto", "op-03f1"]) == 0
    assert seen["goto"] == "op-03f1"


async def test_goto_an_operation_replayed_after_the_first_frame(tmp_path, monkeypatch) -> None:
    """A big file shows its first operations before the rest are replayed: --goto waits."""
    from bench.generate import generate
    from viewer.tui import app as app_module

    monkeypatch.setattr(app_module, "FIRST_OPERATIONS", 10)
    monkeypatch.setattr(app_module, "STAGED_ABOVE", 50)
    path = tmp_path / "gen.vcon.json"
    generate(path, 120, seed=2)
    probe = make_app(str(path))
    async with probe.run_test(size=(120, 24)) as pilot:
        await _ready(probe, pilot)
        last = probe.model.operations[-1].operation_id
    app = make_app(str(path), goto=last)
    async with app.run_test(size=(120, 24)) as pilot:
        await _ready(app, pilot)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.model.pending_operations
        assert app.operation.operation_id == last


def test_goto_reaches_the_viewer(monkeypatch) -> None:
    import viewer.cli as cli
    import viewer.tui.app as app_module

    calls = []
    monkeypatch.setattr(app_module, "run", lambda path, **kw: calls.append((path, kw)) or 0)
    monkeypatch.setattr(cli, "need_terminal", lambda: None)
    assert cli.main([str(TOUR), "--goto", "op-03f1"]) == 0
    assert calls[0][1]["goto"] == "op-03f1"
