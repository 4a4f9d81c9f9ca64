"""Tracked formatting changes: a run's, a paragraph mark's or a paragraph's properties set to
new ones, the old ones kept whole in the revision record (ECMA-376 Part 1, §17.13.5).

* :func:`set_run_properties` -- a run's ``w:rPr`` becomes the new properties, and its last
  child is a ``w:rPrChange`` (§17.13.5.31) holding the complete old ``w:rPr`` (CT_RPrOriginal:
  EG_RPrBase only; an empty ``<w:rPr/>`` when the run had none -- never omitted);
* :func:`set_mark_properties` -- the same for a paragraph mark's ``w:pPr/w:rPr`` (§17.13.5.30),
  whose mark revisions (``w:ins``, ``w:del``, ``w:moveFrom``, ``w:moveTo``) stay first;
* :func:`set_paragraph_properties` -- a paragraph's ``w:pPr`` takes the new CT_PPrBase
  elements (style, numbering, alignment, ...), keeps its ``w:rPr`` and ``w:sectPr``, and ends
  with a ``w:pPrChange`` (§17.13.5.29) holding the old ones (CT_PPrBase: never ``w:rPr``,
  ``w:sectPr`` or ``w:pPrChange`` inside).

:func:`properties_key` is the order-insensitive identity of a property element, what decides
whether two runs or paragraphs are formatted alike.  The revision record itself comes from
the caller (``revision(tag)``: an element with a fresh ``w:id``, the author and the date), so
ids come from the writer's one allocator.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable

from lxml import etree

from ..opc.namespaces import w

__all__ = [
    "MARK_REVISIONS", "NOT_BASE", "Revision", "base_children", "properties_key", "set_mark_properties",
    "set_paragraph_properties", "set_run_properties",
]  # fmt: skip

Revision = Callable[[str], etree._Element]
"""Makes a revision record of a tag: ``w:id`` (fresh), ``w:author``, ``w:date`` set."""

_RPR, _PPR, _PSTYLE = w("rPr"), w("pPr"), w("pStyle")
_RPR_CHANGE, _PPR_CHANGE, _SECT_PR = w("rPrChange"), w("pPrChange"), w("sectPr")
MARK_REVISIONS = frozenset(w(n) for n in ("ins", "del", "moveFrom", "moveTo"))
# what a property element holds that is not formatting: revision records (and, in a pPr, the
# mark's run properties and the section break, which have their own records)
NOT_BASE = frozenset((_RPR_CHANGE, _PPR_CHANGE, _SECT_PR, _RPR, *MARK_REVISIONS))

Key = tuple[object, ...]


def properties_key(el: etree._Element | None, skip: Iterable[str] = NOT_BASE) -> Key:
    """``el``'s children less ``skip`` (revision records, by default), as a value that compares
    equal for the same properties in any order (attributes and descendants included)."""
    if el is None:
        return ()
    skipped = frozenset(skip)
    return tuple(sorted((_key(c) for c in el if isinstance(c.tag, str) and c.tag not in skipped), key=repr))


def _key(el: etree._Element) -> Key:
    kids = tuple(sorted((_key(c) for c in el if isinstance(c.tag, str)), key=repr))
    return (el.tag, tuple(sorted(el.attrib.items())), (el.text or "").strip(), kids)


def base_children(el: etree._Element | None, skip: Iterable[str] = NOT_BASE) -> list[etree._Element]:
    """Copies of ``el``'s property children less ``skip``, in their order."""
    if el is None:
        return []
    skipped = frozenset(skip)
    return [copy.deepcopy(c) for c in el if isinstance(c.tag, str) and c.tag not in skipped]


def _record(revision: Revision, tag: str, inner_tag: str, old: list[etree._Element]) -> etree._Element:
    record = revision(tag)
    inner = etree.SubElement(record, inner_tag)
    inner.extend(old)
    return record


def set_run_properties(run: etree._Element, new: etree._Element | None, revision: Revision) -> None:
    """``run`` (a ``w:r`` without a pending ``w:rPrChange``) formatted with ``new``'s
    properties (a ``w:rPr`` or None: none), tracked."""
    rpr = run.find(_RPR)
    old = base_children(rpr)
    if rpr is None:
        rpr = run.makeelement(_RPR)
        run.insert(0, rpr)
    for child in list(rpr):
        rpr.remove(child)
    rpr.extend(base_children(new))
    rpr.append(_record(revision, _RPR_CHANGE, _RPR, old))


def set_mark_properties(p: etree._Element, new: etree._Element | None, revision: Revision) -> None:
    """The mark of paragraph ``p`` formatted with ``new``'s properties (a mark's ``w:rPr`` or
    None), tracked; the mark's own revisions stay first."""
    ppr = p.find(_PPR)
    if ppr is None:
        ppr = p.makeelement(_PPR)
        p.insert(0, ppr)
    rpr = ppr.find(_RPR)
    if rpr is None:
        rpr = ppr.makeelement(_RPR)
        at = next((i for i, c in enumerate(ppr) if c.tag in (_SECT_PR, _PPR_CHANGE)), len(ppr))
        ppr.insert(at, rpr)
    old = base_children(rpr)
    marks = [c for c in rpr if c.tag in MARK_REVISIONS]
    for child in list(rpr):
        rpr.remove(child)
    rpr.extend(marks)
    rpr.extend(base_children(new))
    rpr.append(_record(revision, _RPR_CHANGE, _RPR, old))


def set_paragraph_properties(
    p: etree._Element, new: etree._Element | None, revision: Revision, style: etree._Element | None = None
) -> None:
    """Paragraph ``p``'s properties made ``new``'s CT_PPrBase elements (``new``: a ``w:pPr``
    or None), tracked; its mark's properties (``w:rPr``) and section break stay as they are.
    ``style``: a ``w:pPr`` whose ``w:pStyle`` the old properties name first (the default
    style, when the paragraph had none: the same meaning, said explicitly)."""
    ppr = p.find(_PPR)
    if ppr is None:
        ppr = p.makeelement(_PPR)
        p.insert(0, ppr)
    old = base_children(ppr)
    if style is not None and not any(c.tag == _PSTYLE for c in old):
        old = base_children(style)[:1] + old
    kept = [c for c in ppr if c.tag in (_RPR, _SECT_PR)]
    for child in list(ppr):
        ppr.remove(child)
    ppr.extend(base_children(new))
    ppr.extend(kept)
    ppr.append(_record(revision, _PPR_CHANGE, _PPR, old))
