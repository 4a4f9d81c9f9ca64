"""Formatting they changed without tracking, on text both documents share.

For each paragraph of SENT whose text RETURNED kept (found through the comparison's
differences: same text, no revision in either), the characters' *visible* run properties are
compared: bold, italic, underline, strike-through (single and double), capitals, small
capitals, highlighting, superscript/subscript and hidden text, each as the run states it
directly (a toggle absent reads as off).  A stretch of characters whose properties differ the
same way is one :class:`~redline.reconcile.report.Untracked` entry of kind ``format``, with
the property names.  What a re-save rewrites without changing how the text looks -- fonts
stated, languages, ``w:rsid*``, run splits, the order of properties -- is not compared.
"""

from __future__ import annotations

import itertools

from lxml import etree

from ..opc.namespaces import w
from ..read.annotations import Revision
from ..read.view import DocumentView, Paragraph, SpanKind
from .align import differences, shift
from .ours import Change
from .readings import Reading
from .report import Untracked

__all__ = ["VISIBLE", "find_format_changes"]

_R, _RPR, _VAL = w("r"), w("rPr"), w("val")
VISIBLE = ("b", "i", "u", "strike", "dstrike", "caps", "smallCaps", "highlight", "vertAlign", "vanish")
_TOGGLES = frozenset(("b", "i", "strike", "dstrike", "caps", "smallCaps", "vanish"))
_OFF = frozenset(("0", "false", "off", "none"))

Props = tuple[tuple[str, str], ...]


def _props(run: etree._Element | None) -> Props:
    rpr = run.find(_RPR) if run is not None else None
    out: list[tuple[str, str]] = []
    for name in VISIBLE:
        el = rpr.find(w(name)) if rpr is not None else None
        if el is None:
            continue
        val = (el.get(_VAL) or ("single" if name == "u" else "on")).strip()
        if name in _TOGGLES:
            if val.lower() in _OFF:
                continue
            val = "on"
        elif val.lower() in ("none", "baseline"):
            continue
        out.append((name, val))
    return tuple(out)


def _characters(view: DocumentView, p: Paragraph) -> list[tuple[int, int, Props]]:
    out: list[tuple[int, int, Props]] = []
    for piece in view.pieces(p.start, p.end):
        if piece.kind == SpanKind.MARK:
            continue
        parent = piece.node.getparent()
        run = parent if parent is not None and parent.tag == _R else None
        length = piece.end - piece.start if piece.kind != SpanKind.CHAR else 1
        out.append((piece.view_start - p.start, piece.view_start - p.start + length, _props(run)))
    return out


def _at(chars: list[tuple[int, int, Props]], x: int) -> Props:
    for s, e, props in chars:
        if s <= x < e:
            return props
    return ()


def find_format_changes(
    changes: list[Change],
    sent: DocumentView,
    expected: Reading,
    returned: DocumentView,
    plain: Reading,
    theirs: list[Revision],
) -> list[Untracked]:
    """Untracked formatting changes, in RETURNED's paragraphs."""
    touched_returned = {r.paragraph for r in theirs}
    touched_sent = {r.paragraph for c in changes for r in c.revisions}
    diffs = differences(expected.text, plain.text)
    out: list[Untracked] = []
    for p in sent.paragraphs:
        if p.index in touched_sent or p.end <= p.start:
            continue
        e0 = expected.at(p.start)
        b0 = shift(diffs, e0)
        r0 = plain.source(b0)
        if r0 >= len(returned.text) and not returned.paragraphs:
            continue
        q = returned.paragraph_at(min(r0, max(len(returned.text) - 1, 0)))
        text = sent.paragraph_text(p)
        if q.start != r0 or q.index in touched_returned or returned.paragraph_text(q) != text:
            continue
        a_chars, b_chars = _characters(sent, p), _characters(returned, q)
        cuts = sorted({0, len(text), *(c[0] for c in a_chars), *(c[0] for c in b_chars)})
        run: tuple[int, int, list[str]] | None = None
        found: list[tuple[int, int, list[str]]] = []
        for lo, hi in itertools.pairwise(cuts):
            pa, pb = _at(a_chars, lo), _at(b_chars, lo)
            names = sorted({n for n, _ in set(pa) ^ set(pb)})
            if names and run is not None and run[2] == names and run[1] == lo:
                run = (run[0], hi, names)
                continue
            if run is not None:
                found.append(run)
                run = None
            if names:
                run = (lo, hi, names)
        if run is not None:
            found.append(run)
        for lo, hi, names in found:
            out.append(
                Untracked(
                    paragraph=q.index, label=q.label, section=q.section, before=text[lo:hi],
                    after=text[lo:hi], kind="format", properties=names, start=q.start + lo, end=q.start + hi,
                )
            )  # fmt: skip
    return out
