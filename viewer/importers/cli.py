"""``vcon-view import FORMAT FILE -o OUT``: one subcommand per registered format
(``viewer.importers.formats``), and ``vcon-view import vcon FILE -o OUT``.

Exit statuses: 0 written (warnings, if any, on stderr), 2 nothing could be read or the output
cannot be written (never over the input), 3 unsupported critical extension in ``import vcon``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from viewer.importers.common import Report
from viewer.textsafe import safe

PROG = "vcon-view import"
EX_OK, EX_USAGE = 0, 2


def _parser() -> argparse.ArgumentParser:
    from viewer.importers.formats import formats

    fmts = formats()
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Convert agent traffic into a vCon with tool-invocation events.",
        epilog=(
            "formats of 'mcp': JSONL of {ts, dir, msg} lines (dir: c2s/s2c, client_to_server/"
            "server_to_client, client->server/server->client); JSONL (or a JSON array) of "
            "JSON-RPC messages (no times: order only); mcp-recorder and agent-vcr cassettes; "
            "MCP Inspector history exports; mcp-debug --record recordings; Claude Desktop's "
            "MCP logs (mcp.log, mcp-server-NAME.log); VS Code's MCP output channel.\n"
            "'vcon': a vCon with vcon-mcp-proxy dialogs, an mcp_session dialog or an "
            "agent_trace analysis; the derived events are written as a new vCon.\n"
            "vcon-view FILE, summary and check recognise every format but 'vcon' by content "
            "and show the derived operations directly.\n"
            "exit: 0 written (warnings on stderr), 2 nothing readable or cannot write"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    names = [f.name for f in fmts] + ["vcon"]
    sub = p.add_subparsers(dest="kind", required=True, metavar="{" + ",".join(names) + "}")
    subs = []
    for f in fmts:
        q = sub.add_parser(f.name, help=f.help or f.title)
        q.add_argument("file", metavar="FILE", help=f"{f.title}, or - for stdin")
        if f.add_arguments is not None:
            f.add_arguments(q)
        subs.append(q)
    v = sub.add_parser("vcon", help="a vCon in a pre-draft agent shape")
    v.add_argument("file", metavar="FILE", help="vCon file, or - for stdin")
    v.add_argument("--ignore-critical", action="store_true",
                   help="read a vCon whose 'critical' names unsupported extensions")
    for q in (*subs, v):
        q.add_argument("-o", "--output", metavar="OUT", required=True,
                       help="the vCon to write (atomically; never the input file); - for stdout")
        q.add_argument("-q", "--quiet", action="store_true", help="no warnings on stderr")
    return p


def _err(line: str) -> None:
    sys.stderr.write(f"vcon-view: {line}\n")


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        return f.read()


def _cannot_read(path: str, exc: OSError) -> int:
    _err(f"{safe(path)}: cannot read ({safe(exc.strerror or exc)})")
    return EX_USAGE


def _same(status: int) -> int:
    return status


def main(argv: Sequence[str], finish: Callable[[int], int] = _same) -> int:
    """Entry from ``viewer.cli``; returns the exit status. ``finish`` is given the status of
    a written vCon while the vCon is still referenced (the console script's ``finish`` ends
    the process there, so freeing what the import built is never paid for)."""
    args = _parser().parse_args(list(argv))
    if args.kind != "vcon" and args.file != "-" and os.path.isdir(args.file):
        return _import_dir(args, finish)
    try:
        data = _read(args.file)
    except OSError as exc:
        return _cannot_read(args.file, exc)
    name = "stdin" if args.file == "-" else args.file.replace("\\", "/").rsplit("/", 1)[-1]
    if args.kind != "vcon":
        from viewer.importers.formats import by_name

        converted = _imported(args, by_name(args.kind).convert, data, source_name=name)
        if isinstance(converted, int):
            return converted
        vcon, report = converted
    else:
        from viewer.importers.lift import NothingToLift, convert_vcon
        from viewer.load import LoadError

        try:
            vcon, report = convert_vcon(data, source_name=name,
                                        ignore_critical=args.ignore_critical)
        except LoadError as exc:
            _err(exc.message)
            return exc.exit_code
        except NothingToLift as exc:
            _err(f"{safe(args.file)}: {exc}")
            return EX_USAGE
        except (MemoryError, RecursionError):
            _err(f"{safe(args.file)}: too large or too deeply nested to lift "
                 "(summary and the viewer read it)")
            return EX_USAGE
    return finish(_write(vcon, report, args))


def _import_dir(args: argparse.Namespace, finish: Callable[[int], int]) -> int:
    """A directory: only a format whose module has ``convert_path`` (claude-code: a project
    directory of sessions) reads one; files go through the registry's ``convert``."""
    from viewer.importers.formats import by_name

    fmt = by_name(args.kind)
    mod = importlib.import_module(fmt.convert.__module__)
    convert_path = getattr(mod, "convert_path", None)
    if convert_path is None:
        _err(f"{safe(args.file)}: is a directory ('import {fmt.name}' reads a file)")
        return EX_USAGE
    if args.output != "-":
        out = os.path.realpath(args.output)
        listed = getattr(mod, "project_files", lambda _p: [])(args.file)
        if any(os.path.realpath(f) == out for f in listed):
            _err(f"refusing to write {safe(args.output)}: it is one of the input files")
            return EX_USAGE
    try:
        converted = _imported(args, convert_path, args.file)
    except OSError as exc:
        return _cannot_read(args.file, exc)
    if isinstance(converted, int):
        return converted
    return finish(_write(*converted, args))


def _imported(args: argparse.Namespace, convert: Callable[..., tuple[dict, Report]],
              *source: Any, **named: Any) -> tuple[dict, Report] | int:
    """``convert(*source, **named)`` with the format's own options, or the exit status once it
    has said why not: input the format cannot read, or too large or too deeply nested, is a
    usage error naming the file. A file and a directory are imported so."""
    from viewer.importers.formats import ImportInputError, by_name

    options = {k: getattr(args, k) for k in by_name(args.kind).options}
    try:
        return convert(*source, **named, **options)
    except ImportInputError as exc:
        _err(f"{safe(args.file)}: {safe(str(exc))}")
    except (MemoryError, RecursionError):
        _err(f"{safe(args.file)}: too large or too deeply nested to import")
    return EX_USAGE


def _write(vcon: dict, report: Report, args: argparse.Namespace) -> int:
    from viewer.report.summary import iter_dumps
    from viewer.report.write import write_atomic

    pieces = iter_dumps(vcon, ("dialog", "events"))  # the big arrays a batch at a time
    try:
        if args.output == "-":  # stdout, as `summary -o -` (a pipe into the viewer or check)
            sys.stdout.flush()
            for piece in pieces:
                sys.stdout.buffer.write(piece)
            sys.stdout.buffer.flush()
        else:
            write_atomic(args.output, pieces, input_path=args.file)
    except ValueError as exc:
        _err(str(exc))
        return EX_USAGE
    except BrokenPipeError:
        return EX_OK
    except OSError as exc:
        where = "stdout" if args.output == "-" else safe(args.output)
        _err(f"cannot write {where}: {safe(exc.strerror or exc)}")
        return EX_USAGE
    if not args.quiet:
        n_ops = len({e["operation_id"] for e in vcon["events"] if "operation_id" in e})
        where = "stdout" if args.output == "-" else safe(args.output)
        _err(f"wrote {where}: {n_ops} operation(s), "
             f"{len(vcon['events'])} event(s)")
        for line in report.lines():
            _err(f"warning: {safe(line)}")
    return EX_OK
