"""Importer of the Gemini CLI session (placeholder: not written yet)."""

from __future__ import annotations

from typing import Any

from viewer.importers.common import Report
from viewer.importers.formats import Format, ImportInputError, Sample


def sniff(smp: Sample) -> bool:
    return False


def convert(data: bytes, *, source_name: str = "-") -> tuple[dict[str, Any], Report]:
    raise ImportInputError("the gemini importer is not written yet")


FORMAT = Format(name="gemini", title="Gemini CLI session", unit="records",
                sniff=sniff, convert=convert)
