"""The JSON codec: values read exactly (``loads``), and JSON text of a value at any depth (the
fallback when orjson cannot write it).

orjson reads 1,024 levels of nesting but writes at most 254, and Python's ``json`` and ``repr``
recurse (a RecursionError near 1,000 levels). A vCon the loader accepts may hold a tool body
nested deeper than either writes, so every writer that must not fail (exports, the viewer's raw
view, the clipboard, an importer's output) falls back to this encoder: an explicit stack, no
recursion, the same JSON (compact, or indented by two spaces like ``orjson.OPT_INDENT_2``).
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from typing import Any, Final

import msgspec
import orjson

_encode_str = json.JSONEncoder(ensure_ascii=False).encode  # the C string encoder
_DECODE: Final = msgspec.json.Decoder().decode
_DEPTH: Final = 1000  # Python's default recursion limit


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """A JSON value read exactly as recorded: what ``orjson.loads`` reads and refuses (its
    errors, messages and depth limit are the answer), but an integer past 64 bits kept as it
    is (orjson makes a float of it: 2**70 + 1 would be shown as 1.1805916207174113e+21).

    orjson reads; only text that holds 19 digits in a row (the fewest an integer orjson cannot
    hold has: -2**63 - 1 is -9223372036854775809) is read again by msgspec, which keeps
    integers exact.
    It reads text orjson accepted, so no deeper than orjson reads (``orjson_depth`` keeps
    Python's recursion limit, which msgspec obeys on 3.11, at its default); should it refuse
    what orjson read (nesting near orjson's limit), orjson's value stands."""
    value = orjson.loads(data)
    if _long_digit_run(data):
        try:
            with orjson_depth():
                return _DECODE(data)
        except (msgspec.DecodeError, UnicodeEncodeError, RecursionError):
            pass
    return value


def loads_each(texts: Sequence[bytes | memoryview | msgspec.Raw],
               alone: Any) -> list[Any] | None:
    """What ``loads`` reads of each of ``texts``, read at once: the texts joined into one JSON
    array, read by one ``orjson.loads``, and the 19 digits looked for once in the joined text.
    A text that holds them (no run crosses the comma between two texts) is ``alone`` in the
    list: the caller reads it by ``loads`` where it would have read it on its own (msgspec's
    depth counts the caller's stack, so where a text is read may change what is exact).
    Each text must be one JSON value, as each element of an array that msgspec read
    (``msgspec.Raw``) is, so that the array has one element per text. None when orjson refuses
    the array (a text it refuses, or one nested as deep as it reads, one level short in the
    array): the caller reads each text by ``loads``, for its own value or error."""
    joined = b"[" + b",".join(texts) + b"]"
    try:
        values = orjson.loads(joined)
    except orjson.JSONDecodeError:
        return None
    if _long_digit_run(joined):
        for i, t in enumerate(texts):
            if _long_digit_run(t):
                values[i] = alone
    return values


def reader(texts: Iterable[str]) -> Callable[[str], Any]:
    """What reads each of ``texts`` as ``loads`` does: ``orjson.loads`` itself when none of
    them holds 19 digits in a row (``loads`` then returns orjson's value), else ``loads``. The
    texts are checked a few thousand at once, joined by a newline (no run crosses it), not one
    by one (nor all at once: the joined copies of a big batch would each be fresh memory)."""
    it = iter(texts)
    while batch := list(islice(it, _READER_BATCH)):
        if _long_digit_run("\n".join(batch)):
            return loads
    return orjson.loads


_READER_BATCH: Final = 4096


_TO_ZERO: Final = bytes.maketrans(b"123456789", b"000000000")
_RUN: Final = 19


def _long_digit_run(data: bytes | bytearray | memoryview | str) -> bool:
    """Whether ``data`` holds 19 ASCII digits in a row (one pass of translate, one find).

    Text is checked as its UTF-8 bytes (a lone surrogate too): an ASCII digit is one byte, and
    no byte of another character's encoding is one."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return bytes(data).translate(_TO_ZERO).find(b"0" * _RUN) >= 0


#: Held while a reader runs under a recursion limit of its own (``recursion_limit``): the limit
#: is one value for the whole process, so two readers on two threads must not set it at once.
LIMIT_LOCK: Final = threading.RLock()


@contextmanager
def recursion_limit(limit: int) -> Iterator[None]:
    """Within it, Python's recursion limit is ``limit``, and no other thread changes it through
    this function (``LIMIT_LOCK``) until it is put back."""
    with LIMIT_LOCK:
        before = sys.getrecursionlimit()
        if before == limit:
            yield
            return
        sys.setrecursionlimit(limit)
        try:
            yield
        finally:
            sys.setrecursionlimit(before)


@contextmanager
def orjson_depth() -> Iterator[None]:
    """Within it, msgspec reads no deeper than orjson (1,024 levels). msgspec nests as deep as
    Python's recursion limit lets it (with the limit raised far, past the C stack: a crash);
    so while it reads, the limit is at most Python's default, under which msgspec refuses
    (RecursionError) whatever orjson refuses, and a little more, which the caller then reads
    with orjson, for its one message. Raises RecursionError when the stack is already deeper
    than that."""
    with LIMIT_LOCK, recursion_limit(min(sys.getrecursionlimit(), _DEPTH)):
        yield


def depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (a scalar: 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = v.values()
        elif not isinstance(v, list):
            continue
        d += 1
        deepest = max(deepest, d)
        stack.extend((x, d) for x in v if isinstance(x, (dict, list)))
    return deepest


def _scalar(v: Any) -> str:
    if isinstance(v, str):
        return _encode_str(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):  # as orjson writes it (1e-7, not repr's 1e-07), null for NaN
        return orjson.dumps(float(v)).decode()
    return _encode_str(str(v))


def dumps_deep(value: Any, indent: bool = False) -> str:
    """JSON text of ``value``, however deep; ``indent``: two spaces per level."""
    out: list[str] = []
    w = out.append
    # Work items: ("v", value, level) writes a value; ("s", text) writes text as it is.
    stack: list[tuple[Any, ...]] = [("v", value, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        if item[0] == "s":
            w(item[1])
            continue
        _, v, level = item
        if isinstance(v, dict):
            if not v:
                w("{}")
                continue
            nl = "\n" + "  " * (level + 1) if indent else ""
            sep = ": " if indent else ":"
            w("{")
            push(("s", ("\n" + "  " * level if indent else "") + "}"))
            items = list(v.items())
            for i in range(len(items) - 1, -1, -1):
                k, x = items[i]
                push(("v", x, level + 1))
                push(("s", ("," if i else "") + nl + _encode_str(str(k)) + sep))
        elif isinstance(v, (list, tuple)):
            if not v:
                w("[]")
                continue
            nl = "\n" + "  " * (level + 1) if indent else ""
            w("[")
            push(("s", ("\n" + "  " * level if indent else "") + "]"))
            for i in range(len(v) - 1, -1, -1):
                push(("v", v[i], level + 1))
                push(("s", ("," if i else "") + nl))
        else:
            w(_scalar(v))
    return "".join(out)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: What orjson refuses to write that ``dumps_deep`` writes: nesting past 254 levels, a lone
#: surrogate, an integer past 64 bits (exact: a recording's 2**70 stays 2**70).
_NOT_WRITTEN = ("ecursion", "surrogate", "64-bit")


def dumps(value: Any, option: int | None = None) -> bytes:
    """``orjson.dumps(value, option=option)``; what orjson cannot write is written by
    ``dumps_deep`` (indented when ``option`` asks for it, with the trailing newline when asked):
    deeper than 254 levels, an integer past 64 bits, or a lone surrogate in a string (an
    importer's input may carry one: Python's json reads ``"\\ud800"``), written as U+FFFD so
    the output stays UTF-8."""
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError as exc:
        if not any(why in str(exc) for why in _NOT_WRITTEN):
            raise
    opt = option or 0
    text = dumps_deep(value, indent=bool(opt & orjson.OPT_INDENT_2))
    if opt & orjson.OPT_APPEND_NEWLINE:
        text += "\n"
    return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")
