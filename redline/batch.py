"""A batch of contracts: pairing documents with replies, and the pure per-document job.

:func:`run_document` is a pure function of (document bytes, reply text, options) -> result; the
local process pool and a Dask cluster both call it and nothing else differs.  Pairing looks at
file names only: ``NAME.docx`` goes with ``NAME.reply.json`` (or ``.reply.txt`` / ``.reply.md``)
and, for the summary flow, ``NAME.summary.json``.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from .apply import ApplyOptions, apply_reply

REPLY_SUFFIXES = (".reply.json", ".reply.txt", ".reply.md")
SUMMARY_SUFFIX = ".summary.json"

# outcome of one document in summary.json
OK = "applied"  # every edit applied
UNAPPLIED = "unapplied"  # the run completed; some edits were refused
REFUSED = "refused"  # the document or its reply was refused as a whole
MISSING_REPLY = "missing_reply"
MISSING_DOCUMENT = "missing_document"
FAILED = "failed"  # the job itself failed (a bug, or a worker lost twice)


@dataclass(frozen=True)
class Job:
    """One document of a batch and the files that go with it (names relative to the batch)."""

    name: str
    document: str | None
    reply: str | None
    summary: str | None = None


@dataclass
class JobResult:
    """What one document produced; everything here is plain data (picklable, JSON-able)."""

    name: str
    outcome: str
    exit_code: int
    report: dict[str, Any] | None = None
    output: bytes | None = None
    summary_report: dict[str, Any] | None = None
    message: str | None = None
    totals: dict[str, Any] = field(default_factory=dict)


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


def run_document(
    document: bytes | None,
    reply: bytes | None,
    summary: bytes | None,
    options: ApplyOptions,
    name: str,
) -> JobResult:
    """The per-document job: apply the reply, check the summary; never raises."""
    try:
        return _run(document, reply, summary, options, name)
    except Exception as exc:  # a bug must not stop the batch; it is reported as one
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return JobResult(name, FAILED, 3, message=f"internal error: {detail}")


def _run(
    document: bytes | None,
    reply: bytes | None,
    summary: bytes | None,
    options: ApplyOptions,
    name: str,
) -> JobResult:
    if document is None:
        return JobResult(name, MISSING_DOCUMENT, 3, message=f"a reply for {name}.docx, but no such document")
    if reply is None:
        return JobResult(name, MISSING_REPLY, 3, message=f"{name}.docx has no reply file ({name}.reply.json)")
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
    if report.error is not None:
        return JobResult(
            name,
            REFUSED,
            3,
            report=report.to_dict(),
            summary_report=summary_report,
            message=f"{report.error.message} [{report.error.code}]",
            totals=report.totals.model_dump(),
        )
    code = outcome.exit_code
    return JobResult(
        name,
        OK if code == 0 else UNAPPLIED,
        code,
        report=report.to_dict(),
        output=outcome.output,
        summary_report=summary_report,
        totals=report.totals.model_dump(),
    )
