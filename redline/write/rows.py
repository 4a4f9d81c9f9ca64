"""Table rows written as tracked changes: a new row beside the reference row, or the row deleted.

An inserted row (ECMA-376 Part 1, §17.13.5.17) is ``w:trPr/w:ins`` *and* its contents marked:
every run in ``w:ins``, every paragraph mark inserted (``w:pPr/w:rPr/w:ins``) -- the row mark
alone is invisible to LibreOffice and pandoc, and its text would stay when rejected.  The new
row copies the reference row's properties (``w:tblPrEx``, ``w:trPr`` less ``w:tblHeader``,
``w:cnfStyle`` and revision records) and each cell's properties (``w:tcPr``: width, borders,
shading, span), and each cell's paragraphs take the reference cell's first paragraph's
properties and the run properties of its first run.  A deleted row is ``w:trPr/w:del`` with
every run in ``w:del`` (``w:t`` -> ``w:delText``, ``w:instrText`` -> ``w:delInstrText``) and every
paragraph mark deleted.  Untracked (``--no-track``) the row is added or removed outright.

The pieces are small functions of elements (:func:`new_row`, :func:`delete_row_marks`) so a
comparison could write rows with them too; :func:`write_row` is the writer's step.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from typing import Protocol

from lxml import etree

from ..match.rows import RowPlan, row_of
from ..opc.namespaces import w
from ..read.view import DocumentView
from .options import WriteOptions, WriteResult
from .renumber import Renumbering
from .runs import mark_rpr, run_properties
from .splice import Splice
from .tree import remove

__all__ = ["delete_row_marks", "new_row", "row_cells", "write_row"]

_TR, _TC, _P, _R, _T, _TBL = w("tr"), w("tc"), w("p"), w("r"), w("t"), w("tbl")
_TR_PR, _TC_PR, _PPR, _RPR, _TBL_PR_EX = w("trPr"), w("tcPr"), w("pPr"), w("rPr"), w("tblPrEx")
_INS, _DEL = w("ins"), w("del")
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


class RowWriter(Protocol):
    """What :func:`write_row` uses of the writer (:class:`redline.write.writer.Writer`)."""

    view: DocumentView
    options: WriteOptions
    result: WriteResult
    splice: Splice | None
    _numbering: Renumbering
    _rows_after: dict[etree._Element, etree._Element]

    def _revision(self, tag: str) -> etree._Element: ...

    def _new_runs(self, text: str, fmt: etree._Element | None) -> etree._Element: ...

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
    revision: Callable[[str], etree._Element] | None,
    runs: Callable[[str, etree._Element | None], etree._Element],
) -> etree._Element:
    """A new ``w:tr`` shaped as ``row`` holding ``cells`` (one text per cell; a line break
    starts a new paragraph in the cell); ``revision(tag)`` makes our ``w:ins`` (None:
    untracked), ``runs(text, fmt)`` the new runs (wrapped in ``w:ins`` when tracked)."""
    out = etree.Element(_TR)  # no attributes: w14:paraId and the rsids are the row's own
    ex = _pruned(row.find(_TBL_PR_EX), _EX_DROPPED)
    if ex is not None:
        out.append(ex)
    trpr = _pruned(row.find(_TR_PR), _ROW_DROPPED)
    if revision is not None:
        if trpr is None:
            trpr = etree.Element(_TR_PR)
        trpr.append(revision(_INS))  # (CT_TrPr: the base properties, then w:ins)
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
            if revision is not None:
                mark_rpr(p).insert(0, revision(_INS))
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


def delete_row_marks(row: etree._Element, revision: Callable[[str], etree._Element]) -> list[etree._Element]:
    """Mark ``row`` deleted: ``w:trPr/w:del``, each stretch of sibling runs in one ``w:del``
    (their text ``w:delText``, field code ``w:delInstrText``), each paragraph mark deleted.
    Returns the ``w:del`` wrappers of the runs, in order."""
    trpr = row.find(_TR_PR)
    if trpr is None:
        trpr = etree.Element(_TR_PR)
        ex = row.find(_TBL_PR_EX)
        row.insert(row.index(ex) + 1 if ex is not None else 0, trpr)
    change = trpr.find(w("trPrChange"))
    if change is not None:
        change.addprevious(revision(_DEL))
    else:
        trpr.append(revision(_DEL))
    wrappers: list[etree._Element] = []
    for p in list(row.iter(_P)):
        last: etree._Element | None = None
        for run in [r for r in p.iter(_R) if r.getparent() is not None]:
            for t in run.iter(_T):
                t.tag = w("delText")
            for t in run.iter(w("instrText")):
                t.tag = w("delInstrText")
            if last is not None and last.getnext() is run:
                wrapper = last.getparent()
                assert wrapper is not None
            else:
                wrapper = revision(_DEL)
                run.addprevious(wrapper)
                wrappers.append(wrapper)
            wrapper.append(run)
            last = run
        rpr = mark_rpr(p)
        rpr.insert(sum(1 for c in rpr if c.tag == _INS), revision(_DEL))  # CT_ParaRPr: ins, del first
    return wrappers


def write_row(writer: RowWriter, edit_index: int, row_plan: RowPlan, rationale: str | None) -> None:
    """Write one row change of the plan into the writer's trees."""
    view = writer.view
    first, last = view.paragraphs[row_plan.first], view.paragraphs[row_plan.last]
    row = row_of(view, first)
    assert row is not None
    writer.result.touched_parts.add(first.part)
    if writer.splice is not None:
        writer.splice.whole(first.part)  # a row is no paragraph: the part is serialised whole
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
            delete_row_marks(row, writer._revision)
            for k in range(first.index, last.index + 1):
                numbering.deleted_mark(view.paragraphs[k].element)
            # (no comment inside the row: LibreOffice keeps a deleted row holding one, empty, when
            # the deletion is accepted -- the report says the rationale: redline.match.rows)
        numbering.end_range(edit_index)
        return
    after = row_plan.action == "insert_row_after"
    cells = [writer._typeset(c, "") if c else c for c in row_plan.cells]
    made = new_row(row, cells, revision, writer._new_runs)
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


def _mark_references(row: etree._Element, revision: Callable[[str], etree._Element], tag: str) -> None:
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
