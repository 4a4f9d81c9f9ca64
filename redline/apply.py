"""The whole redline flow as one pure function: (document bytes, reply, options) -> report, output.

load -> view -> parse -> verify -> write -> save.  Nothing here touches the file system, so the
same function serves the command line, the batch runner (local pool or cluster) and the tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shared_schema import Code, Edit, EditBatch, EditResult, ParseLimits, Refusal, parse_edit_reply
from shared_schema.construct import construct

from .collector import paused
from .exits import EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED
from .match.locate import Locator
from .match.verify import needs_annotations, verify
from .opc.package import Limits, Package
from .read.load import load_view
from .read.notes import NOTE_STORIES, reference_of
from .read.view import DocumentView
from .report import ReplyInfo, Report, invalid_results, totals
from .write.options import WriteOptions, WriteResult
from .write.publish import check_output as check_output  # (its old place: the name still works)
from .write.publish import make_writer as make_writer
from .write.publish import write_and_check

# Decisions on others' revisions, replies and resolved threads (redline.match.decisions, reading every
# annotation) and rationale comments (redline.write.comments) are imported by the run that has them.
if TYPE_CHECKING:
    from .match.decisions import DecisionPlan


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
    """What one document's run produced."""

    report: Report
    output: bytes | None = None  # the redlined document; None on dry-run or refusal
    written: WriteResult | None = None
    view: DocumentView | None = field(default=None, repr=False)
    batch: EditBatch | None = field(default=None, repr=False)  # the reply as parsed (rationales)
    _reloaded: tuple[Package, DocumentView] | None = field(default=None, repr=False)

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
        if self.report.error is not None:
            return EXIT_REFUSED
        return EXIT_OK if self.report.all_applied else EXIT_UNAPPLIED


def refused(document: str, refusal: Refusal, revision: str | None = None, parsed: bool = False) -> Outcome:
    return Outcome(
        _report(
            document=document,
            revision=revision,
            output=None,
            reply=construct(ReplyInfo, {"parsed": parsed}),
            edits=[],
            totals=totals([]),
            error=refusal,
        )
    )


def _report(**fields: object) -> Report:
    """``Report(**fields)`` of the values a run made (no model built until the report is dumped:
    :func:`shared_schema.construct.construct`)."""
    return construct(Report, fields)


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
    if isinstance(loaded, Refusal):
        return refused(document_name, loaded)
    package, view = loaded
    if isinstance(reply, EditBatch):
        batch: EditBatch | None = reply
    else:
        batch = parse_edit_reply(reply, options.parse_limits)
    if batch is None:
        return refused(
            document_name,
            Refusal(
                code=Code.UNPARSEABLE_REPLY,
                message="The reply holds no usable JSON list of edits.",
                hint='Reply with JSON: {"edits": [{"anchor": ..., "replacement": ...}]}.',
            ),
            view.revision,
        )
    return _apply_batch(package, view, batch, options, document_name, output_name)


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
        return _apply_batch(package, view, batch, options, document_name, output_name)


def _apply_batch(
    package: Package,
    view: DocumentView,
    batch: EditBatch,
    options: ApplyOptions,
    document_name: str,
    output_name: str | None,
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
        if isinstance(done, Refusal):
            return refused(document_name, done, view.revision, True)
        output, written, reloaded = done.output, done.result, (done.package, done.view)
    reply = construct(ReplyInfo, {"parsed": True, "notes": list(batch.notes), "invalid": list(batch.invalid)})
    made = _report(
        document=document_name,
        revision=view.revision,
        output=None if options.dry_run else output_name,
        reply=reply,
        edits=all_results,
        totals=totals(all_results),
    )
    return Outcome(made, output, written, view, batch, reloaded)


def _note_rationales_without_comments(
    view: DocumentView, results: list[EditResult], edits: list[Edit]
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
