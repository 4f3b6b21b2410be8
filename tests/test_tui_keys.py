"""Pilot tests: every key of the TUI, the filter tokens, copy fallback, export, banners, safety."""

from __future__ import annotations

import hashlib
import html
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from test_tui_support import SMALL, build, model_of

from viewer.tui.app import VconViewApp, make_app
from viewer.tui.detail import DetailScreen
from viewer.tui.diff import DiffScreen
from viewer.tui.export import ExportScreen
from viewer.tui.filter import FilterError, parse_filter
from viewer.tui.findings import FindingsScreen
from viewer.tui.help import HelpScreen
from viewer.tui.loading import LoadErrorScreen
from viewer.tui.timeline import InfoHeader, TimelineScreen, TimelineView

SIZE = (120, 32)


def app_for(path: Path | str = SMALL, **kw: Any) -> VconViewApp:
    return make_app(str(path), builder=build, **kw)


def screen_text(app: VconViewApp) -> str:
    """What the terminal shows, as plain text (from the SVG screenshot)."""
    svg = app.export_screenshot()
    text = " ".join(re.findall(r">([^<]*)</text>", svg))
    return html.unescape(text).replace("\xa0", " ")


def timeline_lines(app: VconViewApp) -> list[str]:
    view = app.screen.query_one(TimelineView)
    return ["".join(seg.text for seg in view.render_line(y)) for y in range(view.size.height)]


def op_id(app: VconViewApp) -> str | None:
    op = app.operation
    return op.operation_id if op else None


async def test_loads_in_worker_and_shows_timeline() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
        assert app.model is not None and len(app.model.operations) == 5
        lines = timeline_lines(app)
        assert any("op-lookup" in line for line in lines)
        assert "tui_small.vcon.json" in screen_text(app)


async def test_loads_stdin_bytes_read_before_start() -> None:
    """``vcon-view -``: the CLI reads stdin whole, then the app loads those bytes (it never
    reads stdin itself: there it reads keys)."""
    data = Path(SMALL).read_bytes()
    app = make_app("-", data=data)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
        assert app.model is not None and len(app.model.operations) == 5
        assert app.model.source.file == "-"
        assert "stdin" in screen_text(app)
        # released once loaded: the app holds the input's bytes no more
        assert all(v is not data for v in vars(app).values())


async def test_operation_and_attempt_keys() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert op_id(app) == "op-lookup"
        await pilot.press("j")
        assert op_id(app) == "op-refund"
        await pilot.press("down", "down")
        assert op_id(app) == "op-report"
        await pilot.press("k", "up")
        assert op_id(app) == "op-refund"
        await pilot.press("l")
        assert app.attempt_sel == 1 and app.attempt.number == 2
        await pilot.press("h")
        assert app.attempt_sel == 0
        await pilot.press("right", "left", "right")
        assert app.attempt_sel == 1
        await pilot.press("G")
        assert op_id(app) == "op-stream"
        await pilot.press("g")
        assert op_id(app) == "op-lookup"


async def test_enter_detail_events_raw_escape() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("j", "enter")
        screen = app.screen
        assert isinstance(screen, DetailScreen)
        assert app.event_sel is not None
        first = screen.event_index
        await pilot.press("l")
        assert screen.event_index != first
        await pilot.press("h")
        assert screen.event_index == first
        await pilot.press("j")  # next attempt inside the detail
        assert app.attempt.number == 2
        await pilot.press("r")
        assert screen.raw
        assert '"operation_id"' in screen_text(app)
        await pilot.press("r", "a", "t")
        assert not screen.raw and screen.full
        await pilot.press("escape")
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("r")
        assert isinstance(app.screen, DetailScreen) and app.screen.raw


async def test_findings_next_previous_and_screen() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        assert app.model is not None and app.model.findings
        await pilot.press("n")
        f = app.model.findings[0]
        assert app.finding_pos == 0
        assert op_id(app) == f.operation_id
        await pilot.press("n", "N")
        assert app.finding_pos == 0
        await pilot.press("N")
        assert app.finding_pos == len(app.model.findings) - 1
        await pilot.press("f")
        assert isinstance(app.screen, FindingsScreen)
        # choose the policy violation: the timeline selects its operation
        target = next(i for i, x in enumerate(app.model.findings) if x.kind == "policy-violation")
        await pilot.pause()
        app.screen.query_one("#findings").move_to(app.screen.row_of("f", target))
        await pilot.press("enter")
        assert isinstance(app.screen, TimelineScreen)
        assert op_id(app) == "op-delete"
        await pilot.press("f", "escape")
        assert isinstance(app.screen, TimelineScreen)


TOUR = Path(__file__).resolve().parent.parent / "demo_vcons" / "tour.vcon.json"


def _finding_ops(app: VconViewApp) -> list[tuple[int, int]]:
    """(operation index, finding index) of every finding that names an operation, sorted."""
    assert app.model is not None
    return sorted((t, i) for i, f in enumerate(app.model.findings)
                  if (t := app.finding_target(f)[0]) is not None)


async def test_next_finding_steps_from_the_selected_operation() -> None:
    app = make_app(str(TOUR), builder=build)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        order = _finding_ops(app)
        await pilot.press("j", "j", "j", "j")
        assert app.shown[app.sel] == 4
        await pilot.press("n")  # the first finding at or after the selected operation
        here = next((o, i) for o, i in order if o >= 4)
        assert (app.shown[app.sel], app.finding_pos) == here
        await pilot.press("n")  # then the next one in timeline order
        assert (app.shown[app.sel], app.finding_pos) == order[order.index(here) + 1]
        assert all(o > 0 for o, _ in order)  # the tour's first operation has no finding, so
        await pilot.press("g", "N")  # from the first operation back: wraps to the end
        assert app.finding_pos == _finding_order_last(app)
        assert "(from the end)" in str(app.note)  # said in the status line, not a toast


def _finding_order_last(app: VconViewApp) -> int:
    return app.finding_order()[-1][1]


async def test_next_finding_passes_findings_that_name_no_operation() -> None:
    """Such findings come last in the order and select nothing; n goes on past them."""
    from dataclasses import replace

    from viewer.model.types import Finding

    base = model_of()
    loose = tuple(Finding("standing-conflict", "info", None, None, (), f"loose {i}")
                  for i in range(2))
    app = make_app(str(SMALL), model=replace(base, findings=(*base.findings, *loose)))
    async with app.run_test(size=SIZE) as pilot:
        order = app.finding_order()
        assert [i for _, i in order[-2:]] == [len(base.findings), len(base.findings) + 1]
        seen = []
        for _ in range(len(order) + 1):
            await pilot.press("n")
            seen.append(app.finding_pos)
        # every finding once, in order, then round again (no ping-pong on the loose ones)
        assert seen == [i for _, i in order] + [order[0][1]]


async def test_next_finding_stays_within_the_filter() -> None:
    app = make_app(str(TOUR), builder=build)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        assert app.apply_filter("flag:late") is None
        await pilot.pause()
        late_ops = set(app.shown)
        assert late_ops and len(late_ops) < len(app.model.operations)
        seen = set()
        for _ in range(6):
            await pilot.press("n")
            assert not app.filter.empty  # never cleared behind the user's back
            assert app.shown[app.sel] in late_ops
            seen.add(app.finding_pos)
        in_filter = {i for o, i in _finding_ops(app) if o in late_ops}
        assert seen == in_filter  # every finding of the late operations, and only those
        assert " in the filter" in str(app.note)
        assert app.apply_filter("id:no-such-operation") is None
        await pilot.pause()
        await pilot.press("n")
        assert "No findings among the operations shown" in str(app.note)


async def test_time_mode_zoom_fit() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        assert app.time_mode == "relative"
        await pilot.press("t")
        assert app.time_mode == "delta"
        await pilot.press("t")
        assert app.time_mode == "absolute"
        assert any("10:00:" in line for line in timeline_lines(app))
        await pilot.press("t")
        assert app.time_mode == "relative"
        await pilot.press("plus", "plus")
        assert app.zoom == 4
        view = app.screen.query_one(TimelineView)
        assert view.axis is not None and view.axis.we - view.axis.ws < view.axis.span
        await pilot.press("minus")
        assert app.zoom == 2
        await pilot.press("0")
        assert app.zoom == 1


async def test_help_and_quit() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "zoom the time axis" in screen_text(app)
        from rich.console import Console

        from viewer.tui.help import help_text

        console = Console(width=120, record=True, file=io.StringIO())
        console.print(help_text())
        text = console.export_text()
        assert "attempts:>1" in text
        from viewer.tui.filter import TOKEN_KEYS

        for key in TOKEN_KEYS:  # every filter term the filter reads, party:NAME among them
            assert f"\n{key}:" in text, key
        lines = text.splitlines()
        assert any(line.startswith("space ") for line in lines)  # sub-lanes
        for digit in "12345678":  # the columns' keys
            assert any(line.startswith(f"{digit} ") and "hide / show" in line
                       for line in lines), digit
        await pilot.press("escape")
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("q")
    assert app.return_code in (0, None)


async def test_diff_with_previous_attempt() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("d")  # one attempt: a notice, no screen
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("j", "l", "d")
        assert isinstance(app.screen, DiffScreen)
        text = screen_text(app)
        assert '+  "approval": "sup-77"' in text or '"approval": "sup-77"' in text
        await pilot.press("escape")
        assert isinstance(app.screen, TimelineScreen)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("tool:refund", ["op-refund"]),
        ("tool:lookup*", ["op-lookup"]),
        ("server:files", ["op-delete", "op-report"]),
        ("outcome:failed", ["op-delete"]),
        ("outcome:completed|running", ["op-lookup", "op-refund", "op-report", "op-stream"]),
        ("decision:disallowed", ["op-delete"]),
        ("flag:late", ["op-report"]),
        ("flag:escalation", ["op-refund"]),
        ("flag:violation", ["op-delete"]),
        ("flag:unterminated", ["op-stream"]),
        ("attempts:>1", ["op-refund"]),
        ("attempts:1 server:files", ["op-delete", "op-report"]),
        ("sup-77", ["op-refund"]),  # free text in content
        ("lookup", ["op-lookup"]),  # free text in tool
        ("id:stream", ["op-stream"]),
    ],
)
async def test_filter_tokens(query: str, expected: list[str]) -> None:
    app = app_for(model=model_of())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash")
        app.screen.query_one("#filter").value = query
        await pilot.press("enter")
        assert app.model is not None
        got = [app.model.operations[i].operation_id for i in app.shown]
        assert got == expected
        header = app.screen.query_one(InfoHeader)
        assert f"{len(expected)} of 5 operations match" in str(header.render())
        assert "in the file: 6 attempts" in str(header.render())  # whole-file counts, said so
        await pilot.press("escape")
        assert len(app.shown) == 5
        assert "in the file" not in str(app.screen.query_one(InfoHeader).render())


def test_filter_parse_errors() -> None:
    with pytest.raises(FilterError):
        parse_filter("attempts:many")
    with pytest.raises(FilterError):
        parse_filter("tool:")
    assert parse_filter("  ").empty
    # a typo in a closed set is an error, not a silently empty timeline
    for bad, named in (("flag:bogus", "'bogus'"), ("flag:late|lat", "'lat'"),
                       ("outcome:fial", "'fial'"), ("decision:allow", "'allow'")):
        with pytest.raises(FilterError, match=named):
            parse_filter(bad)
    # every documented value and alias parses
    from viewer.model import spec
    from viewer.tui.filter import FLAG_NAMES

    assert set(FLAG_NAMES.values()) <= set(spec.FINDING_KINDS)  # short names of findings
    for flag in (*FLAG_NAMES, *spec.FINDING_KINDS):
        parse_filter(f"flag:{flag}")
    for outcome in (*(spec.outcome_name(s) for s in spec.STATES), "disallowed", "not-performed"):
        parse_filter(f"outcome:{outcome}")
    for decision in (*spec.DECISIONS, "none"):
        parse_filter(f"decision:{decision.upper()}")


async def test_filter_escape_cancels_input() -> None:
    app = app_for(model=model_of())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", "x", "y", "z", "z", "y")
        assert len(app.shown) == 0  # live filtering on small files
        await pilot.press("escape")  # closes the input and undoes what typing applied
        assert len(app.shown) == 5 and app.filter.empty
        await pilot.press("escape")  # (on the timeline: clears a filter; there is none)
        assert len(app.shown) == 5
        await pilot.press("j")
        assert op_id(app) == "op-refund"
        # escape returns to the filter in effect when / was pressed, not to none
        assert app.apply_filter("attempts:>1") is None
        kept = list(app.shown)
        await pilot.press("slash", "space", "x", "y", "z")
        assert len(app.shown) == 0
        await pilot.press("escape")
        assert list(app.shown) == kept and app.filter.text == "attempts:>1"


async def test_filter_line_shows_what_is_wrong_while_typing() -> None:
    app = app_for(model=model_of())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash")
        box = app.screen.query_one("#filter")
        for ch in "flag:lat":
            await pilot.press(ch)
        assert "'lat' is not one of" in (box.border_subtitle or "")
        await pilot.press("e")  # flag:late: fine now
        assert not box.border_subtitle
        box.value = "flag:[@click=app.quit]x"  # typed markup is shown as typed, never run
        await pilot.pause()
        assert "'[@click=app.quit]x' is not one of" in box._border_subtitle.plain
        assert app.is_running
        await pilot.press("escape")
        assert not box.border_subtitle


async def test_copy_uses_pyperclip(monkeypatch: pytest.MonkeyPatch) -> None:
    copied: list[str] = []
    monkeypatch.setattr("pyperclip.copy", copied.append)
    app = app_for(model=model_of())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("y")
        assert copied and json.loads(copied[0])[0]["operation_id"] == "op-lookup"
        assert "system clipboard" in app._notifications.__iter__().__next__().message


async def test_copy_falls_back_to_osc52(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyperclip

    def boom(text: str) -> None:
        raise pyperclip.PyperclipException("no clipboard")

    monkeypatch.setattr("pyperclip.copy", boom)
    app = app_for(model=model_of())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("j", "enter", "y")
        assert isinstance(app.screen, DetailScreen)
        assert json.loads(app.clipboard)["type"] == "tool-invocation"
        messages = [n.message for n in app._notifications]
        assert any("OSC 52" in m for m in messages)


@pytest.mark.parametrize("fmt", ["md", "html", "json", "csv"])
async def test_export_writes_file_and_leaves_input(tmp_path: Path, fmt: str) -> None:
    src = tmp_path / "in.vcon.json"
    src.write_bytes(SMALL.read_bytes())
    before = hashlib.sha256(src.read_bytes()).hexdigest()
    out = tmp_path / f"out.{fmt}"
    app = app_for(src)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("e")
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        await pilot.press(fmt[0])  # one key per format
        box = screen.query_one("#export-path")
        box.value = str(out)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
    assert out.exists() and out.stat().st_size > 0
    if fmt == "json":
        assert json.loads(out.read_bytes())
    if fmt in ("md", "html"):  # a report names the file it describes, and the viewer made it
        assert before.encode() in out.read_bytes() and b"vcon-view 0.1.0 (viewer)" in \
            out.read_bytes()
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before


async def test_export_refuses_the_input(tmp_path: Path) -> None:
    src = tmp_path / "in.vcon.json"
    src.write_bytes(SMALL.read_bytes())
    before = src.read_bytes()
    app = app_for(src)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("e")
        app.screen.query_one("#export-path").value = str(src)
        await pilot.press("enter")
        assert isinstance(app.screen, ExportScreen)  # stays open, says why
        assert any("input" in n.message for n in app._notifications)
    assert src.read_bytes() == before


async def test_export_asks_before_replacing_a_file(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    out.write_bytes(b"an earlier report")
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("e")
        screen = app.screen
        screen.query_one("#export-path").value = str(out)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen  # not written yet: asked first
        assert out.read_bytes() == b"an earlier report"
        assert "That file exists: enter again replaces it" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
    assert out.read_bytes().startswith(b"# ")  # the Markdown summary replaced it


async def test_export_question_is_per_path_and_odd_paths_fail_cleanly(tmp_path: Path) -> None:
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_bytes(b"a")
    second.write_bytes(b"b")
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("e")
        screen = app.screen
        box = screen.query_one("#export-path")
        box.value = str(first)
        await pilot.press("enter")
        await pilot.pause()
        box.value = str(second)  # another file: the answer given for the first does not carry
        await pilot.pause()
        assert "That file exists" not in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and second.read_bytes() == b"b"  # asked again
        box.value = "~no-such-user-vcon-view/x.md"  # expanduser raises RuntimeError
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen  # still open, no crash
        assert any(n.title == "Export failed" for n in app._notifications)
    assert first.read_bytes() == b"a" and second.read_bytes() == b"b"


async def test_export_selected_scope(tmp_path: Path) -> None:
    out = tmp_path / "one.json"
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("j", "e")
        await pilot.press("j", "s")
        app.screen.query_one("#export-path").value = str(out)
        await pilot.press("enter")
    data = json.loads(out.read_bytes())
    assert [op["operation_id"] for op in data["operations"]] == ["op-refund"]


def _critical_vcon(tmp_path: Path) -> Path:
    v = json.loads(SMALL.read_text())
    v["critical"] = ["x-unknown-extension"]
    v["extensions"] = ["tool-invocation", "x-unknown-extension"]
    p = tmp_path / "critical.vcon.json"
    p.write_text(json.dumps(v))
    return p


async def test_critical_without_override_blocks(tmp_path: Path) -> None:
    app = app_for(_critical_vcon(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, LoadErrorScreen)
        assert "--ignore-critical" in screen_text(app)
        await pilot.press("enter")
    assert app.return_code == 3


async def test_critical_override_banner(tmp_path: Path) -> None:
    app = app_for(_critical_vcon(tmp_path), ignore_critical=True)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
        header = str(app.screen.query_one(InfoHeader).render())
        assert "CRITICAL OVERRIDE" in header and "x-unknown-extension" in header


async def test_unreadable_file_notice(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    app = app_for(bad)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, LoadErrorScreen)
        await pilot.press("q")
    assert app.return_code == 2


HOSTILE = [
    "\x1b]52;c;SGVsbG8=\x07",
    "\x1b[2J",
    "[@click=app.quit]x[/]",
    "[bold red]x[/]",
    "\u202eevil\u202c",
]


def _hostile_vcon(tmp_path: Path) -> Path:
    v = json.loads(SMALL.read_text())
    for e in v["events"]:
        if e.get("operation_id") == "op-lookup":
            e["operation_id"] = "[@click=app.quit]op[/]"
            if e["type"] == "tool-result":
                e["body"] = "".join(HOSTILE)
                e["encoding"] = "none"
                e["mediatype"] = "text/plain"
            if e["type"] == "tool-invocation":
                e["tool"] = "[bold red]x[/]\x1b[2J"
    v["dialog"][0]["body"] = "[@click=app.quit]say[/] \x1b]0;title\x07"
    p = tmp_path / "hostile.vcon.json"
    p.write_text(json.dumps(v))
    return p


async def test_hostile_content_is_inert(tmp_path: Path) -> None:
    app = app_for(_hostile_vcon(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.model is not None
        assert app.operation is not None and "[@click" in app.operation.operation_id
        await pilot.click(TimelineView, offset=(5, 3))  # click the hostile row
        await pilot.press("enter", "l", "l")  # the tool-result with the payload
        assert isinstance(app.screen, DetailScreen)
        text = screen_text(app)
        assert "[@click=app.quit]x[/]" in text
        assert "[bold red]x[/]" in text
        assert "\\x1b]52;c;SGVsbG8=\\x07" in text
        assert "\\x1b[2J" in text
        assert "\\u202e" in text
        assert "\x1b" not in text and "\u202e" not in text
        await pilot.press("r")  # raw view too
        assert "\x1b" not in screen_text(app)
        await pilot.press("escape", "f", "escape")
        await pilot.press("ctrl+p")
        await pilot.press(*"click")
        await pilot.pause()
        await pilot.press("escape")
        assert app.is_running
        assert app.clipboard == ""  # no OSC 52 from the content


async def test_mouse_click_selects(tmp_path: Path) -> None:
    app = app_for(model=model_of())
    async with app.run_test(size=SIZE) as pilot:
        view = app.screen.query_one(TimelineView)
        # the third operation's row (below any sub-lanes of the first two)
        await pilot.click(TimelineView, offset=(3, 3 + view.plan.row_of(2)))
        assert op_id(app) == "op-delete"
        assert view.has_focus


async def test_command_palette_go_to_operation() -> None:
    app = app_for(model=model_of())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"opreport")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        assert op_id(app) == "op-report"


async def test_no_color_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = app_for(model=model_of())
    async with app.run_test(size=SIZE):
        assert app.no_color
        lines = timeline_lines(app)
        row = next(line for line in lines if "op-refund" in line)
        assert "⊘" in row and "✓" in row and "escalation"[:3] in row


async def test_narrow_terminal_keeps_essentials() -> None:
    app = app_for(model=model_of())
    async with app.run_test(size=(80, 24)):
        lines = timeline_lines(app)
        row = next(line for line in lines if "op-delete" in line)
        assert "failed" in row and "viol" in row and "◆" in row


async def test_detail_click_selects_event() -> None:
    app = app_for(model=model_of())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("j", "enter")
        screen = app.screen
        assert isinstance(screen, DetailScreen)
        rows = screen.event_rows()
        await pilot.click("#events", offset=(4, 2))  # header line, then row 0, row 1
        assert screen.row == 1 and app.event_sel == rows[1]


async def test_filter_runs_in_thread_on_big_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("viewer.tui.app.BIG_MODEL", 2)
    app = app_for(model=model_of())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash")
        app.screen.query_one("#filter").value = "server:files"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.model is not None
        assert [app.model.operations[i].operation_id for i in app.shown] == [
            "op-delete", "op-report"]


def _long_vcon(tmp_path: Path) -> Path:
    v = json.loads(SMALL.read_text())
    for e in v["events"]:
        if e.get("operation_id") == "op-stream" and e["type"] == "tool-progress":
            e["body"] = "line of progress output\n" * 2000
    progress = next(e for e in v["events"] if e["type"] == "tool-progress")
    v["events"].extend(dict(progress, time=f"2026-03-01T10:00:{26 + i / 100:06.3f}Z")
                       for i in range(60))
    p = tmp_path / "long.vcon.json"
    p.write_text(json.dumps(v))
    return p


async def test_long_content_in_part_then_all_and_long_attempt(tmp_path: Path) -> None:
    app = app_for(_long_vcon(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("G", "enter", "l")
        screen = app.screen
        assert isinstance(screen, DetailScreen)
        assert "press a to show all" in screen_text(app)
        await pilot.press("a")
        assert screen.full and "press a to show all" not in screen_text(app)
        assert screen.query_one("#content-body").size.height > 2000
        content = screen.query_one("#content")
        assert content.scroll_y == 0
        await pilot.press("pagedown")  # the page keys scroll the content, not the events table
        await pilot.pause()
        assert content.scroll_y >= SIZE[1] // 3
        await pilot.press("space")
        await pilot.pause()
        paged = content.scroll_y
        assert paged > SIZE[1] // 2
        await pilot.press("pageup")
        await pilot.pause()
        assert 0 < content.scroll_y < paged
        for _ in range(61):
            await pilot.press("l")
        rows = screen.event_rows()
        assert screen.row == len(rows) - 1
        assert f"#{rows[-1]}" in screen_text(app)  # the table scrolled to the selected row


async def test_context_screen_and_select() -> None:
    from viewer.tui.context import ContextScreen

    app = app_for(model=model_of())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("j", "c")
        assert isinstance(app.screen, ContextScreen)
        text = screen_text(app)
        assert "Please refund order 123" in text and "join" in text
        rl = app.screen.query_one("#context")
        assert rl.cursor == app.screen.op_row[1]  # the selected operation
        await pilot.press("j", "j")  # down to a later line; then choose an operation
        rl.move_to(app.screen.op_row[3])
        await pilot.press("enter")
        assert isinstance(app.screen, TimelineScreen) and op_id(app) == "op-report"
        await pilot.press("c", "escape")
        assert isinstance(app.screen, TimelineScreen)


async def test_derived_view_header_says_so(tmp_path: Path) -> None:
    """A lifted vCon: the header says what the operations were derived from, on a line of
    its own."""
    v = json.loads((Path(SMALL).parent / "import_proxy_agent_server.vcon.json").read_bytes())
    for k in range(3):
        v["dialog"].append({"type": "text", "parties": [1, 0], "originator": 1,
                            "encoding": "none", "meta": {"mcp_type": "response"},
                            "body": json.dumps({"jsonrpc": "2.0", "id": 900 + k,
                                                "result": {}})})
    path = tmp_path / "proxy.vcon.json"
    path.write_text(json.dumps(v))
    app = app_for(path)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
        rendered = app.screen.query_one(InfoHeader).render()
        line = "derived from 33 dialogs (vcon-mcp-proxy) · 3 not mapped"
        assert line in str(rendered).split("\n")
        assert line in screen_text(app)


async def test_own_events_header_has_no_derived_line() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "derived from" not in str(app.screen.query_one(InfoHeader).render())
