"""The export formats, in one registry: ``summary --format`` and the viewer's export dialog
both dispatch through ``FORMATS``, so a format added here is available in both.

Each renderer is imported only when its format is used: ``summary --format json`` never
imports rich or textual, and nothing here imports more than the standard library.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from viewer.model.types import Model, Operation

EvidenceMode = Literal["findings", "all", "none"]
EVIDENCE_MODES: tuple[EvidenceMode, ...] = ("findings", "all", "none")
#: A report quotes at most this many characters of one recorded value (arguments, a result);
#: the full length is stated next to it, and the summary JSON has the exact values.
EVIDENCE_CHARS = 2000
#: Width of the text summary in a file (-o) or a pipe: wide enough for ids and servers.
TEXT_WIDTH = 160

Rendered = str | bytes | Iterable[bytes]


class ReportTimeError(ValueError):
    """``SOURCE_DATE_EPOCH`` is set but is not a whole number of seconds."""


def report_time() -> datetime:
    """Now, or ``SOURCE_DATE_EPOCH`` (reproducible builds): a report made twice from the same
    file with that variable set is the same bytes, so goldens and archived reports compare."""
    value = os.environ.get("SOURCE_DATE_EPOCH")
    if value is None or value == "":
        return datetime.now(UTC).replace(microsecond=0)
    try:
        return datetime.fromtimestamp(int(value), UTC)
    except (ValueError, OverflowError, OSError):
        raise ReportTimeError(
            "SOURCE_DATE_EPOCH must be a whole number of seconds since 1970 "
            f"(got {value[:40]!r})") from None


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """What a report needs beyond the model (which carries the input's name, size and sha256
    in ``model.source``): how much evidence, how long a quote, the command that made it."""

    evidence: EvidenceMode = "findings"
    max_chars: int = EVIDENCE_CHARS
    #: The options as given, for the provenance block (e.g. ``("--format", "md")``).
    command: tuple[str, ...] = ()
    #: When the report was made; None: ``report_time()`` when rendered.
    time: datetime | None = None
    #: A subset of the operations (the viewer's filtered or selected export); None: all.
    operations: Sequence[Operation] | None = None
    width: int = TEXT_WIDTH
    #: Where it was made: "summary" (the command) or "viewer" (the export dialog).
    made_by: str = "summary"

    def when(self) -> datetime:
        return self.time or report_time()


@dataclass(frozen=True, slots=True)
class ExportFormat:
    """One export format: its name (``--format NAME``), file suffix, media type, one line of
    description, and ``render(model, options)``, which returns text, bytes or byte pieces."""

    name: str
    suffix: str
    mime: str
    description: str
    render: Callable[[Model, ReportOptions], Rendered]
    #: Offered in the viewer's export dialog (the terminal text summary is not).
    in_dialog: bool = True


FORMATS: dict[str, ExportFormat] = {}


def register(fmt: ExportFormat) -> ExportFormat:
    """Add (or replace) a format; the registry keeps the order of first registration."""
    FORMATS[fmt.name] = fmt
    return fmt


def dialog_formats() -> tuple[ExportFormat, ...]:
    return tuple(f for f in FORMATS.values() if f.in_dialog)


def as_bytes(data: Rendered) -> bytes:
    """A rendering as one bytes object (UTF-8 for text)."""
    if isinstance(data, str):
        return data.encode("utf-8", "replace")
    if isinstance(data, bytes):
        return data
    return b"".join(data)


#: Lines per piece of ``line_pieces``.
PIECE_LINES = 4096


def line_pieces(lines: Sequence[str]) -> Iterator[bytes]:
    """``"\\n".join(lines)`` as UTF-8 pieces of ``PIECE_LINES`` lines (``as_bytes`` joins them
    back): a big report is never one string, which takes two or four bytes a character
    once one character is not Latin-1 (an arrow, a dot), and then its UTF-8 copy as well."""
    n = len(lines)
    for i in range(0, n, PIECE_LINES):
        text = "\n".join(lines[i:i + PIECE_LINES])
        yield (text + "\n" if i + PIECE_LINES < n else text).encode("utf-8", "replace")


# --- the built-in formats ----------------------------------------------------------------------


def _text(model: Model, opts: ReportOptions) -> str:
    from viewer.report.text import to_text

    return to_text(model, width=opts.width, operations=opts.operations)


def _json(model: Model, opts: ReportOptions) -> Iterable[bytes]:
    from viewer.report.summary import iter_json

    # In pieces: one batch of operations' dicts at a time, never the whole document.
    return iter_json(model, opts.operations)


def _md(model: Model, opts: ReportOptions) -> Iterable[bytes]:
    from viewer.report.markdown import markdown_pieces

    return markdown_pieces(model, opts)  # (opts.operations: the operations it reports)


def _csv(model: Model, opts: ReportOptions) -> Iterable[bytes]:
    from viewer.report.csv import csv_pieces

    return csv_pieces(model, opts.operations)


def _html(model: Model, opts: ReportOptions) -> Iterable[bytes]:
    from viewer.report.html import html_pieces

    return html_pieces(model, opts)


register(ExportFormat("text", "txt", "text/plain", "terminal summary", _text, in_dialog=False))
register(ExportFormat("md", "md", "text/markdown", "incident report with evidence", _md))
register(ExportFormat("html", "html", "text/html",
                      "self-contained report: timeline, findings, evidence", _html))
register(ExportFormat("json", "json", "application/json", "summary JSON, scriptable", _json))
register(ExportFormat("csv", "csv", "text/csv", "one row per attempt", _csv))
