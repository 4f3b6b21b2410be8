"""bench/run.py and bench/stages.py say when they would time compiling instead of running:
bytecode writing off and no current .pyc in the checkout's viewer/."""

from __future__ import annotations

import compileall
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"


def _tree(tmp_path: Path) -> Path:
    """A checkout with a viewer/ of two modules and no bytecode."""
    (tmp_path / "viewer").mkdir()
    (tmp_path / "viewer" / "__init__.py").write_text("")
    (tmp_path / "viewer" / "mod.py").write_text("X = 1\n")
    return tmp_path


def _bench(*args: str, writes: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if not writes:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=300, check=False)


def test_the_rule(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from pycache import recompile_warning, uncompiled
    finally:
        sys.path.remove(str(BENCH))
    tree = _tree(tmp_path)
    assert uncompiled(tree) == (2, 2)
    warning = recompile_warning([tree], writes_bytecode=False)
    assert warning is not None and "2 of 2 modules" in warning and "compileall" in warning
    assert recompile_warning([tree], writes_bytecode=True) is None
    assert compileall.compile_dir(tree / "viewer", quiet=1)
    assert uncompiled(tree) == (0, 2)
    assert recompile_warning([tree], writes_bytecode=False) is None


def test_run_warns_for_a_tree_without_bytecode(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    # no input files: run.py only prints its (empty) table
    out = _bench(str(BENCH / "run.py"), "--ops", "--tree", f"t={tree}", writes=False)
    assert out.returncode == 0, out.stderr
    assert f"modules under {tree / 'viewer'} have no current .pyc" in out.stderr
    out = _bench(str(BENCH / "run.py"), "--ops", "--tree", f"t={tree}", writes=True)
    assert out.returncode == 0 and "no current .pyc" not in out.stderr


def test_stages_warns_for_a_tree_without_bytecode(tmp_path: Path) -> None:
    tree = tmp_path / "checkout"
    tree.mkdir()
    # a real viewer package (the stages import it), copied without its bytecode
    subprocess.run(["cp", "-r", str(ROOT / "viewer"), str(tree)], check=True)
    subprocess.run(["find", str(tree), "-name", "__pycache__", "-prune", "-exec", "rm", "-rf",
                    "{}", "+"], check=True)
    vcon = ROOT / "tests" / "fixtures" / "report_small.vcon.json"
    out = _bench(str(BENCH / "stages.py"), str(vcon), f"--tree={tree}", writes=False)
    assert out.returncode == 0, out.stderr
    assert f"modules under {tree / 'viewer'} have no current .pyc" in out.stderr
    assert "| build_model (total) |" in out.stdout
