"""Pilot tests: the findings and context screens, export dialog, palette and quit stay
responsive on big files (issue 13): lists drawn only where seen, built in a thread."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from test_tui_keys import SIZE, app_for, screen_text

from bench.generate import generate
from viewer.tui import context as context_module
from viewer.tui import findings as findings_module
from viewer.tui.app import make_app
from viewer.tui.context import ContextScreen
from viewer.tui.findings import FindingsScreen
from viewer.tui.timeline import TimelineScreen


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "gen.vcon.json"
    generate(path, 3000, seed=1)
    return path


async def _loaded(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()
    assert isinstance(app.screen, TimelineScreen)


async def test_findings_draws_only_the_rows_on_screen(big: Path, monkeypatch) -> None:
    drawn: list[int] = []
    prompt = findings_module.finding_prompt

    def counting(f):
        drawn.append(1)
        return prompt(f)

    monkeypatch.setattr(findings_module, "finding_prompt", counting)
    app = make_app(str(big))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        assert len(app.model.findings) > 200
        await pilot.press("f")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, FindingsScreen)
        assert 0 < len(drawn) <= 2 * SIZE[1]  # a screenful, not every finding
        await pilot.press("G")  # the end of the list: still only what is seen
        await pilot.pause()
        assert len(drawn) <= 4 * SIZE[1]


async def test_context_draws_only_the_rows_on_screen(big: Path, monkeypatch) -> None:
    drawn: list[int] = []
    line = context_module.context_line

    def counting(*args):
        drawn.append(1)
        return line(*args)

    monkeypatch.setattr(context_module, "context_line", counting)
    app = make_app(str(big))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, ContextScreen)
        assert 0 < len(drawn) <= 2 * SIZE[1]
        assert app.screen.query_one("#context").count >= len(app.model.operations)


@pytest.mark.parametrize("key,module,builder", [("f", findings_module, "finding_rows"),
                                                ("c", context_module, "transcript")])
async def test_a_long_list_is_built_in_a_thread_saying_so(key, module, builder,
                                                          monkeypatch) -> None:
    """While the list is built the screen says "building…", and escape is not held up."""
    gate = threading.Event()
    real = getattr(module, builder)

    def slow(model):
        gate.wait(10)
        return real(model)

    monkeypatch.setattr(module, "BUILD_INLINE", 0)
    monkeypatch.setattr(module, builder, slow)
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        await pilot.press(key)
        await pilot.pause()
        assert "building…" in screen_text(app)
        await pilot.press("escape")  # answered at once, the build still running
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press(key)
        await pilot.pause()
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = screen_text(app)
        assert "building…" not in text
        assert ("findings" in text) if key == "f" else ("operations in time order" in text)


async def test_palette_enter_typed_before_the_hits_chooses_the_new_ones(monkeypatch) -> None:
    """A search that takes a while (a big file): enter waits for its hits."""
    import asyncio

    from test_tui_keys import TOUR

    from viewer.tui.commands import VconCommands

    search = VconCommands.search

    async def slow(self, query):
        await asyncio.sleep(0.2)
        async for hit in search(self, query):
            yield hit

    monkeypatch.setattr(VconCommands, "search", slow)
    app = make_app(str(TOUR))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        await pilot.press("ctrl+p", *"op-03f1")
        await pilot.pause(0.6)  # the list shows op-03f1's hit
        await pilot.press(*["backspace"] * 7, *"op-12d6", "enter")  # no pause before enter
        await pilot.pause(0.8)
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
        assert app.operation.operation_id == "op-12d6"


def test_palette_operation_index_finds_ids_and_targets() -> None:
    from test_tui_keys import TOUR

    from viewer.model.build import build_model
    from viewer.pipeline import open_path
    from viewer.tui.commands import operation_hits

    m = build_model(open_path(str(TOUR)))
    ids = [m.operations[i].operation_id for i in operation_hits(m, "OP-03")]
    assert ids == ["op-03f1"]
    refund = operation_hits(m, "issue_refund")
    assert [m.operations[i].operation_id for i in refund] == ["op-03f1"]
    assert len(operation_hits(m, "op-", limit=3)) == 3
    assert operation_hits(m, "") == [] and operation_hits(m, "nothing-like-it") == []


def _cursor_rows(app) -> list[int]:
    """The screen rows drawn in the cursor's colour (from the SVG screenshot)."""
    import re

    rows: dict[int, str] = {}
    for fill, x, y, w in re.findall(r'<rect fill="(#[0-9a-f]+)" x="([\d.]+)" y="([\d.]+)" '
                                    r'width="([\d.]+)"', app.export_screenshot()):
        if float(x) <= 600 < float(x) + float(w):
            rows[round(float(y))] = fill
    fills = list(rows.values())
    common = max(set(fills), key=fills.count)
    return [y for y, f in sorted(rows.items()) if f != common and 10 < y < 700]


async def test_the_cursor_bar_follows_j_and_k_in_the_list() -> None:
    """Only the two lines that change are redrawn on a move: the bar must still move."""
    from test_tui_keys import TOUR

    app = make_app(str(TOUR))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        await pilot.press("f")
        await pilot.pause()
        first = _cursor_rows(app)
        await pilot.press("j")
        await pilot.pause()
        second = _cursor_rows(app)
        await pilot.press("k")
        await pilot.pause()
        assert len(first) == len(second) == 1 and second[0] > first[0]
        assert _cursor_rows(app) == first


async def test_a_big_final_model_has_its_lists_prepared_before_the_keys(monkeypatch) -> None:
    """Once the model is final the App builds the lists in a thread: f and c open with their
    rows, no "building…", and the palette's index is ready."""
    from test_tui_keys import TOUR

    from viewer.tui import app as app_module
    from viewer.tui import commands

    monkeypatch.setattr(app_module, "PREPARE_ABOVE", 0)
    monkeypatch.setattr(findings_module, "BUILD_INLINE", 0)
    monkeypatch.setattr(context_module, "BUILD_INLINE", 0)
    app = make_app(str(TOUR))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(app, pilot)
        model = app.model
        assert model.unchecked is None
        built: list[str] = []
        monkeypatch.setattr(findings_module, "finding_rows", lambda m: built.append("f"))
        monkeypatch.setattr(context_module, "transcript", lambda m: built.append("c"))
        await pilot.press("f")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.rows and "building…" not in screen_text(app)
        await pilot.press("escape", "c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.rows and built == []  # nothing built on the keys: prepared
        assert commands.operation_hits(model, "op-03") == [2]
