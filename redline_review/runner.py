"""`redline review DIR -o OUTDIR`: the batch job -- every document with its reply, in parallel.

The client pairs files, reads each document's bytes, hands (bytes, reply, options) to an
executor that runs :func:`redline_review.job.run_document`, and writes each result as it completes:
``NAME.redlined.docx``, ``NAME.report.json``, ``NAME.check.json`` (the proofread check), and
``NAME.summary-report.json`` for the summary flow; ``NAME.compared.docx`` and
``NAME.compare.json`` for a document compared with its new version ``NAME.new.docx``;
``NAME.reconcile.json`` and ``NAME.memo.md`` for a round (``NAME.sent.docx`` with
``NAME.returned.*``) -- then ``summary.json`` and ``report.html`` for the batch.
Executors differ only in where ``run_document`` runs: in this process (``--jobs 1``), a local
process pool, or Dask.
"""

from __future__ import annotations

import html
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    ALL_COMPLETED,
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass
from typing import Any, Protocol

from redline.apply import ApplyOptions
from redline.errors import PackageError
from redline.exits import EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED
from redline.opc.files import write_atomic
from redline.opc.inputs import MAX_REPLY_BYTES

from .job import (
    COMPARED,
    FAILED,
    MISSING_DOCUMENT,
    MISSING_REPLY,
    OK,
    RECONCILED,
    REFUSED,
    Job,
    JobResult,
    RoundInput,
    json_bytes,
    pair,
    run_document,
)
from .storage import Storage

# (document, reply, summary, options, name, new version, round, check): run_document's arguments
Task = tuple[
    bytes | None, bytes | None, bytes | None, ApplyOptions, str, bytes | None, RoundInput | None, bool
]


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
                    pending[pool.submit(run_document, *task)] = task[4]  # (its name)

            fill()
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    name = pending.pop(fut)
                    try:
                        yield fut.result()
                    except Exception as exc:  # the worker died: report, keep going
                        yield JobResult.failed(name, f"worker failed: {exc!r}")
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
        checked = [d["check"] for d in self.documents if d.get("check") is not None]
        if checked:  # (a batch without a check, or without a round, has none of these keys)
            totals_out["findings"] = sum(int(c.get("findings") or 0) for c in checked)
        rounds = [d for d in self.documents if "returned" in d]
        if rounds:
            totals_out["rounds"] = len(rounds)
            totals_out["untracked"] = sum(
                int(((d.get("reconcile") or {}).get("totals") or {}).get("untracked", 0)) for d in rounds
            )
        totals_out["by_outcome"] = dict(sorted(outcomes.items()))
        return {"exit": self.exit_code, "totals": totals_out, "documents": self.documents}


def run_review(
    source: Storage,
    target: Storage,
    options: ApplyOptions,
    executor: Executor,
    progress: Callable[[JobResult], None] | None = None,
    check: bool = True,
) -> BatchSummary:
    """Run a whole batch from ``source`` into ``target``; return what summary.json holds
    (``check``: proofread every document with a reply, and what its reply would break).

    Every input is reported, whatever happens to it: a job whose names refuse it
    (:attr:`redline_review.job.Job.problem`), a file that cannot be read (not a regular file, too
    large, unreadable: its code), an output that cannot be written (its code), a job the
    executor lost (``failed``) -- each in summary.json with its own code, while the rest of the
    batch goes on; summary.json and report.html are always written."""
    jobs = pair(source.list())
    if not jobs:
        raise NoDocuments(f"no .docx documents or replies in {source.describe()}")
    early: dict[str, JobResult] = {}

    def tasks() -> Iterator[Task]:
        for job in jobs:
            if job.problem is not None:
                code, message = job.problem
                early[job.name] = JobResult.refused(job.name, code, message)
                continue
            try:
                task: Task = (
                    source.read(job.document) if job.document else None,
                    source.read(job.reply, MAX_REPLY_BYTES) if job.reply else None,
                    source.read(job.summary, MAX_REPLY_BYTES) if job.summary else None,
                    options,
                    job.name,
                    source.read(job.new) if job.new else None,
                    _round_input(source, job),
                    check,
                )
            except PackageError as exc:
                early[job.name] = JobResult.refused(job.name, exc.code, exc.message)
                continue
            yield task

    by_name: dict[str, JobResult] = {}
    details: dict[str, str] = {}

    def written(result: JobResult) -> None:
        by_name[result.name] = result
        details[result.name] = result.report_html
        # written: keep no documents or reports in memory
        result.output = result.report_json = result.summary_report_json = None
        result.compared = result.compare_json = None
        result.check_json = result.reconcile_json = result.memo = None
        result.report_html = ""
        if progress is not None:
            progress(result)

    try:
        with _Writers(target, written) as writers:
            for result in executor.run(tasks()):
                writers.write(result)
    except Exception as exc:  # the executor itself failed: every job without a result is failed
        traceback.print_exc(file=sys.stderr)
        lost = f"the batch's executor failed ({type(exc).__name__}: {exc})"
        for job in jobs:
            by_name.setdefault(job.name, JobResult.failed(job.name, lost))
    finally:
        by_name.update(early)
        documents = [_summary_entry(job, by_name.get(job.name) or _never_ran(job)) for job in jobs]
        done = (OK, COMPARED)  # and a round reconciled clean (exit 0)
        clean = all(d["outcome"] in done or (d["outcome"] == RECONCILED and not d["exit"]) for d in documents)
        exit_code = EXIT_OK if clean else EXIT_UNAPPLIED
        summary = BatchSummary(documents, exit_code)
        _write_batch(target, summary, details)
    return summary


def _round_input(source: Storage, job: Job) -> RoundInput | None:
    """A round's returned file (read like any input), or None for every other job."""
    if job.document is None or job.returned is None:
        return None
    return RoundInput(job.document, job.returned, source.read(job.returned))


def _never_ran(job: Job) -> JobResult:
    return JobResult.failed(job.name, "the job never ran (the batch was interrupted)")


def _write_batch(target: Storage, summary: BatchSummary, details: dict[str, str]) -> None:
    """summary.json, then report.html: a page that cannot be rendered (a bug) still leaves
    a page saying so, and summary.json."""
    data = summary.to_dict()
    target.write("summary.json", json_bytes(data))
    from .html_report import render_batch

    try:
        page = render_batch(data, details)
    except Exception as exc:
        traceback.print_exc(file=sys.stderr)
        page = (
            "<!doctype html><meta charset=utf-8><title>redline review</title>"
            f"<p>The page could not be rendered ({html.escape(type(exc).__name__)}); "
            "summary.json holds every document.</p>"
        )
    target.write("report.html", page.encode("utf-8"))


class NoDocuments(Exception):
    pass


class _Writers:
    """Writes each result's files on a few threads while the executor goes on: a durable write
    (fsync of the file and of its folder, :func:`redline.opc.files.write_atomic`) waits on the disk
    for milliseconds, and a client that waited in line would leave the workers idle with no
    new document to take -- on two cores it cost the batch a third of its speed-up.  At most
    :attr:`IN_FLIGHT` results are held waiting (their bytes in memory); ``done`` is called in
    this thread, in the order the writes complete; a write that raises (a bug: a file system's
    failure is the result's outcome) raises here, as it did when written inline."""

    THREADS = 4
    IN_FLIGHT = 8

    def __init__(self, target: Storage, done: Callable[[JobResult], None]) -> None:
        self.target = target
        self.done = done
        self.pool = ThreadPoolExecutor(self.THREADS, thread_name_prefix="redline-write")
        self.pending: dict[Future[None], JobResult] = {}

    def __enter__(self) -> _Writers:
        return self

    def write(self, result: JobResult) -> None:
        self.pending[self.pool.submit(_write_outputs, self.target, result)] = result
        while len(self.pending) >= self.IN_FLIGHT:
            self._settle(FIRST_COMPLETED)

    def _settle(self, when: str) -> None:
        finished, _ = wait(self.pending, return_when=when)
        for fut in sorted(finished, key=lambda f: self.pending[f].name):
            result = self.pending.pop(fut)
            fut.result()
            self.done(result)

    def __exit__(self, *exc: object) -> None:
        try:
            if exc[0] is None:
                while self.pending:
                    self._settle(ALL_COMPLETED)
            else:  # failing anyway: what was written is still reported written
                wait(self.pending)
                for fut, result in list(self.pending.items()):
                    if fut.exception() is None:
                        self.done(result)
        finally:
            self.pool.shutdown(wait=True)


def _write_outputs(target: Storage, result: JobResult) -> None:
    """Write one document's outputs; one that cannot be written (a folder in the way, a full
    disk) refuses the document with its code, and the batch goes on."""
    written: list[str] = []
    try:
        for name, data in (
            (f"{result.name}.redlined.docx", result.output),
            (f"{result.name}.report.json", result.report_json),
            (f"{result.name}.summary-report.json", result.summary_report_json),
            (f"{result.name}.compared.docx", result.compared),
            (f"{result.name}.compare.json", result.compare_json),
            (f"{result.name}.check.json", result.check_json),
            (f"{result.name}.reconcile.json", result.reconcile_json),
            (f"{result.name}.memo.md", result.memo),
        ):
            if data is not None:
                target.write(name, data)
                written.append(name)
    except PackageError as exc:
        result.outcome, result.code, result.exit_code = REFUSED, exc.code, EXIT_REFUSED
        result.message = f"an output could not be written: {exc.message}"
    result.written = tuple(written)


def _summary_entry(job: Job, result: JobResult) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": job.name,
        "document": job.document,
        "reply": job.reply,
        "outcome": result.outcome,
        "code": result.code,
        "exit": result.exit_code,
        "totals": result.totals,
        # the files written (the result's bytes are dropped once written: summary.json names them)
        "output": _named(f"{job.name}.redlined.docx", result.written),
        "report": _named(f"{job.name}.report.json", result.written),
        "message": result.message,
    }
    if job.new is not None:  # compared with its new version
        entry["new"] = job.new
        entry["compare_totals"] = result.compare_totals
        entry["compared"] = _named(f"{job.name}.compared.docx", result.written)
        entry["compare_report"] = _named(f"{job.name}.compare.json", result.written)
    if job.summary is not None:
        entry["summary"] = job.summary
        entry["summary_totals"] = result.summary_totals
        entry["summary_report"] = _named(f"{job.name}.summary-report.json", result.written)
    if result.check is not None:  # proofread: the counts here, the findings in NAME.check.json
        entry["check"] = {**result.check, "report": _named(f"{job.name}.check.json", result.written)}
    if job.round:  # a round: the redline we sent and what came back, reconciled
        entry["sent"], entry["returned"] = job.document, job.returned
        entry["reconcile"] = None if result.reconcile is None else {
            **result.reconcile,
            "report": _named(f"{job.name}.reconcile.json", result.written),
            "memo": _named(f"{job.name}.memo.md", result.written),
        }  # fmt: skip
    return entry


def _named(name: str, written: tuple[str, ...]) -> str | None:
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
