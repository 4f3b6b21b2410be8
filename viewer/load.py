"""Read one vCon from a file or stdin and unwrap it (README, *Input forms*).

The loader turns bytes into the innermost unsigned vCon plus a filled ``Source``: gunzip (with a
bomb guard), UTF-8 BOM, JSON (orjson only, straight from the bytes), then the form: signed (JWS,
unwrapped layer by layer), encrypted (JWE, refused: no key) or unsigned. Every refusal is a
``LoadError`` with one line for the user, never a traceback. It never writes to its input.

Choices the interpretation leaves open:

* ``Source.signatures`` lists the signatures of *every* signed layer, outermost layer first, so
  a re-signed vCon shows who signed each wrapping; each is verified (``viewer.signatures``)
  as its layer is unwrapped, its certificates' dates once the innermost vCon (which gives the
  signing time) is read. A signature never refuses the file: its status says what is wrong.
* ``Source.gzip`` is true when any layer was gzip-compressed (the file or a JWS payload).
* ``Source.uuid`` is the innermost vCon's ``uuid``; a signed vCon without one (the core draft's
  example) falls back to the first signature header's ``uuid``.
"""

from __future__ import annotations

import binascii
import hashlib
import re
import sys
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Final

import msgspec
import orjson

from viewer.jsonenc import loads, orjson_depth, recursion_limit
from viewer.model.columns import CLEAN, Events
from viewer.model.spec import SUPPORTED_EXTENSIONS
from viewer.model.types import Derivation, Diagnostic, Signature, Source
from viewer.textsafe import safe

if TYPE_CHECKING:
    from datetime import datetime

    from viewer.signatures import Pending, TrustStore

#: Keys of which an unsigned vCon has at least one: an object with none of them is not a vCon.
UNSIGNED_KEYS: Final = frozenset(
    {
        "vcon", "uuid", "created_at", "subject", "parties", "dialog", "analysis", "attachments",
        "events", "sessions", "extensions", "critical", "redacted", "amended", "appended", "group",
    }
)  # fmt: skip

#: Inputs at least this big are hashed on a thread while they are parsed.
HASH_IN_THREAD: Final = 1 << 20
#: Refuse a gzip stream that inflates past this many bytes (decompression bomb guard).
MAX_DECOMPRESSED: int = 2 << 30

GZIP_MAGIC: Final = b"\x1f\x8b"
_BOM: Final = b"\xef\xbb\xbf"
_URL_TO_STD: Final = bytes.maketrans(b"-_", b"+/")


class LoadError(Exception):
    """One clear line for the user. exit_code: 2 unreadable/encrypted/not a vCon, 3 unsupported
    critical. ``foreign``: the input itself (not a signed payload) is not a vCon at all (not
    JSON, not an object, no vCon key), so it may be a recording that an importer reads."""

    def __init__(self, message: str, exit_code: int = 2, *, foreign: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.foreign = foreign

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True)
class Loaded:
    """The unwrapped vCon, where it came from, and the loader's own diagnostics."""

    vcon: dict[str, Any]  # the unwrapped (innermost) unsigned vCon as parsed
    source: Source
    diagnostics: tuple[Diagnostic, ...]
    #: Set when ``vcon`` was imported from another recording format (``viewer.pipeline``):
    #: what it was, and (for the model's ``derived_from``) what the events came from.
    derivation: Derivation | None = None
    derived_from: tuple[str, ...] = ()
    #: Set by ``load_bytes(..., defer_key_check=True)``: the count of keys named twice is
    #: still to make (``KeyCheck.settle``); the model carries it with the event checks.
    key_check: KeyCheck | None = None

    def settled(self) -> Loaded:
        """This load with its put-off count of keys named twice made now (``key_check``):
        itself without it, or the input loaded anew when a key is named twice."""
        if self.key_check is None:
            return self
        return self.key_check.settle() or replace(self, key_check=None)


@dataclass(frozen=True, slots=True)
class KeyCheck:
    """The duplicate-key count of a vCon read by its typed pass, put off so the viewer draws
    first (README, *Performance*). The typed pass keeps a key's last value, as orjson does; a
    key named twice sends the input to the reading every other command makes of it (orjson,
    then the exact scan that names each key twice). A colon written as an escape only makes
    the exact scan run: without a key named twice, the typed reading stands."""

    raw: bytes  # the unsigned vCon's text
    parsed: dict[str, Any]  # as the typed pass read it
    again: Callable[[], Loaded]

    def settle(self) -> Loaded | None:
        """None when no key is named twice (nearly always: the count says so at C speed, else
        the exact scan); else the input loaded anew, as ``load_bytes`` loads it without
        putting the count off."""
        if not _maybe_duplicate_keys(self.raw, self.parsed) or not duplicate_keys(self.raw):
            return None
        return self.again()


def label_of(name: str) -> str:
    """The input's name as shown in a message (stdin spelt out, control characters escaped)."""
    return "stdin" if name == "-" else safe(name)


@contextmanager
def _read_errors(label: str) -> Iterator[None]:
    """Turn the ways reading a path fails into one clear line each."""
    try:
        yield
    except LoadError:
        raise
    except FileNotFoundError:
        raise LoadError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise LoadError(f"{label}: is a directory, not a file") from None
    except PermissionError:
        raise LoadError(f"{label}: permission denied") from None
    except MemoryError:
        raise LoadError(f"{label}: too large for memory") from None
    except OSError as e:
        reason = e.strerror or type(e).__name__
        raise LoadError(f"{label}: cannot read ({safe(reason)})") from None


def check_path(path: str) -> None:
    """Raise the LoadError ``load_path`` would for a path that cannot be opened at all, without
    reading it: the TUI says so on the command line instead of opening a screen first."""
    if path != "-":
        with _read_errors(label_of(path)), open(path, "rb"):
            pass


def read_input(path: str) -> bytes:
    """The bytes of ``path`` (``"-"``: all of stdin), read-only; failures as one LoadError."""
    with _read_errors(label_of(path)):
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:
                raise LoadError("stdin: cannot read (no binary standard input)")
            return stream.read()
        with open(path, "rb") as f:
            return f.read()


def load_path(path: str, *, ignore_critical: bool = False, trust: TrustStore | None = None,
              at: datetime | None = None) -> Loaded:
    """Read ``path`` (``"-"``: stdin) read-only and load it."""
    return load_bytes(read_input(path), name=path, ignore_critical=ignore_critical, trust=trust,
                      at=at)


def load_bytes(data: bytes, *, name: str = "-", ignore_critical: bool = False,
               trust: TrustStore | None = None, at: datetime | None = None,
               defer_key_check: bool = False) -> Loaded:
    """Load a vCon from ``data`` (the bytes as read); ``name`` is used in messages only.

    The signatures of a signed vCon are verified (``viewer.signatures``) against the anchors
    of ``trust``, the certificates' dates at ``at`` (default: the time the vCon gives).
    ``defer_key_check``: an unsigned vCon read by the typed pass comes with its duplicate-key
    count still to make (``Loaded.key_check``), for the viewer to make once it has drawn."""
    label = label_of(name)
    try:
        return _load(data, name, label, ignore_critical, trust, at, defer_key_check)
    except MemoryError:
        raise LoadError(f"{label}: too large for memory") from None
    except RecursionError:  # defensive: orjson limits depth itself
        raise LoadError(f"{label}: not JSON (nested too deeply)") from None


def _sha256(data: bytes) -> Callable[[], str]:
    """The hex SHA-256 of ``data``, ready when the returned function is called.

    A big input is hashed on another thread while this one parses it: hashlib lets go of the
    GIL while it hashes, so on a second core the digest costs no wall time.
    """
    if len(data) < HASH_IN_THREAD:
        digest = hashlib.sha256(data).hexdigest()
        return lambda: digest
    import threading

    out: list[str] = []
    worker = threading.Thread(target=lambda: out.append(hashlib.sha256(data).hexdigest()),
                              name="vcon-view sha256", daemon=True)
    worker.start()

    def result() -> str:
        worker.join()
        return out[0]

    return result


def _load(data: bytes, name: str, label: str, ignore_critical: bool,
          trust: TrustStore | None = None, at: datetime | None = None,
          defer_key_check: bool = False) -> Loaded:
    diags: list[Diagnostic] = []
    digest = _sha256(data)
    size = len(data)
    gz = False

    body: bytes | memoryview = data
    inflated = 0
    if data[:2] == GZIP_MAGIC:
        body = gunzip(data, label, "")
        inflated = len(body)
        gz = True
    deferred: list[tuple[bytes, dict[str, Any]]] | None = [] if defer_key_check else None
    obj = _parse(body, label, "", diags, deferred)
    del body
    loaded = _unwrap(obj, diags, name, label, digest, size, gz, ignore_critical, inflated,
                     trust, at)
    if deferred:
        again = partial(load_bytes, data, name=name, ignore_critical=ignore_critical,
                        trust=trust, at=at)
        loaded = replace(loaded, key_check=KeyCheck(*deferred[0], again=again))
    return loaded


def _typed_record(obj: dict[str, Any]) -> bool:
    """A record of another format that carries its own ``uuid`` (Claude Code's ``claude -p
    --output-format json`` result, ``{"type": "result", ..., "uuid": ...}``): a vCon has no
    ``type`` member, and this has no other vCon key, so an importer may read it."""
    return isinstance(obj.get("type"), str) and obj.get("vcon") is None and not any(
        obj.get(k) is not None for k in UNSIGNED_KEYS if k != "uuid")


def load_object(obj: dict[str, Any], data: bytes, *, name: str = "-") -> Loaded:
    """A vCon already in memory (an importer's output): loaded as if it had been read, with
    the bytes it was made from (``data``) as its source's size and sha256."""
    label = label_of(name)
    gz = data[:2] == GZIP_MAGIC
    return _unwrap(obj, [], name, label, _sha256(data), len(data), gz, False)


def _unwrap(obj: dict[str, Any], diags: list[Diagnostic], name: str, label: str,
            digest: Callable[[], str], size: int, gz: bool, ignore_critical: bool,
            inflated: int = 0, trust: TrustStore | None = None,
            at: datetime | None = None) -> Loaded:
    """The vCon inside ``obj`` (signed layers unwrapped), its Source and the loader's checks.

    ``inflated``: bytes already inflated from gzip; the guard bounds the total over every
    layer (a gzipped file whose signed payload is gzipped again), not each stream alone."""
    pending: list[Any] = []  # viewer.signatures.Pending, one per signature, outermost first
    layers = 0
    while _is_signed(obj):
        layers += 1
        where = "signed vCon (JWS)" if layers == 1 else f"signed vCon (JWS, layer {layers})"
        pending.extend(_signatures(obj, label, where, layers))
        payload = _b64url(obj["payload"], label, f"{where} payload")
        if payload[:2] == GZIP_MAGIC:
            payload = gunzip(payload, label, f"{where} payload: ",
                             limit=MAX_DECOMPRESSED - inflated, nested=inflated > 0)
            inflated += len(payload)
            gz = True
        obj = _parse(payload, label, f"{where} payload: ", diags)

    if _is_encrypted(obj):
        form = "encrypted vCon (JWE)"
        if layers:
            form = f"signed vCon (JWS) holding an {form}"
        raise LoadError(
            f"{label}: {form}, {_jwe_uuid(obj)}, enc {_jwe_enc(obj)}: "
            "cannot be opened without a key"
        )
    if not any(obj.get(k) is not None for k in UNSIGNED_KEYS):
        where = "signed vCon (JWS) payload: " if layers else ""
        raise LoadError(f"{label}: {where}not a vCon (a JSON object with none of the vCon keys)",
                        foreign=not layers)
    if _typed_record(obj):
        where = "signed vCon (JWS) payload: " if layers else ""
        raise LoadError(f"{label}: {where}not a vCon (a record with a 'type' member and no "
                        "vCon key but uuid)", foreign=not layers)

    vcon = obj
    signatures: list[Signature] = []
    if layers:
        from viewer import signatures as sigs

        signatures = sigs.finish_all(pending, vcon, trust, at)
    del pending
    uuid = vcon.get("uuid")
    if not isinstance(uuid, str):
        uuid = next((s.uuid for s in signatures if s.uuid is not None), None)
    extensions = _strings(vcon.get("extensions"))
    critical_raw = vcon.get("critical")
    critical = _strings(critical_raw)
    unsupported: list[str] = []
    for name_ in critical:
        if name_ not in SUPPORTED_EXTENSIONS and name_ not in unsupported:
            unsupported.append(name_)

    if unsupported:
        names = ", ".join(safe(n) for n in unsupported)
        if not ignore_critical:
            raise LoadError(
                f"{label}: critical extension(s) not supported by vcon-view: {names} "
                "(use --ignore-critical to view anyway)",
                exit_code=3,
            )
        assert isinstance(critical_raw, list)
        for i, v in enumerate(critical_raw):
            if isinstance(v, str) and v not in SUPPORTED_EXTENSIONS:
                diags.append(
                    Diagnostic(
                        "critical-unsupported",
                        "warning",
                        f"/critical/{i}",
                        f"critical extension {safe(v)} is not supported by vcon-view; "
                        "shown anyway under --ignore-critical",
                    )
                )

    if vcon.get("must_support") is not None:
        diags.append(
            Diagnostic(
                "legacy-parameter",
                "warning",
                "/must_support",
                "must_support is the legacy name of critical: reported, not enforced",
            )
        )
    diags.extend(signature_diagnostics(signatures))
    source = Source(
        file=name,
        sha256=digest(),
        size=size,
        form="signed" if layers else "unsigned",
        gzip=gz,
        uuid=uuid,
        extensions=extensions,
        critical=critical,
        unsupported_critical=tuple(unsupported),
        critical_override=bool(unsupported),
        signatures=tuple(signatures),
        signed_layers=layers,
    )
    return Loaded(vcon=vcon, source=source, diagnostics=tuple(diags))


def gunzip(data: bytes, label: str, where: str, *, limit: int | None = None,
           nested: bool = False) -> bytes:
    """Inflate one or more gzip members, refusing output above ``limit`` bytes in total
    (default ``MAX_DECOMPRESSED``; a nested layer gets what the outer layers left)."""
    if limit is None:
        limit = MAX_DECOMPRESSED
    parts: list[bytes] = []
    total = 0
    rest: bytes = data
    while True:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out = d.decompress(rest, max(limit - total, 0) + 1)
        except zlib.error as e:
            raise LoadError(f"{label}: {where}corrupt gzip ({safe(str(e))})") from None
        total += len(out)
        if total > limit:
            cap = f"{MAX_DECOMPRESSED / (1 << 30):g} GiB"
            what = f"with the outer layers more than {cap} in total" if nested else \
                f"more than {cap}"
            raise LoadError(f"{label}: {where}gzip inflates to {what}; refused")
        parts.append(out)
        if not d.eof:
            raise LoadError(f"{label}: {where}corrupt gzip (truncated)")
        rest = d.unused_data
        if rest[:2] != GZIP_MAGIC:
            break
    if rest.strip(b"\x00"):
        raise LoadError(f"{label}: {where}corrupt gzip (trailing data after the stream)")
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _parse(
    body: bytes | memoryview, label: str, where: str, diags: list[Diagnostic],
    deferred: list[tuple[bytes, dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """The JSON object of ``body`` (BOM skipped with a warning): its ``events`` as read by
    ``_typed``, else all of it by orjson straight from the bytes; only an object is accepted.
    With ``deferred`` (a list), an object read by ``_typed`` is returned unchecked for keys
    named twice and (its bytes, itself) appended there, for ``KeyCheck``."""
    if body[:3] == _BOM:
        body = memoryview(body)[3:]
        if not any(d.code == "utf8-bom" for d in diags):
            diags.append(
                Diagnostic(
                    "utf8-bom", "warning", "", "the input starts with a UTF-8 byte order mark"
                )
            )
    raw = body.obj if isinstance(body, memoryview) else body  # the BOM has no colon
    obj = _typed(body)
    if obj is not None and deferred is not None:
        deferred.append((raw, obj))  # type: ignore[arg-type]
        return obj
    if obj is not None and not _maybe_duplicate_keys(raw, obj):  # type: ignore[arg-type]
        return obj
    try:
        obj = loads(body)
    except orjson.JSONDecodeError as e:
        msg = safe(e.msg)
        if "UTF-8" in e.msg:
            detail = msg
        elif e.msg.startswith("Input is a zero-length"):
            detail = "empty input"
        else:
            detail = f"{msg} at line {e.lineno} column {e.colno}"
        raise LoadError(f"{label}: {where}not JSON ({detail})",
                        foreign=not where and detail != "empty input") from None
    if not isinstance(obj, dict):
        kind = "a JSON array" if isinstance(obj, list) else "a JSON scalar"
        raise LoadError(f"{label}: {where}not a vCon ({kind}, expected an object)",
                        foreign=not where)
    if _maybe_duplicate_keys(raw, obj):  # type: ignore[arg-type]
        diags.extend(duplicate_keys(raw, where))  # type: ignore[arg-type]
    return obj


_MEMBERS: Final = msgspec.json.Decoder(dict[str, msgspec.Raw])
_KEY: Final = msgspec.json.Encoder().encode
#: Inputs at least this big are read in one msgspec pass when they can be (``_typed``): under
#: it, finding the members' order costs more than the second pass it saves.
ONE_PASS: int = 1 << 16
#: A vCon's members in one pass: its events into ``CLEAN``, each other member's JSON text (a
#: member no field names, or an event that fails its column, refuses it: ``_MEMBERS`` then).
_OTHERS: Final = tuple(sorted(UNSIGNED_KEYS - {"events"}
                              | {"updated_at", "meta", "tags", "must_support"}))
_VCON: Final = msgspec.json.Decoder(msgspec.defstruct(
    "Vcon", [("events", CLEAN), *((k, msgspec.Raw | msgspec.UnsetType, msgspec.UNSET)
                                 for k in _OTHERS)],
    forbid_unknown_fields=True, gc=False))
_NAME_AT: Final = re.compile(rb'[ \t\n\r]*"([a-z_]+)"[ \t\n\r]*:[ \t\n\r]*')
_WS: Final = b" \t\n\r"


def _typed(body: bytes | memoryview) -> dict[str, Any] | None:
    """The JSON object of ``body`` with its ``events`` array read by ``columns.Events`` (into
    the Structs the model reads; an event's dict only when asked for) and every other member,
    with the events that have no Struct, by one orjson parse; None when that cannot be done
    (not an object, not JSON, no events array): then orjson reads the whole, and gives its
    message. Both accept the same JSON: msgspec parses every value of an event that decodes
    into its Struct, orjson every other value; msgspec reads no deeper than orjson does
    (``orjson_depth``).

    A vCon of ``ONE_PASS`` bytes or more, of the usual members, whose events all pass their
    columns, is read in one pass (``_VCON``); ``_order`` then finds its members' order and the
    events' text. Any other reads its members first (``_MEMBERS``), then its events."""
    try:
        with orjson_depth():
            tried = len(body) >= ONE_PASS
            top = None
            if tried:
                with suppress(msgspec.ValidationError):  # an event fails its column, or
                    top = _VCON.decode(body)  # a member no field names
            found = _order(body, top) if top is not None else None
            if found is not None:
                names, raws, at, end = found
                text = msgspec.Raw(memoryview(body)[at:end])  # no copy: as _MEMBERS reads it
                events = Events.read(top.events, text)  # type: ignore[union-attr]
                members: dict[str, Any] = dict(zip(names, raws, strict=True))
            else:
                members = _MEMBERS.decode(body)
                raw = members.get("events")
                if raw is None:
                    return None
                if top is not None:  # read, but not in order: its events are the last ones
                    events = Events.read(top.events, raw)
                else:  # when the one pass failed with the usual members, on an event
                    whole = not tried or not all(k in _OTHERS or k == "events" for k in members)
                    events = Events.decode(raw, whole=whole)
            del top
        # The other members and the events without a Struct in one parse: [{members}, [events]]
        todo, unread = events.unread()
        rest, values = loads(
            b"[{" + b",".join([_KEY(k) + b":" + bytes(v) for k, v in members.items()
                               if k != "events"]) + b"}," + unread + b"]")
        events.fill(todo, values)
        return {k: events if k == "events" else rest[k] for k in members}
    except (msgspec.DecodeError, orjson.JSONDecodeError, RecursionError):  # ValidationError too
        return None


def _order(body: bytes | memoryview, top: Any) -> tuple[list[str], list[Any], int, int] | None:
    """The members of the object ``body`` (as read into ``top``) in their order, each with its
    JSON text (the events: None), and where the events' text begins and ends; None when the
    members are not found so (a key spelt with an escape, most keys named twice). A key named
    twice can go unseen here (``"events"`` twice, last): the duplicate-key count, which a
    dropped pair always changes, then sends the file to orjson.

    The members before the events are read from the start, those after them from the end:
    a key's quotes, unescaped, delimit a string that a colon makes a key, and the value that
    follows it is exactly the member's text (no JSON value is a prefix of another but a number,
    which a delimiter ends); so each member found is the object's, in its place."""
    present = {k: v for k in _OTHERS if (v := getattr(top, k)) is not msgspec.UNSET}
    view = memoryview(body)
    n = len(view)
    at = 0
    while at < n and view[at] in _WS:
        at += 1
    if view[at:at + 1] != b"{":
        return None
    at += 1
    names: list[str] = []
    while True:  # from the start to the events
        m = _NAME_AT.match(body, at)
        if m is None:
            return None
        name = m.group(1).decode()
        at = m.end()
        if name == "events":
            break
        v = present.get(name)
        if v is None or name in names or view[at:at + len(v)] != v:
            return None
        names.append(name)
        at += len(v)
        while at < n and view[at] in _WS:
            at += 1
        if view[at:at + 1] != b",":
            return None
        at += 1
    end = n  # from the end back to the events
    while end > at and view[end - 1] in _WS:
        end -= 1
    if view[end - 1:end] != b"}":
        return None
    end -= 1
    after = [k for k in present if k not in names]
    tail: list[str] = []
    while len(tail) < len(after):
        while end > at and view[end - 1] in _WS:
            end -= 1
        for name in after:
            v = present[name]
            i = end - len(v)
            if name in tail or i <= at or view[i:end] != v:
                continue
            while i > at and view[i - 1] in _WS:
                i -= 1
            if view[i - 1:i] != b":":
                continue
            i -= 1
            while i > at and view[i - 1] in _WS:
                i -= 1
            key = b'"' + name.encode() + b'"'
            if view[i - len(key):i] != key:
                continue
            i -= len(key)
            while i > at and view[i - 1] in _WS:
                i -= 1
            if view[i - 1:i] != b",":
                continue
            tail.append(name)
            end = i - 1
            break
        else:
            return None
    while end > at and view[end - 1] in _WS:
        end -= 1
    if view[at:at + 1] != b"[" or view[end - 1:end] != b"]":
        return None
    names += ["events", *reversed(tail)]
    return names, [present.get(k) for k in names], at, end


_ESCAPED_COLON: Final = re.compile(rb"\\u003[aA]")


def _maybe_duplicate_keys(raw: bytes, obj: Any) -> bool:
    """False when ``raw`` certainly names no key twice in one object (orjson keeps the last
    value in silence), cheaply: each key-value pair has one structural colon, every other colon
    is inside a string. Without an escaped colon (\\u003a) in ``raw``, the colons inside strings
    are the same in ``raw`` and in orjson's re-serialisation of ``obj``, so the counts of colons
    differ exactly when a pair was dropped, that is when a key was repeated. The count and the
    dumps run at C speed; the exact scan, in Python, runs only then."""
    at = raw.find(b"\\")  # memchr: most files escape nothing, and an escape starts there
    if at >= 0 and _ESCAPED_COLON.search(raw, at):
        return True
    from viewer.jsonenc import dumps

    events = obj.get("events")
    if type(events) is Events:  # the members but the events, then those (with their key's)
        rest = dumps({k: v for k, v in obj.items() if k != "events"}).count(b":")
        return raw.count(b":") != rest + 1 + events.colons(dumps)
    return raw.count(b":") != dumps(obj).count(b":")


def duplicate_keys(raw: bytes, where: str = "") -> list[Diagnostic]:
    """A ``duplicate-key`` error for every key named twice in one object, with the pointer of
    the key (the exact, slower scan: Python's parser with a pairs hook)."""
    import json

    found: dict[int, list[tuple[str, int]]] = {}

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(pairs)
        if len(d) != len(pairs):
            counts: dict[str, int] = {}
            for k, _ in pairs:
                counts[k] = counts.get(k, 0) + 1
            found[id(d)] = [(k, n) for k, n in counts.items() if n > 1]
        return d

    try:  # orjson reads 1,024 levels; json recurses
        with recursion_limit(max(sys.getrecursionlimit(), 4000)):
            doc = json.loads(raw, object_pairs_hook=hook)
    except (ValueError, RecursionError):
        return []
    if not found:
        return []
    out: list[Diagnostic] = []
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        v, ptr = stack.pop()
        if isinstance(v, dict):
            for k, n in found.get(id(v), ()):
                key_ptr = ptr + "/" + k.replace("~", "~0").replace("/", "~1")
                out.append(Diagnostic(
                    "duplicate-key", "error", safe(key_ptr),
                    f"{where}key \"{safe(k)[:60]}\" appears {n} times in one object: readers "
                    "keep one of the values in silence (vcon-view reads the last)"))
            stack.extend((x, ptr + "/" + k.replace("~", "~0").replace("/", "~1"))
                         for k, x in v.items() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            stack.extend((x, f"{ptr}/{i}") for i, x in enumerate(v)
                         if isinstance(x, (dict, list)))
    out.sort(key=lambda d: d.pointer)
    return out


def _is_signed(obj: dict[str, Any]) -> bool:
    return obj.get("payload") is not None and obj.get("signatures") is not None


def _is_encrypted(obj: dict[str, Any]) -> bool:
    has_ct = obj.get("ciphertext") is not None or obj.get("cyphertext") is not None
    return has_ct and obj.get("recipients") is not None


def _b64url(value: Any, label: str, what: str) -> bytes:
    """Decode base64url (padding optional); anything else is a LoadError naming ``what``."""
    if not isinstance(value, str):
        raise LoadError(f"{label}: {what} is not a base64url string")
    try:
        raw = value.encode("ascii")
    except UnicodeEncodeError:
        raise LoadError(f"{label}: {what} is not base64url") from None
    # The standard alphabet's + and / are not base64url; strict decoding rejects the rest.
    if b"+" in raw or b"/" in raw:
        raise LoadError(f"{label}: {what} is not base64url")
    if raw.endswith(b"="):
        raw = raw.rstrip(b"=")
    if len(raw) % 4 == 1:
        raise LoadError(f"{label}: {what} is not base64url (bad length)")
    # One translated copy; the missing padding is appended without another large copy.
    std = bytearray(raw.translate(_URL_TO_STD))
    std += b"=" * (-len(raw) % 4)
    del raw
    try:
        return binascii.a2b_base64(std, strict_mode=True)
    except binascii.Error:
        raise LoadError(f"{label}: {what} is not base64url") from None


def _header_json(value: Any, label: str, what: str) -> dict[str, Any]:
    """A base64url-encoded JSON object header (JWS/JWE ``protected``)."""
    raw = _b64url(value, label, what)
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise LoadError(f"{label}: {what} is not base64url JSON") from None
    if not isinstance(obj, dict):
        raise LoadError(f"{label}: {what} is not a JSON object")
    return obj


def _signatures(obj: dict[str, Any], label: str, where: str, layer: int) -> list[Pending]:
    """Each signature of one layer, checked as far as it can be before the signing time is
    known: headers (the protected header wins over the unprotected ``header``), alg, key,
    signature, chain links. A layer without a signature object gets one ``invalid`` entry, so
    it can never pass for verified."""
    from viewer import signatures as sigmod

    sigs = obj.get("signatures")
    payload = obj.get("payload")
    out: list[Pending] = []
    if not isinstance(sigs, list) or not any(isinstance(s, dict) for s in sigs):
        what = "an empty array" if sigs == [] else "not an array of signature objects"
        out.append(sigmod.Pending(Signature(None, None, 0, None, None, layer=layer),
                                  sigmod.INVALID, f"signatures is {what}: nothing is signed"))
        return out
    for i, sig in enumerate(sigs):
        if not isinstance(sig, dict):
            out.append(sigmod.Pending(Signature(None, None, 0, None, None, layer=layer, index=i),
                                      sigmod.INVALID, "the signature is not a JSON object"))
            continue
        merged: dict[str, Any] = {}
        header = sig.get("header")
        if isinstance(header, dict):
            merged.update(header)
        protected = None
        if sig.get("protected") is not None:
            protected = _header_json(sig["protected"], label,
                                     f"{where} signature {i} protected header")
            merged.update(protected)
        x5c = merged.get("x5c")
        entry = Signature(
            alg=_str(merged.get("alg")),
            kid=_str(merged.get("kid")),
            x5c=len(x5c) if isinstance(x5c, list) else 0,
            x5u=_str(merged.get("x5u")),
            uuid=_str(merged.get("uuid")),
            layer=layer,
            index=i,
        )
        out.append(sigmod.check_signature(entry, sig, protected, payload))
    return out


def signature_diagnostics(signatures: list[Signature]) -> list[Diagnostic]:
    """One diagnostic per signature, its code and severity from ``spec.SIGNATURE_STATUSES``."""
    from viewer import signatures as sigmod
    from viewer.model.spec import SIGNATURE_STATUSES

    out = []
    for s in signatures:
        code, severity, _meaning = SIGNATURE_STATUSES[s.verified]
        out.append(Diagnostic(code, severity, "",
                              f"signed layer {s.layer}, signature {s.index}: "
                              f"{sigmod.signature_line(s)}"))
    return out


def _jwe_headers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """JWE headers in the order a value is looked up: unprotected, protected, recipients."""
    out: list[dict[str, Any]] = []
    unprotected = obj.get("unprotected")
    if isinstance(unprotected, dict):
        out.append(unprotected)
    try:
        protected = _header_json(obj.get("protected"), "", "")
    except LoadError:
        protected = None
    if protected is not None:
        out.append(protected)
    recipients = obj.get("recipients")
    if isinstance(recipients, list):
        out.extend(r["header"] for r in recipients if isinstance(r, dict)
                   and isinstance(r.get("header"), dict))  # fmt: skip
    return out


def _jwe_uuid(obj: dict[str, Any]) -> str:
    """``uuid X`` from the unprotected header, else any header; ``unknown uuid`` otherwise."""
    for h in _jwe_headers(obj):
        if isinstance(h.get("uuid"), str):
            return f"uuid {safe(h['uuid'])}"
    return "unknown uuid"


def _jwe_enc(obj: dict[str, Any]) -> str:
    for h in _jwe_headers(obj):
        if isinstance(h.get("enc"), str):
            return safe(h["enc"])
    return "unknown"


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _strings(v: Any) -> tuple[str, ...]:
    """The string values of a list; a non-list is empty (the validator reports its type)."""
    if not isinstance(v, list):
        return ()
    return tuple(x for x in v if isinstance(x, str))
