"""The long fuzzing run, for use before releases (issue 6).

Runs the properties of ``tests/test_fuzz.py`` (same strategies, same checks) with many more
cases, and reports how many ran, how long it took and what failed::

    .venv/bin/python bench/fuzz_long.py                  # 20,000 cases per property
    .venv/bin/python bench/fuzz_long.py --cases 2000 --seed 1 --json bench/out/fuzz.json

Each property is run with Hypothesis' database off and a fixed seed (so a run is repeatable);
a failure is shrunk and printed with its minimal example, and the exit status is 1.

Red-team mutation runs (issue 17), over real files: ``--mutate DIR`` (repeatable) mutates every
JSON file under DIR (``tests/redteam.py``'s mutator: nesting to 1,000 levels, hostile strings,
weird values, duplicate keys, NaN, truncation...) and drives each mutant through every headless
path, the importers included (a mutated recording is recognised by content and imported);
JSONL recordings under DIR get junk lines. A failing mutant is written to ``--keep DIR``::

    .venv/bin/python bench/fuzz_long.py --only none --mutate ../shared/corpus/vcons \
        --mutate ../shared/corpus/agents --mutate ../shared/corpus/mcp --mutations 2000
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import tests.test_fuzz as F  # noqa: E402
from tests import strategies as S  # noqa: E402

PROPERTIES: dict[str, tuple[Any, Any]] = {
    # name: (strategy of arguments, the test body taking them)
    "load-model-exports": (st.tuples(S.vcon_doc()),
                           F.test_any_vcon_loads_builds_and_exports.hypothesis.inner_test),
    "truncated-and-random-bytes": (
        st.tuples(st.binary(max_size=2000)
                  | S.vcon_bytes("wild").flatmap(lambda b: st.integers(0, len(b)).map(
                      lambda n: b[:n]))),
        F.test_truncated_and_random_bytes_are_refused_in_one_line.hypothesis.inner_test),
    "each-problem-a-diagnostic": (st.tuples(S.vcon_doc("wild")),
                                  F.test_each_problem_is_a_diagnostic.hypothesis.inner_test),
    "deterministic": (st.tuples(S.vcon_doc("wild")),
                      F.test_model_is_deterministic.hypothesis.inner_test),
    "valid-no-errors": (st.tuples(S.vcon_doc("valid")),
                        F.test_valid_vcons_have_no_error_diagnostics.hypothesis.inner_test),
    "array-order-independent": (
        st.tuples(S.distinct_time_events(), st.randoms(use_true_random=False)),
        F.test_replay_is_independent_of_array_order.hypothesis.inner_test),
}


def run(name: str, cases: int, seed_value: int) -> dict[str, Any]:
    strategy, body = PROPERTIES[name]
    count = 0

    @seed(seed_value)
    @settings(max_examples=cases, deadline=None, database=None, print_blob=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def prop(args: tuple[Any, ...]) -> None:
        nonlocal count
        count += 1
        body(*args)

    t0 = time.perf_counter()
    failure = None
    try:
        prop()
    except Exception as e:  # a property failed: keep the shrunk example
        failure = "".join(traceback.format_exception(e))[-6000:]
    return {"property": name, "cases": count, "seconds": round(time.perf_counter() - t0, 1),
            "failure": failure}


def mutate_dirs(dirs: list[str], n: int, seed_value: int, keep: str | None) -> dict[str, Any]:
    """``n`` mutations of the JSON documents and JSONL recordings under ``dirs``."""
    import random

    import orjson

    from tests.redteam import HOSTILE, encode, exercise, mutate

    docs: list[tuple[str, Any]] = []
    lines: list[tuple[str, list[bytes]]] = []
    for d in dirs:
        for f in sorted(Path(d).rglob("*")):
            if not f.is_file() or f.stat().st_size > 5_000_000:
                continue
            data = f.read_bytes()
            try:
                docs.append((f.name, orjson.loads(data)))
            except orjson.JSONDecodeError:
                if data.count(b"\n") > 1:
                    lines.append((f.name, data.split(b"\n")))
    rng = random.Random(seed_value)
    counts: dict[str, int] = {}
    failures: list[str] = []
    t0 = time.perf_counter()
    for i in range(n):
        if lines and (not docs or i % 3 == 2):
            name, src = lines[i % len(lines)]
            out = list(src)
            for _ in range(rng.randint(1, 4)):
                j = rng.randrange(len(out))
                out[j] = rng.choice([b"{", b"null", b"[" * 700 + b"]" * 700, out[j] * 2,
                                     out[j][: len(out[j]) // 2], encode({"x": rng.choice(HOSTILE)}),
                                     out[j].replace(b":1", b":NaN", 1)])
            data = b"\n".join(out)
        else:
            name, doc = docs[i % len(docs)]
            data = mutate(doc, rng)
        try:
            outcome = exercise(data, name)
        except Exception as e:
            failures.append(f"case {i} ({name}): {type(e).__name__}: {str(e)[:200]}")
            if keep:
                Path(keep).mkdir(parents=True, exist_ok=True)
                Path(keep, f"case-{i}-{name}").write_bytes(data)
            continue
        counts[outcome] = counts.get(outcome, 0) + 1
    return {"property": "mutate:" + ",".join(dirs), "cases": n,
            "seconds": round(time.perf_counter() - t0, 1), "outcomes": counts,
            "failure": "\n".join(failures[:20]) if failures else None,
            "failed_cases": len(failures)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=20_000, help="examples per property")
    p.add_argument("--seed", type=int, default=20260302)
    p.add_argument("--only", choices=[*sorted(PROPERTIES), "none"], action="append",
                   help="run only these properties (none: only the --mutate runs)")
    p.add_argument("--mutate", metavar="DIR", action="append",
                   help="red-team mutation run over the files under DIR (repeatable)")
    p.add_argument("--mutations", type=int, default=2000)
    p.add_argument("--keep", metavar="DIR", help="write failing mutants here")
    p.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    a = p.parse_args(argv)
    results = []
    if a.mutate:
        r = mutate_dirs(a.mutate, a.mutations, a.seed, a.keep)
        results.append(r)
        status = "ok" if r["failure"] is None else f"FAILED ({r['failed_cases']})"
        print(f"{'mutations':28} {r['cases']:>7} cases {r['seconds']:>8.1f} s  {status}  "
              f"{r['outcomes']}", flush=True)
        if r["failure"]:
            print(r["failure"], flush=True)
    for name in [n for n in (a.only or list(PROPERTIES)) if n != "none"]:
        r = run(name, a.cases, a.seed)
        results.append(r)
        status = "ok" if r["failure"] is None else "FAILED"
        print(f"{name:28} {r['cases']:>7} cases {r['seconds']:>8.1f} s  {status}", flush=True)
        if r["failure"]:
            print(r["failure"], flush=True)
    total = sum(r["cases"] for r in results)
    secs = sum(r["seconds"] for r in results)
    failed = [r["property"] for r in results if r["failure"]]
    print(f"total: {total} cases in {secs:.0f} s; failed: {', '.join(failed) or 'none'}")
    if a.json:
        import json

        Path(a.json).write_text(json.dumps(results, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
