"""What every command of the command line shares: the usage error, the exit codes, the one
boundary between a command and the process (:func:`run_command`), reading a reply, the checks on
output targets, and the options ``apply`` and ``review`` take alike.

Exit codes (docs/cli.md, :mod:`redline.exits`): 0 every edit applied; 1 the run completed with
unapplied edits; 2 usage error; 3 an input was refused (no output document written); 70 a bug of
ours (``internal_error``, the traceback on stderr).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from redline.errors import Refused
from redline.exits import EXIT_INTERNAL, EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED, EXIT_USAGE
from shared_schema import Code

# What a command needs is imported when it runs, never at start-up: `--version` and `--help`
# import neither lxml nor pydantic.
if TYPE_CHECKING:
    from redline.apply import ApplyOptions
    from redline.opc.convert import Loss
    from shared_schema import Refusal
    from shared_schema.records import RefusalRecord

__all__ = [
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_UNAPPLIED",
    "EXIT_USAGE",
    "UsageError",
    "apply_options",
    "check_docx_output",
    "check_output",
    "check_paths",
    "check_targets",
    "default_output",
    "parse_command",
    "read_document",
    "read_input",
    "read_reply",
    "refuse",
    "run_command",
    "warn",
]


class UsageError(Refused):
    """The command line was used wrongly (exit 2); its code is always :attr:`Code.USAGE`."""

    def __init__(self, message: str) -> None:
        super().__init__(Code.USAGE, message)


def parse_command(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace | int:
    """The command line's arguments, or the exit code when there is nothing to run: ``--help``
    (0), a usage error (2, argparse has said why) or no command at all (2, with the help)."""
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # said with the usage of the command they were given to, not the program's
            _command_parser(parser, getattr(args, "command", None)).error(
                f"unrecognized arguments: {' '.join(extra)}"
            )
    except SystemExit as exc:
        return EXIT_OK if exc.code in (0, None) else EXIT_USAGE
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    return args


def _command_parser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The subcommand's own parser (for its usage line), or the program's."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            found: argparse.ArgumentParser = action.choices[command]
            return found
    return parser


def run_command(prog: str, command: Callable[[], int]) -> int:
    """Run one command and return its exit code: the command line's one boundary.

    What the command raises becomes a code here, and only here: a :class:`UsageError` (and an
    ``--author`` or ``--date`` that cannot be written) exits 2; any other refusal
    (:class:`~redline.errors.Refused`: a refused input, a :class:`PackageError`) and a foreign
    failure, with the code :func:`redline.errors.map_foreign` gives it in a command -- the
    operating system's (``OSError``: a file that cannot be read or written) or a codec's
    (``UnicodeError``: a terminal that cannot show the text), both ``io_error`` -- exit 3 with
    the code and the message on stderr; standard output closed by its reader (``| head``) ends
    the command quietly, exit 0; anything else is a bug of ours: ``internal_error``, the
    traceback on stderr, exit 70 -- never a code about the user's file.
    """
    try:
        code = command()
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except BrokenPipeError:
        return _stdout_closed()
    except UsageError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        from redline.errors import Where, map_foreign
        from redline.write.arguments import ArgumentError

        if isinstance(exc, ArgumentError):  # an argument of the command line's
            print(f"{prog}: --{exc.field}: {exc.message}", file=sys.stderr)
            return EXIT_USAGE
        found = map_foreign(exc, Where.COMMAND)  # a Refused is its own refusal
        if found is not None:
            return refuse(prog, found)
        import traceback  # (only a bug of ours prints one)

        traceback.print_exc(file=sys.stderr)
        print(
            f"{prog}: internal error: {type(exc).__name__}: {exc}; this is a bug in redline, not "
            f"in the input [{Code.INTERNAL_ERROR}]",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _stdout_closed() -> int:
    """Standard output was closed by its reader (``redline view DOC | head``): the reader has
    what it wanted, so the command ends quietly (exit 0), with nothing more written to it --
    not even by the interpreter's own flush at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real descriptor behind sys.stdout (a test's capture)
        pass
    return EXIT_OK


def refuse(prog: str, refusal: Refusal | RefusalRecord) -> int:
    """Say on stderr why an input was refused; the exit code for it (3)."""
    print(f"{prog}: refused: {refusal.message} [{refusal.code}]", file=sys.stderr)
    return EXIT_REFUSED


def read_reply(source: str) -> bytes:
    """The reply's bytes from a file or ``-`` (standard input), at most
    :data:`redline.opc.inputs.MAX_REPLY_BYTES`; a FIFO, a device, a folder or an oversized reply is
    refused before it is read whole (:func:`redline.opc.inputs.read_regular`)."""
    from redline.opc.inputs import MAX_REPLY_BYTES, read_regular, read_stream

    if source == "-":
        return read_stream(sys.stdin.buffer, MAX_REPLY_BYTES, "reply")
    return read_regular(source, MAX_REPLY_BYTES, "reply")


def read_document(source: str | Path) -> bytes:
    """The document's bytes: a regular file within :attr:`redline.opc.zipread.Limits.max_file_bytes`,
    checked by ``fstat`` before anything is read."""
    from redline.opc.inputs import read_regular
    from redline.opc.zipread import DEFAULT_LIMITS

    return read_regular(source, DEFAULT_LIMITS.max_file_bytes, "document")


def read_input(source: str | Path, what: str = "") -> tuple[bytes, list[Loss]]:
    """A document's ``.docx`` bytes and what its conversion lost: a ``.doc``, ``.rtf`` or
    ``.odt`` (by its suffix, :data:`redline.opc.inputs.CONVERTIBLE`) is converted through
    LibreOffice (:func:`redline.opc.convert.to_docx`: ``conversion_failed`` when it cannot be),
    anything else read as it is (:func:`read_document`).  ``what`` names the input in the
    losses' messages (``"new document"``), when there are several."""
    from redline.opc.inputs import CONVERTIBLE

    path = Path(source)
    if path.suffix.lower() not in CONVERTIBLE:
        return read_document(path), []
    from redline.opc.convert import Loss, to_docx

    data, losses = to_docx(path)
    if what:
        losses = [Loss(x.what, x.count, f"The {what} ({path.name}): {x.message}") for x in losses]
    return data, losses


def warn(prog: str, losses: Sequence[Loss]) -> None:
    """Say on stderr what a conversion lost (a warning: the command goes on)."""
    for loss in losses:
        print(f"{prog}: warning: {loss.message} [{Code.LOSSY_CONVERSION}]", file=sys.stderr)


def check_docx_output(out: Path) -> None:
    """The output document is always a ``.docx``: a ``.doc``, ``.rtf`` or ``.odt`` output name
    is a usage error (it would hold a .docx under another format's name)."""
    from redline.opc.inputs import CONVERTIBLE

    if out.suffix.lower() in CONVERTIBLE:
        raise UsageError(
            f"the output is always a .docx document; {out.name!r} names a {out.suffix} file "
            f"(use {out.with_suffix('.docx').name!r})"
        )


def default_output(doc: Path) -> Path:
    return doc.with_name(doc.stem + ".redlined.docx")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def check_output(doc: Path, out: Path) -> None:
    """Refuse an output path that would overwrite the input document."""
    from redline.errors import PackageError

    if _same_file(out, doc):
        raise PackageError(
            Code.OUTPUT_IS_INPUT, "The output path is the input document; refusing to overwrite it."
        )


def check_targets(args: argparse.Namespace, doc: Path, out: Path) -> None:
    """Before anything is written: no output or report over an input or over each other, and
    every folder written into exists (exit 3 promises that no output document was written)."""
    reply = None if args.reply == "-" else Path(args.reply)
    report = None if args.report in (None, "-") else Path(args.report)
    check_paths([("input document", doc), ("reply", reply)], None if args.dry_run else out, report)


def check_paths(inputs: Sequence[tuple[str, Path | None]], out: Path | None, report: Path | None) -> None:
    """:func:`check_targets` for any command: ``inputs`` named as a message names them (``"input
    document"``; None: standard input), ``out`` the output document (None: none is written),
    ``report`` the report file (None: none, or standard output)."""
    from redline.errors import PackageError

    if out is not None:
        for what, path in inputs:
            if path is not None and _same_file(out, path):
                raise PackageError(
                    Code.OUTPUT_IS_INPUT, f"The output path is the {what}; refusing to overwrite it."
                )
        if not out.parent.is_dir():
            raise PackageError(Code.IO_ERROR, f"The output folder {str(out.parent)!r} does not exist.")
    if report is not None:
        targets = [*inputs, *([("output document", out)] if out is not None else [])]
        for what, path in targets:
            if path is not None and _same_file(report, path):
                raise PackageError(
                    Code.OUTPUT_IS_INPUT, f"The report path is the {what}; refusing to overwrite it."
                )
        if not report.parent.is_dir():
            raise PackageError(Code.IO_ERROR, f"The report folder {str(report.parent)!r} does not exist.")


def apply_options(args: argparse.Namespace) -> ApplyOptions:
    """The options ``apply`` and ``review`` share, from their common flags; an ``--author``
    or ``--date`` that cannot be written is a usage error (:mod:`redline.write.arguments`)."""
    from redline.apply import ApplyOptions
    from redline.write.arguments import ArgumentError

    try:
        return ApplyOptions(
            author=args.author,
            date=args.date,
            dry_run=args.dry_run,
            stream=getattr(args, "stream", False),
            track=not args.no_track,
            comments=not args.no_comments,
        )
    except ArgumentError as exc:
        raise UsageError(f"--{exc.field}: {exc.message}") from None
