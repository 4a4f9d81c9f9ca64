"""Table-row entries checked: the row each located anchor lies in, and whether a tracked row can
be written beside it (``insert_row_after`` / ``insert_row_before``) or over it (``delete_row``).

A row change is written only where every reader resolves it the same (ECMA-376 Part 1,
§17.13.5: ``w:trPr/w:ins``, ``w:trPr/w:del``, the row's contents marked as well): an anchor in
one row of a body-level table, no merged cells (``w:vMerge``; for an insert, the rows either
side dividing the columns the same), no nested table, no header row (``w:tblHeader``) deleted or
split from the top, no tracked change of anyone's inside the row, and for an insert one text per
cell (a cell spanning grid columns takes one).  Column changes are refused: no reader resolves
tracked columns (``w:cellIns`` / ``w:cellDel``) reliably.

:func:`check_rows` returns the view ranges an entry's rows occupy (for the batch's overlap
check) or the refusal; :func:`row_plan` is what the writer (:mod:`redline.write.rows`) is given.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from shared_schema import EditStatus
from shared_schema.records import EditRecord
from shared_schema.rules import COLUMN_ACTIONS

from ..opc.namespaces import w
from ..opc.working import filled
from ..read.roles import RANGE_MARKUP
from ..read.view import DocumentView, Paragraph
from ..read.walk import ancestor

__all__ = ["RowPlan", "RowRefusal", "check_rows", "column_refusal", "row_notes", "row_of", "row_plan"]

_TR, _TC, _TBL, _P = w("tr"), w("tc"), w("tbl"), w("p")
_TR_PR, _TC_PR, _TBL_PR_EX = w("trPr"), w("tcPr"), w("tblPrEx")
_AUTHOR = w("author")
_ROW_CHILDREN = frozenset((_TC, _TR_PR, _TBL_PR_EX))
# Every revision record a row may hold (ECMA-376 Part 1, §17.13.5): any of them is a decision
# pending on the row, which a row change written over or copied from it would confuse.
REVISIONS = frozenset(
    w(t)
    for t in (
        "ins", "del", "moveFrom", "moveTo", "moveFromRangeStart", "moveToRangeStart", "rPrChange",
        "pPrChange", "trPrChange", "tcPrChange", "tblPrExChange", "tblPrChange", "cellIns", "cellDel",
        "cellMerge", "numberingChange", "sectPrChange", "tblGridChange",
    )
)  # fmt: skip


@dataclass(frozen=True)
class RowPlan:
    """A row change the writer makes: ``action`` beside or over the row holding view paragraphs
    ``first`` to ``last``; ``cells``: the new row's text, one per cell of that row (insert)."""

    action: str
    first: int
    last: int
    cells: tuple[str, ...] = ()


@dataclass(frozen=True)
class RowRefusal:
    """Why a row entry is refused: its status, the message and the hint."""

    status: EditStatus
    message: str
    hint: str


def column_refusal(edit: EditRecord) -> RowRefusal | None:
    """The refusal of a column action (None for any other)."""
    if edit.action not in COLUMN_ACTIONS:
        return None
    return RowRefusal(
        EditStatus.UNSUPPORTED,
        f"{edit.action} is not written: a tracked column change (w:cellIns / w:cellDel with a "
        "changed grid) is not resolved reliably by any reader -- LibreOffice keeps the column "
        "with empty cells when it is rejected, pandoc reads only the cells' text.",
        "Insert or delete rows (insert_row_after, insert_row_before, delete_row), or edit the "
        "cells' text with plain edits.",
    )


def row_notes(edit: EditRecord, view: DocumentView | None = None) -> list[str]:
    """What the report says of an applied row entry beyond its status: a deleted row's
    rationale, which no comment holds (LibreOffice keeps a deleted row holding a comment, empty,
    when the deletion is accepted); an inserted row's comment is on the reference row; in a
    verify-only view (``--stream``), that the row was located but its table not checked."""
    if view is not None and view.paragraphs and _verify_only(view.paragraphs[0]):
        return [
            "Located only: the streamed view holds no table structure, so the row (a table row? "
            "merged cells? the cell count?) is checked when the reply is applied, or verified "
            "without --stream."
        ]
    if edit.action == "delete_row" and edit.rationale:
        return [
            "The rationale is not attached as a comment inside the deleted row (LibreOffice would "
            "keep the row, empty, on accepting it). It is recorded here instead: "
            f"\u201c{edit.rationale}\u201d"
        ]
    if edit.action in ("insert_row_after", "insert_row_before") and edit.rationale:
        return ["The rationale is a comment on the row the new row is beside, not inside the new row."]
    return []


def _verify_only(para: Paragraph) -> bool:
    try:
        para.element  # noqa: B018 - (a verify-only view raises here)
    except TypeError:
        return True
    return False


def row_of(view: DocumentView, para: Paragraph) -> etree._Element | None:
    """The table row (``w:tr``) paragraph ``para`` lies in, innermost, or None; its table
    parsed whole (rows are read and written whole: :func:`redline.opc.working.filled`)."""
    row = ancestor(para.element, _TR)
    table = row.getparent() if row is not None else None
    if table is not None:
        filled(table)
    return row


def _row_paragraphs(view: DocumentView, para: Paragraph, row: etree._Element) -> tuple[int, int]:
    """The first and last view paragraphs of ``row`` (which holds ``para``)."""
    paragraphs = view.paragraphs
    lo = hi = para.index
    while lo > 0 and paragraphs[lo - 1].story_no == para.story_no and row_of(view, paragraphs[lo - 1]) is row:
        lo -= 1
    while (
        hi + 1 < len(paragraphs)
        and paragraphs[hi + 1].story_no == para.story_no
        and row_of(view, paragraphs[hi + 1]) is row
    ):
        hi += 1
    return lo, hi


def check_rows(
    view: DocumentView, edit: EditRecord, ranges: list[tuple[int, int]]
) -> list[tuple[int, int]] | RowRefusal:
    """The view ranges ``edit``'s rows stand for (one per row the anchor's ``ranges`` lie in:
    a delete, the row's text; an insert, the empty point at the row's end or start), or the
    refusal."""
    out: list[tuple[int, int]] = []
    for s, e in ranges:
        first, last = view.paragraph_at(s), view.paragraph_at(max(s, e - 1))
        try:
            row, other = row_of(view, first), row_of(view, last)
        except TypeError:  # a verify-only view (--stream) holds no trees: located, not checked
            span = (first.start, last.end) if edit.action == "delete_row" else None
            at = last.end if edit.action == "insert_row_after" else first.start
            found = span or (at, at)
            if found not in out:
                out.append(found)
            continue
        if row is None or other is None:
            return RowRefusal(
                EditStatus.UNSUPPORTED,
                f"The anchor is not in a table, so {edit.action} has no row to act on.",
                "Quote text from a cell of the row; for paragraphs outside tables use insert_after "
                "/ insert_before, or a plain edit.",
            )
        if row is not other:
            return RowRefusal(
                EditStatus.UNSUPPORTED,
                "The anchor runs across table rows; a row entry acts on the one row it quotes.",
                "Quote text from one cell of the row you mean.",
            )
        refusal = _structure(edit, row)
        if refusal is not None:
            return refusal
        lo, hi = _row_paragraphs(view, first, row)
        start, end = view.paragraphs[lo].start, view.paragraphs[hi].end
        if edit.action == "delete_row":
            found = (start, end)
        else:
            at = end if edit.action == "insert_row_after" else start
            found = (at, at)
        if found not in out:  # two occurrences in one row: one change of that row
            out.append(found)
    return out


def row_plan(view: DocumentView, edit: EditRecord, start: int, end: int) -> RowPlan:
    """What the writer is given for the row range (start, end) :func:`check_rows` returned."""
    assert edit.action is not None
    para = view.paragraph_at(start)  # (a separator belongs to the paragraph before: the row's last)
    try:
        row = row_of(view, para)
    except TypeError:  # a verify-only view (--stream): nothing is written from it
        row = None
    lo, hi = _row_paragraphs(view, para, row) if row is not None else (para.index, para.index)
    return RowPlan(edit.action, lo, hi, tuple(edit.cells or ()))


def _structure(edit: EditRecord, row: etree._Element) -> RowRefusal | None:
    """Why a tracked row cannot be written beside or over ``row``, or None."""
    table = row.getparent()
    if table is None or table.tag != _TBL:
        return _unsupported(
            "The row is wrapped in a content control or custom XML inside its table; such rows are "
            "not changed as rows.",
            "Edit the cells' text with plain edits.",
        )
    if ancestor(table, _TC) is not None or next(row.iter(_TBL), None) is not None:
        return _unsupported(
            "The row is in a nested table (a table inside a table cell), or holds one; rows of "
            "nested tables are not changed as rows.",
            "Edit the cells' text with plain edits.",
        )
    cells = [c for c in row if c.tag == _TC]
    if any(isinstance(c.tag, str) and c.tag not in _ROW_CHILDREN and c.tag not in RANGE_MARKUP for c in row):
        return _unsupported(
            "A cell of the row is wrapped in a content control or custom XML; such rows are not "
            "changed as rows.",
            "Edit the cells' text with plain edits.",
        )
    if any(_merge(c) for c in cells):
        return _unsupported(
            "The row has vertically merged cells (w:vMerge): deleting or copying it would break "
            "the merge, whose content the rows below display.",
            "Edit the merged cells' text with plain edits, or ask the user to unmerge them first.",
        )
    if next(row.iter(w("txbxContent")), None) is not None:
        return _unsupported(
            "The row holds a text box; its paragraphs would be changed as a row's.",
            "Edit the cells' text with plain edits.",
        )
    revisions = [el for el in row.iter() if el.tag in REVISIONS]
    if revisions:
        authors = sorted({el.get(_AUTHOR) or "unknown" for el in revisions})
        return _unsupported(
            f"The row holds tracked changes (by {', '.join(authors)}) not yet decided; a row change "
            "over them would leave their outcome unclear.",
            "Accept or reject the row's changes first (accept / reject by revision_id), then "
            "change the row in a later reply.",
        )
    commented = next(row.iter(w("commentRangeStart"), w("commentReference")), None) is not None
    if edit.action == "delete_row" and commented:
        return _unsupported(
            "The row holds a comment: LibreOffice keeps a deleted row that holds one (empty) when "
            "the deletion is accepted, so the deletion would not read the same everywhere.",
            "Resolve the comment first (resolve by comment_id), or delete the row's text with plain edits.",
        )
    header = _header(row)
    if header and edit.action == "delete_row":
        return _unsupported(
            "The row is a header row (w:tblHeader, repeated at the top of every page); deleting "
            "it is not written as a tracked row.",
            "Edit the header's text with plain edits.",
        )
    if edit.action in ("insert_row_after", "insert_row_before"):
        siblings = [r for r in table if r.tag == _TR]
        k = siblings.index(row)
        j = k + 1 if edit.action == "insert_row_after" else k - 1
        beside = siblings[j] if 0 <= j < len(siblings) else None
        if edit.action == "insert_row_before" and header:
            return _unsupported(
                "The row is a header row (w:tblHeader): a row before it would split the header "
                "from the top of the table.",
                "Insert the row after the header row (insert_row_after) instead.",
            )
        if edit.action == "insert_row_after" and beside is not None and _header(beside):
            return _unsupported(
                "The next row is a header row too (w:tblHeader): a row here would split the header.",
                "Insert after the last header row.",
            )
        if beside is not None and _layout(beside) != _layout(row):
            return _unsupported(
                "The rows either side of the new row divide the columns differently (merged "
                "cells: w:gridSpan, w:gridBefore or w:gridAfter change between them), so which "
                "layout the new row takes is unknown.",
                "Quote a cell of the row on the other side of the new row's place, or edit the "
                "cells' text with plain edits.",
            )
        assert edit.cells is not None
        if len(edit.cells) != len(cells):
            spans = [_span(c) for c in cells]
            wide = [f"cell {n + 1} spans {s} grid columns" for n, s in enumerate(spans) if s > 1]
            shown = f" ({'; '.join(wide)}: one text each)" if wide else ""
            return RowRefusal(
                EditStatus.INVALID,
                f"The row has {len(cells)} cell{'s' if len(cells) != 1 else ''}{shown}; `cells` "
                f"gives {len(edit.cells)}.",
                f"Send exactly {len(cells)} strings in `cells`, one per cell, left to right (\"\" "
                "for an empty cell).",
            )
    return None


def _unsupported(message: str, hint: str) -> RowRefusal:
    return RowRefusal(EditStatus.UNSUPPORTED, message, hint)


def _merge(cell: etree._Element) -> bool:
    tcpr = cell.find(_TC_PR)
    return tcpr is not None and (tcpr.find(w("vMerge")) is not None or tcpr.find(w("hMerge")) is not None)


def _span(cell: etree._Element) -> int:
    tcpr = cell.find(_TC_PR)
    span = tcpr.find(w("gridSpan")) if tcpr is not None else None
    value = span.get(w("val")) if span is not None else None
    return int(value) if value is not None and value.isdigit() else 1


def _header(row: etree._Element) -> bool:
    trpr = row.find(_TR_PR)
    if trpr is None:
        return False
    header = trpr.find(w("tblHeader"))
    return header is not None and header.get(w("val"), "true") not in ("0", "false", "off")


def _layout(row: etree._Element) -> tuple[str, ...]:
    """How ``row`` divides the table's grid: its offsets and each cell's span."""
    trpr = row.find(_TR_PR)
    out: list[str] = []
    for name in ("gridBefore", "gridAfter"):
        el = trpr.find(w(name)) if trpr is not None else None
        out.append(f"{name}={el.get(w('val')) if el is not None else '0'}")
    out.extend(str(_span(c)) for c in row if c.tag == _TC)
    return tuple(out)
