"""Colours and glyphs of the TUI, in one place so themes can replace them.

Every state, decision and severity has a glyph *and* a colour: the glyph carries the meaning
(NO_COLOR, monochrome terminals, colour-blind readers), the colour only speeds reading. Themes
(issue 5) call ``set_palette`` with a partial mapping; widgets read ``style(key)`` each render.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from rich.style import Style

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
    "selected-attempt": "bold underline",
    "ruler": "#808080",
    "context": "#88c0d0",
    "dim": "#808080",
    "banner": "bold white on #a00000",
    "match": "bold #ebcb8b",
    "diff:+": "#a3be8c",
    "diff:-": "#e06c75",
    "diff:@": "#88c0d0",
}

_palette: dict[str, str] = dict(DEFAULT_PALETTE)

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

#: Signature statuses (``spec.SIGNATURE_STATUSES``) by the palette key they are drawn in.
SIGNATURE_KEY: Final[dict[str, str]] = {
    "verified": "decision:allowed", "valid-signature-untrusted": "severity:warning",
    "invalid": "severity:error", "unverifiable": "severity:warning",
}


def signature_style(status: str | None) -> Style:
    return style(SIGNATURE_KEY.get(status or "", "dim"))

#: Context-lane glyphs: what the person said and core events.
CONTEXT_GLYPH: Final[dict[str, str]] = {
    "dialog": "»",
    "join": "+",
    "drop": "-",
    "keydown": "#",
    "keyup": "#",
}

#: One-word row labels for finding kinds, and the filter's flag names.
FLAG_LABEL: Final[dict[str, str]] = {
    "policy-violation": "violation",
    "late-response": "late",
    "escalation": "escalation",
    "out-of-model": "out-of-model",
    "unterminated": "unterminated",
    "duplicate-execution-risk": "duplicate",
    "decision-after-invocation": "decided-late",
    "standing-conflict": "conflict",
}
#: Shorter forms used when the terminal is narrow.
FLAG_SHORT: Final[dict[str, str]] = {
    "policy-violation": "viol",
    "late-response": "late",
    "escalation": "esc",
    "out-of-model": "oom",
    "unterminated": "unterm",
    "duplicate-execution-risk": "dup",
    "decision-after-invocation": "dec-late",
    "standing-conflict": "confl",
}
#: Row-label order: the most serious first.
FLAG_ORDER: Final = tuple(FLAG_LABEL)


def set_palette(overrides: dict[str, str]) -> None:
    """Replace some colours (themes). Widgets must refresh and drop their caches after this."""
    _palette.update(overrides)
    style.cache_clear()


def reset_palette() -> None:
    _palette.clear()
    _palette.update(DEFAULT_PALETTE)
    style.cache_clear()


@lru_cache(maxsize=256)
def style(key: str) -> Style:
    """The Rich style for a palette key (a null style for unknown keys)."""
    spec_str = _palette.get(key)
    return Style.parse(spec_str) if spec_str else Style.null()


def state_style(state: str | None) -> Style:
    return style(f"state:{state}" if state else "state:none")


def decision_style(decision: str | None) -> Style:
    return style(f"decision:{decision}" if decision in DECISION_GLYPH else "decision:none")


def event_glyph(event_type: str) -> str:
    return EVENT_GLYPH.get(event_type, UNKNOWN_GLYPH)
