"""What a reply would break: the document as the reply would leave it, accepted, against the
document as it is.

The reply is applied in memory with the project's own flow (:func:`redline.apply.apply_reply`,
tracked, under an author of its own), its changes are then accepted with the same flow (an
``accept`` entry naming that author: :mod:`redline.write.decisions`), and the result is read
as any document is.  Automatic numbering renumbers on that accept, as in Word.  The two views'
paragraphs are paired (:func:`pair`: equal texts in order, then the most alike of a changed
run, then a paragraph moved whole by its text), and:

* ``reference_to_deleted_clause`` -- a clause the reply deletes (its paragraph gone, or no
  longer a clause) that a typed reference still standing after the reply cites; the finding is
  at the deleted clause, ``related`` the citing places;
* ``renumbered_reference`` -- a typed reference, still standing, whose clause survives under
  another number (or whose number now names another clause): its ``fix`` retypes the number
  (an edit entry of the original document, beside the reply's own);
* the findings of the after-view that the document alone does not have (a term the reply's text
  uses undefined, a reference it writes to a clause there is not, a typed number it puts out of
  sequence), at the original's paragraph the new text stands in (or after).

Every paragraph index is the original document's view's.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from shared_schema import Edit, EditBatch, EditStatus

from ..apply import ApplyOptions, apply_reply
from ..read.outline import Head
from ..read.view import DocumentView
from .findings import Finding, Kind, Place
from .references import Reference, Target, place_of, references, resolve
from .unique import anchor_for

__all__ = ["AUTHOR", "after_view", "pair", "reply_findings"]

AUTHOR = "redline check"  # the author the reply is applied under, and accepted by
_DATE = "2000-01-01T00:00:00Z"
_PAIR_RATIO = 0.5
_BLOCK = 40  # a changed run longer than this pairs its paragraphs by position


@dataclass(frozen=True)
class After:
    """The document as the reply would leave it, accepted, and where each of its paragraphs
    stands in the original (``to_before``; an inserted paragraph: None)."""

    view: DocumentView
    to_before: list[int | None]
    to_after: list[int | None]
    applied: list[tuple[int, int]]  # the original's view ranges the reply's applied entries touch


def after_view(document: bytes, before: DocumentView, batch: EditBatch) -> After | None:
    """The reply applied and accepted (see the module), or None when nothing of it applies."""
    options = ApplyOptions(author=AUTHOR, date=_DATE, comments=False)
    outcome = apply_reply(document, batch, options)
    applied = [r for r in outcome.report.edits if r.status is EditStatus.APPLIED]
    if outcome.output is None or not applied:
        return None
    accept = EditBatch(edits=[Edit(action="accept", author=AUTHOR)])
    accepted = apply_reply(outcome.output, accept, ApplyOptions(author=AUTHOR, date=_DATE, comments=False))
    reloaded = accepted.reloaded if accepted.output is not None else outcome.reloaded
    if reloaded is None:
        return None
    view = reloaded[1]
    to_before, to_after = pair(before, view)
    ranges = [(loc.start, loc.end) for r in applied for loc in r.locations]
    return After(view, to_before, to_after, ranges)


def _texts(view: DocumentView) -> list[str]:
    return [" ".join(view.text[p.start : p.end].split()) for p in view.paragraphs]


def pair(before: DocumentView, after: DocumentView) -> tuple[list[int | None], list[int | None]]:
    """(per after paragraph, the before paragraph it is; per before paragraph, the after one)."""
    a, b = _texts(before), _texts(after)
    to_before: list[int | None] = [None] * len(b)
    to_after: list[int | None] = [None] * len(a)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                to_after[i1 + k], to_before[j1 + k] = j1 + k, i1 + k
        elif tag == "replace":
            _pair_changed(a, b, range(i1, i2), range(j1, j2), to_before, to_after)
    # a paragraph moved whole: the same text, unpaired on both sides
    loose: dict[str, list[int]] = {}
    for j, text in enumerate(b):
        if to_before[j] is None and len(text) > 20:
            loose.setdefault(text, []).append(j)
    for i, text in enumerate(a):
        if to_after[i] is None and loose.get(text):
            j = loose[text].pop(0)
            to_after[i], to_before[j] = j, i
    return to_before, to_after


def _pair_changed(
    a: list[str], b: list[str], ai: range, bj: range, to_before: list[int | None], to_after: list[int | None]
) -> None:
    if len(ai) > _BLOCK or len(bj) > _BLOCK:
        for i, j in zip(ai, bj, strict=False):
            to_after[i], to_before[j] = j, i
        return
    at = bj.start
    for i in ai:
        best, best_ratio = None, _PAIR_RATIO
        for j in range(at, bj.stop):
            m = difflib.SequenceMatcher(None, a[i], b[j], autojunk=False)
            if m.real_quick_ratio() < best_ratio or m.quick_ratio() < best_ratio:
                continue
            ratio = m.ratio()
            if ratio > best_ratio:
                best, best_ratio = j, ratio
        if best is not None:
            to_after[i], to_before[best] = best, i
            at = best + 1


def _standing(
    before: DocumentView, view: DocumentView, ref: Reference, a_cite: int, there: list[Reference]
) -> bool:
    """Whether ``ref`` stands as it was in the after-view's paragraph ``a_cite``: its text in a
    part of the paragraph the reply left as it was, read there as the same reference."""
    bp, ap = before.paragraphs[ref.paragraph], view.paragraphs[a_cite]
    old, new = before.text[bp.start : bp.end], view.text[ap.start : ap.end]
    s, e = ref.start - bp.start, ref.end - bp.start
    if old == new:
        at: int | None = s
    else:
        at = None
        for tag, i1, i2, j1, _j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag == "equal" and i1 <= s and e <= i2:
                at = j1 + s - i1
                break
    return at is not None and any(r.start - ap.start == at and r.text == ref.text for r in there)


def _numbered(heads: list[Head]) -> Head | None:
    return heads[0] if len(heads) == 1 else None


def _new_number(head: Head) -> str:
    """The number to type for ``head`` in a reference: its citation without a word before it."""
    cite = head.cite
    return re.sub(r"^[^\W\d_][\w-]*\.?\s+", "", cite) if head.number is not None else cite


def reply_findings(
    before: DocumentView,
    after: After,
    own: Sequence[Finding],
    findings_of: Callable[[DocumentView], list[Finding]],
) -> list[Finding]:
    """The findings of what the reply would break (see the module); ``own``: the document's own
    findings, ``findings_of``: the checks a view is put through."""
    view = after.view
    out: list[Finding] = []
    by_paragraph: dict[int, list[Reference]] = {}
    for ref in references(view):
        by_paragraph.setdefault(ref.paragraph, []).append(ref)
    cited_deleted: dict[int, list[Place]] = {}
    covered: set[tuple[int, str]] = set()  # (after paragraph, reference text) already reported
    retypes: list[_Retype] = []
    for ref in references(before):
        a_cite = after.to_after[ref.paragraph]
        if a_cite is None:
            continue
        if not _standing(before, view, ref, a_cite, by_paragraph.get(a_cite, [])):
            continue
        moved: list[tuple[Target, Head, Head, list[Head]]] = []
        for target in ref.targets:
            head = _numbered(resolve(before, target, ref.paragraph))
            if head is None:
                continue
            a_head = after.to_after[head.index]
            now = view.paragraphs[a_head].node if a_head is not None else None
            if now is None or now.index != a_head or now.number is None:
                cited_deleted.setdefault(head.index, []).append(place_of(before, ref.paragraph, ref.text))
                covered.add((a_cite, ref.text))
                continue
            points = resolve(view, target, a_cite)
            if (len(points) == 1 and points[0] is now) or _new_number(now) == _new_number(head):
                continue  # (the same number naming two clauses now: the numbering's finding)
            moved.append((target, head, now, points))
        if moved:
            covered.add((a_cite, ref.text))
            finding, retype = _renumbered(before, after, ref, moved)
            if retype is not None:
                retype.findings.append(len(out))
                retypes.append(retype)
            out.append(finding)
    out = _with_fixes(before, out, retypes)
    for index, places in sorted(cited_deleted.items()):
        head_para = before.paragraphs[index]
        cite = head_para.node.cite if head_para.node is not None else str(index)
        out.append(
            Finding(
                Kind.REFERENCE_TO_DELETED_CLAUSE,
                f"The reply deletes clause {cite}, which {len(places)} reference(s) still cite"
                f" ({', '.join(sorted({p.text for p in places}))}).",
                place_of(before, index, cite),
                tuple(places),
            )
        )
    seen = {(f.kind, f.place.text) for f in own}
    for finding in findings_of(view):
        if (finding.kind, finding.place.text) in seen:
            continue
        if (
            finding.kind in (Kind.DANGLING_REFERENCE,)
            and (finding.place.paragraph, finding.place.text) in covered
        ):
            continue
        if finding.kind in (Kind.UNUSED_DEFINITION, Kind.BROKEN_FIELD_REFERENCE):
            continue  # what the reply takes away is the deletion's finding above, not these
        out.append(_mapped(before, after, finding))
    return out


@dataclass
class _Retype:
    """A fix being made: the original's view range it quotes, and the numbers it retypes there
    (view start, view end, new number)."""

    start: int
    end: int
    numbers: list[tuple[int, int, str]]
    findings: list[int]  # the positions in the output of the findings it repairs


def _renumbered(
    before: DocumentView, after: After, ref: Reference, moved: list[tuple[Target, Head, Head, list[Head]]]
) -> tuple[Finding, _Retype | None]:
    """One reference's clauses renumbered: the finding, and the retyping that repairs it."""
    said = []
    for _target, head, now, points in moved:
        if len(points) == 1:
            pointing = f"would point to what is then {points[0].title}"
        else:
            pointing = "would name no clause" if not points else "would name several clauses"
        said.append(f"clause {head.cite} becomes {now.cite} (the reference {pointing})")
    message = f"\u201c{ref.text}\u201d: the reply renumbers what it cites -- {'; '.join(said)}."
    retype = None
    typed = [(t, now) for t, _h, now, _p in moved if t.start < t.end and not t.relative]
    found = anchor_for(before, ref.start, ref.end) if len(typed) == len(moved) else None
    if found is not None and not any(s < found[2] and found[1] < e for s, e in after.applied):
        retype = _Retype(found[1], found[2], [(t.start, t.end, _new_number(now)) for t, now in typed], [])
    return Finding(Kind.RENUMBERED_REFERENCE, message, place_of(before, ref.paragraph, ref.text)), retype


def _with_fixes(before: DocumentView, findings: list[Finding], retypes: list[_Retype]) -> list[Finding]:
    """The findings with their fixes: retypings whose passages overlap are one entry (the same
    fix for each of their findings: two entries quoting overlapping text would refuse)."""
    merged: list[_Retype] = []
    for r in sorted(retypes, key=lambda r: r.start):
        if merged and r.start < merged[-1].end:
            last = merged[-1]
            last.end = max(last.end, r.end)
            last.numbers += r.numbers
            last.findings += r.findings
        else:
            merged.append(r)
    out = list(findings)
    for r in merged:
        anchor = before.text[r.start : r.end]
        replacement = anchor
        for s, e, number in sorted(r.numbers, key=lambda n: -n[0]):
            replacement = replacement[: s - r.start] + number + replacement[e - r.start :]
        fix = {"anchor": anchor, "replacement": replacement, "rationale": "Follow the renumbering."}
        for k in r.findings:
            f = out[k]
            out[k] = Finding(f.kind, f.message, f.place, f.related, fix)
    return out


def _mapped(before: DocumentView, after: After, finding: Finding) -> Finding:
    """An after-view finding at the original's paragraph (an inserted one: the paragraph it
    follows), without its fix (an entry of the after-view, not of the original)."""

    def back(place: Place) -> Place:
        k = place.paragraph
        while k >= 0 and after.to_before[k] is None:
            k -= 1
        index = after.to_before[k] if k >= 0 else 0
        return place_of(before, index or 0, place.text)

    return Finding(
        finding.kind, finding.message, back(finding.place), tuple(back(p) for p in finding.related)
    )
