"""Colours and glyphs of the TUI (their defaults in ``viewer.glyphs``), so themes can replace them.

Every state, decision and severity has a glyph *and* a colour: the glyph carries the meaning
(NO_COLOR, monochrome terminals, colour-blind readers), the colour only speeds reading. Themes
(issue 5) call ``set_palette`` with a partial mapping; widgets read ``style(key)`` each render.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from rich.style import Style

from viewer.glyphs import (  # noqa: F401  (the screens read them as palette.NAME)
    CONTEXT_GLYPH,
    DECISION_GLYPH,
    DEFAULT_PALETTE,
    EVENT_GLYPH,
    FLAG_LABEL,
    FLAG_ORDER,
    FLAG_SHORT,
    LATE_CONNECTOR,
    PARTY_GLYPH,
    SEVERITY_GLYPH,
    STATE_BAR,
    STATE_GLYPH,
    UNKNOWN_GLYPH,
)

_palette: dict[str, str] = dict(DEFAULT_PALETTE)

#: Signature statuses (``spec.SIGNATURE_STATUSES``) by the palette key they are drawn in.
SIGNATURE_KEY: Final[dict[str, str]] = {
    "verified": "decision:allowed", "valid-signature-untrusted": "severity:warning",
    "invalid": "severity:error", "unverifiable": "severity:warning",
}


_epoch = [0]  # bumped on every palette change: caches of styled cells key on it


def epoch() -> int:
    """Which palette is in effect: a cache of styled cells keyed on it is never stale."""
    return _epoch[0]


def set_palette(overrides: dict[str, str]) -> None:
    """Replace some colours (themes). Widgets must refresh and drop their caches after this."""
    _palette.update(overrides)
    style.cache_clear()
    _epoch[0] += 1


def reset_palette() -> None:
    _palette.clear()
    _palette.update(DEFAULT_PALETTE)
    style.cache_clear()
    _epoch[0] += 1


@lru_cache(maxsize=256)
def style(key: str) -> Style:
    """The Rich style for a palette key (a null style for unknown keys)."""
    spec_str = _palette.get(key)
    return Style.parse(spec_str) if spec_str else Style.null()


def signature_style(status: str | None) -> Style:
    return style(SIGNATURE_KEY.get(status or "", "dim"))


def state_style(state: str | None) -> Style:
    return style(f"state:{state}" if state else "state:none")


def decision_style(decision: str | None) -> Style:
    return style(f"decision:{decision}" if decision in DECISION_GLYPH else "decision:none")


def event_glyph(event_type: str) -> str:
    return EVENT_GLYPH.get(event_type, UNKNOWN_GLYPH)
