"""What a TUI test reads of the app through Textual's public API."""

from __future__ import annotations

from typing import Any


def notices(app: Any) -> list[str]:
    """The notifications on screen as the user reads them (title, then message): the text of
    each toast. Needs ``run_test(..., notifications=True)`` (Textual's tests run without
    toasts): without them there is no toast rack, and this fails rather than say "none"."""
    app.screen.query_one("ToastRack")
    return [str(w.render()) for w in app.screen.query("Toast")]
