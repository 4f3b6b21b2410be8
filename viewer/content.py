"""Recorded content decoded to text, and the dialog turn before a moment: one rule for the
viewer and every report.

An event's or attachment's body is decoded per its ``encoding`` (``json``, ``none``,
``base64url``; README, *How vcon-view reads the drafts*, Content): JSON is
pretty-printed, base64url text is decoded, binary becomes a hex preview, external content is
its url and hash (never fetched). The viewer (``viewer.tui.present``) and the reports
(``viewer.report.evidence``) both start from ``decode_text``. Pure: no rich, no textual.
The text returned is not yet made safe for display: callers cut it to what they show and pass
that through ``viewer.textsafe`` (JSON text is already escaped, so that is a no-op there).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from bisect import bisect_right
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson

from viewer.jsonenc import depth, dumps_deep, loads
from viewer.model.times import parse_time
from viewer.textsafe import is_block_safe, is_safe, json_escape_unsafe, safe, safe_block

if TYPE_CHECKING:
    from viewer.model.types import Model

HEX_PREVIEW: Final = 256
#: Content nested deeper than this is not laid out (orjson writes 254 levels; an indented
#: rendering of 1,000 levels is a megabyte of spaces): a notice says so instead.
DISPLAY_DEPTH: Final = 254

Kind = Literal["json", "text", "binary", "external", "none", "deep"]


class DecodedText:
    """Content decoded: what it is (``label``), its kind, and its text (see the module doc).
    ``value`` is the parsed JSON value for kind "json" (None otherwise). Never modified once
    made (slots set in ``__init__``: a report makes them by the ten thousand, and a frozen
    class's per-field ``object.__setattr__`` would be most of that).

    The text of a JSON value (pretty, ``dumps_pretty``) and its one line (``compact_json``)
    are each laid out when first read, then kept: a report reads one of the two (Markdown the
    line, HTML the block), the viewer mostly one as well. ``compact``: orjson's compact JSON
    text of ``value``, when already written (``_json_value`` writes it to find the depth)."""

    __slots__ = ("_compact", "_line", "_text", "depth", "kind", "label", "value")

    label: str
    kind: Kind
    value: Any
    depth: int  # kind "deep": how deep the value is nested

    def __init__(self, label: str, kind: Kind, text: str | None = None, value: Any = None,
                 depth: int = 0, *, compact: str | None = None) -> None:
        self.label = label
        self.kind = kind
        self._text = text  # None: a JSON value's, not laid out yet
        self.value = value
        self.depth = depth
        self._compact = compact
        self._line: str | None = None

    @property
    def text(self) -> str:
        text = self._text
        if text is None:
            text = self._text = dumps_pretty(self.value) if self.kind == "json" else ""
        return text

    def one_line(self) -> str:
        """The text on one line: JSON compact, a line break as ⏎ (as the viewer's lanes)."""
        line = self._line
        if line is None:
            if self.kind != "json":
                line = one_line(self.text)
            elif self._compact is not None:
                line = _compact_text(self._compact)
            else:
                line = compact_json(self.value)
            self._line = line
        return line

    def _fields(self) -> tuple[Any, ...]:
        return (self.label, self.kind, self.text, self.value, self.depth)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"DecodedText(label={self.label!r}, kind={self.kind!r}, text={self.text!r}, "
                f"value={self.value!r}, depth={self.depth!r})")


#: ``one_lines`` takes JSON texts in runs of this many.
RUN: Final = 256


def one_lines(decoded: Sequence[DecodedText]) -> list[str]:
    """``[d.one_line() for d in decoded]`` (a report's quotes), the JSON values whose compact
    text ``_json_value`` wrote taken in runs: a run that, joined by spaces, holds nothing
    ``safe`` escapes is kept as it is (what ``compact_json`` makes of such a text is the text
    itself); any other run value by value."""
    out: list[str] = []
    todo: list[int] = []  # where the runs' lines go
    written: list[str] = []
    for d in decoded:
        if d._line is None and d._compact is not None:
            todo.append(len(out))
            written.append(d._compact)
            out.append("")
        else:
            out.append(d.one_line())
    for k in range(0, len(written), RUN):
        run = written[k:k + RUN]
        lines = run if is_safe(" ".join(run)) else list(map(_compact_text, run))
        for i, line in zip(todo[k:k + RUN], lines, strict=True):
            out[i] = line
    return out


def one_line(text: str) -> str:
    """``text`` on one line: a line break shows as ⏎ (a lone CR, like every other control,
    is left to ``safe``, which escapes it visibly)."""
    return text.replace("\r\n", "\n").replace("\n", " ⏎ ")


def safe_line(text: str, limit: int) -> str:
    """``one_line`` made safe and cut to ``limit`` characters (of a text at most twice as
    long: its escapes may lengthen it)."""
    return safe(one_line(text[: limit * 2]))[:limit]


def dumps_pretty(value: Any) -> str:
    """Pretty JSON with every unsafe character escaped (orjson keeps C1/bidi raw); deeper
    than ``DISPLAY_DEPTH``: compact JSON text (``viewer.jsonenc``), never a traceback. What
    else orjson does not write (an integer past 64 bits, a lone surrogate) is laid out too."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        text = dumps_deep(value, indent=not too_deep(value))
    return _pretty_text(text)


def _pretty_text(text: str) -> str:
    """``dumps_pretty``'s step after writing: unsafe characters escaped."""
    return safe_block(json_escape_unsafe(text))


def texts(decoded: Sequence[DecodedText]) -> list[str]:
    """``[d.text for d in decoded]`` (a report's quotes), the JSON values not laid out yet
    written by orjson in runs: a run's UTF-8 joined by NUL (JSON text has none, nor has any
    other character's UTF-8 that byte), decoded at once and, when that holds nothing
    ``safe_block`` escapes but the NULs, split again as they are (what ``dumps_pretty`` makes
    of such a text is the text itself); any other run value by value. (A run at a time:
    orjson's bytes are made with room to spare, kilobytes for a short text.)"""
    out: list[str] = []
    todo: list[int] = []  # where the JSON values' texts go
    values: list[Any] = []
    for d in decoded:
        if d._text is None and d.kind == "json":
            todo.append(len(out))
            values.append(d.value)
            out.append("")
        else:
            out.append(d.text)
    indent = orjson.OPT_INDENT_2
    for k in range(0, len(values), RUN):
        run = values[k:k + RUN]
        try:
            text = b"\0".join([orjson.dumps(v, option=indent) for v in run]).decode()
        except TypeError:  # what orjson does not write: ``dumps_pretty``
            laid = list(map(dumps_pretty, run))
        else:
            laid = text.split("\0") if is_block_safe(text.replace("\0", "\n")) else \
                list(map(_pretty_text, text.split("\0")))
        for i, one in zip(todo[k:k + RUN], laid, strict=True):
            out[i] = one
    return out


def compact_json(value: Any) -> str:
    """JSON on one line, unsafe characters escaped as JSON escapes."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = dumps_deep(value)
    return _compact_text(text)


def _compact_text(text: str) -> str:
    """``compact_json``'s step after writing: unsafe characters escaped."""
    return safe(json_escape_unsafe(text))


def too_deep(value: Any) -> int:
    """The depth of ``value`` when it is nested deeper than ``DISPLAY_DEPTH``, else 0."""
    return _dumped(value)[1]


def _dumped(value: Any) -> tuple[str | None, int]:
    """(orjson's compact JSON of a dict or list ``value``, else None; ``too_deep``): for a
    dict or a list, writing it is how its depth is found, and the text is kept."""
    if not isinstance(value, (dict, list)):
        return None, 0
    try:  # (as text: orjson's bytes are made with room to spare, kilobytes for a short text)
        return orjson.dumps(value).decode(), 0
    except TypeError:
        n = depth(value)
        return None, n if n > DISPLAY_DEPTH else 0


def b64url(body: str) -> bytes:
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


def hex_preview(data: bytes) -> str:
    lines = []
    for off in range(0, min(len(data), HEX_PREVIEW), 16):
        chunk = data[off : off + 16]
        hx = " ".join(f"{b:02x}" for b in chunk)
        asc = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{off:08x}  {hx:<47}  {asc}")
    if len(data) > HEX_PREVIEW:
        lines.append(f"… {len(data) - HEX_PREVIEW} more bytes")
    return "\n".join(lines)


def _is_json_type(mediatype: Any) -> bool:
    return isinstance(mediatype, str) and ("json" in mediatype.lower())


def mostly_text(text: str) -> bool:
    if not text:
        return True
    bad = sum(1 for c in text[:2000] if not c.isprintable() and c not in "\n\r\t")
    return bad / min(len(text), 2000) < 0.05


def _json_value(value: Any, label: str) -> DecodedText:
    compact, n = _dumped(value)
    if n:
        return DecodedText(f"{label}, nested {n} deep",
                           "deep", f"nested too deep to display (depth {n})", None, n)
    return DecodedText(label, "json", None, value, compact=compact)  # text: when first read


def _text_or_json(text: str, mediatype: Any, label: str) -> DecodedText:
    if _is_json_type(mediatype):
        try:
            return _json_value(loads(text), label)
        except orjson.JSONDecodeError:
            pass
    return DecodedText(label, "text", text)


def decode_text(obj: dict[str, Any]) -> DecodedText:
    """Decode the content of an event or attachment per its ``encoding``: inline ``body``
    (json, none, base64url) decoded; external ``url`` shown with its hash, never fetched."""
    mediatype = obj.get("mediatype")
    mt = _said_mediatype(mediatype) if mediatype is not None else "no mediatype"
    if "url" in obj and "body" not in obj:
        text = (f"external content (never fetched)\nurl: {safe(obj.get('url'))}\n"
                f"content_hash: {safe(obj.get('content_hash'))}")
        return DecodedText(f"external, {mt}", "external", text)
    if "body" not in obj:
        return DecodedText("no content", "none", "")
    body = obj.get("body")
    encoding = obj.get("encoding")
    if encoding == "json":
        if isinstance(body, str):
            try:
                return _json_value(loads(body), f"json (string), {mt}")
            except orjson.JSONDecodeError:
                # shown as the text it is: the encoding says json, the body is not JSON
                return _text_or_json(body, None, f"text (encoding json, not JSON), {mt}")
        return _json_value(body, f"json, {mt}")
    if encoding == "base64url" and isinstance(body, str):
        try:
            data = b64url(body)
        except (binascii.Error, ValueError):
            return _text_or_json(body, None, "base64url that does not decode (raw)")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and (text.isprintable() or mostly_text(text)):
            return _text_or_json(text, mediatype, f"base64url → text, {len(data)} bytes, {mt}")
        return DecodedText(f"binary, {len(data)} bytes, {mt}", "binary", hex_preview(data))
    if isinstance(body, str):
        label = f"text, {mt}" if encoding == "none" else f"encoding {safe(encoding)!s}, {mt}"
        return _text_or_json(body, mediatype if encoding != "none" else None, label)
    return _json_value(body, f"{safe(encoding) or 'no encoding'}, non-string body")


_MEDIATYPES: dict[str, str] = {}  # a recording's few media types, each made safe once


def _said_mediatype(mediatype: Any) -> str:
    """``safe(mediatype)``, kept for strings (a report decodes thousands of one media type)."""
    if type(mediatype) is not str:
        return safe(mediatype)
    said = _MEDIATYPES.get(mediatype)
    if said is None:
        if len(_MEDIATYPES) >= 64:  # bounded: a file of many media types
            _MEDIATYPES.clear()
        said = _MEDIATYPES[mediatype] = safe(mediatype)
    return said


# --- dialog turns -------------------------------------------------------------------------------


def requested_content(raw: dict[str, Any]) -> dict[str, Any] | None:
    """A once decision's ``requested`` (what the agent asked for, on a call the host refused:
    the importers' member, not the draft's; README, *Importing agent traffic*) as content to
    decode as an invocation's is: JSON, or the recorded text; None when the event has none."""
    if raw.get("type") != "policy-decision" or "requested" not in raw:
        return None
    value = raw["requested"]
    if isinstance(value, str):
        return {"body": value, "encoding": "none", "mediatype": "text/plain"}
    return {"body": value, "encoding": "json", "mediatype": "application/json"}


def dialog_time(d: Any) -> datetime | None:
    if not isinstance(d, dict):
        return None
    return parse_time(d.get("start"))[0]  # the model's one time parser (no offset: UTC)


def dialog_text(d: Any, limit: int = 200) -> str:
    """What a dialog turn says, decoded when it is inline text (safe, one line)."""
    if not isinstance(d, dict):
        return safe(d)[:limit]
    body = d.get("body")
    if isinstance(body, str) and d.get("encoding") == "base64url":
        with contextlib.suppress(binascii.Error, ValueError):
            body = b64url(body).decode("utf-8", "replace")
    if isinstance(body, str):
        # one line: a turn of several paragraphs reads, not \x0a\x0a
        return safe_line(body, limit)
    if body is not None:
        return safe(body)[:limit]
    return f"[{safe(d.get('type'))} {safe(d.get('mediatype') or '')}]".strip()


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


_TURNS: dict[int, tuple[Model, list[datetime], list[int], list[bool]]] = {}


def _turns(model: Model) -> tuple[list[datetime], list[int], list[bool]]:
    """Dialog turn times, sorted, their indices and whether an agent said each
    (``_by_agent``), computed once per model. The model is kept with them, so its id cannot
    be reused by another model while the entry lives."""
    cached = _TURNS.get(id(model))
    if cached is None or cached[0] is not model:
        turns = sorted((dt, i) for i, d in enumerate(model.dialog)
                       if (dt := dialog_time(d)) is not None)
        idx = [i for _, i in turns]
        dialog = model.dialog
        cached = (model, [dt for dt, _ in turns], idx, [_by_agent(model, dialog[i]) for i in idx])
        _TURNS.clear()
        _TURNS[id(model)] = cached
    return cached[1], cached[2], cached[3]


def _by_agent(model: Model, d: object) -> bool:
    if not isinstance(d, dict):
        return False
    ps = d.get("parties")
    who = d.get("originator", ps[0] if isinstance(ps, list) and ps else None)
    parties = model.parties
    return (isinstance(who, int) and not isinstance(who, bool) and 0 <= who < len(parties)
            and isinstance(parties[who], dict) and parties[who].get("role") == "agent")


def turn_before(model: Model, t: datetime | None, party: int | None = None) -> int | None:
    """Index in ``model.dialog`` of the last turn at or before ``t`` (the request the agent
    was acting on): the last one from a party that is not an agent (role "agent", as imported
    sessions mark theirs: the agent's own narration is not what it was asked), else the last
    turn; None when no turn comes before ``t``. ``party``: the sub-agent that acts (None: the
    lead agent). A sub-agent was asked by its launcher, an agent too (a Task's prompt), never
    by the user talking to the lead: its request is the last turn said to it by another party,
    when one is; else the rule above."""
    if t is None:
        return None
    times, idx, agent = _turns(model)
    k = bisect_right(times, t)
    if k == 0:
        return None
    if party is not None:
        dialog = model.dialog
        for j in range(k - 1, max(-1, k - 200), -1):  # bounded, as below
            if _said_to(dialog[idx[j]], party):
                return idx[j]
    for j in range(k - 1, max(-1, k - 200), -1):  # bounded: a long narration falls back
        if not agent[j]:
            return idx[j]
    return idx[k - 1]


def _said_to(d: Any, party: int) -> bool:
    """True when the turn ``d`` names ``party`` among its parties and another party said it
    (its originator, else its first party)."""
    if not isinstance(d, dict):
        return False
    ps = d.get("parties")
    if not isinstance(ps, list) or party not in ps:
        return False
    who = d.get("originator", ps[0])
    return who != party or type(who) is not int


def turn_speaker(model: Model, d: Any) -> str:
    """'0 Dana (customer)' for a turn's originator (or first party), '' when none is named."""
    if isinstance(d, dict) and isinstance(d.get("parties"), list) and d["parties"]:
        return party_label(model, d.get("originator", d["parties"][0]))
    return ""


#: The importers' clock for a recording that has no times: from the epoch, a millisecond apart.
SYNTHETIC_BEFORE: Final = datetime(1970, 1, 2, tzinfo=UTC)

_order: tuple[Model | None, bool] = (None, False)  # the last model's answer (``order_only``)


_prov: tuple[Model | None, tuple[int, dict[str, Any]] | None] = (None, None)


def import_provenance(model: Model) -> tuple[int, dict[str, Any]] | None:
    """The provenance ``vcon-view import`` wrote into the vCon (the attachment of purpose
    "import-provenance", a JSON object) and its index; None when the file has none. What it
    says is the file's word, shown as such. Looked for once per model."""
    global _prov
    if _prov[0] is not model:
        _prov = (model, _find_provenance(model))
    return _prov[1]


def _find_provenance(model: Model) -> tuple[int, dict[str, Any]] | None:
    for i, att in enumerate(model.attachments):
        if isinstance(att, dict) and att.get("purpose") == "import-provenance":
            body = att.get("body")
            if isinstance(body, str):
                try:
                    body = orjson.loads(body)
                except orjson.JSONDecodeError:
                    continue
            if isinstance(body, dict):
                return i, body
    return None


def order_only(model: Model | None) -> bool:
    """Whether the model's times give the order only: an import from a recording that has no
    times (README "Importing agent traffic"), opened directly, or written by ``vcon-view
    import`` and opened later, when its provenance says so and every time is indeed on the
    importers' synthetic clock (a claim the times do not bear out is not followed)."""
    global _order
    if model is None:
        return False
    d = model.derivation
    if d is not None:
        return d.times == "order-only"
    if _order[0] is model:
        return _order[1]
    prov = import_provenance(model)
    answer = (prov is not None and prov[1].get("times") == "order-only"
              and any(e.time is not None for e in model.events)
              and all(e.time is None or e.time < SYNTHETIC_BEFORE for e in model.events))
    _order = (model, answer)
    return answer


def view_span(model: Model) -> tuple[datetime | None, datetime | None]:
    """The earliest and latest time the viewer shows: timed events and dialog turns. Its
    start is the one origin of every relative time on every screen (list, ruler, pane,
    detail, context), so an operation reads the same offset wherever it is shown."""
    times = [t for t in model.time_span() if t is not None]
    times += [t for t in map(dialog_time, model.dialog) if t is not None]
    return (min(times), max(times)) if times else (None, None)


def step_number(t: datetime, t0: datetime) -> int:
    """The step an order-only time stands for (``order_only``), counted from 1 at ``t0`` (the
    importers put such events a millisecond apart)."""
    return round((t - t0).total_seconds() * 1000) + 1
