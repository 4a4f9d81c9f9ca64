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
as the check paired their ranges -- by range, never by ``w:name`` alone -- and those ranges'
markers: each start and the end that closes it); a table cell inserted rejected (deleted
accepted) goes, the row ending early (``w:gridAfter``); custom XML markup inserted rejected
(deleted accepted) is unwrapped.  A change inside another is decided on its own, as Word
does: removing an element removes the changes it holds; paragraph marks are decided last,
after every other decision of the reply.  Every other element is left as it was.  The
checking is :mod:`redline.match.decisions`'s.
"""

from __future__ import annotations

import copy

from lxml import etree

from ..match.decisions import PROPERTY_CHANGES, DecisionPlan, place_of
from ..opc.namespaces import w
from ..opc.package import Package
from ..opc.working import whole_root
from ..read.annotations import Revision
from ..read.ids import id_key
from ..read.view import DocumentView
from .tree import ancestor, detached, join_into_next, remove, unwrap

__all__ = ["story_roots", "write_decisions"]

_ID = w("id")
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
    story parts' roots (kept for callers; a move's range markers are the plan's own elements,
    found in their trees).  Returns whether a paragraph or a table
    row may have gone (a paragraph mark or a row decided): the paragraphs after it are then
    numbered otherwise than the writer counted."""
    restructured = False
    marks: list[tuple[etree._Element, bool]] = []
    for decision in plan.decisions:
        # paragraph marks last, after every decision's other changes: joining paragraphs
        # moves what the other decisions hold, and whether a paragraph joins the next depends
        # on what stands after it once those are made (a table whose rows all go, say)
        for t in decision.targets:
            if t.element is None:
                continue
            restructured = restructured or place_of(t.element) in ("mark", "row", "cell")
            if _is_mark(t):
                marks.append((t.element, decision.accept))
            else:
                _decide(t.element, decision.accept)
        if decision.ranges:
            _remove_move_ranges(decision.ranges)
    for el, accept in marks:
        _decide(el, accept)
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
        # the old numbering it records is a displayed string (ECMA-376 Part 1, §17.13.5.26):
        # the numbering itself is the paragraph's properties (their own w:pPrChange restores
        # them), so either decision drops the record
        remove(el, keep_tail=True)
        return
    parent = el.getparent()
    if tag == _INS and parent is not None and parent.tag == w("numPr"):
        # numbering properties inserted: accepted they stay, rejected they go
        if accept:
            remove(el, keep_tail=True)
        else:
            remove(parent, keep_tail=True)
        return
    if tag in _CUSTOM_XML_ENDS:
        _decide_custom_xml(el, accept)
        return
    if tag == w("cellMerge"):
        if not accept:
            _restore_merge(el)
        remove(el, keep_tail=True)
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
        cell = ancestor(el, w("tc"))
        if tag in (w("cellIns"), w("cellDel")) and accept != inserted and cell is not None:
            _remove_cell(cell)
        else:
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
    """Deleted text inside ``el`` made text again: w:delText -> w:t, w:delInstrText ->
    w:instrText -- but not the text of another deletion inside it, still pending (a word
    deleted inside a moved passage stays deleted when the move is rejected)."""
    for node in el.iter(_DEL_TEXT, _DEL_INSTR):
        holder = node.getparent()
        while holder is not None and holder is not el and holder.tag not in (_DEL, _MOVE_FROM):
            holder = holder.getparent()
        if holder is el:
            node.tag = _T if node.tag == _DEL_TEXT else _INSTR


_CUSTOM_XML_ENDS = {
    w("customXmlInsRangeStart"): w("customXmlInsRangeEnd"),
    w("customXmlMoveToRangeStart"): w("customXmlMoveToRangeEnd"),
    w("customXmlDelRangeStart"): w("customXmlDelRangeEnd"),
    w("customXmlMoveFromRangeStart"): w("customXmlMoveFromRangeEnd"),
}


def _decide_custom_xml(start: etree._Element, accept: bool) -> None:
    """A custom XML markup revision (ECMA-376 Part 1, §17.13.2.5-.8): the markers from
    ``start`` to the first end of its kind with its ``w:id``.  Markup inserted and accepted,
    or deleted and rejected, stays (the markers go); inserted and rejected, or deleted and
    accepted, the custom XML elements whose start tags the region holds (the one the start
    opens, and those that begin inside it) are unwrapped: their content stays."""
    root = whole_root(start)
    end_tag, rid = _CUSTOM_XML_ENDS[start.tag], start.get(_ID)
    inserted = start.tag in (w("customXmlInsRangeStart"), w("customXmlMoveToRangeStart"))
    unwrap_markup = accept != inserted
    region: list[etree._Element] = []
    end: etree._Element | None = None
    inside = False
    for node in root.iter():
        if node is start:
            inside = True
            continue
        if inside and node.tag == end_tag and node.get(_ID) == rid:
            end = node
            break
        if inside and node.tag == w("customXml"):
            region.append(node)
    if unwrap_markup:
        parent = start.getparent()
        if parent is not None and parent.tag == w("customXml"):
            region.insert(0, parent)
    remove(start, keep_tail=True)
    if end is not None:
        remove(end, keep_tail=True)
    if unwrap_markup:
        for markup in reversed(region):  # inner ones first
            pr = markup.find(w("customXmlPr"))
            if pr is not None:
                remove(pr, keep_tail=True)
            unwrap(markup)


def _restore_merge(el: etree._Element) -> None:
    """Reject a vertical merge (``w:cellMerge``): the cell's ``w:vMerge`` becomes what
    ``w:vMergeOrig`` says it was (``rest``: a merge starts here, ``cont``: it continues,
    absent: no merge)."""
    tcpr = el.getparent()
    if tcpr is None:
        return
    old = el.get(w("vMergeOrig"))
    vmerge = tcpr.find(w("vMerge"))
    if old is None:
        if vmerge is not None:
            remove(vmerge, keep_tail=True)
        return
    if vmerge is None:
        vmerge = etree.Element(w("vMerge"))
        tcpr.insert(_vmerge_at(tcpr), vmerge)
    if old == "rest":
        vmerge.set(w("val"), "restart")
    elif w("val") in vmerge.attrib:
        del vmerge.attrib[w("val")]


def _vmerge_at(tcpr: etree._Element) -> int:
    """Where ``w:vMerge`` goes among a ``w:tcPr``'s children (CT_TcPr order)."""
    before = {w(t) for t in ("cnfStyle", "tcW", "gridSpan", "hMerge")}
    return next((k for k, child in enumerate(tcpr) if child.tag not in before), len(tcpr))


def _remove_row(row: etree._Element) -> None:
    table = row.getparent()
    remove(row, keep_tail=True)
    if table is not None and table.find(_TR) is None:
        holder = table.getparent()
        remove(table, keep_tail=True)
        if holder is not None and holder.tag == w("tc") and holder.find(_P) is None:
            holder.append(etree.Element(_P))  # a cell ends with a paragraph


def _remove_cell(cell: etree._Element) -> None:
    """A cell inserted rejected (deleted accepted) goes, as Word removes it: the cells after it
    move left and the row ends early -- its ``w:gridAfter`` counts the grid columns the cell
    spanned, so the table grid still adds up; a row left with no cell goes."""
    row = cell.getparent()
    tcpr = cell.find(w("tcPr"))
    span_el = tcpr.find(w("gridSpan")) if tcpr is not None else None
    try:
        span = max(1, int(span_el.get(w("val")) or "1")) if span_el is not None else 1
    except ValueError:
        span = 1
    remove(cell, keep_tail=True)
    if row is None or row.tag != _TR:
        return
    if row.find(w("tc")) is None:
        _remove_row(row)
        return
    trpr = row.find(w("trPr"))
    if trpr is None:
        trpr = etree.Element(w("trPr"))
        prex = row.find(w("tblPrEx"))
        row.insert(row.index(prex) + 1 if prex is not None else 0, trpr)
    after = trpr.find(w("gridAfter"))
    if after is None:
        after = etree.Element(w("gridAfter"))
        trpr.insert(0, after)
    try:
        before = int(after.get(w("val")) or "0")
    except ValueError:
        before = 0
    after.set(w("val"), str(before + span))


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


def _remove_move_ranges(starts: list[etree._Element]) -> None:
    """Remove each range start of ``starts`` and the end that closes it: the first end of its
    side with its ``w:id`` after it, the innermost range of that id closing first (as the check
    read them, in :mod:`redline.match.decisions`); another range's markers,
    even of the same id or name, are left as they were."""
    roots: dict[int, etree._Element] = {}
    for start in starts:
        if start.getparent() is not None:
            root = whole_root(start)
            roots[id(root)] = root
    wanted = set(starts)
    gone: list[etree._Element] = []
    for root in roots.values():
        opened: dict[tuple[str, str | None], list[etree._Element]] = {}
        for el in root.iter(*_MOVE_RANGES, *_MOVE_RANGES.values()):
            if el.tag in _MOVE_RANGES:
                opened.setdefault((_MOVE_RANGES[el.tag], id_key(el.get(_ID))), []).append(el)
                if el in wanted:
                    gone.append(el)
                continue
            waiting = opened.get((el.tag, id_key(el.get(_ID))))
            if waiting and waiting.pop() in wanted:
                gone.append(el)
    for el in gone:
        remove(el, keep_tail=True)


def story_roots(package: Package, view: DocumentView) -> dict[str, etree._Element]:
    from ..read.build import stories_of

    assert view.working is not None
    roots: dict[str, etree._Element] = {}
    for story in stories_of(package, view.working):
        if story.part not in roots:
            roots[story.part] = view.working.xml(story.part)
    return roots
