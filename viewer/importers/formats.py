"""The registry of recording formats vcon-view imports, and recognising them by content.

Each importer module defines one ``FORMAT = Format(...)``: its name on the command line
(``vcon-view import NAME``), a title for people, a ``sniff`` that says from a ``Sample`` of the
input whether it is this format, and ``convert`` (bytes in, a vCon and a ``Report`` out).
``detect`` runs every sniffer; a file is recognised by what it holds, never by its name, and a
file that two formats claim is refused rather than guessed. Modules are imported only when a
file is not a vCon, so opening a vCon costs nothing.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from viewer.importers.common import Report
from viewer.jsonenc import loads

#: Importer modules (``vcon-view import`` lists them in this order).
MODULES: Final = (
    "viewer.importers.claude_code",
    "viewer.importers.codex",
    "viewer.importers.gemini",
    "viewer.importers.copilot",
    "viewer.importers.cursor",
    "viewer.importers.invariant",
    "viewer.importers.otlp",
    "viewer.importers.mcp",
)
#: How many JSONL lines a sample parses.
SAMPLE_LINES: Final = 64
#: How many leading bytes of the input a sample keeps.
HEAD_BYTES: Final = 65536


class ImportInputError(ValueError):
    """Nothing in the input could be read as this format (one line for the user, exit 2)."""


@dataclass(frozen=True)
class Sample:
    """What sniffers look at: the whole input as one JSON document when it is one, else the
    first ``SAMPLE_LINES`` non-blank lines of JSONL, each parsed (None: not JSON)."""

    doc: Any = None
    is_doc: bool = False
    lines: tuple[Any, ...] = ()
    #: the input's first ``HEAD_BYTES`` bytes, for inputs that are neither one JSON document
    #: nor JSONL (e.g. pretty-printed JSON values one after another)
    head: bytes = b""

    def records(self) -> list[dict[str, Any]]:
        """The JSON objects of the sample: the JSONL lines, or the document's items when it
        is an array, or the document itself."""
        if not self.is_doc:
            return [x for x in self.lines if isinstance(x, dict)]
        if isinstance(self.doc, list):
            return [x for x in self.doc[:SAMPLE_LINES] if isinstance(x, dict)]
        return [self.doc] if isinstance(self.doc, dict) else []


def split_lines(data: bytes) -> list[bytes]:
    """JSONL lines: split on ``\\n`` only (U+2028, U+2029 and U+0085 are legal inside JSON
    strings and must not end a line); a trailing ``\\r`` is dropped."""
    return [ln[:-1] if ln.endswith(b"\r") else ln for ln in data.split(b"\n")]


#: ``_values``' value of a line that is not JSON.
_NOT_JSON: Final = object()


def _values(data: bytes) -> Iterator[tuple[int, bytes, Any]]:
    """Each non-blank JSONL line as (line number, its bytes, its JSON value or ``_NOT_JSON``):
    what ``json_records`` and ``json_lines`` both read."""
    for n, line in enumerate(split_lines(data), 1):
        if not line.strip():
            continue
        try:
            yield n, line, loads(line)
        except orjson.JSONDecodeError:
            yield n, line, _NOT_JSON


def json_records(data: bytes) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    """Each non-blank JSONL line as (line number, its object, ""), or (line number, None, why)
    when it is not JSON or not a JSON object: the importers count those as not mapped. A byte
    order mark before the first line is skipped."""
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    for n, _, obj in _values(data):
        if obj is _NOT_JSON:
            yield n, None, "not JSON"
        elif isinstance(obj, dict):
            yield n, obj, ""
        else:
            yield n, None, "not a JSON object"


def json_lines(data: bytes, rep: Report) -> Iterator[tuple[int, bytes, Any]]:
    """Each non-blank JSONL line as (line number, its bytes, its JSON value), any value (unlike
    ``json_records``); a line that is not JSON is counted in ``rep`` as failed, "not JSON",
    when it is reached, and not yielded."""
    for n, line, value in _values(data):
        if value is _NOT_JSON:
            rep.fail(f"line {n}", "not JSON")
        else:
            yield n, line, value


def sample(data: bytes, doc: Any = None, is_doc: bool | None = None) -> Sample:
    """The sample of ``data`` (pass ``doc`` when the caller already parsed it)."""
    if is_doc is None:
        try:
            doc, is_doc = loads(data), True
        except orjson.JSONDecodeError:
            is_doc = False
    if is_doc:
        return Sample(doc=doc, is_doc=True, head=data[:HEAD_BYTES])
    lines: list[Any] = []
    for ln in data.split(b"\n", SAMPLE_LINES * 4)[: SAMPLE_LINES * 4]:
        if not ln.strip():
            continue
        try:
            lines.append(loads(ln))
        except orjson.JSONDecodeError:
            lines.append(None)
        if len(lines) >= SAMPLE_LINES:
            break
    return Sample(lines=tuple(lines), head=data[:HEAD_BYTES])


@dataclass(frozen=True)
class Format:
    """One importable recording format."""

    name: str  # on the command line: vcon-view import NAME
    title: str  # for people: "Claude Code transcript"
    unit: str  # what the input's objects are called in counts: "lines", "records", "spans"
    sniff: Callable[[Sample], bool]
    #: (data, *, source_name, **options) -> (vCon, Report); raises ImportInputError
    convert: Callable[..., tuple[dict[str, Any], Report]]
    help: str = ""
    #: adds this format's own options to its ``import`` subcommand (names = convert kwargs)
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None
    #: option names (argparse dests) passed on to ``convert``
    options: tuple[str, ...] = field(default=())
    #: the title's indefinite article, as it is said ("an MCP ...", "an OpenTelemetry ...")
    article: str = "a"

    @property
    def a_title(self) -> str:
        """The title after its article: "a Claude Code transcript", "an MCP ..."."""
        return f"{self.article} {self.title}"


def formats() -> list[Format]:
    """Every registered format, in sniffing order."""
    return [importlib.import_module(m).FORMAT for m in MODULES]


def by_name(name: str) -> Format:
    for f in formats():
        if f.name == name:
            return f
    raise KeyError(name)


class AmbiguousInput(ValueError):
    """More than one format recognises the input: the user names one (``vcon-view import``)."""

    def __init__(self, candidates: list[Format]) -> None:
        super().__init__(" or ".join(f.a_title for f in candidates))
        self.candidates = candidates


def detect(data: bytes, smp: Sample | None = None) -> Format | None:
    """The one format whose sniffer recognises ``data``; None when none does.

    Raises AmbiguousInput when several do: a wrong guess would show a wrong picture, so the
    user is asked to say which (``vcon-view import NAME``)."""
    smp = smp or sample(data)
    hits = []
    for f in formats():
        try:
            if f.sniff(smp):
                hits.append(f)
        except (TypeError, ValueError, KeyError, AttributeError, IndexError):
            continue
    if len(hits) > 1:
        raise AmbiguousInput(hits)
    return hits[0] if hits else None
