"""Comments say the rule in the project's own words, or point at the README: never at a
document outside the repository, and never with a figure measured once (figures go in the
README's Performance section and in commit messages, where their date and machine are)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Rewritten on the engine's branch (issue 16); joins the check when that lands.
PENDING: tuple[str, ...] = ()
OUTSIDE_DOCUMENT = re.compile(r"\bINTERPRETATION\b")
#: A measured figure: the word, an approximate number, a size, a sub-second or fractional
#: time, or a ratio (not a hex prefix, not "5 × 10ⁿ"). Quoted examples of a format are not.
FIGURE = re.compile(
    r"\bmeasured\b|~\s?\d|\b\d+(?:[.,]\d+)?\s?(?:MB|MiB|GB|GiB|KiB)\b"
    r"|\b\d+(?:\.\d+)?\s?(?:ms|us|µs)\b|\b\d+\.\d+\s?s\b"
    r"|\b(?!0x)\d+(?:\.\d+)?\s?[x×](?!\w|\s\d)")
QUOTED = re.compile(r"``.*?``|`[^`\n]*`|'[^'\n]*'|\"[^\"\n]*\"", re.S)


def _sources(*folders: str) -> list[Path]:
    return [p for f in folders for p in sorted((ROOT / f).rglob("*.py"))
            if not str(p.relative_to(ROOT)).startswith(PENDING)
            and p.name != Path(__file__).name]


def _comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    out = [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
           if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc and node.body:
                out.append((node.body[0].lineno, doc))
    return out


def test_no_comment_cites_a_document_outside_the_repository() -> None:
    hits = [f"{p.relative_to(ROOT)}:{line}"
            for p in _sources("viewer", "bench", "tests")
            for line, text in _comments_and_docstrings(p) if OUTSIDE_DOCUMENT.search(text)]
    readme = ROOT / "README.md"
    hits += [f"README.md:{i}" for i, line in enumerate(readme.read_text().splitlines(), 1)
             if OUTSIDE_DOCUMENT.search(line)]
    assert hits == []


def test_no_measured_figure_in_the_code_comments() -> None:
    hits = [f"{p.relative_to(ROOT)}:{line}: {m.group(0)!r}"
            for p in _sources("viewer")
            for line, text in _comments_and_docstrings(p)
            for m in [FIGURE.search(QUOTED.sub("", text))] if m]
    assert hits == []


def test_the_figure_rule_catches_figures_and_not_words() -> None:
    assert FIGURE.search("takes ~3x longer") and FIGURE.search("1.55 s vs 0.46 s")
    assert FIGURE.search("a 200 MB body") and FIGURE.search("(measured here)")
    assert FIGURE.search("tripled: 3× the time") and FIGURE.search("Rich draws ~2 ms a row")
    assert not FIGURE.search("hex (with or without 0x), steps of 1, 2, 5 × 10ⁿ (50 s, 1 m)")
    assert not FIGURE.search("attempt 2 of op-1; its first 400 operations")
    assert not FIGURE.search(QUOTED.sub("", "A gap in words: '250 ms', ``+0.25s``"))
