"""Tracked formatting changes: ``w:rPrChange`` on runs and paragraph marks, ``w:pPrChange`` on
paragraphs -- the XML a ``format`` entry (:mod:`redline.match.formats`) is written as.

The shapes (ECMA-376 Part 1):

* a run's ``w:rPr`` (§17.3.2.28) gets the new properties in CT_RPr's order and, last, a
  ``w:rPrChange`` (§17.13.5.31) holding the complete old ``w:rPr`` (``<w:rPr/>`` when the run
  had none: never omitted); a run without ``w:rPr`` gets one, as its first child;
* a paragraph mark's ``w:pPr/w:rPr`` (CT_ParaRPr, §17.13.5.30): its ``w:ins``/``w:del``/
  ``w:moveFrom``/``w:moveTo`` stay first, the new properties follow in order, the
  ``w:rPrChange`` (holding the old properties, less those revision marks) last;
* a paragraph's ``w:pPr``: ``w:pStyle`` first, and ``w:pPrChange`` (§17.13.5.29) last, holding
  the old properties as CT_PPrBase (never their ``w:rPr``, ``w:sectPr`` or ``w:pPrChange``).

Bold and italic are written with their complex-script twins (``w:bCs``, ``w:iCs``), as Word
does.  A property switched on is written explicitly; one switched off is removed where the
styles beneath give "off" already, and written off (``w:val="0"``, ``w:u w:val="none"``,
``w:highlight w:val="none"``) where they do not.  The functions take elements and change them
in place: ``redline compare`` can write a formatting difference with them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping

from lxml import etree

from ..match.formats import RUN_TAGS, paragraph_of, rpr_of, run_of, whole_paragraphs
from ..match.verify import Planned
from ..opc.namespaces import w
from ..read.view import DocumentView, Paragraph, SpanKind
from .runs import isolate_child, isolate_text

__all__ = ["RPR_ORDER", "record_paragraph_style", "record_run_format", "set_run_keys", "write_format"]

_RPR, _PPR = w("rPr"), w("pPr")
_RPR_CHANGE, _PPR_CHANGE, _SECT_PR = w("rPrChange"), w("pPrChange"), w("sectPr")
_VAL, _ID, _AUTHOR, _DATE = w("val"), w("id"), w("author"), w("date")
_MARK_REVISIONS = frozenset(w(n) for n in ("ins", "del", "moveFrom", "moveTo"))

#: EG_RPrBase, in the order CT_RPr requires (§17.3.2.28).
RPR_ORDER: dict[str, int] = {
    w(n): i
    for i, n in enumerate(
        [
            "rStyle",
            "rFonts",
            "b",
            "bCs",
            "i",
            "iCs",
            "caps",
            "smallCaps",
            "strike",
            "dstrike",
            "outline",
            "shadow",
            "emboss",
            "imprint",
            "noProof",
            "snapToGrid",
            "vanish",
            "webHidden",
            "color",
            "spacing",
            "w",
            "kern",
            "position",
            "sz",
            "szCs",
            "highlight",
            "u",
            "effect",
            "bdr",
            "shd",
            "fitText",
            "vertAlign",
            "rtl",
            "cs",
            "em",
            "lang",
            "eastAsianLayout",
            "specVanish",
            "oMath",
        ]
    )
}
_TWINS = {"bold": w("bCs"), "italic": w("iCs")}


def _place(rpr: etree._Element, el: etree._Element) -> None:
    """Put property ``el`` into ``rpr`` where CT_RPr's order has it (before anything later,
    before ``w:rPrChange``; other namespaces' elements count as later)."""
    mine = RPR_ORDER[el.tag]
    for i, child in enumerate(rpr):
        tag = child.tag
        if not isinstance(tag, str) or tag in _MARK_REVISIONS:
            continue
        if tag == _RPR_CHANGE or RPR_ORDER.get(tag, 1000) > mine:
            rpr.insert(i, el)
            return
    rpr.append(el)


def _set(rpr: etree._Element, tag: str, value: str | None) -> None:
    """Property ``tag`` in ``rpr`` with ``w:val`` ``value`` (None: no ``w:val``, "on")."""
    el = rpr.find(tag)
    if el is None:
        el = rpr.makeelement(tag)
        _place(rpr, el)
    if value is None:
        if _VAL in el.attrib:
            del el.attrib[_VAL]
    else:
        el.set(_VAL, value)


def _drop(rpr: etree._Element, tag: str) -> None:
    el = rpr.find(tag)
    if el is not None:
        rpr.remove(el)


def set_run_keys(rpr: etree._Element, changes: Mapping[str, object], inherited: Mapping[str, object]) -> None:
    """Give ``rpr`` the run keys ``changes`` (bold True, underline "double", highlight "none",
    ...); ``inherited``: what the styles beneath give each key (an "off" that matches it is
    written by removing the direct property)."""
    for key, value in changes.items():
        tag = RUN_TAGS[key]
        twin = _TWINS.get(key)
        off = value is False or value == "none"
        if off and inherited.get(key) == value:
            _drop(rpr, tag)
            if twin is not None:
                _drop(rpr, twin)
            continue
        if isinstance(value, bool):
            _set(rpr, tag, None if value else "0")
            if twin is not None:
                _set(rpr, twin, None if value else "0")
        else:
            _set(rpr, tag, str(value))


def _record(parent: etree._Element, tag: str, ident: str, author: str, date: str) -> etree._Element:
    el = parent.makeelement(tag)
    el.set(_ID, ident)
    el.set(_AUTHOR, author)
    el.set(_DATE, date)
    return el


def record_run_format(
    owner: etree._Element,
    changes: Mapping[str, object],
    inherited: Mapping[str, object],
    ident: str,
    author: str,
    date: str,
) -> etree._Element:
    """Change the run properties of ``owner`` -- a ``w:r``, or a ``w:p`` for its mark -- by
    ``changes``, recorded as a ``w:rPrChange`` holding the old properties; returns the
    ``w:rPr``.  The caller checked that it holds no ``w:rPrChange`` yet."""
    if owner.tag == w("p"):
        ppr = owner.find(_PPR)
        if ppr is None:
            ppr = owner.makeelement(_PPR)
            owner.insert(0, ppr)
        rpr = ppr.find(_RPR)
        if rpr is None:
            rpr = ppr.makeelement(_RPR)
            at = len(ppr)
            for i, child in enumerate(ppr):
                if child.tag in (_SECT_PR, _PPR_CHANGE):
                    at = i
                    break
            ppr.insert(at, rpr)
    else:
        rpr = next((c for c in owner if c.tag == _RPR), None)
        if rpr is None:
            rpr = owner.makeelement(_RPR)
            owner.insert(0, rpr)
    old = rpr.makeelement(_RPR)
    for child in rpr:
        if isinstance(child.tag, str) and child.tag not in _MARK_REVISIONS:
            old.append(copy.deepcopy(child))
    set_run_keys(rpr, changes, inherited)
    change = _record(rpr, _RPR_CHANGE, ident, author, date)
    change.append(old)
    rpr.append(change)
    return rpr


def record_paragraph_style(
    p: etree._Element, style_id: str, ident: str, author: str, date: str
) -> etree._Element:
    """Give paragraph ``p`` the style ``style_id``, recorded as a ``w:pPrChange`` holding its
    old properties (CT_PPrBase); returns the ``w:pPr``.  Every other property stays.  The
    caller checked that it holds no ``w:pPrChange`` yet."""
    ppr = p.find(_PPR)
    if ppr is None:
        ppr = p.makeelement(_PPR)
        p.insert(0, ppr)
    old = ppr.makeelement(_PPR)
    for child in ppr:
        if isinstance(child.tag, str) and child.tag not in (_RPR, _SECT_PR, _PPR_CHANGE):
            old.append(copy.deepcopy(child))
    ps = ppr.find(w("pStyle"))
    if ps is None:
        ps = ppr.makeelement(w("pStyle"))
        ppr.insert(0, ps)
    ps.set(_VAL, style_id)
    change = _record(ppr, _PPR_CHANGE, ident, author, date)
    change.append(old)
    ppr.append(change)
    return ppr


def write_format(
    view: DocumentView, plan: Planned, new_id: Callable[[], str], author: str, date: str
) -> tuple[list[etree._Element], list[Paragraph]]:
    """Write the format plan ``plan`` (view range [start, end)) into the view's trees: the
    runs that need a change split off at the range's ends and recorded one ``w:rPrChange``
    each; the marks of the paragraphs whose whole text it covers, likewise; the paragraphs'
    style, one ``w:pPrChange`` each.  Returns the runs changed (in order) and the paragraphs
    the range spans.  Runs and paragraphs that already have it are left byte for byte."""
    fplan = plan.format
    assert fplan is not None
    styles = fplan.styles
    paras = view.paragraphs_between(plan.start, plan.end)
    changed: list[etree._Element] = []
    if fplan.run:
        for para in reversed(whole_paragraphs(view, plan.start, plan.end)):
            p = para.element
            mark = p.find(f"{_PPR}/{_RPR}")
            todo = fplan.run_changes(mark, p)
            if todo:
                record_run_format(p, todo, styles.inherited(mark, p), new_id(), author, date)
        for piece in reversed(list(view.pieces(plan.start, plan.end))):
            if piece.kind is SpanKind.MARK:
                continue
            holder = run_of(piece.node)
            if holder is None:
                continue
            where = paragraph_of(holder)
            todo = fplan.run_changes(rpr_of(holder), where)
            if not todo:
                continue
            if piece.kind is SpanKind.CHAR:
                run = isolate_child(piece.node)
            else:
                run = isolate_text(piece.node, piece.start, piece.end)
            record_run_format(run, todo, styles.inherited(rpr_of(run), where), new_id(), author, date)
            changed.append(run)
        changed.reverse()
    if fplan.style is not None:
        for para in reversed(paras):
            p = para.element
            if fplan.restyles(p):
                record_paragraph_style(p, fplan.style, new_id(), author, date)
    return changed, paras
