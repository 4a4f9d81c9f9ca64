"""Our changes in SENT and what became of each in RETURNED: accepted, rejected, pending, modified.

**One change** is a run of our revisions that touch in SENT's view (no text of the document
between them): a replacement's deletion and insertion (both at one place), a new paragraph's
text and its mark, a struck paragraph's text and its mark, a row and its cells' text.  Its
entry lists every revision id it covers.  Revisions of a paragraph's properties or of table
and section records are changes of their own.

**Still tracked** (every revision paired in RETURNED, :mod:`redline.reconcile.pairing`): the
change is ``pending`` -- unless another author's revision lies inside it (their deletion in our
insertion, their insertion amid it: ``modified``, ``tracked``), or its text differs (they typed
into it without tracking: ``modified``, not tracked, found by the comparison below).

A change whose text is still tracked but whose new paragraph's mark is not (a re-save may write
that mark untracked; its paragraph is still there, or the comparison below says otherwise) is
``pending`` too, with a note.  Any other change partly tracked, partly decided is ``modified``
(tracked).

**Decided** (no revision of it left in RETURNED): SENT's text with our change accepted and with
it rejected are both set against RETURNED's text with *their* new revisions rejected (what they
changed outside tracking is all that can differ):

1. SENT's view (every change accepted) is diffed word by word against RETURNED's
   (:mod:`redline.reconcile.align`): a decided change that no difference touches reads as
   accepted -- ``accepted``;
2. SENT with every change not so found rejected (:mod:`redline.reconcile.readings`) is diffed
   against it the same way: a change that no difference touches now -- ``rejected``;
3. what is left reads neither way: ``modified``, not tracked (before and after are taken from
   the final comparison, :mod:`redline.reconcile.untracked`).

A difference touches a change when their ranges overlap; an insertion of text (a zero-width
difference) touches a change it falls strictly inside.  The place of a deletion (zero-width in
the text it is compared in, with the spaces beside it) is touched by text put in at it or by a
difference that runs across it -- not by a word changed next to it (an untracked edit of the
word before an accepted deletion is that edit, not a change of the deletion: property test,
seed 5231).

A change of formatting (``w:rPrChange``), decided, is ``accepted`` when RETURNED's run at its
text has SENT's properties, ``rejected`` when it has the old ones, ``modified`` else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shared_schema import OurOutcome

from ..opc.namespaces import w
from ..read.annotations import Annotations, Revision
from ..read.roles import RevisionKind
from ..read.view import DocumentView
from ..read.walk import ancestor
from ..write.formatting import properties_key
from .align import Difference, differences, shift
from .readings import TEXT_KINDS, Reading, read_rejected
from .report import OurChange

__all__ = ["Change", "decide", "group_ours", "touches", "widen"]

_R, _RPR, _RPR_CHANGE = w("r"), w("rPr"), w("rPrChange")
_ALONE = frozenset(
    k
    for k in RevisionKind
    if k
    not in (
        *TEXT_KINDS, RevisionKind.FORMAT, RevisionKind.ROW_INSERT, RevisionKind.ROW_DELETE,
    )
)  # fmt: skip
_INSERTING = frozenset(
    (RevisionKind.INSERT, RevisionKind.MOVE_TO, RevisionKind.PARAGRAPH_INSERT, RevisionKind.ROW_INSERT)
)
_ROWS = frozenset((RevisionKind.ROW_INSERT, RevisionKind.ROW_DELETE))
_DELETING = frozenset(
    (RevisionKind.DELETE, RevisionKind.MOVE_FROM, RevisionKind.PARAGRAPH_DELETE, RevisionKind.ROW_DELETE)
)


@dataclass
class Change:
    """One change of ours: its revisions (SENT's), the view range they cover, its entry."""

    revisions: list[Revision]
    start: int
    end: int
    entry: OurChange
    returned: list[Revision] = field(default_factory=list)  # its revisions found in RETURNED
    found: int = 0  # how many of ``revisions`` were found there
    lost: list[Revision] = field(default_factory=list)  # ``revisions`` not found there

    @property
    def text_change(self) -> bool:
        return any(r.kind in TEXT_KINDS for r in self.revisions)


def touches(gs: int, ge: int, d_start: int, d_end: int) -> bool:
    """Does a difference ``[d_start, d_end)`` touch a change at ``[gs, ge)``?"""
    if ge == gs:
        return d_start <= gs <= d_end
    if d_end == d_start:
        return gs < d_start < ge
    return d_start < ge and d_end > gs


def _kind(revs: list[Revision]) -> str:
    kinds = {r.kind for r in revs}
    if RevisionKind.ROW_INSERT in kinds:
        return "row_insert"
    if RevisionKind.ROW_DELETE in kinds:
        return "row_delete"
    if kinds & {RevisionKind.MOVE_FROM, RevisionKind.MOVE_TO}:
        return "move"
    ins, dels = bool(kinds & _INSERTING), bool(kinds & _DELETING)
    if ins and dels:
        return "replace"
    if ins:
        return "insert"
    if dels:
        return "delete"
    return revs[0].kind.value


def group_ours(view: DocumentView, revisions: list[Revision], author: str) -> list[Change]:
    """Our revisions (by ``author``) grouped into changes, in document order."""
    ours = sorted(
        (r for r in revisions if (r.author or "") == author and r.paragraph is not None),
        key=lambda r: (r.start, r.end),
    )
    groups: list[list[Revision]] = []
    ends: list[int] = []
    for r in ours:
        if groups and r.kind not in _ALONE and groups[-1][0].kind not in _ALONE and r.start <= ends[-1]:
            groups[-1].append(r)
            ends[-1] = max(ends[-1], r.end)
        else:
            groups.append([r])
            ends.append(r.end)
    out: list[Change] = []
    for revs in groups:
        start = min(r.start for r in revs)
        end = max(r.end for r in revs)
        para = view.paragraphs[revs[0].paragraph or 0]
        deleted = "".join(r.text for r in revs if r.kind in _DELETING - _ROWS)
        inserted = "".join(r.text for r in revs if r.kind in _INSERTING - _ROWS)
        if not any(r.kind in TEXT_KINDS for r in revs):
            inserted = view.text[start:end]
        entry = OurChange(
            ids=list(dict.fromkeys(r.id for r in revs)), kind=_kind(revs), deleted=deleted, inserted=inserted,
            paragraph=para.index, label=para.label, section=para.section,
        )  # fmt: skip
        out.append(Change(revs, start, end, entry))
    return out


def _span_of(reading: Reading, revs: list[Revision]) -> tuple[int, int] | None:
    places = [reading.placed(r) for r in revs]
    found = [p for p in places if p is not None]
    if not found:
        return None
    return min(p[0] for p in found), max(p[1] for p in found)


def widen(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` with the spaces next to it: where a diff may put a change's edge (two
    alignments of "a b" against "a x b" are equally minimal)."""
    while start > 0 and text[start - 1] in " \t\u00a0":
        start -= 1
    while end < len(text) and text[end] in " \t\u00a0":
        end += 1
    return start, end


def _untouched(diffs: list[Difference], text: str, gs: int, ge: int) -> bool:
    point = gs == ge
    gs, ge = widen(text, gs, ge)
    if point:  # the place of a deletion: text put in at it, or a difference across it
        return not any(
            (gs <= d.a_start <= ge) if d.a_start == d.a_end else (d.a_start < gs and d.a_end > ge)
            for d in diffs
        )
    return not any(touches(gs, ge, d.a_start, d.a_end) for d in diffs)


def decide(
    changes: list[Change],
    sent: DocumentView,
    returned: DocumentView,
    returned_annotations: Annotations,
    theirs: list[Revision],
    plain: Reading,
) -> list[Change]:
    """Set each change's outcome (``plain``: RETURNED with their revisions rejected); the
    changes decided as rejected, to be rejected in the comparison that follows."""
    undecided: list[Change] = []
    first: list[Difference] | None = None
    for c in changes:
        entry = c.entry
        if c.returned and c.found == len(c.revisions):
            entry.outcome = OurOutcome.PENDING
            nested = _nested(c, theirs)
            if nested:
                entry.outcome, entry.tracked = OurOutcome.MODIFIED, True
                lo = min([r.start for r in c.returned] + [r.start for r in nested])
                hi = max([r.end for r in c.returned] + [r.end for r in nested])
                entry.before = c.entry.inserted
                entry.after = returned.text[lo:hi]
                entry.note = "changed inside by " + ", ".join(
                    sorted({f"{r.author or 'an unnamed author'}'s {r.kind.value}" for r in nested})
                )
            continue
        if c.returned and all(r.kind is RevisionKind.PARAGRAPH_INSERT for r in c.lost):
            # its text still tracked, only a new paragraph's mark is not (a re-save may write
            # that mark untracked): pending; a mark they took out shows in the comparison
            entry.outcome = OurOutcome.PENDING
            entry.note = "its new paragraph's mark is no longer tracked in RETURNED"
            continue
        if c.returned:  # some of it decided, some still tracked
            entry.outcome, entry.tracked = OurOutcome.MODIFIED, True
            entry.note = "part of the change is still tracked, the rest was decided"
            continue
        if not c.text_change:
            if first is None:
                first = differences(sent.text, plain.text)
            _decide_format(c, sent, returned, plain, first)
            continue
        undecided.append(c)
    if not undecided:
        return []
    if first is None:
        first = differences(sent.text, plain.text)
    rest = [c for c in undecided if not _untouched(first, sent.text, c.start, c.end)]
    for c in undecided:
        if c not in rest:
            c.entry.outcome = OurOutcome.ACCEPTED
    if not rest:
        return []
    reading = read_rejected(sent, [r for c in rest for r in c.revisions])
    second = differences(reading.text, plain.text)
    rejected: list[Change] = []
    for c in rest:
        span = _span_of(reading, c.revisions)
        if span is not None and _untouched(second, reading.text, *span):
            c.entry.outcome = OurOutcome.REJECTED
            rejected.append(c)
        else:
            c.entry.outcome, c.entry.tracked = OurOutcome.MODIFIED, False
    return rejected


def _nested(c: Change, theirs: list[Revision]) -> list[Revision]:
    """Their revisions inside our change in RETURNED: nested in one of its elements, or lying
    strictly inside the text its revisions cover there."""
    elements = {r.element for r in c.returned if r.element is not None}
    lo = min(r.start for r in c.returned)
    hi = max(r.end for r in c.returned)
    out: list[Revision] = []
    for t in theirs:
        if (t.element is not None and any(a in elements for a in t.element.iterancestors())) or (
            hi > lo and (lo < t.start < hi or lo < t.end < hi)
        ):
            out.append(t)
    return out


def _decide_format(
    c: Change, sent: DocumentView, returned: DocumentView, plain: Reading, diffs: list[Difference]
) -> None:
    """A decided formatting change: RETURNED's run properties at its text against SENT's."""
    entry = c.entry
    rev = c.revisions[0]
    entry.outcome = OurOutcome.MODIFIED
    entry.tracked = False
    if rev.kind is not RevisionKind.FORMAT or rev.element is None or c.end <= c.start:
        entry.note = "what became of this change is not compared"
        return
    run = ancestor(rev.element, _R)
    rpr = run.find(_RPR) if run is not None else None
    change = rpr.find(_RPR_CHANGE) if rpr is not None else None
    new_key = properties_key(rpr)
    old_key = properties_key(change.find(_RPR) if change is not None else None)
    if not _untouched(diffs, sent.text, c.start, c.end):
        entry.before = sent.text[c.start : c.end]
        entry.after = None
        entry.note = "its text was changed"
        return
    at = plain.source(shift(diffs, c.start))
    keys = set()
    for piece in returned.pieces(at, at + (c.end - c.start)):
        parent = piece.node.getparent()
        if parent is not None and parent.tag == _R:
            keys.add(properties_key(parent.find(_RPR)))
    if keys == {new_key}:
        entry.outcome, entry.tracked = OurOutcome.ACCEPTED, None
    elif keys == {old_key}:
        entry.outcome, entry.tracked = OurOutcome.REJECTED, None
    else:
        entry.before = sent.text[c.start : c.end]
        entry.after = entry.before
        entry.note = "its text is formatted neither as we proposed nor as before"
