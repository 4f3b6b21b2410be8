"""Write an export without ever damaging the input.

An export written over the vCon it was made from would destroy the evidence under review, so
the target is checked against the input first (same inode, or the same resolved path when the
target does not exist yet). The data goes to a temporary file in the target's directory, is
fsynced and then renamed over the target, so a reader never sees a half-written export. A new
export is created readable by its owner only (it may quote sensitive tool output). A target
that is not a regular file (``/dev/null``, ``/dev/stdout``, a FIFO) is written in place: a
rename would replace the device itself.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path


def _is_stdin(target: Path) -> bool:
    """``target`` is the file standard input reads (``summary - -o in.json < in.json``)."""
    try:
        st_in = os.fstat(0)
        st_out = os.stat(target)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st_in.st_mode) and (st_in.st_dev, st_in.st_ino) == (
        st_out.st_dev, st_out.st_ino)


def _same_file(target: Path, input_path: str | None) -> bool:
    if input_path is None:
        return False
    if input_path == "-":
        return _is_stdin(target)
    src = Path(input_path)
    try:
        if os.path.samefile(target, src):
            return True
    except OSError:
        pass  # one of them does not exist: fall back to comparing resolved paths
    try:
        return target.resolve() == src.resolve()
    except (OSError, RuntimeError):
        return False


def write_atomic(path: str | Path, data: bytes | str | Iterable[bytes], *,
                 input_path: str | None) -> None:
    """Write ``data`` to ``path`` atomically; refuse when ``path`` is the input file. ``data``
    may come in pieces (the summary JSON of a big file): each is written as it comes, so the
    whole never has to be in memory.

    Raises ValueError (one-line message) for a refused target, OSError when writing fails.
    """
    from viewer.textsafe import safe

    target = Path(path)
    if _same_file(target, input_path):
        what = "standard input's file" if input_path == "-" else "the input file"
        raise ValueError(f"refusing to write {safe(str(path))}: it is {what}")
    if target.is_dir():
        raise ValueError(f"refusing to write {safe(str(path))}: it is a directory")
    pieces = ((data.encode("utf-8", "replace") if isinstance(data, str) else data,)
              if isinstance(data, (bytes, str)) else data)
    if target.is_symlink():  # replace the file the link names, keep the link
        target = target.resolve()
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        # A device, FIFO or socket (``-o /dev/stdout``, ``-o /dev/null``): renaming over it
        # would replace the device with a regular file, so write to it in place.
        with open(target, "wb") as fh:
            for piece in pieces:
                fh.write(piece)
        return
    directory = target.parent if str(target.parent) else Path(".")
    # SIGTERM (SystemExit in the CLI) is held while the temporary file is made: between its
    # creation and the ``try`` below nothing could remove it. Released inside the ``try``.
    held = _hold_sigterm()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except BaseException:
        _release_sigterm(held)  # no file was made: nothing to remove
        raise
    try:
        _release_sigterm(held)
        with os.fdopen(fd, "wb") as fh:
            for piece in pieces:
                fh.write(piece)
            fh.flush()
            os.fsync(fh.fileno())
        # keep the mode of an export being replaced; a new one stays 0600 (mkstemp)
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    try:  # make the rename itself durable; not possible on every platform
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(dfd)
    finally:
        os.close(dfd)


def _hold_sigterm() -> tuple[object, list[int]] | None:
    """Record a SIGTERM instead of acting on it (main thread only: elsewhere Python cannot
    take signals); the previous handler and what was recorded, or None. A handler, not a
    signal mask: another thread would take a masked process signal for the main thread."""
    import signal

    got: list[int] = []
    try:
        old = signal.signal(signal.SIGTERM, lambda signum, frame: got.append(signum))
    except (ValueError, OSError):
        return None
    return old, got


def _release_sigterm(held: tuple[object, list[int]] | None) -> None:
    """Put the previous handler back; a SIGTERM that came meanwhile is acted on now."""
    if held is None:
        return
    import signal

    old, got = held
    signal.signal(signal.SIGTERM, old)  # type: ignore[arg-type]
    if got:
        if callable(old):
            old(signal.SIGTERM, None)  # the CLI's: SystemExit(143), inside the writer's try
        elif old == signal.SIG_DFL:
            os.kill(os.getpid(), signal.SIGTERM)
