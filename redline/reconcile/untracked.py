"""What they changed without tracking: RETURNED outside any revision against SENT as decided.

*Expected*: SENT's text with our changes decided as :mod:`redline.reconcile.ours` found them
(the rejected ones rejected, every other one as we wrote it).  *Returned*: RETURNED's text with
their new revisions rejected -- what RETURNED reads outside any revision (our pending changes,
and revisions both documents hold, stay as they are in both).  Every word-level difference
between the two (:mod:`redline.reconcile.align`) is a change nobody tracked; one that touches a
change of ours is that change's modification (``before`` / ``after`` on its entry), every other
one is an :class:`~redline.reconcile.report.Untracked` entry placed in RETURNED's view.

What is **not** a change of the text, and so never reported:

* anything that is not text in the view -- ``w:rsid*`` attributes, how runs are split, proofing
  marks, bookmarks, ``w:lastRenderedPageBreak``, the XML's order and prefixes: both documents
  are compared as their views read them, never as XML;
* a computed field's result (``PAGE``, ``NUMPAGES``, a date, a cross-reference's number, a table
  of contents): computed text a re-save or a print updates, taken out of the text compared
  (:mod:`redline.reconcile.compared`); the field's *code* is what was typed, and a code changed
  is an entry of kind ``field``;
* formatting, unless it is a visible property of the characters (:mod:`redline.reconcile.formats`);
* which part holds a header or footer: they are compared by the section and type that show
  them, and text in one no section shows is not compared (:mod:`redline.reconcile.shown`).
"""

from __future__ import annotations

from shared_schema import OurOutcome

from ..opc.package import Package
from ..read.roles import SpanFlag
from ..read.view import DocumentView
from .align import Difference, differences
from .compared import compared_differences, field_code_changes
from .ours import Change, touches, widen
from .readings import Reading
from .report import Untracked

__all__ = ["find_untracked"]


def _in_field(view: DocumentView, reading: Reading, start: int, end: int) -> bool:
    """Does reading ``[start, end)`` lie in field results of ``view`` (empty: between two
    characters of one)?"""

    def flagged(x: int) -> bool:
        return bool(view.flags_between(x, x + 1) & SpanFlag.FIELD_RESULT)

    if end > start:
        if reading.put_back(start, end):
            return False
        return flagged(reading.source(start)) and flagged(reading.source(end - 1))
    at = reading.source(start)
    return at > 0 and flagged(at - 1) and flagged(at)


def _blank(text: str) -> bool:
    return not text.strip()


def _touch(s: int, e: int, d: Difference) -> bool:
    return touches(s, e, d.a_start, d.a_end) if e > s else d.a_start <= s <= d.a_end


def _unshown(view: DocumentView, reading: Reading, start: int, end: int, parts: frozenset[str]) -> bool:
    """Does reading ``[start, end)`` lie in parts no section shows (empty: True)?"""
    if end <= start:
        return True
    if not parts or not view.paragraphs:
        return False
    last = max(len(view.text) - 1, 0)
    return all(view.paragraph_at(min(reading.source(x), last)).part in parts for x in (start, end - 1))


def _field_changes(
    a: tuple[DocumentView, Reading, Package], b: tuple[DocumentView, Reading, Package]
) -> list[Untracked]:
    """A computed field whose code they changed (``kind`` "field": ``before`` and ``after`` are
    the codes, as :func:`~redline.reconcile.compared.normal_code` writes them)."""
    returned = b[0]
    out: list[Untracked] = []
    for before, after, at in field_code_changes(a, b):
        para = returned.paragraph_at(at) if at is not None and returned.paragraphs else None
        out.append(
            Untracked(
                paragraph=para.index if para else None, label=para.label if para else None,
                section=para.section if para else None, before="; ".join(before), after="; ".join(after),
                kind="field", start=at or 0, end=at or 0,
            )
        )  # fmt: skip
    return out


def find_untracked(
    changes: list[Change],
    sent: DocumentView,
    expected: Reading,
    returned: DocumentView,
    plain: Reading,
    unshown: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
    packages: tuple[Package, Package] | None = None,
    notes: list[str] | None = None,
) -> tuple[list[Untracked], list[Difference]]:
    """The untracked differences (and the pairs of ranges they come from), each modification of
    one of our changes set on its entry.  With ``packages`` (SENT's, RETURNED's) the texts are
    compared as :mod:`redline.reconcile.compared` reads them (field results out, headers and
    footers by the section and type that show them; what cannot be told is said in ``notes``);
    without, as whole readings."""
    if packages is not None:
        diffs = compared_differences((sent, expected, packages[0]), (returned, plain, packages[1]), notes)
    else:
        diffs = differences(expected.text, plain.text)
    fields = _field_changes((sent, expected, packages[0]), (returned, plain, packages[1])) if packages else []
    if not diffs:
        return fields, []
    spans: list[tuple[Change, int, int]] = []
    for c in changes:
        if c.entry.outcome == OurOutcome.REJECTED:
            continue
        spans.append((c, *widen(expected.text, expected.at(c.start), expected.at(c.end))))
    out: list[Untracked] = []
    kept: list[Difference] = []
    owned: dict[int, list[Difference]] = {}
    for d in diffs:
        if packages is None:  # (compared: computed results are out, a hyperlink's text is typed)
            a_field = _in_field(sent, expected, d.a_start, d.a_end)
            b_field = _in_field(returned, plain, d.b_start, d.b_end)
            if (
                (a_field or d.a_end == d.a_start)
                and (b_field or d.b_end == d.b_start)
                and (a_field or b_field)
            ):
                continue
        if _blank(expected.text[d.a_start : d.a_end]) and _blank(plain.text[d.b_start : d.b_end]):
            continue
        if (unshown[0] or unshown[1]) and (
            _unshown(sent, expected, d.a_start, d.a_end, unshown[0])
            and _unshown(returned, plain, d.b_start, d.b_end, unshown[1])
        ):
            continue  # (text in headers and footers no section shows)
        owner = next((k for k, (_, s, e) in enumerate(spans) if _touch(s, e, d)), None)
        if owner is not None:
            owned.setdefault(owner, []).append(d)
            continue
        kept.append(d)
        at = plain.source(d.b_start)
        para = returned.paragraph_at(min(at, max(len(returned.text) - 1, 0))) if returned.paragraphs else None
        out.append(
            Untracked(
                paragraph=para.index if para else None, label=para.label if para else None,
                section=para.section if para else None,
                before=expected.text[d.a_start : d.a_end], after=plain.text[d.b_start : d.b_end],
                start=at, end=plain.source(d.b_end) if d.b_end > d.b_start else at,
            )
        )  # fmt: skip
    out.extend(fields)
    for k, ds in owned.items():
        c, s, e = spans[k]
        lo = min([s] + [d.a_start for d in ds])
        hi = max([e] + [d.a_end for d in ds])
        blo = ds[0].b_start - (ds[0].a_start - lo)
        bhi = ds[-1].b_end + (hi - ds[-1].a_end)
        entry = c.entry
        if entry.tracked is True:  # changed as tracked changes and typed into besides
            entry.note = (
                (entry.note + "; " if entry.note else "")
                + "also changed without tracking: "
                + (f"{expected.text[lo:hi]!r} -> {plain.text[blo:bhi]!r}")
            )
            continue
        entry.outcome, entry.tracked = OurOutcome.MODIFIED, False
        entry.before = expected.text[lo:hi]
        entry.after = plain.text[blo:bhi]
    return out, kept
