"""The timeline at any width: lanes keep the order of events (colliding marks are pushed apart,
not swapped), and a narrow footer keeps ? Help in view."""

from __future__ import annotations

from pathlib import Path

import pytest

from viewer.tui import palette as P
from viewer.tui.app import make_app
from viewer.tui.timeline import TimelineView

DEMOS = Path(__file__).resolve().parent.parent / "demo_vcons"
# the bars an attempt draws by state (the waterfall) and the late connector: fills, not marks
FILLS = set("─┄ ") | set(P.STATE_BAR.values()) | {P.LATE_CONNECTOR}
COUNTS = set("0123456789")  # how many marks share the cell before: not a mark


def _is_subsequence(small: list[str], big: list[str]) -> bool:
    it = iter(big)
    return all(ch in it for ch in small)


def _lanes_in_order(app, view) -> dict[str, str]:
    """Every shown operation's lane; asserts its marks are in replay order."""
    model = app.model
    assert model is not None
    decision_glyphs = set(P.DECISION_GLYPH.values())
    lanes = {}
    for op_index in app.shown:
        op = model.operations[op_index]
        lane = view.lane(model, op, view.columns(view.lane_width()), False).plain
        lanes[op.operation_id] = lane
        # decisions are drawn over the lane after the marks ("?": an unreadable decision):
        # once decisions at their time, a standing one as its glyph before the first bar
        decided = op.once_decisions or any(a.decision for a in op.attempts)
        skip = FILLS | COUNTS | (decision_glyphs | {"?"} if decided else set())
        marks = [ch for ch in lane if ch not in skip]
        steps = sorted((model.events[s.event].order, s.event)
                       for a in op.attempts for s in a.steps)
        expected = [P.event_glyph(model.events[i].type) for _, i in steps]
        assert _is_subsequence(marks, expected), (op.operation_id, lane, expected)
    return lanes


@pytest.mark.parametrize("demo", sorted(p.name for p in DEMOS.glob("*.vcon.json*")))
async def test_every_demo_lane_in_order_at_80_columns(demo: str) -> None:
    app = make_app(str(DEMOS / demo))
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if app.model is not None and app.model.operations:
            _lanes_in_order(app, app.screen.query_one(TimelineView))


@pytest.mark.parametrize("width", [80, 120, 200])
async def test_lane_marks_keep_replay_order(width: int) -> None:
    app = make_app(str(DEMOS / "tour.vcon.json"))
    async with app.run_test(size=(width, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        lanes = _lanes_in_order(app, app.screen.query_one(TimelineView))
        # the walk-through's timeout next to the retry stays visible even at 80 columns
        assert "◌" in lanes["op-03f1"]
        assert lanes["op-03f1"].index("◌") < lanes["op-03f1"].rindex("▶")


@pytest.mark.parametrize(("width", "palette"), [(80, False), (160, True)])
async def test_narrow_footer_starts_with_help_and_drops_the_palette_hint(width: int,
                                                                       palette: bool) -> None:
    from textual.widgets import Footer

    from viewer.tui.help import HelpScreen

    app = make_app(str(DEMOS / "tour.vcon.json"))
    async with app.run_test(size=(width, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        footer = app.screen.query_one(Footer)
        assert footer.show_command_palette is palette
        first = footer.query("FooterKey").first()
        assert first.description == "Help"  # ? Help fits on any terminal
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)


async def test_selected_row_stays_in_sight_when_the_list_overflows() -> None:
    """A short terminal: moving down past the last visible row scrolls, and the row shows."""
    app = make_app(str(DEMOS / "tour.vcon.json"))
    async with app.run_test(size=(160, 16)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        view = app.screen.query_one(TimelineView)
        for _ in range(11):
            await pilot.press("j")
        await pilot.pause()
        assert view.scroll_offset.y > 0  # it had to scroll
        assert not view.show_horizontal_scrollbar  # no scrollbar row eating the last line
        row = app.sel - round(view.scroll_offset.y)
        assert 0 <= row < view.scrollable_content_region.height - 3
        texts = [view.render_line(y).text for y in range(view.size.height)]
        assert any(t.startswith("›op-12d6") for t in texts)
        await pilot.press("g")
        await pilot.pause()
        texts = [view.render_line(y).text for y in range(view.size.height)]
        assert any(t.startswith("›op-01a7") for t in texts)


async def test_moving_between_attempts_repaints_without_redrawing_the_lane(monkeypatch) -> None:
    """An operation with thousands of attempts (a retry storm): `l` / `h` lay the selection on
    the lane drawn once, so a key costs O(width), not O(attempts) (issue 17: 4.6 s per `l` at
    100,000 attempts before)."""
    import orjson

    from bench.shapes import attempts
    from viewer.tui import lanes

    calls = []
    real = lanes.lane_layers

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(lanes, "lane_layers", counted)  # the timeline calls it through lanes
    app = make_app("storm.vcon.json", data=orjson.dumps(attempts(3000)))
    async with app.run_test(size=(120, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        view = app.screen.query_one(TimelineView)
        model = app.model
        assert model is not None and len(model.operations[0].attempts) == 3000
        drawn = len(calls)
        assert drawn >= 1
        cols = view.columns(view.lane_width())

        def emphasised() -> set[int]:  # cells drawn bold reverse: the selected attempt's
            text = view.lane(model, model.operations[0], cols, True)
            styles = [text.get_style_at_offset(app.console, i) for i in range(cols.lane_w)]
            return {i for i, st in enumerate(styles) if st.reverse and st.bold}

        first = emphasised()
        for _ in range(5):
            await pilot.press("l")
        await pilot.pause()
        assert app.attempt_sel == 5
        assert len(calls) == drawn  # the lane was not drawn again
        assert first and emphasised() != first  # the emphasis left the first attempt
        for _ in range(5):
            await pilot.press("h")
        await pilot.pause()
        assert emphasised() == first and len(calls) == drawn


def _visible_rows(view) -> dict[str, str]:
    """Each shown row's text as the user sees it: cut where the vertical scrollbar begins."""
    width = view.scrollable_content_region.width
    rows = {}
    for y in range(view.size.height):
        text = view.render_line(y).text[:width]
        if text[:1] in (" ", "›") and text[1:4] == "op-":
            rows[text[1:].split()[0]] = text
    return rows


async def test_no_lane_runs_under_the_scrollbar_at_120x14() -> None:
    """Issue 13: with a scrolled list the scrollbar covered the lanes' last two cells, and
    close_account's ◆ and track_parcel's ▶ vanished."""
    app = make_app(str(DEMOS / "tour.vcon.json"))
    async with app.run_test(size=(120, 14)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("G")
        await pilot.pause()
        view = app.screen.query_one(TimelineView)
        assert view.show_vertical_scrollbar and view.scroll_offset.y > 0
        rows = _visible_rows(view)
        lane_x = view.columns(view.scrollable_content_region.width).lane_x
        assert "◆" in rows["op-11e2"][lane_x:]  # close_account, disallowed
        assert "▶" in rows["op-12d6"][lane_x:]  # track_parcel, still running


async def test_the_last_operations_of_a_generated_file_have_their_lanes(tmp_path) -> None:
    """bench/generate.py's shape (the issue saw it on 100k operations: the last two hours had
    no lane): the latest operations' marks fall in the lane's last cells, which must show."""
    from bench.generate import generate

    path = tmp_path / "gen.vcon.json"
    generate(path, 400, seed=1)
    app = make_app(str(path))
    async with app.run_test(size=(120, 20)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("G")
        await pilot.pause()
        view = app.screen.query_one(TimelineView)
        lane_x = view.columns(view.scrollable_content_region.width).lane_x
        width = view.scrollable_content_region.width
        selected = [view.render_line(y).text[:width] for y in range(view.size.height)]
        lane = next(t for t in selected if t.startswith("›"))[lane_x:]  # G: the last one
        assert set(lane) - FILLS, lane  # its marks, not an empty lane
