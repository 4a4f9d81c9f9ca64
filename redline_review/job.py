"""A batch of contracts: pairing documents with replies, and the pure per-document job.

:func:`run_document` is a pure function of (document bytes, reply text, options) -> result; the
local process pool and a Dask cluster both call it and nothing else differs.  Pairing looks at
file names only: ``NAME.docx`` goes with ``NAME.reply.json`` (or ``.reply.txt`` / ``.reply.md``)
and, for the summary flow, ``NAME.summary.json``; or with ``NAME.new.docx``, the version that
came back, which is compared with it (``redline compare``: ``NAME.compared.docx`` and
``NAME.compare.json``).  ``X.new.docx`` is a new version only beside ``X.docx``; alone it is a
document like any other.  Extensions and names are matched ignoring case (``CONTRACT.DOCX`` is a
document, and ``contract.reply.JSON`` its reply).

A round of a negotiation is ``NAME.sent.docx`` (the redline we sent) with ``NAME.returned.docx``
(or ``.doc``, ``.rtf``, ``.odt``: what came back): it is reconciled (``redline reconcile``:
``NAME.reconcile.json`` and ``NAME.memo.md``), a job of its own named ``NAME``.  A ``.sent.docx``
or ``.returned.docx`` that has a reply, a summary or a new version of its own
(``X.sent.reply.json``) is a document of the flows above, as before; a round whose name another
job has (``lease.docx`` beside ``lease.sent.docx``) is named by its sent file (``lease.sent``).
A document with a reply is proofread as well (:mod:`redline.proofread`: ``NAME.check.json``).
"""

from __future__ import annotations

import json
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from redline.apply import ApplyOptions, apply_reply
from redline.compare.diff import CompareOptions, compare
from redline.errors import Where, map_foreign
from redline.exits import EXIT_REFUSED
from redline.report import report_json
from shared_schema import BatchOutcome, Code, EditBatch, Refusal

from .html_report import report_details

REPLY_SUFFIXES = (".reply.json", ".reply.txt", ".reply.md")
SUMMARY_SUFFIX = ".summary.json"
NEW_SUFFIX = ".new.docx"  # NAME.new.docx beside NAME.docx: the version to compare it with
OUTPUT_SUFFIXES = (".redlined.docx", ".compared.docx")  # a batch's own outputs, never inputs
SENT_SUFFIX = ".sent.docx"  # NAME.sent.docx beside NAME.returned.*: a round, reconciled
RETURNED = ".returned"
RETURNED_FORMATS = (".docx", ".doc", ".rtf", ".odt")  # NAME.returned.EXT
CONVERSION_TIMEOUT = 120.0  # seconds a returned .doc / .rtf / .odt may take to convert

# outcome of one document in summary.json: always a status; a refused or failed document has
# its code beside it (summary.json's "code")
OK = BatchOutcome.APPLIED  # every edit applied
COMPARED = BatchOutcome.COMPARED  # compared with its new version, every change written as a tracked change
RECONCILED = BatchOutcome.RECONCILED  # a round reconciled (its exit: 0 clean, 1 untracked or lossy)
UNAPPLIED = BatchOutcome.UNAPPLIED  # the run completed; some edits were refused
REFUSED = BatchOutcome.REFUSED  # the document, its reply or its pairing was refused as a whole
FAILED = BatchOutcome.FAILED  # the job itself failed (a bug, or a worker lost twice): code failed
MISSING_REPLY = Code.MISSING_REPLY  # the codes of a job refused before it runs
MISSING_DOCUMENT = Code.MISSING_DOCUMENT


@dataclass(frozen=True)
class Job:
    """One document of a batch and the files that go with it (names relative to the batch).

    ``problem``: why the job cannot run at all, found from the names alone -- a code
    (``invalid_file_name``, ``duplicate_name``, ``ambiguous_reply``, ``ambiguous_version``,
    ``missing_sent``, ``missing_returned``, ``ambiguous_returned``) and a message.  ``new``: the
    new version to compare the document with (instead of a reply).  ``round``: a round of a
    negotiation -- ``document`` is the sent file, ``returned`` what came back."""

    name: str
    document: str | None
    reply: str | None
    summary: str | None = None
    problem: tuple[Code, str] | None = None
    new: str | None = None
    returned: str | None = None
    round: bool = False


def shown(name: str | None) -> str | None:
    """A file name as a report can hold it: a name that is not valid UTF-8 (which the file
    system hands over with surrogate escapes) with its odd bytes as ``\\xNN``."""
    if name is None:
        return None
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _valid_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeError:
        return False
    return True


@dataclass
class JobResult:
    """What one document produced; everything here is plain data (picklable).

    The reports come back already encoded, the bytes their files hold, and with the
    document's part of report.html: the worker that made a report encodes and renders it,
    in parallel with the others, and the client that writes the files does neither.
    """

    name: str
    outcome: BatchOutcome
    exit_code: int
    report_json: bytes | None = None  # NAME.report.json
    output: bytes | None = None
    summary_report_json: bytes | None = None  # NAME.summary-report.json
    message: str | None = None
    totals: dict[str, Any] = field(default_factory=dict)
    summary_totals: dict[str, Any] | None = None
    report_html: str = ""  # html_report.report_details of the report
    written: tuple[str, ...] = ()  # the outputs written (by the client that writes them)
    compared: bytes | None = None  # NAME.compared.docx
    compare_json: bytes | None = None  # NAME.compare.json
    compare_totals: dict[str, Any] | None = None
    code: Code | None = None  # why the document was refused, or failed
    check_json: bytes | None = None  # NAME.check.json (as ``redline check --json`` prints it)
    check: dict[str, Any] | None = None  # the check in summary.json (None: not checked)
    reconcile_json: bytes | None = None  # NAME.reconcile.json (as ``redline reconcile --json``)
    memo: bytes | None = None  # NAME.memo.md (as ``redline reconcile --memo`` writes it)
    reconcile: dict[str, Any] | None = None  # the round in summary.json

    @classmethod
    def refused(cls, name: str, code: Code, message: str) -> JobResult:
        """A document refused as a whole, before or without a report: its code and why."""
        return cls(name, REFUSED, EXIT_REFUSED, message=message, code=code)

    @classmethod
    def failed(cls, name: str, message: str) -> JobResult:
        """A job that failed (a bug of ours, a worker lost): code ``failed``."""
        return cls(name, FAILED, EXIT_REFUSED, message=message, code=Code.FAILED)


def json_bytes(data: dict[str, Any]) -> bytes:
    """A report file's bytes (:func:`redline.report.report_json`, UTF-8)."""
    return report_json(data).encode("utf-8")


def pair(names: list[str]) -> list[Job]:
    """Pair document and reply file names; every input comes back in a job, and a job that
    cannot run says why (:attr:`Job.problem`).

    Names are matched ignoring case (on a case-insensitive disk ``Lease.docx`` and
    ``lease.docx`` would write the same outputs, so both are refused ``duplicate_name``); a
    document with two reply files is refused ``ambiguous_reply`` (which one the model meant
    is not ours to guess), as is one with two summary files, and two replies with no document
    (each its own job); the files that go with duplicate documents are named in their message,
    never read.  No two jobs share a name: a duplicate whose stem another has exactly
    (``A.docx``, ``A.DOCX``) is named by its whole file name.  A name that is not valid UTF-8
    is refused ``invalid_file_name`` (reported with its odd bytes escaped, never read); a reply
    without a document and a document without a reply are jobs too (``missing_document``,
    ``missing_reply``)."""
    docs: dict[str, list[str]] = {}
    replies: dict[str, list[str]] = {}
    summaries: dict[str, list[str]] = {}
    converted: dict[str, list[str]] = {}  # X.returned.doc / .rtf / .odt, by "x.returned"
    jobs: list[Job] = []
    for name in sorted(names):
        base = PurePosixPath(name).name
        low = base.lower()
        if low.startswith((".", "~$")):
            continue  # hidden files and Word's lock files
        if low.endswith(OUTPUT_SUFFIXES):
            continue
        kind: dict[str, list[str]] | None = None
        stem = ""
        if low.endswith(".docx"):
            kind, stem = docs, base[: -len(".docx")]
        else:
            for suffix in REPLY_SUFFIXES:
                if low.endswith(suffix):
                    kind, stem = replies, base[: -len(suffix)]
                    break
            else:
                if low.endswith(SUMMARY_SUFFIX):
                    summaries.setdefault(base[: -len(SUMMARY_SUFFIX)].casefold(), []).append(name)
                    continue
                ext = PurePosixPath(low).suffix
                if ext not in RETURNED_FORMATS or not low[: -len(ext)].endswith(RETURNED):
                    continue
                kind, stem = converted, base[: -len(ext)]  # X.returned.odt: a round's half
        if not _valid_utf8(name):
            message = f"the file name {shown(name)!r} is not valid UTF-8; rename it"
            jobs.append(Job(str(shown(base)), None, None, problem=(Code.INVALID_FILE_NAME, message)))
            continue
        kind.setdefault(stem.casefold(), []).append(name)
    versions: dict[str, str] = {}  # X.new.docx beside X.docx: X's new version, not a document
    for key in list(docs):
        if key.endswith(NEW_SUFFIX[: -len(".docx")]) and len(docs[key]) == 1:
            base_key = key[: -len(".new")]
            if base_key in docs:
                versions[base_key] = docs.pop(key)[0]
    rounds = _round_halves(docs, replies, summaries, versions, converted)
    jobs.extend(_round_jobs(rounds, set(docs) | set(replies)))
    for key in sorted(set(docs) | set(replies)):
        found, answers = docs.get(key, []), replies.get(key, [])
        summary_files = summaries.get(key, [])
        summary = summary_files[0] if len(summary_files) == 1 else None
        new = versions.get(key)
        if len(found) > 1:
            jobs.extend(_duplicates(found, answers, summary_files, new))
            continue
        if not found and len(answers) > 1:
            for name, stem in zip(answers, _names(answers, _reply_stem), strict=True):
                others = ", ".join(a for a in answers if a != name)
                message = (
                    f"{name}: a reply whose name differs only by case from {others}'s, and no "
                    f"document {_reply_stem(name)}.docx for them; keep one, beside its document"
                )
                jobs.append(Job(stem, None, name, problem=(Code.AMBIGUOUS_REPLY, message)))
            continue
        stem = PurePosixPath(found[0]).name[: -len(".docx")] if found else _reply_stem(answers[0])
        if found and len(answers) > 1:
            message = f"{found[0]} has {len(answers)} reply files ({', '.join(answers)}); keep one"
            jobs.append(Job(stem, found[0], None, summary, problem=(Code.AMBIGUOUS_REPLY, message)))
            continue
        if found and len(summary_files) > 1:
            message = (
                f"{found[0]} has {len(summary_files)} summary files ({', '.join(summary_files)}); keep one"
            )
            jobs.append(
                Job(stem, found[0], answers[0] if answers else None, problem=(Code.AMBIGUOUS_REPLY, message))
            )
            continue
        if found and answers and new is not None:
            message = (
                f"{found[0]} has both a reply ({answers[0]}) and a new version ({new}): redline it or "
                "compare it, not both; move one of them out"
            )
            jobs.append(
                Job(stem, found[0], None, summary, problem=(Code.AMBIGUOUS_VERSION, message), new=new)
            )
            continue
        jobs.append(Job(stem, found[0] if found else None, answers[0] if answers else None, summary, new=new))
    return sorted(jobs, key=lambda j: (j.name.casefold(), j.name))


def _round_halves(
    docs: dict[str, list[str]],
    replies: dict[str, list[str]],
    summaries: dict[str, list[str]],
    versions: dict[str, str],
    converted: dict[str, list[str]],
) -> dict[str, tuple[list[str], list[str]]]:
    """The rounds' files, taken out of ``docs``: by round key, (sent files, returned files).
    ``X.sent.docx`` and ``X.returned.docx`` are halves of a round unless they have a reply, a
    summary or a new version of their own (then they are documents, as they always were)."""
    halves: dict[str, tuple[list[str], list[str]]] = {}
    for key in list(docs):
        if key in replies or key in summaries or key in versions:
            continue
        for tail, side in ((SENT_SUFFIX[: -len(".docx")], 0), (RETURNED, 1)):
            if key.endswith(tail) and len(key) > len(tail):
                halves.setdefault(key[: -len(tail)], ([], []))[side].extend(docs.pop(key))
                break
    for key, names in converted.items():
        halves.setdefault(key[: -len(RETURNED)], ([], []))[1].extend(names)
    return halves


def _round_stem(name: str) -> str:
    """``X`` of ``X.sent.docx`` or ``X.returned.EXT``."""
    base = PurePosixPath(name).name
    if base.lower().endswith(SENT_SUFFIX):
        return base[: -len(SENT_SUFFIX)]
    return base[: -len(PurePosixPath(base).suffix) - len(RETURNED)]


def _round_jobs(halves: dict[str, tuple[list[str], list[str]]], taken: set[str]) -> list[Job]:
    """One job per round: ``NAME.sent.docx`` with its ``NAME.returned.*``, or -- a half alone,
    two returned files, two sent files differing by case -- refused with the reason.  A round
    whose name another job has is named by its sent (or returned) file, without the extension."""
    jobs = []
    for key in sorted(halves):
        sents, backs = sorted(halves[key][0]), sorted(halves[key][1])
        first = (sents or backs)[0]
        stem = _round_stem(first)
        if key in taken:  # lease.docx is a job too: this round is lease.sent (or lease.returned)
            base = PurePosixPath(first).name
            stem = base[: -len(PurePosixPath(base).suffix)]
        returned = backs[0] if len(backs) == 1 else None
        if len(sents) > 1:
            for name, own in zip(sents, _names(sents, _doc_stem), strict=True):
                others = ", ".join(f for f in sents if f != name)
                with_them = f"; with them: {', '.join(backs)} (not read)" if backs else ""
                message = (
                    f"{name}: a sent document whose name differs only by case from {others}'s; their "
                    f"outputs would collide: rename all but one{with_them}"
                )
                jobs.append(Job(own, name, None, problem=(Code.DUPLICATE_NAME, message), round=True))
            continue
        problem: tuple[Code, str] | None = None
        if not sents:
            problem = (Code.MISSING_SENT, (
                f"{', '.join(backs)} came back, but the redline we sent ({stem}{SENT_SUFFIX}) is not "
                "in the folder: put it beside it to reconcile the round"
            ))  # fmt: skip
        elif not backs:
            problem = (Code.MISSING_RETURNED, (
                f"{sents[0]} is the redline we sent, but nothing came back beside it "
                f"({_round_stem(sents[0])}{RETURNED}.docx, .doc, .rtf or .odt)"
            ))  # fmt: skip
        elif len(backs) > 1:
            problem = (Code.AMBIGUOUS_RETURNED, (
                f"{sents[0]} has {len(backs)} returned files ({', '.join(backs)}); keep the one that "
                "came back"
            ))  # fmt: skip
        document = sents[0] if sents else None
        jobs.append(Job(stem, document, None, problem=problem, returned=returned, round=True))
    return jobs


def _doc_stem(name: str) -> str:
    return PurePosixPath(name).name[: -len(".docx")]


def _names(files: list[str], stem_of: Callable[[str], str]) -> list[str]:
    """Each file's job name: its stem, or -- when two of ``files`` have the same stem exactly
    (``A.docx`` and ``A.DOCX``) -- its whole file name, so that no two jobs share a name (a
    batch's results and summary.json's entries are told apart by it)."""
    stems = [stem_of(f) for f in files]
    pairs = zip(files, stems, strict=True)
    return [stem if stems.count(stem) == 1 else PurePosixPath(f).name for f, stem in pairs]


def _duplicates(found: list[str], answers: list[str], summaries: list[str], new: str | None) -> list[Job]:
    """The documents whose names are one name once case is folded: each refused
    ``duplicate_name``, its message naming the others (and the files that go with the name,
    which are not read: whose they are cannot be told)."""
    jobs = []
    extra = [*answers, *summaries, *([new] if new else [])]
    with_them = f"; with them: {', '.join(extra)} (not read)" if extra else ""
    for name, stem in zip(found, _names(found, _doc_stem), strict=True):
        others = ", ".join(f for f in found if f != name)
        message = (
            f"{name}: a document whose name differs only by case from {others}'s; their outputs "
            f"would collide (on a case-insensitive disk they are one file): rename all but one{with_them}"
        )
        reply = answers[0] if len(answers) == 1 else None
        jobs.append(Job(stem, name, reply, problem=(Code.DUPLICATE_NAME, message), new=new))
    return jobs


def _reply_stem(name: str) -> str:
    base = PurePosixPath(name).name
    low = base.lower()
    for suffix in REPLY_SUFFIXES:
        if low.endswith(suffix):
            return base[: -len(suffix)]
    return base


def _rationales(batch: EditBatch | None) -> dict[int, str]:
    """Each edit's rationale by its index in the reply (the page shows it; the report does not
    repeat the reply)."""
    if batch is None:
        return {}
    return {e.index: e.rationale for e in batch.edits if e.index is not None and e.rationale}


@dataclass(frozen=True)
class RoundInput:
    """A round's files for :func:`run_document`: the sent file's name (the document's bytes are
    the sent ones), and what came back, its name (whose suffix says its format) and bytes."""

    sent_name: str
    returned_name: str
    returned: bytes


def run_document(
    document: bytes | None,
    reply: bytes | None,
    summary: bytes | None,
    options: ApplyOptions,
    name: str,
    new: bytes | None = None,
    round_input: RoundInput | None = None,
    check: bool = True,
) -> JobResult:
    """The per-document job: apply the reply, check the summary, proofread the document and
    what the reply would break (``check``) -- or, given the document's ``new`` version, compare
    the two; or, given a round (``round_input``: the document is the redline we sent),
    reconcile what came back with it; never raises.

    The batch's boundary: the pipeline returns refusals as values, so an exception here is a
    refusal only when :func:`redline.errors.map_foreign` says it is one in a job (a
    :class:`~redline.errors.Refused`, or the operating system's ``io_error``): the document is
    reported refused with its code.  Anything else is a bug of ours -- the document is reported
    ``failed`` (never with a code about its file), and the traceback goes to stderr (the
    worker's log)."""
    try:
        if round_input is not None and document is not None:
            return _reconcile(document, round_input, name)
        if new is not None and document is not None:
            return _compare(document, new, options, name)
        return _run(document, reply, summary, options, name, check)
    except Exception as exc:  # a bug must not stop the batch; it is reported as one
        found = map_foreign(exc, Where.JOB)
        if found is not None:
            return JobResult.refused(name, found.code, f"{found.message} [{found.code}]")
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        trace = "".join(traceback.format_exception(exc))
        what = f"the round {round_input.sent_name}" if round_input is not None else f"{name}.docx"
        print(f"redline: {what} failed ({Code.INTERNAL_ERROR}):\n{trace}", file=sys.stderr, end="")
        return JobResult.failed(name, f"internal error: {detail}")


def _run(
    document: bytes | None,
    reply: bytes | None,
    summary: bytes | None,
    options: ApplyOptions,
    name: str,
    check: bool = True,
) -> JobResult:
    if document is None:
        message = f"a reply for {name}.docx, but no such document"
        return JobResult.refused(name, MISSING_DOCUMENT, message)
    if reply is None:
        message = f"{name}.docx has no reply file ({name}.reply.json) nor new version ({name}.new.docx)"
        return JobResult.refused(name, MISSING_REPLY, message)
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
    checked = _check(document, outcome.batch, name) if check else None
    result = JobResult(
        name,
        REFUSED,
        EXIT_REFUSED,
        report_json=json_bytes(report_dict),
        summary_report_json=None if summary_report is None else json_bytes(summary_report),
        totals=report.totals.model_dump(),
        summary_totals=None if summary_report is None else summary_report.get("totals"),
        report_html=report_details(
            report_dict, _rationales(outcome.batch), summary_report, None if checked is None else checked[1]
        ),
    )
    if checked is not None:
        result.check_json, _, result.check = checked
    if report.error is not None:
        result.message = f"{report.error.message} [{report.error.code}]"
        result.code = report.error.code
        return result
    result.exit_code = outcome.exit_code
    result.outcome = OK if outcome.exit_code == 0 else UNAPPLIED
    result.output = outcome.output
    return result


def _compare(document: bytes, new: bytes, options: ApplyOptions, name: str) -> JobResult:
    """The document compared with its new version: ``NAME.compared.docx`` (the document with
    the new version's differences as tracked changes) and ``NAME.compare.json``."""
    from .html_report import compare_details

    outcome = compare(
        document, new, CompareOptions(options.author, options.date),
        old_name=f"{name}.docx", new_name=f"{name}{NEW_SUFFIX}", output_name=f"{name}.compared.docx",
    )  # fmt: skip
    data = outcome.report.to_dict()
    result = JobResult(
        name, REFUSED, EXIT_REFUSED, compare_json=json_bytes(data), compare_totals=data["totals"],
        report_html=compare_details(data),
    )  # fmt: skip
    error = outcome.report.error
    if error is not None:
        result.message = f"{error.message} [{error.code}]"
        result.code = error.code
        return result
    result.exit_code = outcome.exit_code
    result.outcome = COMPARED if outcome.exit_code == 0 else UNAPPLIED
    if not options.dry_run:
        result.compared = outcome.output
    return result


def check_json_bytes(data: dict[str, Any]) -> bytes:
    """``NAME.check.json``'s bytes: the JSON ``redline check --json`` prints, byte for byte."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _check(
    document: bytes, batch: EditBatch | None, name: str
) -> tuple[bytes | None, dict[str, Any], dict[str, Any]]:
    """The proofread check of the document and of what its reply would break, as
    ``redline check DOC REPLY --json`` makes it (:func:`redline.proofread.check.check_document`),
    beside the apply and never in its way: a document the check cannot read, or a check that
    fails (a bug: its traceback on stderr), is recorded as the check's ``error`` and the
    document's outcome is its apply's.  Returns (``NAME.check.json``'s bytes or None, the check
    as the page shows it -- its findings --, the check as summary.json holds it)."""
    from redline.proofread.check import check_document

    entry: dict[str, Any] = {"reply": batch is not None and bool(batch.edits), "findings": 0, "totals": None}
    try:
        checked = check_document(document, batch, name=f"{name}.docx")
    except Exception as exc:  # the check's own failure: recorded; the apply stands
        found = map_foreign(exc, Where.JOB)
        if found is not None:
            entry["error"] = {"code": str(found.code), "message": found.message}
        else:
            print(f"redline: the check of {name}.docx failed ({Code.INTERNAL_ERROR}):", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            entry["error"] = {"code": str(Code.INTERNAL_ERROR), "message": f"internal error: {detail}"}
        return None, entry, entry
    if isinstance(checked, Refusal):
        entry["error"] = {"code": str(checked.code), "message": checked.message}
        return None, entry, entry
    data = checked.to_json()
    findings = data["findings"]
    assert isinstance(findings, list)
    entry["findings"] = len(findings)
    entry["totals"] = data["totals"]
    entry["error"] = None
    return check_json_bytes(data), {**entry, "list": findings}, entry


def round_json_bytes(data: dict[str, Any]) -> bytes:
    """``NAME.reconcile.json``'s bytes: the JSON ``redline reconcile --json`` prints."""
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _reconcile(sent: bytes, given: RoundInput, name: str) -> JobResult:
    """A round: what came back (converted first when it is a ``.doc``, ``.rtf`` or ``.odt``,
    through LibreOffice, as ``redline reconcile`` does) reconciled with the redline we sent --
    ``NAME.reconcile.json``, ``NAME.memo.md``; the document's exit is the reconcile's (0 clean,
    1 untracked changes or a lossy conversion).  A file that cannot be read or converted
    refuses the round with its code."""
    from redline.reconcile import ReconcileOptions, reconcile, render_memo
    from redline.reconcile.converted import CONVERTIBLE, returned_docx

    from .html_report import round_details

    suffix = PurePosixPath(given.returned_name).suffix.lower()
    with tempfile.TemporaryDirectory(prefix="redline-review-") as tmp:
        path = Path(tmp) / f"returned{suffix}"
        if suffix in CONVERTIBLE:
            path.write_bytes(given.returned)
        converted = returned_docx(path, given.returned, sent, timeout=CONVERSION_TIMEOUT)
    if isinstance(converted, Refusal):
        message = f"{given.returned_name}: {converted.message} [{converted.code}]"
        return JobResult.refused(name, converted.code, message)
    back, warnings, through = converted
    report = reconcile(
        sent, back, ReconcileOptions(), sent_name=given.sent_name, returned_name=given.returned_name,
        warnings=warnings, sent_through=through,
    )  # fmt: skip
    if report.error is not None:
        return JobResult.refused(name, report.error.code, f"{report.error.message} [{report.error.code}]")
    data = report.to_dict()
    totals = data["totals"]
    lossy = [w["message"] for w in data["warnings"] if w["code"] == Code.LOSSY_CONVERSION]
    return JobResult(
        name, RECONCILED, report.exit_code,
        reconcile_json=round_json_bytes(data), memo=render_memo(data).encode("utf-8"),
        reconcile={
            "author": data["author"], "totals": totals,
            "untracked": bool(totals["untracked"] or totals["modified_untracked"]),
            "lossy": bool(lossy), "warnings": lossy,
        },
        report_html=round_details(data),
    )  # fmt: skip
