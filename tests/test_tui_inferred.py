"""Where an importer inferred what the recording does not say, it writes the rule into the
event's ``inferred`` member (README, *Importing agent traffic*). A reviewer reads it in the
detail's event line without switching to the raw view: it is why the event is where it is."""

from __future__ import annotations

from pathlib import Path

from viewer.tui.app import make_app

FIX = Path(__file__).resolve().parent / "fixtures" / "variants"


async def test_the_detail_says_what_was_inferred_about_an_event() -> None:
    # get_weather is read from the model's messages alone: both events carry `inferred`
    app = make_app(str(FIX / "otel_completion_tool_calls_only.otlp.json"))
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        info = str(app.screen.query_one("#event-info").render())
        assert "inferred: no tool span or tool event records this call" in info
        await pilot.press("l")  # the tool-result: its own reason
        await pilot.pause()
        info = str(app.screen.query_one("#event-info").render())
        assert "inferred: the answer as the next request to the model carries it" in info


async def test_an_inferred_reason_is_shown_as_text_and_neutralised(tmp_path: Path) -> None:
    # the member is whatever the file holds: markup and escapes stay inert, a non-string is
    # not taken for a reason
    import orjson

    from viewer.importers import otlp

    vcon, _ = otlp.convert((FIX / "otel_completion_tool_calls_only.otlp.json").read_bytes())
    vcon["events"][0]["inferred"] = "[bold]x[/bold] \x1b[31mred\u202e"
    vcon["events"][1]["inferred"] = {"not": "a reason"}
    path = tmp_path / "v.vcon.json"
    path.write_bytes(orjson.dumps(vcon))
    app = make_app(str(path))
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        info = str(app.screen.query_one("#event-info").render())
        assert "inferred: [bold]x[/bold]" in info and "\x1b" not in info and "\u202e" not in info
        await pilot.press("l")
        await pilot.pause()
        assert "inferred" not in str(app.screen.query_one("#event-info").render())


async def test_a_long_recorded_value_is_cut_in_the_event_line(tmp_path: Path) -> None:
    """A reason of 100,000 characters would push the event's content off the screen: the line
    shows its start and says how long it is (the raw view, r, has it whole)."""
    import orjson

    from viewer.importers import otlp
    from viewer.tui.detail import INFO_CHARS

    vcon, _ = otlp.convert((FIX / "otel_completion_tool_calls_only.otlp.json").read_bytes())
    vcon["events"][0]["inferred"] = "why " * 25_000
    path = tmp_path / "v.vcon.json"
    path.write_bytes(orjson.dumps(vcon))
    app = make_app(str(path))
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        info = str(app.screen.query_one("#event-info").render())
        assert "…(100000 characters)" in info and len(info) < INFO_CHARS + 400
        svg = app.export_screenshot()  # the content is still on screen, below the line
        assert "city" in svg and "Paris" in svg


async def test_the_detail_shows_an_events_annotations(tmp_path: Path) -> None:
    """An Invariant trace's annotation (a guardrail's or analyzer's finding, a reviewer's
    note) addressing a tool call is shown in the call's event line, as text."""
    import orjson

    call = {"id": "x", "type": "function",
            "function": {"name": "send_money", "arguments": "{\"amount\": 5}"}}
    trace = {"messages": [{"role": "user", "content": "pay"},
                          {"role": "assistant", "content": None, "tool_calls": [call]},
                          {"role": "tool", "content": "sent", "tool_call_id": "x"}],
             "annotations": [{"content": "[PolicyViolation] untrusted IBAN \x1b[31m",
                              "address": "messages[1].tool_calls[0]"}]}
    path = tmp_path / "t.jsonl"
    path.write_bytes(orjson.dumps(trace) + b"\n")
    app = make_app(str(path))
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        info = str(app.screen.query_one("#event-info").render())
        assert "annotation: [PolicyViolation] untrusted IBAN" in info and "\x1b" not in info
        await pilot.press("l")  # the result: no annotation addresses it
        await pilot.pause()
        assert "annotation" not in str(app.screen.query_one("#event-info").render())
