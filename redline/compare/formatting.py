"""Formatting NEW changed on text it kept: found for a pair of paragraphs of the same text, and
written as tracked formatting changes (:mod:`redline.write.formatting`).

For each character of an OLD paragraph and the same character of NEW's, the run properties
are compared (order-insensitive, revision records left out); a stretch of characters whose
properties differ the same way is one change, written once the writer is done as one
``w:rPrChange`` per run piece (the runs split at the stretch's ends), the run taking NEW's
properties whole.  The paragraph mark's run properties are compared the same way, and the
paragraph's own properties (CT_PPrBase: style, numbering, alignment, spacing ...): a
difference is a ``w:pPrChange``.

A paragraph whose text changed as well (one stretch of the word diff) is handled once the
writer is done (:func:`write_stretch`): the paragraphs the writer made of the stretch are
grouped into the accepted paragraphs their marks end, one for one with NEW's, and each takes
its NEW paragraph's paragraph and mark properties as tracked changes; text the writer inserted
takes NEW's formatting (:func:`format_inserted`: part of the insertion, no record).  What still
differs once written (:func:`unwritten`, the output read with every change accepted) is
reported ``unsupported``.

Not written, reported ``unsupported``: text whose run carries another author's pending
formatting change (DOCX cannot nest one in another), text in a field's result or another
author's tracked move, a paragraph whose section properties changed, and a style or list NEW
uses that OLD does not define.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from lxml import etree

from ..opc.namespaces import w
from ..read.view import DocumentView, Paragraph, SpanFlag, SpanKind
from ..read.view import Piece as ViewPiece
from ..read.walk import read_nested
from ..write.formatting import (
    NOT_BASE,
    Revision,
    base_children,
    properties_key,
    set_mark_properties,
    set_paragraph_properties,
    set_run_properties,
)
from ..write.runs import isolate_child, isolate_text

__all__ = [
    "REWRITTEN", "FormatChange", "Piece", "Stretch", "StretchChange", "diff_kept_words", "diff_paragraph",
    "format_inserted", "format_kept", "runs_differ", "stretch_differs", "unwritten", "write_format",
    "write_stretch",
]  # fmt: skip

_R, _T, _RPR, _PPR = w("r"), w("t"), w("rPr"), w("pPr")
_RPR_CHANGE, _PPR_CHANGE, _SECT_PR, _DEL = w("rPrChange"), w("pPrChange"), w("sectPr"), w("del")
_INS = w("ins")
_VAL, _PSTYLE, _P = w("val"), w("pStyle"), w("p")
_FLAGGED = SpanFlag.FIELD_RESULT | SpanFlag.MOVE_TO


@dataclass
class Piece:
    """One run piece to format: OLD's node (a ``w:t``, or a one-character element) and the
    characters ``[lo, hi)`` of it, as they were when planned (``text``)."""

    node: etree._Element
    lo: int
    hi: int
    text: str | None  # TEXT: the node's text; CHAR: None
    new: etree._Element | None  # NEW's w:rPr for it
    at: int  # its view offset in OLD


@dataclass
class FormatChange:
    """One formatting difference of an OLD paragraph: ``kind`` "format" (run properties over
    view ``[start, end)``, or the paragraph mark's: ``mark``) or "paragraph_format"."""

    kind: str
    paragraph: int
    start: int
    end: int
    properties: list[str]
    pieces: list[Piece] = field(default_factory=list)
    mark: bool = False
    element: etree._Element | None = None  # OLD's w:p (mark, paragraph_format)
    new_paragraph: int = -1  # NEW's paragraph it is compared with
    old_style: etree._Element | None = None  # a w:pPr naming the default style the paragraph had
    new: etree._Element | None = None  # NEW's mark w:rPr / w:pPr
    reason: str | None = None  # why it cannot be written (then nothing of it is)


def _names(old: etree._Element | None, new: etree._Element | None) -> list[str]:
    """The local names of the properties that differ between two property elements."""

    def by_tag(el: etree._Element | None) -> dict[str, list[object]]:
        if el is None:
            return {}
        out: dict[str, list[object]] = {}
        for c in el:
            if isinstance(c.tag, str) and c.tag not in NOT_BASE:
                out.setdefault(etree.QName(c).localname, []).append(properties_key(_wrap(c), ()))
        return out

    a, b = by_tag(old), by_tag(new)
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def _wrap(c: etree._Element) -> etree._Element:
    holder = etree.Element("x")
    holder.append(copy.deepcopy(c))
    return holder


def _chars(view: DocumentView, para: Paragraph) -> list[tuple[int, int, etree._Element | None, int, object]]:
    """The paragraph's text as (start, end, run, flags, piece) stretches, offsets in the paragraph."""
    out: list[tuple[int, int, etree._Element | None, int, object]] = []
    for piece in view.pieces(para.start, para.end):
        if piece.kind == SpanKind.MARK:
            continue
        run = piece.node.getparent()
        out.append((
            piece.view_start - para.start, piece.view_start - para.start + (piece.end - piece.start),
            run if run is not None and run.tag == _R else None, piece.flags, piece,
        ))  # fmt: skip
    return out


def diff_paragraph(
    old: DocumentView,
    new: DocumentView,
    p: Paragraph,
    q: Paragraph,
    styles: frozenset[str],
    lists: frozenset[str],
    default_style: str | None = None,
) -> list[FormatChange]:
    """The formatting differences of OLD paragraph ``p`` and NEW's ``q`` (the same text);
    ``default_style``: OLD's default paragraph style, named in the old properties of a paragraph
    that had no style of its own and gets one (the same meaning; LibreOffice's reject of an
    empty old ``w:pPr`` falls back to its own default style otherwise)."""
    out = _run_changes(p, _chars(old, p), _chars(new, q), styles, lists)
    # the paragraph mark's run properties
    pe, qe = p.element, q.element
    ppr_a, ppr_b = pe.find(_PPR), qe.find(_PPR)
    mark_a = ppr_a.find(_RPR) if ppr_a is not None else None
    mark_b = ppr_b.find(_RPR) if ppr_b is not None else None
    if properties_key(mark_a) != properties_key(mark_b):
        reason = _mark_refusal(mark_a, mark_b, styles, lists)
        out.append(FormatChange("format", p.index, p.end, p.end, _names(mark_a, mark_b), mark=True,
                                element=pe, new=mark_b, reason=reason))  # fmt: skip
    if properties_key(ppr_a) != properties_key(ppr_b):
        reason = _paragraph_refusal(ppr_a, ppr_b, styles, lists)
        out.append(FormatChange("paragraph_format", p.index, p.start, p.end, _names(ppr_a, ppr_b),
                                element=pe, new=ppr_b, reason=reason,
                                old_style=_old_style(default_style, ppr_a, ppr_b)))  # fmt: skip
    sect_a = ppr_a.find(_SECT_PR) if ppr_a is not None else None
    sect_b = ppr_b.find(_SECT_PR) if ppr_b is not None else None
    if properties_key(_holder(sect_a), ()) != properties_key(_holder(sect_b), ()):
        out.append(FormatChange("section", p.index, p.start, p.end, ["sectPr"],
                                reason="the section's properties (page, margins, headers) changed; compare "
                                "writes no section change"))  # fmt: skip
    for fc in out:
        fc.new_paragraph = q.index
    return out


def _mark_refusal(
    mark_a: etree._Element | None,
    mark_b: etree._Element | None,
    styles: frozenset[str],
    lists: frozenset[str],
) -> str | None:
    """Why a paragraph mark's change of run properties (``mark_a`` -> ``mark_b``) cannot be
    written as a tracked change, or None."""
    if mark_a is not None and mark_a.find(_RPR_CHANGE) is not None:
        return "its paragraph mark carries another author's pending formatting change: decide that first"
    return _undefined(mark_b, styles, lists)


def _paragraph_refusal(
    ppr_a: etree._Element | None,
    ppr_b: etree._Element | None,
    styles: frozenset[str],
    lists: frozenset[str],
) -> str | None:
    """Why a paragraph's change of properties (``ppr_a`` -> ``ppr_b``) cannot be written as a
    tracked change, or None."""
    if ppr_a is not None and ppr_a.find(_PPR_CHANGE) is not None:
        return "the paragraph carries another author's pending property change: decide that first"
    return _undefined(ppr_b, styles, lists, mark=False)


def _old_style(
    default_style: str | None, ppr_a: etree._Element | None, ppr_b: etree._Element | None
) -> etree._Element | None:
    """The old properties a ``w:pPrChange`` names for a paragraph that had no style of its own
    and gets one: OLD's default paragraph style (``default_style``), or None (the old ``w:pPr``
    as it was)."""
    if (
        not default_style
        or ppr_b is None
        or ppr_b.find(_PSTYLE) is None
        or (ppr_a is not None and ppr_a.find(_PSTYLE) is not None)
    ):
        return None
    old = etree.Element(_PPR)
    etree.SubElement(old, _PSTYLE).set(_VAL, default_style)
    return old


_Chars = list[tuple[int, int, etree._Element | None, int, object]]


def _run_changes(
    p: Paragraph, a: _Chars, b: _Chars, styles: frozenset[str], lists: frozenset[str]
) -> list[FormatChange]:
    """The run-property differences of OLD paragraph ``p``'s stretches ``a`` and NEW's ``b``
    (both in ``p``'s offsets), one change per stretch that differs the same way."""
    out: list[FormatChange] = []
    cuts = sorted({x for s, e, *_ in a + b for x in (s, e)})
    ia = ib = 0
    current: FormatChange | None = None
    current_key: object = None
    for lo, hi in itertools.pairwise(cuts):
        while ia < len(a) and a[ia][1] <= lo:
            ia += 1
        while ib < len(b) and b[ib][1] <= lo:
            ib += 1
        if ia >= len(a) or ib >= len(b) or hi <= a[ia][0] or hi <= b[ib][0]:
            current = None
            continue
        run_a, run_b = a[ia][2], b[ib][2]
        if run_a is None or run_b is None:
            current = None
            continue
        rpr_a, rpr_b = run_a.find(_RPR), run_b.find(_RPR)
        key_a, key_b = properties_key(rpr_a), properties_key(rpr_b)
        if key_a == key_b:
            current = None
            continue
        reason = None
        if rpr_a is not None and rpr_a.find(_RPR_CHANGE) is not None:
            reason = "its run carries another author's pending formatting change: decide that first"
        elif a[ia][3] & _FLAGGED:
            reason = "inside a field's result or another author's tracked move, which compare leaves as it is"
        else:
            reason = _undefined(rpr_b, styles, lists)
        key = (key_a, key_b, reason)
        if current is None or current_key != key or current.end != p.start + lo:
            current = FormatChange(
                "format", p.index, p.start + lo, p.start + hi, _names(rpr_a, rpr_b), reason=reason
            )
            current_key = key
            out.append(current)
        current.end = p.start + hi
        piece = a[ia][4]
        node = piece.node  # type: ignore[attr-defined]
        off = lo - a[ia][0] + piece.start  # type: ignore[attr-defined]
        if piece.kind == SpanKind.TEXT:  # type: ignore[attr-defined]
            current.pieces.append(Piece(node, off, off + (hi - lo), node.text or "", rpr_b, p.start + lo))
        else:
            current.pieces.append(Piece(node, 0, 1, None, rpr_b, p.start + lo))
    return out


def _clipped(chars: _Chars, lo: int, hi: int, shift: int) -> _Chars:
    """The stretches of ``chars`` within ``[lo, hi)``, cut there, moved by ``shift``."""
    out: _Chars = []
    for s, e, run, flags, piece in chars:
        x, y = max(s, lo), min(e, hi)
        if x < y:
            if (x, y) != (s, e) and isinstance(piece, ViewPiece):
                start = piece.start + (x - s)
                piece = dataclasses.replace(
                    piece, start=start, end=start + (y - x), view_start=piece.view_start + (x - s)
                )
            out.append((x + shift, y + shift, run, flags, piece))
    return out


def diff_kept_words(
    old: DocumentView,
    new: DocumentView,
    p: Paragraph,
    q: Paragraph,
    spans: list[tuple[int, int, int]],
    styles: frozenset[str],
    lists: frozenset[str],
) -> list[FormatChange]:
    """The run-property differences of the words OLD paragraph ``p`` and NEW's ``q`` share
    where their text differs: ``spans`` are (offset in ``p``, offset in ``q``, length) of the
    text they share (the word diff's equal stretches); the rest is the text change's."""
    a_all, b_all = _chars(old, p), _chars(new, q)
    out: list[FormatChange] = []
    for at, bt, n in spans:
        a = _clipped(a_all, at, at + n, 0)
        b = _clipped(b_all, bt, bt + n, at - bt)
        out.extend(_run_changes(p, a, b, styles, lists))
    for fc in out:
        fc.new_paragraph = q.index
    return out


def _holder(el: etree._Element | None) -> etree._Element | None:
    return None if el is None else _wrap(el)


def _undefined(
    el: etree._Element | None, styles: frozenset[str], lists: frozenset[str], *, mark: bool = True
) -> str | None:
    """Why NEW's properties cannot be written into OLD: a style or list OLD does not define."""
    if el is None:
        return None
    for tag, kind, known in (("pStyle", "paragraph style", styles), ("rStyle", "character style", styles),
                             ("numId", "list", lists)):  # fmt: skip
        for ref in el.iter(w(tag)):
            value = ref.get(_VAL)
            if value is not None and value not in known and not (tag == "numId" and value == "0"):
                return f"NEW uses a {kind} ({value!r}) that OLD does not define"
    return None


REWRITTEN = "the text's runs were rewritten by a text change next to it; its formatting is not written"


def write_format(
    changes: list[FormatChange], revision: Revision, written: Callable[[FormatChange, str], None]
) -> None:
    """Write every change without a reason into OLD's trees (after the writer: a piece whose
    text the writer moved is not written, and its change is reported through ``written(change,
    reason)``); run pieces from the last to the first, so a split leaves earlier ones valid."""
    pieces = [(c, piece) for c in changes if c.reason is None for piece in c.pieces]
    failed: set[int] = set()
    moved = REWRITTEN
    checked: list[tuple[FormatChange, Piece]] = []
    for c, piece in pieces:
        node = piece.node
        ok = node.getparent() is not None and node.getparent().tag == _R  # type: ignore[union-attr]
        if ok and piece.text is not None:
            now = node.text or ""
            ok = node.tag == _T and piece.hi <= len(now) and piece.text.startswith(now)
        if ok and any(a.tag == _DEL for a in node.iterancestors()):
            ok = False
        if not ok:
            failed.add(id(c))
        checked.append((c, piece))
    for c in changes:
        if id(c) in failed:
            c.reason = moved
            written(c, moved)
    order = sorted(
        ((c, piece) for c, piece in checked if id(c) not in failed),
        key=lambda cp: cp[1].at,
        reverse=True,
    )
    for _c, piece in order:
        node = piece.node
        ids = _ids_of(revision)
        run = (
            isolate_text(node, piece.lo, piece.hi, ids)
            if piece.text is not None
            else isolate_child(node, ids)
        )
        set_run_properties(run, piece.new, revision)
    for c in changes:
        if c.reason is not None or c.element is None:
            continue
        if c.mark:
            set_mark_properties(c.element, c.new, revision)
        elif c.kind == "paragraph_format":
            set_paragraph_properties(c.element, c.new, revision, c.old_style)


def unwritten(
    written: DocumentView, new: DocumentView, skip: set[int]
) -> list[tuple[str, int, int, int, list[str]]]:
    """What still differs in formatting between the output read with every change accepted
    (``written``, the same text as ``new``) and NEW -- formatting compare did not write (text it
    inserted beside text whose formatting it could not tell, an accepted paragraph joined from
    several): each (kind, NEW's paragraph, start, end, properties; a paragraph mark's run
    properties: kind "format" at the paragraph's end), ``skip``: NEW paragraphs already reported."""
    out: list[tuple[str, int, int, int, list[str]]] = []
    if [(p.start, p.end) for p in written.paragraphs] != [(q.start, q.end) for q in new.paragraphs]:
        return out  # (paragraphs that do not correspond one to one: nothing to compare by)
    for p, q in zip(written.paragraphs, new.paragraphs, strict=True):
        if q.index in skip:
            continue
        a, b = _chars(written, p), _chars(new, q)
        cuts = sorted({x for s, e, *_ in a + b for x in (s, e)})
        ia = ib = 0
        for lo, hi in itertools.pairwise(cuts):
            while ia < len(a) and a[ia][1] <= lo:
                ia += 1
            while ib < len(b) and b[ib][1] <= lo:
                ib += 1
            if ia >= len(a) or ib >= len(b) or a[ia][2] is None or b[ib][2] is None:
                continue
            rpr_a, rpr_b = a[ia][2].find(_RPR), b[ib][2].find(_RPR)  # type: ignore[union-attr]
            if properties_key(rpr_a) == properties_key(rpr_b):
                continue
            names = _names(rpr_a, rpr_b)
            if (
                out
                and out[-1][:2] == ("format", q.index)
                and out[-1][3] == q.start + lo
                and out[-1][4] == names
            ):
                out[-1] = ("format", q.index, out[-1][2], q.start + hi, names)
            else:
                out.append(("format", q.index, q.start + lo, q.start + hi, names))
        ppr_a, ppr_b = p.element.find(_PPR), q.element.find(_PPR)
        mark_a = ppr_a.find(_RPR) if ppr_a is not None else None
        mark_b = ppr_b.find(_RPR) if ppr_b is not None else None
        if properties_key(mark_a) != properties_key(mark_b):
            out.append(("format", q.index, q.end, q.end, _names(mark_a, mark_b)))
        if properties_key(ppr_a) != properties_key(ppr_b):
            out.append(("paragraph_format", q.index, q.start, q.end, _names(ppr_a, ppr_b)))
    return out


# -- paragraphs whose text changed -----------------------------------------------------------


@dataclass
class Stretch:
    """OLD's paragraphs ``olds`` whose text the writer rewrites into NEW's ``news`` (one word
    diff's stretch, in one container): after the writer, the accepted paragraphs its marks end
    are NEW's, one for one, and take NEW's paragraph and mark properties (:func:`write_stretch`)."""

    olds: list[int]
    news: list[int]
    properties: bool = True  # NEW's paragraph or mark properties may differ (:func:`stretch_differs`)
    runs: bool = True  # inserted text may need NEW's formatting (:func:`runs_differ`)
    # once written: the paragraphs that are one accepted paragraph each, with NEW's it is
    paragraphs: list[tuple[etree._Element, int]] = field(default_factory=list)


def _keys(p: Paragraph) -> tuple[object, object]:
    ppr = p.element.find(_PPR)
    return properties_key(ppr), properties_key(ppr.find(_RPR) if ppr is not None else None)


def stretch_differs(old: DocumentView, new: DocumentView, stretch: Stretch) -> bool:
    """Could NEW's paragraph or mark properties in ``stretch`` differ from what the writer
    gives them (OLD's, a new paragraph its neighbour's)?"""
    a = [_keys(old.paragraphs[i]) for i in stretch.olds]
    b = [_keys(new.paragraphs[j]) for j in stretch.news]
    return a != b and (len(a) == len(b) or not set(b) <= set(a))


@dataclass
class StretchChange:
    """One property difference :func:`write_stretch` met (``paragraph``: the OLD view paragraph
    whose mark ends the accepted paragraph, or that a new one was broken off; ``new_paragraph``:
    NEW's): written (``reason`` None) as a tracked change, or not, and why."""

    kind: str  # "paragraph_format" | "format" (the mark's run properties)
    paragraph: int
    new_paragraph: int
    properties: list[str]
    reason: str | None = None


def _chain(el: etree._Element, originals: set[etree._Element]) -> list[etree._Element]:
    """``el`` and the paragraphs the writer broke off it (new siblings right after it, the last
    holding ``el``'s own mark: the writer's break gives the first part a new, inserted mark)."""
    out = [el]
    nxt = el.getnext()
    while nxt is not None and nxt.tag == _P and nxt not in originals:
        out.append(nxt)
        nxt = nxt.getnext()
    return out


def _deleted_mark(p: etree._Element) -> bool:
    ppr = p.find(_PPR)
    rpr = ppr.find(_RPR) if ppr is not None else None
    return rpr is not None and any(c.tag in (_DEL, w("moveFrom")) for c in rpr)


def runs_differ(old: DocumentView, new: DocumentView, stretch: Stretch) -> bool:
    """Could text the writer inserts in ``stretch`` need formatting other than its neighbours'
    (NEW's runs not all formatted as OLD's one formatting)?"""

    def keys(view: DocumentView, indices: list[int]) -> set[object]:
        return {properties_key(r.find(_RPR)) for i in indices for r in view.paragraphs[i].element.iter(_R)}

    a, b = keys(old, stretch.olds), keys(new, stretch.news)
    return len(a) > 1 or len(b) > 1 or a != b


def write_stretch(
    old: DocumentView,
    new: DocumentView,
    stretch: Stretch,
    originals: set[etree._Element],
    compared: set[int],
    styles: frozenset[str],
    lists: frozenset[str],
    revision: Revision,
    ours: Callable[[etree._Element], bool],
    default_style: str | None = None,
) -> list[StretchChange]:
    """NEW's paragraph and mark properties on the paragraphs the writer made of ``stretch``
    (``originals``: OLD's paragraph elements, before the writer), each accepted paragraph's
    from the NEW paragraph it is, as a ``w:pPrChange`` / mark ``w:rPrChange`` on every
    paragraph it is made of: its mark OLD's or inserted, and those whose marks a join deletes
    -- Word's accept keeps the properties of the mark that ends a joined paragraph,
    LibreOffice's those of the first, and rejecting an inserted mark joins its paragraph to
    the next (LibreOffice again keeping the first's): recorded on each, every reader's accept
    gives NEW's and every reject OLD's.  Text the writer inserted takes NEW's
    formatting (:func:`format_inserted`; not in a joined paragraph).  A stretch whose accepted
    paragraphs do not come out one for one with NEW's is left as it is: what then still
    differs is found once written (:func:`unwritten`).  ``compared``: OLD
    paragraphs :func:`diff_paragraph` wrote already (their own element is left out)."""
    origin: dict[etree._Element, int] = {}  # each element -> the OLD paragraph it was broken off
    elements: list[etree._Element] = []
    for i in stretch.olds:
        el = old.paragraphs[i].element
        chain = _chain(el, originals)
        origin.update(dict.fromkeys(chain, i))
        elements.extend(chain)
    groups: list[list[etree._Element]] = []
    current: list[etree._Element] = []
    for el in elements:
        current.append(el)
        if not _deleted_mark(el):
            groups.append(current)
            current = []
    if current or len(groups) != len(stretch.news):
        return []
    out: list[StretchChange] = []
    for group, j in zip(groups, stretch.news, strict=True):
        q = new.paragraphs[j]
        if stretch.runs and len(group) == 1:
            format_inserted(group[0], new, q, ours)
            stretch.paragraphs.append((group[0], j))
        if not stretch.properties:
            continue
        for el in group:
            i = origin[el]
            if i in compared and el is old.paragraphs[i].element:
                continue  # (diff_paragraph compared it whole)
            out.extend(_paragraph_changes(el, q, i, styles, lists, revision, default_style))
    return out


def _paragraph_changes(
    el: etree._Element,
    q: Paragraph,
    i: int,
    styles: frozenset[str],
    lists: frozenset[str],
    revision: Revision,
    default_style: str | None,
) -> list[StretchChange]:
    """NEW paragraph ``q``'s mark and paragraph properties on ``el``, tracked (a mark's
    ``w:rPrChange``, a ``w:pPrChange``); ``i``: the OLD paragraph it is or was broken off."""
    out: list[StretchChange] = []
    j = q.index
    ppr_a, ppr_b = el.find(_PPR), q.element.find(_PPR)
    mark_a = ppr_a.find(_RPR) if ppr_a is not None else None
    mark_b = ppr_b.find(_RPR) if ppr_b is not None else None
    if properties_key(mark_a) != properties_key(mark_b):
        change = StretchChange("format", i, j, _names(mark_a, mark_b))
        change.reason = _mark_refusal(mark_a, mark_b, styles, lists)
        if change.reason is None:
            set_mark_properties(el, mark_b, revision)
        out.append(change)
    if properties_key(ppr_a) != properties_key(ppr_b):
        change = StretchChange("paragraph_format", i, j, _names(ppr_a, ppr_b))
        change.reason = _paragraph_refusal(ppr_a, ppr_b, styles, lists)
        if change.reason is None:
            set_paragraph_properties(el, ppr_b, revision, _old_style(default_style, ppr_a, ppr_b))
        out.append(change)
    return out


_Todo = tuple[int, etree._Element, int, int, bool, etree._Element | None]


def _differences(
    el: etree._Element, new: DocumentView, q: Paragraph, take: Callable[[etree._Element, int], bool]
) -> list[_Todo] | None:
    """Where paragraph ``el``'s accepted text is formatted otherwise than NEW's ``q``: each
    (offset, node, [lo, hi) of it, a text node?, NEW's ``w:rPr``) of the runs ``take(run,
    flags)`` picks; None when ``el``'s accepted text is not ``q``'s."""
    story = read_nested(el)
    if "".join(story.pieces) != new.paragraph_text(q):
        return None
    b = _chars(new, q)
    starts = [s for s, *_ in b]
    todo: list[_Todo] = []
    for k, node in enumerate(story.nodes):
        kind = story.kinds[k]
        run = node.getparent()
        if kind not in (SpanKind.TEXT, SpanKind.CHAR) or run is None or run.tag != _R:
            continue
        if not take(run, story.flags[k]):
            continue
        s = story.offsets[k]
        e = s + len(story.pieces[k])
        mine = properties_key(run.find(_RPR))
        n = max(0, bisect.bisect_right(starts, s) - 1)
        while n < len(b) and b[n][0] < e:
            x, y = max(s, b[n][0]), min(e, b[n][1])
            theirs = b[n][2]
            if x < y and theirs is not None and properties_key(theirs.find(_RPR)) != mine:
                todo.append((x, node, x - s, y - s, kind == SpanKind.TEXT, theirs.find(_RPR)))
            n += 1
    return todo


def _ids_of(revision: Revision) -> Callable[[], str]:
    """New ids from ``revision``'s allocator, for a revision record a run split copies
    (:func:`redline.write.runs.fresh_ids`)."""
    return lambda: revision(_RPR_CHANGE).get(w("id")) or ""


def _ours(run: etree._Element, ours: Callable[[etree._Element], bool]) -> bool:
    holder = run.getparent()
    return holder is not None and holder.tag == _INS and ours(holder)


def format_inserted(
    el: etree._Element, new: DocumentView, q: Paragraph, ours: Callable[[etree._Element], bool]
) -> None:
    """The text the writer inserted into paragraph ``el`` (in ``w:ins`` wrappers ``ours`` says
    it made) formatted as NEW's paragraph ``q`` formats those characters, untracked (part of the
    insertion); nothing when ``el``'s accepted text is not ``q``'s."""
    todo = _differences(el, new, q, lambda run, flags: _ours(run, ours))
    for _x, node, lo, hi, text, rpr in sorted(todo or (), key=lambda t: t[0], reverse=True):
        run = isolate_text(node, lo, hi) if text else isolate_child(node)
        made = base_children(rpr)
        old_rpr = run.find(_RPR)
        if old_rpr is not None:
            run.remove(old_rpr)
        if made:
            holder_rpr = etree.Element(_RPR)
            holder_rpr.extend(made)
            run.insert(0, holder_rpr)


def format_kept(
    el: etree._Element,
    new: DocumentView,
    q: Paragraph,
    ours: Callable[[etree._Element], bool],
    styles: frozenset[str],
    lists: frozenset[str],
    revision: Revision,
) -> bool:
    """The text paragraph ``el`` kept of OLD formatted as NEW's paragraph ``q`` formats it, one
    tracked ``w:rPrChange`` a run piece -- what :func:`write_format` could not place once the
    writer had rewritten the runs (a kept word in the run of a changed one); not text in a
    field's result or another author's move, nor a run with a pending change.  Then: does
    ``el`` read as ``q``, every character formatted alike?"""

    def take(run: etree._Element, flags: int) -> bool:
        rpr = run.find(_RPR)
        return not (
            _ours(run, ours) or flags & _FLAGGED or (rpr is not None and rpr.find(_RPR_CHANGE) is not None)
        )

    todo = _differences(el, new, q, take)
    if todo is None:
        return False
    for _x, node, lo, hi, text, rpr in sorted(todo, key=lambda t: t[0], reverse=True):
        if _undefined(rpr, styles, lists) is not None:
            continue
        ids = _ids_of(revision)
        run = isolate_text(node, lo, hi, ids) if text else isolate_child(node, ids)
        set_run_properties(run, rpr, revision)
    return _differences(el, new, q, lambda run, flags: True) == []
