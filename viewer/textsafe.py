"""Neutralise untrusted text from a vCon, visibly.

Everything inside a vCon is untrusted: tool output can carry terminal escapes (OSC 52 clipboard
writes, OSC 8 links, screen clears), bidi overrides that reorder what a reviewer reads, and
zero-width characters that hide text. One translate table turns each such character into a
visible escape (``\\x1b``, ``\\u202e``) so it can neither act nor hide. Console markup is a
separate matter: presenters build ``rich.text.Text`` from these strings, never markup.
"""

from __future__ import annotations

import re
from typing import Any, Final

_BIDI_AND_INVISIBLE: Final = (
    0x00AD, 0x061C, 0x180E,
    *range(0x200B, 0x2010),  # zero-width space/joiners, LRM, RLM
    *range(0x2028, 0x202F),  # line/paragraph separators, LRE..RLO
    *range(0x2060, 0x2070),  # word joiner, invisible operators, LRI..PDI, deprecated
    0xFEFF, 0xFFF9, 0xFFFA, 0xFFFB,
)


def _escape(cp: int) -> str:
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}"


#: The one translate table: C0, DEL, C1, bidi controls and invisible characters.
UNSAFE_TABLE: Final[dict[int, str]] = {
    cp: _escape(cp)
    for cp in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *_BIDI_AND_INVISIBLE]
}
# A literal backslash is left as it is: escaping it would make ordinary Windows paths and JSON
# strings unreadable. The escapes are therefore visible, not reversible.

_BLOCK_TABLE: Final = {k: v for k, v in UNSAFE_TABLE.items() if k not in (0x0A, 0x09)}

_UNSAFE_RE: Final = re.compile("[" + "".join(re.escape(chr(c)) for c in UNSAFE_TABLE) + "]")


def is_safe(s: str) -> bool:
    """True when ``s`` holds no character that ``safe`` would escape."""
    return _UNSAFE_RE.search(s) is None


def safe(value: Any) -> str:
    """One line of untrusted text: every control, bidi and invisible character escaped.

    Non-strings are shown with ``repr``-like JSON text, so a wrong-typed value is visible too.
    """
    if value is None:
        return ""
    if not isinstance(value, str):
        value = _to_text(value)
    if _UNSAFE_RE.search(value) is None:
        return value
    return value.translate(UNSAFE_TABLE)


def safe_block(value: Any) -> str:
    """Multi-line untrusted text: newlines and tabs kept, everything else as in ``safe``."""
    if value is None:
        return ""
    if not isinstance(value, str):
        value = _to_text(value)
    if _UNSAFE_RE.search(value) is None:
        return value
    return value.translate(_BLOCK_TABLE)


def _to_text(value: Any) -> str:
    import orjson

    try:
        return orjson.dumps(value).decode()
    except TypeError:  # deeper than orjson writes (254 levels), or not a JSON value
        from viewer.jsonenc import dumps_deep

        return dumps_deep(value)


# JSON output keeps values exact but must not carry raw C1, bidi or invisible characters
# (orjson escapes C0 but writes the others as UTF-8): escape them as \uXXXX, which JSON
# readers decode back to the same value.
_JSON_UNSAFE_RE: Final = re.compile(
    "[" + "".join(re.escape(chr(c)) for c in UNSAFE_TABLE if c >= 0x7F) + "]"
)


_JSON_UNSAFE_BYTES_RE: Final = re.compile(
    b"|".join(re.escape(chr(c).encode()) for c in sorted(UNSAFE_TABLE) if c >= 0x7F)
)


def json_escape_unsafe_bytes(raw: bytes) -> bytes:
    """``json_escape_unsafe`` on UTF-8 bytes, without decoding the document (no str copy)."""
    return _JSON_UNSAFE_BYTES_RE.sub(lambda m: b"\\u%04x" % ord(m.group().decode()), raw)


def json_escape_unsafe(text: str) -> str:
    """Escape the characters orjson leaves raw, in already-serialised JSON text."""
    return _JSON_UNSAFE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
