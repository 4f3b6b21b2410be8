"""The standing red-team suite (issue 17): mutation fuzzing of real vCons and recordings, and a
hostile corpus, through every headless path (``tests/redteam.py``: load or import, model,
summary JSON, Markdown, CSV, text, check lines, ``import vcon``'s conversion). Seeded and
bounded in time (a few seconds); ``bench/fuzz_long.py --mutate DIR`` runs thousands.

The inputs are the real files already copied into tests/fixtures/ (load/, validate/,
import_mcp/: sources and licences in tests/fixtures/SOURCES.md), the hostile fixture and the
demo vCons (ours).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.redteam import HOSTILE, encode, exercise, run_mutations

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def _docs(paths: list[Path]) -> list[tuple[str, Any]]:
    out = []
    for p in paths:
        try:
            out.append((p.name, orjson.loads(p.read_bytes())))
        except orjson.JSONDecodeError:
            continue  # JSONL recordings: mutated line by line below
    return out


REAL = sorted((FIXTURES / "load").glob("*.json")) + sorted((FIXTURES / "load").glob("*.vcon")) \
    + sorted((FIXTURES / "validate").glob("*.json")) \
    + sorted((FIXTURES / "import_mcp").glob("*.json"))
OURS = [FIXTURES / "hostile_content.vcon.json", ROOT / "demo_vcons" / "tour.vcon.json",
        FIXTURES / "import_proxy.vcon.json"]


@pytest.mark.parametrize("seed", [1, 2])
def test_mutated_real_vcons_never_crash(seed: int) -> None:
    docs = _docs([p for p in REAL + OURS if p.exists() and p.stat().st_size < 300_000])
    assert len(docs) >= 8
    counts = run_mutations(docs, n=400, seed=seed, budget_s=2.5)
    assert sum(counts.values()) >= 20, counts


def test_mutated_jsonl_recordings_never_crash() -> None:
    import random

    rng = random.Random(17)
    files = sorted(FIXTURES.glob("import_*.jsonl"))
    for p in files:
        lines = p.read_bytes().split(b"\n")
        for _ in range(6):
            out = list(lines)
            i = rng.randrange(len(out))
            out[i] = rng.choice([b"", b"{", b"null", b'{"jsonrpc":"2.0","id":1}',
                                 encode({"x": rng.choice(HOSTILE)}),
                                 b"[" * 600 + b"]" * 600, out[i] * 2, out[i][: len(out[i]) // 2]])
            exercise(b"\n".join(out), p.name)


@pytest.mark.parametrize("s", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_strings_in_every_identifier(s: str) -> None:
    from tests.modelkit import standing, tool, vcon

    doc = vcon([standing(0, "disallowed", server=s, tool_name=s),
                tool("tool-invocation", 1, op=s or "op", server=s, tool=s, body={s: s}),
                tool("tool-result", 2, op=s or "op", body=s, encoding="none",
                     mediatype="text/plain")],
               parties=[{"name": s}, {"name": "agent"}])
    assert exercise(encode(doc)) in ("vcon", "refused")
