"""Pure presentation helpers: time labels, content decoding, raw JSON, for every screen.

Nothing here decides a state or a finding (that is the model's job); it only turns recorded
values into safe, readable ``rich.text.Text``. Every string from the vCon goes through
``viewer.textsafe`` before it reaches a renderable.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import orjson
from rich.console import RenderableType
from rich.syntax import Syntax
from rich.text import Text

from viewer.jsonenc import depth, dumps_deep
from viewer.model.types import Event, Model, Operation
from viewer.textsafe import json_escape_unsafe, safe, safe_block

TIME_MODES: Final = ("absolute", "relative", "delta")

#: Content above this many characters is shown in part until the user asks for all of it.
PREVIEW_CHARS: Final = 4000
#: ``a`` (show all) shows the content in parts of this many characters, ``a`` again the next
#: part: a 200 MB body laid out and highlighted at once froze the viewer for minutes.
PART_CHARS: Final = 200_000
HEX_PREVIEW: Final = 256


def fmt_time(t: datetime | None, mode: str, t0: datetime | None, prev: datetime | None) -> str:
    """A time label in one of the three modes ('?' when the time did not parse)."""
    if t is None:
        return "?"
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
    return f"{sign}{int(s // 3600)}h{int(s % 3600 // 60):02d}m"


#: Content nested deeper than this is not laid out in the detail (orjson writes 254 levels;
#: an indented rendering of 1,000 levels is a megabyte of spaces): a notice says so, and the
#: raw view shows the text on one line.
DISPLAY_DEPTH = 254


def dumps_pretty(value: Any) -> str:
    """Pretty JSON with every unsafe character escaped (orjson keeps C1/bidi raw); deeper
    than ``DISPLAY_DEPTH``: compact JSON text (``viewer.jsonenc``), never a traceback."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        text = dumps_deep(value)
    return safe_block(json_escape_unsafe(text))


def too_deep(value: Any) -> int:
    """The depth of ``value`` when it is nested deeper than ``DISPLAY_DEPTH``, else 0."""
    if not isinstance(value, (dict, list)):
        return 0
    try:
        orjson.dumps(value)
        return 0
    except TypeError:
        n = depth(value)
        return n if n > DISPLAY_DEPTH else 0


def deep_notice(n: int) -> Text:
    return Text(f"nested too deep to display (depth {n}): raw view shows the text",
                style="bold")


#: The Pygments style for JSON: set from the theme (light themes need dark ink).
syntax_theme = "ansi_dark"


def json_syntax(text: str) -> Syntax:
    """Highlighted JSON; ``text`` must already be safe."""
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


def _b64url(body: str) -> bytes:
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


def _hex_preview(data: bytes) -> Text:
    lines = []
    for off in range(0, min(len(data), HEX_PREVIEW), 16):
        chunk = data[off : off + 16]
        hx = " ".join(f"{b:02x}" for b in chunk)
        asc = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{off:08x}  {hx:<47}  {asc}")
    if len(data) > HEX_PREVIEW:
        lines.append(f"… {len(data) - HEX_PREVIEW} more bytes")
    return Text("\n".join(lines))


def _is_json_type(mediatype: Any) -> bool:
    return isinstance(mediatype, str) and ("json" in mediatype.lower())


def _text_or_json(text: str, mediatype: Any, full: bool, label: str, part: int = 0) -> Decoded:
    if _is_json_type(mediatype):
        try:
            return _json_value(orjson.loads(text), full, label, part)
        except orjson.JSONDecodeError:
            pass
    shown, part, parts = _window(text, full, part)
    return Decoded(label, Text(safe_block(shown)), len(text), len(shown) < len(text), part,
                   parts)


def _json_value(value: Any, full: bool, label: str, part: int = 0) -> Decoded:
    n = too_deep(value)
    if n:
        return Decoded(f"{label}, nested {n} deep", deep_notice(n), 0, False)
    pretty = dumps_pretty(value)
    shown, part, parts = _window(pretty, full, part)
    return Decoded(label, json_syntax(shown), len(pretty), len(shown) < len(pretty), part,
                   parts)


def decode_content(obj: dict[str, Any], full: bool = False, part: int = 0) -> Decoded:
    """Decode the content of an event or attachment per its encoding (INTERPRETATION 7);
    ``full``: part ``part`` of the whole content (``PART_CHARS`` each), else the preview."""
    mediatype = obj.get("mediatype")
    mt = safe(mediatype) if mediatype is not None else "no mediatype"
    if "url" in obj and "body" not in obj:
        hashes = obj.get("content_hash")
        text = Text()
        text.append("external content (never fetched)\n", style="bold")
        text.append("url: ")
        text.append(safe(obj.get("url")))
        text.append("\ncontent_hash: ")
        text.append(safe(hashes))
        return Decoded(f"external, {mt}", text, 0, False)
    if "body" not in obj:
        return Decoded("no content", None, 0, False)
    body = obj.get("body")
    encoding = obj.get("encoding")
    if encoding == "json":
        if isinstance(body, str):
            try:
                return _json_value(orjson.loads(body), full, f"json (string), {mt}", part)
            except orjson.JSONDecodeError:
                return _text_or_json(body, None, full, f"json string that does not parse, {mt}",
                                     part)
        return _json_value(body, full, f"json, {mt}", part)
    if encoding == "base64url" and isinstance(body, str):
        try:
            data = _b64url(body)
        except (binascii.Error, ValueError):
            return _text_or_json(body, None, full, "base64url that does not decode (raw)",
                                 part)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and (text.isprintable() or _mostly_text(text)):
            label = f"base64url → text, {len(data)} bytes, {mt}"
            return _text_or_json(text, mediatype, full, label, part)
        return Decoded(f"binary, {len(data)} bytes, {mt}", _hex_preview(data), 0, False)
    if isinstance(body, str):
        label = f"text, {mt}" if encoding == "none" else f"encoding {safe(encoding)!s}, {mt}"
        return _text_or_json(body, mediatype if encoding != "none" else None, full, label,
                             part)
    return _json_value(body, full, f"{safe(encoding) or 'no encoding'}, non-string body",
                       part)


def _mostly_text(text: str) -> bool:
    if not text:
        return True
    bad = sum(1 for c in text[:2000] if not c.isprintable() and c not in "\n\r\t")
    return bad / min(len(text), 2000) < 0.05


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


def party_label(model: Model, index: Any) -> str:
    """'0 Ann Customer (customer)' or '3 (out of range)'."""
    if not isinstance(index, int) or isinstance(index, bool):
        return "—" if index is None else safe(index)
    parties = model.parties
    if not 0 <= index < len(parties) or not isinstance(parties[index], dict):
        return f"{index} (out of range)"
    p = parties[index]
    name = p.get("name") or p.get("tel") or p.get("mailto") or p.get("uuid") or ""
    role = p.get("role")
    return f"{index} {safe(name)}" + (f" ({safe(role)})" if role else "")


def session_label(model: Model, index: int) -> str:
    sessions = model.sessions
    if not 0 <= index < len(sessions):
        return f"{index} (out of range)"
    s = sessions[index]
    if isinstance(s, dict):
        inner = ", ".join(f"{safe(k)}={safe(v)}" for k, v in list(s.items())[:4])
        return f"{index} {inner[:60]}" + ("…" if len(inner) > 60 else "")
    return f"{index} {safe(s)}"


def content_search_text(model: Model, op: Operation) -> str:
    """Lower-case text of an operation's event contents, for the free-text filter."""
    parts: list[str] = []
    for idx in _op_events(op):
        body = model.events[idx].raw.get("body")
        if body is None:
            continue
        if isinstance(body, str):
            if model.events[idx].raw.get("encoding") == "base64url":
                with contextlib.suppress(binascii.Error, ValueError):
                    body = _b64url(body).decode("utf-8", "replace")
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


def dialog_time(d: Any) -> datetime | None:
    if not isinstance(d, dict):
        return None
    from viewer.model.times import parse_time

    return parse_time(d.get("start"))[0]  # the model's one time parser (no offset: UTC)


def dialog_text(d: Any, limit: int = 200) -> str:
    """What a dialog turn says, decoded when it is inline text (safe, one line)."""
    if not isinstance(d, dict):
        return safe(d)[:limit]
    body = d.get("body")
    if isinstance(body, str) and d.get("encoding") == "base64url":
        with contextlib.suppress(binascii.Error, ValueError):
            body = _b64url(body).decode("utf-8", "replace")
    if isinstance(body, str):
        # one line: a line break shows as ⏎ (a lone CR, and every other control, stays
        # escaped as \x0d...); a turn of several paragraphs reads, not \x0a\x0a
        return safe(body[: limit * 2].replace("\r\n", "\n").replace("\n", " ⏎ "))[:limit]
    if body is not None:
        return safe(body)[:limit]
    return f"[{safe(d.get('type'))} {safe(d.get('mediatype') or '')}]".strip()
