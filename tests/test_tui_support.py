"""Shared helpers for the TUI tests (no tests here): fixture paths and model building."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from viewer.load import Loaded, load_path
from viewer.model.build import build_model
from viewer.model.types import Model

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SMALL = FIXTURES / "tui_small.vcon.json"


def build(loaded: Loaded) -> Model:
    """The engine's builder (passed to make_app so tests can swap it)."""
    return build_model(loaded)


def model_of(path: Path | str = SMALL, **kw: Any) -> Model:
    return build(load_path(str(path), **kw))

