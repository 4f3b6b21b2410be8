"""`d`: the arguments of the selected attempt against the previous attempt of the operation."""

from __future__ import annotations

import contextlib
import difflib
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from viewer.model.types import Attempt, Model
from viewer.textsafe import safe
from viewer.tui import palette as P
from viewer.tui.present import dumps_pretty

if TYPE_CHECKING:
    from viewer.tui.app import VconViewApp


def arguments_text(model: Model, attempt: Attempt) -> list[str]:
    """The invocation's arguments, pretty and safe, as lines (decoded when JSON in a string)."""
    if attempt.invocation is None:
        return ["(no tool-invocation recorded)"]
    raw = model.events[attempt.invocation].raw
    if "body" not in raw:
        if "url" in raw:
            return [f"url: {safe(raw.get('url'))}",
                    f"content_hash: {safe(raw.get('content_hash'))}"]
        return ["(no arguments)"]
    body = raw.get("body")
    if raw.get("encoding") == "json" and isinstance(body, str):
        import orjson

        with contextlib.suppress(orjson.JSONDecodeError):
            body = orjson.loads(body)
    return dumps_pretty(body).splitlines()


def diff_text(model: Model, a: Attempt, b: Attempt) -> Text:
    left, right = arguments_text(model, a), arguments_text(model, b)
    text = Text()
    lines = list(difflib.unified_diff(left, right, f"attempt {a.number}", f"attempt {b.number}",
                                      lineterm="", n=3))
    if not lines:
        text.append("The arguments are identical.\n\n", "bold")
        text.append("\n".join(right))
        return text
    for line in lines:
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = P.style("diff:@")
        elif line.startswith("+"):
            style = P.style("diff:+")
        elif line.startswith("-"):
            style = P.style("diff:-")
        else:
            style = None
        text.append(line + "\n", style)
    text.rstrip()
    return text


class DiffScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,d", "app.pop_screen", "Back", id="diff.back"),
    ]

    def __init__(self, head: Text, body: Text) -> None:
        super().__init__()
        self.head, self.body = head, body

    def compose(self) -> ComposeResult:
        yield Static(self.head, id="diff-head")
        with VerticalScroll(id="diff"):
            yield Static(self.body)
        yield Footer()


def open_diff(app: VconViewApp) -> None:
    model, op = app.model, app.operation
    if model is None or op is None:
        return
    if len(op.attempts) < 2:
        app.notify("Only one attempt: nothing to compare", markup=False)
        return
    i = max(1, app.attempt_sel)
    a, b = op.attempts[i - 1], op.attempts[i]
    head = Text()
    head.append(safe(op.operation_id), "bold")
    head.append(f"  {safe(op.target)}  arguments: attempt {a.number} ({a.final_state or '—'}) "
                f"→ attempt {b.number} ({b.final_state or '—'})")
    head.append("\n- removed  + added  (what changed on the retry)", P.style("dim"))
    app.push_screen(DiffScreen(head, diff_text(model, a, b)))
