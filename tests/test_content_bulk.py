"""``content.one_lines`` and ``content.texts`` (a report's quotes laid out in runs) give what
each quote's ``one_line()`` and ``text`` give one by one, whatever the values hold."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.content import decode_text, one_lines, texts

_TEXT = st.text(alphabet=st.sampled_from(
    ["a", " ", "\n", "\r", "\t", "\0", "\x1b", "\x7f", "\x85", "\u202e", "\u200b", "é", "→",
     "\U000e0041", '"', "\\", "<", "&", "{", "⏎"]), max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**64) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12)
_CONTENT = st.one_of(
    st.builds(lambda v: {"body": v, "encoding": "json", "mediatype": "application/json"},
              _JSON),
    st.builds(lambda t: {"body": t, "encoding": "none", "mediatype": "text/plain"}, _TEXT),
    st.just({"url": "https://x.example/\u202e", "content_hash": "sha512-x"}),
    st.just({}),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_CONTENT, max_size=300))
def test_runs_are_each_value(contents: list[dict]) -> None:
    assert one_lines([decode_text(c) for c in contents]) == \
        [decode_text(c).one_line() for c in contents]
    assert texts([decode_text(c) for c in contents]) == [decode_text(c).text for c in contents]


def test_a_run_longer_than_one() -> None:
    safe = [{"body": {"k": i}, "encoding": "json", "mediatype": "application/json"}
            for i in range(600)]
    hostile = [*safe[:300], {"body": {"k": "\u202e\n\0"}, "encoding": "json",
                             "mediatype": "application/json"}, *safe[300:]]
    for contents in (safe, hostile):
        assert one_lines([decode_text(c) for c in contents]) == \
            [decode_text(c).one_line() for c in contents]
        assert texts([decode_text(c) for c in contents]) == \
            [decode_text(c).text for c in contents]
