"""Pure presentation helpers: time labels, content decoding, raw JSON, for every screen.

Nothing here decides a state or a finding (that is the model's job); it only turns recorded
values into safe, readable ``rich.text.Text``. Every string from the vCon goes through
``viewer.textsafe`` before it reaches a renderable.
"""

from __future__ import annotations

import binascii
import contextlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

import orjson
from rich.console import RenderableType
from rich.text import Text

from viewer.content import (  # noqa: F401  (dialog_*, party_label, ...: the screens' names)
    DISPLAY_DEPTH,
    HEX_PREVIEW,
    b64url,
    decode_text,
    dialog_text,
    dialog_time,
    dumps_pretty,
    import_provenance,
    order_only,
    party_label,
    requested_content,
    too_deep,
    turn_before,
    turn_speaker,
    view_span,
)
from viewer.jsonenc import dumps_deep
from viewer.model import spec
from viewer.model.types import Attempt, Event, Model, Operation
from viewer.textsafe import json_escape_unsafe, safe, safe_block, safe_short

TIME_MODES: Final = ("absolute", "relative", "delta")
#: The one time mode of a recording whose times only give the order (``order_only``): its
#: events were put a millisecond apart to keep their order, so a time is shown as its step, never as
#: seconds or a time of day that was never recorded.
ORDER: Final = "order"


def provenance_line(model: Model, narrow: bool = False) -> str:
    """One header line for a vCon written by ``vcon-view import``: what it says it was
    imported from, and whether its times were recorded; "" without a provenance (or when the
    model was derived on opening: the derivation's own line says it). ``narrow``: without
    naming the attachment."""
    if model.derivation is not None:
        return ""
    prov = import_provenance(model)
    if prov is None:
        return ""
    i, body = prov
    src = body.get("source")
    file = src.get("file") if isinstance(src, dict) else None
    line = "" if narrow else f"import provenance (attachment {i}): "
    line += safe_short(body.get("tool"), 60)
    if file is not None:
        line += f" from {safe_short(file, 80)}"
    if order_only(model):
        line += " · times are order only"
    elif body.get("times") == "partial":
        line += " · some times inferred"
    return line


def step_label(seconds: float) -> str:
    """The step an order-only time stands for, counted from 1 (a millisecond a step)."""
    return f"step {round(seconds * 1000) + 1}"

#: Content above this many characters is shown in part until the user asks for all of it.
PREVIEW_CHARS: Final = 4000
#: ``a`` (show all) shows the content in parts of this many characters, ``a`` again the next
#: part: a very large body laid out and highlighted at once would freeze the viewer.
PART_CHARS: Final = 200_000


def fmt_time(t: datetime | None, mode: str, t0: datetime | None, prev: datetime | None) -> str:
    """A time label in one of the three modes ('?' when the time did not parse)."""
    if t is None:
        return "?"
    if mode == ORDER:
        return step_label((t - t0).total_seconds()) if t0 is not None else "?"
    if mode == "absolute":
        return t.strftime("%H:%M:%S.") + f"{t.microsecond // 1000:03d}"
    ref = t0 if mode == "relative" else prev
    if ref is None:
        return "+0.000s" if mode == "delta" else fmt_time(t, "absolute", None, None)
    return fmt_delta((t - ref).total_seconds())


def fmt_delta(seconds: float) -> str:
    sign = "-" if seconds < 0 else "+"
    s = abs(seconds)
    if s < 60:
        return f"{sign}{s:.3f}s"
    if s < 3600:
        return f"{sign}{int(s // 60)}m{s % 60:04.1f}s"
    return f"{sign}{int(s // 3600)}h{int(s % 3600 // 60):02d}m{int(s % 60):02d}s"


def deep_notice(n: int) -> Text:
    return Text(f"nested too deep to display (depth {n}): raw view shows the text",
                style="bold")


if TYPE_CHECKING:
    from rich.syntax import Syntax

#: The Pygments style for JSON: set from the theme (light themes need dark ink).
syntax_theme = "ansi_dark"


def json_syntax(text: str) -> Syntax:
    """Highlighted JSON; ``text`` must already be safe. (Rich's Syntax, and Pygments with it,
    are imported when a screen first shows JSON, not before the first frame.)"""
    from rich.syntax import Syntax

    return Syntax(text, "json", theme=syntax_theme, word_wrap=True, background_color="default")


@dataclass(frozen=True, slots=True)
class Decoded:
    """Content decoded for display: a one-line summary and the renderable (maybe partial)."""

    summary: str
    renderable: RenderableType | None
    full_chars: int  # size of the full decoded text (0 for none/binary)
    truncated: bool
    part: int = 0  # with full: the part shown (0-based), of ``parts``
    parts: int = 1


def _window(text: str, full: bool, part: int) -> tuple[str, int, int]:
    """(the text shown, the part, the number of parts): the preview, or part ``part`` (wrapped
    around) of the full text."""
    if not full:
        return (text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS]), 0, 1
    parts = max(1, -(-len(text) // PART_CHARS))
    part %= parts
    return text[part * PART_CHARS:(part + 1) * PART_CHARS], part, parts


def decode_content(obj: dict[str, Any], full: bool = False, part: int = 0) -> Decoded:
    """Decode the content of an event or attachment per its encoding (``viewer.content``);
    ``full``: part ``part`` of the whole content (``PART_CHARS`` each), else the preview."""
    d = decode_text(obj)
    if d.kind == "none":
        return Decoded(d.label, None, 0, False)
    if d.kind == "external":
        text = Text(safe_block(d.text))
        text.stylize("bold", 0, d.text.index("\n"))
        return Decoded(d.label, text, 0, False)
    if d.kind == "deep":
        return Decoded(d.label, deep_notice(d.depth), 0, False)
    if d.kind == "binary":
        return Decoded(d.label, Text(d.text), 0, False)
    shown, part, parts = _window(d.text, full, part)
    body = json_syntax(shown) if d.kind == "json" else Text(safe_block(shown))
    return Decoded(d.label, body, len(d.text), len(shown) < len(d.text), part, parts)


#: How many of a content's multi-line strings the detail also shows as text, and from how
#: many characters a string is worth it.
TEXT_FIELDS: Final = 4
TEXT_FIELD_MIN: Final = 40


def text_fields(obj: dict[str, Any]) -> list[tuple[str, str]]:
    """The strings of a JSON content that hold line breaks (a command's output, a file read,
    an error with its stack), as (JSON Pointer, string), depth-first, the first
    ``TEXT_FIELDS``: inside the JSON they read as one line of ``\\n``."""
    if obj.get("encoding") != "json" or "body" not in obj:
        return []
    body = obj.get("body")
    if isinstance(body, str):
        try:
            body = orjson.loads(body)
        except orjson.JSONDecodeError:
            return []
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, Any, int]] = [("", body, 0)]
    while stack and len(out) < TEXT_FIELDS:
        ptr, value, depth = stack.pop()
        if isinstance(value, str):
            if "\n" in value and len(value) >= TEXT_FIELD_MIN:
                out.append((ptr or "/", value))
        elif depth < DISPLAY_DEPTH and isinstance(value, dict):
            for k in reversed(list(value)):
                key = str(k).replace("~", "~0").replace("/", "~1")
                stack.append((f"{ptr}/{key}", value[k], depth + 1))
        elif depth < DISPLAY_DEPTH and isinstance(value, list):
            for i in reversed(range(len(value))):
                stack.append((f"{ptr}/{i}", value[i], depth + 1))
    return out


def raw_json(value: Any) -> Syntax:
    """The event exactly as recorded, pretty-printed, made safe, highlighted."""
    return json_syntax(dumps_pretty(value))


def copy_text(value: Any) -> str:
    """JSON for the clipboard: exact values, with C1/bidi/invisible characters escaped."""
    try:
        return json_escape_unsafe(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())
    except TypeError:  # deeper than orjson writes: the same JSON, compact
        return json_escape_unsafe(dumps_deep(value))


def indices(value: Any) -> list[int]:
    """An index or array of indices (attachment, sessions) as a list of ints."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, int) and not isinstance(v, bool)]
    return []


def session_label(model: Model, index: int) -> str:
    sessions = model.sessions
    if not 0 <= index < len(sessions):
        return f"{index} (out of range)"
    s = sessions[index]
    if isinstance(s, dict):
        # a session's start on the importers' clock (order only) is no time: not shown as one
        synthetic = order_only(model)
        inner = ", ".join(f"{safe(k)}={'(order only)' if synthetic and k == 'start' else safe(v)}"
                          for k, v in list(s.items())[:4])
        return f"{index} {inner[:60]}" + ("…" if len(inner) > 60 else "")
    return f"{index} {safe(s)}"


#: The head of a refused call's ``requested`` in the detail (README, *Importing agent
#: traffic*): the content area shows it as an invocation's arguments, saying it never ran.
REQUESTED_HEAD: Final = "requested (not run): the arguments the agent asked for"


def content_search_text(model: Model, op: Operation) -> str:
    """Lower-case text of an operation's event contents (and of what a refused call asked
    for), for the free-text filter."""
    parts: list[str] = []
    for idx in _op_events(op):
        raw = model.events[idx].raw
        body = raw.get("body")
        asked = requested_content(raw) if body is None else None
        if asked is not None:
            body = asked["body"]
        if body is None:
            continue
        if isinstance(body, str):
            if raw.get("encoding") == "base64url":
                with contextlib.suppress(binascii.Error, ValueError):
                    body = b64url(body).decode("utf-8", "replace")
            parts.append(body)
        else:
            try:
                parts.append(orjson.dumps(body).decode())
            except TypeError:
                parts.append(dumps_deep(body))
    return "\n".join(parts).lower()


def _op_events(op: Operation) -> list[int]:
    out = list(op.once_decisions)
    for a in op.attempts:
        out.extend(a.events)
    out.extend(op.unassigned_events)
    return out


def op_events(op: Operation) -> list[int]:
    """Every event of an operation: once decisions, attempts' events, unassigned events."""
    return _op_events(op)


def event_of(model: Model, index: int | None) -> Event | None:
    if index is None or not 0 <= index < len(model.events):
        return None
    return model.events[index]


def fmt_secs(seconds: float) -> str:
    """A duration in words' units: ``0.5 s``, ``15.0 s``, ``2 min 05 s``, ``1 h 02 min``."""
    s = abs(seconds)
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{int(s // 60)} min {int(s % 60):02d} s"
    return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"


_ENDED: Final = {"Completed": "completed", "Failed": "failed", "Errored": "errored",
                 "Denied": "was denied"}


def attempt_gap(model: Model, prev: Attempt, cur: Attempt) -> str:
    """The gap between two attempts in words: when the later one was invoked relative to how
    the earlier one ended (or gave up), how long the agent had waited, and whether the earlier
    one answered after all (``attempt 2 invoked 0.5 s after attempt 1 timed out; it had waited
    15.0 s; attempt 1 answered 5.9 s after its timeout``)."""
    events = model.events
    start = cur.start
    if start is None or prev.start is None:
        return f"attempt {cur.number}: no time to compare with attempt {prev.number}"
    if order_only(model):  # the order is known, the durations are not
        return f"attempt {cur.number} invoked after attempt {prev.number} began (times are " \
               "order only)"
    gave_up = next((s for s in prev.steps if s.after in spec.LATE_STATES
                    and events[s.event].type in ("tool-timeout", "tool-cancel")), None)
    parts = []
    if gave_up is not None and events[gave_up.event].time is not None:
        t = events[gave_up.event].time
        assert t is not None
        what = "timed out" if events[gave_up.event].type == "tool-timeout" else \
            "was cancelled"
        parts.append(f"attempt {cur.number} invoked {_when(start - t)} attempt {prev.number} "
                     f"{what}")
        parts.append(f"it had waited {fmt_secs((t - prev.start).total_seconds())}")
        late = next((s for s in prev.steps if s.late and events[s.event].time is not None), None)
        if late is not None:
            lt = events[late.event].time
            assert lt is not None
            after = "its timeout" if what == "timed out" else "its cancel"
            answer = f"attempt {prev.number} answered {fmt_secs((lt - t).total_seconds())} " \
                     f"after {after}"
            if lt > start:
                answer += f", after attempt {cur.number} began"
            parts.append(answer)
    elif prev.end is not None and prev.end <= start:
        ended = _ENDED.get(prev.final_state or "", "ended")
        parts.append(f"attempt {cur.number} invoked {_when(start - prev.end)} attempt "
                     f"{prev.number} {ended}")
        parts.append(f"it had run {fmt_secs((prev.end - prev.start).total_seconds())}")
    else:
        state = prev.steps[-1].after if prev.steps else None
        waited = fmt_secs((start - prev.start).total_seconds())
        parts.append(f"attempt {cur.number} invoked {waited} after attempt {prev.number} "
                     "began, while it was still "
                     f"{(state or 'open').lower()}")
    return "; ".join(parts)


def _when(delta: timedelta) -> str:
    s = delta.total_seconds()
    return f"{fmt_secs(s)} after" if s >= 0 else f"{fmt_secs(s)} before"


def said_before(model: Model, t: datetime | None, party: int | None = None) -> str:
    """'who: what' of the dialog turn the agent was acting on (``content.turn_before``;
    ``party``: the sub-agent that acts, None for the lead agent)."""
    i = turn_before(model, t, party)
    if i is None:
        return ""
    d = model.dialog[i]
    who = turn_speaker(model, d)
    return (who + ": " if who else "") + dialog_text(d, 160)
