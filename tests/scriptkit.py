"""Load a script of ``scripts/`` as a module, so a test runs the very code the script runs
(the browser tests share the screenshot scripts' Chromium handling this way)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py`` as the module ``NAME`` (registered in ``sys.modules``: dataclasses
    look their module up there)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod
