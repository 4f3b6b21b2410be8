"""Viewer items of issue 17 (each failed on the old code):

- the command palette crashed (KeyError in Textual's OptionList) on PageUp/PageDown at 4 rows
  or fewer;
- ``a`` on a huge body laid out and highlighted all of it at once (5 minutes at 200 MB): now
  part by part;
- a key storm (enter/escape) could run the detail's after-refresh callback once the screen was
  gone: NoMatches '#events-scroll'.
"""

from __future__ import annotations

import time
from pathlib import Path

import orjson
import pytest

from tests.modelkit import tool, vcon
from tests.test_tui_keys import SIZE, app_for, screen_text
from viewer.tui.detail import DetailScreen
from viewer.tui.present import PART_CHARS, decode_content


@pytest.mark.parametrize("rows", [3, 4])
async def test_palette_page_keys_at_few_rows(rows: int) -> None:
    app = app_for()
    async with app.run_test(size=(60, rows)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press("pagedown", "pageup", "pagedown", "pagedown", "pageup")
        await pilot.pause()
        await pilot.press("escape")
    assert app.return_code in (None, 0)


def test_show_all_is_paged() -> None:
    body = "line of text\n" * (3 * PART_CHARS // 13 + 10)
    obj = {"body": body, "encoding": "none", "mediatype": "text/plain"}
    first = decode_content(obj, full=True, part=0)
    assert first.parts == 4 and first.part == 0 and first.truncated
    last = decode_content(obj, full=True, part=3)
    assert last.part == 3 and len(last.renderable.plain) < PART_CHARS
    assert decode_content(obj, full=True, part=4).part == 0  # wraps around


async def test_a_on_a_big_body_shows_parts(tmp_path: Path) -> None:
    big = {"rows": ["x" * 200] * 5000}  # ~1 MB of JSON: 6 parts
    p = tmp_path / "big.vcon.json"
    p.write_bytes(orjson.dumps(vcon([tool("tool-invocation", 0), tool("tool-result", 1,
                                                                       body=big)])))
    app = app_for(p)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("enter", "l")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        t = time.perf_counter()
        await pilot.press("a")
        await pilot.pause()
        assert time.perf_counter() - t < 20
        assert "press a for the next part" in screen_text(app)
        assert app.screen.part == 0
        await pilot.press("a")
        assert app.screen.part == 1


async def test_key_storm_in_and_out_of_the_detail() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        for _ in range(5):
            await pilot.press("enter", "j", "escape", "j", "enter", "escape")
        await pilot.pause()
    assert app.return_code in (None, 0)
