"""Run surgery: a run cut, split or given a piece of text of its own, its properties copied,
and the properties of a paragraph mark found or made -- the element-level steps the writer
(:mod:`redline.write.writer`) takes between view offsets and the tracked changes it writes.

Every split leaves the text before the cut in the original element (a new run, ``w:t``, goes
just after it), so the view's map of the runs still to be written stays valid.  Run
properties follow ECMA-376 Part 1, §17.3.2; a mark's run properties, §17.3.1.29.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from lxml import etree

from ..opc.namespaces import W_NS, XML_SPACE, w
from ..read.view import Piece, SpanKind

__all__ = [
    "cut_after", "cut_before", "depth", "first_content_index", "fresh_ids", "isolate_child", "isolate_text",
    "mark_deleted", "mark_rpr", "ppr_of", "preserve", "preserve_text", "run_content", "run_properties",
    "run_rpr", "set_ilvl", "shallow_copy", "split_run_after", "split_run_before", "split_text",
]  # fmt: skip

_RPR, _PPR, _P = w("rPr"), w("pPr"), w("p")
_INS, _DEL, _MOVE_FROM, _MOVE_TO = w("ins"), w("del"), w("moveFrom"), w("moveTo")
_SECT_PR, _PPR_CHANGE, _RPR_CHANGE = w("sectPr"), w("pPrChange"), w("rPrChange")
_NUM_PR, _ILVL = w("numPr"), w("ilvl")
# What precedes w:numPr in CT_PPr (ECMA-376 Part 1, §17.3.1.26)
_BEFORE_NUM_PR = frozenset(
    w(n) for n in ("pStyle", "keepNext", "keepLines", "pageBreakBefore", "framePr", "widowControl")
)
_NOT_COPIED = frozenset((_RPR_CHANGE, _INS, _DEL, _MOVE_FROM, _MOVE_TO))  # revision records in a w:rPr
# Revision records a copy of run or paragraph properties can hold (§17.13.5): each its own w:id
_RECORDS = (*_NOT_COPIED, _PPR_CHANGE, w("numberingChange"))
_ID = w("id")

Ids = Callable[[], str]
"""Where a copied revision record's new ``w:id`` comes from (the writer's allocator)."""


def fresh_ids(el: etree._Element, ids: Ids) -> None:
    """Give every revision record in ``el`` (a copy of properties) an id of its own from
    ``ids``: Word gives each record its own id (ECMA-376 Part 1, §17.13.1), and one id on
    two records makes the change undecidable by id.  Author, date and old properties stay,
    so the copy is still the same author's pending change (decided with it by author)."""
    for rec in el.iter(*_RECORDS):
        if rec.get(_ID) is not None:
            rec.set(_ID, ids())


def shallow_copy(el: etree._Element, skip: tuple[str, ...] = ()) -> etree._Element:
    """A new element with ``el``'s tag and attributes (less ``skip``), and no children."""
    new = el.makeelement(el.tag)
    for key, value in el.attrib.items():
        if key not in skip:
            new.set(key, value)
    return new


def run_content(run: etree._Element) -> list[etree._Element]:
    return [c for c in run if c.tag != _RPR]


def split_run_before(child: etree._Element, ids: Ids | None = None) -> etree._Element:
    """``child`` and what follows it in its run move to a new run just after; return the run
    that now starts with ``child`` (the same run when nothing precedes it).  The new run's
    properties are a copy; a revision record among them (another author's ``w:rPrChange``)
    takes a new id from ``ids`` (:func:`fresh_ids`; without ``ids`` it keeps the old one), the
    first piece keeping the record's own id."""
    run = child.getparent()
    assert run is not None
    siblings = run_content(run)
    i = siblings.index(child)
    if i == 0:
        return run
    new = shallow_copy(run)
    rpr = run_rpr(run)
    if rpr is not None:
        copied = copy.deepcopy(rpr)
        if ids is not None:
            fresh_ids(copied, ids)
        new.append(copied)
    new.extend(siblings[i:])
    run.addnext(new)
    return new


def split_run_after(child: etree._Element, ids: Ids | None = None) -> None:
    """Whatever follows ``child`` in its run moves to a new run just after."""
    nxt = child.getnext()  # (w:rPr comes first in a run, so this is content)
    if nxt is not None:
        split_run_before(nxt, ids)


def split_text(t: etree._Element, k: int) -> etree._Element:
    """Cut ``t`` after ``k`` characters; the rest goes to a new ``w:t`` just after it."""
    text = t.text or ""
    rest = t.makeelement(t.tag)
    tail = rest.text = text[k:]
    preserve_text(rest, tail)
    head = t.text = text[:k]
    preserve_text(t, head)
    t.addnext(rest)
    return rest


def isolate_child(child: etree._Element, ids: Ids | None = None) -> etree._Element:
    """Give a one-character element (w:tab, w:br, ...) a run of its own; return that run."""
    split_run_after(child, ids)
    return split_run_before(child, ids)


def isolate_text(t: etree._Element, lo: int, hi: int, ids: Ids | None = None) -> etree._Element:
    """Give ``t.text[lo:hi]`` a run of its own and return it; ``t`` keeps ``t.text[:lo]``."""
    if hi < len(t.text or ""):
        split_run_before(split_text(t, hi), ids)
    else:
        split_run_after(t, ids)
    if lo > 0:
        return split_run_before(split_text(t, lo), ids)
    return split_run_before(t, ids)


def cut_after(piece: Piece, ids: Ids | None = None) -> etree._Element:
    """End a run just after ``piece``; return that run (what precedes it stays with it)."""
    node = piece.node
    if piece.kind == SpanKind.TEXT and piece.end < len(node.text or ""):
        split_run_before(split_text(node, piece.end), ids)
    else:
        split_run_after(node, ids)
    run = node.getparent()
    assert run is not None
    return run


def cut_before(piece: Piece, ids: Ids | None = None) -> etree._Element:
    """Start a run just at ``piece``; return that run (what follows it stays with it)."""
    if piece.kind == SpanKind.TEXT and piece.start > 0:
        return split_run_before(split_text(piece.node, piece.start), ids)
    return split_run_before(piece.node, ids)


def preserve(t: etree._Element) -> None:
    preserve_text(t, t.text or "")


def preserve_text(t: etree._Element, text: str) -> None:
    """:func:`preserve` for a ``t`` whose text the caller has at hand (``t.text or ""``)."""
    if text != text.strip(" \t\r\n") or "  " in text:
        t.set(XML_SPACE, "preserve")


def mark_deleted(p: etree._Element) -> bool:
    """Is the mark of paragraph ``p`` a tracked deletion (``w:pPr/w:rPr/w:del``)?"""
    ppr = p.find(_PPR)
    rpr = ppr.find(_RPR) if ppr is not None else None
    return rpr is not None and rpr.find(_DEL) is not None


def depth(el: etree._Element) -> int:
    """How many containers lie between ``el`` and its paragraph."""
    n = 0
    parent = el.getparent()
    while parent is not None and parent.tag != _P:
        n += 1
        parent = parent.getparent()
    return n


def run_properties(fmt: etree._Element | None) -> etree._Element | None:
    """A copy of the run properties new text takes from ``fmt`` (a w:r or a mark's w:rPr),
    without revision records."""
    if fmt is None:
        return None
    rpr = fmt if fmt.tag == _RPR else run_rpr(fmt)
    if rpr is None:
        return None
    rpr = copy.deepcopy(rpr)
    for child in list(rpr):
        if child.tag in _NOT_COPIED or not isinstance(child.tag, str):
            rpr.remove(child)
    return rpr if len(rpr) else None


def run_rpr(run: etree._Element) -> etree._Element | None:
    """``run.find(w:rPr)`` without ElementPath: a run's few children, w:rPr usually first."""
    for child in run:
        if child.tag == _RPR:
            return child
    return None


def first_content_index(el: etree._Element) -> int:
    """How many property elements (w:pPr, w:rPr, w:sdtPr, w:smartTagPr, ...) lead ``el``."""
    i = 0
    for child in el:
        tag = child.tag
        if isinstance(tag, str) and tag.startswith(f"{{{W_NS}}}") and tag.endswith("Pr"):
            i += 1
        else:
            break
    return i


def set_ilvl(ppr: etree._Element, level: int) -> None:
    """Give a paragraph's properties the list level ``level`` (``w:numPr/w:ilvl``; its
    ``w:numId`` stays, or still comes from its style)."""
    numpr = ppr.find(_NUM_PR)
    if numpr is None:
        numpr = ppr.makeelement(_NUM_PR)
        at = 0
        for i, child in enumerate(ppr):
            if child.tag in _BEFORE_NUM_PR:
                at = i + 1
        ppr.insert(at, numpr)
    ilvl = numpr.find(_ILVL)
    if ilvl is None:
        ilvl = numpr.makeelement(_ILVL)
        numpr.insert(0, ilvl)
    ilvl.set(w("val"), str(level))


def ppr_of(p: etree._Element) -> etree._Element:
    ppr = p.find(_PPR)
    if ppr is None:
        ppr = p.makeelement(_PPR)
        p.insert(0, ppr)
    return ppr


def mark_rpr(p: etree._Element) -> etree._Element:
    ppr = ppr_of(p)
    rpr = ppr.find(_RPR)
    if rpr is None:
        rpr = ppr.makeelement(_RPR)
        # rPr precedes sectPr and pPrChange in CT_PPr
        idx = len(ppr)
        for i, child in enumerate(ppr):
            if child.tag in (_SECT_PR, _PPR_CHANGE):
                idx = i
                break
        ppr.insert(idx, rpr)
    return rpr
