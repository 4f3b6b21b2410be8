"""The draft's applicability columns as msgspec Structs: which events need ``check_event``.

Each column of ``spec.py``'s tables becomes one Struct type at import, tagged by the event's
``type``: an M or S cell a required field, an O cell an optional one (null allowed: it means
absent), an X cell a field that must be absent; value sets are Literals, indices unsigned. One
``msgspec.convert`` checks every event against its column in C. The policy-decision Struct holds
the cells its two columns (once, standing) agree on; the cells they differ on, and what no Struct
field can say (an index against the vCon's parties, sessions and attachments; content members
that come together), are checked after, column by column. An event that passes has nothing for
``check_event`` to say; every other one goes through it, which says what is off. So the rules
are stated once (the tables), and the full check is paid only for events that may be broken.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from operator import attrgetter
from typing import Annotated, Any, Final, Literal, Union

import msgspec
from msgspec import UNSET, Meta, UnsetType

from viewer.model import spec

_MAX_UINT: Final = 2**53 - 1  # JMAP UnsignedInt upper bound
UInt = Annotated[int, Meta(ge=0, le=_MAX_UINT)]
#: Each parameter's value type in a clean event.
VALUE_TYPES: Final[dict[str, Any]] = {
    "sessions": UInt,  # one index: an array, or the legacy "session", takes the full check
    "party": UInt,
    "operation_id": Annotated[str, Meta(min_length=1)],
    "attempt": Annotated[int, Meta(ge=1, le=_MAX_UINT)],
    "server": str,  # "!" starts only the host's name: a column check (a pattern costs more)
    "tool": str,
    "decision": Literal[spec.DECISIONS],  # type: ignore[valid-type]
    "policy_life": Literal[spec.POLICY_LIVES],  # type: ignore[valid-type]
    "operation": Literal[spec.OPERATIONS],  # type: ignore[valid-type]
    "reason": str,
    "attachment": UInt,
    # content: inline JSON only (other encodings and external content take the full check)
    "body": Any,  # not null: a column check (the union of every JSON type costs more)
    "encoding": Literal["json"],
    "mediatype": str,  # type/subtype: a column check
}
#: Members a clean event never has: external content, and the core's legacy "session".
ALWAYS_ABSENT: Final = ("url", "content_hash", "session")
_NOT_FIELDS: Final = frozenset({"type", "time"})  # the tag, and the builder's
CONTENT_FIELDS: Final = ("body", "encoding", "mediatype")


def fields_of(column: dict[str, spec.Cell]) -> dict[str, spec.Cell]:
    """The Struct fields of a column, each with the cell it stands for: ``content`` is its
    three inline members; ``sessions`` is required unless forbidden (a clean event names its
    session: a missing one is an error or a warning)."""
    out: dict[str, spec.Cell] = {}
    for param, cell in column.items():
        if param in _NOT_FIELDS:
            continue
        if param == "content":
            out.update(dict.fromkeys(CONTENT_FIELDS, cell))
        elif param == "sessions":
            out[param] = "X" if cell == "X" else "M"
        else:
            out[param] = cell
    out.update(dict.fromkeys(ALWAYS_ABSENT, "X"))
    return out


def _field(name: str, cell: spec.Cell) -> tuple[str, Any, Any]:
    if cell == "X":
        return (name, UnsetType, UNSET)
    if cell in ("M", "S"):  # S: a missing one is a warning, so clean means present
        return (name, VALUE_TYPES[name], msgspec.NODEFAULT)
    return (name, VALUE_TYPES[name] | None | UnsetType, UNSET)  # "O"


def _struct(tag: str, column: dict[str, spec.Cell]) -> type[msgspec.Struct]:
    fields = [_field(name, cell) for name, cell in fields_of(column).items()]
    return msgspec.defstruct(tag.title().replace("-", ""), fields, kw_only=True, tag=tag,
                             tag_field="type")


def _agreed(a: dict[str, spec.Cell], b: dict[str, spec.Cell]) -> dict[str, spec.Cell]:
    """The cells on which two columns agree; where they differ, O (checked after)."""
    return {p: (c if b.get(p) == c else "O") for p, c in a.items()}


_LIVES: Final = spec.POLICY_DECISION_PARAMS
#: The cells of a policy-decision checked after the convert: life -> {field: M or X}.
LIFE_CELLS: Final[dict[str, dict[str, spec.Cell]]] = {
    life: {p: c for p, c in fields_of(col).items()
           if c != "O" and fields_of(_agreed(*_LIVES.values())).get(p) == "O"}
    for life, col in _LIVES.items()
}
#: Event type -> the Struct of its column (policy-decision: the cells both lives agree on).
COLUMNS: Final[dict[str, type[msgspec.Struct]]] = {
    **{t: _struct(t, col) for t, col in spec.TOOL_EVENT_PARAMS.items()},
    spec.POLICY_DECISION: _struct(spec.POLICY_DECISION, _agreed(*_LIVES.values())),
}
#: A Struct's class -> its event type (the tag).
TAGS: Final = {cls: t for t, cls in COLUMNS.items()}
_EVENTS: Final = list[Union[tuple(COLUMNS.values())]]  # type: ignore[misc]  # noqa: UP007
#: Types whose content is optional: a body brings its encoding and mediatype, and no body
#: leaves no content member (which fields alone cannot say).
_OPTIONAL_CONTENT: Final = tuple(
    COLUMNS[t] for t, col in spec.TOOL_EVENT_PARAMS.items() if col["content"] == "O")
_POLICY: Final = COLUMNS[spec.POLICY_DECISION]
_AT: Final = re.compile(r"at `\$\[(\d+)\]")
_CHUNK: Final = 8192  # events converted at once
_FAILS: Final = 16  # failed events in a chunk before the rest of it takes the full check


def unclean(events: list[Any], n_parties: int | None, n_sessions: int | None,
            attachments: int | None, structs: list[Any] | None = None) -> bytearray:
    """One byte per event: 1 when ``check_event`` may have something to say about it (run it),
    0 when it passes its column and the index checks (it has nothing to say). ``n_parties``,
    ``n_sessions``, ``attachments``: the lengths of those arrays (None: not an array).
    ``structs``, a list as long as ``events`` (of None), gets each converted event's Struct."""
    n = len(events)
    flags = bytearray(n)
    if n_sessions is None:  # sessions not an array: every index into it is reported
        return bytearray(b"\x01") * n
    for start in range(0, n, _CHUNK):
        chunk = events[start:start + _CHUNK]
        for at, converted in _converted(chunk, flags, start):
            _after(converted, at, flags, n_parties, n_sessions, attachments)
            if structs is not None:
                structs[at:at + len(converted)] = converted
    return flags


def _converted(chunk: list[Any], flags: bytearray, start: int
               ) -> Iterator[tuple[int, list[Any]]]:
    """(position of the first, Structs) of each run of ``chunk`` that converts; the event a
    failure names is flagged (context events fail too: they have no column, and ``check_event``
    reports only a malformed ``type`` among them). Past ``_FAILS`` failures, the rest of the
    chunk is flagged whole."""
    at = 0
    fails = 0
    while at < len(chunk):
        try:
            yield start + at, msgspec.convert(chunk[at:], _EVENTS)
            return
        except msgspec.ValidationError as exc:
            m = _AT.search(str(exc))
            fails += 1
            if m is None or fails > _FAILS:
                flags[start + at:start + len(chunk)] = b"\x01" * (len(chunk) - at)
                return
            k = int(m.group(1))
            if k:
                yield start + at, msgspec.convert(chunk[at:at + k], _EVENTS)
            flags[start + at + k] = 1
            at += k + 1


_SESSIONS = attrgetter("sessions")
_PARTY = attrgetter("party")
_ATTACHMENT = attrgetter("attachment")
_BODY = attrgetter("body")
_MEDIATYPE = attrgetter("mediatype")
_SERVER = attrgetter("server")
#: Structs that need a look of their own: policy cells by life, optional content.
_SPECIAL: Final = frozenset({_POLICY, *_OPTIONAL_CONTENT})


def _after(structs: list[Any], at: int, flags: bytearray, n_parties: int | None,
           n_sessions: int, attachments: int | None) -> None:
    """The checks no field makes, on converted events ``at``, ``at + 1``, ...: each column's
    maximum or distinct values first (in C), each event only when something is off."""
    if not structs:
        return

    def flag(bad: Any) -> None:
        for j, st in enumerate(structs):
            if bad(st):
                flags[at + j] = 1

    if max(map(_SESSIONS, structs)) >= n_sessions:
        flag(lambda st: st.sessions >= n_sessions)
    if n_parties is not None and max(map(_PARTY, structs)) >= n_parties:
        flag(lambda st: st.party >= n_parties)
    if attachments is not None and any(type(a) is int and a >= attachments
                                       for a in set(map(_ATTACHMENT, structs))):
        flag(lambda st: type(st.attachment) is int and st.attachment >= attachments)
    if None in map(_BODY, structs):
        flag(lambda st: st.body is None)
    if any(type(m) is str and "/" not in m for m in set(map(_MEDIATYPE, structs))):
        flag(lambda st: type(st.mediatype) is str and "/" not in st.mediatype)
    if any(type(v) is str and v[:1] == "!" and v != spec.HOST_SERVER
           for v in set(map(_SERVER, structs))):
        flag(lambda st: type(st.server) is str and st.server[:1] == "!"
             and st.server != spec.HOST_SERVER)
    kinds = list(map(type, structs))
    for cls in _SPECIAL.intersection(kinds):
        j = -1
        while True:  # each Struct of this class, found by list.index (in C)
            try:
                j = kinds.index(cls, j + 1)
            except ValueError:
                break
            if not _special_ok(structs[j]):
                flags[at + j] = 1


def _special_ok(st: Any) -> bool:
    """A policy-decision's cells by its life; optional content that comes together."""
    if type(st) is _POLICY:
        for name, cell in LIFE_CELLS[st.policy_life].items():
            v = getattr(st, name)
            if (v is UNSET or v is None) if cell == "M" else v is not UNSET and v is not None:
                return False
        return True
    body = st.body
    if body is UNSET:  # then no content member at all
        return st.encoding is UNSET and st.mediatype is UNSET
    # a body (not null) with its encoding and mediatype
    return (body is not None and st.encoding is not UNSET and st.encoding is not None
            and st.mediatype is not UNSET and st.mediatype is not None)
