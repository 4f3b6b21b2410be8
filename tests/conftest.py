from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
DEMOS = ROOT / "demo_vcons"
SHARED = ROOT.parent / "shared"  # present on developer machines and CI, not in a fresh clone


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
