"""The layers hold: file -> load -> (lift/import) -> model -> tui|report, and no arrow runs up.

Two checks. Statically, every ``import`` statement in a layer's source (a lazy one inside a
function too) is read and resolved. At run time, a fresh interpreter imports the layer, builds a
model of a vCon that has to be lifted (and renders every export format), and the modules it
ended up with are listed: an import hidden behind ``__import__`` or a plugin would show there.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VIEWER = ROOT / "viewer"
FIX = Path(__file__).parent / "fixtures"

#: What each layer must not import (a package stands for its submodules).
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "viewer.model": ("viewer.report", "viewer.tui", "viewer.importers", "viewer.load",
                     "viewer.pipeline", "viewer.cli", "viewer.fleet", "textual", "rich"),
    "viewer.report": ("viewer.tui", "viewer.cli", "textual"),
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every module an ``import`` in ``path`` names, relative imports resolved."""
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # `from viewer import tui`
    return out


def _under(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_imports_of_resolves_relative_and_lazy_imports(tmp_path: Path) -> None:
    src = VIEWER / "model" / "build.py"
    names = imports_of(src)
    assert "viewer.model.spec" in names and "viewer.textsafe" in names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_import_statement_runs_up(layer: str) -> None:
    folder = ROOT.joinpath(*layer.split("."))
    bad = sorted(
        f"{p.relative_to(ROOT)} imports {name}"
        for p in folder.rglob("*.py")
        for name in imports_of(p)
        if _under(name, FORBIDDEN[layer]))
    assert bad == [], f"{layer} reaches above itself:\n" + "\n".join(bad)


_PROBE = r"""
import json, pkgutil, importlib, sys
layer, forbidden, vcon_path = sys.argv[1], tuple(sys.argv[2].split(",")), sys.argv[3]
pkg = importlib.import_module(layer)
for info in pkgutil.walk_packages(pkg.__path__, layer + "."):
    importlib.import_module(info.name)
from viewer.model.build import build_model, build_stages, complete_checks
from viewer.model.types import Source
import orjson
vcon = orjson.loads(open(vcon_path, "rb").read())

class Given:  # what the pipeline hands the model: a loaded (and lifted) vCon
    def __init__(self, vcon):
        self.vcon, self.diagnostics = vcon, ()
        self.source = Source("f", "0" * 64, 1, "unsigned", False, None, (), (), (), False)

model = build_model(Given(vcon))
*_, last = build_stages(Given(vcon), first=1)
complete_checks(last)
if layer == "viewer.report":
    from viewer.report.formats import FORMATS, ReportOptions, as_bytes
    for fmt in FORMATS.values():
        as_bytes(fmt.render(model, ReportOptions(time=None)))
seen = sorted(m for m in sys.modules
              if any(m == p or m.startswith(p + ".") for p in forbidden))
print(json.dumps(seen))
"""


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
@pytest.mark.parametrize("fixture", ["import_proxy.vcon.json", "report_small.vcon.json"])
def test_a_fresh_interpreter_never_loads_a_layer_above(layer: str, fixture: str) -> None:
    """A pre-draft vCon (its operations lifted by the pipeline, not the model) and a draft
    vCon: building and reporting leave no module of a layer above in ``sys.modules``."""
    path = FIX / fixture
    if not path.exists():
        pytest.skip(f"{fixture} missing")
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, layer, ",".join(FORBIDDEN[layer]), str(path)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
        env={"SOURCE_DATE_EPOCH": "0", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout) == []


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_module(dotted: str) -> bool:
    where = VIEWER.parent.joinpath(*dotted.split("."))
    return where.is_dir() or where.with_suffix(".py").exists()


def _reaches(path: Path) -> list[str]:
    """Where the test module ``path`` reaches a private name of a viewer module: imported
    (``from viewer.x import _y``), read off a module name it bound (``x._y``, ``viewer.x._y``),
    or patched by its dotted name (``monkeypatch.setattr("viewer.x._y", ...)``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()  # names bound to a viewer module
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update((a.asname or a.name.split(".")[0]) for a in node.names
                           if a.name.split(".")[0] == "viewer")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "viewer":
            for a in node.names:
                if _private(a.name):
                    out.append(f"{path.name}:{node.lineno} imports {node.module}.{a.name}")
                elif _is_module(f"{node.module}.{a.name}"):
                    modules.add(a.asname or a.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in modules:
                out.append(f"{path.name}:{node.lineno} reads {ast.unparse(node)}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                node.value.startswith("viewer.") and any(
                    _private(part) for part in node.value.split(".")):
            out.append(f"{path.name}:{node.lineno} names {node.value}")
    return out


def test_no_test_reaches_a_private_name_of_a_viewer_module() -> None:
    """Tests go through what a module offers (issue 16): a test that reads ``_helper`` of
    another module holds that module to its insides, and tends to prove two copies agree."""
    tests = Path(__file__).parent
    found = [hit for p in sorted(tests.glob("*.py")) for hit in _reaches(p)]
    assert not found, found


def test_the_private_name_check_finds_each_way_in(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from viewer.model.build import _Shapes\n"
        "from viewer.model import build\n"
        "import viewer.load\n"
        "build._operation\n"
        "viewer.load._typed\n"
        "patch = 'viewer.load._typed'\n"
        "build.build_model\n", encoding="utf-8")
    hits = _reaches(probe)
    assert [h.split(" ", 1)[1] for h in hits] == [
        "imports viewer.model.build._Shapes", "reads build._operation",
        "reads viewer.load._typed", "names viewer.load._typed"], hits
