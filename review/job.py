"""A batch of contracts: pairing documents with replies, and the pure per-document job.

:func:`run_document` is a pure function of (document bytes, reply text, options) -> result; the
local process pool and a Dask cluster both call it and nothing else differs.  Pairing looks at
file names only: ``NAME.docx`` goes with ``NAME.reply.json`` (or ``.reply.txt`` / ``.reply.md``)
and, for the summary flow, ``NAME.summary.json``.
"""

from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from redline.apply import ApplyOptions, apply_reply
from redline.exits import EXIT_REFUSED
from redline.report import report_json
from shared_schema import Code, EditBatch

from .html_report import report_details

REPLY_SUFFIXES = (".reply.json", ".reply.txt", ".reply.md")
SUMMARY_SUFFIX = ".summary.json"

# outcome of one document in summary.json: a status, or (when the job could not run) a code
OK = "applied"  # every edit applied
UNAPPLIED = "unapplied"  # the run completed; some edits were refused
REFUSED = "refused"  # the document or its reply was refused as a whole (the code: its report)
MISSING_REPLY = Code.MISSING_REPLY
MISSING_DOCUMENT = Code.MISSING_DOCUMENT
FAILED = Code.FAILED  # the job itself failed (a bug, or a worker lost twice)


@dataclass(frozen=True)
class Job:
    """One document of a batch and the files that go with it (names relative to the batch)."""

    name: str
    document: str | None
    reply: str | None
    summary: str | None = None


@dataclass
class JobResult:
    """What one document produced; everything here is plain data (picklable).

    The reports come back already encoded, the bytes their files hold, and with the
    document's part of report.html: the worker that made a report encodes and renders it,
    in parallel with the others, and the client that writes the files does neither.
    """

    name: str
    outcome: str
    exit_code: int
    report_json: bytes | None = None  # NAME.report.json
    output: bytes | None = None
    summary_report_json: bytes | None = None  # NAME.summary-report.json
    message: str | None = None
    totals: dict[str, Any] = field(default_factory=dict)
    summary_totals: dict[str, Any] | None = None
    report_html: str = ""  # html_report.report_details of the report


def json_bytes(data: dict[str, Any]) -> bytes:
    """A report file's bytes (:func:`redline.report.report_json`, UTF-8)."""
    return report_json(data).encode("utf-8")


def pair(names: list[str]) -> list[Job]:
    """Pair document and reply file names; unmatched files become jobs that report it."""
    docs: dict[str, str] = {}
    replies: dict[str, str] = {}
    summaries: dict[str, str] = {}
    for name in sorted(names):
        base = PurePosixPath(name).name
        low = base.lower()
        if low.startswith((".", "~$")):
            continue  # hidden files and Word's lock files
        if low.endswith(".redlined.docx"):
            continue
        if low.endswith(".docx"):
            docs.setdefault(base[: -len(".docx")], name)
            continue
        for suffix in REPLY_SUFFIXES:
            if low.endswith(suffix):
                replies.setdefault(base[: -len(suffix)], name)
                break
        else:
            if low.endswith(SUMMARY_SUFFIX):
                summaries[base[: -len(SUMMARY_SUFFIX)]] = name
    jobs = []
    for stem in sorted(set(docs) | set(replies)):
        jobs.append(Job(stem, docs.get(stem), replies.get(stem), summaries.get(stem)))
    return jobs


def _rationales(batch: EditBatch | None) -> dict[int, str]:
    """Each edit's rationale by its index in the reply (the page shows it; the report does not
    repeat the reply)."""
    if batch is None:
        return {}
    return {e.index: e.rationale for e in batch.edits if e.index is not None and e.rationale}


def run_document(
    document: bytes | None,
    reply: bytes | None,
    summary: bytes | None,
    options: ApplyOptions,
    name: str,
) -> JobResult:
    """The per-document job: apply the reply, check the summary; never raises.

    The batch's boundary: the pipeline returns refusals as values, so an exception here is a bug
    of ours -- the document is reported ``failed`` (never with a code about its file), and the
    traceback goes to stderr (the worker's log)."""
    try:
        return _run(document, reply, summary, options, name)
    except Exception as exc:  # a bug must not stop the batch; it is reported as one
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        trace = "".join(traceback.format_exception(exc))
        print(f"redline: {name}.docx failed ({Code.INTERNAL_ERROR}):\n{trace}", file=sys.stderr, end="")
        return JobResult(name, FAILED, EXIT_REFUSED, message=f"internal error: {detail}")


def _run(
    document: bytes | None,
    reply: bytes | None,
    summary: bytes | None,
    options: ApplyOptions,
    name: str,
) -> JobResult:
    if document is None:
        message = f"a reply for {name}.docx, but no such document"
        return JobResult(name, MISSING_DOCUMENT, EXIT_REFUSED, message=message)
    if reply is None:
        message = f"{name}.docx has no reply file ({name}.reply.json)"
        return JobResult(name, MISSING_REPLY, EXIT_REFUSED, message=message)
    outcome = apply_reply(
        document,
        reply,
        options,
        document_name=f"{name}.docx",
        output_name=None if options.dry_run else f"{name}.redlined.docx",
    )
    report = outcome.report
    summary_report = None
    if summary is not None:
        from summarize.check import check_reply

        summary_report = check_reply(document, summary, document_name=f"{name}.docx").to_dict()
    report_dict = report.to_dict()
    result = JobResult(
        name,
        REFUSED,
        EXIT_REFUSED,
        report_json=json_bytes(report_dict),
        summary_report_json=None if summary_report is None else json_bytes(summary_report),
        totals=report.totals.model_dump(),
        summary_totals=None if summary_report is None else summary_report.get("totals"),
        report_html=report_details(report_dict, _rationales(outcome.batch), summary_report),
    )
    if report.error is not None:
        result.message = f"{report.error.message} [{report.error.code}]"
        return result
    result.exit_code = outcome.exit_code
    result.outcome = OK if outcome.exit_code == 0 else UNAPPLIED
    result.output = outcome.output
    return result
