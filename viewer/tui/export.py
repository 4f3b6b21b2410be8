"""`e`: write an export (md, html, json, csv) for all, the filtered set or the selection;
one key per choice.

The formats and their bytes come from ``viewer.report.formats`` (the registry ``vcon-view
summary --format`` uses); the file is written
atomically by ``write_atomic``, which refuses the input itself. The default name sits in the
current directory, never next to (or over) the input.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from viewer.model.types import Model, Operation
from viewer.textsafe import is_safe, safe
from viewer.tui.base import VappMixin

if TYPE_CHECKING:
    from viewer.tui.app import VconViewApp

HINT = ("keys choose · tab edits the name (escape: back to the keys) · enter writes · "
        "escape cancels · never over the input")
SCOPES = ("all", "filtered", "selected")
SCOPE_KEYS = tuple(s[0] for s in SCOPES)  # a, f, s


def formats() -> tuple[str, ...]:
    """The names of the formats the dialog offers, in the registry's order."""
    from viewer.report.formats import dialog_formats

    return tuple(f.name for f in dialog_formats())


def render_export(model: Model, fmt: str, operations: Sequence[Operation] | None) -> bytes:
    """The export's bytes, from the registry (as ``vcon-view summary --format fmt``)."""
    from viewer.report.formats import FORMATS, ReportOptions, as_bytes, report_time

    opts = ReportOptions(operations=operations, time=report_time(), made_by="viewer",
                         command=("viewer export", "--format", fmt))
    return as_bytes(FORMATS[fmt].render(model, opts))


def default_name(input_path: str, fmt: str, scope: str = "") -> str:
    """``STEM[.SCOPE].summary.FMT`` in the current directory; ``scope`` is what the export
    holds when not every operation (an operation id, "filtered")."""
    stem = Path(input_path).name if input_path != "-" else "stdin"
    for suffix in (".gz", ".json", ".vcon"):
        stem = stem.removesuffix(suffix)
    # The name is recorded text too (a file named with OSC 52 or title sequences): every
    # character the viewer would escape becomes "_", so the default path is inert and plain.
    stem = "".join(c if is_safe(c) else "_" for c in stem)
    # An operation id is recorded text as well, and may hold "/" or "..": letters, digits
    # and "-_" only, so the name stays one plain file name in the current directory.
    part = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_"
                   for c in scope)[:48]
    return str(Path.cwd() / f"{stem or 'vcon'}{'.' + part if part else ''}.summary.{fmt}")


def scope_operations(app: VconViewApp, scope: str) -> Sequence[Operation] | None:
    model = app.model
    assert model is not None
    if scope == "selected":
        op = app.operation
        return [op] if op is not None else []
    if scope == "filtered" and not app.filter.empty:
        return [model.operations[i] for i in app.shown]
    return None


def export(app: VconViewApp, path: str, fmt: str, scope: str) -> Path:
    """Write the export; raises ValueError/OSError with a one-line reason."""
    from viewer.report.write import write_atomic

    model = app.checked_model()  # never an export without every operation and diagnostic
    if model is None:
        raise ValueError("operations are still being replayed: export when loading is done")
    data = render_export(model, fmt, scope_operations(app, scope))
    target = Path(path).expanduser()
    write_atomic(target, data, input_path=model.source.file)
    return target.resolve()


def format_keys() -> dict[str, str]:
    """One key per format in the registry: its first letter, else its first letter not taken
    (by another format or by a scope key)."""
    keys: dict[str, str] = {}
    taken = set(SCOPE_KEYS)
    for name in formats():
        key = next((c for c in name if c.isalpha() and c not in taken), None)
        if key is not None:
            keys[key] = name
            taken.add(key)
    return keys


class ExportScreen(VappMixin, ModalScreen[Path | None]):
    """One key per choice: a format key (``m``/``h``/``j``/``c``, from the registry) and a
    scope key (``a``/``f``/``s``); ``tab`` edits the file name, ``enter`` writes from
    anywhere. The last choice is remembered for the next export."""

    AUTO_FOCUS = ""  # nothing focused: keys choose; tab reaches the file name
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="export.cancel"),
        # q closes the dialog, as escape, rather than quitting the viewer behind it
        Binding("q", "close", "Close", id="export.close", show=False),
        Binding("enter", "write", "Write", id="export.write"),
        Binding("a", "scope('all')", "All", id="export.scope_all", show=False),
        Binding("f", "scope('filtered')", "Filtered", id="export.scope_filtered", show=False),
        Binding("s", "scope('selected')", "Selected", id="export.scope_selected", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.keys = format_keys()
        fmt, scope = getattr(self.vapp, "export_choice", ("md", ""))
        self.fmt = fmt if fmt in self.keys.values() else next(iter(self.keys.values()))
        self.scope = scope if scope and self._enabled(scope) else \
            "filtered" if self._enabled("filtered") else "all"
        self._auto_name = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="export"):
            yield Static(Text("Export the summary", style="bold"))
            yield Static(id="export-format")
            yield Static(id="export-scope")
            yield Input(id="export-path", select_on_focus=False)
            yield Static(Text(HINT, style="dim"), id="export-hint")

    _confirmed: Path | None = None  # an existing file the user chose to replace (enter twice)

    def on_mount(self) -> None:
        self._present()

    def on_key(self, event: events.Key) -> None:
        """A format key (from the registry) when the file name is not being edited."""
        if isinstance(self.focused, Input):
            return
        fmt = self.keys.get(event.character or "")
        if fmt is not None:
            event.stop()
            self.fmt = fmt
            self._present()

    def _enabled(self, scope: str) -> bool:
        app = self.vapp
        if scope == "filtered":
            return not app.filter.empty
        if scope == "selected":
            return app.operation is not None
        return True

    def action_scope(self, scope: str) -> None:
        if self._enabled(scope):
            self.scope = scope
            self._present()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Scope keys and q are letters: while the file name is edited they type into it."""
        return not (isinstance(self.focused, Input) and action in ("scope", "close"))

    def _scope_label(self, scope: str) -> str:
        app = self.vapp
        if scope == "filtered":
            return f"filtered ({len(app.shown):,})" if not app.filter.empty else "filtered"
        if scope == "selected":
            op = app.operation
            return f"selected ({safe(op.operation_id)})" if op is not None else "selected"
        return "all operations"

    def _choices(self, label: str, items: list[tuple[str, str, str, bool]],
                 chosen: str) -> Text:
        text = Text(f"{label:<8}", style="dim")
        for key, value, shown, enabled in items:
            style = "bold reverse" if value == chosen else "" if enabled else "dim strike"
            text.append(f"[{key}]", "bold" if enabled else "dim strike")
            text.append(f" {shown}", style)
            text.append("   ")
        return text

    def _present(self) -> None:
        self.query_one("#export-format", Static).update(self._choices(
            "format", [(k, f, f, True) for k, f in self.keys.items()], self.fmt))
        self.query_one("#export-scope", Static).update(self._choices(
            "scope", [(s[0], s, self._scope_label(s), self._enabled(s)) for s in SCOPES],
            self.scope))
        box = self.query_one("#export-path", Input)
        name = default_name(self.vapp.path, self.fmt, self._scope_part())
        if box.value in ("", self._auto_name):  # not edited by hand: follow the choice
            box.value = name
        elif Path(box.value).name.count(".summary.") == 1:  # edited: keep it, new suffix
            box.value = str(Path(box.value).with_suffix(f".{self.fmt}"))
        box.cursor_position = len(box.value)  # tab then edits the end of the name shown
        self._auto_name = name
        self.vapp.export_choice = (self.fmt, self.scope)

    def _scope_part(self) -> str:
        """What the file name says of the scope: the operation's id, or "filtered"."""
        if self.scope == "selected":
            op = self.vapp.operation
            return op.operation_id if op is not None else ""
        return "filtered" if self.scope == "filtered" else ""

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_write()

    def action_write(self) -> None:
        fmt, scope = self.fmt, self.scope
        path = self.query_one("#export-path", Input).value.strip()
        existing = self._existing(path)
        if existing is not None and existing != self._confirmed:
            self._confirmed = existing
            self.query_one("#export-hint", Static).update(Text(
                "That file exists: enter again replaces it · escape cancels", style="bold"))
            return
        try:
            target = export(self.vapp, path, fmt, scope)
        except (ValueError, OSError, RuntimeError) as exc:  # RuntimeError: ~nosuchuser
            self.notify(safe(str(exc)), title="Export failed", severity="error", markup=False)
            return
        self.notify(f"Wrote {fmt} summary ({scope}) to {safe(str(target))}", title="Export",
                    markup=False, timeout=6)
        self.dismiss(target)

    def _existing(self, path: str) -> Path | None:
        """The resolved file ``path`` names when it exists and is not the input (which gets
        write_atomic's refusal, not a question). A path that cannot be examined is left to
        the export, which says what is wrong with it."""
        if not path:
            return None
        try:
            p = Path(path).expanduser()
            if not p.is_file() or self._is_input(p):
                return None
            return p.resolve()
        except (OSError, ValueError, RuntimeError):
            return None

    def on_input_changed(self, event: Input.Changed) -> None:
        """A new path: any earlier "that file exists" question no longer applies."""
        if self._confirmed is not None:
            self._confirmed = None
            self.query_one("#export-hint", Static).update(Text(HINT, style="dim"))

    def _is_input(self, path: Path) -> bool:
        """The input itself (write_atomic refuses it with its own message: no question)."""
        model = self.vapp.model
        source = model.source.file if model is not None else "-"
        try:
            return source != "-" and path.samefile(source)
        except OSError:
            return False

    def action_close(self) -> None:
        self.dismiss(None)

    def action_cancel(self) -> None:
        """Escape: from the file name back to the choice keys; else close the dialog."""
        if isinstance(self.focused, Input):
            self.set_focus(None)
            return
        self.dismiss(None)
