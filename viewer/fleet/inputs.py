"""What ``scan`` reads: PATH arguments expanded into files, and each file's bytes.

A PATH is a folder (walked recursively, keeping the vCon suffixes below, each also ``.gz``; a
vcon-server conserver's ``lookup/*.txt`` indexes have none of them), a glob, ``-`` (one path per
line on stdin), a file (read whatever its name), or a URI read through ``pyarrow.fs``
(``s3://``, ``gs://``, ``abfs://``, ``az://``, ``file://``). Listing happens once, in the
parent; reading happens in the workers, each file by its canonical URI.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any, NamedTuple
from urllib.parse import unquote, urlsplit

from viewer.fleet.tables import canonical_uri

#: Names a folder walk keeps (lower-cased): the conserver's .json and .vcon, and .vcon.json.
SUFFIXES = (".vcon", ".vcon.json", ".json")
_KEEP = tuple(s + gz for s in SUFFIXES for gz in ("", ".gz"))
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://").match
_GLOB = re.compile(r"[*?\[]").search


class Input(NamedTuple):
    """One file to scan: its canonical URI and its size when the listing knew it."""

    uri: str
    size: int | None


class InputError(Exception):
    """A PATH that cannot be listed (an unknown URI scheme, a store that refused): usage."""


def wanted(name: str) -> bool:
    """A file a folder walk keeps: a vCon suffix (``.gz`` too), not a conserver lookup index,
    not the ``_scan.json`` of a scan written inside the folder."""
    return name.lower().endswith(_KEEP) and name != "_scan.json"


def expand(paths: Iterable[str], stdin_lines: Iterable[str] = ()) -> list[Input]:
    """Every file named by ``paths`` (``-`` reads ``stdin_lines``), once each, in order:
    each PATH's files sorted by URI, PATHs in the order given."""
    seen: set[str] = set()
    out: list[Input] = []
    for path in paths:
        if path == "-":
            names = [line.rstrip("\r\n") for line in stdin_lines]
            found = [i for n in names if n.strip() for i in _expand_one(n.strip())]
        else:
            found = list(_expand_one(path))
        for item in found:
            if item.uri not in seen:
                seen.add(item.uri)
                out.append(item)
    return out


def _expand_one(path: str) -> Iterator[Input]:
    if _URI(path) and not path.lower().startswith("file://"):
        yield from _expand_fs(path)
        return
    local = local_path(path) if _URI(path) else path
    if _GLOB(local) and not os.path.exists(local):
        matches = sorted(glob.glob(local, recursive=True))
        items: list[Input] = []
        for m in matches:
            items.extend(_expand_local(m, explicit=os.path.isfile(m)))
        yield from sorted(items)
        return
    yield from _expand_local(local, explicit=True)


def _expand_local(path: str, *, explicit: bool) -> Iterator[Input]:
    if os.path.isdir(path):
        found = []
        for root, dirs, files in os.walk(path):
            dirs.sort()
            for name in files:
                if wanted(name):
                    full = os.path.join(root, name)
                    try:
                        size: int | None = os.path.getsize(full)
                    except OSError:
                        size = None
                    found.append(Input(canonical_uri(full), size))
        yield from sorted(found)
    elif explicit or wanted(path):
        # A file named on the command line is read whatever its name; a missing one becomes a
        # refused row (summary's "no such file"), not a failed scan.
        try:
            size = os.path.getsize(path)
        except OSError:
            size = None
        yield Input(canonical_uri(path), size)


def local_path(uri: str) -> str:
    """The local path of a ``file://`` URI (percent-escapes decoded); a path as it is."""
    if uri.lower().startswith("file://"):
        return unquote(urlsplit(uri).path)
    return uri


# --- object stores (pyarrow.fs) ------------------------------------------------------------


def _expand_fs(uri: str) -> Iterator[Input]:
    from pyarrow import fs as pafs

    filesystem, path, to_uri = resolve(uri)
    try:
        info = filesystem.get_file_info(path)
        if info.type == pafs.FileType.Directory:
            infos = filesystem.get_file_info(pafs.FileSelector(path, recursive=True))
            files = sorted((i for i in infos
                            if i.type == pafs.FileType.File and wanted(i.base_name)),
                           key=lambda i: i.path)
            for i in files:
                yield Input(to_uri(i.path), i.size)
        else:
            yield Input(uri, info.size if info.type == pafs.FileType.File else None)
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        from viewer.textsafe import safe

        raise InputError(f"{safe(uri)}: cannot list ({safe(str(exc).splitlines()[0])})") from None


def resolve(uri: str) -> tuple[Any, str, Callable[[str], str]]:
    """(filesystem, path in it, path in it -> URI) for a store URI.

    ``s3://bucket/key``, ``gs://bucket/key`` and ``az://container/key`` (Azure with the account
    in ``AZURE_STORAGE_ACCOUNT_NAME``, as fsspec reads ``az://``) are ``bucket/key`` in their
    filesystem; ``abfs://container@account.../key`` is ``container/key``."""
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    filesystem = filesystem_for(scheme, parts.netloc)
    if scheme in ("abfs", "abfss"):
        container = parts.netloc.split("@", 1)[0]
        head = f"{scheme}://{parts.netloc}/"

        def to_uri(p: str) -> str:
            return head + p.lstrip("/")[len(container) + 1:]

        return filesystem, (container + parts.path).rstrip("/"), to_uri
    head = f"{scheme}://"
    return filesystem, (parts.netloc + parts.path).rstrip("/"), lambda p: head + p.lstrip("/")


@lru_cache(maxsize=32)
def filesystem_for(scheme: str, netloc: str) -> Any:
    """One filesystem per store and process (credentials are resolved once)."""
    if scheme == "az":
        from pyarrow import fs as pafs

        account = os.environ.get("AZURE_STORAGE_ACCOUNT_NAME")
        if not account:
            raise InputError("az:// needs AZURE_STORAGE_ACCOUNT_NAME (or write "
                             "abfs://container@account.dfs.core.windows.net/path)")
        return pafs.AzureFileSystem(account_name=account)
    filesystem, _ = _from_uri(f"{scheme}://{netloc}/")
    return filesystem


def _from_uri(uri: str) -> tuple[Any, str]:
    from pyarrow import fs as pafs

    try:
        return pafs.FileSystem.from_uri(uri)
    except (OSError, ValueError) as exc:
        from viewer.textsafe import safe

        raise InputError(f"{safe(uri)}: {safe(str(exc).splitlines()[0])}") from None


def read(uri: str) -> bytes:
    """The bytes of one listed file; failures raise ``viewer.load.LoadError`` (summary's
    one-line refusal: no such file, permission denied, cannot read)."""
    from viewer.load import LoadError, _read_errors, label_of

    label = label_of(uri)
    if not _URI(uri) or uri.lower().startswith("file://"):
        with _read_errors(label), open(local_path(uri), "rb") as f:
            return f.read()
    try:
        filesystem, path, _ = resolve(uri)
    except InputError as exc:
        raise LoadError(str(exc)) from None
    with _read_errors(label), filesystem.open_input_stream(path, compression=None) as f:
        return f.read()
