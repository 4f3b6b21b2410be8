"""What the recording or the importer said about an event beside its content (README,
*Reports*): a refused call's decision ``reason`` (why it did not run), the ``inferred`` an
importer wrote where the recording is silent, and a trace's annotations. The viewer's detail
shows them; a report that quoted the content without them left an auditor to guess why a call
never ran (a sibling call failed, or the user refused) and took an importer's inference for a
recorded fact."""

from __future__ import annotations

from reportkit import demo, opts

from viewer.report.html import to_html
from viewer.report.markdown import to_markdown


def _section(md: str, n: int) -> str:
    return md.split(f"### Operation {n}\n", 1)[1].split("\n### ", 1)[0]


def test_markdown_gives_a_refused_calls_reason_and_what_was_inferred() -> None:
    md = to_markdown(demo("17-codex.vcon.json"), None, opts(evidence="all"))
    section = _section(md, 4)
    assert "- Reason (event" in section, section
    assert "File deletion requires write permissions" in section, section
    assert "- Inferred by the importer (event" in section, section
    assert "Codex asked to run it" in section, section


def test_html_gives_a_refused_calls_reason_and_what_was_inferred() -> None:
    page = to_html(demo("17-codex.vcon.json"), opts(evidence="all"))
    assert "Reason (event" in page and "File deletion requires write permissions" in page
    assert "Inferred by the importer (event" in page and "Codex asked to run it" in page


def test_an_inferred_answer_says_so_beside_it() -> None:
    """Gemini's status error with a tool result: the importer inferred a tool-failure."""
    m = demo("18-gemini.vcon.json")
    inferred = [i for i, e in enumerate(m.events) if isinstance(e.raw.get("inferred"), str)
                and e.type != "policy-decision"]
    assert inferred, "the demo should hold an inferred tool event"
    md = to_markdown(m, None, opts(evidence="all"))
    page = to_html(m, opts(evidence="all"))
    for i in inferred:
        assert f"- Inferred by the importer (event {i}): " in md
        assert f"Inferred by the importer (event {i})" in page


def test_notes_are_escaped_and_cut() -> None:
    md = to_markdown(demo("17-codex.vcon.json"), None, opts(evidence="all", max_chars=20))
    line = next(x for x in _section(md, 4).splitlines() if x.startswith("- Reason"))
    assert "(first 20 of " in line, line


def test_an_empty_answer_says_it_is_empty() -> None:
    """Codex's ``echo … > test.txt`` printed nothing: the report's 'Result (…):' with nothing
    after it read as a value left out; it says the recorded value is empty."""
    m = demo("17-codex.vcon.json")
    md = to_markdown(m, None, opts(evidence="all"))
    line = next(x for x in _section(md, 1).splitlines() if x.startswith("- Result"))
    assert line.endswith("; empty): "), line
    page = to_html(m, opts(evidence="all"))
    assert "; empty):</p>" in page


def test_text_names_the_whole_document_as_the_other_reports_do() -> None:
    """A diagnostic about the whole file has the empty JSON Pointer; the text overview wrote
    '/', which is the pointer to a member named '' (Markdown and HTML write '(document)')."""
    from pathlib import Path

    from viewer.pipeline import open_model
    from viewer.report.text import to_text

    fix = Path(__file__).resolve().parent / "fixtures" / "agents" / "codex-rollout"
    out = to_text(open_model(str(fix / "agent-history__codex_with_escalation.jsonl")), width=300)
    line = next(x for x in out.splitlines() if "derived-events" in x)
    assert "derived-events (document) " in line, line


def test_evidence_all_of_a_file_with_no_operation_does_not_speak_of_findings() -> None:
    """'--evidence all' of an Invariant trace with no tool call said 'No operation has a
    finding.', as if operations had been checked and found clean."""
    from pathlib import Path

    from viewer.pipeline import open_model

    fix = Path(__file__).resolve().parent / "fixtures" / "agents" / "invariant-trace"
    m = open_model(str(fix / "explorer__with_annotations.jsonl"))
    assert not m.operations
    md = to_markdown(m, None, opts(evidence="all"))
    page = to_html(m, opts(evidence="all"))
    for text in (md, page):
        assert "No operation has a finding." not in text
        assert "No operations." in text
    # with the default scope the sentence stays
    assert "No operation has a finding." in to_markdown(m, None, opts(evidence="findings"))


def test_the_host_server_is_explained_where_it_appears() -> None:
    """'!host / shell' is the draft's name for a tool built into the agent: a reader of a Codex
    report saw '!host' with nothing saying what it is."""
    m = demo("17-codex.vcon.json")
    md = to_markdown(m, None, opts())
    page = to_html(m, opts())
    for text in (md, page):
        assert "!host: a tool built into the agent" in text.replace("\\!", "!")
    # a file with no host tool has no such line
    tour = demo("tour.vcon.json")
    assert "built into the agent" not in to_markdown(tour, None, opts())
    assert "built into the agent" not in to_html(tour, opts())


def test_a_turns_speaker_reads_as_a_name_not_a_count() -> None:
    """'Dialog turn before it (…): 1 user (user): Create a test file' read as 'one user'; the
    party's index is said as such, and a role equal to the name is not said twice."""
    md = to_markdown(demo("17-codex.vcon.json"), None, opts(evidence="all"))
    line = next(x for x in _section(md, 1).splitlines() if x.startswith("- Dialog turn"))
    assert "Z): user (party 1): Create a test file" in line, line
    tour = to_markdown(demo("tour.vcon.json"), None, opts())
    assert "Z): Dana Whitfield (party 0): Hi, order" in tour


def test_a_json_encoded_body_that_is_plain_text_is_called_text() -> None:
    """Codex's 'cat test.txt' answered 'Hello World', recorded with encoding json: the lead
    called it a 'json string that does not parse', which read as a damaged result."""
    md = to_markdown(demo("17-codex.vcon.json"), None, opts(evidence="all"))
    line = next(x for x in _section(md, 3).splitlines() if x.startswith("- Result"))
    assert "does not parse" not in line, line
    assert "; text (encoding json, not JSON), application/json): Hello World" in line, line


def test_what_was_inferred_of_an_attempts_other_events_is_said() -> None:
    """Codex's turn_aborted became a tool-cancel (Cancel Requested) the importer inferred; the
    evidence named the event in its late-answer sentence but not that it was inferred."""
    from pathlib import Path

    from viewer.pipeline import open_model

    fix = Path(__file__).resolve().parent / "fixtures" / "agents" / "codex-rollout"
    m = open_model(str(fix / "agent-sessions__codex_small.jsonl"))
    md = to_markdown(m, None, opts())
    section = _section(md, 1)
    assert "- Inferred by the importer (event 2): turn_aborted while the call had no output" \
        in section.replace("\\_", "_"), section


def test_notes_from_a_recording_stay_text() -> None:
    """A reason, an inferred note and an annotation are recorded text: no markup, link,
    control or bidi character acts in either report."""
    import orjson
    from reportkit import DEMOS

    from viewer.load import load_bytes
    from viewer.model.build import build_model

    vcon = orjson.loads((DEMOS / "17-codex.vcon.json").read_bytes())
    hostile = "<script>alert(1)</script> [x](https://evil.example) \u202eoops\n# heading\r| a |"
    for e in vcon["events"]:
        if e.get("type") == "policy-decision" and e.get("policy_life") == "once":
            e["reason"] = hostile
            e["inferred"] = hostile
            e["annotations"] = [{"content": hostile}]
    m = build_model(load_bytes(orjson.dumps(vcon), name="hostile.vcon.json"))
    md = to_markdown(m, None, opts(evidence="all"))
    page = to_html(m, opts(evidence="all"))
    assert md.count("- Annotation (event") >= 2
    for text in (md, page):
        assert "<script>" not in text and "\u202e" not in text and "\r" not in text
        assert "…(" not in text  # escaped visibly, never cut below the quote length
    assert "https://evil" not in md and "\\[x\\](https\\[:\\]//" in md  # HTML links nothing
    assert not any(line.startswith("# heading") for line in md.splitlines())
    assert all(not line.startswith("| a |") for line in md.splitlines())


def test_a_quote_with_escaped_characters_is_not_cut_short() -> None:
    """A value is cut at --max-chars before it is escaped; its escapes (a bidi control becomes
    six characters) cut it again, short of the limit, with '…(N characters)' counting the
    escaped text (a Markdown quote of 'a', a bidi control, 'b'... x3 ended '…(48 characters)')."""
    import orjson
    from reportkit import DEMOS

    from viewer.load import load_bytes
    from viewer.model.build import build_model

    vcon = orjson.loads((DEMOS / "17-codex.vcon.json").read_bytes())
    said = "a\u202eb\u202ec " * 20 + "END"
    for e in vcon["events"]:
        if e.get("type") == "tool-result":
            e["body"], e["encoding"] = said, "none"
    m = build_model(load_bytes(orjson.dumps(vcon), name="bidi.vcon.json"))
    md = to_markdown(m, None, opts(evidence="all"))
    page = to_html(m, opts(evidence="all"))
    for text in (md, page):
        assert "END" in text and "…(" not in text


def test_a_call_that_never_ran_gives_its_decision_beside_its_reason() -> None:
    """A refused call's section gave 'Reason (event 3): …' with no decision: which decision
    the reason is of (permission-required, disallowed) was only in the table above."""
    m = demo("07-not-performed.vcon.json")
    md = to_markdown(m, None, opts(evidence="all"))
    section = _section(md, 2)
    lines = [x for x in section.splitlines() if x.startswith("- ")]
    decision = next(i for i, x in enumerate(lines) if x.startswith("- Decision: "))
    assert "permission-required (once, event 3)" in lines[decision], lines
    assert lines[decision + 1].startswith("- Reason (event 3): "), lines
    page = to_html(m, opts(evidence="all"))
    assert "<p>Decision: " in page.split('id="op-2"', 1)[1].split("</details>", 1)[0]


def test_a_standing_decisions_inferred_note_is_in_its_row() -> None:
    """Codex's standing permission-required is inferred from approval_policy: its row gave the
    reason ('turn_context approval_policy on-request') and not that the importer inferred it."""
    m = demo("17-codex.vcon.json")
    md = to_markdown(m, None, opts())
    row = next(x for x in md.split("## Standing decisions", 1)[1].splitlines()
               if x.startswith("| 0 |"))
    assert "inferred by the importer: approval\\_policy on-request: Codex asks" in row, row
    page = to_html(m, opts())
    standing = page.split('<section id="standing">', 1)[1].split("</section>", 1)[0]
    assert "inferred by the importer: approval_policy on-request: Codex asks" in standing


def test_a_standing_reason_the_importer_inferred_is_said_once() -> None:
    """Claude Code's standing decisions are read from permissionMode: the importer writes the
    same words as reason and inferred, and the row gave them twice ('… never asked about ·
    inferred by the importer: … never asked about')."""
    m = demo("15-claude-code.vcon.json")
    md = to_markdown(m, None, opts())
    rows = [x for x in md.split("## Standing decisions", 1)[1].split("\n## ", 1)[0].splitlines()
            if x.startswith("| ") and "permissionMode" in x]
    assert rows
    for row in rows:
        assert row.count("permissionMode") == 1, row
        assert "(inferred by the importer)" in row, row
    page = to_html(m, opts())
    standing = page.split('<section id="standing">', 1)[1].split("</section>", 1)[0]
    assert "(inferred by the importer)" in standing
    assert "inferred by the importer: permissionMode" not in standing
