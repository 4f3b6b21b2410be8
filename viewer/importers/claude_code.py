"""Importer of the Claude Code transcript (placeholder: not written yet)."""

from __future__ import annotations

from typing import Any

from viewer.importers.common import Report
from viewer.importers.formats import Format, ImportInputError, Sample


def sniff(smp: Sample) -> bool:
    return False


def convert(data: bytes, *, source_name: str = "-") -> tuple[dict[str, Any], Report]:
    raise ImportInputError("the claude-code importer is not written yet")


FORMAT = Format(name="claude-code", title="Claude Code transcript", unit="lines",
                sniff=sniff, convert=convert)
