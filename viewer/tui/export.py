"""`e`: write an export (md, html, json, csv) for all, the filtered set or the selection.

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
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, RadioButton, RadioSet, Static

from viewer.model.types import Model, Operation
from viewer.textsafe import is_safe, safe
from viewer.tui.base import VappMixin

if TYPE_CHECKING:
    from viewer.tui.app import VconViewApp

HINT = "enter writes · escape cancels · never over the input"
SCOPES = ("all", "filtered", "selected")


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


def default_name(input_path: str, fmt: str) -> str:
    stem = Path(input_path).name if input_path != "-" else "stdin"
    for suffix in (".gz", ".json", ".vcon"):
        stem = stem.removesuffix(suffix)
    # The name is recorded text too (a file named with OSC 52 or title sequences): every
    # character the viewer would escape becomes "_", so the default path is inert and plain.
    stem = "".join(c if is_safe(c) else "_" for c in stem)
    return str(Path.cwd() / f"{stem or 'vcon'}.summary.{fmt}")


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


class ExportScreen(VappMixin, ModalScreen[Path | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="export.cancel"),
    ]

    def compose(self) -> ComposeResult:
        app = self.vapp
        filtered = not app.filter.empty
        with Vertical(id="export"):
            yield Static(Text("Export the summary", style="bold"))
            with Horizontal(id="export-row"):
                with RadioSet(id="export-format"):
                    for i, f in enumerate(formats()):
                        yield RadioButton(Text(f), value=i == 0, id=f"fmt-{f}")
                with RadioSet(id="export-scope"):
                    yield RadioButton(Text("all operations"), value=not filtered, id="scope-all")
                    yield RadioButton(Text(f"filtered ({len(app.shown)})"), value=filtered,
                                      id="scope-filtered", disabled=not filtered)
                    op = app.operation
                    label = f"selected ({safe(op.operation_id)})" if op else "selected"
                    yield RadioButton(Text(label), id="scope-selected", disabled=op is None)
            yield Input(default_name(app.path, "md"), id="export-path")
            yield Static(Text(HINT, style="dim"), id="export-hint")

    _confirmed: Path | None = None  # an existing file the user chose to replace (enter twice)

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    def _choice(self, set_id: str, values: Sequence[str]) -> str:
        rs = self.query_one(set_id, RadioSet)
        i = rs.pressed_index
        return values[i] if 0 <= i < len(values) else values[0]

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        if event.radio_set.id != "export-format":
            return
        fmt = self._choice("#export-format", formats())
        box = self.query_one("#export-path", Input)
        p = Path(box.value)
        if p.name.count(".summary.") == 1:
            box.value = str(p.with_suffix(f".{fmt}"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        fmt = self._choice("#export-format", formats())
        scope = self._choice("#export-scope", SCOPES)
        path = event.value.strip()
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

    def action_cancel(self) -> None:
        self.dismiss(None)
