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

The Structs are also how events are read: ``Events`` decodes the ``events`` member's JSON
straight into them, or the loader does, with the vCon's other members, into ``CLEAN`` (a Struct
forbids members its column does not name, so a Struct holds the whole event); an event's dict
is decoded from its own bytes only when a reader asks for it (the raw view, an export,
``check_event`` for the events that fail their column). Events given as values (lifted,
imported, built by hand) are encoded and take the same decode.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import repeat
from operator import attrgetter
from typing import Annotated, Any, Final, Literal, Union

import msgspec
from msgspec import UNSET, Meta, UnsetType

from viewer.jsonenc import loads, loads_each, orjson_depth
from viewer.model import spec
from viewer.model.types import EventArray

_MAX_UINT: Final = spec.MAX_UINT
UInt = Annotated[int, Meta(ge=0, le=_MAX_UINT)]
#: Each parameter's value type in a clean event.
VALUE_TYPES: Final[dict[str, Any]] = {
    # one index or a non-empty array of them (what the importers write); the legacy "session"
    # takes the full check
    "sessions": UInt | Annotated[list[UInt], Meta(min_length=1)],
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
    # not null: a column check (the union of every JSON type costs more). Decoded, not kept as
    # msgspec.Raw: the duplicate-key count (``Events.colons``) must read every body's keys, and
    # reading them after costs more than reading them here (issue 16, gen-88000)
    "body": Any,
    "encoding": Literal["json"],
    "mediatype": str,  # type/subtype: a column check
    "time": str,  # an RFC 3339 date-time: the builder parses it (and says what is wrong)
}
#: Members a clean event never has: external content, and the core's legacy "session".
ALWAYS_ABSENT: Final = ("url", "content_hash", "session")
_NOT_FIELDS: Final = frozenset({"type"})  # the tag
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
    """The Struct of a column. No other member: an event with one its column does not name
    takes the full check (so a decoded Struct is the whole event, which the duplicate-key count
    of ``Events.colons`` relies on)."""
    fields = [_field(name, cell) for name, cell in fields_of(column).items()]
    return msgspec.defstruct(tag.title().replace("-", ""), fields, kw_only=True, tag=tag,
                             tag_field="type", forbid_unknown_fields=True, gc=False)


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
#: The same Structs with members no column names allowed (and not kept): an event with a
#: vendor's member passes its column as well, but its value is parsed, for its colons.
_LOOSE: Final[dict[str, type[msgspec.Struct]]] = {
    t: msgspec.defstruct(cls.__name__, [], bases=(cls,), kw_only=True, tag=t, tag_field="type",
                         forbid_unknown_fields=False, gc=False)
    for t, cls in COLUMNS.items()}
#: The column Structs proper: one of these is the whole event (``Events.whole``).
_STRICT: Final = frozenset(COLUMNS.values())
#: A Struct's class -> its event type (the tag).
TAGS: Final = {cls: t for cols in (COLUMNS, _LOOSE) for t, cls in cols.items()}
#: The fields every Struct has (one per parameter of the draft, and ``ALWAYS_ABSENT``).
_FIELDS: Final = frozenset.intersection(*(frozenset(c.__struct_fields__)
                                          for c in COLUMNS.values()))
assert all(frozenset(c.__struct_fields__) == _FIELDS for c in COLUMNS.values())
#: The fields every Struct requires (never UNSET).
_REQUIRED: Final = frozenset.intersection(*(
    frozenset(f.name for f in msgspec.structs.fields(c) if f.required)
    for c in COLUMNS.values()))
_EVENT: Final = Union[tuple(COLUMNS.values())]  # type: ignore[misc]  # noqa: UP007
#: Types whose content is optional: a body brings its encoding and mediatype, and no body
#: leaves no content member (which fields alone cannot say).
_OPTIONAL_CONTENT: Final = tuple(
    COLUMNS[t] for t, col in spec.TOOL_EVENT_PARAMS.items() if col["content"] == "O")
_POLICY: Final = COLUMNS[spec.POLICY_DECISION]
#: The type of an events array every event of which passes its column: a Struct each. The
#: loader reads a vCon into a Struct with a member of this type (``Events.read`` takes it).
CLEAN: Final = list[_EVENT]  # type: ignore[valid-type]
_ALL: Final = msgspec.json.Decoder(CLEAN)
_ONE: Final = msgspec.json.Decoder(_EVENT)
_ONE_LOOSE: Final = msgspec.json.Decoder(Union[tuple(_LOOSE.values())])  # type: ignore[misc]  # noqa: UP007
_SLICES: Final = msgspec.json.Decoder(list[msgspec.Raw])
_ENCODER: Final = msgspec.json.Encoder()
_ENCODE: Final = _ENCODER.encode
_CHUNK: Final = 4096  # events written back at once to count their colons
_TODO: Final = object()  # an event whose value is not decoded yet (JSON null is a value)



class Events(EventArray, Sequence[Any]):
    """The vCon's ``events`` array as read: per event its column Struct (None when it fails
    its column's types or is no object: ``check_event`` then says what is off) and its value
    as recorded, decoded from the event's own bytes when first asked for and kept.

    Headless summaries and checks of a clean file never build an event's dict: the model
    reads the Structs (``column``, ``Event.get``). Never modify what it returns."""

    __slots__ = ("_distinct", "_loose", "_raw", "_slices", "_values", "_whole", "structs")

    def __init__(self, structs: list[Any], values: list[Any], raw: Any = None,
                 slices: list[msgspec.Raw] | None = None, loose: list[int] | None = None,
                 whole: bool = False) -> None:
        self.structs = structs
        self._whole = whole  # read into CLEAN: every event has its Struct, none loose
        self._values = values
        self._raw = raw
        self._slices = slices
        self._loose = loose or []  # events whose Struct does not hold every member
        self._distinct: dict[str, frozenset[Any]] = {}  # see ``distinct``

    @classmethod
    def decode(cls, raw: bytes | memoryview | msgspec.Raw, *, whole: bool = True) -> Events:
        """The events of the JSON array ``raw``, each event's value still to decode (see
        ``unread``). Raises ``msgspec.ValidationError`` when it is not an array,
        ``msgspec.DecodeError`` when it is not JSON (the loader then reads the file as a
        whole, for its one message), RecursionError when it nests deeper than orjson reads
        (``orjson_depth``). ``whole``: first try every event at once (false when some event
        is known to fail its column: ``CLEAN`` did not take the array)."""
        with orjson_depth():
            if whole:
                try:
                    return cls.read(_ALL.decode(raw), raw)
                except msgspec.ValidationError:  # some event fails its column: one by one
                    pass
            slices = _SLICES.decode(raw)
            structs, loose = _structs(slices)
        return cls(structs, [_TODO] * len(slices), raw, slices, loose)

    @classmethod
    def read(cls, structs: list[Any], raw: bytes | memoryview | msgspec.Raw) -> Events:
        """The events of the JSON array ``raw`` as read into ``CLEAN`` (``structs``)."""
        return cls(structs, [_TODO] * len(structs), raw, whole=True)

    def unread(self) -> tuple[list[int], bytes]:
        """The events without a Struct (``check_event`` reads their values) or with a loose one
        (the duplicate-key count reads theirs) and a JSON array of them, for the loader to
        parse with the vCon's other members; ``fill`` takes the values."""
        if self._whole:  # the common case
            return [], b"[]"
        todo = [i for i, st in enumerate(self.structs) if st is None]
        if self._loose:
            todo = sorted({*todo, *self._loose})
        if not todo:
            return todo, b"[]"
        slices = self._slices
        assert slices is not None  # an event without a Struct was decoded one by one
        return todo, b"[" + b",".join([bytes(slices[i]) for i in todo]) + b"]"

    def fill(self, indices: list[int], values: list[Any]) -> None:
        """The values of events ``indices`` (``unread``), parsed by the loader."""
        for i, v in zip(indices, values, strict=True):
            self._values[i] = v

    @classmethod
    def of(cls, value: Any) -> Events | None:
        """``value`` (a vCon's ``events`` member) as Events: itself when the loader read it,
        a list's items through their JSON (the values kept as given); None for no array."""
        if type(value) is cls:
            return value
        if not isinstance(value, list):
            return None
        try:
            raw = _ENCODE(value)
            try:
                structs = _ALL.decode(raw)
            except msgspec.ValidationError:
                structs, _ = _structs(_SLICES.decode(raw))
        except (msgspec.EncodeError, TypeError, OverflowError, ValueError, RecursionError):
            structs = []  # some item is no JSON: each on its own
            for v in value:
                try:
                    structs.append(_ONE.decode(_ENCODE(v)))
                except (msgspec.EncodeError, TypeError, OverflowError, ValueError,
                        RecursionError):
                    structs.append(None)
        return cls(structs, list(value))

    def whole(self, i: int) -> bool:
        """True when event ``i``'s Struct is its column's, which allows no other member (a
        loose one, ``_LOOSE``, allows them and keeps none)."""
        return type(self.structs[i]) in _STRICT

    def __len__(self) -> int:
        return len(self.structs)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        v = self._values[i]
        if v is _TODO:
            if self._slices is None:
                self._slices = _SLICES.decode(self._raw)
            v = self._values[i] = loads(memoryview(self._slices[i]))
        return v

    def read_values(self, indices: Iterable[int], batch: int = 256) -> None:
        """Decode the values of the events at ``indices`` not decoded yet, ``batch`` events
        at a time (``jsonenc.loads_each``), and keep them, as ``self[i]`` would one by one.
        The events of a batch orjson refuses, and those with a long digit run, are left for
        ``self[i]`` to read (and say what is wrong, or read exactly)."""
        values = self._values
        n = len(values)
        todo = sorted({i for i in indices if 0 <= i < n and values[i] is _TODO})
        if not todo:
            return
        if self._slices is None:
            self._slices = _SLICES.decode(self._raw)
        slices = self._slices
        for at in range(0, len(todo), batch):
            part = todo[at:at + batch]
            got = loads_each([slices[i] for i in part], _TODO)
            if got is not None:
                for i, v in zip(part, got, strict=True):
                    values[i] = v

    def __iter__(self) -> Iterator[Any]:
        values = self._values
        if _TODO in values:  # all at once: one parse of the array, not one per event
            every = loads(memoryview(self._raw) if isinstance(self._raw, msgspec.Raw)
                                 else self._raw)
            for i, v in enumerate(values):
                if v is _TODO:
                    values[i] = every[i]
        return iter(values)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, Events)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like the list it stands for

    def __repr__(self) -> str:
        return f"Events({len(self)} events)"

    def column(self, name: str) -> list[Any]:
        """Member ``name`` of every event as ``dict.get`` reads it (None when absent), from
        the Structs in one pass when every event has one."""
        structs = self.structs
        if name == "type":
            return [TAGS[type(st)] if st is not None else
                    (e.get(name) if type(e := self[i]) is dict else None)
                    for i, st in enumerate(structs)]
        if name not in _FIELDS:  # no Struct holds it: from the values
            return [e.get(name) if type(e := self[i]) is dict else None
                    for i in range(len(structs))]
        if None not in structs:
            if name in _REQUIRED:  # never UNSET
                return list(map(attrgetter(name), structs))
            return [None if v is UNSET else v for v in map(attrgetter(name), structs)]
        out = []
        for i, st in enumerate(structs):
            if st is not None:
                v = getattr(st, name)
                out.append(None if v is UNSET else v)
            else:
                e = self[i]
                out.append(e.get(name) if type(e) is dict else None)
        return out

    def distinct(self, name: str) -> frozenset[Any]:
        """The distinct values of member ``name`` (None for absent) that can be in a set.
        Kept: the Structs do not change (the values of events without one are decoded as
        they are recorded, whenever asked)."""
        got = self._distinct.get(name)
        if got is None:
            got = self._distinct[name] = frozenset(self._distinct_values(name))
        return got

    def _distinct_values(self, name: str) -> set[Any]:
        structs = self.structs
        try:
            if name in _FIELDS and None not in structs:
                out = set(map(attrgetter(name), structs))
            else:
                out = set(self.column(name))
        except TypeError:  # some value is no key (a body's object)
            return {v for v in self.column(name) if getattr(v, "__hash__", None) is not None}
        if UNSET in out:
            out.discard(UNSET)
            out.add(None)
        return out

    def any_of(self, types: frozenset[str] | set[str]) -> bool:
        """Whether any event's ``type`` is one of ``types``."""
        tags = {TAGS[type(st)] for st in self.structs if st is not None}
        if not tags.isdisjoint(types):
            return True
        return any(type(v := self[i]) is dict and v.get("type") in types
                   for i, st in enumerate(self.structs) if st is None)

    def colons(self, dumps: Callable[[Any], bytes]) -> int:
        """The colons of these events written back as JSON (those without a Struct that holds
        every member by ``dumps``): one per member of each object, and those inside strings.
        It equals the recorded array's count unless an object names a key twice (a Struct
        keeps one value per field, as a dict does per key), or the recorded text escapes a
        colon (``load.py`` looks for that first)."""
        structs = self.structs
        if self._loose:
            structs = structs.copy()
            for i in self._loose:
                structs[i] = None
        n = 0
        buf = bytearray()
        encode_into = _ENCODER.encode_into
        for at in range(0, len(structs), _CHUNK):  # one buffer reused: no copy of the array
            encode_into(structs[at:at + _CHUNK], buf)
            n += buf.count(b":")
        if not self._whole and None in structs:
            n += sum(dumps(self[i]).count(b":") for i, st in enumerate(structs) if st is None)
        return n


def plain(vcon: dict[str, Any]) -> dict[str, Any]:
    """``vcon`` with its events as a list of values (a shallow copy when they were Events):
    for code that reads and copies plain JSON values, as the lifter does."""
    events = vcon.get("events")
    return {**vcon, "events": list(events)} if type(events) is Events else vcon


def _structs(slices: list[msgspec.Raw]) -> tuple[list[Any], list[int]]:
    """Each event's Struct, None for those that fail their column's types; and the events
    that pass only with a member no column names (a loose Struct: their values are parsed)."""
    structs: list[Any] = []
    loose: list[int] = []
    append = structs.append
    one = _ONE.decode
    for i, s in enumerate(slices):
        try:
            append(one(s))
        except msgspec.ValidationError:
            try:
                append(_ONE_LOOSE.decode(s))
                loose.append(i)
            except msgspec.ValidationError:
                append(None)
    return structs, loose


def unclean(events: Events | list[Any], n_parties: int | None, n_sessions: int | None,
            attachments: int | None) -> bytearray:
    """One byte per event: 1 when ``check_event`` may have something to say about it (run it),
    0 when it passes its column and the index checks (it has nothing to say). ``events``: an
    events array (``Events.of``); ``n_parties``, ``n_sessions``, ``attachments``: the lengths
    of those arrays (None: not an array)."""
    got = Events.of(events)
    structs = got.structs if got is not None else []
    n = len(structs)
    if n_sessions is None:  # sessions not an array: every index into it is reported
        return bytearray(b"\x01") * n
    flags = bytearray(n)
    whole = got is not None and got._whole  # no event failed its column
    at = 0
    while at < n:  # each run of Structs between events that failed their column
        try:
            end = n if whole else structs.index(None, at)
        except ValueError:
            end = n
        every = not at and end == n  # (then ``got`` is no None: ``n`` is 0 without events)
        _after(structs if every else structs[at:end], at, flags, n_parties, n_sessions,
               attachments, got.distinct("server") if every and got is not None else None)
        if end < n:
            flags[end] = 1
        at = end + 1
    return flags


_SESSIONS = attrgetter("sessions")
_PARTY = attrgetter("party")
_ATTACHMENT = attrgetter("attachment")
_BODY = attrgetter("body")
_MEDIATYPE = attrgetter("mediatype")
_SERVER = attrgetter("server")
#: Structs that need a look of their own: policy cells by life, optional content.
_SPECIAL: Final = frozenset({_POLICY, *_OPTIONAL_CONTENT, _LOOSE[spec.POLICY_DECISION],
                             *(_LOOSE[TAGS[c]] for c in _OPTIONAL_CONTENT)})
_SPECIAL_CODE: Final = dict.fromkeys(_SPECIAL, 1)  # (other Structs: 0)


def _after(structs: list[Any], at: int, flags: bytearray, n_parties: int | None,
           n_sessions: int, attachments: int | None, servers: frozenset[Any] | None) -> None:
    """The checks no field makes, on converted events ``at``, ``at + 1``, ...: each column's
    maximum or distinct values first (in C), each event only when something is off."""
    if not structs:
        return

    def flag(bad: Any) -> None:
        for j, st in enumerate(structs):
            if bad(st):
                flags[at + j] = 1

    sessions = list(map(_SESSIONS, structs))
    try:  # an int when every one is an index (an array among indices: a TypeError)
        highest = max(sessions)
    except TypeError:
        highest = None
    if type(highest) is not int:  # arrays among them: each event's highest index
        sessions = [max(s) if type(s) is list else s for s in sessions]
        highest = max(sessions)
    if highest >= n_sessions:
        for j, s in enumerate(sessions):
            if s >= n_sessions:
                flags[at + j] = 1
    if n_parties is not None and max(map(_PARTY, structs)) >= n_parties:
        flag(lambda st: st.party >= n_parties)
    if attachments is not None and any(type(a) is int and a >= attachments
                                       for a in set(map(_ATTACHMENT, structs))):
        flag(lambda st: type(st.attachment) is int and st.attachment >= attachments)
    if None in map(_BODY, structs):
        flag(lambda st: st.body is None)
    if any(type(m) is str and "/" not in m for m in set(map(_MEDIATYPE, structs))):
        flag(lambda st: type(st.mediatype) is str and "/" not in st.mediatype)
    if servers is None:  # (the whole array's, when these are all of it)
        servers = frozenset(map(_SERVER, structs))
    if any(type(v) is str and v[:1] == "!" and v != spec.HOST_SERVER for v in servers):
        flag(lambda st: type(st.server) is str and st.server[:1] == "!"
             and st.server != spec.HOST_SERVER)
    special = bytes(map(_SPECIAL_CODE.get, map(type, structs), repeat(0)))
    j = -1
    while True:  # each special Struct, found by bytes.find (in C)
        j = special.find(1, j + 1)
        if j < 0:
            break
        if not _special_ok(structs[j]):
            flags[at + j] = 1


def _special_ok(st: Any) -> bool:
    """A policy-decision's cells by its life; optional content that comes together."""
    if isinstance(st, _POLICY):
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
