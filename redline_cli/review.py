"""`redline review DIR -o OUTDIR`: the arguments, the executor they choose, progress and the
lines printed; the batch itself is :func:`redline_review.runner.run_review`."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from .common import EXIT_REFUSED, UsageError, apply_options

if TYPE_CHECKING:  # the batch's modules are imported when `review` runs, not at start-up
    from redline_review.runner import BatchSummary, Executor
    from redline_review.storage import Storage


def add_review_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir",
        help="folder (or fsspec URL) with NAME.docx and NAME.reply.json files (or NAME.new.docx, "
        "the version that came back: compared with NAME.docx); NAME.sent.docx beside "
        "NAME.returned.docx (.doc, .rtf, .odt): the round reconciled",
    )
    parser.add_argument("-o", "--output-dir", dest="outdir", help="where outputs go (default: DIR/out)")
    parser.add_argument("--jobs", type=int, default=None, help="parallel documents (default: cores)")
    parser.add_argument("--author", default="redline")
    parser.add_argument("--date", help="revision date, ISO 8601 (default: now)")
    parser.add_argument("--dry-run", action="store_true", help="verify only; write no documents")
    parser.add_argument("--no-comments", action="store_true")
    parser.add_argument("--no-track", action="store_true")
    parser.add_argument(
        "--no-check", action="store_true",
        help="do not proofread the documents (NAME.check.json: defined terms, references, numbering)",
    )  # fmt: skip
    parser.add_argument(
        "--executor", choices=["local", "dask"], default="local",
        help="local processes (default) or an in-process Dask LocalCluster",
    )  # fmt: skip
    parser.add_argument("--scheduler", help="a Dask scheduler address, tcp://HOST:PORT")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--json", action="store_true", help="print summary.json on standard output")


def make_executor(args: argparse.Namespace) -> Executor:
    from redline_review.runner import InProcess, LocalPool

    jobs = args.jobs or os.cpu_count() or 1
    if args.scheduler or args.executor == "dask":
        from redline_review.cluster import DaskExecutor

        return DaskExecutor(address=args.scheduler, workers=jobs)
    return InProcess() if jobs <= 1 else LocalPool(jobs)


def run_review_command(args: argparse.Namespace) -> int:
    from redline_review.job import json_bytes, pair
    from redline_review.runner import NoDocuments, run_review
    from redline_review.storage import open_storage

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    source = open_storage(args.dir)
    if not source.is_dir():
        print(f"redline review: refused: {args.dir!r} is not a folder", file=sys.stderr)
        return EXIT_REFUSED
    options = apply_options(args)  # a usage error before anything is made
    target = open_storage(args.outdir or source.join("out"))
    try:
        target.makedirs()
    except (FileExistsError, NotADirectoryError):
        raise UsageError(
            f"-o {args.outdir or source.join('out')!r} is an existing file, not a folder: the "
            "outputs, summary.json and report.html go in a folder"
        ) from None
    executor = make_executor(args)
    bar = None
    if not args.quiet and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=len(pair(source.list())), unit="doc", file=sys.stderr)
    try:
        summary = run_review(
            source, target, options, executor, progress=(lambda _r: bar.update()) if bar else None,
            check=not args.no_check,
        )  # fmt: skip
    except NoDocuments as exc:
        print(f"redline review: refused: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    finally:
        if bar is not None:
            bar.close()
    _print_batch(summary, target)
    if args.json:
        sys.stdout.write(json_bytes(summary.to_dict()).decode("utf-8"))
    return summary.exit_code


def _print_batch(summary: BatchSummary, target: Storage) -> None:
    """The run's summary lines, on stderr like every command's (stdout is for what a command
    was asked to print: here ``--json``'s summary.json)."""
    from redline_review.job import COMPARED, OK, RECONCILED, UNAPPLIED

    data = summary.to_dict()
    for d in data["documents"]:
        t = d.get("totals") or {}
        ct = d.get("compare_totals") or {}
        rt = (d.get("reconcile") or {}).get("totals") or {}
        if rt and d["outcome"] == RECONCILED:
            line = (
                f"{d.get('returned')} against {d.get('sent')}: of {rt['ours']} changes of ours "
                f"{rt['accepted']} accepted, {rt['rejected']} rejected, {rt['modified']} modified, "
                f"{rt['pending']} pending; {rt['untracked']} untracked changes"
            )
            if (d.get("reconcile") or {}).get("lossy"):
                line += " (lossy conversion)"
        elif ct and d["outcome"] in (COMPARED, UNAPPLIED):
            line = (
                f"compared with {d.get('new')}: {ct.get('written', 0)}/{ct.get('changes', 0)} changes written"
            )
        elif d["outcome"] in (OK, UNAPPLIED):
            line = f"{t.get('applied', 0)}/{t.get('proposed', 0)} edits applied"
        else:
            line = d.get("message") or d.get("code") or d["outcome"]
            if d.get("code") and f"[{d['code']}]" not in line:
                line += f" [{d['code']}]"
        print(f"{d['outcome']:>16}  {d['name']}: {line}", file=sys.stderr)
    t = data["totals"]
    rounds = ""
    if "rounds" in t:  # (a batch without rounds prints what it always printed)
        rounds = f", {t['rounds']} rounds ({t['untracked']} untracked changes)"
    print(
        f"{t['documents']} documents, {t['applied']}/{t['proposed']} edits applied, "
        f"{t['unapplied']} unapplied{rounds} -> {target.describe()} (summary.json, report.html)",
        file=sys.stderr,
    )
