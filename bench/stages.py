"""Where the time of ``vcon-view summary --format json`` goes, stage by stage, in one process.

    .venv/bin/python bench/stages.py bench/out/gen-88000.vcon.json            # stage table
    .venv/bin/python bench/stages.py FILE --cprofile 25                        # + cProfile top 25
    .venv/bin/python bench/stages.py FILE --memory                             # + RSS per stage

The stages mirror the CLI (gc disabled, as ``viewer.cli._load_model`` does): read the bytes,
``orjson.loads``, the rest of ``load_path`` (sha256, unwrapping), the event checks alone (the
draft's columns, ``viewer/model/columns.py``, then ``check_event`` for the events they flag),
``_Builder.parse_events`` (which includes those checks, time parsing and the sort), the rest
of ``build_model`` (grouping, replay, policy, findings), ``summary_dict`` and ``dumps``. CPU
time (``time.process_time``) is reported, so other load on the machine matters less; wall
time is shown next to it.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_TREE = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--tree=")), None)
sys.path.insert(0, str(Path(_TREE).resolve() if _TREE else ROOT))
sys.path.insert(1, str(ROOT / "bench"))

from pycache import warn_if_recompiling  # noqa: E402 (after the path of the tree measured)


def rss_mib() -> float:
    """Current RSS (not the peak), MiB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file")
    p.add_argument("--cprofile", type=int, metavar="N", help="also print the cProfile top N "
                   "(by own time) of load + build + summary")
    p.add_argument("--memory", action="store_true", help="show the RSS after each stage")
    p.add_argument("--tree", help="--tree=DIR: profile the viewer package of checkout DIR")
    args = p.parse_args(argv)
    warn_if_recompiling([Path(args.tree).resolve() if args.tree else ROOT],
                        not sys.dont_write_bytecode)

    t_imp = time.process_time()
    import orjson

    from viewer.load import load_bytes, load_path
    from viewer.model import build
    from viewer.model.validate import Ctx, check_event
    from viewer.report.summary import dumps, summary_dict

    imports = time.process_time() - t_imp
    gc.disable()
    rows: list[tuple[str, float, float, float]] = []

    def stage(name: str, fn):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        rows.append((name, time.process_time() - c0, time.perf_counter() - w0, rss_mib()))
        return out

    rows.append(("imports (viewer, orjson)", imports, imports, rss_mib()))
    data = stage("read bytes", lambda: Path(args.file).read_bytes())
    obj = stage("orjson.loads (bare parse)", lambda: orjson.loads(data))
    del obj
    loaded = stage("load_bytes (sha256 + decode + checks)", lambda: load_bytes(data))
    data = b""  # let the bytes go, as the CLI does
    vcon = loaded.vcon
    events = vcon.get("events") or []

    try:  # the draft's columns decide which events check_event sees (not in older trees)
        from viewer.model.columns import unclean
    except ImportError:
        unclean = None

    def only_checks():
        ctx, out = Ctx.of(vcon), []
        if unclean is None:
            flagged = b"\x01" * len(events)
        else:
            att = ctx.attachments
            flagged = unclean(events, ctx.n_parties, ctx.n_sessions,
                              None if att is None else len(att))
        for i in range(len(events)):  # by index: an event's dict only where it is checked
            if flagged[i]:
                check_event(i, events[i], ctx, out)
        return out

    stage("  of build: the event checks (columns, then check_event where flagged)", only_checks)
    b = build._Builder(vcon, loaded.diagnostics)
    stage("  of build: parse_events (incl. check_event, times, sort)", b.parse_events)
    model = stage("build_model (total)", lambda: build.build_model(loaded))
    doc = stage("summary_dict", lambda: summary_dict(model))
    out = stage("dumps (orjson indent + escape)", lambda: dumps(doc))

    import viewer

    print(f"### Stages of `summary --format json`: {args.file} ({viewer.__file__})\n")
    print(f"{len(model.events):,} events, {len(model.operations):,} operations, "
          f"{len(model.findings):,} findings, {len(model.diagnostics):,} diagnostics, "
          f"summary JSON {len(out) / 1e6:.1f} MB\n")
    print("| stage | CPU | wall |" + (" RSS after |" if args.memory else ""))
    print("|---|---:|---:|" + ("---:|" if args.memory else ""))
    for name, cpu, wall, rss in rows:
        print(f"| {name} | {cpu * 1e3:,.0f} ms | {wall * 1e3:,.0f} ms |"
              + (f" {rss:,.0f} MiB |" if args.memory else ""))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS of this process {peak:,.0f} MiB (it holds more than the CLI does)")

    if args.cprofile:
        import cProfile
        import pstats

        del model, doc, out, b
        prof = cProfile.Profile()
        prof.enable()
        m = build.build_model(load_path(args.file))
        dumps(summary_dict(m))
        prof.disable()
        print()
        pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(args.cprofile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
