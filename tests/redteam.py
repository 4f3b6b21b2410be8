"""The red-team harness (issue 17): a mutator of real vCons and recordings, and the one function
that drives a file through every headless path and fails only on what must never happen.

Used by ``tests/test_redteam_fuzz.py`` (a few seconds, seeded) and ``bench/fuzz_long.py``
(``--mutate DIR``: thousands of mutations of a corpus folder, the importers' samples too).

What must never happen, for any input:

* an exception other than ``LoadError`` (a one-line refusal) from loading or importing;
* any exception from building the model, the exports (summary JSON, Markdown, CSV, text),
  the check lines, or ``import vcon``'s conversion other than its documented refusals;
* a raw control, bidi or invisible character in an export or a check line;
* a summary JSON that does not parse.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import orjson

from viewer.textsafe import UNSAFE_TABLE

#: Strings a hostile recording carries (each must be neutralised wherever it shows).
HOSTILE = [
    "\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b[2J\x1b[H", "\x9b31m", "\u202eevil\u202c",
    "op-07aa\u3164\u3164\u3164", "\u115f\u1160\uffa0\u2800", "x\ufe0f\U000e0041\U000e0001",
    "\u2061\u2062\u206f", "[@click=app.quit]x[/]", "https://evil.example/x www.evil.example",
    "a\u2028b\u2029c\x85d", "\ud800", "\x00", "x" * 5000, "",
]
_WEIRD_VALUES: list[Any] = [
    None, True, 0, -1, 2**63, 2**64 + 1, 1.5e308, -0.0, "", [], {}, [None], {"": None},
    "2026-13-45T99:99:99Z", "1970-01-01T00:00:00", "9999-12-31T23:59:59.999999999+14:00",
]
_TOOL_TYPES = ["tool-invocation", "tool-result", "tool-failure", "tool-error", "tool-denied",
               "tool-timeout", "tool-cancel", "tool-progress", "tool-pending", "tool-input",
               "tool-input-response", "policy-decision"]


def _nodes(doc: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) of ``doc``, without recursion."""
    out: list[tuple[Any, Any]] = []
    stack = [doc]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k, x in v.items():
                out.append((v, k))
                stack.append(x)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                out.append((v, i))
                stack.append(x)
    return out


def _deep(n: int) -> Any:
    return orjson.loads("[" * n + '"\\u202e"' + "]" * n)


def mutate(doc: Any, rng: random.Random) -> bytes:
    """One seeded mutation of a parsed document, as bytes (some mutations are textual: a
    duplicate key, a NaN, a truncation)."""
    doc = orjson.loads(orjson.dumps(doc))  # a copy
    nodes = _nodes(doc)
    kind = rng.choice(["deep", "hostile", "weird", "delete", "type", "attempt", "dup-key",
                       "nan", "truncate", "clone-event", "many"])
    if nodes and kind in ("deep", "hostile", "weird", "delete", "type", "attempt", "many"):
        for _ in range(rng.randint(1, 8) if kind == "many" else 1):
            if not nodes:
                break
            parent, key = rng.choice(nodes)
            k = kind if kind != "many" else rng.choice(["hostile", "weird", "type", "delete"])
            try:
                if k == "deep":
                    parent[key] = {"deep": _deep(rng.choice([255, 300, 600, 1000])),
                                   "was": parent[key]}
                elif k == "hostile":
                    parent[key] = rng.choice(HOSTILE) + (parent[key] if isinstance(
                        parent[key], str) else "")
                elif k == "weird":
                    parent[key] = rng.choice(_WEIRD_VALUES)
                elif k == "delete":
                    del parent[key]
                elif k == "type" and isinstance(parent, dict) and key == "type":
                    parent[key] = rng.choice(_TOOL_TYPES)
                elif k == "attempt" and isinstance(parent, dict):
                    parent["attempt"] = rng.choice([1, 2, 3, 2**40, 0, "1"])
                    parent.setdefault("operation_id", "op-" + rng.choice("ab"))
                else:
                    parent[key] = rng.choice(HOSTILE)
            except (KeyError, IndexError, TypeError):
                pass
            nodes = _nodes(doc) if k == "delete" else nodes
    if kind == "clone-event" and isinstance(doc, dict) and isinstance(doc.get("events"), list) \
            and doc["events"]:
        ev = rng.choice(doc["events"])
        doc["events"].extend([ev] * rng.randint(2, 200))
    text = encode(doc)
    if kind == "dup-key" and text[:1] == b"{":
        key = rng.choice([b'"decision"', b'"type"', b'"events"', b'"vcon"', b'"x"'])
        text = b"{" + key + b':"disallowed",' + text[1:]
    elif kind == "nan":
        text = text.replace(b":1", b":NaN", 1).replace(b":0", b":Infinity", 1)
    elif kind == "truncate":
        text = text[: rng.randint(0, len(text))]
    return text


def encode(doc: Any) -> bytes:
    """JSON bytes of ``doc`` whatever it holds: deeper than orjson writes, integers past 64
    bits, lone surrogates (written raw: the file is then not UTF-8, as a hostile one may be)."""
    try:
        return orjson.dumps(doc)
    except TypeError:
        from viewer.jsonenc import dumps_deep

        return dumps_deep(doc).encode("utf-8", "surrogatepass")


_UNSAFE_OUT = {chr(c) for c in UNSAFE_TABLE if chr(c) not in "\n\t"}


def _clean(name: str, text: str) -> None:
    bad = _UNSAFE_OUT.intersection(text) - ({"\r"} if name == "csv" else set())
    assert not bad, (name, sorted(hex(ord(c)) for c in bad)[:5])


def exercise(data: bytes, name: str = "mutant.json") -> str:
    """Every headless path on ``data``; returns what happened ("refused", "imported",
    "vcon"). Raises AssertionError (or the unexpected exception) on a failure."""
    from viewer.load import LoadError
    from viewer.model.build import build_model
    from viewer.pipeline import open_bytes
    from viewer.report.check import check_lines
    from viewer.report.csv import to_csv
    from viewer.report.markdown import to_markdown
    from viewer.report.summary import to_json
    from viewer.report.text import to_text

    try:
        loaded = open_bytes(data, name=name)
    except LoadError as exc:
        assert "\n" not in exc.message and exc.exit_code in (2, 3), exc.message
        _clean("refusal", exc.message)
        return "refused"
    model = build_model(loaded)
    js = to_json(model)
    json.loads(js)
    _clean("json", js.decode())
    _clean("md", to_markdown(model))
    _clean("csv", to_csv(model))
    _clean("text", to_text(model, width=160))
    _clean("check", "\n".join(check_lines(model)))
    if loaded.derivation is None:
        _lift(data, name)
    return "imported" if loaded.derivation is not None else "vcon"


def _lift(data: bytes, name: str) -> None:
    """``import vcon``'s conversion: a result, or one of its documented refusals. A
    RecursionError is the lifter's known failure on deep bodies (lift.py, not in this lane):
    the CLI reports it in one line, exit 2."""
    from viewer.importers.lift import NothingToLift, convert_vcon
    from viewer.load import LoadError
    from viewer.report.summary import dumps

    try:
        vcon, _ = convert_vcon(data, source_name=name, ignore_critical=True)
    except (LoadError, NothingToLift, RecursionError):
        return
    dumps(vcon)


def run_mutations(docs: list[tuple[str, Any]], n: int, seed: int,
                  budget_s: float | None = None,
                  on_case: Callable[[str, bytes, str], None] | None = None) -> dict[str, int]:
    """``n`` seeded mutations spread over ``docs`` (name, parsed document), each exercised;
    stops early after ``budget_s`` seconds. Returns counts by outcome."""
    import time

    rng = random.Random(seed)
    counts: dict[str, int] = {}
    start = time.monotonic()
    for i in range(n):
        if budget_s is not None and time.monotonic() - start > budget_s:
            break
        name, doc = docs[i % len(docs)]
        data = mutate(doc, rng)
        try:
            outcome = exercise(data, name)
        except Exception as exc:
            raise AssertionError(f"case {i} ({name}, seed {seed}): {type(exc).__name__}: "
                                 f"{str(exc)[:300]}") from exc
        counts[outcome] = counts.get(outcome, 0) + 1
        if on_case is not None:
            on_case(name, data, outcome)
    return counts
