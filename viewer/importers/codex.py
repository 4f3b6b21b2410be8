"""Importer of the Codex CLI rollout (placeholder: not written yet)."""

from __future__ import annotations

from typing import Any

from viewer.importers.common import Report
from viewer.importers.formats import Format, ImportInputError, Sample


def sniff(smp: Sample) -> bool:
    return False


def convert(data: bytes, *, source_name: str = "-") -> tuple[dict[str, Any], Report]:
    raise ImportInputError("the codex importer is not written yet")


FORMAT = Format(name="codex", title="Codex CLI rollout", unit="lines",
                sniff=sniff, convert=convert)
