"""The engine's outputs are pinned: ``summary --format json`` and ``check --format json`` of
every case of ``tests/enginekit.py`` byte for byte against ``tests/golden/engine/``.

The goldens were written by the engine before issue 16's rewrite (typed decode, memoised
replay): a change to the engine that changes any of these bytes is a change of behaviour, made
on purpose (``VCON_VIEW_UPDATE_GOLDEN=1`` rewrites them; review the diff and say why in the
commit).
"""

from __future__ import annotations

import os

import pytest

from tests.enginekit import GOLDEN, cases, golden_paths, outputs

UPDATE = os.environ.get("VCON_VIEW_UPDATE_GOLDEN") == "1"
CASES = cases()


def test_enough_cases() -> None:
    """Demos, fixtures, generated and mutated files: about a hundred inputs."""
    kinds = {name.split("-", 1)[0] for name in CASES}
    assert kinds == {"demo", "fx", "gen", "mut"}
    assert len(CASES) >= 100


def test_no_stale_goldens() -> None:
    """Every golden file belongs to a case (a removed case takes its goldens with it)."""
    names = {p.name for n in CASES for p in golden_paths(n)}
    stale = sorted(p.name for p in GOLDEN.iterdir() if p.name not in names)
    assert stale == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_engine_golden(name: str) -> None:
    label, read = CASES[name]
    summary, check = outputs(label, read())
    for path, got in zip(golden_paths(name), (summary, check), strict=True):
        if UPDATE:
            GOLDEN.mkdir(parents=True, exist_ok=True)
            path.write_bytes(got)
            continue
        assert path.exists(), f"no golden {path.name}: run with VCON_VIEW_UPDATE_GOLDEN=1"
        assert got == path.read_bytes(), f"{path.name} differs from its golden"
