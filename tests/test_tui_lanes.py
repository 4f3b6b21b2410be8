"""The timeline at any width: lanes keep the order of events (colliding marks are pushed apart,
not swapped), and a narrow footer keeps ? Help in view."""

from __future__ import annotations

from pathlib import Path

import pytest

from viewer.tui import palette as P
from viewer.tui.app import make_app
from viewer.tui.timeline import TimelineView, columns

DEMOS = Path(__file__).resolve().parent.parent / "demo_vcons"
FILLS = set("─┄ ")


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
        lane = view._lane(model, op, columns(view.size.width), False).plain
        lanes[op.operation_id] = lane
        # once decisions are drawn over the lane after the marks ("?": an unreadable decision)
        skip = FILLS | (decision_glyphs | {"?"} if op.once_decisions else set())
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
    from viewer.tui import timeline

    calls = []
    real = timeline._lane_layers

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(timeline, "_lane_layers", counted)
    app = make_app("storm.vcon.json", data=orjson.dumps(attempts(3000)))
    async with app.run_test(size=(120, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        view = app.screen.query_one(TimelineView)
        model = app.model
        assert model is not None and len(model.operations[0].attempts) == 3000
        drawn = len(calls)
        assert drawn >= 1
        cols = columns(view.size.width)

        def emphasised() -> set[int]:  # cells drawn bold underline: the selected attempt's
            text = view._lane(model, model.operations[0], cols, True)
            styles = [text.get_style_at_offset(app.console, i) for i in range(cols.lane_w)]
            return {i for i, st in enumerate(styles) if st.underline and st.bold}

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
