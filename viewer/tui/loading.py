"""The first screen (drawn before the parse starts) and the blocking load-error notice."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, ProgressBar, Static

from viewer.load import LoadError
from viewer.textsafe import safe


class LoadingScreen(Screen[None]):
    """Shown at once; the worker reports its steps (the JSON parse itself holds the GIL)."""

    STEPS = 3

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical(id="loading-box"):
            yield Static(Text(f"Loading {safe(self.path)}"), id="loading-title")
            yield ProgressBar(total=self.STEPS, show_eta=False, id="loading-bar")
            yield Static(Text("starting"), id="loading-step")
        yield Footer()

    def step(self, n: int, label: str) -> None:
        self.query_one(ProgressBar).update(progress=n - 1)
        self.query_one("#loading-step", Static).update(Text(label))


class LoadErrorScreen(ModalScreen[None]):
    """A file the viewer must not (or cannot) show: say why, and how to go on if possible."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "dismiss_notice", "Quit", id="loaderror.quit"),
    ]

    def __init__(self, error: LoadError) -> None:
        super().__init__()
        self.error = error

    def compose(self) -> ComposeResult:
        text = Text()
        if self.error.exit_code == 3:
            text.append("Unsupported critical extension\n\n", style="bold")
        else:
            text.append("Cannot open this file\n\n", style="bold")
        text.append(safe(self.error.message))
        if self.error.exit_code == 3:
            text.append(
                "\n\nThe vCon names in `critical` an extension vcon-view does not support, so its "
                "content may not mean what it seems. To review it anyway, run again with "
                "--ignore-critical (a banner will say so)."
            )
        text.append("\n\nPress enter, escape or q to quit.", style="dim")
        with Vertical(id="notice"):
            yield Static(text, id="notice-text")

    def action_dismiss_notice(self) -> None:
        self.dismiss(None)
