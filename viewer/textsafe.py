"""Neutralise untrusted text from a vCon, visibly.

Everything inside a vCon is untrusted: tool output can carry terminal escapes (OSC 52 clipboard
writes, OSC 8 links, screen clears), bidi overrides that reorder what a reviewer reads, and
zero-width characters that hide text. One translate table turns each such character into a
visible escape (``\\x1b``, ``\\u202e``) so it can neither act nor hide. Console markup is a
separate matter: presenters build ``rich.text.Text`` from these strings, never markup.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Final

_BIDI_AND_INVISIBLE: Final = (
    0x00AD, 0x061C, 0x180E,
    *range(0x200B, 0x2010),  # zero-width space/joiners, LRM, RLM
    *range(0x2028, 0x202F),  # line/paragraph separators, LRE..RLO
    *range(0x2060, 0x2070),  # word joiner, invisible operators, LRI..PDI, deprecated
    0xFEFF, 0xFFF9, 0xFFFA, 0xFFFB,
)

#: Default_Ignorable_Code_Point, from the Unicode Character Database (DerivedCoreProperties.txt,
#: Unicode 15.1: https://www.unicode.org/Public/15.1.0/ucd/DerivedCoreProperties.txt), as
#: inclusive (first, last) ranges: characters a renderer may draw as nothing at all.
DEFAULT_IGNORABLE: Final = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),  # tags (used to smuggle text to models) and variation selectors
)
#: Not default-ignorable, yet drawn as a blank that reads as nothing in an identifier: the
#: Hangul fillers are in the list above; braille pattern blank, and the interlinear
#: annotation characters (invisible in most renderers).
BLANK_LOOKALIKES: Final = ((0x2800, 0x2800), (0xFFF9, 0xFFFB))

_IGNORABLE_AND_BLANK: Final = tuple(
    cp for lo, hi in (*DEFAULT_IGNORABLE, *BLANK_LOOKALIKES) for cp in range(lo, hi + 1))


def _escape(cp: int) -> str:
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


#: The one translate table: C0, DEL, C1, bidi controls, default-ignorable and blank-looking
#: characters.
UNSAFE_TABLE: Final[dict[int, str]] = {
    cp: _escape(cp)
    for cp in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *_BIDI_AND_INVISIBLE,
               *_IGNORABLE_AND_BLANK]
}
# A literal backslash is left as it is: escaping it would make ordinary Windows paths and JSON
# strings unreadable. The escapes are therefore visible, not reversible.

_BLOCK_TABLE: Final = {k: v for k, v in UNSAFE_TABLE.items() if k not in (0x0A, 0x09)}

def _ranges(cps: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for cp in sorted(set(cps)):
        if out and out[-1][1] == cp - 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


def _char_class(cps: list[int]) -> str:
    return "[" + "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                         for a, b in _ranges(cps)) + "]"


#: A regex character class of every character ``safe`` escapes: for the reports' one-pass
#: checks ("does this row need any escaping at all?"), so they test the same set.
UNSAFE_CLASS: Final = _char_class(list(UNSAFE_TABLE))
_UNSAFE_RE: Final = re.compile(UNSAFE_CLASS)
#: Characters that make an identifier read as another: every escaped one but the controls that
#: orjson and the validators already report.
_SUSPICIOUS_RE: Final = re.compile(_char_class([c for c in UNSAFE_TABLE]))


def _holds_none(s: str, ascii_chars: bytes, pattern: re.Pattern[str]) -> bool:
    """True when ``s`` holds none of the characters of a table: ``ascii_chars`` (its ASCII
    members) and ``pattern`` (a class of all of them). ASCII text (most recorded values) is
    checked as bytes: deleting those characters leaves it whole exactly when it has none,
    several times faster than the regex, which the rest of Unicode goes through. A long ASCII
    text (the reports check values joined by the hundred) is searched for each of those
    characters instead (one C scan each, no copy)."""
    if s.isascii():
        if len(s) > _LONG:
            return not any(map(s.__contains__, _ASCII_CHARS[ascii_chars]))
        b = s.encode("ascii")
        return len(b.translate(None, ascii_chars)) == len(b)
    return pattern.search(s) is None


_ASCII_UNSAFE: Final = bytes(cp for cp in UNSAFE_TABLE if cp < 0x80)
_ASCII_BLOCK_UNSAFE: Final = bytes(cp for cp in _BLOCK_TABLE if cp < 0x80)
#: Each table's ASCII members as one-character strings (``_holds_none`` on long text).
_ASCII_CHARS: Final = {chars: tuple(map(chr, chars))
                       for chars in (_ASCII_UNSAFE, _ASCII_BLOCK_UNSAFE)}
#: From this length on, ASCII text is searched character by character of the table: the
#: scans then cost less than the copy and the translate.
_LONG: Final = 4096
_BLOCK_UNSAFE_RE: Final = re.compile(_char_class(list(_BLOCK_TABLE)))


def is_safe(s: str) -> bool:
    """True when ``s`` holds no character that ``safe`` would escape."""
    return _holds_none(s, _ASCII_UNSAFE, _UNSAFE_RE)


def is_block_safe(s: str) -> bool:
    """True when ``s`` holds no character that ``safe_block`` would escape."""
    return _holds_none(s, _ASCII_BLOCK_UNSAFE, _BLOCK_UNSAFE_RE)


def safe(value: Any) -> str:
    """One line of untrusted text: every control, bidi and invisible character escaped.

    Non-strings are shown with ``repr``-like JSON text, so a wrong-typed value is visible too.
    """
    if value is None:
        return ""
    if not isinstance(value, str):
        value = _to_text(value)
    if is_safe(value):
        return value
    return value.translate(UNSAFE_TABLE)


#: How much of a recorded identifier a message quotes: the exact value is in its own field of
#: the summary JSON; a message repeats it once per finding, and escaping multiplies it (one
#: long id of bidi characters would make the summary JSON many times the size of the file).
QUOTE_CHARS: Final = 200


def safe_short(value: Any, limit: int = QUOTE_CHARS) -> str:
    """``safe(value)`` cut to ``limit`` characters, saying how long the whole is."""
    if isinstance(value, str) and len(value) > limit:
        return safe(value[:limit]) + f"…({len(value)} characters)"
    text = safe(value)
    return text if len(text) <= limit else text[:limit] + f"…({len(text)} characters)"


def safe_block(value: Any) -> str:
    """Multi-line untrusted text: newlines and tabs kept, everything else as in ``safe``."""
    if value is None:
        return ""
    if not isinstance(value, str):
        value = _to_text(value)
    if is_block_safe(value):
        return value  # (pretty JSON has line breaks: no translate pass for those alone)
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
_JSON_UNSAFE_RE: Final = re.compile(_char_class([c for c in UNSAFE_TABLE if c >= 0x7F]))


def _utf8_alternation(cps: list[int]) -> bytes:
    """A bytes pattern matching the UTF-8 of any of ``cps``: one alternative per lead-byte
    prefix with a class for the last byte (a few dozen alternatives, not thousands)."""
    by_prefix: dict[bytes, list[int]] = {}
    for cp in sorted(cps):
        b = chr(cp).encode()
        by_prefix.setdefault(b[:-1], []).append(b[-1])
    alts = []
    for prefix, lasts in by_prefix.items():
        cls = b"".join(re.escape(bytes([a])) if a == z else re.escape(bytes([a])) + b"-"
                       + re.escape(bytes([z])) for a, z in _ranges(lasts))
        alts.append(re.escape(prefix) + b"[" + cls + b"]")
    return b"|".join(alts)


@cache
def _json_unsafe_bytes_re() -> re.Pattern[bytes]:
    """Compiled when a JSON document first holds a non-ASCII character (most never do): a
    few milliseconds less at every start, the viewer's among them."""
    return re.compile(_utf8_alternation([c for c in UNSAFE_TABLE if c >= 0x7F]))


def _json_escape(cp: int) -> str:
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    cp -= 0x10000  # a surrogate pair: what JSON readers decode back to the character
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"


def json_escape_unsafe_bytes(raw: bytes) -> bytes:
    """``json_escape_unsafe`` on UTF-8 bytes, without decoding the document (no str copy)."""
    return _json_unsafe_bytes_re().sub(
        lambda m: _json_escape(ord(m.group().decode())).encode(), raw)


def json_escape_unsafe(text: str) -> str:
    """Escape the characters orjson leaves raw, in already-serialised JSON text."""
    if text.isascii() and "\x7f" not in text:  # DEL is the one ASCII character it escapes
        return text
    return _JSON_UNSAFE_RE.sub(lambda m: _json_escape(ord(m.group())), text)


def suspicious_char(value: object) -> str | None:
    """The first control, bidi, default-ignorable or blank-looking character of a string
    (``U+3164`` form), or None: an identifier carrying one reads as another."""
    if not isinstance(value, str):
        return None
    m = _SUSPICIOUS_RE.search(value)
    return None if m is None else f"U+{ord(m.group()):04X}"
