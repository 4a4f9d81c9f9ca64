"""`redline` command line: wires the pipeline's steps together, nothing more.

Exit codes (docs/cli.md, :mod:`redline.exits`): 0 every edit applied; 1 the run completed with
unapplied edits; 2 usage error; 3 an input was refused (no output document written); 70 a bug of
ours.  What a command raises becomes a code in :func:`redline_cli.common.run_command` alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from redline import __version__
from redline.prompt import APIS
from shared_schema import DIALECTS, SCHEMA_NAMES, ChangeStatus

# Each command imports the steps it runs when it runs (`--version` and `--help` import neither
# lxml nor pydantic; `view` never builds the pydantic models).
if TYPE_CHECKING:
    from redline.apply import ApplyOptions, Outcome
    from redline.opc.convert import Loss
    from redline.opc.package import Package
    from redline.report import Report
    from redline.results import ReportRecord

from .common import (
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_UNAPPLIED,
    EXIT_USAGE,
    UsageError,
    apply_options,
    check_docx_output,
    check_paths,
    check_targets,
    default_output,
    parse_command,
    read_input,
    read_reply,
    refuse,
    run_command,
    warn,
)

__all__ = ["EXIT_OK", "EXIT_REFUSED", "EXIT_UNAPPLIED", "EXIT_USAGE", "main"]


def apply_reply(
    data: bytes,
    reply: str | bytes,
    options: ApplyOptions,
    document_name: str = "document.docx",
    output_name: str | None = None,
) -> Outcome:
    """:func:`redline.apply.apply_reply`, imported when ``apply`` runs (one name here, so a
    test can stand in for the whole pipeline)."""
    from redline.apply import apply_reply as apply

    return apply(data, reply, options, document_name=document_name, output_name=output_name)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="redline",
        description="Verify a model's proposed contract edits and write them as Word tracked changes.",
    )
    parser.add_argument("--version", action="version", version=f"redline {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    view = sub.add_parser("view", help="print the document's text view (what a model is shown)")
    view.add_argument("doc", help="the .docx file (or .doc, .rtf, .odt: converted by LibreOffice)")
    view.add_argument(
        "--json", action="store_true",
        help="the view with paragraphs and offsets, and the document's revisions and comments",
    )  # fmt: skip
    view.add_argument(
        "--markup", action="store_true",
        help="the text with tracked changes and comments inline, each with its id and author",
    )  # fmt: skip
    view.add_argument(
        "--unread", action="store_true",
        help="also list what the view does not read (elements no rule names, content it leaves out)",
    )  # fmt: skip

    apply = sub.add_parser("apply", help="apply one reply's edits to one document")
    apply.add_argument(
        "doc", help="the .docx file (or .doc, .rtf, .odt: converted by LibreOffice); never modified"
    )
    apply.add_argument("reply", help="the model's reply: a file, or - for standard input")
    apply.add_argument("-o", "--output", help="the redlined copy (default: DOC.redlined.docx)")
    apply.add_argument("--report", help="write the JSON report here (- for standard output)")
    apply.add_argument("--author", default="redline", help="revision author (default: redline)")
    apply.add_argument("--date", help="revision date, ISO 8601 (default: now)")
    apply.add_argument("--dry-run", action="store_true", help="verify only; write no document")
    apply.add_argument(
        "--stream", action="store_true",
        help="with --dry-run: read the document a piece at a time, never whole (low memory; slower)",
    )  # fmt: skip
    apply.add_argument("--no-track", action="store_true", help="write plain (accepted) changes")
    apply.add_argument("--no-comments", action="store_true", help="no rationale comments")

    compare = sub.add_parser(
        "compare", help="write OLD with NEW's differences as tracked changes (what did they change?)"
    )
    compare.add_argument("old", help="the version sent (.docx, .doc, .rtf or .odt; never modified)")
    compare.add_argument("new", help="the version that came back (.docx, .doc, .rtf or .odt; never modified)")
    compare.add_argument("-o", "--output", help="the redline (default: OLD.compared.docx)")
    compare.add_argument("--report", help="write the JSON report of the changes here (- for standard output)")
    compare.add_argument("--author", default="redline", help="revision author (default: redline)")
    compare.add_argument("--date", help="revision date, ISO 8601 (default: now)")

    from .check import add_check_arguments
    from .reconcile import add_reconcile_arguments
    from .review import add_review_arguments
    from .stats import add_stats_arguments

    add_check_arguments(sub.add_parser(
        "check", help="proofread: terms, cross-references, numbering (and a reply's)"
    ))  # fmt: skip
    add_reconcile_arguments(sub.add_parser(
        "reconcile", help="what the other side did with the redline we sent: outcomes, theirs, untracked"
    ))  # fmt: skip

    add_review_arguments(sub.add_parser("review", help="apply a folder of documents and replies"))
    add_stats_arguments(sub.add_parser("stats", help="group unapplied edits by error code"))

    mcp = sub.add_parser("mcp", help="serve read_region, apply_edits and check over MCP (stdio)")
    mcp.add_argument("--root", default=".", help="only documents under this folder are opened")
    mcp.add_argument("--log", help="append one JSON line per tool call to this file")

    schema = sub.add_parser("schema", help="print a reply's JSON Schema for a model API's strict mode")
    schema.add_argument("name", choices=SCHEMA_NAMES, help="edits (a reply), edit (one entry) or summary")
    schema.add_argument(
        "--for", dest="dialect", choices=DIALECTS, default="json-schema",
        help="the API whose strict structured output must accept it (default: plain JSON Schema)",
    )  # fmt: skip

    prompt = sub.add_parser("prompt", help="print the instructions and definitions to give a model")
    prompt.add_argument(
        "--for", dest="api", choices=APIS, default="json-schema",
        help="the API whose shape the definitions take (mcp: the MCP tools)",
    )  # fmt: skip
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parse_command(parser, argv)
    if isinstance(args, int):
        return args
    return run_command(f"redline {args.command}", lambda: _dispatch(parser, args))


def _dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "view":
        return _view(args)
    if args.command == "apply":
        return _apply(args)
    if args.command == "compare":
        return _compare(args)
    if args.command == "reconcile":
        from .reconcile import run_reconcile_command

        return run_reconcile_command(args)
    if args.command == "review":
        from .review import run_review_command

        return run_review_command(args)
    if args.command == "check":
        from .check import run_check_command

        return run_check_command(args)
    if args.command == "stats":
        from .stats import run_stats_command

        return run_stats_command(args)
    if args.command == "mcp":
        try:
            from redline.tools.mcp_server import serve
        except ModuleNotFoundError as exc:
            if exc.name is None or exc.name.partition(".")[0] not in ("mcp", "anyio"):
                raise
            raise UsageError(
                "needs the MCP extra, which is not installed: pip install 'redline[mcp]'"
            ) from None
        return serve(Path(args.root), Path(args.log) if args.log else None)
    if args.command == "schema":
        from shared_schema import json_schema

        json.dump(json_schema(args.name, args.dialect), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return EXIT_OK
    if args.command == "prompt":
        from redline.prompt import render as render_prompt

        sys.stdout.write(render_prompt(args.api))
        return EXIT_OK
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _view(args: argparse.Namespace) -> int:
    from redline.opc.inputs import CONVERTIBLE
    from redline.read.annotations import read_annotations
    from redline.read.load import load_view
    from redline.read.markup import render as render_markup
    from redline.read.shapes import view_document

    doc = Path(args.doc)
    converted = doc.suffix.lower() in CONVERTIBLE
    losses: list[Loss] = []
    if converted:  # the .docx LibreOffice writes for it, loaded like any document
        data, losses = read_input(doc)
        loaded = load_view(data)
    else:
        loaded = load_view(doc)
    if not isinstance(loaded, tuple):  # the refusal (its model is not built to read a document)
        return refuse(f"redline {args.command}", loaded)
    warn(f"redline {args.command}", losses)
    package, view = loaded
    notes = _unread(package) if args.unread else None
    if args.json and args.markup:
        raise UsageError("view: --json and --markup are two outputs; pick one")
    annotations = read_annotations(package, view) if args.json or args.markup else None
    if not args.json:
        text = view.labelled() if annotations is None else render_markup(view, annotations)
        sys.stdout.write(text + "\n")
        for line in notes or ():
            print(f"redline view: unread: {line}", file=sys.stderr)
        return EXIT_OK
    shown = view_document(view, annotations, notes)
    if converted:
        shown["warnings"] = [loss.to_warning() for loss in losses]
    json.dump(shown, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return EXIT_OK


def _unread(package: Package) -> list[str]:
    """One line per kind of element the view does not read, with where and how often."""
    from redline.read.build import unread
    from redline.read.roles import describe

    lines = []
    for part, counts in unread(package).items():
        for tag, count in sorted(counts.items()):
            lines.append(f"{part}: {describe(tag)} ({count}×)")
    return lines


def _apply(args: argparse.Namespace) -> int:
    import redline.apply  # noqa: F401  (imported with the collector on: its objects are old then)
    from redline.collector import paused

    # the collector stays off until the outcome is written and dropped: resumed inside the apply,
    # its first pass would walk every object the outcome still holds (~50,000 at 300 pages) to
    # find nothing, just before they are freed
    with paused():
        return _apply_paused(args)


def _apply_paused(args: argparse.Namespace) -> int:
    from redline.opc.files import write_atomic

    if args.stream and not args.dry_run:
        print("redline apply: --stream needs --dry-run (a streamed view writes nothing)", file=sys.stderr)
        return EXIT_USAGE
    doc = Path(args.doc)
    out = Path(args.output) if args.output else default_output(doc)
    if not args.dry_run:
        check_docx_output(out)
    check_targets(args, doc, out)
    data, losses = read_input(doc)
    warn("redline apply", losses)
    warnings = _warnings(losses, [doc])
    reply = read_reply(args.reply)
    options = apply_options(args)
    outcome = apply_reply(
        data, reply, options, document_name=doc.name, output_name=None if args.dry_run else out.name
    )
    record = outcome.record  # (the report's model is made only for --report: Outcome.report)
    if record.error is not None:
        code = refuse("redline apply", record.error)
        _write_report(args.report, outcome, warnings)
        return code
    if outcome.output is not None:
        write_atomic(out, outcome.output)
    _write_report(args.report, outcome, warnings)
    print_summary(record, out if outcome.output is not None else None)
    return outcome.exit_code


def _compare(args: argparse.Namespace) -> int:
    from redline.compare.diff import CompareOptions, compare
    from redline.opc.files import write_atomic
    from redline.write.options import ArgumentError

    old, new = Path(args.old), Path(args.new)
    out = Path(args.output) if args.output else old.with_name(old.stem + ".compared.docx")
    try:  # what reaches w:author / w:date: checked before any file is opened
        options = CompareOptions(args.author, args.date)
    except ArgumentError as exc:
        raise UsageError(f"--{exc.field}: {exc.message}") from None
    report_path = None if args.report in (None, "-") else Path(args.report)
    check_docx_output(out)
    check_paths([("old document", old), ("new document", new)], out, report_path)
    (old_data, old_losses), (new_data, new_losses) = (
        read_input(old, "old document"), read_input(new, "new document"),
    )  # fmt: skip
    losses = [*old_losses, *new_losses]
    warn("redline compare", losses)
    outcome = compare(
        old_data, new_data, options,
        old_name=old.name, new_name=new.name, output_name=out.name,
    )  # fmt: skip
    report = outcome.report
    shown = report.to_dict()
    warnings = _warnings(losses, [old, new])
    if warnings is not None:
        shown["warnings"] = warnings
    text = json.dumps(shown, ensure_ascii=False, indent=2) + "\n"
    if report.error is not None:
        code = refuse("redline compare", report.error)
    else:
        assert outcome.output is not None
        write_atomic(out, outcome.output)
        code = outcome.exit_code
        totals = report.to_dict()["totals"]
        print(
            f"{old.name} -> {new.name}: {totals['written']} of {totals['changes']} changes written "
            f"as tracked changes -> {out}",
            file=sys.stderr,
        )
        for c in report.changes:
            if c.status is not ChangeStatus.WRITTEN:
                print(f"  change {c.index} ({c.where}): {c.status}: {c.reason}", file=sys.stderr)
    if args.report == "-":
        sys.stdout.write(text)
    elif report_path is not None:
        write_atomic(report_path, text.encode("utf-8"))
    return code


def _warnings(losses: list[Loss], inputs: list[Path]) -> list[dict[str, str]] | None:
    """A report's ``warnings`` (what the conversion of an input lost) when an input was
    converted from .doc, .rtf or .odt; None (no such key) when every input was a .docx."""
    from redline.opc.inputs import CONVERTIBLE

    if not any(p.suffix.lower() in CONVERTIBLE for p in inputs):
        return None
    return [loss.to_warning() for loss in losses]


def _write_report(target: str | None, outcome: Outcome, warnings: list[dict[str, str]] | None = None) -> None:
    if not target:
        return
    from redline.opc.files import write_atomic
    from redline.report import report_json

    report = outcome.report
    text = report.to_json() if warnings is None else report_json({**report.to_dict(), "warnings": warnings})
    if target == "-":
        sys.stdout.write(text)
        return
    write_atomic(Path(target), text.encode("utf-8"))


def print_summary(report: Report | ReportRecord, out: Path | None) -> None:
    t = report.totals
    verb = "applied" if out is not None else "verified"
    stream = sys.stderr
    print(f"{report.document}: {verb} {t.applied} of {t.proposed} edits", file=stream, end="")
    print(f" -> {out}" if out is not None else "", file=stream)
    for e in report.edits:
        if e.error is not None:
            label = f" ({e.id})" if e.id else ""
            print(f"  edit {e.index}{label}: {e.status.value}: {e.error.message}", file=stream)
