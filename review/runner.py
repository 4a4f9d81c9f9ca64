"""`redline review DIR -o OUTDIR`: the batch job -- every document with its reply, in parallel.

The client pairs files, reads each document's bytes, hands (bytes, reply, options) to an
executor that runs :func:`review.job.run_document`, and writes each result as it completes:
``NAME.redlined.docx``, ``NAME.report.json`` (and ``NAME.summary-report.json`` for the summary
flow), then ``summary.json`` and ``report.html`` for the batch.  Executors differ only in where
``run_document`` runs: in this process (``--jobs 1``), a local process pool, or Dask.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Protocol

from redline.apply import ApplyOptions
from redline.exits import EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED
from redline.files import write_atomic

from .job import (
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
from .storage import Storage

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
    written: dict[str, set[str]] = {}
    for result in executor.run(tasks()):
        written[result.name] = _write_outputs(target, result)
        by_name[result.name] = result
        details[result.name] = result.report_html
        # written: keep no documents or reports in memory
        result.output = result.report_json = result.summary_report_json = None
        result.report_html = ""
        if progress is not None:
            progress(result)
    documents = [_summary_entry(job, by_name[job.name], written[job.name]) for job in jobs]
    outcomes = {d["outcome"] for d in documents}
    exit_code = EXIT_OK if outcomes <= {OK} else EXIT_UNAPPLIED
    summary = BatchSummary(documents, exit_code)
    target.write("summary.json", json_bytes(summary.to_dict()))
    from .html_report import render_batch

    target.write("report.html", render_batch(summary.to_dict(), details).encode("utf-8"))
    return summary


class NoDocuments(Exception):
    pass


def _write_outputs(target: Storage, result: JobResult) -> set[str]:
    """Write one document's files; the names written (summary.json names them: the result's
    bytes are dropped once written)."""
    files = {
        f"{result.name}.redlined.docx": result.output,
        f"{result.name}.report.json": result.report_json,
        f"{result.name}.summary-report.json": result.summary_report_json,
    }
    for name, data in files.items():
        if data is not None:
            target.write(name, data)
    return {name for name, data in files.items() if data is not None}


def _summary_entry(job: Job, result: JobResult, written: set[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": job.name,
        "document": job.document,
        "reply": job.reply,
        "outcome": result.outcome,
        "exit": result.exit_code,
        "totals": result.totals,
        "output": _named(f"{job.name}.redlined.docx", written),
        "report": _named(f"{job.name}.report.json", written),
        "message": result.message,
    }
    if job.summary is not None:
        entry["summary"] = job.summary
        entry["summary_report"] = _named(f"{job.name}.summary-report.json", written)
        entry["summary_totals"] = result.summary_totals
    return entry


def _named(name: str, written: set[str]) -> str | None:
    return name if name in written else None


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
