"""Whether a benchmark would time Python compiling the viewer instead of running it.

With bytecode writing off (``PYTHONDONTWRITEBYTECODE``, ``python -B``) a process never writes
the ``.pyc`` files it compiles: when the checkout's ``viewer/`` has none, every process
compiles every module it imports afresh, and each start-up measured includes that. The
benchmarks say so on stderr, with the fix.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def uncompiled(tree: Path) -> tuple[int, int]:
    """(modules under ``tree/viewer`` without a current ``.pyc`` for this Python, modules)."""
    sources = sorted((tree / "viewer").rglob("*.py"))
    missing = 0
    for src in sources:
        pyc = Path(importlib.util.cache_from_source(str(src)))
        try:
            missing += pyc.stat().st_mtime < src.stat().st_mtime
        except FileNotFoundError:
            missing += 1
    return missing, len(sources)


def recompile_warning(trees: list[Path], writes_bytecode: bool) -> str | None:
    """The warning for the trees whose modules a process would compile on every start, or
    None (bytecode writing is on, or every module has its ``.pyc``)."""
    if writes_bytecode:
        return None
    lines = []
    for tree in trees:
        missing, total = uncompiled(tree)
        if missing:
            lines.append(
                f"bench: warning: bytecode writing is off (PYTHONDONTWRITEBYTECODE or -B) and "
                f"{missing} of {total} modules under {tree / 'viewer'} have no current .pyc: "
                f"every process compiles them afresh and the times include it; run "
                f"`{Path(sys.executable).name} -m compileall -q {tree / 'viewer'}` first")
    return "\n".join(lines) or None


def warn_if_recompiling(trees: list[Path], writes_bytecode: bool) -> None:
    """Print ``recompile_warning`` to stderr when there is one."""
    message = recompile_warning(trees, writes_bytecode)
    if message:
        print(message, file=sys.stderr)
