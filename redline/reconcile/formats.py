"""Formatting they changed without tracking, on text both documents share.

For each paragraph of SENT whose text RETURNED kept (found through the comparison's
differences: same text, no revision in either), the characters' *visible* run properties are
compared: bold, italic, underline, strike-through (single and double), capitals, small
capitals, highlighting, superscript/subscript (which way the text stands off the line, whether
``w:vertAlign`` or ``w:position`` puts it there) and hidden text, each as the run states it
directly (a toggle absent reads as off).  A stretch of characters whose properties differ the
same way is one :class:`~redline.reconcile.report.Untracked` entry of kind ``format``, with
the property names.  What a re-save rewrites without changing how the text looks -- fonts
stated, languages, ``w:rsid*``, run splits, the order of properties, a style's properties
written on the runs themselves (each run is read as its styles and its own properties make it:
:class:`StyleProps`) -- is not compared, nor is the look of whitespace alone.
"""

from __future__ import annotations

import itertools

from lxml import etree

from ..opc.namespaces import REL_STYLES, w
from ..read.annotations import Revision
from ..read.view import DocumentView, Paragraph, SpanKind
from .align import differences, shift
from .compared import Computed
from .ours import Change
from .readings import Reading
from .report import Untracked

__all__ = ["VISIBLE", "StyleProps", "find_format_changes"]

_R, _RPR, _PPR, _VAL = w("r"), w("rPr"), w("pPr"), w("val")
_T, _PSTYLE, _RSTYLE, _POSITION = w("t"), w("pStyle"), w("rStyle"), w("position")
_TBL, _TR, _TC = w("tbl"), w("tr"), w("tc")
_LOOK_BITS = {"firstRow": 0x20, "lastRow": 0x40, "firstColumn": 0x80, "lastColumn": 0x100,
              "noHBand": 0x200, "noVBand": 0x400}  # fmt: skip


def _look(el: etree._Element | None) -> dict[str, bool]:
    """A table's ``w:tblLook``: which conditional formats it turns on (its attributes, or the
    older hexadecimal ``w:val``; none: Word's default, ``04A0``)."""
    bits = 0x04A0
    if el is not None:
        try:
            bits = int(el.get(_VAL) or "04A0", 16)
        except ValueError:
            bits = 0x04A0
    out = {name: bool(bits & bit) for name, bit in _LOOK_BITS.items()}
    if el is not None:
        for name in _LOOK_BITS:
            val = el.get(w(name))
            if val is not None:
                out[name] = val.lower() not in _OFF
    return out


VISIBLE = ("b", "i", "u", "strike", "dstrike", "caps", "smallCaps", "highlight", "vertAlign", "vanish")
_TOGGLES = frozenset(("b", "i", "strike", "dstrike", "caps", "smallCaps", "vanish"))
_OFF = frozenset(("0", "false", "off", "none"))
_NAMES = {w(name): name for name in VISIBLE}

Props = tuple[tuple[str, str], ...]


def _stated(rpr: etree._Element | None) -> dict[str, str]:
    """The visible properties ``rpr`` states, each as its value (``""``: stated off)."""
    out: dict[str, str] = {}
    if rpr is None:
        return out
    position: etree._Element | None = None
    for el in rpr:  # (one pass over its children: the first statement of a property counts)
        name = _NAMES.get(el.tag)
        if name is None:
            if el.tag == _POSITION and position is None:
                position = el
            continue
        if name in out:
            continue
        val = (el.get(_VAL) or ("single" if name == "u" else "on")).strip()
        if name in _TOGGLES:
            val = "" if val.lower() in _OFF else "on"
        elif val.lower() in ("none", "baseline"):
            val = ""
        out[name] = val
    if not out.get("vertAlign") and position is not None:
        raised = _raised(position)
        if raised is not None:
            out["vertAlign"] = raised
    return out


def _raised(position: etree._Element | None) -> str | None:
    """A ``w:position`` (half-points above the line) as the way the text stands off the line:
    ``superscript`` raised, ``subscript`` lowered, ``""`` on it; None: not stated.  Raised text
    reads raised whether ``w:vertAlign`` or ``w:position`` raises it -- LibreOffice reads a
    position as an escapement and may write it back as ``w:vertAlign`` (HC061: a table style's
    ``w:position`` written as superscript on every cell) -- so which way it stands is the
    property compared: text on the line made superscript is still a change."""
    if position is None:
        return None
    try:
        half_points = int(float(position.get(_VAL) or "0"))
    except ValueError:
        return None
    return "superscript" if half_points > 0 else "subscript" if half_points < 0 else ""


class StyleProps:
    """The visible run properties a document's styles give (``word/styles.xml``): the
    document defaults, then the paragraph's style, then the run's character style, each
    through its ``basedOn`` chain, the nearest statement winning -- so a re-save that writes
    a style's properties on the runs themselves (LibreOffice does) reads the same."""

    def __init__(self, view: DocumentView) -> None:
        self.styles: dict[tuple[str, str], tuple[str | None, dict[str, str]]] = {}
        self.defaults: dict[str, str] = {}
        self.default_paragraph: str | None = None
        self._chains: dict[tuple[str, str], dict[str, str]] = {}
        self._props: dict[tuple[str | None, str | None, Props, Props], Props] = {}
        self.tables: dict[str, tuple[str | None, dict[str, dict[str, str]]]] = {}
        self._cells: dict[int, tuple[etree._Element, Props]] = {}  # id(w:tc) -> (it, its props)
        self._rows: dict[
            int, tuple[etree._Element, list[etree._Element], dict[int, int]]
        ] = {}  # id(w:tbl) -> rows' indexes
        working = view.working
        if working is None:
            return
        package = working.package
        found = package.related(package.main_part, REL_STYLES)
        root = package.xml(found[0]) if found else None
        if root is None:
            return
        self.defaults = _stated(root.find(f"{w('docDefaults')}/{w('rPrDefault')}/{_RPR}"))
        for st in root.iter(w("style")):
            sid, kind = st.get(w("styleId")), st.get(w("type"), "paragraph")
            if not sid:
                continue
            based = st.find(w("basedOn"))
            self.styles.setdefault((kind, sid), (based.get(_VAL) if based is not None else None,
                                                 _stated(st.find(_RPR))))  # fmt: skip
            if kind == "table":
                parts = {"wholeTable": _stated(st.find(_RPR))}
                for cond in st.iterchildren(w("tblStylePr")):
                    parts[cond.get(w("type")) or ""] = _stated(cond.find(_RPR))
                self.tables.setdefault(sid, (based.get(_VAL) if based is not None else None, parts))
            if kind == "paragraph" and st.get(w("default")) in ("1", "true", "on"):
                self.default_paragraph = self.default_paragraph or sid

    def chain(self, kind: str, sid: str | None) -> dict[str, str]:
        if sid is None:
            return {}
        key = (kind, sid)
        if key not in self._chains:
            order: list[dict[str, str]] = []
            seen: set[str] = set()
            at: str | None = sid
            while at is not None and at not in seen and (kind, at) in self.styles:
                seen.add(at)
                based, stated = self.styles[(kind, at)]
                order.append(stated)
                at = based
            out: dict[str, str] = {}
            for stated in reversed(order):
                out.update(stated)
            self._chains[key] = out
        return self._chains[key]

    def paragraph_style(self, paragraph: etree._Element | None) -> str | None:
        if paragraph is None:
            return None
        ppr = paragraph.find(_PPR)
        ps = ppr.find(_PSTYLE) if ppr is not None else None
        return (ps.get(_VAL) if ps is not None else None) or self.default_paragraph

    def table(self, paragraph: etree._Element | None) -> Props:
        """The visible run properties the table style of ``paragraph``'s cell gives it: the
        whole table's, then the conditional formats (``w:tblStylePr``) its place turns on --
        bands, first and last column, first and last row, in the order ECMA-376 Part 1,
        §17.7.6 applies them -- as the table's ``w:tblLook`` enables them; rows and cells in
        content controls or custom XML count as the table's own (:func:`_own`).  A re-save that
        writes a table style's bold first row or column on the runs (LibreOffice does) reads
        the same."""
        if paragraph is None or not self.tables:
            return ()
        cell = next(paragraph.iterancestors(_TC), None)
        if cell is None:
            return ()
        known = self._cells.get(id(cell))
        if known is None:
            known = self._cells[id(cell)] = (cell, self._table(cell))
        return known[1]

    def _table(self, cell: etree._Element) -> Props:
        row = next(cell.iterancestors(_TR), None)
        table = next(row.iterancestors(_TBL), None) if row is not None else None
        if row is None or table is None:
            return ()
        tpr = table.find(w("tblPr"))
        ts = tpr.find(w("tblStyle")) if tpr is not None else None
        sid = ts.get(_VAL) if ts is not None else None
        if sid is None or sid not in self.tables:
            return ()
        look = _look(tpr.find(w("tblLook")) if tpr is not None else None)
        rows = self._rows.get(id(table))
        if rows is None:
            listed = _own(table, _TR)  # (kept: an id names its element while it lives)
            rows = self._rows[id(table)] = (table, listed, {id(r): k for k, r in enumerate(listed)})
        cells = _own(row, _TC)
        ri, ci, count = rows[2].get(id(row), 0), cells.index(cell), len(rows[1])
        on = ["wholeTable"]
        if not look["noVBand"]:
            on.append("band1Vert" if (ci - look["firstColumn"]) % 2 == 0 else "band2Vert")
        if not look["noHBand"] and not (look["firstRow"] and ri == 0):
            on.append("band1Horz" if (ri - look["firstRow"]) % 2 == 0 else "band2Horz")
        edges = (("firstCol", "firstColumn", ci == 0), ("lastCol", "lastColumn", ci == len(cells) - 1),
                 ("firstRow", "firstRow", ri == 0), ("lastRow", "lastRow", ri == count - 1))  # fmt: skip
        on += [name for name, flag, hit in edges if hit and look[flag]]
        chain: list[dict[str, dict[str, str]]] = []
        seen: set[str] = set()
        at: str | None = sid
        while at is not None and at not in seen and at in self.tables:
            seen.add(at)
            based, parts = self.tables[at]
            chain.append(parts)
            at = based
        out: dict[str, str] = {}
        for name in on:
            for parts in reversed(chain):
                out.update(parts.get(name, {}))
        return tuple(sorted(out.items()))

    def of(self, run: etree._Element | None, pstyle: str | None, table: Props = ()) -> Props:
        """The visible properties of ``run`` in a paragraph of style ``pstyle`` (in a table
        cell the table style gives ``table``: :meth:`table`)."""
        rpr = run.find(_RPR) if run is not None else None
        rs = rpr.find(_RSTYLE) if rpr is not None else None
        rstyle = rs.get(_VAL) if rs is not None else None
        stated = _stated(rpr)
        key = (pstyle, rstyle, table, tuple(stated.items()))
        found = self._props.get(key)
        if found is None:
            out = dict(self.defaults)
            out.update(table)
            out.update(self.chain("paragraph", pstyle))
            if rstyle is not None:
                out.update(self.chain("character", rstyle))
            out.update(stated)
            found = self._props[key] = tuple((name, out[name]) for name in VISIBLE if out.get(name))
        return found

    def signature(self, paragraph: etree._Element) -> tuple[tuple[Props, str], ...]:
        """Each run's properties and text, in order: two paragraphs with the same signature
        look the same (the quick test before comparing them character by character)."""
        pstyle = self.paragraph_style(paragraph)
        table = self.table(paragraph)
        runs = paragraph.iter(_R)
        return tuple(
            (self.of(r, pstyle, table), "".join(t.text or "" for t in r.iterchildren(_T))) for r in runs
        )


_WRAPPERS = frozenset((w("sdt"), w("sdtContent"), w("customXml")))


def _own(parent: etree._Element, tag: str) -> list[etree._Element]:
    """``parent``'s rows (of a table) or cells (of a row), in order, with those wrapped in a
    content control or custom XML (a repeating section's rows are ``w:sdt`` > ``w:sdtContent``
    > ``w:tr``): to Word and LibreOffice they are the table's own, and count in its bands and
    its first and last row and column."""
    out: list[etree._Element] = []
    for child in parent.iterchildren():
        if child.tag == tag:
            out.append(child)
        elif child.tag in _WRAPPERS:
            out.extend(_own(child, tag))
    return out


def _characters(
    view: DocumentView, p: Paragraph, styles: StyleProps, computed: Computed
) -> list[tuple[int, int, Props]]:
    """Each stretch of ``p``'s characters with its visible properties; a computed field's
    result (a table of contents, a page number) is not compared: its look is computed too."""
    out: list[tuple[int, int, Props]] = []
    pstyle = styles.paragraph_style(p.element)
    table = styles.table(p.element)
    for piece in view.pieces(p.start, p.end):
        if piece.kind == SpanKind.MARK or computed.node(piece.node, piece.flags):
            continue
        parent = piece.node.getparent()
        run = parent if parent is not None and parent.tag == _R else None
        length = piece.end - piece.start if piece.kind != SpanKind.CHAR else 1
        at = piece.view_start - p.start
        out.append((at, at + length, styles.of(run, pstyle, table)))
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
    sent_styles, returned_styles = StyleProps(sent), StyleProps(returned)
    sent_computed, returned_computed = Computed(sent), Computed(returned)
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
        if sent_styles.signature(p.element) == returned_styles.signature(q.element):
            continue
        a_chars = _characters(sent, p, sent_styles, sent_computed)
        b_chars = _characters(returned, q, returned_styles, returned_computed)
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
            if not text[lo:hi].strip():
                continue  # (the look of spaces, tabs and marks is not seen)
            out.append(
                Untracked(
                    paragraph=q.index, label=q.label, section=q.section, before=text[lo:hi],
                    after=text[lo:hi], kind="format", properties=names, start=q.start + lo, end=q.start + hi,
                )
            )  # fmt: skip
    return out
