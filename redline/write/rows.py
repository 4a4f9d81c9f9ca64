"""Tracked table rows (ECMA-376 Part 1, §17.13.5): the one writer of them, for row entries (a
new row beside the reference row, or the row deleted) and for ``redline compare``'s inserted
and deleted rows alike.

The row's own record (``w:trPr/w:ins``, "Inserted Table Row", §17.13.5.17; ``w:trPr/w:del``,
"Deleted Table Row") "shall not imply any revision state about the table cells in this row or
their contents", so the contents are marked too, as Word marks them: every run of an inserted
row in ``w:ins`` and every paragraph mark inserted (``w:pPr/w:rPr/w:ins``); every run of a
deleted row in ``w:del`` (``w:t`` -> ``w:delText``, ``w:instrText`` -> ``w:delInstrText``) and
every mark deleted -- the row mark alone is invisible to LibreOffice and pandoc, and its text
would stay when rejected.  A run with nothing in it is left unwrapped (LibreOffice reads an
empty tracked run as a character).  Ids go in document order: the row's record, then each
paragraph's mark and its runs.

* :func:`mark_row_inserted`, :func:`mark_row_deleted` -- the marks, in place, on a row free of
  revisions;
* :func:`new_row` -- a row entry's new row, untracked: the reference row's properties
  (``w:tblPrEx``, ``w:trPr`` less ``w:tblHeader``, ``w:cnfStyle`` and revision records) and
  each cell's (``w:tcPr``: width, borders, shading, span), each cell's paragraphs taking the
  reference cell's first paragraph's properties and the run properties of its first run;
* :func:`row_copy` -- a row from another document made fit to insert: paragraph ids (which
  must be unique) and range markup that names the other document's bookmarks and comments
  left out;
* :func:`row_obstacle` -- why a row cannot be written so (a nested table, merged cells, a
  revision already in it, content that points into its own document's parts), or None;
* :func:`write_row` -- the writer's step for a row entry.  Untracked (``--no-track``) the row
  is added or removed outright.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from typing import Protocol

from lxml import etree

from ..match.rows import RowPlan, row_of
from ..opc.namespaces import R_NS, w
from ..read.view import DocumentView
from .formatting import Revision
from .options import WriteOptions, WriteResult
from .renumber import Renumbering
from .runs import mark_rpr, run_properties
from .splice import Splice
from .tree import remove

__all__ = [
    "mark_row_deleted", "mark_row_inserted", "new_row", "row_cells", "row_copy", "row_obstacle",
    "write_row",
]  # fmt: skip

_TR, _TC, _P, _R, _T, _TBL = w("tr"), w("tc"), w("p"), w("r"), w("t"), w("tbl")
_TR_PR, _TC_PR, _PPR, _RPR, _TBL_PR_EX = w("trPr"), w("tcPr"), w("pPr"), w("rPr"), w("tblPrEx")
_INS, _DEL = w("ins"), w("del")
_DEL_TEXT, _INSTR, _DEL_INSTR = w("delText"), w("instrText"), w("delInstrText")
# What a copied row's, cell's or paragraph's properties leave out: revision records, table
# style banding (stale in a new row), the header-row flag, section breaks, text frames (w:framePr:
# a positioned frame of its own, not a cell's paragraph).
_ROW_DROPPED = frozenset(w(t) for t in ("tblHeader", "cnfStyle", "ins", "del", "trPrChange"))
_CELL_DROPPED = frozenset(
    w(t) for t in ("cnfStyle", "cellIns", "cellDel", "cellMerge", "tcPrChange", "vMerge")
)
_PARA_DROPPED = frozenset(w(t) for t in ("cnfStyle", "sectPr", "pPrChange", "framePr"))
_MARK_DROPPED = frozenset(w(t) for t in ("ins", "del", "moveFrom", "moveTo", "rPrChange"))
_EX_DROPPED = frozenset((w("tblPrExChange"),))
_BLANK_LINES = re.compile(r"\n(?:[ \t\u00a0]*\n)+")
_W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
_PARA_IDS = (f"{{{_W14}}}paraId", f"{{{_W14}}}textId")
# CT_TrPr: the CT_TrPrBase choice first, then w:ins, w:del, w:trPrChange
_AFTER_INS, _AFTER_DEL = frozenset((_DEL, w("trPrChange"))), frozenset((w("trPrChange"),))
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


class RowWriter(Protocol):
    """What :func:`write_row` uses of the writer (:class:`redline.write.writer.Writer`)."""

    view: DocumentView
    options: WriteOptions
    result: WriteResult
    splice: Splice | None
    _numbering: Renumbering
    _rows_after: dict[etree._Element, etree._Element]

    def _revision(self, tag: str) -> etree._Element: ...

    def _new_runs(
        self, text: str, fmt: etree._Element | None, track: bool | None = None
    ) -> etree._Element: ...

    def _typeset(self, text: str, before: str) -> str: ...

    def _comment(self, first: etree._Element, last: etree._Element, rationale: str) -> None: ...


def row_cells(row: etree._Element) -> list[etree._Element]:
    """The row's cells (``w:tc`` children), left to right."""
    return [c for c in row if c.tag == _TC]


def _pruned(el: etree._Element | None, dropped: frozenset[str]) -> etree._Element | None:
    if el is None:
        return None
    out = copy.deepcopy(el)
    for child in list(out):
        if child.tag in dropped or not isinstance(child.tag, str):
            out.remove(child)
    return out


def new_row(
    row: etree._Element,
    cells: Sequence[str],
    runs: Callable[[str, etree._Element | None], etree._Element],
) -> etree._Element:
    """A new ``w:tr`` shaped as ``row`` holding ``cells`` (one text per cell; a line break
    starts a new paragraph in the cell), untracked (:func:`mark_row_inserted` marks it);
    ``runs(text, fmt)`` makes the new runs (unwrapped)."""
    out = etree.Element(_TR)  # no attributes: w14:paraId and the rsids are the row's own
    ex = _pruned(row.find(_TBL_PR_EX), _EX_DROPPED)
    if ex is not None:
        out.append(ex)
    trpr = _pruned(row.find(_TR_PR), _ROW_DROPPED)
    if trpr is not None and len(trpr):
        out.append(trpr)
    for cell, text in zip(row_cells(row), cells, strict=True):
        tc = etree.Element(_TC)
        tcpr = _pruned(cell.find(_TC_PR), _CELL_DROPPED)
        if tcpr is not None:
            tc.append(tcpr)
        first = next(cell.iter(_P), None)
        ppr = _pruned(first.find(_PPR) if first is not None else None, _PARA_DROPPED)
        if ppr is not None:
            mark = ppr.find(_RPR)
            if mark is not None:
                for child in list(mark):
                    if child.tag in _MARK_DROPPED:
                        mark.remove(child)
        fmt = next(first.iter(_R), None) if first is not None else None
        if fmt is None and ppr is not None:
            fmt = ppr.find(_RPR)  # an empty cell: its mark's properties
        lines = _lines(text)
        for line in lines:
            p = etree.SubElement(tc, _P)
            if ppr is not None:
                p.append(copy.deepcopy(ppr))
            if line:
                p.append(runs(line, fmt if fmt is None or fmt.tag == _R else _as_run(fmt)))
        out.append(tc)
    return out


def _as_run(rpr: etree._Element) -> etree._Element:
    """A run holding only (a copy of) the properties ``rpr``, for the runs to copy from."""
    run = etree.Element(_R)
    copied = run_properties(rpr)
    if copied is not None:
        run.append(copied)
    return run


def _lines(text: str) -> list[str]:
    """A cell's paragraphs: one a line, blank lines between paragraphs dropped (an empty cell
    holds one empty paragraph, as every cell ends with one)."""
    text = _BLANK_LINES.sub("\n", text.replace("\r\n", "\n").replace("\r", "\n")).strip("\n")
    return text.split("\n") if text else [""]


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


def _own_runs(p: etree._Element) -> list[etree._Element]:
    """The runs of paragraph ``p`` itself (not of a paragraph inside it, in a text box) that
    hold something (LibreOffice reads an empty tracked run as a character)."""
    return [r for r in p.iter(_R) if next(r.iterancestors(_P)) is p and any(c.tag not in _EMPTY for c in r)]


def _mark_row(tr: etree._Element, tag: str, revision: Revision) -> None:
    """``tr`` (free of revisions) marked ``tag`` (``w:ins`` / ``w:del``) whole: its row record
    (CT_TrPr: before a later revision record), then, paragraph by paragraph, its mark's record
    (CT_ParaRPr: ``w:ins`` before ``w:del``) and its runs, consecutive sibling runs in one."""
    trpr = _tr_pr(tr)
    later = _AFTER_INS if tag == _INS else _AFTER_DEL
    at = next((i for i, c in enumerate(trpr) if c.tag in later), len(trpr))
    trpr.insert(at, revision(tag))
    for p in list(tr.iter(_P)):
        rpr = mark_rpr(p)
        rpr.insert(0 if tag == _INS else sum(1 for c in rpr if c.tag == _INS), revision(tag))
        group: etree._Element | None = None
        for run in _own_runs(p):
            if tag == _DEL:
                for el in run.iter(_T, _INSTR):
                    el.tag = _DEL_TEXT if el.tag == _T else _DEL_INSTR
            if group is None or run.getprevious() is not group:
                group = revision(tag)
                run.addprevious(group)
            group.append(run)


def mark_row_inserted(tr: etree._Element, revision: Revision) -> None:
    """``tr`` (free of revisions) an inserted row: its ``w:trPr/w:ins``, every paragraph mark
    inserted, every run inserted."""
    _mark_row(tr, _INS, revision)


def mark_row_deleted(tr: etree._Element, revision: Revision) -> None:
    """``tr`` (free of revisions) a deleted row: its ``w:trPr/w:del``, every paragraph mark
    deleted, every run's text deleted."""
    _mark_row(tr, _DEL, revision)


def write_row(writer: RowWriter, edit_index: int, row_plan: RowPlan, rationale: str | None) -> None:
    """Write one row change of the plan into the writer's trees."""
    view = writer.view
    first, last = view.paragraphs[row_plan.first], view.paragraphs[row_plan.last]
    row = row_of(view, first)
    assert row is not None
    writer.result.touched_parts.add(first.part)
    table = row.getparent()
    if writer.splice is not None and table is not None:
        writer.splice.container(first.part, table)  # a row is no paragraph: its table is spliced
    numbering = writer._numbering
    track = writer.options.track
    revision = writer._revision if track else None
    comments = writer.options.comments and rationale and first.story not in ("header", "footer")
    if row_plan.action == "delete_row":
        numbering.start_range(list(range(first.index, last.index + 1)))
        numbering.deleted(first.start, last.end)
        # a comment an insert beside this row put on it (rows holding others' are not
        # deleted) goes to the nearest row that stays
        target = _standing_row(row, besides=True)
        if target is not None:
            _move_comments(row, target)
        if not track:
            table = row.getparent()
            remove(row, keep_tail=False)
            if table is not None and table.find(_TR) is None:
                remove(table, keep_tail=False)
        else:
            mark_row_deleted(row, writer._revision)
            for k in range(first.index, last.index + 1):
                numbering.deleted_mark(view.paragraphs[k].element)
            # (no comment inside the row: LibreOffice keeps a deleted row holding one, empty, when
            # the deletion is accepted -- the report says the rationale: redline.match.rows)
        numbering.end_range(edit_index)
        return
    after = row_plan.action == "insert_row_after"
    cells = [writer._typeset(c, "") if c else c for c in row_plan.cells]
    made = new_row(row, cells, lambda text, fmt: writer._new_runs(text, fmt, track=False))
    if revision is not None:
        mark_row_inserted(made, revision)
    ref = last if after else first
    numbering.start_range([ref.index])
    numbering.follow(ref)
    if after:
        beside_row = writer._rows_after.get(row, row)
        beside = _last_paragraph(beside_row) if beside_row is not row else ref.element
        beside_row.addnext(made)
        writer._rows_after[row] = made
    else:
        beside = ref.element
        row.addprevious(made)
    numbering.paragraphs_added(ref.index, list(made.iter(_P)), beside, after=after)
    if comments and rationale:
        # on the reference row's first text, which stays whatever is decided: a comment inside
        # the new row keeps it in LibreOffice, empty, when the insertion is rejected
        target = _standing_row(row)  # (a reference row deleted in the same reply: a neighbour)
        target = row if target is None else target
        para = next((p for p in target.iter(_P) if next(p.iter(_R), None) is not None), None)
        if para is not None:
            runs = list(para.iter(_R))
            writer._comment(runs[0], runs[-1], rationale)
        else:
            holders = [_holder(r, track) for r in made.iter(_R)]
            if holders:
                writer._comment(holders[0], holders[-1], rationale)
                if track:
                    _mark_references(made, writer._revision, _INS)
    numbering.end_range(edit_index)


def _standing(row: etree._Element) -> bool:
    """Is ``row`` neither an inserted nor a deleted row (it stays whatever is decided)?"""
    trpr = row.find(_TR_PR)
    return trpr is None or (trpr.find(_INS) is None and trpr.find(_DEL) is None)


def _standing_row(row: etree._Element, besides: bool = False) -> etree._Element | None:
    """``row`` when it stands (and not ``besides``), else the nearest row of its table that
    does, the rows before it first; None when none does."""
    if not besides and _standing(row):
        return row
    for other in (*row.itersiblings(_TR, preceding=True), *row.itersiblings(_TR)):
        if _standing(other):
            return other
    return None


def _move_comments(row: etree._Element, target: etree._Element) -> None:
    """The comments whose range starts in ``row`` re-anchored on ``target``'s first text:
    range start, range end and reference run."""
    starts = list(row.iter(w("commentRangeStart")))
    para = next((p for p in target.iter(_P) if next(p.iter(_R), None) is not None), None)
    if not starts or para is None:
        return
    runs = list(para.iter(_R))
    first, last = _top(runs[0], para), _top(runs[-1], para)
    for start in starts:
        cid = start.get(w("id"))
        end = next((e for e in row.iter(w("commentRangeEnd")) if e.get(w("id")) == cid), None)
        ref = next((r for r in row.iter(w("commentReference")) if r.get(w("id")) == cid), None)
        ref_run = ref.getparent() if ref is not None else None
        first.addprevious(start)
        if end is not None:
            last.addnext(end)
            if ref_run is not None:
                end.addnext(ref_run)


def _top(el: etree._Element, para: etree._Element) -> etree._Element:
    """The child of ``para`` that holds ``el``."""
    while el.getparent() is not para:
        parent = el.getparent()
        assert parent is not None
        el = parent
    return el


def _mark_references(row: etree._Element, revision: Revision, tag: str) -> None:
    """The comment reference runs in ``row`` marked as the row is (``w:ins`` / ``w:del``): an
    unmarked run keeps a rejected inserted (accepted deleted) row in LibreOffice, empty."""
    for ref in list(row.iter(w("commentReference"))):
        run = ref.getparent()
        holder = run.getparent() if run is not None else None
        if run is None or holder is None or holder.tag in (_INS, _DEL):
            continue
        wrapper = revision(tag)
        run.addprevious(wrapper)
        wrapper.append(run)


def _holder(run: etree._Element, track: bool) -> etree._Element:
    """The element a comment range goes around for a new run: its w:ins when tracked."""
    parent = run.getparent()
    return parent if track and parent is not None and parent.tag == _INS else run


def _last_paragraph(row: etree._Element) -> etree._Element:
    found = None
    for p in row.iter(_P):
        found = p
    assert found is not None
    return found
