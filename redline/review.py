"""`redline review DIR -o OUTDIR`: the batch job -- every document with its reply, in parallel.

The client pairs files, reads each document's bytes, hands (bytes, reply, options) to an
executor that runs :func:`redline.batch.run_document`, and writes each result as it completes:
``NAME.redlined.docx``, ``NAME.report.json`` (and ``NAME.summary-report.json`` for the summary
flow), then ``summary.json`` and ``report.html`` for the batch.  Executors differ only in where
``run_document`` runs: in this process (``--jobs 1``), a local process pool, or Dask.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Protocol

from shared_schema.exit_codes import EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED

from .apply import ApplyOptions
from .batch import (
    FAILED,
    MISSING_DOCUMENT,
    MISSING_REPLY,
    OK,
    REFUSED,
    Job,
    JobResult,
    json_bytes,
    pair,
    run_document,
)
from .package import write_atomic
from .storage import Storage, open_storage

Task = tuple[bytes | None, bytes | None, bytes | None, ApplyOptions, str]


class Executor(Protocol):
    def run(self, tasks: Iterable[Task]) -> Iterator[JobResult]: ...


class InProcess:
    """Runs every document in this process, one after another."""

    def run(self, tasks: Iterable[Task]) -> Iterator[JobResult]:
        for task in tasks:
            yield run_document(*task)


class LocalPool:
    """A local process pool; at most ``2 * jobs`` documents in flight, results as they complete."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def run(self, tasks: Iterable[Task]) -> Iterator[JobResult]:
        it = iter(tasks)
        with ProcessPoolExecutor(max_workers=self.jobs) as pool:
            pending: dict[Future[JobResult], str] = {}

            def fill() -> None:
                while len(pending) < 2 * self.jobs:
                    task = next(it, None)
                    if task is None:
                        return
                    pending[pool.submit(run_document, *task)] = task[4]

            fill()
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    name = pending.pop(fut)
                    try:
                        yield fut.result()
                    except Exception as exc:  # the worker died: report, keep going
                        yield JobResult(name, FAILED, EXIT_REFUSED, message=f"worker failed: {exc!r}")
                fill()


@dataclass
class BatchSummary:
    documents: list[dict[str, Any]]
    exit_code: int

    def to_dict(self) -> dict[str, Any]:
        totals: dict[str, int] = {"documents": len(self.documents)}
        for key in ("proposed", "applied", "unapplied"):
            totals[key] = sum(int(d.get("totals", {}).get(key, 0)) for d in self.documents)
        outcomes: dict[str, int] = {}
        for d in self.documents:
            outcomes[d["outcome"]] = outcomes.get(d["outcome"], 0) + 1
        totals_out: dict[str, Any] = dict(totals)
        totals_out["by_outcome"] = dict(sorted(outcomes.items()))
        return {"exit": self.exit_code, "totals": totals_out, "documents": self.documents}


def run_review(
    source: Storage,
    target: Storage,
    options: ApplyOptions,
    executor: Executor,
    progress: Callable[[JobResult], None] | None = None,
) -> BatchSummary:
    """Run a whole batch from ``source`` into ``target``; return what summary.json holds."""
    jobs = pair(source.list())
    if not jobs:
        raise NoDocuments(f"no .docx documents or replies in {source.describe()}")

    def tasks() -> Iterator[Task]:
        for job in jobs:
            yield (
                source.read(job.document) if job.document else None,
                source.read(job.reply) if job.reply else None,
                source.read(job.summary) if job.summary else None,
                options,
                job.name,
            )

    by_name: dict[str, JobResult] = {}
    details: dict[str, str] = {}
    for result in executor.run(tasks()):
        _write_outputs(target, result)
        by_name[result.name] = result
        details[result.name] = result.report_html
        # written: keep no documents or reports in memory
        result.output = result.report_json = result.summary_report_json = None
        result.report_html = ""
        if progress is not None:
            progress(result)
    documents = [_summary_entry(job, by_name[job.name]) for job in jobs]
    outcomes = {d["outcome"] for d in documents}
    exit_code = EXIT_OK if outcomes <= {OK} else EXIT_UNAPPLIED
    summary = BatchSummary(documents, exit_code)
    target.write("summary.json", json_bytes(summary.to_dict()))
    from .html_report import render_batch

    target.write("report.html", render_batch(summary.to_dict(), details).encode("utf-8"))
    return summary


class NoDocuments(Exception):
    pass


def _write_outputs(target: Storage, result: JobResult) -> None:
    if result.output is not None:
        target.write(f"{result.name}.redlined.docx", result.output)
    if result.report_json is not None:
        target.write(f"{result.name}.report.json", result.report_json)
    if result.summary_report_json is not None:
        target.write(f"{result.name}.summary-report.json", result.summary_report_json)


def _summary_entry(job: Job, result: JobResult) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": job.name,
        "document": job.document,
        "reply": job.reply,
        "outcome": result.outcome,
        "exit": result.exit_code,
        "totals": result.totals,
        "output": f"{job.name}.redlined.docx" if result.outcome in (OK, "unapplied") else None,
        "report": f"{job.name}.report.json" if result.report_json is not None else None,
        "message": result.message,
    }
    if job.summary is not None:
        entry["summary"] = job.summary
        entry["summary_totals"] = result.summary_totals
    return entry


# -----------------------------------------------------------------------------------------
# command line


def add_review_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", help="folder (or fsspec URL) with NAME.docx and NAME.reply.json files")
    parser.add_argument("-o", "--output-dir", dest="outdir", help="where outputs go (default: DIR/out)")
    parser.add_argument("--jobs", type=int, default=None, help="parallel documents (default: cores)")
    parser.add_argument("--author", default="redline")
    parser.add_argument("--date", help="revision date, ISO 8601 (default: now)")
    parser.add_argument("--dry-run", action="store_true", help="verify only; write no documents")
    parser.add_argument("--no-comments", action="store_true")
    parser.add_argument("--no-track", action="store_true")
    parser.add_argument(
        "--executor", choices=["local", "dask"], default="local",
        help="local processes (default) or an in-process Dask LocalCluster",
    )  # fmt: skip
    parser.add_argument("--scheduler", help="a Dask scheduler address, tcp://HOST:PORT")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def make_executor(args: argparse.Namespace) -> Executor:
    jobs = args.jobs or os.cpu_count() or 1
    if args.scheduler or args.executor == "dask":
        from .cluster import DaskExecutor

        return DaskExecutor(address=args.scheduler, workers=jobs)
    return InProcess() if jobs <= 1 else LocalPool(jobs)


def run_review_command(args: argparse.Namespace) -> int:
    from .cli import UsageError, apply_options

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    source = open_storage(args.dir)
    if not source.is_dir():
        print(f"redline review: refused: {args.dir!r} is not a folder", file=sys.stderr)
        return EXIT_REFUSED
    target = open_storage(args.outdir or source.join("out"))
    target.makedirs()
    options = apply_options(args)
    executor = make_executor(args)
    bar = None
    if not args.quiet and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=len(pair(source.list())), unit="doc", file=sys.stderr)
    try:
        summary = run_review(
            source, target, options, executor, progress=(lambda _r: bar.update()) if bar else None
        )
    except NoDocuments as exc:
        print(f"redline review: refused: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    finally:
        if bar is not None:
            bar.close()
    _print_batch(summary, target)
    return summary.exit_code


def _print_batch(summary: BatchSummary, target: Storage) -> None:
    data = summary.to_dict()
    for d in data["documents"]:
        t = d.get("totals") or {}
        if d["outcome"] in (OK, "unapplied"):
            line = f"{t.get('applied', 0)}/{t.get('proposed', 0)} edits applied"
        else:
            line = d.get("message") or d["outcome"]
        print(f"{d['outcome']:>16}  {d['name']}: {line}")
    t = data["totals"]
    print(
        f"{t['documents']} documents, {t['applied']}/{t['proposed']} edits applied, "
        f"{t['unapplied']} unapplied -> {target.describe()} (summary.json, report.html)"
    )


__all__ = [
    "FAILED",
    "MISSING_DOCUMENT",
    "MISSING_REPLY",
    "REFUSED",
    "InProcess",
    "LocalPool",
    "run_review",
    "write_atomic",
]
