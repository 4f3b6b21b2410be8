"""What every vcon-view screen and widget shares."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from viewer.tui.app import VconViewApp


class VappMixin:
    """``self.vapp``: the running app with its type, for the model and the shared selection."""

    app: Any

    @property
    def vapp(self) -> VconViewApp:
        return self.app  # type: ignore[no-any-return]
