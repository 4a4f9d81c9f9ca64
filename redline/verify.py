"""Decide, for every edit of a batch, where it lands -- or why it is refused.

The checks run against the original document and do not depend on the order of the edits:
revision (stale), location (not_found / ambiguous / count_mismatch), scope (out_of_scope),
content (no_change, unsupported), then overlaps between the edits that survived.  Every edit
leaves with an :class:`EditResult`; the located ones also with :class:`Planned` ranges for the
writer.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass

from shared_schema import Edit, EditBatch, EditResult, EditStatus, Location, MatchKind, Refusal

from .collector import paused
from .hints import HintBudget
from .locate import Found, Locator
from .normalize import normalize
from .view import SpanFlag

HINTED_CANDIDATES = 20  # candidates of an ambiguous anchor that get a unique extension in the hint
# EditResult(**fields) and Refusal(**fields), validated the same, without keyword-argument handling.
_new_result: Callable[[dict[str, object]], EditResult] = EditResult.__pydantic_validator__.validate_python
_new_refusal: Callable[[dict[str, object]], Refusal] = Refusal.__pydantic_validator__.validate_python


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


@dataclass
class Verification:
    results: list[EditResult]
    planned: list[Planned]


def verify(
    locator: Locator,
    batch: EditBatch | list[Edit],
    *,
    dry_run: bool = False,
    hints: bool = True,
) -> Verification:
    """Check every edit of ``batch`` against the locator's view.

    With ``hints=False`` the refusals carry no near-miss passage and no unique extensions (the
    statuses, candidates and counts are the same): for callers that only need the verdicts.
    """
    with paused():
        return _verify(locator, batch, dry_run, hints)


def _verify(locator: Locator, batch: EditBatch | list[Edit], dry_run: bool, hints: bool) -> Verification:
    edits = batch.edits if isinstance(batch, EditBatch) else batch
    revision = batch.revision if isinstance(batch, EditBatch) else None
    view = locator.view
    ok_status = EditStatus.VERIFIED if dry_run else EditStatus.APPLIED
    results: list[EditResult] = []
    found_of: dict[int, Found] = {}
    stale = revision is not None and revision != view.revision
    if len(edits) > 8 and not stale:
        locator.prepare()  # index once now rather than after a few full scans
    budget = HintBudget()  # hints bounded per edit and per call (redline.hints)

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
            _ambiguous(locator, edit, result, found, hints and budget.allows(edit.anchor))
            continue
        if edit.section is not None and not _in_scope(locator, edit, result, found):
            continue
        if _same_text(edit.replacement, edit.anchor):
            _refuse(
                result,
                EditStatus.NO_CHANGE,
                "The replacement is the same text as the anchor (at most spacing, quotes or "
                "dashes differ), so the edit would change nothing.",
                "Send the text as it should read after the change, or drop the edit.",
            )
            continue
        reason = _unsupported(locator, found, edit.replacement)
        if reason:
            _refuse(
                result,
                EditStatus.UNSUPPORTED,
                reason,
                "Quote only ordinary text of one story; leave field results and moved text alone.",
            )
            continue
        found_of[i] = found

    _refuse_overlaps(results, found_of)
    planned = [
        Planned(results[i].index, s, e, edits[i].replacement, locator.view.text[s:e] == edits[i].anchor,
                edits[i].rationale)
        for i, found in found_of.items()
        if results[i].error is None
        for s, e in found.ranges
    ]  # fmt: skip
    planned.sort(key=lambda p: p.start)
    return Verification(results, planned)


def _result(
    index: int, edit: Edit, status: EditStatus, locator: Locator | None = None, found: Found | None = None
) -> EditResult:
    """The result of a located edit, built in one go (no per-field assignments)."""
    if locator is None or found is None or not found.ranges:
        return EditResult(index=index, id=edit.id, anchor=edit.anchor, replacement=edit.replacement,
                          status=status)  # fmt: skip
    return _new_result(
        {
            "index": index,
            "id": edit.id,
            "anchor": edit.anchor,
            "replacement": edit.replacement,
            "status": status,
            "match": found.kind,
            "tolerances": list(found.tolerances),
            "locations": [locator.location(s, e) for s, e in found.ranges],
        }
    )


def _refuse(
    result: EditResult,
    status: EditStatus,
    message: str,
    hint: str | None,
    *,
    candidates: list[Location] | None = None,
    **extra: object,
) -> None:
    result.status = status
    result.error = _new_refusal(
        {
            "code": status.code,
            "message": message,
            "hint": hint,
            "candidates": candidates or [],
            "tolerances": list(result.tolerances),
            **extra,
        }
    )


def _not_found(locator: Locator, edit: Edit, result: EditResult, hints: bool) -> None:
    result.status = EditStatus.NOT_FOUND
    result.error = locator.not_found(
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


def _ambiguous(locator: Locator, edit: Edit, result: EditResult, found: Found, hints: bool) -> None:
    count = len(found.ranges)
    more = "+" if found.truncated else ""
    hint = f"Set expected_matches to {count} to change every occurrence."
    if hints:
        parts = []
        for n, (s, e) in enumerate(found.ranges[:HINTED_CANDIDATES]):
            ext = locator.unique_extension(edit.anchor, s, e)
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


def _in_scope(locator: Locator, edit: Edit, result: EditResult, found: Found) -> bool:
    assert edit.section is not None
    sections = locator.view.sections_named(edit.section)
    if not sections:
        _refuse(
            result,
            EditStatus.OUT_OF_SCOPE,
            f"The document has no section named \u201c{edit.section}\u201d.",
            "Name the section by its number as displayed (e.g. 4.2) or its heading's exact text.",
            candidates=result.locations,
        )
        return False
    outside = [(s, e) for s, e in found.ranges if not any(h.start <= s and e <= end for h, end in sections)]
    if not outside:
        return True
    landed = ", ".join(locator.where(s) for s, _ in outside[:5])
    _refuse(
        result,
        EditStatus.OUT_OF_SCOPE,
        f"The anchor is not in section \u201c{edit.section}\u201d: it occurs in {landed}.",
        f"Quote text from section {edit.section}, or correct the section name.",
        candidates=result.locations,
    )
    return False


def _unsupported(locator: Locator, found: Found, replacement: str) -> str | None:
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
        covered = flags[max(0, bisect.bisect_right(starts, s) - 1) : bisect.bisect_left(starts, e)]
        if any(covered):
            if any(flag & SpanFlag.FIELD_RESULT for flag in covered):
                return (
                    "The anchor covers the result of a field (a computed value such as a "
                    "cross-reference or page number), which cannot be edited safely as text."
                )
            if any(flag & SpanFlag.MOVE_TO for flag in covered):
                return "The anchor covers text inside a tracked move, which cannot be edited safely."
        if bisect.bisect_right(para_starts, s) == bisect.bisect_right(para_starts, max(s, e - 1)):
            continue  # within one paragraph
        first, last = view.paragraph_at(s), view.paragraph_at(max(s, e - 1))
        if first.story_no != last.story_no:  # another part, or another footnote or endnote
            return (
                "The anchor runs from one part of the document into another (e.g. body into "
                "header, or one footnote into the next)."
            )
    return None


def _refuse_overlaps(results: list[EditResult], found_of: dict[int, Found]) -> None:
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
