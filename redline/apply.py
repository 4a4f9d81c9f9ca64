"""The whole redline flow as one pure function: (document bytes, reply, options) -> report, output.

load -> view -> parse -> verify -> write -> save.  Nothing here touches the file system, so the
same function serves the command line, the batch runner (local pool or cluster) and the tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lxml import etree

from shared_schema import Code, Edit, EditBatch, EditResult, ParseLimits, Refusal, parse_edit_reply

from .collector import paused
from .exits import EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED
from .match.locate import Locator
from .match.verify import Planned, needs_annotations, verify
from .opc.package import Limits, Package, PackageError
from .read.load import load_view
from .read.view import DocumentView
from .report import ReplyInfo, Report, invalid_results, totals
from .write.arguments import check_author, check_date
from .write.readback import Changes, read_again
from .write.splice import Splice
from .write.writer import WriteOptions, Writer, WriteResult, max_revision_id

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
        # what reaches w:author / w:date: checked (raises ArgumentError) and kept as written
        object.__setattr__(self, "author", check_author(self.author))
        if self.date is not None:
            object.__setattr__(self, "date", check_date(self.date))

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
        """``output`` as the loader read it back (:func:`check_output`): its package and view
        (the view's labels given on first use: the check needs the output read, not labelled)."""
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
        Report(
            document=document,
            revision=revision,
            output=None,
            reply=ReplyInfo(parsed=parsed),
            edits=[],
            totals=totals([]),
            error=refusal,
        )
    )


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
    verification = verify(locator, batch, dry_run=options.dry_run)
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
        try:
            output, written, changes = write_planned(package, view, verification.planned, options, plan)
        except PackageError as exc:
            return refused(document_name, Refusal.from_error(exc), view.revision, True)
        back = check_output(output, options.limits, labels=False, since=(package, view, changes))
        if isinstance(back, Refusal):
            return refused(document_name, back, view.revision, True)
        reloaded = back
    report = Report(
        document=document_name,
        revision=view.revision,
        output=None if options.dry_run else output_name,
        reply=ReplyInfo(parsed=True, notes=batch.notes, invalid=batch.invalid),
        edits=all_results,
        totals=totals(all_results),
    )
    return Outcome(report, output, written, view, batch, reloaded)


def check_output(
    output: bytes,
    limits: Limits | None = None,
    *,
    labels: bool = True,
    since: tuple[Package, DocumentView, Changes] | None = None,
) -> tuple[Package, DocumentView] | Refusal:
    """``output`` read back by the one load step (:func:`redline.read.load.load_view`, the same
    limits): its package and view, or the refusal ``unloadable_output`` when the loader would
    refuse it -- a document nothing may publish, since every later call would refuse it (a
    replacement so long and repetitive that the compression-ratio guard trips, say).
    ``labels=False``: the view's labels are given later (:meth:`DocumentView.finish_labels`).
    ``since``: the package and view ``output`` was written from, and what the write changed:
    what it left alone is not read again (:func:`redline.write.readback.read_again`: the same
    checks, the same package and view, the same refusals)."""
    if since is not None:
        package, view, changes = since
        again = read_again(package, view, output, changes, limits, labels=labels)
        if again is not None:
            return again
    loaded = load_view(output, limits, labels=labels)
    if not isinstance(loaded, Refusal):
        return loaded
    return Refusal(
        code=Code.UNLOADABLE_OUTPUT,
        message=(
            "The edited document would be refused when read again "
            f"({loaded.message.rstrip('.')} [{loaded.code}]), so it was not written."
        ),
        hint="Make the edits smaller (a shorter or less repetitive replacement), or fewer per call.",
    )


def _note_rationales_without_comments(
    view: DocumentView, results: list[EditResult], edits: list[Edit]
) -> None:
    """Word has no comments in headers and footers: an edit there is applied, its rationale
    is said in the report (and on the review page) instead of being dropped in silence."""
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


def write_planned(
    package: Package,
    view: DocumentView,
    planned: list[Planned],
    options: ApplyOptions,
    plan: DecisionPlan | None = None,
) -> tuple[bytes, WriteResult, Changes]:
    view.check_tree()
    if not planned and not plan:
        return package.to_bytes({}), WriteResult(), Changes()
    writer = make_writer(package, view, options.write_options())
    result = writer.write(planned, also=plan.ranges if plan else ())
    splice = writer.splice
    assert splice is not None
    touched = set(result.touched_parts)
    roots: dict[str, etree._Element] = {}
    if plan:  # decisions and threads change the trees after the writer (untracked)
        from .write.decisions import story_roots, write_decisions

        roots = story_roots(package, view)
        if write_decisions(plan, roots):
            # a paragraph joined or a row gone: the writer's count of the paragraphs each edit
            # touched no longer holds for the written document; none is reported
            result.touched_paragraphs = {}
        for part in plan.whole_parts:
            splice.whole(part)
        touched |= plan.parts
    c_changed: dict[str, bytes] = {}
    added: list[tuple[str, bytes]] = []
    if result.comments:
        from .write.comments import add_comments

        c_changed, c_added = add_comments(splice.working, result.comments, writer.options, writer.stamp)
        added.extend(c_added)
    if plan is not None and plan.threads:
        from .write.comments import write_threads

        write_threads(
            splice.working, plan.threads, roots, writer.options, writer.stamp, writer.new_id, c_changed, added
        )
    changed = splice.changed(touched)
    changed.update(c_changed)
    spliced = {part: found for part, found in splice.spliced.items() if part not in c_changed}
    return package.to_bytes(changed, added), result, Changes(changed, added, spliced)


def make_writer(package: Package, view: DocumentView, options: WriteOptions) -> Writer:
    """A writer for ``view`` (built by :func:`build_view`: its trees are its working copy's)
    whose revision ids start above every id the package already uses, and whose changed parts
    :attr:`Writer.splice` gives as bytes."""
    if view.working is None:
        raise TypeError("the view has no working copy to write into: build it with build_view()")
    parts = (p for p in package.names if p.startswith("word/") and p.endswith(".xml") and _has_ids(p))
    return Writer(view, options, max_revision_id(package.read(p) for p in parts), Splice(view.working, view))


def _has_ids(part: str) -> bool:
    name = part.rsplit("/", 1)[-1]
    return name.startswith(("document", "header", "footer", "footnotes", "endnotes", "comments"))
