"""Decide, for every edit of a batch, where it lands -- or why it is refused.

The checks run against the original document and do not depend on the order of the edits:
revision (stale), location (not_found / ambiguous / count_mismatch), scope (out_of_scope),
content (no_change, unsupported), then overlaps between the edits that survived.  Every edit
leaves with an :class:`EditResult`; the located ones also with :class:`Planned` ranges for the
writer.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from lxml import etree

from shared_schema import Code, EditStatus, MatchKind
from shared_schema.records import BatchRecord, EditRecord, LocationRecord, RefusalRecord, ResultRecord
from shared_schema.rules import COLUMN_ACTIONS, MOVE_ACTIONS, NO_ANCHOR_ACTIONS, ROW_ACTIONS

from ..collector import paused
from ..opc.zipread import DEFAULT_LIMITS, Limits
from ..read.headings import sections_named
from ..read.notes import NOTE_STORIES, reference_of
from ..read.outline import Head
from ..read.sections import label_key, split_label
from ..read.view import DocumentView, Paragraph, SpanFlag, SpanKind
from ..text.normalize import normalize
from ..text.worddiff import word_diff
from .crossref import CrossRef, ref_note, retarget
from .fields import code_runs, open_at_end, whole_fields
from .hints import HintBudget, not_found, unique_extension
from .locate import Found, Locator
from .moves import move_note, movers

# The planners of format entries, table rows and clause moves (redline.match.formats, .rows,
# .moves_plan) are imported by the batch that has such an entry: a reply of plain edits pays
# neither their modules nor their classes (issue 32).
if TYPE_CHECKING:
    from shared_schema.models import Edit, EditBatch

    from .formats import FormatPlan, Styles
    from .moves_plan import MovePlan
    from .rows import RowPlan

MAX_INSERT_LINES = 10_000
"""The new paragraphs one ``insert_after`` / ``insert_before`` may add (its ``text``'s lines):
a whole schedule is a few hundred; the writer costs ~0.13 CPU ms a line (linear), so the limit
is ~1.4 CPU s, and 10,000 new paragraphs are ~100,000 of the loader's 1,000,000 tags
(``Limits.max_markup``: 100,000 lines would make the output unloadable, the whole document
refused).  An entry over it is refused alone (``invalid``)."""
MAX_TEXT_NODE_BYTES = 10_000_000
"""libxml2's limit on one text node (``XML_MAX_TEXT_LENGTH``, ``huge_tree=False``): the loader
refuses a part that holds a longer one (``xml_node_too_large``), so no line of a replacement or
text may be longer, as written (UTF-8, escaped)."""

HINTED_CANDIDATES = 20  # candidates of an ambiguous anchor that get a unique extension in the hint
# candidates a decision's refusal lists; ``actual_matches`` (and the message) count them all.
# (An anchor's candidates are bounded by locate.MAX_MATCHES, 1000: bounding them to this too
# would change the golden reports, whose generated replies have such anchors -- left as is.)
MAX_CANDIDATES = 20


@dataclass(frozen=True)
class Planned:
    """One range the writer will change: view [start, end) becomes ``replacement``.
    ``edit_index`` is the edit's index in the reply (its result's ``index``)."""

    edit_index: int
    start: int
    end: int
    replacement: str
    exact: bool
    rationale: str | None = None
    insert: bool = False  # whole new paragraphs at a paragraph's edge (insert_after / _before)
    level: int = 0  # their list level, relative to that paragraph's (+1: a sub-clause)
    # The code runs of fields whose result the new text types over: deleted with it, as Word
    # deletes a field you type over (the typed text stays, as plain text).
    fields: tuple[etree._Element, ...] = ()
    comment: bool = False  # a comment (``rationale`` its text) on the range; the text unchanged
    # New REF fields the replacement holds as marks (redline.match.crossref): the typed-over field's
    # new text names another numbered clause.
    refs: tuple[CrossRef, ...] = ()
    format: FormatPlan | None = None  # a tracked formatting change (redline.match.formats): no text changes
    row: RowPlan | None = None  # a table row inserted beside, or deleted (redline.match.rows)
    move: MovePlan | None = None  # a clause relocated as one tracked move (redline.match.moves_plan)


@dataclass
class Verification:
    results: list[ResultRecord]
    planned: list[Planned]


def needs_annotations(edits: list[EditRecord]) -> bool:
    """Does the batch act on the document's annotations (accept, reject, reply, resolve: the
    entries this verifier leaves to :mod:`redline.match.decisions`, which a run imports only then)?"""
    return any(e.action in NO_ANCHOR_ACTIONS for e in edits)


def verify(
    locator: Locator,
    batch: BatchRecord | list[EditRecord] | EditBatch | list[Edit],
    *,
    dry_run: bool = False,
    hints: bool = True,
    limits: Limits | None = None,
) -> Verification:
    """Check every edit of ``batch`` against the locator's view.

    With ``hints=False`` the refusals carry no near-miss passage and no unique extensions (the
    statuses, candidates and counts are the same): for callers that only need the verdicts.
    ``limits``: the loader's (the default's when None), which no entry's new text may break
    (:func:`too_large`).
    """
    with paused():
        return _verify(locator, records(batch), dry_run, hints, limits)


def records(batch: BatchRecord | list[EditRecord] | EditBatch | list[Edit]) -> BatchRecord | list[EditRecord]:
    """``batch`` as the verifier's records: a parsed reply's already are
    (:func:`shared_schema.parse.read_edit_reply`); the public models a caller made are read
    into them (:mod:`shared_schema.records`)."""
    if isinstance(batch, BatchRecord):
        return batch
    if isinstance(batch, list):
        return [e if isinstance(e, EditRecord) else EditRecord.of(e) for e in batch]
    return BatchRecord.of(batch)


def too_large(edit: EditRecord | Edit, view: DocumentView, limits: Limits | None = None) -> str | None:
    """Why ``edit``'s new text (``replacement``, ``text``) cannot be written within the loader's
    limits -- a line over libxml2's text-node limit, more text than ``limits.max_text_chars``
    leaves beside the document's, more lines than :data:`MAX_INSERT_LINES` -- or None.
    Checked before anything is located, so such an entry costs nothing and is refused alone:
    the written document would be refused whole (``unloadable_output``)."""
    texts = [t for t in (edit.replacement, edit.text, *(edit.cells or ())) if t]
    if not texts:
        return None
    chars = sum(len(t) for t in texts)
    room = (limits or DEFAULT_LIMITS).max_text_chars - len(view.text)
    if chars > room:
        return (
            f"its new text is {chars:,} characters; the document's text may total at most "
            f"{(limits or DEFAULT_LIMITS).max_text_chars:,} (Limits.max_text_chars), which leaves "
            f"{max(room, 0):,} for new text."
        )
    if edit.action in ("insert_after", "insert_before") and edit.text:
        lines = edit.text.count("\n") + 1
        if lines > MAX_INSERT_LINES:
            return (
                f"its text is {lines:,} lines; one {edit.action} adds at most {MAX_INSERT_LINES:,} "
                "paragraphs (redline.match.verify.MAX_INSERT_LINES)."
            )
    for t in texts:
        if 4 * len(t) <= MAX_TEXT_NODE_BYTES:  # (no shorter text can be over it)
            continue
        for line in t.split("\n"):
            size = (
                len(line.encode("utf-8", "surrogatepass"))
                + 4 * line.count("&")
                + 3 * (line.count("<") + line.count(">"))
                + 4 * line.count("\r")
            )
            if size > MAX_TEXT_NODE_BYTES:
                return (
                    f"a line of its new text is {size:,} bytes as written; the loader reads no "
                    f"text node over {MAX_TEXT_NODE_BYTES:,} bytes (libxml2's limit), so the "
                    "document would be refused."
                )
    return None


def _verify(
    locator: Locator,
    batch: BatchRecord | list[EditRecord],
    dry_run: bool,
    hints: bool,
    limits: Limits | None = None,
) -> Verification:
    edits = batch.edits if isinstance(batch, BatchRecord) else batch
    revision = batch.revision if isinstance(batch, BatchRecord) else None
    view = locator.view
    ok_status = EditStatus.VERIFIED if dry_run else EditStatus.APPLIED
    results: list[ResultRecord] = []
    found_of: dict[int, Found] = {}
    replacement_of: dict[int, str] = {}
    fields_of: dict[tuple[int, int], tuple[etree._Element, ...]] = {}  # (edit, range start)
    refs_of: dict[tuple[int, int], tuple[str, tuple[CrossRef, ...]]] = {}  # (edit, range start)
    moves_of: dict[int, MovePlan] = {}  # move_after / move_before: the clause and its destination
    stale = revision is not None and revision != view.revision
    if len(edits) > 8 and not stale:
        locator.prepare()  # index once now rather than after a few full scans
    budget = HintBudget()  # hints bounded per edit and per call (redline.match.hints)
    format_of: dict[int, FormatPlan] = {}  # format entries' plans; the document's styles read once
    styles: list[Styles | None] = []

    for i, edit in enumerate(edits):
        index = edit.index
        if index is None:  # an edit made in code: its place in the batch
            index = i
        if stale:
            result = _result(index, edit, ok_status)
            results.append(result)
            _refuse(
                result,
                EditStatus.STALE,
                f"These edits were written against revision {revision}, but the document is now "
                f"at {view.revision}.",
                "Re-read the document and quote its current text.",
            )
            continue
        oversized = too_large(edit, view, limits)
        if oversized is not None:
            result = _result(index, edit, ok_status)
            results.append(result)
            _refuse(
                result,
                EditStatus.INVALID,
                f"The entry is too large to write: {oversized}",
                "Split it into smaller entries, or leave the long text out of the reply.",
            )
            continue
        if edit.action in NO_ANCHOR_ACTIONS:
            # accept / reject / reply / resolve quote no text: redline.match.decisions checks them
            results.append(_result(index, edit, ok_status))
            continue
        if edit.action in COLUMN_ACTIONS:  # refused whatever it quotes (redline.match.rows)
            from .rows import column_refusal

            column = column_refusal(edit)
            assert column is not None
            results.append(_result(index, edit, ok_status))
            _refuse(results[-1], column.status, column.message, column.hint)
            continue
        found = locator.find(edit.anchor)
        result = _result(index, edit, ok_status, locator, found)
        results.append(result)
        if not found.ranges:
            _not_found(locator, edit, result, hints and budget.allows(edit.anchor))
            continue
        count = len(found.ranges)
        if edit.expected_matches is not None:
            if count != edit.expected_matches or found.truncated:
                _refuse(
                    result,
                    EditStatus.COUNT_MISMATCH,
                    f"You expected {edit.expected_matches} occurrence(s) of the anchor, but the "
                    f"document has {count}{'+' if found.truncated else ''}.",
                    f"Set expected_matches to {count} if every occurrence should change, or quote "
                    "more surrounding text to pick the ones you mean.",
                    candidates=result.locations,
                    actual_matches=count,
                )
                continue
        elif count > 1:
            narrowed = _in_named_section(locator, edit, found)
            if narrowed is None:
                _ambiguous(locator, edit, result, found, hints and budget.allows(edit.anchor))
                continue
            found, (head, count) = narrowed
            result = results[-1] = _result(index, edit, ok_status, locator, found)
            result.notes.append(
                f"The anchor occurs {count} times in the document; the one in section "
                f"\u201c{head.title}\u201d, which `section` names, is the one edited."
            )
        if edit.section is not None and not _in_scope(locator, edit, result, found):
            continue
        if edit.action == "format":
            from .formats import FormatRefusal, Styles, format_note, plan_format

            if not styles:
                styles.append(Styles.of_view(view))
            fplan = plan_format(view, edit, found, styles[0])
            if isinstance(fplan, FormatRefusal):
                _refuse(result, fplan.status, fplan.message, fplan.hint, candidates=result.locations)
            else:
                found_of[i], replacement_of[i], format_of[i] = found, "", fplan
                result.notes.append(format_note(fplan, edit))
            continue
        if edit.action == "comment":
            if any(view.paragraph_at(s).story in ("header", "footer") for s, _ in found.ranges):
                _refuse(
                    result,
                    EditStatus.UNSUPPORTED,
                    "The passage is in a header or footer, where Word keeps no comments.",
                    "Comment on a passage of the body (or a footnote) instead.",
                    candidates=result.locations,
                )
                continue
            note = view.paragraph_at(found.ranges[0][0])
            if note.story in NOTE_STORIES and view.working is not None and reference_of(view, note) is None:
                _refuse(
                    result,
                    EditStatus.UNSUPPORTED,
                    f"The passage is in a {note.story} that no paragraph of the body refers to; a "
                    f"comment on a {note.story} stands on its reference mark in the body, and this "
                    "one has none.",
                    "Comment on the body text that cites the note instead.",
                    candidates=result.locations,
                )
                continue
            found_of[i] = found
            replacement_of[i] = edit.text or ""
            continue
        if edit.action in ROW_ACTIONS:  # redline.match.rows
            from .rows import check_rows, row_notes

            rows = check_rows(view, edit, found.ranges)
            if isinstance(rows, list):
                found_of[i] = Found(rows, found.kind, list(found.tolerances), found.truncated)
                replacement_of[i] = ""
                result.notes.extend(row_notes(edit, view))
            else:
                _refuse(result, rows.status, rows.message, rows.hint, candidates=result.locations)
            continue
        if edit.action in MOVE_ACTIONS:
            from .moves_plan import plan_move

            move = plan_move(locator, edit, result, found)
            if move is not None:  # its block and destination, for the overlap check
                found_of[i], moves_of[i] = Found(list(move.spans), found.kind, list(found.tolerances)), move
            continue
        if edit.action in ("insert_after", "insert_before"):
            point = _insertion(locator, edit, result, found)
            if point is not None:
                found_of[i] = point
                replacement_of[i] = edit.text or ""
            continue
        replacement = unlabel(edit.replacement, found.labels) if found.labels else edit.replacement
        if _same_text(replacement, _unlabelled(locator, found) if found.labels else edit.anchor):
            _refuse(
                result,
                EditStatus.NO_CHANGE,
                "The replacement is the same text as the anchor (at most spacing, quotes or "
                "dashes differ), so the edit would change nothing.",
                "Send the text as it should read after the change, or drop the edit.",
            )
            continue
        typed_over: list[tuple[str, list[etree._Element], int, int]] = []
        reason = _unsupported(locator, found, replacement, found.kind is MatchKind.EXACT, typed_over)
        if reason:
            _refuse(
                result,
                EditStatus.UNSUPPORTED,
                reason,
                "Quote only ordinary text of one story; leave field results alone.",
            )
            continue
        found_of[i] = found
        replacement_of[i] = replacement
        moved = [who for s, e in found.ranges for who in movers(view, s, e) or ()]
        if moved:
            result.notes.append(move_note(list(dict.fromkeys(moved))))
        if typed_over:
            retargeted: set[str] = set()
            for s, e in found.ranges:
                mine = [(fs, fe, runs) for _, runs, fs, fe in typed_over if s <= fs and fe <= e]
                fields_of[(i, s)] = tuple(run for _, _, runs in mine for run in runs)
                marked, refs = retarget(view, s, e, replacement, found.kind is MatchKind.EXACT, mine)
                if refs:
                    refs_of[(i, s)] = (marked, tuple(refs))
                    for ref in refs:
                        if ref.old not in retargeted:
                            retargeted.add(ref.old)
                            result.notes.append(ref_note(view, ref))
            for text, _, fs, fe in typed_over:
                if text in retargeted:
                    continue
                exact = found.kind is MatchKind.EXACT
                if any(
                    s <= fs and fe <= e and _only_deleted(view, s, e, replacement, exact, fs, fe)
                    for s, e in found.ranges
                ):
                    result.notes.append(
                        f"The field showing \u201c{text}\u201d is deleted with the text around it, "
                        "begin through end (a tracked deletion: rejecting it restores the field)."
                    )
                else:
                    result.notes.append(
                        f"The field showing \u201c{text}\u201d is deleted with the text typed over it, "
                        "as Word does: the new text is plain text and no longer updates."
                    )

    _refuse_overlaps(results, found_of)
    moving = [i for i in moves_of if found_of.pop(i, None) is not None]
    planned = [
        _planned(locator, results[i].index, edits[i], s, e, replacement_of[i], fields_of.get((i, s), ()),
                 refs_of.get((i, s)), format_of.get(i))
        for i, found in found_of.items()
        if results[i].error is None
        for s, e in found.ranges
    ]  # fmt: skip
    planned += [Planned(results[i].index, moves_of[i].at, moves_of[i].at, "", True, edits[i].rationale,
                        move=moves_of[i]) for i in moving]  # fmt: skip
    planned.sort(key=lambda p: p.start)
    return Verification(results, planned)


def _result(
    index: int,
    edit: EditRecord,
    status: EditStatus,
    locator: Locator | None = None,
    found: Found | None = None,
) -> ResultRecord:
    """The result of a located edit, built in one go (no per-field assignments)."""
    if locator is None or found is None or not found.ranges:
        return ResultRecord(index, edit.id, edit.anchor, edit.replacement, status)
    return ResultRecord(
        index, edit.id, edit.anchor, edit.replacement, status, found.kind, list(found.tolerances),
        [locator.location(s, e) for s, e in found.ranges],
    )  # fmt: skip


def _refuse(
    result: ResultRecord,
    status: EditStatus,
    message: str,
    hint: str | None,
    *,
    candidates: list[LocationRecord] | None = None,
    **extra: object,
) -> None:
    result.status = status
    result.error = RefusalRecord.of_values(
        {
            "code": status.code,  # or a finer code in ``extra`` (ambiguous_section)
            "message": message,
            "hint": hint,
            "candidates": candidates or [],
            "tolerances": list(result.tolerances),
            **extra,
        }
    )


def _not_found(locator: Locator, edit: EditRecord, result: ResultRecord, hints: bool) -> None:
    result.status = EditStatus.NOT_FOUND
    result.error = locator.in_deletion(edit.anchor) or not_found(
        locator,
        edit.anchor,
        noun="anchor",
        hint="Copy the anchor character for character from the document text you were shown.",
        search=hints,
    )


def _same_text(a: str, b: str) -> bool:
    """Equal up to the tolerated typography -- but a paragraph break is a change."""
    if a == b:
        return True
    pa, pb = a.split("\n"), b.split("\n")
    return len(pa) == len(pb) and all(normalize(x) == normalize(y) for x, y in zip(pa, pb, strict=True))


def _ambiguous(locator: Locator, edit: EditRecord, result: ResultRecord, found: Found, hints: bool) -> None:
    count = len(found.ranges)
    more = "+" if found.truncated else ""
    hint = f"Set expected_matches to {count} to change every occurrence."
    if hints:
        parts = []
        for n, (s, e) in enumerate(found.ranges[:HINTED_CANDIDATES]):
            ext = unique_extension(locator, edit.anchor, s, e)
            result.locations[n].unique_quote = ext
            where = locator.where(s)
            parts.append(f"for {where} quote \u201c{ext}\u201d" if ext else f"{where}: no short unique quote")
        if count > HINTED_CANDIDATES:
            parts.append(f"and {count - HINTED_CANDIDATES}{more} more")
        hint = (
            "Quote enough text to make the anchor unique (" + "; ".join(parts) + "), or set "
            f"expected_matches to {count} to change every occurrence."
        )
    _refuse(
        result,
        EditStatus.AMBIGUOUS,
        f"The anchor occurs {count}{more} times in the document; an edit must name one place.",
        hint,
        candidates=result.locations,
        actual_matches=count,
    )


def _in_named_section(
    locator: Locator, edit: EditRecord, found: Found
) -> tuple[Found, tuple[Head, int]] | None:
    """An anchor found several times, narrowed to the one occurrence inside the one section
    ``edit.section`` names (the way a lawyer's "in clause 4.2, replace ..." names the place):
    (that occurrence, (the section, how many there were)), or None when the section names no
    section or several, or holds none or several of them, or the occurrences were too many to
    count."""
    if edit.section is None or found.truncated:
        return None
    view = locator.view
    heads = sections_named(view, edit.section)
    if len(heads) != 1:
        return None
    head = heads[0]
    start, end = view.paragraphs[head.index].start, view.section_end(head)
    inside = [(s, e) for s, e in found.ranges if start <= s and e <= end]
    if len(inside) != 1:
        return None
    return replace(found, ranges=inside), (head, len(found.ranges))


def _in_scope(locator: Locator, edit: EditRecord, result: ResultRecord, found: Found) -> bool:
    """Whether every occurrence lies in the one section ``edit.section`` names; else refused
    ``out_of_scope``, with the sections involved by their full names."""
    assert edit.section is not None
    view = locator.view
    heads = sections_named(view, edit.section)
    landed = [view.paragraph_at(s).node for s, _ in found.ranges]
    there = landed[0] if len(set(map(id, landed))) == 1 else None
    where = ", ".join(locator.where(s) for s, _ in found.ranges[:5])
    if there is not None:
        retry = f"If you meant the passage in {where}, set `section` to \u201c{_full_cite(there)}\u201d"
    else:
        retry = f"The anchor is in {where}, which no numbered clause or heading governs: leave out `section`"
    near = view.outline.near(there)
    listed = ", ".join(f"\u201c{h.title}\u201d" for h in near)
    if not heads:
        _refuse(
            result,
            EditStatus.OUT_OF_SCOPE,
            f"The document has no section named \u201c{edit.section}\u201d.",
            f"{retry}. Sections near the anchor: {listed}." if listed else f"{retry}.",
            candidates=result.locations,
        )
        return False
    if len(heads) > 1:
        both = "; ".join(
            f"\u201c{h.title}\u201d ({locator.where(view.paragraphs[h.index].start)})" for h in heads[:5]
        )
        named = [(h, view.outline.unique_cite(h, avoid=edit.section)) for h in heads[:5]]
        each = "; ".join(
            f"\u201c{cite}\u201d for paragraph {h.index}" for h, cite in named if cite is not None
        )
        landed_in = [h for h in heads if there is not None and there.within(h)]
        retry_cite = view.outline.unique_cite(landed_in[0], avoid=edit.section) if landed_in else None
        _refuse(
            result,
            EditStatus.OUT_OF_SCOPE,
            f"The section name \u201c{edit.section}\u201d names {len(heads)} sections: {both}.",
            (f"The anchor is in the one cited \u201c{retry_cite}\u201d. " if retry_cite else "")
            + (
                f"Name the section you mean by a citation that names it alone: {each}."
                if each
                else "No citation names one of them alone (paragraphs "
                + ", ".join(str(h.index) for h in heads[:5])
                + "): leave out `section` and quote enough text to make the anchor unique."
            ),
            candidates=result.locations,
            code=Code.AMBIGUOUS_SECTION,
        )
        return False
    head = heads[0]
    start, end = view.paragraphs[head.index].start, view.section_end(head)
    if all(start <= s and e <= end for s, e in found.ranges):
        return True
    _refuse(
        result,
        EditStatus.OUT_OF_SCOPE,
        f"The anchor is not in section \u201c{head.title}\u201d (paragraphs {head.index}-{head.last}): "
        f"it occurs in {where}.",
        f"{retry}; otherwise quote text from within \u201c{head.title}\u201d. Sections near the "
        f"anchor: {listed}.",
        candidates=result.locations,
    )
    return False


def _planned(
    locator: Locator,
    index: int,
    edit: EditRecord,
    s: int,
    e: int,
    replacement: str,
    fields: tuple[etree._Element, ...] = (),
    refs: tuple[str, tuple[CrossRef, ...]] | None = None,
    fplan: FormatPlan | None = None,
) -> Planned:
    if fplan is not None:
        return Planned(index, s, e, "", False, edit.rationale, format=fplan)
    if edit.action in ROW_ACTIONS:
        from .rows import row_plan

        return Planned(index, s, e, "", False, edit.rationale, row=row_plan(locator.view, edit, s, e))
    if edit.action == "comment":
        return Planned(index, s, e, "", False, replacement, comment=True)
    if edit.action == "insert_after":
        return Planned(index, s, e, "\n" + replacement, False, edit.rationale, True, edit.level or 0)
    if edit.action == "insert_before":
        return Planned(index, s, e, replacement + "\n", False, edit.rationale, True, edit.level or 0)
    exact = locator.view.text[s:e] == edit.anchor
    if refs is not None:  # new cross-reference fields stand as marks in the replacement
        return Planned(index, s, e, refs[0], exact, edit.rationale, fields=fields, refs=refs[1])
    return Planned(index, s, e, replacement, exact, edit.rationale, fields=fields)


def _insertion(locator: Locator, edit: EditRecord, result: ResultRecord, found: Found) -> Found | None:
    """Where an insert action's paragraphs go: the end (start) of each paragraph holding the
    anchor, as an empty range; None when refused."""
    view = locator.view
    points: list[tuple[int, int]] = []
    for s, e in found.ranges:
        para = view.paragraph_at(max(s, e - 1)) if edit.action == "insert_after" else view.paragraph_at(s)
        para = _as_read(view, para, edit.action == "insert_after")
        after = view.paragraphs[para.index + 1] if para.index + 1 < len(view.paragraphs) else None
        if para.field_code or (
            # a field that begins in it and runs on: a paragraph after it would be inside too
            edit.action == "insert_after"
            and ((after is not None and after.story_no == para.story_no and after.field_code)
                 or _field_runs_on(para))
        ):  # fmt: skip
            _refuse(
                result,
                EditStatus.UNSUPPORTED,
                "The paragraph holding the anchor lies inside a field's instructions, or a field "
                "begun in it runs on past its end (a field whose code runs across paragraphs): no "
                "paragraph can be added beside it.",
                "Quote text from a neighbouring paragraph.",
            )
            return None
        at = para.end if edit.action == "insert_after" else para.start
        if (at, at) not in points:
            points.append((at, at))
    return Found(points, found.kind, list(found.tolerances), found.truncated)


def _field_runs_on(para: Paragraph) -> bool:
    """Does a field begun in ``para`` run on past its end (see :func:`redline.match.fields.open_at_end`)?"""
    try:
        return open_at_end(para.element)
    except TypeError:  # a verify-only view holds no trees
        return False


def _as_read(view: DocumentView, para: Paragraph, forward: bool) -> Paragraph:
    """The last (``forward``) or first view paragraph of the paragraph ``para`` is part of as
    the document reads: paragraphs another author's deleted mark joined (no separator between
    them in the view) are one."""
    paragraphs = view.paragraphs
    while True:
        k = para.index + (1 if forward else -1)
        if not 0 <= k < len(paragraphs) or paragraphs[k].story_no != para.story_no:
            return para
        other = paragraphs[k]
        if (other.start != para.end) if forward else (other.end != para.start):
            return para
        para = other


def _full_cite(head: Head) -> str:
    """A citation that names ``head`` alone: inside a schedule (annex, ...), with it."""
    if head.namespace is not None and head.namespace is not head:
        return f"{head.namespace.cite}, {head.cite}"
    return head.cite


def _unlabelled(locator: Locator, found: Found) -> str:
    s, e = found.ranges[0]
    return locator.view.text[s:e]


def unlabel(replacement: str, labels: tuple[str, ...]) -> str:
    """``replacement`` without the displayed labels its lines repeat from the anchor's (a
    label is the document's numbering, never text to write)."""
    wanted = {label_key(q) for q in labels if q}
    lines = replacement.split("\n")
    for i, line in enumerate(lines):
        mine = {label_key(labels[i])} if i < len(labels) and labels[i] else wanted
        found = split_label(line, mine)
        if found is not None:
            lines[i] = found[1]
    return "\n".join(lines)


def _fields_touched(
    view: DocumentView, lo: int, s: int, e: int, replacement: str, exact: bool
) -> list[tuple[int, int]]:
    """The results of fields inside view range [s, e) (view offsets) that replacing it with
    ``replacement`` would change (word by word, as the writer writes it); none when every
    change lies outside every field's result -- new words after "(see Section 27.9)" leave
    the field whole and working."""
    starts, flags = view.span_starts, view.span_flags
    fields: list[tuple[int, int]] = []  # field results, relative to s, adjacent ones merged
    j = lo
    while j < len(starts) and starts[j] < e:
        if flags[j] & SpanFlag.FIELD_RESULT:
            fs = max(starts[j], s) - s
            fe = min(starts[j + 1] if j + 1 < len(starts) else len(view.text), e) - s
            if fields and fields[-1][1] >= fs:
                fields[-1] = (fields[-1][0], max(fields[-1][1], fe))
            elif fe > fs:
                fields.append((fs, fe))
        j += 1
    touched: list[tuple[int, int]] = []
    for kind, a, b, _ in word_diff(view.text[s:e], replacement, old_breaks=exact or "\n" in replacement):
        for fs, fe in fields:
            # a change inside the result, or new text against its edge (it could land inside)
            hit = (kind != "insert" and a < fe and b > fs) or (kind == "insert" and fs <= a <= fe)
            if hit and (s + fs, s + fe) not in touched:
                touched.append((s + fs, s + fe))
    return touched


def _code_of(view: DocumentView, fs: int, fe: int) -> list[etree._Element] | None:
    """The code runs of the one complex field whose result is view range [fs, fe), or None."""
    found: list[etree._Element] | None = None
    try:
        for piece in view.pieces(fs, fe):
            if piece.kind is not SpanKind.TEXT:
                continue
            runs = code_runs(piece.node)
            if runs is None or (found is not None and runs != found):
                return None
            found = runs
    except TypeError:  # a verify-only view holds no trees
        return None
    return found


def _deletions(view: DocumentView, s: int, e: int, replacement: str, exact: bool) -> list[tuple[int, int]]:
    """The view ranges replacing view [s, e) with ``replacement`` deletes outright (word by
    word, as the writer writes it), adjacent ones joined."""
    out: list[tuple[int, int]] = []
    for kind, a, b, _ in word_diff(view.text[s:e], replacement, old_breaks=exact or "\n" in replacement):
        if kind != "delete":
            continue
        if out and out[-1][1] >= s + a:
            out[-1] = (out[-1][0], s + b)
        else:
            out.append((s + a, s + b))
    return out


def _only_deleted(
    view: DocumentView, s: int, e: int, replacement: str, exact: bool, fs: int, fe: int
) -> bool:
    """Whether the field results [fs, fe) is part of (the whole of them, past the edit's range
    too) lie wholly in what the edit deletes outright."""
    starts, flags = view.span_starts, view.span_flags
    i = max(0, bisect.bisect_right(starts, fs) - 1)
    while i > 0 and flags[i - 1] & SpanFlag.FIELD_RESULT:
        i -= 1
    k = bisect.bisect_left(starts, fe)
    while k < len(starts) and flags[k] & SpanFlag.FIELD_RESULT:
        k += 1
    whole = (min(fs, starts[i]), max(fe, starts[k] if k < len(starts) else len(view.text)))
    return any(a <= whole[0] and whole[1] <= b for a, b in _deletions(view, s, e, replacement, exact))


def _deleted_fields(
    view: DocumentView, s: int, e: int, replacement: str, exact: bool, fs: int, fe: int
) -> list[etree._Element] | None:
    """The elements of the fields whose results make view range [fs, fe) when the edit of
    view [s, e) deletes them whole -- their code and their result, begin through end, in
    deleted text (:func:`redline.match.fields.whole_fields`); None when a field is only partly
    inside what is deleted, or is not whole in the paragraphs the deletion spans."""
    span = next(((a, b) for a, b in _deletions(view, s, e, replacement, exact) if a <= fs and fe <= b), None)
    if span is None or view.working is None:
        return None
    lo, hi = span
    held = view.paragraphs_between(lo, hi)
    try:
        paras = [(p.element, p.start) for p in held]
        ends = {
            piece.node: piece.view_start + piece.end - piece.start
            for piece in view.pieces(held[0].start, held[-1].end)
            if piece.kind is not SpanKind.MARK
        }
    except TypeError:  # a verify-only view holds no trees
        return None
    fields = whole_fields(paras, ends, lo, hi)
    if fields is None:
        return None
    mine = [f for f in fields if f[0] <= fe and f[1] >= fs]
    # every character of the result lies in one of them: no field only partly deleted
    starts, flags = view.span_starts, view.span_flags
    j = max(0, bisect.bisect_right(starts, fs) - 1)
    while j < len(starts) and starts[j] < fe:
        at = max(starts[j], fs)
        if flags[j] & SpanFlag.FIELD_RESULT and not any(a <= at < b for a, b, _ in mine):
            return None
        j += 1
    return [el for _, _, elements in mine for el in elements] or None


def _unsupported(
    locator: Locator,
    found: Found,
    replacement: str,
    exact: bool = False,
    typed_over: list[tuple[str, list[etree._Element], int, int]] | None = None,
) -> str | None:
    view = locator.view
    starts, flags, para_starts = view.span_starts, view.span_flags, view.para_starts
    for s, e in found.ranges:
        if replacement and any(
            p.field_code and p.start == p.end and s <= p.start <= e for p in view.paragraphs_between(s, e + 1)
        ):
            # new text next to an empty paragraph goes into it, at its start: here, into the
            # instructions of a field that runs on from an earlier paragraph, shown by no reader
            return (
                "The new text would land in an empty paragraph that lies inside a field's "
                "instructions (a field whose code runs across paragraphs), where no reader shows it."
            )
        lo = max(0, bisect.bisect_right(starts, s) - 1)
        covered = flags[lo : bisect.bisect_left(starts, e)]
        if any(covered):  # noqa: SIM102 - (kept apart: other flags were checked here)
            if any(flag & SpanFlag.FIELD_RESULT for flag in covered):
                touched = None
                for fs, fe in _fields_touched(view, lo, s, e, replacement, exact):
                    runs = _code_of(view, fs, fe) if typed_over is not None else None
                    if runs is None and typed_over is not None:  # a whole field deleted
                        runs = _deleted_fields(view, s, e, replacement, exact, fs, fe)
                    text = " ".join(view.text[fs:fe].split())
                    if runs is None:
                        touched = text
                        break
                    assert typed_over is not None
                    typed_over.append((text, runs, fs, fe))
                if touched is not None:
                    shown = f"\u201c{touched}\u201d: " if touched else ""
                    return (
                        f"The edit would change the result of a field ({shown}a value Word "
                        "computes, such as a cross-reference, page or note number, a date or a "
                        "form field), which is not text to type over; words around it may change."
                    )
        if bisect.bisect_right(para_starts, s) == bisect.bisect_right(para_starts, max(s, e - 1)):
            continue  # within one paragraph
        first, last = view.paragraph_at(s), view.paragraph_at(max(s, e - 1))
        if first.story_no != last.story_no:  # another part, or another footnote or endnote
            return (
                "The anchor runs from one part of the document into another (e.g. body into "
                "header, or one footnote into the next)."
            )
    return None


def _refuse_overlaps(results: list[ResultRecord], found_of: dict[int, Found]) -> None:
    spans = sorted((s, e, i) for i, found in found_of.items() for s, e in found.ranges)
    clash: dict[int, set[int]] = {}
    for k, (_s, e, i) in enumerate(spans):
        for s2, _e2, j in spans[k + 1 :]:
            if s2 >= e:
                break
            clash.setdefault(i, set()).add(j)
            clash.setdefault(j, set()).add(i)
    for i, involved in sorted(clash.items()):
        others = sorted(involved - {i})
        if others:
            names = ", ".join(f"edit {j}" for j in others)
            message = f"This edit overlaps {names}; overlapping edits would change the same text twice."
            hint = "Merge the overlapping edits into one, or quote separate passages."
        else:
            message = (
                "The occurrences of this anchor overlap one another (as \u201caa\u201d occurs "
                "twice in \u201caaa\u201d), so changing all of them would change some text twice."
            )
            hint = "Quote a longer anchor whose occurrences do not overlap, one edit per place."
        _refuse(
            results[i],
            EditStatus.OVERLAP,
            message,
            hint,
            candidates=results[i].locations,
            related=others,
        )
    if clash:
        for i in clash:
            found_of.pop(i, None)


__all__ = ["MatchKind", "Planned", "Verification", "verify"]
