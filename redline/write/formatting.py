"""Tracked formatting changes: ``w:rPrChange`` on runs and paragraph marks, ``w:pPrChange`` on
paragraphs -- the one writer of them, for a ``format`` entry (:mod:`redline.match.formats`) and
for ``redline compare``'s formatting differences alike.

The shapes (ECMA-376 Part 1):

* a run's ``w:rPr`` (§17.3.2.28) gets the new properties in CT_RPr's order and, last, a
  ``w:rPrChange`` (§17.13.5.31) holding the complete old ``w:rPr`` (CT_RPrOriginal: EG_RPrBase
  only; ``<w:rPr/>`` when the run had none: never omitted); a run without ``w:rPr`` gets one,
  as its first child;
* a paragraph mark's ``w:pPr/w:rPr`` (CT_ParaRPr, §17.13.5.30): its ``w:ins``/``w:del``/
  ``w:moveFrom``/``w:moveTo`` stay first, the new properties follow, the ``w:rPrChange``
  (holding the old properties, less those revision marks) last;
* a paragraph's ``w:pPr``: ``w:pPrChange`` (§17.13.5.29) last, holding the old properties as
  CT_PPrBase (never their ``w:rPr``, ``w:sectPr`` or ``w:pPrChange``).

:func:`track_run` and :func:`track_paragraph` are the one tracked write: the old properties
copied whole, the change made, the record appended.  What the change is comes from the
caller, in two kinds:

* **keys** (a ``format`` entry): :func:`set_run_keys` gives the run keys asked for (bold,
  underline "double", highlight "none", ...), every other property kept; bold and italic with
  their complex-script twins (``w:bCs``, ``w:iCs``), as Word writes them.  A property switched
  on is written explicitly; one switched off is removed where the styles beneath give "off"
  already, and written off (``w:val="0"``, ``w:u w:val="none"``, ``w:highlight w:val="none"``)
  where they do not.  :func:`record_run_format`, :func:`record_paragraph_style` and
  :func:`write_format` (a format plan written into the view's trees) use them;
* **whole properties** (compare): :func:`set_run_properties`, :func:`set_mark_properties` and
  :func:`set_paragraph_properties` make the properties NEW's, whole.

:func:`properties_key` is the order-insensitive identity of a property element, what decides
whether two runs or paragraphs are formatted alike.  Revision records come from a
:data:`Revision` (``revision(tag)``: an element with a fresh ``w:id``, the author and the date),
so ids come from the writer's one allocator (:func:`stamped` makes one of an id source).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping

from lxml import etree

from ..match.formats import RUN_TAGS, paragraph_of, rpr_of, run_of, whole_paragraphs
from ..match.verify import Planned
from ..opc.namespaces import w
from ..read.view import DocumentView, Paragraph, SpanKind
from .runs import isolate_child, isolate_text, mark_rpr, ppr_of

__all__ = [
    "MARK_REVISIONS", "NOT_BASE", "RPR_ORDER", "Revision", "base_children", "properties_key",
    "record_paragraph_style", "record_run_format", "set_mark_properties", "set_paragraph_properties",
    "set_run_keys", "set_run_properties", "stamped", "track_paragraph", "track_run", "write_format",
]  # fmt: skip

Revision = Callable[[str], etree._Element]
"""Makes a revision record of a tag: ``w:id`` (fresh), ``w:author``, ``w:date`` set."""

_P, _RPR, _PPR, _PSTYLE = w("p"), w("rPr"), w("pPr"), w("pStyle")
_RPR_CHANGE, _PPR_CHANGE, _SECT_PR = w("rPrChange"), w("pPrChange"), w("sectPr")
_VAL, _ID, _AUTHOR, _DATE = w("val"), w("id"), w("author"), w("date")
MARK_REVISIONS = frozenset(w(n) for n in ("ins", "del", "moveFrom", "moveTo"))
# what a property element holds that is not formatting: revision records (and, in a pPr, the
# mark's run properties and the section break, which have their own records)
NOT_BASE = frozenset((_RPR_CHANGE, _PPR_CHANGE, _SECT_PR, _RPR, *MARK_REVISIONS))

Key = tuple[object, ...]

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


def stamped(new_id: Callable[[], str], author: str, date: str) -> Revision:
    """A :data:`Revision` whose ids come from ``new_id``, by ``author`` at ``date``."""

    def revision(tag: str) -> etree._Element:
        el = etree.Element(tag)
        el.set(_ID, new_id())
        el.set(_AUTHOR, author)
        el.set(_DATE, date)
        return el

    return revision


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


# -- the one tracked write ---------------------------------------------------------------------


def _record(revision: Revision, tag: str, inner_tag: str, old: list[etree._Element]) -> etree._Element:
    record = revision(tag)
    inner = etree.SubElement(record, inner_tag)
    inner.extend(old)
    return record


def _run_rpr(owner: etree._Element) -> etree._Element:
    """The run properties of ``owner`` -- a ``w:r``'s ``w:rPr`` (its first child), or a
    ``w:p``'s mark's ``w:pPr/w:rPr`` (before a ``w:sectPr`` or ``w:pPrChange``) --, made when
    missing."""
    if owner.tag == _P:
        return mark_rpr(owner)
    rpr = owner.find(_RPR)
    if rpr is None:
        rpr = owner.makeelement(_RPR)
        owner.insert(0, rpr)
    return rpr


def track_run(
    owner: etree._Element, change: Callable[[etree._Element], None], revision: Revision
) -> etree._Element:
    """The run properties of ``owner`` (a ``w:r``, or a ``w:p`` for its mark) changed by
    ``change(rpr)``, recorded as a ``w:rPrChange`` (last) holding the complete old properties;
    returns the ``w:rPr``.  The caller checked that it holds no ``w:rPrChange`` yet."""
    rpr = _run_rpr(owner)
    old = base_children(rpr)
    change(rpr)
    rpr.append(_record(revision, _RPR_CHANGE, _RPR, old))
    return rpr


def track_paragraph(
    p: etree._Element,
    change: Callable[[etree._Element], None],
    revision: Revision,
    style: etree._Element | None = None,
) -> etree._Element:
    """Paragraph ``p``'s properties changed by ``change(ppr)``, recorded as a ``w:pPrChange``
    (last) holding the old ones as CT_PPrBase; returns the ``w:pPr``.  ``style``: a ``w:pPr``
    whose ``w:pStyle`` the old properties name first when they name none (the default style,
    said explicitly).  The caller checked that it holds no ``w:pPrChange`` yet."""
    ppr = ppr_of(p)
    old = base_children(ppr)
    if style is not None and not any(c.tag == _PSTYLE for c in old):
        old = base_children(style)[:1] + old
    change(ppr)
    ppr.append(_record(revision, _PPR_CHANGE, _PPR, old))
    return ppr


# -- keys: a format entry ----------------------------------------------------------------------


def _place(rpr: etree._Element, el: etree._Element) -> None:
    """Put property ``el`` into ``rpr`` where CT_RPr's order has it (before anything later,
    before ``w:rPrChange``; other namespaces' elements count as later)."""
    mine = RPR_ORDER[el.tag]
    for i, child in enumerate(rpr):
        tag = child.tag
        if not isinstance(tag, str) or tag in MARK_REVISIONS:
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


def record_run_format(
    owner: etree._Element,
    changes: Mapping[str, object],
    inherited: Mapping[str, object],
    revision: Revision,
) -> etree._Element:
    """Change the run properties of ``owner`` -- a ``w:r``, or a ``w:p`` for its mark -- by the
    run keys ``changes``, tracked; returns the ``w:rPr``."""
    return track_run(owner, lambda rpr: set_run_keys(rpr, changes, inherited), revision)


def record_paragraph_style(p: etree._Element, style_id: str, revision: Revision) -> etree._Element:
    """Give paragraph ``p`` the style ``style_id``, tracked; returns the ``w:pPr``.  Every
    other property stays."""

    def restyle(ppr: etree._Element) -> None:
        ps = ppr.find(_PSTYLE)
        if ps is None:
            ps = ppr.makeelement(_PSTYLE)
            ppr.insert(0, ps)
        ps.set(_VAL, style_id)

    return track_paragraph(p, restyle, revision)


# -- whole properties: compare -----------------------------------------------------------------


def _made(new: etree._Element | None) -> Callable[[etree._Element], None]:
    """A change that makes run properties ``new``'s (a ``w:rPr`` or None: none), a mark's own
    revisions kept first."""

    def change(rpr: etree._Element) -> None:
        marks = [c for c in rpr if c.tag in MARK_REVISIONS]
        for child in list(rpr):
            rpr.remove(child)
        rpr.extend(marks)
        rpr.extend(base_children(new))

    return change


def set_run_properties(run: etree._Element, new: etree._Element | None, revision: Revision) -> None:
    """``run`` (a ``w:r`` without a pending ``w:rPrChange``) formatted with ``new``'s
    properties (a ``w:rPr`` or None: none), tracked."""
    track_run(run, _made(new), revision)


def set_mark_properties(p: etree._Element, new: etree._Element | None, revision: Revision) -> None:
    """The mark of paragraph ``p`` formatted with ``new``'s properties (a mark's ``w:rPr`` or
    None), tracked; the mark's own revisions stay first."""
    track_run(p, _made(new), revision)


def set_paragraph_properties(
    p: etree._Element, new: etree._Element | None, revision: Revision, style: etree._Element | None = None
) -> None:
    """Paragraph ``p``'s properties made ``new``'s CT_PPrBase elements (``new``: a ``w:pPr``
    or None), tracked; its mark's properties (``w:rPr``) and section break stay as they are.
    ``style``: as for :func:`track_paragraph`."""

    def change(ppr: etree._Element) -> None:
        kept = [c for c in ppr if c.tag in (_RPR, _SECT_PR)]
        for child in list(ppr):
            ppr.remove(child)
        ppr.extend(base_children(new))
        ppr.extend(kept)

    track_paragraph(p, change, revision, style)


# -- a format plan -----------------------------------------------------------------------------


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
    revision = stamped(new_id, author, date)
    paras = view.paragraphs_between(plan.start, plan.end)
    changed: list[etree._Element] = []
    if fplan.run:
        for para in reversed(whole_paragraphs(view, plan.start, plan.end)):
            p = para.element
            mark = p.find(f"{_PPR}/{_RPR}")
            todo = fplan.run_changes(mark, p)
            if todo:
                record_run_format(p, todo, styles.inherited(mark, p), revision)
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
                run = isolate_child(piece.node, new_id)
            else:
                run = isolate_text(piece.node, piece.start, piece.end, new_id)
            record_run_format(run, todo, styles.inherited(rpr_of(run), where), revision)
            changed.append(run)
        changed.reverse()
    if fplan.style is not None:
        for para in reversed(paras):
            p = para.element
            if fplan.restyles(p):
                record_paragraph_style(p, fplan.style, revision)
    return changed, paras
