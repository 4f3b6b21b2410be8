from __future__ import annotations

import os
from pathlib import Path

import pytest

# Reports name the time they were made: every test makes them at one fixed time
# (2026-04-02T12:00:00Z, SOURCE_DATE_EPOCH), so exports compare byte for byte; a test of the
# clock itself unsets it with monkeypatch.
os.environ["SOURCE_DATE_EPOCH"] = "1775131200"

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
DEMOS = ROOT / "demo_vcons"
SHARED = ROOT.parent / "shared"  # present on developer machines and CI, not in a fresh clone


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES

