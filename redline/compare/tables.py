"""The tables of two versions, aligned row by row: rows NEW inserted or deleted, whole tables
NEW added or took away, and the table differences compare cannot write.

Each story's top-level tables are paired in order (the same longest-matching-block diff the
paragraphs are aligned with, over each table's text); a pair's rows are aligned by their text
(cells joined by tabs, a cell's paragraphs by line breaks), and within a stretch of rows that
differ, rows are paired -- in order when there are as many on each side, laid out alike; else
by similarity (rapidfuzz ratio >= 50, the same cell layout) -- so a row
whose cells changed text is an edited row -- its paragraphs stay in the paragraph alignment and
get word diffs -- and every other row is inserted or deleted whole, as a tracked row
(:mod:`redline.write.rows`).  A table of NEW that pairs with none is inserted whole, one of
OLD deleted whole.

What cannot be written so is reported and left out of the alignment: a change of the table's
columns (its grid), of merged cells (``w:gridSpan``, ``w:vMerge``) or of a nested table's
shape (those tables are left as they are, text included); a row to insert or delete that holds
a nested table, merged cells, revisions already, or content pointing into its own document's
parts (notes, comments, drawings, links), or a style or list OLD does not define.  Properties
of a table, row or cell that changed while its layout did not are reported too (the text is
still written).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml import etree
from rapidfuzz import fuzz

from ..opc.namespaces import w
from ..read.view import DocumentView
from ..text.worddiff import diff_opcodes
from ..write.formatting import properties_key
from ..write.rows import row_obstacle

__all__ = ["InsertedTable", "RowInsert", "Table", "TableDiff", "Unwritable", "diff_tables", "tables_of"]

_TBL, _TR, _TC, _P = w("tbl"), w("tr"), w("tc"), w("p")
_TBL_PR, _TBL_GRID, _GRID_COL, _TR_PR, _TC_PR = w("tblPr"), w("tblGrid"), w("gridCol"), w("trPr"), w("tcPr")
_VAL = w("val")
_PAIR = 50.0  # rapidfuzz ratio at or above which two rows of a changed stretch are one edited row
_PAIR_CELLS = 400  # rows x rows above which a changed stretch is paired in order, not by similarity
# a cell's layout, not its formatting: compared separately
_LAYOUT = frozenset((w("gridSpan"), w("vMerge"), w("hMerge")))
_OFFSETS = frozenset((w("gridBefore"), w("gridAfter")))


@dataclass
class Row:
    element: etree._Element
    paras: list[int]  # view paragraph indices, in order (nested tables' included)
    text: str
    shape: tuple[object, ...]


@dataclass
class Table:
    element: etree._Element
    story: tuple[str, str]  # (story kind, part)
    rows: list[Row]

    @property
    def paras(self) -> list[int]:
        return [i for r in self.rows for i in r.paras]

    @property
    def text(self) -> str:
        return "\n".join(r.text for r in self.rows)


@dataclass
class RowInsert:
    row: Row  # NEW's
    anchor: etree._Element  # OLD's w:tr it goes next to
    after: bool
    at: int  # OLD view paragraph (the anchor row's first) the report names


@dataclass
class InsertedTable:
    table: Table  # NEW's
    before: etree._Element | None  # NEW's block just before it (a w:p or w:tbl), if any
    after: etree._Element | None  # NEW's block just after it


@dataclass
class Unwritable:
    reason: str
    old: list[int]  # OLD view paragraphs it concerns
    new: list[int]  # NEW's
    excluded: bool  # its paragraphs are left out of the alignment (nothing of it is written)


@dataclass
class TableDiff:
    deleted: list[Row] = field(default_factory=list)  # OLD rows
    inserted: list[RowInsert] = field(default_factory=list)
    tables: list[InsertedTable] = field(default_factory=list)
    paired: dict[etree._Element, etree._Element] = field(default_factory=dict)  # NEW tbl -> OLD tbl
    unwritable: list[Unwritable] = field(default_factory=list)

    @property
    def excluded_old(self) -> set[int]:
        out = {i for r in self.deleted for i in r.paras}
        out.update(i for u in self.unwritable if u.excluded for i in u.old)
        return out

    @property
    def excluded_new(self) -> set[int]:
        out = {i for r in self.inserted for i in r.row.paras}
        out.update(i for t in self.tables for i in t.table.paras)
        out.update(i for u in self.unwritable if u.excluded for i in u.new)
        return out


def tables_of(view: DocumentView) -> list[Table]:
    """The top-level tables of ``view``'s stories, in view order."""
    tables: dict[etree._Element, Table] = {}
    rows: dict[etree._Element, Row] = {}
    cells: dict[etree._Element, list[str]] = {}
    for para in view.paragraphs:
        el = para.element
        outer_tbl: etree._Element | None = None
        outer_tr: etree._Element | None = None
        outer_tc: etree._Element | None = None
        node = el.getparent()
        while node is not None:
            if node.tag == _TBL:
                outer_tbl = node
            elif node.tag == _TR:
                outer_tr = node
            elif node.tag == _TC:
                outer_tc = node
            node = node.getparent()
        if outer_tbl is None or outer_tr is None or outer_tc is None:
            continue
        table = tables.get(outer_tbl)
        if table is None:
            table = tables[outer_tbl] = Table(outer_tbl, (para.story, para.part), [])
        row = rows.get(outer_tr)
        if row is None:
            row = rows[outer_tr] = Row(outer_tr, [], "", _shape(outer_tr))
            table.rows.append(row)
        row.paras.append(para.index)
        cells.setdefault(outer_tc, []).append(view.paragraph_text(para))
    for row in rows.values():
        row.text = "\t".join("\n".join(cells.get(tc, [])) for tc in row.element.iter(_TC) if _outer(tc, row))
    return list(tables.values())


def _outer(tc: etree._Element, row: Row) -> bool:
    return tc.getparent() is row.element


def _shape(tr: etree._Element) -> tuple[object, ...]:
    """A row's layout: per cell its spans and merges, and any nested table's shape."""
    out: list[object] = []
    trpr = tr.find(_TR_PR)
    offsets = () if trpr is None else tuple((c.tag, c.get(_VAL)) for c in trpr if c.tag in _OFFSETS)
    out.append(offsets)
    for tc in tr:
        if tc.tag != _TC:
            if isinstance(tc.tag, str) and tc.tag not in (_TR_PR, w("tblPrEx")):
                out.append(("other", tc.tag))
            continue
        tcpr = tc.find(_TC_PR)
        layout = tuple((c.tag, c.get(_VAL)) for c in (tcpr if tcpr is not None else ()) if c.tag in _LAYOUT)
        nested = tuple(tuple(_shape(r) for r in t.iter(_TR)) for t in tc.iter(_TBL))
        out.append((layout, nested))
    return tuple(out)


def _grid(tbl: etree._Element) -> list[str | None]:
    grid = tbl.find(_TBL_GRID)
    return [] if grid is None else [c.get(w("w")) for c in grid.iter(_GRID_COL)]


def _style_refs(el: etree._Element) -> Iterator[tuple[str, str]]:
    for tag, kind in (("pStyle", "style"), ("rStyle", "style"), ("tblStyle", "style"), ("numId", "list")):
        for ref in el.iter(w(tag)):
            value = ref.get(_VAL)
            if value is not None:
                yield kind, value


def diff_tables(
    old: DocumentView, new: DocumentView, styles: frozenset[str], lists: frozenset[str]
) -> TableDiff:
    """The row-level differences of ``old``'s and ``new``'s tables; ``styles`` and ``lists``:
    the style ids and ``w:numId`` values OLD defines (what a row copied from NEW may use)."""
    out = TableDiff()
    a, b = tables_of(old), tables_of(new)
    sig_a = [f"{t.story}\x00{t.text}" for t in a]
    sig_b = [f"{t.story}\x00{t.text}" for t in b]
    for tag, i1, i2, j1, j2 in diff_opcodes(sig_a, sig_b):
        olds, news = a[i1:i2], b[j1:j2]
        if tag == "equal":
            for ta, tb in zip(olds, news, strict=True):
                _pair(ta, tb, out, styles, lists)
            continue
        left = list(olds)
        for tb in news:
            match = next((ta for ta in left if ta.story == tb.story), None)
            if match is None:
                _insert_table(tb, new, out, styles, lists)
                continue
            left.remove(match)
            _pair(match, tb, out, styles, lists)
        for ta in left:
            _delete_rows(ta.rows, out)
    return out


def _unusable(el: etree._Element, styles: frozenset[str], lists: frozenset[str], copied: bool) -> str | None:
    reason = row_obstacle(el, copied=copied) if el.tag == _TR else None
    if el.tag == _TBL:
        for tr in el.iter(_TR):
            reason = reason or row_obstacle(tr, copied=copied)
    if reason is not None or not copied:
        return reason
    for kind, value in _style_refs(el):
        if (kind == "style" and value not in styles) or (
            kind == "list" and value not in lists and value != "0"
        ):
            return f"it uses a {kind} ({value!r}) OLD does not define"
    return None


def _insert_table(
    tb: Table, new: DocumentView, out: TableDiff, styles: frozenset[str], lists: frozenset[str]
) -> None:
    reason = _unusable(tb.element, styles, lists, copied=True)
    if reason is not None or any(
        tr.getparent() is not tb.element for tr in tb.element.iter(_TR) if _top(tr, tb)
    ):
        out.unwritable.append(
            Unwritable(f"a table NEW added cannot be written as inserted rows: {reason or 'rows wrapped'}",
                       [], tb.paras, True)
        )  # fmt: skip
        return
    out.tables.append(InsertedTable(tb, _block(tb.element, -1), _block(tb.element, 1)))


def _top(tr: etree._Element, tb: Table) -> bool:
    node = tr.getparent()
    while node is not None and node.tag != _TBL:
        node = node.getparent()
    return node is tb.element


def _block(el: etree._Element, step: int) -> etree._Element | None:
    """The paragraph or table just before (``step`` -1) or after (1) ``el`` among its siblings."""
    node = el.getprevious() if step < 0 else el.getnext()
    while node is not None and node.tag not in (_P, _TBL):
        if isinstance(node.tag, str) and not node.tag.endswith(("bookmarkStart", "bookmarkEnd")):
            return None  # (a content control, a section's properties ...): no neighbour to go by
        node = node.getprevious() if step < 0 else node.getnext()
    return node


def _delete_rows(rows: list[Row], out: TableDiff) -> None:
    for row in rows:
        reason = row_obstacle(row.element, copied=False)
        if reason is not None:
            out.unwritable.append(Unwritable(f"a row NEW deleted cannot be written deleted: {reason}",
                                             row.paras, [], True))  # fmt: skip
        else:
            out.deleted.append(row)


_COLUMNS = (
    "the table's columns changed (tracked column changes are not reliably shown or resolved by Word and "
    "LibreOffice); the table is left as it is"
)


def _pair(ta: Table, tb: Table, out: TableDiff, styles: frozenset[str], lists: frozenset[str]) -> None:
    """Rows of a pair of tables: inserted, deleted, edited; or the table is left alone."""
    if len(_grid(ta.element)) != len(_grid(tb.element)):
        out.unwritable.append(
            Unwritable(_COLUMNS, ta.paras, tb.paras, True)
        )  # fmt: skip
        return
    out.paired[tb.element] = ta.element
    notes = len(out.unwritable)
    if properties_key(ta.element.find(_TBL_PR)) != properties_key(tb.element.find(_TBL_PR)) or _grid(
        ta.element
    ) != _grid(tb.element):
        out.unwritable.append(
            Unwritable(
                "the table's properties (style, widths, borders) changed", ta.paras[:1], tb.paras[:1], False
            )
        )
    ra, rb = ta.rows, tb.rows
    pairs: list[tuple[Row, Row]] = []
    deleted: list[Row] = []
    inserted: list[RowInsert] = []
    for tag, i1, i2, j1, j2 in diff_opcodes([r.text for r in ra], [r.text for r in rb]):
        if tag == "equal":
            pairs.extend(zip(ra[i1:i2], rb[j1:j2], strict=True))
            continue
        matched = _match_rows(ra[i1:i2], rb[j1:j2])
        ki = i1
        for x, y in matched:
            if x is None and y is not None:
                if ki < len(ra):
                    inserted.append(RowInsert(rb[y + j1], ra[ki].element, False, ra[ki].paras[0]))
                else:
                    inserted.append(RowInsert(rb[y + j1], ra[-1].element, True, ra[-1].paras[0]))
            elif y is None and x is not None:
                deleted.append(ra[x + i1])
                ki = x + i1 + 1
            elif x is not None and y is not None:
                pairs.append((ra[x + i1], rb[y + j1]))
                ki = x + i1 + 1
    for x_row, y_row in pairs:
        if x_row.shape != y_row.shape:
            out.unwritable.append(
                Unwritable("merged cells (or a nested table's shape) changed; the table is left as it is",
                           ta.paras, tb.paras, True)
            )  # fmt: skip
            del out.paired[tb.element]
            return
    for x_row, y_row in pairs:
        if _row_props(x_row.element) != _row_props(y_row.element):
            out.unwritable.append(
                Unwritable("the row's or its cells' properties (height, shading, widths) changed",
                           x_row.paras[:1], y_row.paras[:1], False)
            )  # fmt: skip
    # all or nothing: a table whose rows cannot all be written is left as it is
    gone = (row_obstacle(row.element, copied=False) for row in deleted)
    made = (_unusable(ins.row.element, styles, lists, copied=True) for ins in inserted)
    reasons = [f"a row NEW deleted cannot be written deleted: {r}" for r in gone if r]
    reasons += [f"a row NEW inserted cannot be written inserted: {r}" for r in made if r]
    if reasons:
        del out.unwritable[notes:]
        out.unwritable.append(
            Unwritable(f"{reasons[0]}; the table is left as it is", ta.paras, tb.paras, True)
        )
        del out.paired[tb.element]
        return
    out.deleted.extend(deleted)
    out.inserted.extend(inserted)


def _row_props(tr: etree._Element) -> tuple[object, ...]:
    cells = [properties_key(tc.find(_TC_PR)) for tc in tr if tc.tag == _TC]
    return (properties_key(tr.find(_TR_PR)), tuple(cells))


def _match_rows(olds: list[Row], news: list[Row]) -> list[tuple[int | None, int | None]]:
    """A changed stretch of rows as an order-keeping list of (old, new) pairs, (old, None)
    deleted and (None, new) inserted: paired by the best total similarity (rows of one
    layout, ratio >= 50); past :data:`_PAIR_CELLS`, in order while the layouts agree."""
    n, m = len(olds), len(news)
    if n == m and all(x.shape == y.shape for x, y in zip(olds, news, strict=True)):
        return [(k, k) for k in range(n)]  # as many rows, laid out alike: each edited in place
    if n * m > _PAIR_CELLS:
        out: list[tuple[int | None, int | None]] = []
        for k in range(max(n, m)):
            x = k if k < n else None
            y = k if k < m else None
            if x is not None and y is not None and olds[x].shape != news[y].shape:
                out += [(x, None), (None, y)]
            else:
                out.append((x, y))
        return out

    def score(i: int, j: int) -> float | None:
        if olds[i].shape != news[j].shape:
            return None
        r = fuzz.ratio(olds[i].text, news[j].text)
        return r if r >= _PAIR else None

    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            s = score(i, j)
            best[i][j] = max(
                best[i + 1][j], best[i][j + 1], (s + best[i + 1][j + 1]) if s is not None else -1.0
            )
    out = []
    i = j = 0
    while i < n and j < m:
        s = score(i, j)
        if s is not None and best[i][j] == s + best[i + 1][j + 1]:
            out.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            out.append((i, None))
            i += 1
        else:
            out.append((None, j))
            j += 1
    out += [(k, None) for k in range(i, n)] + [(None, k) for k in range(j, m)]
    return out
