"""The glyphs and default colours of states, decisions, severities and flags: one table for
the viewer (``viewer.tui.palette``, which themes recolour) and the HTML report's timeline.

Every state, decision and severity has a glyph *and* a colour: the glyph carries the meaning
(NO_COLOR, monochrome terminals, colour-blind readers, a printout), the colour only speeds
reading. Pure constants: no rich, no textual.
"""

from __future__ import annotations

from typing import Final

from viewer.model import spec

#: Style strings (Rich syntax) keyed by "state:<State>", "decision:<value>", "severity:<sev>" and
#: a few UI roles. Only our own constants go here, never vCon text.
DEFAULT_PALETTE: Final[dict[str, str]] = {
    f"state:{spec.RUNNING}": "#4aa3ff",
    f"state:{spec.PENDING}": "#b48ead",
    f"state:{spec.INPUT_REQUIRED}": "#d08770",
    f"state:{spec.TIMED_OUT}": "#ebcb8b",
    f"state:{spec.CANCEL_REQUESTED}": "#c0a060",
    f"state:{spec.COMPLETED}": "#a3be8c",
    f"state:{spec.FAILED}": "#e06c75",
    f"state:{spec.ERRORED}": "#ff5f87",
    f"state:{spec.DENIED}": "#d75f00",
    "state:none": "#808080",
    "decision:allowed": "#a3be8c",
    "decision:permission-required": "#ebcb8b",
    "decision:disallowed": "bold #e06c75",
    "decision:none": "#808080",
    "severity:error": "bold #e06c75",
    "severity:warning": "#ebcb8b",
    "severity:info": "#88c0d0",
    "flag": "#ebcb8b",
    "flag:policy-violation": "bold #e06c75",
    "late": "underline",
    "out-of-model": "reverse",
    "selected": "reverse",
    "selected-attempt": "bold reverse",
    "ruler": "#808080",
    "context": "#88c0d0",
    "dim": "#808080",
    "banner": "bold white on #a00000",
    "match": "bold #ebcb8b",
    "diff:+": "#a3be8c",
    "diff:-": "#e06c75",
    "diff:@": "#88c0d0",
    "selected-row": "on #26303f",
    "lane:error": "bold #ff5f5f",
    "server": "#88c0d0",
    "party": "#b48ead",
}

#: Glyph per tool event type: the state it moves to is readable without colour.
EVENT_GLYPH: Final[dict[str, str]] = {
    "tool-invocation": "▶",
    "tool-pending": "◷",
    "tool-progress": "·",
    "tool-input": "?",
    "tool-input-response": "↩",
    "tool-result": "✓",
    "tool-failure": "✗",
    "tool-error": "!",
    "tool-denied": "⊘",
    "tool-timeout": "◌",
    "tool-cancel": "■",
}
UNKNOWN_GLYPH: Final = "•"

#: The bar an attempt draws while in a state (the waterfall): solid while running, dotted
#: while pending, and so on; a final state ends the bar with its glyph.
STATE_BAR: Final[dict[str | None, str]] = {
    spec.RUNNING: "━",
    spec.PENDING: "┈",
    spec.INPUT_REQUIRED: "═",
    spec.TIMED_OUT: "╌",
    spec.CANCEL_REQUESTED: "╍",
}
#: Between the timeout (or the next attempt's start) and a response that came after it.
LATE_CONNECTOR: Final = "⋯"
#: Marks an operation run by another party than the lead agent's (a sub-agent).
PARTY_GLYPH: Final = "↳"

#: Glyph per state (legend, outcomes, the detail table).
STATE_GLYPH: Final[dict[str, str]] = {
    spec.RUNNING: "▶",
    spec.PENDING: "◷",
    spec.INPUT_REQUIRED: "?",
    spec.TIMED_OUT: "◌",
    spec.CANCEL_REQUESTED: "■",
    spec.COMPLETED: "✓",
    spec.FAILED: "✗",
    spec.ERRORED: "!",
    spec.DENIED: "⊘",
}

#: Governing decision glyphs ("-": no decision observed).
DECISION_GLYPH: Final[dict[str | None, str]] = {
    "allowed": "◇",
    "permission-required": "◈",
    "disallowed": "◆",
    None: "-",
}

SEVERITY_GLYPH: Final[dict[str, str]] = {"error": "✗", "warning": "⚠", "info": "i"}

#: Context-lane glyphs: what the person said and core events.
CONTEXT_GLYPH: Final[dict[str, str]] = {
    "dialog": "»",
    "join": "+",
    "drop": "-",
    "keydown": "#",
    "keyup": "#",
}

#: Row labels of finding kinds (one word; shorter on a narrow terminal), in row order (the
#: most serious first): read from the one table, ``spec.FINDING_TABLE``.
_ROW_KINDS: Final = sorted((k for k in spec.FINDING_TABLE if k.row is not None),
                           key=lambda k: k.row or 0)
FLAG_LABEL: Final[dict[str, str]] = {k.name: k.label for k in _ROW_KINDS}
FLAG_SHORT: Final[dict[str, str]] = {k.name: k.short for k in _ROW_KINDS}
FLAG_ORDER: Final = tuple(FLAG_LABEL)
