"""`redline reconcile SENT RETURNED`: the arguments, and what is printed and written
(:func:`redline.reconcile.engine.reconcile`; a RETURNED in another format:
:func:`redline.reconcile.converted.returned_docx`).

Standard output: the report as JSON with ``--json``, else the memo.  ``--report`` and
``--memo`` write them to files.  Exit codes: 0 nothing changed without tracking and nothing lost
in a conversion; 1 untracked changes (or a lossy conversion) found; 2 usage; 3 a document refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .common import UsageError, check_paths, read_document, refuse


def add_reconcile_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sent", help="the redline we sent (.docx, never modified)")
    parser.add_argument("returned", help="what came back: .docx, .doc, .rtf or .odt (never modified)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON (else the memo)")
    parser.add_argument("--report", help="write the JSON report here")
    parser.add_argument("--memo", help="write the Markdown memo of the round here")
    parser.add_argument(
        "--author", help="whose changes in SENT are ours (default: the author of SENT's most recent changes)"
    )
    parser.add_argument(
        "--timeout", type=float, default=120.0,
        help="seconds a conversion of RETURNED may take (default: 120)",
    )  # fmt: skip


def run_reconcile_command(args: argparse.Namespace) -> int:
    from redline.opc.files import write_atomic
    from redline.reconcile.converted import returned_docx
    from redline.reconcile.engine import ReconcileOptions, reconcile
    from redline.reconcile.memo import render_memo

    sent, returned = Path(args.sent), Path(args.returned)
    if args.timeout <= 0:
        raise UsageError("--timeout: must be a positive number of seconds")
    report_path = Path(args.report) if args.report else None
    memo_path = Path(args.memo) if args.memo else None
    inputs = [("sent document", sent), ("returned document", returned)]
    check_paths(inputs, None, report_path)
    check_paths([*inputs, *([("report", report_path)] if report_path else [])], None, memo_path)
    if report_path is not None and memo_path is not None and report_path == memo_path:
        raise UsageError("--report and --memo name the same file")
    data = read_document(sent)
    converted = returned_docx(returned, read_document(returned), data, timeout=args.timeout)
    if not isinstance(converted, tuple):
        return refuse("redline reconcile", converted)
    back, warnings, round_trip = converted
    report = reconcile(
        data, back, ReconcileOptions(author=args.author), sent_name=sent.name, returned_name=returned.name,
        warnings=warnings, sent_through=round_trip,
    )  # fmt: skip
    if report.error is not None:
        return refuse("redline reconcile", report.error)
    doc = report.to_dict()
    text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    memo = render_memo(doc)
    if report_path is not None:
        write_atomic(report_path, text.encode("utf-8"))
    if memo_path is not None:
        write_atomic(memo_path, memo.encode("utf-8"))
    sys.stdout.write(text if args.json else memo)
    t = doc["totals"]
    print(
        f"{returned.name} against {sent.name}: of {t['ours']} changes of ours {t['accepted']} accepted, "
        f"{t['rejected']} rejected, {t['modified']} modified, {t['pending']} pending; "
        f"{t['untracked']} untracked changes",
        file=sys.stderr,
    )
    for w in report.warnings:
        print(f"redline reconcile: {w.message} [{w.code}]", file=sys.stderr)
    return report.exit_code
