"""What the App tells its screens, as Textual messages: each screen reacts to the ones it
cares about (an ``on_...`` handler), so the App never calls a screen by its type."""

from __future__ import annotations

from textual.message import Message

from viewer.model.types import Model


class ViewChanged(Message):
    """The filter, selection, time mode, zoom or theme changed: redraw what shows them."""


class SelectionMoved(Message):
    """Another operation, attempt or event was selected (from a list, the palette, ``n``);
    nothing else changed, so only what shows the selection is redrawn."""


class NoteChanged(Message):
    """The status note (what the last key did) changed."""


class ModelAdopted(Message):
    """A later stage of the model is shown: the rest of the operations, or the diagnostics."""

    def __init__(self, model: Model) -> None:
        super().__init__()
        self.model = model
