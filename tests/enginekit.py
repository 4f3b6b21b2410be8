"""The engine's golden cases: every input whose ``summary --format json`` and ``check --format
json`` are pinned in ``tests/golden/engine/`` (``tests/test_engine_golden.py``).

The goldens are the outputs of the engine as it was before its decoder and replay were
rewritten (issue 16): they hold the behaviour, not the old code. Cases: every demo, every file
of ``tests/fixtures`` (vCons loaded, recordings imported, refusals as their message), the
generator at several seeds and sizes, and a seeded, deterministic mutator that breaks events
of a few of them (a member dropped, retyped, nulled, a forbidden one added, an index shifted).
"""

from __future__ import annotations

import importlib.util
import random
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from viewer.cli import check_status
from viewer.load import LoadError
from viewer.model.build import build_model
from viewer.pipeline import open_bytes
from viewer.report.check import CheckOutcome, check_json
from viewer.report.summary import iter_json

ROOT = Path(__file__).resolve().parent.parent
DEMOS = ROOT / "demo_vcons"
FIXTURES = ROOT / "tests" / "fixtures"
GOLDEN = ROOT / "tests" / "golden" / "engine"

#: (seed, operations) of the generated cases.
GENERATED = ((0, 5), (1, 12), (2, 30), (3, 60), (4, 120), (5, 8), (6, 40), (7, 200))
#: (base case, mutation seeds): the inputs the mutator breaks.
MUTATED = (
    ("demo-tour.vcon.json", range(6)),
    ("demo-04-double-refund.vcon.json", range(3)),
    ("demo-06-standing-decisions.vcon.json", range(3)),
    ("demo-09-content-variety.vcon.json", range(3)),
    ("demo-11-conformance-errors.vcon.json", range(2)),
    ("gen-s2-30", range(6)),
    ("gen-s6-40", range(5)),
    ("gen-s3-60", range(4)),
)
MUTATIONS = ("drop", "retype", "null", "forbidden", "shift")
#: Members an X cell forbids in some type, and those a mutation drops or retypes.
_FORBIDDEN = ("decision", "policy_life", "reason", "operation", "server", "tool", "body",
              "operation_id", "attempt")
_MEMBERS = ("type", "time", "operation_id", "attempt", "party", "sessions", "server", "tool",
            "decision", "policy_life", "operation", "body", "encoding", "mediatype")
_RETYPED: tuple[Any, ...] = (True, 1.5, "3", -1, 0, [], {}, "", "!nope", 2**60, [0, 99])


def _generator() -> Callable[..., Any]:
    spec = importlib.util.spec_from_file_location("bench_generate", ROOT / "bench" / "generate.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_generate", mod)
    spec.loader.exec_module(mod)
    return mod.generate


def generated(seed: int, operations: int) -> bytes:
    """``bench/generate.py``'s file for (seed, operations)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "gen.vcon.json"
        _generator()(path, operations, seed=seed)
        return path.read_bytes()


def mutate(data: bytes, seed: int) -> bytes:
    """``data`` with 2 to 6 events broken, chosen and broken by ``seed``."""
    rng = random.Random(seed)
    doc = orjson.loads(data)
    events = doc.get("events")
    if not isinstance(events, list) or not events:
        return data
    for _ in range(rng.randint(2, 6)):
        i = rng.randrange(len(events))
        ev = events[i]
        if not isinstance(ev, dict):
            continue
        how = MUTATIONS[rng.randrange(len(MUTATIONS))]
        present = [k for k in _MEMBERS if k in ev]
        if how == "drop" and present:
            del ev[rng.choice(present)]
        elif how == "retype" and present:
            ev[rng.choice(present)] = rng.choice(_RETYPED)
        elif how == "null" and present:
            ev[rng.choice(present)] = None
        elif how == "forbidden":
            name = rng.choice(_FORBIDDEN)
            ev[name] = {"decision": "allowed", "policy_life": "once", "reason": "why",
                        "operation": "tool-invocation", "server": "srv", "tool": "t",
                        "body": "x", "operation_id": "op-x", "attempt": 2}[name]
        else:  # shift an index: party, sessions or attempt beyond what exists or one down
            name = rng.choice(("party", "sessions", "attempt"))
            v = ev.get(name)
            ev[name] = (v + rng.choice((-1, 1, 7))) if type(v) is int else rng.randrange(9)
    return orjson.dumps(doc)


def _demo_cases() -> Iterator[tuple[str, str, Callable[[], bytes]]]:
    for p in sorted(DEMOS.iterdir()):
        if p.name.endswith((".vcon.json", ".vcon.json.gz")):
            yield f"demo-{p.name}", f"demo_vcons/{p.name}", p.read_bytes


def _fixture_cases() -> Iterator[tuple[str, str, Callable[[], bytes]]]:
    for p in sorted(FIXTURES.rglob("*")):
        if p.is_file() and p.name.endswith((".json", ".jsonl", ".json.gz")):
            rel = p.relative_to(FIXTURES).as_posix()
            yield "fx-" + rel.replace("/", "__"), f"tests/fixtures/{rel}", p.read_bytes


def cases() -> dict[str, tuple[str, Callable[[], bytes]]]:
    """Case name -> (the name the file is opened under, its bytes when called)."""
    out: dict[str, tuple[str, Callable[[], bytes]]] = {}
    for name, label, read in (*_demo_cases(), *_fixture_cases()):
        out[name] = (label, read)
    for seed, ops in GENERATED:
        out[f"gen-s{seed}-{ops}"] = (f"gen-s{seed}-{ops}.vcon.json",
                                     lambda s=seed, o=ops: generated(s, o))
    for base, seeds in MUTATED:
        label, read = out[base]
        for s in seeds:
            out[f"mut-{base}-m{s}"] = (f"mut{s}-{label.rsplit('/', 1)[-1]}",
                                       lambda r=read, s=s: mutate(r(), s))
    return out


def outputs(label: str, data: bytes) -> tuple[bytes, bytes]:
    """(``summary --format json``, ``check --format json``) as the CLI writes them; a refused
    file gives its refusal for both."""
    try:
        loaded = open_bytes(data, name=label)
    except LoadError as exc:
        refusal = orjson.dumps({"refused": exc.message, "exit": exc.exit_code}) + b"\n"
        return refusal, refusal
    model = build_model(loaded)
    summary = b"".join(iter_json(model, None))
    status = check_status(model, frozenset())
    check = check_json(model, CheckOutcome(status))
    return summary, check


def golden_paths(name: str) -> tuple[Path, Path]:
    return GOLDEN / f"{name}.summary.json", GOLDEN / f"{name}.check.json"
