"""Element surgery: the changes to a WordprocessingML tree that the writer and the decision
writing (:mod:`redline.write.decisions`) both make -- remove an element, unwrap one, find an
ancestor, tell a removed element, join a paragraph to the next, write a simple field as the
complex field it stands for (:func:`unfold_simple`: a tracked deletion holds runs only).

Where the two callers' policies differ, both stay, each named where it is called:

* **Removing** (:func:`remove`): ``keep_tail=False`` (the writer) removes the element with
  its tail, as lxml does; ``keep_tail=True`` (a decision) first hands a tail that holds more
  than whitespace to what precedes the element.
* **Joining paragraphs** after a mark goes: :func:`pull_next` (the writer's untracked mark
  deletion) moves the *next* paragraph's content into ``p``; ``p``'s element survives, with
  the next paragraph's properties (its own, section break included, go), and only range
  markup (:data:`~redline.read.roles.RANGE_MARKUP`) may stand between the two.
  :func:`join_into_next` (a deleted mark accepted, an inserted one rejected) moves ``p``'s
  content into the *next* paragraph, whose element, mark and properties survive, carries the
  section break ``p``'s mark held over to it, and passes over anything between the two that is
  not a block (a table, a content control, ...).  Both keep the later mark's properties, but
  the surviving element (its attributes: ``w:rsid*``, ``w14:paraId``), the section break and
  what may stand between differ, so the two are not merged: one policy for both would change
  the bytes either writes.
* **Removed** elements: :func:`in_removed_run` (the writer: the run holding a text node was
  taken out) and :func:`detached` (a decision: the element went with an ancestor removed
  before) ask different questions.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from lxml import etree

from ..opc.namespaces import w
from ..read.roles import RANGE_MARKUP
from ..read.walk import ancestor as ancestor  # re-exported: the one ancestor lookup
from .runs import fresh_ids

__all__ = [
    "ancestor", "detached", "in_removed_run", "join_into_next", "next_paragraph", "pull_next", "remove",
    "unfold_simple", "unwrap",
]  # fmt: skip

_P, _PPR, _SECT_PR = w("p"), w("pPr"), w("sectPr")
_PART_ROOTS = frozenset(w(t) for t in ("document", "hdr", "ftr", "footnotes", "endnotes"))


def remove(el: etree._Element, *, keep_tail: bool) -> None:
    """Take ``el`` out of its parent (nothing when it has none); ``keep_tail``: a tail that is
    not whitespace alone stays, appended to the previous sibling's tail (or the parent's text)."""
    parent = el.getparent()
    if parent is None:
        return
    if keep_tail:
        tail = el.tail
        if tail and tail.strip() == "":
            tail = None
        prev = el.getprevious()
        if tail:
            if prev is not None:
                prev.tail = (prev.tail or "") + tail
            else:
                parent.text = (parent.text or "") + tail
    parent.remove(el)


def unwrap(el: etree._Element) -> None:
    """``el``'s children in its place, ``el`` removed (its tail kept)."""
    parent = el.getparent()
    if parent is None:
        return
    at = parent.index(el)
    for k, child in enumerate(list(el)):
        parent.insert(at + k, child)
    remove(el, keep_tail=True)


def in_removed_run(node: etree._Element) -> bool:
    """True when the run holding ``node`` is no longer in the tree."""
    run = node.getparent()
    return run is None or run.getparent() is None


def detached(el: etree._Element) -> bool:
    """Whether ``el`` went with an element removed before it (its tree's root is no longer a
    story part's root)."""
    node = el
    parent = node.getparent()
    while parent is not None:
        node, parent = parent, parent.getparent()
    return node.tag not in _PART_ROOTS


def next_paragraph(p: etree._Element) -> etree._Element | None:
    """The paragraph right after ``p`` in its container (range markup between them aside)."""
    nxt = p.getnext()
    while nxt is not None and nxt.tag in RANGE_MARKUP:
        nxt = nxt.getnext()
    return nxt if nxt is not None and nxt.tag == _P else None


def pull_next(p: etree._Element, joining: Callable[[etree._Element, etree._Element], None]) -> bool:
    """The writer's join: ``p``'s mark is deleted untracked, so the next paragraph's content
    joins ``p`` (``joining(p, next)`` is told first).  Returns whether it did: the last
    paragraph of a cell, a text box or a content control keeps its mark."""
    between: list[etree._Element] = []  # range markup between the two paragraphs
    nxt = p.getnext()
    while nxt is not None and nxt.tag in RANGE_MARKUP:
        between.append(nxt)
        nxt = nxt.getnext()
    if nxt is None or nxt.tag != _P:
        return False
    joining(p, nxt)
    p.extend(between)
    # The mark that remains is the later one: its properties (style, numbering, section
    # break) are the joined paragraph's, as when a tracked mark deletion is accepted -- a
    # struck heading leaves the clause after it as it was, never restyled as the heading.
    ppr, ppr2 = p.find(_PPR), nxt.find(_PPR)
    if ppr is not None:
        p.remove(ppr)
    if ppr2 is not None:
        p.insert(0, ppr2)
    for child in list(nxt):
        if child.tag != _PPR:
            p.append(child)
    remove(nxt, keep_tail=False)
    return True


def join_into_next(p: etree._Element) -> None:
    """A decision's join: ``p``'s mark is gone, so its content joins the start of the next
    paragraph, whose mark and properties survive; the section break ``p``'s mark carried goes
    to the one left.  A paragraph with no paragraph after it among its siblings (the last of
    a cell, before a table) keeps its mark."""
    between: list[etree._Element] = []
    nxt = p.getnext()
    while nxt is not None and nxt.tag != _P and not _is_block(nxt):
        between.append(nxt)  # range markup between the two paragraphs
        nxt = nxt.getnext()
    if nxt is None or nxt.tag != _P:
        return
    ppr2 = nxt.find(_PPR)
    at = 1 if ppr2 is not None and nxt.index(ppr2) == 0 else 0
    moved = [c for c in p if c.tag != _PPR] + between
    for k, child in enumerate(moved):
        nxt.insert(at + k, child)
    ppr = p.find(_PPR)
    sect = ppr.find(_SECT_PR) if ppr is not None else None
    if sect is not None:  # the section break the joined mark carried goes to the one left
        if ppr2 is None:
            ppr2 = etree.Element(_PPR)
            nxt.insert(0, ppr2)
        if ppr2.find(_SECT_PR) is None:
            keep_after = [c for c in ppr2 if c.tag == w("pPrChange")]
            if keep_after:
                keep_after[0].addprevious(sect)
            else:
                ppr2.append(sect)
    remove(p, keep_tail=True)


def _is_block(el: etree._Element) -> bool:
    return el.tag in (w("tbl"), w("sdt"), w("customXml"), _SECT_PR, w("altChunk"))


def unfold_simple(fld: etree._Element, ids: Callable[[], str] | None = None) -> list[etree._Element]:
    """Rewrite ``w:fldSimple`` ``fld`` in place as the complex field it stands for (§17.16.19:
    the same field): a begin run, an instruction run, a separate run, its result, an end run,
    each field-character run with the first result run's properties (a revision record
    among them, another author's ``w:rPrChange``, with a new id from ``ids`` on each copy);
    returns the code runs made, in order.  A tracked deletion can hold runs, not a simple
    field."""
    parent = fld.getparent()
    assert parent is not None
    fmt = next((r.find(w("rPr")) for r in fld.iter(w("r")) if r.find(w("rPr")) is not None), None)

    def run(child: etree._Element) -> etree._Element:
        r = etree.Element(w("r"))
        if fmt is not None:
            copied = copy.deepcopy(fmt)
            if ids is not None:
                fresh_ids(copied, ids)
            r.append(copied)
        r.append(child)
        return r

    begin, separate, end = (etree.Element(w("fldChar")) for _ in range(3))
    begin.set(w("fldCharType"), "begin")
    separate.set(w("fldCharType"), "separate")
    end.set(w("fldCharType"), "end")
    if fld.get(w("fldLock")) is not None:
        begin.set(w("fldLock"), fld.get(w("fldLock")) or "")
    instr = etree.Element(w("instrText"))
    instr.text = fld.get(w("instr")) or ""
    instr.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    data = fld.find(w("fldData"))
    if data is not None:
        begin.append(data)
    made = [run(begin), run(instr), run(separate)]
    result = [c for c in fld if c is not data]
    fld.addprevious(made[0])
    made[0].addnext(made[1])
    made[1].addnext(made[2])
    last = made[2]
    for child in result:
        last.addnext(child)
        last = child
    closing = run(end)
    last.addnext(closing)
    parent.remove(fld)
    return [*made, closing]
