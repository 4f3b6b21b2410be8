"""Where an importer inferred what the recording does not say, it writes the rule into the
event's ``inferred`` member (README, *Importing agent traffic*). A reviewer reads it in the
detail's event line without switching to the raw view: it is why the event is where it is."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson

from viewer.importers import otlp
from viewer.tui.app import make_app
from viewer.tui.detail import INFO_CHARS

FIX = Path(__file__).resolve().parent / "fixtures" / "variants"
#: get_weather, read from the model's messages alone: both of its events carry `inferred`
ASKED_ONLY = FIX / "otel_completion_tool_calls_only.otlp.json"


def changed(tmp_path: Path, change: Callable[[list[dict[str, Any]]], None]) -> Path:
    """The imported vCon of ``ASKED_ONLY`` with its events changed, written to a file."""
    vcon, _ = otlp.convert(ASKED_ONLY.read_bytes())
    change(vcon["events"])
    path = tmp_path / "v.vcon.json"
    path.write_bytes(orjson.dumps(vcon))
    return path


@asynccontextmanager
async def detail(path: Path) -> AsyncIterator[Callable[..., Any]]:
    """The viewer on ``path``, in the first operation's detail: yields ``info(*keys)``, the
    event line after pressing ``keys``, and the app as ``info.app``."""
    app = make_app(str(path))
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()

        async def info(*keys: str) -> str:
            if keys:
                await pilot.press(*keys)
                await pilot.pause()
            return str(app.screen.query_one("#event-info").render())

        info.app = app  # type: ignore[attr-defined]
        yield info


async def test_the_detail_says_what_was_inferred_about_an_event() -> None:
    async with detail(ASKED_ONLY) as info:
        assert "inferred: no tool span or tool event records this call" in await info()
        # the tool-result: its own reason
        assert "inferred: the answer as the next request to the model carries it" in \
            await info("l")


async def test_an_inferred_reason_is_shown_as_text_and_neutralised(tmp_path: Path) -> None:
    # the member is whatever the file holds: markup and escapes stay inert, a non-string is
    # not taken for a reason
    def change(events: list[dict[str, Any]]) -> None:
        events[0]["inferred"] = "[bold]x[/bold] \x1b[31mred\u202e"
        events[1]["inferred"] = {"not": "a reason"}

    async with detail(changed(tmp_path, change)) as info:
        line = await info()
        assert "inferred: [bold]x[/bold]" in line and "\x1b" not in line and "\u202e" not in line
        assert "inferred" not in await info("l")


async def test_a_long_recorded_value_is_cut_in_the_event_line(tmp_path: Path) -> None:
    """A reason of 100,000 characters would push the event's content off the screen: the line
    shows its start and says how long it is (the raw view, r, has it whole)."""
    def change(events: list[dict[str, Any]]) -> None:
        events[0]["inferred"] = "why " * 25_000

    async with detail(changed(tmp_path, change)) as info:
        line = await info()
        assert "…(100000 characters)" in line and len(line) < INFO_CHARS + 400
        svg = info.app.export_screenshot()  # the content is still on screen, below the line
        assert "city" in svg and "Paris" in svg


async def test_the_detail_shows_an_events_annotations(tmp_path: Path) -> None:
    """An Invariant trace's annotation (a guardrail's or analyzer's finding, a reviewer's
    note) addressing a tool call is shown in the call's event line, as text."""
    call = {"id": "x", "type": "function",
            "function": {"name": "send_money", "arguments": "{\"amount\": 5}"}}
    trace = {"messages": [{"role": "user", "content": "pay"},
                          {"role": "assistant", "content": None, "tool_calls": [call]},
                          {"role": "tool", "content": "sent", "tool_call_id": "x"}],
             "annotations": [{"content": "[PolicyViolation] untrusted IBAN \x1b[31m",
                              "address": "messages[1].tool_calls[0]"}]}
    path = tmp_path / "t.jsonl"
    path.write_bytes(orjson.dumps(trace) + b"\n")
    async with detail(path) as info:
        line = await info()
        assert "annotation: [PolicyViolation] untrusted IBAN" in line and "\x1b" not in line
        assert "annotation" not in await info("l")  # the result: no annotation addresses it
