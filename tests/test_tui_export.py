"""Pilot tests: the export dialog, one key per choice (issue 13)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from test_tui_keys import SIZE, TOUR, screen_text

from viewer.tui.app import make_app
from viewer.tui.export import ExportScreen, format_keys
from viewer.tui.timeline import TimelineScreen


def _spans(screen: ExportScreen, widget: str, word: str) -> str:
    """The style of ``word`` in the dialog's ``widget`` line."""
    text = screen.query_one(widget).content
    plain = text.plain
    at = plain.index(word)
    return " ".join(str(s.style) for s in text.spans if s.start <= at < s.end)


async def test_one_key_per_format_and_scope_and_the_name_says_the_scope(tmp_path: Path,
                                                                          monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert format_keys() == {"m": "md", "h": "html", "j": "json", "c": "csv"}
    app = make_app(str(TOUR))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("j", "j", "e")  # the third operation: op-03f1
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        box = screen.query_one("#export-path")
        assert box.value == str(tmp_path / "tour.summary.md")
        await pilot.press("s")  # the selected operation: the name says which
        assert box.value == str(tmp_path / "tour.op-03f1.summary.md")
        await pilot.press("j")  # json in one key
        assert box.value == str(tmp_path / "tour.op-03f1.summary.json")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
    data = json.loads((tmp_path / "tour.op-03f1.summary.json").read_bytes())
    assert [op["operation_id"] for op in data["operations"]] == ["op-03f1"]


async def test_the_last_choice_is_remembered_and_enter_writes_from_the_name(
        tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(str(TOUR))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("e", "c", "escape")  # csv chosen, then cancelled
        await pilot.press("e")
        screen = app.screen
        assert screen.fmt == "csv"  # offered again
        await pilot.press("tab")  # to the file name: letters type there, not choose
        await pilot.press("x")
        assert screen.fmt == "csv" and screen.scope == "all"
        assert screen.query_one("#export-path").value.endswith(".csvx")
        screen.query_one("#export-path").value = str(tmp_path / "r.csv")
        await pilot.press("enter")  # from the name too
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
    assert (tmp_path / "r.csv").read_bytes().startswith(b"operation_id") or \
        os.path.getsize(tmp_path / "r.csv") > 0


async def test_disabled_choices_look_disabled_and_cannot_be_chosen(tmp_path: Path,
                                                                   monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(str(TOUR))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("e")
        screen = app.screen
        assert "strike" in _spans(screen, "#export-scope", "filtered")  # no filter: disabled
        assert "strike" not in _spans(screen, "#export-scope", "all operations")
        await pilot.press("f")
        assert screen.scope == "all"
        assert "Export the summary" in screen_text(app) and "filtered" in screen_text(app)



async def test_escape_leaves_the_name_and_q_closes_the_dialog_not_the_viewer(
        tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(str(TOUR))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("e")
        screen = app.screen
        await pilot.press("tab", "q")  # in the name, q is a letter
        assert screen.query_one("#export-path").value.endswith(".mdq")
        await pilot.press("escape")  # back to the keys, the dialog still open
        assert app.screen is screen and screen.focused is None
        await pilot.press("j")
        assert screen.fmt == "json"
        await pilot.press("q")  # closes the dialog only
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen) and app.is_running


async def test_tab_puts_the_cursor_at_the_end_of_the_name_the_choices_made(
        tmp_path: Path, monkeypatch) -> None:
    """After `s` lengthened the name (tour.op-03f1.summary.md), tab and typing edit its end:
    the cursor was left where the shorter name ended, so ctrl+u and a new name wrote
    "NEWmmary.md"."""
    monkeypatch.chdir(tmp_path)
    app = make_app(str(TOUR))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("j", "j", "e", "s", "tab")
        box = app.screen.query_one("#export-path")
        assert box.cursor_position == len(box.value)
        await pilot.press("ctrl+u", *str(tmp_path / "mine.md"), "enter")
        await pilot.pause()
        assert (tmp_path / "mine.md").is_file()
