"""The ``vcon-view`` command: a thin entry over the model shared with the TUI.

``vcon-view FILE`` opens the TUI; ``summary`` and ``check`` are headless and import only what
their format needs (``--format json`` never imports rich or textual), so scripts start fast.
Exit statuses (the README's exit table under *Headless: summary and check*): 0 fine, 1
``check`` found errors, 2 unusable input or usage, 3 unsupported critical extension without
``--ignore-critical``, 70 internal error.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

# Width of the text summary in a file (-o) or a pipe; the registry imports only the stdlib.
from viewer.report.formats import TEXT_WIDTH

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from pathlib import Path

    from viewer.model.types import Model
    from viewer.report.formats import ReportOptions
    from viewer.signatures import TrustStore

PROG = "vcon-view"
EX_OK, EX_FAIL, EX_USAGE, EX_CRITICAL, EX_SOFTWARE = 0, 1, 2, 3, 70


#: Set by ``console_main``: a headless command ends the process with ``os._exit`` as soon as its
#: output is written and flushed, skipping the release of the model (millions of objects on
#: a big file) and the interpreter teardown. In-process callers (tests, the TUI) go through
#: ``main`` and never set it.
_FAST_EXIT = False


class _Exit(Exception):
    """A one-line refusal with its exit status, printed by ``main``."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


#: The public name of a refusal (``_Exit`` is this module's short one).
Refusal = _Exit


# --- argument parsing -----------------------------------------------------------------------


def _tui_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog=PROG,
        description="Review AI agent tool invocations recorded in a vCon, or in an agent's "
                    "own recording (Claude Code, Codex, Gemini, Copilot, Cursor, OpenTelemetry, "
                    "MCP, Invariant), recognised by its content.",
        epilog=(
            "commands:\n"
            "  vcon-view FILE                 open the viewer (FILE may be - for stdin)\n"
            "  vcon-view summary FILE ...     headless summary (text, json, md, csv)\n"
            "  vcon-view check FILE ...       conformance check, exit 1 on errors\n"
            "  vcon-view import FORMAT FILE -o OUT  an agent recording as a vCon (claude-code, "
            "otlp, codex, gemini, copilot, cursor, mcp, invariant)\n"
            "  vcon-view import vcon FILE -o OUT   lift an older vCon's tool calls into events\n"
            "  vcon-view demo [NAME]          open a bundled demo incident (--list)\n"
            "  vcon-view scan PATH... -o OUT  many vCons into fleet tables (Parquet, ndjson)\n"
            "  vcon-view query OUT \"SQL\"     SQL over the fleet tables (DuckDB)\n"
            "  vcon-view report OUT           the fleet report (-o fleet.md|fleet.html)\n"
            "  vcon-view serve FILE [--port N]  the viewer in a browser, on 127.0.0.1\n"
            "run 'vcon-view summary -h' or 'vcon-view check -h' for their options.\n"
            "exit: 0 ok, 1 check failed, 2 unreadable/encrypted/usage, 3 unsupported critical"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    p.add_argument("file", metavar="FILE", help="vCon or agent recording, or - for stdin")
    p.add_argument("--ignore-critical", action="store_true",
                   help="open a vCon whose 'critical' names unsupported extensions (marked)")
    p.add_argument("--theme", metavar="NAME",
                   help="theme name (vcon-dark, vcon-light, vcon-high-contrast, "
                        "vcon-colorblind, your own, or a Textual theme); a theme picked in the "
                        "viewer is remembered")
    _trust_arg(p)
    p.add_argument("--goto", metavar="OPERATION_ID",
                   help="open with this operation selected (its id, or the start of one); an "
                        "id the file does not have opens it all the same and says so")
    return p


def _trust_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trust", metavar="PEM",
                   help="trust anchors for signed vCons: a PEM file of one or more "
                        "certificates, or a folder of .pem/.crt files; a signature whose x5c "
                        "chain reaches one is 'verified' (without: at best "
                        "'valid-signature-untrusted')")


def _trust(path: str | None) -> TrustStore | None:
    """``--trust``'s anchors (cryptography is imported only then); a bad path: exit 2."""
    if not path:
        return None
    from viewer.signatures import TrustError, TrustStore

    try:
        return TrustStore.load(path)
    except TrustError as exc:
        raise _Exit(str(exc), EX_USAGE) from None


def _version() -> str:
    from viewer import __version__

    return __version__


def demo_dir() -> Path:
    """The demo vCons: package data when installed, else the checkout's demo_vcons/."""
    from pathlib import Path

    here = Path(__file__).resolve().parent
    for candidate in (here / "data" / "demo_vcons", here.parent / "demo_vcons"):
        if candidate.is_dir():
            return candidate
    raise _Exit("the demo vCons are not installed", EX_USAGE)


def cmd_demo(argv: Sequence[str]) -> int:
    """``vcon-view demo [NAME]``: open a bundled demo incident (the tour by default)."""
    import argparse

    p = argparse.ArgumentParser(
        prog=f"{PROG} demo",
        description="Open a bundled demo incident in the viewer (default: the tour).",
    )
    p.add_argument("name", nargs="?", default="tour",
                   help="demo name or number prefix, e.g. 04 or double-refund")
    p.add_argument("--list", action="store_true", help="list the demos and exit")
    p.add_argument("--theme", metavar="NAME", help="theme name")
    _trust_arg(p)
    args = p.parse_args(argv)
    files = sorted(f for f in demo_dir().iterdir() if ".vcon.json" in f.name)
    if args.list:
        for f in files:
            print(f.name)
        return EX_OK
    hits = ([f for f in files if f.name.startswith(args.name)]  # "07" is 07-…, not …-07-28
            or [f for f in files if args.name in f.name])
    if not hits:
        raise _Exit(f"no demo named {args.name!r}; try 'vcon-view demo --list'", EX_USAGE)
    return cmd_tui([str(hits[0])] + (["--theme", args.theme] if args.theme else [])
                   + (["--trust", args.trust] if args.trust else []))


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="vCon or agent recording, or - for stdin")
    p.add_argument("--ignore-critical", action="store_true",
                   help="process a vCon whose 'critical' names unsupported extensions; every "
                        "output is then marked as produced under this override")
    _trust_arg(p)


def _summary_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog=f"{PROG} summary",
        description="Summarise the tool operations of a vCon. Exits 0 for any readable vCon.",
    )
    from viewer.report.formats import EVIDENCE_CHARS, EVIDENCE_MODES, FORMATS

    _common(p)
    p.add_argument("--format", "-f", choices=tuple(FORMATS), default="text",
                   help="; ".join(f"{f.name}: {f.description}" for f in FORMATS.values()))
    p.add_argument("--evidence", choices=EVIDENCE_MODES, default="findings",
                   help="md and html reports: quote the arguments, results and context of the "
                        "operations with a finding (default), of all operations, or of none")
    p.add_argument("--max-chars", type=_positive, default=EVIDENCE_CHARS, metavar="N",
                   help=f"quote at most N characters of one recorded value (default "
                        f"{EVIDENCE_CHARS}); the full length is stated")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write to OUT atomically instead of stdout (never the input file)")
    return p


def _positive(value: str) -> int:
    import argparse

    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value!r}")
    return n


def _fail_on(value: str) -> frozenset[str]:
    import argparse

    from viewer.model.spec import FINDING_BY_NAME, FINDING_KINDS

    names = {n.strip().lower() for n in value.split(",") if n.strip()}
    if not names:  # e.g. an unset $KINDS in CI: a gate that checks nothing must not pass
        raise argparse.ArgumentTypeError(
            f"names no finding kind; choose from {', '.join(FINDING_KINDS)} or all")
    if "all" in names:
        return frozenset(FINDING_KINDS)
    unknown = sorted(names - set(FINDING_BY_NAME))
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown finding kind(s): {', '.join(unknown)}; choose from "
            f"{', '.join(FINDING_KINDS)} or all (or their row labels: late, dup, viol...)"
        )
    return frozenset(FINDING_BY_NAME[n] for n in names)  # a row label stands for its kind


def _check_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog=f"{PROG} check",
        description="List conformance diagnostics and findings. Exits 1 when an error "
                    "diagnostic exists or a finding of a kind named in --fail-on.",
    )
    from viewer.report.check import CHECK_FORMATS

    _common(p)
    p.add_argument("--format", "-f", choices=tuple(CHECK_FORMATS), default="text")
    p.add_argument("--fail-on", metavar="KINDS", type=_fail_on, default=frozenset(),
                   help="comma-separated finding kinds that also fail the check "
                        "(e.g. policy-violation,duplicate-execution-risk), or all")
    p.add_argument("--require-signature", action="store_true",
                   help="also fail (exit 1) when the vCon is unsigned or any signature of any "
                        "layer is not 'verified' (use with --trust)")
    return p


# --- shared pipeline ------------------------------------------------------------------------


def _load_model(path: str, ignore_critical: bool, trust: str | None = None) -> Model:
    """Load and build the model; a LoadError becomes a one-line refusal with its status."""
    from viewer.load import LoadError
    from viewer.pipeline import open_model

    anchors = _trust(trust)
    try:
        return open_model(path, ignore_critical=ignore_critical, trust=anchors)
    except LoadError as exc:
        raise _Exit(exc.message, exc.exit_code) from None


class _MakingFailed(Exception):
    """An error of the code that makes the output's pieces (its cause), carried past the
    handlers of the writing's own errors (a refused target, a full disk)."""


def _made(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """``pieces``, each error of their making raised as ``_MakingFailed``."""
    it = iter(pieces)
    while True:
        try:
            piece = next(it)
        except StopIteration:
            return
        except Exception as exc:
            raise _MakingFailed from exc
        yield piece


def _emit(data: bytes | str | Iterable[bytes], output: str | None, input_path: str) -> None:
    """Write to OUT atomically (never over the input), or to stdout (pieces as they come).
    An error while the pieces are made is raised as it is (an internal error), not taken for
    an error of the writing."""
    if not isinstance(data, (bytes, str)):
        data = _made(data)
    try:
        _write(data, output, input_path)
    except _MakingFailed as exc:
        raise exc.__cause__ from None  # type: ignore[misc]


def _write(data: bytes | str | Iterable[bytes], output: str | None, input_path: str) -> None:
    if not isinstance(data, (bytes, str)) and (output is None or output == "-"):
        try:
            sys.stdout.flush()
            write = sys.stdout.buffer.write
            for piece in data:
                write(piece)
            sys.stdout.buffer.flush()
        except BrokenPipeError:  # piped into head: the reader has what it wanted
            _silence_stdout()
        except OSError as exc:  # a full disk (/dev/full), an I/O error: never silent
            _stdout_failed(exc)
        return
    if output is not None and output != "-":
        from viewer.report.write import write_atomic
        from viewer.textsafe import safe

        try:
            write_atomic(output, data, input_path=input_path)
        except ValueError as exc:
            raise _Exit(str(exc), EX_USAGE) from None
        except OSError as exc:
            raise _Exit(f"cannot write {safe(output)}: {safe(exc.strerror or exc)}",
                        EX_USAGE) from None
        return
    payload = data.encode("utf-8", "replace") if isinstance(data, str) else data
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(payload)
        sys.stdout.buffer.flush()
    except BrokenPipeError:  # piped into head: the reader has what it wanted
        _silence_stdout()
    except OSError as exc:  # a full disk (/dev/full), an I/O error: never silent
        _stdout_failed(exc)


def _stdout_failed(exc: OSError) -> None:
    """One line, exit 2: the output is incomplete. stdout is pointed at /dev/null first so
    that the exit flush cannot fail again."""
    from viewer.textsafe import safe

    _silence_stdout()
    raise _Exit(f"cannot write stdout: {safe(exc.strerror or exc)}; the output is incomplete",
                EX_USAGE)


def _finish(status: int) -> int:
    """Return ``status``; under ``console_main``, flush and end the process here instead.

    Called while the model is still referenced, so its release is never paid for.
    """
    if _FAST_EXIT:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BrokenPipeError:
                if stream is sys.stdout:
                    _silence_stdout()
            except (OSError, ValueError):
                if stream is sys.stdout:
                    _silence_stdout()
                    _err("cannot write stdout; the output is incomplete")
                    status = EX_USAGE
        os._exit(status)
    return status


# --- commands -------------------------------------------------------------------------------


def _report_options(args: argparse.Namespace) -> ReportOptions:
    """The report's options: evidence, quote length, report time and the command as given."""
    from viewer.report.formats import ReportOptions, ReportTimeError, report_time

    try:
        when = report_time()
    except ReportTimeError as exc:
        raise _Exit(str(exc), EX_USAGE) from None
    return ReportOptions(evidence=args.evidence, max_chars=args.max_chars,
                         command=_shown_options(args), time=when, width=TEXT_WIDTH)


def _shown_options(args: argparse.Namespace) -> tuple[str, ...]:
    """The options in effect (defaults included), for the provenance block. The input is
    named by the block itself; the output path says nothing about the evidence."""
    out = ["summary", "--format", args.format, "--evidence", args.evidence,
           "--max-chars", str(args.max_chars)]
    if args.ignore_critical:
        out.append("--ignore-critical")
    if args.trust:  # the anchors a "verified" status rests on
        out += ["--trust", args.trust]
    return tuple(out)


def cmd_summary(args: argparse.Namespace) -> int:
    from viewer.report.formats import FORMATS

    model = _load_model(args.file, args.ignore_critical, args.trust)
    fmt = FORMATS[args.format]
    opts = _report_options(args)
    if fmt.name == "text" and (args.output is None or args.output == "-"):
        from rich.console import Console

        from viewer.report.text import render_text

        # Piped (no terminal, no COLUMNS): as wide as a file from -o, not Rich's 80 columns,
        # so ids and servers stay on one line for grep.
        piped = not sys.stdout.isatty() and not os.environ.get("COLUMNS")
        try:
            sys.stdout.flush()
            Console(highlight=False, emoji=False, width=TEXT_WIDTH if piped else None).print(
                render_text(model))
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
        except OSError as exc:
            _stdout_failed(exc)
        return _finish(EX_OK)
    _emit(fmt.render(model, opts), args.output, args.file)
    return _finish(EX_OK)


def check_status(model: Model, fail_on: frozenset[str], require_signature: bool = False) -> int:
    """1 when an error diagnostic exists, a finding of a kind in ``fail_on``, or (with
    ``require_signature``) a signature requirement not met; else 0."""
    if any(d.severity == "error" for d in model.diagnostics):
        return EX_FAIL
    if any(f.kind in fail_on for f in model.findings):
        return EX_FAIL
    if require_signature and signature_unmet(model) is not None:
        return EX_FAIL
    return EX_OK


def signature_unmet(model: Model) -> str | None:
    """Why ``--require-signature`` fails for ``model`` (None: every signature verified)."""
    from viewer.signatures import all_verified, overall

    src = model.source
    if not src.signed_layers:
        return f"the vCon is {src.form}: no signature to verify"
    if all_verified(src):
        return None
    bad = [s for s in src.signatures if s.verified != "verified"]
    first = bad[0]
    more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
    return (f"not every signature is verified ({overall(src)}): signed layer {first.layer}, "
            f"signature {first.index} is {first.verified}{more}")


def cmd_check(args: argparse.Namespace) -> int:
    from viewer.report.check import CHECK_FORMATS, CheckOutcome

    model = _load_model(args.file, args.ignore_critical, args.trust)
    status = check_status(model, args.fail_on, args.require_signature)
    unmet = signature_unmet(model) if args.require_signature else None
    outcome = CheckOutcome(status, args.fail_on, args.require_signature, unmet)
    _emit(CHECK_FORMATS[args.format](model, outcome), None, args.file)
    return _finish(status)


def cmd_tui(argv: Sequence[str]) -> int:
    args = _tui_parser().parse_args(argv)
    from viewer.load import LoadError, check_path, read_input

    data = None
    try:
        if args.file == "-":
            if sys.stdin is not None and sys.stdin.isatty():
                raise _Exit("stdin is the terminal: pipe a vCon in (cat FILE | vcon-view -) "
                            "or name FILE", 2)
            data = read_input("-")
        else:
            check_path(args.file)  # a missing file or a folder: one line here, no screen
    except LoadError as exc:
        raise _Exit(exc.message, exc.exit_code) from None
    trust = _trust(args.trust)
    need_terminal()
    from viewer.tui.app import run

    try:
        extra: dict[str, Any] = {"goto": args.goto} if args.goto is not None else {}
        if _FAST_EXIT:  # quit ends the process at once (``_finish``), workers or not
            extra["fast_exit"] = True
        return _finish(run(args.file, ignore_critical=args.ignore_critical, theme=args.theme,
                           data=data, trust=trust, **extra))
    except LoadError as exc:
        raise _Exit(exc.message, exc.exit_code) from None


#: Textual's web driver, as textual-serve names it for the viewer it starts (``vcon-view serve``).
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def need_terminal(out_fd: int = 1) -> None:
    """The viewer draws on stdout and reads keys from stdin. Without a terminal on stdout it
    would draw into a file or pipe forever (and spin): one clear line instead. A stdin that is
    not a terminal (piped vCon, </dev/null) gives way to the terminal for keys."""
    if os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER:  # served: the pipes carry the screen
        return
    if not os.isatty(out_fd):
        raise _Exit("the viewer needs a terminal, and stdout is not one (for a script, try "
                    "`vcon-view summary FILE` or `vcon-view check FILE`)", 2)
    keys_from_terminal()


def keys_from_terminal(fd: int = 0, tty: str = "/dev/tty") -> None:
    """Put the terminal in the place of standard input (file descriptor ``fd``), as ``less``
    does: the viewer reads its keys there, and a vCon piped in has been read whole already.
    Nothing happens when ``fd`` already is a terminal; with no terminal, one clear line."""
    if os.isatty(fd):
        return
    try:
        term = os.open(tty, os.O_RDWR | os.O_NOCTTY)
    except OSError:
        raise _Exit("stdin: the viewer reads its keys from the terminal, and there is none "
                    "(for a script, try `vcon-view summary -` or `vcon-view check -`)", 2) from None
    try:
        os.dup2(term, fd)
    finally:
        os.close(term)


def _import_hook(argv: Sequence[str]) -> int:
    """``vcon-view import ...``: delegated to ``viewer.importers.cli`` when it exists.

    That module provides ``main(argv, finish) -> int``; the importers are another package's
    job. ``_finish`` is called while the imported vCon is still referenced.
    """
    try:
        from viewer.importers.cli import main as import_main  # type: ignore[import-not-found]
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("viewer.importers"):
            raise _Exit("import is not available in this build", EX_USAGE) from None
        raise
    return int(import_main(list(argv), _finish))


def _serve(argv: Sequence[str]) -> int:
    """``vcon-view serve``: imported only when it runs (textual-serve is the ``serve`` extra)."""
    from viewer.serve import cmd_serve

    return cmd_serve(argv)


def _parsed(
    parser_factory: Callable[[], argparse.ArgumentParser],
    command: Callable[[argparse.Namespace], int],
) -> Callable[[Sequence[str]], int]:
    """Parse, then run the headless command with the cyclic collector paused
    (``_collector_paused``)."""

    def run(argv: Sequence[str]) -> int:
        return command(parser_factory().parse_args(argv))

    return _collector_paused(run)


def _collector_paused(command: Callable[[Sequence[str]], int]) -> Callable[[Sequence[str]], int]:
    """``command`` run with the cyclic collector paused, and restored after it for in-process
    callers (tests, the TUI): what the headless commands build (models, imported events) is
    acyclic and made in one go, so collector passes over it cost much time (half of an MCP
    capture's import) and free nothing; reference counting still frees everything."""

    def run(argv: Sequence[str]) -> int:
        import gc

        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return command(argv)
        finally:
            if was_enabled:
                gc.enable()

    return run


def _fleet(name: str) -> Callable[[Sequence[str]], int]:
    """A fleet command (``viewer.fleet.cli``), imported only when it runs."""

    def run(argv: Sequence[str]) -> int:
        from viewer.fleet import cli as fleet

        return int(getattr(fleet, f"cmd_{name}")(argv))

    return _collector_paused(run)


#: Subcommands by name; each takes the arguments after its name and returns the exit status.
#: A file literally named like a subcommand can be opened as ./summary.
SUBCOMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "summary": _parsed(_summary_parser, cmd_summary),
    "check": _parsed(_check_parser, cmd_check),
    "import": _collector_paused(_import_hook),
    "demo": cmd_demo,
    "scan": _fleet("scan"),
    "query": _fleet("query"),
    "report": _fleet("report"),
    "serve": _serve,
}


# --- entry ----------------------------------------------------------------------------------


def _err(message: str) -> None:
    try:
        sys.stderr.write(f"{PROG}: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the exit flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Console-script entry. Returns the exit status (``sys.exit(main())``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if not args:
            _tui_parser().print_usage(sys.stderr)
            _err("a FILE or a command (summary, check) is required; -h for help")
            return EX_USAGE
        handler = SUBCOMMANDS.get(args[0])
        if handler is not None:
            return handler(args[1:])
        return cmd_tui(args)
    except _Exit as exc:
        _err(exc.message)
        return exc.code
    except SystemExit as exc:  # argparse: usage errors (2) and -h (0); SIGTERM (143)
        if exc.code is None:
            return EX_OK
        return exc.code if isinstance(exc.code, int) else EX_USAGE
    except BrokenPipeError:
        _silence_stdout()
        return EX_OK
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if os.environ.get("VCON_VIEW_DEBUG") == "1":
            raise
        from viewer.textsafe import safe

        _err(f"internal error: {type(exc).__name__}: {safe(str(exc))[:300]} "
             "(set VCON_VIEW_DEBUG=1 for a traceback)")
        return EX_SOFTWARE


def console_main() -> int:
    """The ``vcon-view`` console script: ``main`` with the fast exit of the headless commands."""
    global _FAST_EXIT
    _FAST_EXIT = True
    _terminate_cleanly()
    return main()


def _terminate_cleanly() -> None:
    """SIGTERM (a CI timeout, ``kill``) raises SystemExit(143) in the main thread instead of
    ending the process on the spot: ``write_atomic`` then removes its temporary file (its
    ``except BaseException``) before the process ends."""
    import contextlib
    import signal

    def handler(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    with contextlib.suppress(ValueError, OSError):  # not the main thread, or no SIGTERM
        signal.signal(signal.SIGTERM, handler)


if __name__ == "__main__":
    sys.exit(console_main())
