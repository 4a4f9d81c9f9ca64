"""What every command of the command line shares: the usage error, the exit codes, reading a
reply, the checks on output targets, and the options ``apply`` and ``review`` take alike.

Exit codes (INTERFACE.md): 0 every edit applied; 1 the run completed with unapplied edits;
2 usage error; 3 an input was refused (no output document written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from redline.apply import ApplyOptions
from redline.package import PackageError
from shared_schema.exit_codes import EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED, EXIT_USAGE

__all__ = [
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_UNAPPLIED",
    "EXIT_USAGE",
    "UsageError",
    "apply_options",
    "check_output",
    "check_targets",
    "default_output",
    "read_reply",
]


class UsageError(Exception):
    pass


def read_reply(source: str) -> bytes:
    if source == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(source).read_bytes()
    except OSError as exc:  # an input that cannot be read is refused (exit 3), like a document
        raise PackageError("io_error", f"Cannot read the reply {source!r}: {exc.strerror}.") from exc


def default_output(doc: Path) -> Path:
    return doc.with_name(doc.stem + ".redlined.docx")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def check_output(doc: Path, out: Path) -> None:
    """Refuse an output path that would overwrite the input document."""
    if _same_file(out, doc):
        raise PackageError(
            "output_is_input", "The output path is the input document; refusing to overwrite it."
        )


def check_targets(args: argparse.Namespace, doc: Path, out: Path) -> None:
    """Before anything is written: no output or report over an input or over each other, and
    every folder written into exists (exit 3 promises that no output document was written)."""
    reply = None if args.reply == "-" else Path(args.reply)
    report = None if args.report in (None, "-") else Path(args.report)
    if not args.dry_run:
        check_output(doc, out)
        if reply is not None and _same_file(out, reply):
            raise PackageError("output_is_input", "The output path is the reply; refusing to overwrite it.")
        if not out.parent.is_dir():
            raise PackageError("io_error", f"The output folder {str(out.parent)!r} does not exist.")
    if report is not None:
        targets = [("input document", doc), ("reply", reply)]
        if not args.dry_run:
            targets.append(("output document", out))
        for what, path in targets:
            if path is not None and _same_file(report, path):
                raise PackageError(
                    "output_is_input", f"The report path is the {what}; refusing to overwrite it."
                )
        if not report.parent.is_dir():
            raise PackageError("io_error", f"The report folder {str(report.parent)!r} does not exist.")


def apply_options(args: argparse.Namespace) -> ApplyOptions:
    """The options ``apply`` and ``review`` share, from their common flags."""
    return ApplyOptions(
        author=args.author,
        date=args.date,
        dry_run=args.dry_run,
        stream=getattr(args, "stream", False),
        track=not args.no_track,
        comments=not args.no_comments,
    )
