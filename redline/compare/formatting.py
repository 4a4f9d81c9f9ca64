"""Formatting NEW changed on text it kept: found for a pair of paragraphs of the same text, and
written as tracked formatting changes (:mod:`redline.write.formatting`).

For each character of an OLD paragraph and the same character of NEW's, the run properties
are compared (order-insensitive, revision records left out); a stretch of characters whose
properties differ the same way is one change, written once the writer is done as one
``w:rPrChange`` per run piece (the runs split at the stretch's ends), the run taking NEW's
properties whole.  The paragraph mark's run properties are compared the same way, and the
paragraph's own properties (CT_PPrBase: style, numbering, alignment, spacing ...): a
difference is a ``w:pPrChange``.

Not written, reported ``unsupported``: text whose run carries another author's pending
formatting change (DOCX cannot nest one in another), text in a field's result or another
author's tracked move, a paragraph whose section properties changed, and a style or list NEW
uses that OLD does not define.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from lxml import etree

from ..opc.namespaces import w
from ..read.view import DocumentView, Paragraph, SpanFlag, SpanKind
from ..read.view import Piece as ViewPiece
from ..write.formatting import (
    NOT_BASE,
    Revision,
    properties_key,
    set_mark_properties,
    set_paragraph_properties,
    set_run_properties,
)
from ..write.runs import isolate_child, isolate_text

__all__ = ["FormatChange", "Piece", "diff_kept_words", "diff_paragraph", "unwritten", "write_format"]

_R, _T, _RPR, _PPR = w("r"), w("t"), w("rPr"), w("pPr")
_RPR_CHANGE, _PPR_CHANGE, _SECT_PR, _DEL = w("rPrChange"), w("pPrChange"), w("sectPr"), w("del")
_VAL, _PSTYLE = w("val"), w("pStyle")
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
        reason = None
        if mark_a is not None and mark_a.find(_RPR_CHANGE) is not None:
            reason = (
                "its paragraph mark carries another author's pending formatting change: decide that first"
            )
        else:
            reason = _undefined(mark_b, styles, lists)
        out.append(FormatChange("format", p.index, p.end, p.end, _names(mark_a, mark_b), mark=True,
                                element=pe, new=mark_b, reason=reason))  # fmt: skip
    if properties_key(ppr_a) != properties_key(ppr_b):
        reason = None
        if ppr_a is not None and ppr_a.find(_PPR_CHANGE) is not None:
            reason = "the paragraph carries another author's pending property change: decide that first"
        else:
            reason = _undefined(ppr_b, styles, lists, mark=False)
        old_ppr = None
        if (
            default_style
            and ppr_b is not None
            and ppr_b.find(_PSTYLE) is not None
            and (ppr_a is None or ppr_a.find(_PSTYLE) is None)
        ):
            old_ppr = etree.Element(_PPR)
            etree.SubElement(old_ppr, _PSTYLE).set(_VAL, default_style)
        out.append(FormatChange("paragraph_format", p.index, p.start, p.end, _names(ppr_a, ppr_b),
                                element=pe, new=ppr_b, reason=reason, old_style=old_ppr))  # fmt: skip
    sect_a = ppr_a.find(_SECT_PR) if ppr_a is not None else None
    sect_b = ppr_b.find(_SECT_PR) if ppr_b is not None else None
    if properties_key(_holder(sect_a), ()) != properties_key(_holder(sect_b), ()):
        out.append(FormatChange("section", p.index, p.start, p.end, ["sectPr"],
                                reason="the section's properties (page, margins, headers) changed; compare "
                                "writes no section change"))  # fmt: skip
    for fc in out:
        fc.new_paragraph = q.index
    return out


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


def write_format(
    changes: list[FormatChange], revision: Revision, written: Callable[[FormatChange, str], None]
) -> None:
    """Write every change without a reason into OLD's trees (after the writer: a piece whose
    text the writer moved is not written, and its change is reported through ``written(change,
    reason)``); run pieces from the last to the first, so a split leaves earlier ones valid."""
    pieces = [(c, piece) for c in changes if c.reason is None for piece in c.pieces]
    failed: set[int] = set()
    moved = "the text's runs were rewritten by a text change next to it; its formatting is not written"
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
        run = isolate_text(node, piece.lo, piece.hi) if piece.text is not None else isolate_child(node)
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
    inserted takes its neighbours' formatting, a paragraph its neighbour's properties): each
    (kind, NEW's paragraph, start, end, properties), ``skip``: NEW paragraphs already reported."""
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
        if properties_key(ppr_a) != properties_key(ppr_b):
            out.append(("paragraph_format", q.index, q.start, q.end, _names(ppr_a, ppr_b)))
    return out
