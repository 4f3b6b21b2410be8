"""`d`: what changed on a retry, and what each attempt returned.

The selected attempt against the one before it: the tool arguments (MCP ``params.arguments``,
or the whole body when it is not JSON-RPC) as a diff, or "arguments identical" with what else
changed in one line (the JSON-RPC id, the method); then the two attempts' results side by side
(a duplicate refund shows as two refund numbers).
"""

from __future__ import annotations

import contextlib
import difflib
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from viewer.model import spec
from viewer.model.types import Attempt, Model
from viewer.textsafe import safe, safe_block
from viewer.tui import palette as P
from viewer.tui.present import attempt_gap, dumps_pretty

if TYPE_CHECKING:
    from viewer.tui.app import VconViewApp

_MISSING = object()
#: Lines of a result shown side by side before "…".
RESULT_LINES = 40


def _body(raw: dict[str, Any]) -> Any:
    """An event's body, decoded when it is JSON in a string; ``_MISSING`` when it has none."""
    if "body" not in raw:
        return _MISSING
    body = raw.get("body")
    if raw.get("encoding") == "json" and isinstance(body, str):
        import orjson

        from viewer.jsonenc import loads  # exact: an integer past 64 bits stays one

        with contextlib.suppress(orjson.JSONDecodeError):
            body = loads(body)
    return body


def _is_jsonrpc(body: Any) -> bool:
    return isinstance(body, dict) and "jsonrpc" in body


def split_arguments(body: Any) -> tuple[Any, str, dict[str, Any]]:
    """(the tool arguments, where they were found, the rest of the envelope flattened)."""
    if _is_jsonrpc(body):
        params = body.get("params")
        rest = {k: v for k, v in body.items() if k != "params"}
        if isinstance(params, dict) and "arguments" in params:
            rest.update({f"params.{k}": v for k, v in params.items() if k != "arguments"})
            return params["arguments"], "params.arguments", rest
        return params, "params", rest
    return body, "body", {}


def arguments_of(model: Model, attempt: Attempt) -> tuple[Any, str, dict[str, Any]]:
    if attempt.invocation is None:
        return _MISSING, "no tool-invocation recorded", {}
    raw = model.events[attempt.invocation].raw
    body = _body(raw)
    if body is _MISSING:
        if "url" in raw:
            return {"url": raw.get("url"), "content_hash": raw.get("content_hash")}, \
                "external content (never fetched)", {}
        return _MISSING, "no arguments", {}
    return split_arguments(body)


def _lines(value: Any) -> list[str]:
    if value is _MISSING:
        return ["(none)"]
    return dumps_pretty(value).splitlines()


def _short(value: Any) -> str:
    text = dumps_pretty(value).replace("\n", " ")
    return text if len(text) <= 40 else text[:39] + "…"


def envelope_changes(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """``JSON-RPC id 3 → 4``: what differs outside the arguments, one phrase per key."""
    prefix = "JSON-RPC " if "jsonrpc" in a or "jsonrpc" in b else ""
    out = []
    for key in dict.fromkeys([*a, *b]):
        va, vb = a.get(key, _MISSING), b.get(key, _MISSING)
        if va != vb:
            left = "absent" if va is _MISSING else _short(va)
            right = "absent" if vb is _MISSING else _short(vb)
            out.append(f"{prefix}{safe(key)} {left} → {right}")
    return out


def _result_event(model: Model, attempt: Attempt) -> int | None:
    """The attempt's answer: its first final response (a late one included), else its last
    tool response (progress, pending)."""
    finals = [s.event for s in attempt.steps if model.events[s.event].type in
              ("tool-result", "tool-failure", "tool-error", "tool-denied")]
    if finals:
        return finals[0]
    responses = [s.event for s in attempt.steps
                 if model.events[s.event].type in spec.TOOL_RESPONSE_TYPES]
    return responses[-1] if responses else None


def result_text(model: Model, attempt: Attempt) -> Text:
    """What the attempt returned, readable: MCP text content as text, else pretty JSON."""
    idx = _result_event(model, attempt)
    if idx is None:
        return Text("(no response recorded)", style=P.style("dim"))
    ev = model.events[idx]
    step = next(s for s in attempt.steps if s.event == idx)
    head = Text()
    head.append(f"{P.event_glyph(ev.type)} {safe(ev.type)}", P.state_style(step.after))
    if step.late:
        head.append("  late", P.style("flag"))
    head.append("\n")
    body = _body(ev.raw)
    value: Any = body
    if _is_jsonrpc(body):
        value = body.get("result", body.get("error", body))
    texts = None
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        texts = [c.get("text") for c in value["content"]
                 if isinstance(c, dict) and isinstance(c.get("text"), str)]
    if texts:
        lines = "\n".join(texts).splitlines()
    elif body is _MISSING:
        lines = ["(no content)"]
    elif isinstance(value, str):
        lines = value.splitlines()
    else:
        lines = dumps_pretty(value).splitlines()
    if len(lines) > RESULT_LINES:
        lines = [*lines[:RESULT_LINES], f"… {len(lines) - RESULT_LINES} more lines"]
    # (dumps_pretty's lines are made safe already; recorded text is made safe here)
    head.append(safe_block("\n".join(lines)) if texts or isinstance(value, str)
                else "\n".join(lines))
    return head


def diff_text(model: Model, a: Attempt, b: Attempt) -> Text:
    """The arguments of ``b`` against ``a``: a unified diff, or "identical" and the rest."""
    (va, where_a, rest_a), (vb, where_b, rest_b) = arguments_of(model, a), arguments_of(model, b)
    left, right = _lines(va), _lines(vb)
    text = Text()
    where = where_b if where_a == where_b else f"{where_a} / {where_b}"
    same = left == right
    text.append(f"Arguments ({where}): ", "bold")
    if same:
        text.append("arguments identical", "bold")
    else:
        text.append("changed", P.style("diff:-"))
    others = envelope_changes(rest_a, rest_b)
    text.append("\n")
    text.append("Also changed: " + "; ".join(others) if others else
                "Nothing else in the request changed.", P.style("dim"))
    text.append("\n\n")
    if same:
        text.append("\n".join(right))
        return text
    lines = list(difflib.unified_diff(left, right, f"attempt {a.number}", f"attempt {b.number}",
                                      lineterm="", n=3))
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


def results_table(model: Model, a: Attempt, b: Attempt) -> Table:
    """The two attempts' results side by side."""
    table = Table(expand=True, show_edge=False, pad_edge=False, box=None, padding=(0, 2))
    for att in (a, b):
        state = att.final_state or "no final state"
        title = Text(f"attempt {att.number} returned · ", "bold")
        title.append(f"{P.STATE_GLYPH.get(att.final_state or '', '-')} {state}",
                     P.state_style(att.final_state))
        table.add_column(title, ratio=1, overflow="fold")
    table.add_row(result_text(model, a), result_text(model, b))
    return table


def diff_body(model: Model, a: Attempt, b: Attempt) -> RenderableType:
    return Group(diff_text(model, a, b), Text(""), Text("Results side by side", "bold underline"),
                 results_table(model, a, b))


class DiffScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,d", "app.pop_screen", "Back", id="diff.back"),
    ]

    def __init__(self, head: Text, body: RenderableType) -> None:
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
    head.append(f"  {safe(op.target)}  attempt {a.number} ({a.final_state or '—'}) "
                f"→ attempt {b.number} ({b.final_state or '—'})")
    head.append("\n")
    head.append(attempt_gap(model, a, b), P.style("context"))
    head.append("\n- removed  + added  (what changed on the retry)", P.style("dim"))
    app.push_screen(DiffScreen(head, diff_body(model, a, b)))
