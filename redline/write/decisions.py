"""Decisions carried out: the working copy's trees changed as a checked
:class:`~redline.match.decisions.DecisionPlan` says, untracked.

A decision is not itself a tracked change: accepting an insertion unwraps it, rejecting it
removes it; accepting a deletion removes it, rejecting it puts its text back (``w:delText``
becomes ``w:t``, ``w:delInstrText`` ``w:instrText``); a deleted paragraph mark accepted (an
inserted one rejected) joins its paragraph to the next, whose mark and properties survive
(:func:`redline.write.tree.join_into_next`); a formatting change (``w:rPrChange``,
``w:pPrChange``, ``w:sectPrChange``, ``w:tblPrChange``, ``w:trPrChange``, ``w:tcPrChange``,
``w:tblGridChange``...) accepted drops its record, rejected restores the old properties; a
table row inserted or deleted keeps or loses its row; a move is decided as a whole (both sides,
found by the ``w:name`` of its range starts, and its range markers).  Every other element is
left as it was.  The checking is :mod:`redline.match.decisions`'s.
"""

from __future__ import annotations

import copy

from lxml import etree

from ..match.decisions import PROPERTY_CHANGES, DecisionPlan, place_of
from ..opc.namespaces import w
from ..opc.package import Package
from ..read.annotations import Revision
from ..read.ids import same_id
from ..read.view import DocumentView
from .tree import ancestor, detached, join_into_next, remove, unwrap

__all__ = ["story_roots", "write_decisions"]

_ID, _NAME = w("id"), w("name")
_P, _PPR, _RPR, _TR, _T, _SECT_PR = w("p"), w("pPr"), w("rPr"), w("tr"), w("t"), w("sectPr")
_INS, _DEL, _MOVE_FROM, _MOVE_TO = w("ins"), w("del"), w("moveFrom"), w("moveTo")
_DEL_TEXT, _DEL_INSTR, _INSTR = w("delText"), w("delInstrText"), w("instrText")
_MOVE_RANGES = {
    w("moveFromRangeStart"): w("moveFromRangeEnd"),
    w("moveToRangeStart"): w("moveToRangeEnd"),
}
# children of a property element a restore keeps (other revisions; what the change's old
# properties never hold), before or after the old properties (ECMA-376 Part 1 element order)
_KEEP_FRONT = {
    w("rPr"): (_INS, _DEL, _MOVE_FROM, _MOVE_TO),
    w("sectPr"): (w("headerReference"), w("footerReference")),
}
_KEEP_BACK = {
    w("pPr"): (_RPR, _SECT_PR),
    w("trPr"): (_INS, _DEL),
    w("tcPr"): (w("cellIns"), w("cellDel"), w("cellMerge")),
}


def write_decisions(plan: DecisionPlan, roots: dict[str, etree._Element]) -> bool:
    """Carry out ``plan``'s decisions on the working copy's trees (untracked); ``roots``: the
    story parts' roots, for a move's range markers.  Returns whether a paragraph or a table
    row may have gone (a paragraph mark or a row decided): the paragraphs after it are then
    numbered otherwise than the writer counted."""
    restructured = False
    for decision in plan.decisions:
        names = {t.move for t in decision.targets if t.move}
        # paragraph marks last: joining paragraphs moves what the other decisions hold
        ordered = sorted(decision.targets, key=lambda t: _is_mark(t))
        for t in ordered:
            if t.element is not None:
                restructured = restructured or place_of(t.element) in ("mark", "row", "cell")
                _decide(t.element, decision.accept)
        if names:
            for part in {t.part for t in decision.targets}:
                root = roots.get(part)
                if root is not None:
                    _remove_move_ranges(root, names)
    return restructured


def _is_mark(t: Revision) -> bool:
    el = t.element
    return el is not None and place_of(el) == "mark"


def _decide(el: etree._Element, accept: bool) -> None:
    if el.getparent() is None or detached(el):
        return  # went with an earlier decision (inside what it removed)
    tag = el.tag
    if tag in PROPERTY_CHANGES:
        if not accept:
            _restore(el)
        remove(el, keep_tail=True)
        return
    if tag == w("numberingChange"):
        remove(el, keep_tail=True)  # (accepting keeps the numbering as it is; a rejection is refused earlier)
        return
    place = place_of(el)
    inserted = tag in (_INS, _MOVE_TO, w("cellIns"))
    if place == "mark":
        p = ancestor(el, _P)
        remove(el, keep_tail=True)
        if p is not None and accept != inserted:
            join_into_next(p)
        return
    if place == "row":
        row = ancestor(el, _TR)
        if accept == inserted or row is None:
            remove(el, keep_tail=True)
        else:
            _remove_row(row)
        return
    if place == "cell":
        remove(el, keep_tail=True)
        return
    if inserted:
        unwrap(el) if accept else remove(el, keep_tail=True)
    elif accept:
        remove(el, keep_tail=True)
    else:
        _restore_text(el)
        unwrap(el)
    return


def _restore_text(el: etree._Element) -> None:
    """Deleted text inside ``el`` made text again: w:delText -> w:t, w:delInstrText -> w:instrText."""
    for node in el.iter(_DEL_TEXT, _DEL_INSTR):
        node.tag = _T if node.tag == _DEL_TEXT else _INSTR


def _remove_row(row: etree._Element) -> None:
    table = row.getparent()
    remove(row, keep_tail=True)
    if table is not None and table.find(_TR) is None:
        holder = table.getparent()
        remove(table, keep_tail=True)
        if holder is not None and holder.tag == w("tc") and holder.find(_P) is None:
            holder.append(etree.Element(_P))  # a cell ends with a paragraph


def _restore(change: etree._Element) -> None:
    """Reject a property change: its parent's properties become the old ones it recorded
    (the parent's other revision records kept)."""
    parent = change.getparent()
    if parent is None:
        return
    old = next((c for c in change if isinstance(c.tag, str)), None)
    if change.tag == w("tblGridChange"):
        old_children = [copy.deepcopy(c) for c in old] if old is not None else []
        for c in list(parent):
            if c is not change:
                parent.remove(c)
        for c in old_children:
            change.addprevious(c)
        return
    front_tags = _KEEP_FRONT.get(parent.tag, ())
    back_tags = _KEEP_BACK.get(parent.tag, ())
    front = [c for c in parent if c.tag in front_tags]
    back = [c for c in parent if c.tag in back_tags]
    restored = [copy.deepcopy(c) for c in old] if old is not None else []
    for c in list(parent):
        if c is not change:
            parent.remove(c)
    for c in [*front, *restored, *back]:
        change.addprevious(c)


def _remove_move_ranges(root: etree._Element, names: set[str]) -> None:
    starts = [el for el in root.iter(*_MOVE_RANGES) if el.get(_NAME) in names]
    for start in starts:
        end_tag = _MOVE_RANGES[start.tag]
        rid = start.get(_ID)
        for end in list(root.iter(end_tag)):
            if same_id(end.get(_ID), rid):
                remove(end, keep_tail=True)
        remove(start, keep_tail=True)


def story_roots(package: Package, view: DocumentView) -> dict[str, etree._Element]:
    from ..read.build import stories_of

    assert view.working is not None
    roots: dict[str, etree._Element] = {}
    for story in stories_of(package, view.working):
        if story.part not in roots:
            roots[story.part] = view.working.xml(story.part)
    return roots
