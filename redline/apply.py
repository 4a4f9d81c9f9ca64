"""The whole redline flow as one pure function: (document bytes, reply, options) -> report, output.

load -> view -> parse -> verify -> write -> save.  Nothing here touches the file system, so the
same function serves the command line, the batch runner (local pool or cluster) and the tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shared_schema import Code
from shared_schema.parse import ParseLimits, read_edit_reply
from shared_schema.records import BatchRecord, EditRecord, RefusalRecord, ResultRecord

from .collector import paused
from .exits import EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED
from .match.locate import Locator
from .match.verify import needs_annotations, verify
from .opc.package import Limits, Package
from .read.load import load_view
from .read.notes import NOTE_STORIES, reference_of
from .read.view import DocumentView
from .results import ReplyRecord, ReportRecord, invalid_results, totals
from .write.options import WriteOptions, WriteResult
from .write.publish import Written as _Written
from .write.publish import check_output as check_output  # (its old place: the name still works)
from .write.publish import make_writer as make_writer
from .write.publish import write_and_check

# Decisions on others' revisions, replies and resolved threads (redline.match.decisions, reading every
# annotation) and rationale comments (redline.write.comments) are imported by the run that has them.
if TYPE_CHECKING:
    from shared_schema.models import EditBatch, Refusal

    from .match.decisions import DecisionPlan
    from .report import Report


@dataclass(frozen=True)
class ApplyOptions:
    """How a reply is applied: the revision author and date, ``dry_run`` (verify only, write
    nothing; ``stream``: never hold the document whole), ``track`` (tracked changes, or plain
    accepted text), ``comments`` (each rationale as a Word comment), and the limits a hostile
    document or reply is held to."""

    author: str = "redline"
    date: str | None = None
    dry_run: bool = False
    stream: bool = False  # with dry_run: the streamed verify-only view (never holds the document)
    track: bool = True
    comments: bool = True
    limits: Limits | None = None
    parse_limits: ParseLimits | None = None

    def __post_init__(self) -> None:
        # the write's options check what reaches w:author / w:date (raise ArgumentError) when
        # they are made: made here, so a bad author or date is refused before anything is read
        checked = self.write_options()
        object.__setattr__(self, "author", checked.author)
        object.__setattr__(self, "date", checked.date)

    def write_options(self) -> WriteOptions:
        return WriteOptions(self.author, self.date, self.track, self.comments)


@dataclass
class Outcome:
    """What one document's run produced: :attr:`report` and :attr:`batch` are the public
    models, made of the run's records (:attr:`record`, :attr:`parsed`) on first use -- a run that
    only writes its output and reads the counts never imports pydantic (issue 32)."""

    record: ReportRecord  # the report, as the run's records (redline.results)
    output: bytes | None = None  # the redlined document; None on dry-run or refusal
    written: WriteResult | None = None
    view: DocumentView | None = field(default=None, repr=False)
    parsed: BatchRecord | None = field(default=None, repr=False)  # the reply as parsed (rationales)
    _reloaded: tuple[Package, DocumentView] | None = field(default=None, repr=False)
    _batch: EditBatch | None = field(default=None, repr=False)  # the caller's, when it gave one
    _report: Report | None = field(default=None, repr=False)

    @property
    def report(self) -> Report:
        """The run's :class:`~redline.report.Report` (made of :attr:`record` on first use)."""
        if self._report is None:
            from .report import report_of

            self._report = report_of(self.record)
        return self._report

    @property
    def batch(self) -> EditBatch | None:
        """The reply as parsed, an :class:`~shared_schema.models.EditBatch` (the caller's own,
        when it gave one; else made of :attr:`parsed` on first use)."""
        if self._batch is None and self.parsed is not None:
            self._batch = self.parsed.model()
        return self._batch

    @property
    def reloaded(self) -> tuple[Package, DocumentView] | None:
        """``output`` as the loader read it back (:func:`redline.write.publish.write_and_check`):
        its package and view (the view's labels given on first use: the check needs the output
        read, not labelled)."""
        if self._reloaded is not None:
            self._reloaded[1].finish_labels()
        return self._reloaded

    @property
    def exit_code(self) -> int:
        if self.record.error is not None:
            return EXIT_REFUSED
        return EXIT_OK if self.record.all_applied else EXIT_UNAPPLIED


def refused(
    document: str, refusal: Refusal | RefusalRecord, revision: str | None = None, parsed: bool = False
) -> Outcome:
    """The outcome of a document or a reply refused whole (``refusal``: a model, from the loader
    or the writer's check, or a record)."""
    error = refusal if isinstance(refusal, RefusalRecord) else RefusalRecord.of(refusal)
    return Outcome(ReportRecord(document, revision, None, ReplyRecord(parsed), [], totals([]), error))


def apply_reply(
    document: bytes,
    reply: str | bytes | EditBatch,
    options: ApplyOptions | None = None,
    *,
    document_name: str = "document.docx",
    output_name: str | None = None,
) -> Outcome:
    """Verify every edit of ``reply`` against ``document`` and write the tracked changes."""
    with paused():  # see redline.collector: nothing here makes cycles, refcounting frees it all
        return _apply_reply(document, reply, options or ApplyOptions(), document_name, output_name)


def _apply_reply(
    document: bytes,
    reply: str | bytes | EditBatch,
    options: ApplyOptions,
    document_name: str,
    output_name: str | None,
) -> Outcome:
    loaded = load_view(
        document, options.limits, stream=options.dry_run and options.stream, trees=not options.dry_run
    )
    if not isinstance(loaded, tuple):  # a Refusal: the document refused
        return refused(document_name, loaded)
    package, view = loaded
    given: EditBatch | None = None
    if isinstance(reply, str | bytes):
        batch = read_edit_reply(reply, options.parse_limits)
    else:
        given, batch = reply, BatchRecord.of(reply)
    if batch is None:
        return refused(
            document_name,
            RefusalRecord(
                code=Code.UNPARSEABLE_REPLY,
                message="The reply holds no usable JSON list of edits.",
                hint='Reply with JSON: {"edits": [{"anchor": ..., "replacement": ...}]}.',
            ),
            view.revision,
        )
    return _apply_batch(package, view, batch, options, document_name, output_name, given)


def apply_batch(
    package: Package,
    view: DocumentView,
    batch: EditBatch,
    options: ApplyOptions,
    document_name: str = "document.docx",
    output_name: str | None = None,
) -> Outcome:
    """The verify-and-write half of :func:`apply_reply`, for callers that hold a loaded view."""
    with paused():
        return _apply_batch(package, view, BatchRecord.of(batch), options, document_name, output_name, batch)


def _apply_batch(
    package: Package,
    view: DocumentView,
    batch: BatchRecord,
    options: ApplyOptions,
    document_name: str,
    output_name: str | None,
    given: EditBatch | None = None,
) -> Outcome:
    locator = Locator(view)
    verification = verify(locator, batch, dry_run=options.dry_run, limits=options.limits)
    plan: DecisionPlan | None = None
    if needs_annotations(batch.edits):  # accept / reject / reply / resolve (redline.match.decisions)
        from .match.decisions import check

        plan, verification.planned = check(
            locator, package, batch.edits, verification.results, verification.planned, options.author
        )
    if options.write_options().comments:
        _note_rationales_without_comments(view, verification.results, batch.edits)
    all_results = sorted([*verification.results, *invalid_results(batch)], key=lambda r: r.index)
    output: bytes | None = None
    written: WriteResult | None = None
    reloaded: tuple[Package, DocumentView] | None = None
    if not options.dry_run:
        done = write_and_check(
            package, view, verification.planned, options.write_options(), plan,
            limits=options.limits, labels=False,
        )  # fmt: skip
        if not isinstance(done, _Written):  # a Refusal: the output failed its check
            return refused(document_name, done, view.revision, True)
        output, written, reloaded = done.output, done.result, (done.package, done.view)
    reply = ReplyRecord(True, list(batch.notes), list(batch.invalid))
    made = ReportRecord(
        document_name, view.revision, None if options.dry_run else output_name, reply, all_results,
        totals(all_results),
    )  # fmt: skip
    return Outcome(made, output, written, view, batch, reloaded, given)


def _note_rationales_without_comments(
    view: DocumentView, results: list[ResultRecord], edits: list[EditRecord]
) -> None:
    """Word has no comments in headers and footers: an edit there is applied, its rationale
    is said in the report (and on the review page) instead of being dropped in silence; so is
    the rationale of an edit in a footnote or endnote no body paragraph refers to (a comment on
    a note stands on its reference mark: :mod:`redline.read.notes`)."""
    for result, edit in zip(results, edits, strict=True):
        if not edit.rationale or result.error is not None:
            continue
        stories = {view.paragraphs[loc.paragraph].story for loc in result.locations}
        where = sorted(stories & {"header", "footer"})
        if where:
            result.notes.append(
                f"The rationale could not be attached as a comment: Word keeps no comments in "
                f"a {' or '.join(where)}. It is recorded here instead: \u201c{edit.rationale}\u201d"
            )
            continue
        notes = [
            view.paragraphs[loc.paragraph]
            for loc in result.locations
            if view.paragraphs[loc.paragraph].story in NOTE_STORIES
        ]
        if (
            notes
            and edit.action != "comment"
            and view.working is not None  # (a streamed view cannot tell: it holds no trees)
            and reference_of(view, notes[0]) is None
        ):
            kind = notes[0].story
            result.notes.append(
                f"The rationale could not be attached as a comment: a comment on a {kind} stands "
                f"on its reference mark in the body, and no body paragraph refers to this {kind}. "
                f"It is recorded here instead: \u201c{edit.rationale}\u201d"
            )
