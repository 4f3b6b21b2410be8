"""One way in: a file's bytes -> a ``Loaded`` the model builds from, whatever the file is.

load -> lift when needed -> build. A vCon is loaded as it is (``viewer.load``); a vCon in a
pre-draft agent shape, with no tool-lifecycle events of its own, is lifted here
(``viewer.importers.lift``), so the model reads an already-lifted ``Loaded`` and imports
nothing above itself. A file that is not a vCon at all (a Claude Code transcript, an OTLP export,
a Codex or Gemini session, an MCP transcript...) is recognised by its content
(``viewer.importers.formats``), imported, and loaded as the vCon the importer wrote, marked as
derived: the CLI, the viewer and every report show the same derived operations, and say so.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from viewer.load import (
    GZIP_MAGIC,
    Loaded,
    LoadError,
    gunzip,
    label_of,
    load_bytes,
    load_object,
    read_input,
)
from viewer.model import spec
from viewer.model.columns import Events, plain
from viewer.model.types import Derivation, Diagnostic
from viewer.textsafe import safe

if TYPE_CHECKING:
    from viewer.model.types import Model
    from viewer.signatures import TrustStore


def open_path(path: str, *, ignore_critical: bool = False,
              trust: TrustStore | None = None, defer_key_check: bool = False) -> Loaded:
    """Read ``path`` (``"-"``: stdin) read-only and open it."""
    return open_bytes(read_input(path), name=path, ignore_critical=ignore_critical, trust=trust,
                      defer_key_check=defer_key_check)


def open_bytes(data: bytes, *, name: str = "-", ignore_critical: bool = False,
               trust: TrustStore | None = None, defer_key_check: bool = False) -> Loaded:
    """A vCon as loaded (its signatures verified against ``trust``), or a recognised
    recording imported; else the loader's LoadError, or one line naming the formats that were
    tried. ``defer_key_check``: the viewer's way: a vCon's count of keys named twice is left
    for ``build.complete_checks`` (``load_bytes``), unless the vCon is lifted."""
    try:
        loaded = load_bytes(data, name=name, ignore_critical=ignore_critical, trust=trust,
                            defer_key_check=defer_key_check)
        if loaded.key_check is not None and not has_lifecycle_events(loaded.vcon):
            # the lifter reads every value and adds its diagnostics after the loader's
            loaded = loaded.settled()
        return lifted(loaded)
    except LoadError as exc:
        if not exc.foreign:
            raise
        refusal = exc
    return import_bytes(data, name=name, refusal=refusal)


def open_model(path: str, *, ignore_critical: bool = False,
               trust: TrustStore | None = None) -> Model:
    """The whole way: ``path`` opened (loaded, lifted or imported) and its model built."""
    from viewer.model.build import build_model

    return build_model(open_path(path, ignore_critical=ignore_critical, trust=trust))


def has_lifecycle_events(vcon: Any) -> bool:
    """Whether the vCon records any of the draft's tool-lifecycle events: then its own events
    are the operations, and nothing is lifted."""
    evs = vcon.get("events") if isinstance(vcon, dict) else None
    if isinstance(evs, Events):  # as the loader read them: by their Structs first
        return evs.any_of(spec.LIFECYCLE_EVENT_SET)
    return isinstance(evs, list) and any(
        isinstance(e, dict) and isinstance(e.get("type"), str)
        and e["type"] in spec.LIFECYCLE_EVENT_SET for e in evs)


def lifted(loaded: Loaded) -> Loaded:
    """``loaded`` with the operations derived from a pre-draft shape (an MCP proxy's dialogs,
    an ``mcp_session`` dialog, an ``agent_trace`` analysis) when it has no lifecycle events of
    its own and was not imported; else ``loaded`` itself. The file is never changed."""
    if loaded.derivation is not None or has_lifecycle_events(loaded.vcon):
        return loaded
    from viewer.importers.lift import derived_view  # imported only for a vCon that needs it

    view = derived_view(plain(loaded.vcon))  # the lifter reads and copies plain values
    if view is None:
        return loaded
    return replace(loaded, vcon=view.vcon, diagnostics=(*loaded.diagnostics, *view.diagnostics),
                   derived_from=view.derived_from, derivation=view.derivation)


def import_bytes(data: bytes, *, name: str = "-", refusal: LoadError | None = None,
                 fmt_name: str | None = None, options: dict | None = None) -> Loaded:
    """Import a recording (by ``fmt_name``, else recognised by content) and load the vCon."""
    from viewer.importers import formats

    label = label_of(name)
    body = gunzip(data, label, "") if data[:2] == GZIP_MAGIC else data
    if body[:3] == b"\xef\xbb\xbf":
        body = body[3:]
    smp = None if fmt_name else formats.sample(body)
    try:
        fmt = formats.by_name(fmt_name) if fmt_name else formats.detect(body, smp)
    except MemoryError:
        raise LoadError(f"{label}: too large for memory") from None
    except formats.AmbiguousInput as exc:
        names = " or ".join(f"'vcon-view import {f.name}'" for f in exc.candidates)
        raise LoadError(f"{label}: could be read as {exc}; convert it with {names} "
                        "FILE -o OUT.vcon.json") from None
    if fmt is None:
        tried = ", ".join(f.title for f in formats.formats())
        if smp is not None and not smp.is_doc and smp.lines and smp.lines[0] is not None:
            why = "JSON lines, not a vCon"
        else:
            why = refusal.message.split(": ", 1)[-1] if refusal else "not a vCon"
        raise LoadError(f"{label}: {why}; not a recording vcon-view imports either "
                        f"(tried: vCon, {tried})")
    try:
        vcon, report = fmt.convert(body, source_name=_base(name), **(options or {}))
    except formats.ImportInputError as exc:
        raise LoadError(f"{label}: read as {fmt.a_title}: {safe(str(exc))}") from None
    except (MemoryError, RecursionError):
        raise LoadError(f"{label}: {fmt.title} too large or too deep to import") from None
    loaded = load_object(vcon, data, name=name)
    n_ops = len({e.get("operation_id") for e in vcon.get("events", [])
                 if isinstance(e, dict) and e.get("operation_id")})
    objects = report.mapped + sum(report.ignored.values()) + report.unmapped
    title = report.title or fmt.title
    derivation = Derivation(
        format=fmt.name, title=title, objects=objects, unit=report.unit or fmt.unit,
        mapped=report.mapped, ignored=sum(report.ignored.values()), unmapped=report.unmapped,
        times=report.times)
    diags = [Diagnostic(
        "derived-events", "info", "",
        f"{label} is {report.article if report.title else fmt.article} {title}, not a vCon: "
        f"{n_ops} "
        f"{'operation was' if n_ops == 1 else 'operations were'} derived from it by "
        f"vcon-view's {fmt.name} importer ({derivation.line()}); the file is unchanged "
        f"(vcon-view import {fmt.name} writes the vCon)")]
    # whole sentences: Report.lines keeps a few whole examples (by count), never cut one short
    diags += [Diagnostic("derived-warning", "info", "", safe(w)) for w in report.lines()]
    return Loaded(vcon=loaded.vcon, source=loaded.source,
                  diagnostics=(*loaded.diagnostics, *diags), derivation=derivation,
                  derived_from=(f"{fmt.name}:{_base(name)}",))


def _base(name: str) -> str:
    return "stdin" if name == "-" else name.replace("\\", "/").rsplit("/", 1)[-1]
