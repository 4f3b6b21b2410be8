"""The reports' fast paths give exactly what the per-value rules they stand for give.

``textsafe.is_safe``/``safe`` (an ASCII path), ``csv.cells`` (one check per row),
``markdown.backslash`` (str.replace per character) and ``evidence.each_once`` (a memo per
distinct value) are checked here against the rules' definitions on arbitrary text: control,
bidi, default-ignorable and blank-looking characters, Markdown and formula characters, and any
other (surrogate-free) Unicode.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.report.csv import RUN, cell, cells, column, csv_rows
from viewer.report.evidence import each_once, per_key, rfc3339_column
from viewer.report.html import CELL_CHARS, h, h_each, hblock, hblock_each
from viewer.report.markdown import (
    MD_CHARS,
    MD_SPECIAL,
    backslash,
    inert,
    md,
    md_column,
    md_each,
)
from viewer.report.summary import rfc3339
from viewer.textsafe import UNSAFE_TABLE, is_safe, json_escape_unsafe, safe, safe_block

#: Characters some rule treats specially, so that examples reach every branch.
_TRICKY = sorted({*map(chr, UNSAFE_TABLE), *MD_SPECIAL, *"=+-@ :/.wW'\"&<>\n\t\r", "é", "日",
                  "\U0001f600", "\u00a0", "\u2800"})
_CHARS = st.one_of(st.sampled_from(_TRICKY), st.characters(blacklist_categories=("Cs",)))
TEXT = st.text(alphabet=_CHARS, max_size=80)
#: ``limit`` None in ``md_each``/``h_each``: each value escaped whole, never cut (its escapes,
#: six characters for a bidi control, may make it longer than the value).
WHOLE = sys.maxsize
ASCII = st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=80)
#: Recorded values as the reports meet them: strings (often repeated), None, numbers, bools.
VALUE = st.one_of(TEXT, ASCII, st.sampled_from(["allowed", "=1+1", "-3", "", "a =b", "www.x"]),
                  st.none(), st.integers(-5, 5), st.booleans(), st.floats(allow_nan=False),
                  st.lists(st.integers(), max_size=2))


def _is_safe_by_definition(s: str) -> bool:
    return not any(ord(c) in UNSAFE_TABLE for c in s)


@settings(max_examples=400, deadline=None)
@given(st.one_of(TEXT, ASCII))
def test_is_safe_and_safe_follow_the_table(s: str) -> None:
    assert is_safe(s) == _is_safe_by_definition(s)
    assert safe(s) == "".join(UNSAFE_TABLE.get(ord(c), c) for c in s)


def _json_escape_by_definition(c: str) -> str:
    cp = ord(c)
    if cp < 0x7F or cp not in UNSAFE_TABLE:
        return c
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    hi, lo = divmod(cp - 0x10000, 0x400)
    return f"\\u{0xD800 + hi:04x}\\u{0xDC00 + lo:04x}"


@settings(max_examples=400, deadline=None)
@given(st.one_of(TEXT, ASCII))
def test_safe_block_and_json_escape_follow_the_table(s: str) -> None:
    assert safe_block(s) == "".join(c if c in "\n\t" else UNSAFE_TABLE.get(ord(c), c) for c in s)
    assert json_escape_unsafe(s) == "".join(map(_json_escape_by_definition, s))


@pytest.mark.parametrize("cp", range(0x80))
def test_is_safe_on_every_ascii_character(cp: int) -> None:
    s = f"a{chr(cp)}b"
    assert is_safe(s) == (cp not in UNSAFE_TABLE)
    assert (safe_block(s) == s) == (cp not in UNSAFE_TABLE or chr(cp) in "\n\t")
    assert (json_escape_unsafe(s) == s) == (cp != 0x7F)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_backslash_escapes_exactly_the_markdown_characters(s: str) -> None:
    assert backslash(s) == "".join("\\" + c if c in MD_SPECIAL else c for c in s)


@settings(max_examples=400, deadline=None)
@given(st.lists(VALUE, max_size=26))
def test_csv_cells_of_a_row_are_cell_of_each_value(values: list[object]) -> None:
    assert cells(values) == [cell(v) for v in values]


@pytest.mark.parametrize("row", [
    ["a", "=1+1"], ["a b", "-x"], ["a =b", "c"], ["@x"], ["x\ny", "z"], ["", "+"], [],
    ["ok", None, 3, True, "\u202eevil"], ["x", -1], [" -", "y"],
])
def test_csv_cells_examples(row: list[object]) -> None:
    assert cells(row) == [cell(v) for v in row]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(VALUE, st.sampled_from([1, True, 1.0, "1", "true", 0, False])),
                max_size=40))
def test_each_once_is_the_rule_per_value(values: list[object]) -> None:
    for rule in (md, h, cell):
        once = each_once(rule)
        # twice over: the second pass reads the memo
        assert [once(v) for v in values + values] == [rule(v) for v in values + values]


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 5).flatmap(lambda n: st.lists(
    st.lists(st.one_of(VALUE, st.sampled_from(['a,b', '"q"', "", " ", ",", '""'])),
             min_size=n, max_size=n), max_size=12)))
def test_csv_rows_are_what_the_csv_module_writes(rows: list[list[object]]) -> None:
    import csv
    import io

    table = [[cell(v) for v in row] for row in rows]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(table)
    columns = [list(c) for c in zip(*table, strict=True)]
    assert csv_rows(columns) == buf.getvalue()
    assert [column(c) for c in zip(*rows, strict=True)] == columns


@pytest.mark.parametrize("bad", [None, "=cmd", "\u202ex", "a\nb", 7])
def test_csv_column_longer_than_a_run(bad: object) -> None:
    values: list[object] = [f"v{i}" for i in range(3 * RUN + 5)]
    values[2 * RUN + 1] = bad
    assert column(values) == [cell(v) for v in values]


@settings(max_examples=400, deadline=None)
@given(st.one_of(TEXT, ASCII, st.sampled_from(["a://b", "WwW.x", "x@y.z", "op-1", "a_b"])))
def test_inert_text_is_its_own_markdown(s: str) -> None:
    if inert(s) and len(s) <= MD_CHARS:
        assert md(s) == s


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(VALUE, st.sampled_from(["ok", "W", "ww", "w", ":/", "/", "@"])),
                max_size=30))
def test_md_column_is_md_of_each_value(values: list[object]) -> None:
    assert md_column(values, md) == [md(v) for v in values]
    assert md_column(values, each_once(md)) == [md(v) for v in values]


@pytest.mark.parametrize("bad", [None, "a_b", "\u202ex", "x" * (MD_CHARS + 1), "http://x", 7])
def test_md_column_longer_than_a_run(bad: object) -> None:
    from viewer.report.markdown import RUN as MD_RUN

    values: list[object] = [f"v{i}" for i in range(3 * MD_RUN + 5)]
    values[2 * MD_RUN + 1] = bad
    assert md_column(values, md) == [md(v) for v in values]


_TZS = st.sampled_from([UTC, timezone(timedelta(0)), timezone(timedelta(hours=-5)),
                        timezone(timedelta(hours=1, seconds=30)), None])
#: Times as the model has them (UTC, milliseconds) and any other: whole seconds, whole
#: milliseconds, microseconds, other offsets, naive, None.
TIME = st.one_of(
    st.none(),
    st.builds(lambda d, us: d.replace(microsecond=us),
              st.datetimes(timezones=_TZS),
              st.sampled_from([0, 1000, 100000, 500000, 999000, 1, 123456, 777000, 10])),
    st.datetimes(timezones=_TZS))


#: UTC times only (and None): the runs ``rfc3339_column`` writes in bulk.
UTC_TIME = st.one_of(st.none(), st.builds(
    lambda d, us: d.replace(microsecond=us), st.datetimes(timezones=st.just(UTC)),
    st.sampled_from([0, 1000, 100000, 500000, 999000, 1, 123456, 777000, 10])))


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(TIME, max_size=30), st.lists(UTC_TIME, max_size=30)))
def test_rfc3339_column_is_rfc3339_of_each_time(times: list[datetime | None]) -> None:
    assert rfc3339_column(times) == [rfc3339(t) for t in times]


@pytest.mark.parametrize("bad", [None, datetime(2026, 1, 1, 8, tzinfo=timezone(timedelta(hours=2))),
                                 datetime(2026, 1, 1, 8), datetime(2000, 1, 1, microsecond=5000)])
def test_rfc3339_column_longer_than_a_run(bad: datetime | None) -> None:
    from viewer.report.evidence import RUN as TIME_RUN

    times: list[datetime | None] = [
        datetime(2026, 4, 2, 9, 0, i % 60, (i * 1000) % 1000000 if i % 3 else 0, tzinfo=UTC)
        for i in range(3 * TIME_RUN + 5)]
    times[2 * TIME_RUN + 1] = bad
    assert rfc3339_column(times) == [rfc3339(t) for t in times]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(TEXT, ASCII, st.sampled_from(
    ["a://b", "WwW.x", "x@y.z", "op-1", "a_b", "www", ".www.x", "a@", "@b.c", "x:", "//", ""])),
    max_size=30), st.sampled_from([None, 0, 5, 40, MD_CHARS]))
def test_md_each_is_md_of_each_text(texts: list[str], limit: int | None) -> None:
    assert md_each(texts, limit) == [md(t, WHOLE if limit is None else limit)
                                     for t in texts]


@pytest.mark.parametrize("bad", ["a_b", "\u202ex", "x" * (MD_CHARS + 1), "http://x", "a\nb",
                                 "", "x@y.z www.a"])
@pytest.mark.parametrize("limit", [None, MD_CHARS])
def test_md_each_longer_than_a_run(bad: str, limit: int | None) -> None:
    from viewer.report.markdown import RUN as MD_RUN

    texts = [f"v{i} {{}}" if i % 7 else f"www.v{i}.example" for i in range(3 * MD_RUN + 5)]
    texts[2 * MD_RUN + 1] = bad
    assert md_each(texts, limit) == [md(t, WHOLE if limit is None else limit)
                                     for t in texts]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(TEXT, ASCII, st.sampled_from(["<a>", "&amp;", "'\"", "", "\x00"])),
                max_size=30), st.sampled_from([None, 0, 5, 40, CELL_CHARS]))
def test_h_each_is_h_of_each_text(texts: list[str], limit: int | None) -> None:
    assert h_each(texts, limit) == [h(t, WHOLE if limit is None else limit)
                                    for t in texts]
    assert hblock_each(texts) == [hblock(t) for t in texts]


@pytest.mark.parametrize("bad", ["<b>", "\u202ex", "x" * (CELL_CHARS + 1), "a\nb", "", "\x00",
                                 "a\tb\r\n"])
@pytest.mark.parametrize("limit", [None, CELL_CHARS])
def test_h_each_longer_than_a_run(bad: str, limit: int | None) -> None:
    from viewer.report.html import RUN as HTML_RUN

    texts = [f"v{i} & <{i}>" if i % 7 else f'"{i}"' for i in range(3 * HTML_RUN + 5)]
    texts[2 * HTML_RUN + 1] = bad
    assert h_each(texts, limit) == [h(t, WHOLE if limit is None else limit)
                                    for t in texts]
    assert hblock_each(texts) == [hblock(t) for t in texts]


_ATOM = st.one_of(st.none(), st.sampled_from(["a", "b", "1", "True", ""]), st.integers(0, 2),
                  st.booleans(), st.sampled_from([1.0, 0.0]))
KEY = st.one_of(st.tuples(_ATOM, _ATOM), st.tuples(_ATOM), st.frozensets(_ATOM, max_size=3),
                st.lists(_ATOM, max_size=2))


@settings(max_examples=300, deadline=None)
@given(st.lists(KEY, max_size=40))
def test_per_key_is_make_of_each_key(keys: list[object]) -> None:
    def make(key: object) -> str:  # tells True from 1 and 1.0, and a list from a tuple
        if isinstance(key, frozenset):
            return "frozenset" + repr(sorted(key, key=repr))
        return repr(key)

    assert per_key(keys + keys, make) == [make(k) for k in keys + keys]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(st.one_of(st.none(), st.integers(-3, 10**6))),
                 st.lists(st.one_of(st.none(), TEXT, st.sampled_from(["=1", "a", "-"]))),
                 st.lists(st.booleans()), st.lists(st.integers(-2, 3)),
                 st.lists(st.one_of(st.booleans(), st.none())),
                 st.lists(st.one_of(st.booleans(), st.integers(0, 2), st.none()))))
def test_csv_cells_of_one_kind_are_cell_of_each_value(values: list[object]) -> None:
    assert cells(values) == [cell(v) for v in values]
    assert column(values) == [cell(v) for v in values]
    long = values * (RUN // max(len(values), 1) + 2)  # past one run: checked whole, then runs
    assert column(long) == [cell(v) for v in long]
    assert column(values * 30) == [cell(v) for v in values * 30]
