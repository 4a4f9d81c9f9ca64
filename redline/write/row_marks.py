"""Tracked table rows: a row marked inserted or deleted, contents and all (ECMA-376 Part 1,
§17.13.5).

The row's own record (``w:trPr/w:ins``, "Inserted Table Row"; ``w:trPr/w:del``, "Deleted Table
Row") "shall not imply any revision state about the table cells in this row or their
contents", so the contents are marked too, as Word marks them: every run of an inserted row in
``w:ins`` and every paragraph mark inserted; every run of a deleted row in ``w:del`` (its
``w:t`` made ``w:delText``, ``w:instrText`` ``w:delInstrText``) and every mark deleted.  A
reader that sees only run-level revisions (LibreOffice, pandoc) then resolves the row too.

* :func:`mark_row_inserted`, :func:`mark_row_deleted` -- the marks, in place;
* :func:`row_copy` -- a row from another document made fit to insert: paragraph ids (which
  must be unique) and range markup that names the other document's bookmarks and comments
  left out;
* :func:`row_obstacle` -- why a row cannot be written so (a nested table, merged cells, a
  revision already in it, content that points into its own document's parts), or None.
"""

from __future__ import annotations

import copy

from lxml import etree

from ..opc.namespaces import R_NS, w
from .property_changes import Revision

__all__ = ["mark_row_deleted", "mark_row_inserted", "row_copy", "row_obstacle"]

_TR, _TR_PR, _TC, _P, _R = w("tr"), w("trPr"), w("tc"), w("p"), w("r")
_PPR, _RPR, _TBL_PR_EX = w("pPr"), w("rPr"), w("tblPrEx")
_INS, _DEL = w("ins"), w("del")
_T, _DEL_TEXT, _INSTR, _DEL_INSTR = w("t"), w("delText"), w("instrText"), w("delInstrText")
_SECT_PR, _PPR_CHANGE = w("sectPr"), w("pPrChange")
_W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
_PARA_IDS = (f"{{{_W14}}}paraId", f"{{{_W14}}}textId")
# CT_TrPr: the CT_TrPrBase choice first, then w:ins, w:del, w:trPrChange
_AFTER_MARK = frozenset((_DEL, w("trPrChange")))
_REVISIONS = frozenset(
    w(n) for n in (
        "ins", "del", "moveFrom", "moveTo", "rPrChange", "pPrChange", "trPrChange", "tcPrChange",
        "tblPrChange", "tblPrExChange", "sectPrChange", "cellIns", "cellDel", "cellMerge",
        "numberingChange", "moveFromRangeStart", "moveToRangeStart", "customXmlInsRangeStart",
        "customXmlDelRangeStart",
    )
)  # fmt: skip
_FOREIGN = frozenset(
    w(n) for n in (
        "footnoteReference", "endnoteReference", "commentReference", "drawing", "pict", "object",
        "altChunk", "subDoc",
    )
)  # fmt: skip
_EMPTY = frozenset((_RPR, w("lastRenderedPageBreak")))
_RANGES = frozenset(w(n) for n in ("bookmarkStart", "bookmarkEnd", "commentRangeStart", "commentRangeEnd"))


def row_obstacle(tr: etree._Element, *, copied: bool) -> str | None:
    """Why row ``tr`` cannot be marked inserted (``copied``: it comes from another document)
    or deleted as a whole, or None."""
    for el in tr.iter():
        tag = el.tag
        if not isinstance(tag, str):
            continue
        if tag == w("tbl"):
            return "it holds a nested table"
        if tag == w("vMerge"):
            return "it holds vertically merged cells"
        if tag in _REVISIONS:
            return "it holds a tracked change already"
        if copied and (tag in _FOREIGN or any(str(k).startswith(f"{{{R_NS}}}") for k in el.attrib)):
            return "it holds a note, comment, drawing or link of its own document"
    return None


def row_copy(tr: etree._Element) -> etree._Element:
    """A deep copy of ``tr`` with no paragraph ids and no bookmark or comment ranges."""
    new = copy.deepcopy(tr)
    for el in list(new.iter()):
        if el.tag in _RANGES:
            parent = el.getparent()
            if parent is not None:
                parent.remove(el)
            continue
        for key in _PARA_IDS:
            if key in el.attrib:
                del el.attrib[key]
    return new


def _tr_pr(tr: etree._Element) -> etree._Element:
    trpr = tr.find(_TR_PR)
    if trpr is None:
        trpr = tr.makeelement(_TR_PR)
        ex = tr.find(_TBL_PR_EX)
        tr.insert(0 if ex is None else tr.index(ex) + 1, trpr)
    return trpr


def _mark_rpr(p: etree._Element) -> etree._Element:
    ppr = p.find(_PPR)
    if ppr is None:
        ppr = p.makeelement(_PPR)
        p.insert(0, ppr)
    rpr = ppr.find(_RPR)
    if rpr is None:
        rpr = ppr.makeelement(_RPR)
        at = next((i for i, c in enumerate(ppr) if c.tag in (_SECT_PR, _PPR_CHANGE)), len(ppr))
        ppr.insert(at, rpr)
    return rpr


def _wrap_runs(tr: etree._Element, tag: str, revision: Revision) -> None:
    """Every run of ``tr`` inside a ``tag`` record, consecutive sibling runs in one; a run with
    nothing in it is left as it is (LibreOffice reads an empty tracked run as a character)."""
    runs = [r for r in tr.iter(_R) if any(c.tag not in _EMPTY for c in r)]
    group: etree._Element | None = None
    for run in runs:
        prev = run.getprevious()
        if group is None or prev is not group:
            group = revision(tag)
            run.addprevious(group)
        group.append(run)


def mark_row_inserted(tr: etree._Element, revision: Revision) -> None:
    """``tr`` (free of revisions) an inserted row: its ``w:trPr/w:ins``, every run inserted,
    every paragraph mark inserted."""
    trpr = _tr_pr(tr)
    at = next((i for i, c in enumerate(trpr) if c.tag in _AFTER_MARK), len(trpr))
    trpr.insert(at, revision(_INS))
    for p in tr.iter(_P):
        _mark_rpr(p).insert(0, revision(_INS))
    _wrap_runs(tr, _INS, revision)


def mark_row_deleted(tr: etree._Element, revision: Revision) -> None:
    """``tr`` (free of revisions) a deleted row: its ``w:trPr/w:del``, every run's text
    deleted, every paragraph mark deleted."""
    trpr = _tr_pr(tr)
    at = next((i for i, c in enumerate(trpr) if c.tag == w("trPrChange")), len(trpr))
    trpr.insert(at, revision(_DEL))
    for p in tr.iter(_P):
        _mark_rpr(p).insert(0, revision(_DEL))
    for el in tr.iter(_T, _INSTR):
        el.tag = _DEL_TEXT if el.tag == _T else _DEL_INSTR
    _wrap_runs(tr, _DEL, revision)
