"""Compare two versions of a document: OLD with NEW's differences as tracked changes (issue 19).

"They sent it back clean -- what did they change?"  Both documents are read as views (every
revision accepted); their paragraphs are aligned first (the same longest-matching-block diff
the writer uses for words, here over whole paragraphs), then each stretch that differs is
diffed word by word -- exactly, character for character (a changed quote or space is a change)
-- and every word-level change becomes one range for the writer (:class:`redline.match.verify.Planned`)
on OLD's view.  The same writer that writes a model's edits writes them (formatting kept, runs
split only at change boundaries, new paragraphs with their neighbour's properties, whole
paragraphs deleted with their marks), so every zip member that need not change is copied byte
for byte and only changed paragraphs are re-serialised.

A stretch of OLD's paragraphs is diffed against NEW's only within one container (a story, a
table cell); a change that would cross one is written paragraph by paragraph.  What the writer
must not touch -- a field's result, another author's tracked move -- is left as it is and
reported (``unsupported``).

Paragraphs NEW moved (:func:`redline.compare.moves.find_moves`: deleted in one place and inserted,
identical or nearly, in another) are taken out of the alignment and written as native Word
moves (:class:`redline.compare.moves.MoveWriter`) once the writer is done: the source paragraphs are
changed in place, the destination paragraphs go where a marker character -- added to the NEW
paragraph before the move (or after it) and written by the writer like any inserted text --
ends up, and the marker is taken out again.  Where a move cannot be written so, it is written
as a deletion and an insertion, as is a move the alignment finds but the move writer does not
take (a table cell's paragraph, say); those changes are flagged ``moved``.
"""

from __future__ import annotations

import bisect
import copy
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from shared_schema import ChangeStatus, Refusal

from ..collector import paused
from ..exits import EXIT_OK, EXIT_REFUSED, EXIT_UNAPPLIED
from ..match.verify import Planned
from ..opc.namespaces import REL_NUMBERING, REL_STYLES, W_NS, w
from ..opc.package import Limits, Package, PackageError
from ..opc.working import whole_root
from ..read.load import load_view
from ..read.roles import RANGE_MARKUP
from ..read.sections import place
from ..read.view import DocumentView, Paragraph, SpanFlag
from ..write.formatting import stamped
from ..write.options import WriteOptions, WriteResult
from ..write.publish import Written, write_and_check
from ..write.rows import mark_row_deleted, mark_row_inserted, row_copy
from ..write.writer import Writer, diff_opcodes, word_diff
from .formatting import (
    REWRITTEN,
    FormatChange,
    Stretch,
    diff_kept_words,
    diff_paragraph,
    format_kept,
    runs_differ,
    stretch_differs,
    unwritten,
    write_format,
    write_stretch,
)
from .moves import Move, MoveWriter, find_moves, mark_deleted, movable
from .tables import InsertedTable, Row, RowInsert, TableDiff, diff_tables

__all__ = ["Change", "CompareOptions", "CompareOutcome", "CompareReport", "compare"]

_UNTOUCHABLE = SpanFlag.FIELD_RESULT | SpanFlag.MOVE_TO
_BODY, _P, _T, _INS = w("body"), w("p"), w("t"), w("ins")
_TC, _TR, _TBL = w("tc"), w("tr"), w("tbl")
_MIN_MOVE = 20  # a paragraph shorter than this is not called moved (a blank line, "Yes")


@dataclass(frozen=True)
class CompareOptions:
    """The revision author and date (an ``xsd:dateTime``; default: now), checked as every
    write's are (:class:`redline.write.options.WriteOptions`: raises
    :class:`redline.write.options.ArgumentError`), and the limits both documents -- and the
    output, read back before it is returned -- are held to."""

    author: str = "redline"
    date: str | None = None
    limits: Limits | None = None

    def __post_init__(self) -> None:
        checked = self.write_options()
        object.__setattr__(self, "author", checked.author)
        object.__setattr__(self, "date", checked.date)

    def write_options(self) -> WriteOptions:
        """Tracked, no comments, the other document's text written character for character."""
        return WriteOptions(self.author, self.date, True, False, literal=True)


@dataclass
class Change:
    """One word-level difference: OLD's text ``old`` at view ``[start, end)`` became ``new``."""

    index: int
    kind: str  # insert | delete | replace
    old: str
    new: str
    start: int
    end: int
    paragraph: int  # OLD's view paragraph it starts in
    where: str  # that paragraph named as messages name it (sections.place)
    status: ChangeStatus = ChangeStatus.WRITTEN
    moved: bool = False  # part of a paragraph NEW moved elsewhere
    reason: str | None = None
    # kind "move" (paragraphs NEW moved, written as a Word move): where they went, as NEW's
    # view paragraph and its name; how many paragraphs; the word changes inside them
    to_paragraph: int | None = None
    to_where: str | None = None
    paragraphs: int | None = None
    inner: list[dict[str, Any]] = field(default_factory=list)
    # kinds "format" / "paragraph_format": the properties that differ (their element names)
    properties: list[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index, "kind": self.kind, "old": self.old, "new": self.new,
            "start": self.start, "end": self.end, "paragraph": self.paragraph, "where": self.where,
            "status": self.status,
        }  # fmt: skip
        if self.moved:
            out["moved"] = True
        if self.kind == "move":
            out.update(to_paragraph=self.to_paragraph, to_where=self.to_where, paragraphs=self.paragraphs)
            out["inner"] = list(self.inner)
        if self.properties is not None:
            out["properties"] = list(self.properties)
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass
class CompareReport:
    old: str
    new: str
    output: str | None
    old_revision: str | None = None
    new_revision: str | None = None
    changes: list[Change] = field(default_factory=list)
    paragraphs: dict[str, int] = field(default_factory=dict)  # inserted / deleted / changed / moved
    error: Refusal | None = None

    def to_dict(self) -> dict[str, Any]:
        written = sum(1 for c in self.changes if c.status is ChangeStatus.WRITTEN)
        return {
            "old": self.old,
            "new": self.new,
            "output": self.output,
            "old_revision": self.old_revision,
            "new_revision": self.new_revision,
            "changes": [c.to_dict() for c in self.changes],
            "totals": {
                "changes": len(self.changes),
                "written": written,
                "unsupported": len(self.changes) - written,
                "paragraphs": dict(self.paragraphs),
            },
            "error": None if self.error is None else self.error.model_dump(mode="json", exclude_none=True),
        }


@dataclass
class CompareOutcome:
    report: CompareReport
    output: bytes | None = None

    @property
    def exit_code(self) -> int:
        if self.report.error is not None:
            return EXIT_REFUSED
        return (
            EXIT_OK if all(c.status is ChangeStatus.WRITTEN for c in self.report.changes) else EXIT_UNAPPLIED
        )


def compare(
    old: bytes,
    new: bytes,
    options: CompareOptions | None = None,
    *,
    old_name: str = "old.docx",
    new_name: str = "new.docx",
    output_name: str | None = None,
) -> CompareOutcome:
    """OLD (bytes) with NEW's differences written as tracked changes, and the report of them;
    a document that cannot be read is refused (``report.error``, no output)."""
    options = options or CompareOptions()
    skip: set[tuple[int, int]] = set()  # moves that could not be written as moves
    with paused():
        loaded_new = load_view(new, options.limits)
        for _attempt in range(3):
            report = CompareReport(old_name, new_name, output_name)
            loaded_old = load_view(old, options.limits)
            if isinstance(loaded_old, Refusal):
                report.error = _which(loaded_old, old_name)
                return CompareOutcome(report)
            if isinstance(loaded_new, Refusal):
                report.error = _which(loaded_new, new_name)
                return CompareOutcome(report)
            package, old_view = loaded_old
            new_package, new_view = loaded_new
            report.old_revision, report.new_revision = old_view.revision, new_view.revision
            try:
                context = _context(package, new_package)
                plan = _plan(old_view, new_view, report, skip, context)
                written = _write(package, old_view, plan, options)
            except PackageError as exc:
                report.error = Refusal.from_error(exc)
                return CompareOutcome(report)
            except _MovesFailed as exc:
                failed = exc.moves
            else:
                if isinstance(written, Refusal):  # unloadable_output: nothing may be published
                    report.error = written
                    return CompareOutcome(report)
                if not plan.moves or plan.structural or written.view.text == new_view.text:
                    if written.view.text == new_view.text:
                        _report_unwritten(report, plan, written.view, new_view)
                    return CompareOutcome(report, written.output)
                failed = {m.key for m in plan.moves}  # (a safety net: never seen to fire)
            skip |= failed if _attempt == 0 else {(-1, -1)}  # (-1, -1): no moves at all
        raise AssertionError("moves written as deletions and insertions cannot fail")  # pragma: no cover


_UNWRITTEN = (
    "NEW formats this text otherwise and compare did not write it so (new text takes its "
    "neighbours' formatting, a new paragraph its neighbour's properties, where compare cannot pair "
    "the paragraphs it wrote with NEW's one for one)"
)


def _report_unwritten(report: CompareReport, plan: _Plan, written: DocumentView, new: DocumentView) -> None:
    """Formatting the output (every change accepted) still does not share with NEW: reported
    ``unsupported`` (its ``paragraph`` / ``where`` / offsets are NEW's), never counted written."""
    skip = {fc.new_paragraph for change, fc in plan.formats if change.status is not ChangeStatus.WRITTEN}
    if plan.stretches is not None:
        skip |= {j for c, j in plan.stretches.changes if c.status is not ChangeStatus.WRITTEN}
    for kind, j, start, end, names in unwritten(written, new, skip):
        para = new.paragraphs[j]
        text = new.text[start:end]
        report.changes.append(Change(
            index=len(report.changes), kind=kind, old=text, new=text, start=start, end=end, paragraph=j,
            where=place(para.section, para.index, para.story, para.part), status=ChangeStatus.UNSUPPORTED,
            reason=_UNWRITTEN, properties=names,
        ))  # fmt: skip


def _which(refusal: Refusal, name: str) -> Refusal:
    return refusal.model_copy(update={"message": f"{name}: {refusal.message}"})


# -------------------------------------------------------------------------------------------
# Alignment


def _container(p: Paragraph) -> tuple[int, Any]:
    """What a paragraph's neighbours must share with it to be diffed as one stretch: its story
    and the element that holds it (the body, a table cell, a text box, a content control)."""
    parent = p.element.getparent()
    return (p.story_no, parent)


@dataclass
class _Context:
    """What OLD defines that NEW's properties may name, and the differences outside the
    paragraphs compare writes no change for (a part it does not write, the body's section)."""

    styles: frozenset[str]
    lists: frozenset[str]
    unwritable: list[tuple[str, str]]  # (what, reason)
    default_style: str | None = None  # OLD's default paragraph style


@dataclass
class _RowWrite:
    """A row deleted (``row``: OLD's), a row inserted (``insert``), or a table of NEW inserted
    next to ``anchor`` (OLD's block, or an inserted table of NEW: its copy)."""

    changes: list[Change]
    row: Row | None = None
    insert: RowInsert | None = None
    table: InsertedTable | None = None
    anchor: etree._Element | None = None
    after: bool = True
    parts: set[str] = field(default_factory=set)  # the parts it changes


@dataclass
class _Plan:
    planned: list[Planned]
    moves: list[Move]  # to be written as moves
    markers: dict[str, tuple[Move, bool]]  # marker character -> its move, after (else before) it
    formats: list[tuple[Change, FormatChange]] = field(default_factory=list)
    rows: list[_RowWrite] = field(default_factory=list)
    parts: set[str] = field(default_factory=set)  # the parts formats and rows change
    stretches: _Stretches | None = None  # changed paragraphs whose properties NEW changed too

    @property
    def structural(self) -> bool:
        """Rows or tables are written, or left out: the output's text is not NEW's to check."""
        return bool(self.rows) or any(c.status is not ChangeStatus.WRITTEN for c, _ in self.formats)


@dataclass
class _Stretches:
    """Changed paragraphs whose paragraph or mark properties NEW may have changed as well,
    written once the writer is done (:func:`redline.compare.formatting.write_stretch`), into
    ``report``; ``compared``: OLD paragraphs whose properties were compared whole."""

    stretches: list[Stretch]
    old: DocumentView
    new: DocumentView
    context: _Context
    report: CompareReport
    compared: set[int] = field(default_factory=set)
    changes: list[tuple[Change, int]] = field(default_factory=list)  # each with NEW's paragraph


_STYLE_IDS = etree.XPath("/w:styles/w:style/@w:styleId", namespaces={"w": W_NS})
_DEFAULT_STYLE = etree.XPath(
    "/w:styles/w:style[@w:type='paragraph'][@w:default='1' or @w:default='true']/@w:styleId",
    namespaces={"w": W_NS},
)
_NUM_IDS = etree.XPath("/w:numbering/w:num/@w:numId", namespaces={"w": W_NS})


def _context(old: Package, new: Package) -> _Context:
    def part(pkg: Package, rel: str) -> str | None:
        found = pkg.related(pkg.main_part, rel)
        return found[0] if found else None

    def ids(pkg: Package, rel: str, xpath: etree.XPath) -> frozenset[str]:
        name = part(pkg, rel)
        if name is None:
            return frozenset()
        found = xpath(pkg.xml(name))
        return frozenset(str(v) for v in found) if isinstance(found, list) else frozenset()

    unwritable: list[tuple[str, str]] = []
    for rel, what in ((REL_STYLES, "style definitions"), (REL_NUMBERING, "list definitions")):
        a, b = part(old, rel), part(new, rel)
        xa = None if a is None else etree.tostring(old.xml(a), method="c14n")
        xb = None if b is None else etree.tostring(new.xml(b), method="c14n")
        if xa != xb:
            unwritable.append((
                f"{b or a} ({what})",
                f"NEW changed the document's {what} ({b or a}); compare writes no change to that part",
            ))  # fmt: skip
    sect_a = _body_sect(old)
    sect_b = _body_sect(new)
    if sect_a != sect_b:
        unwritable.append((
            "the document's last section",
            "NEW changed the last section's properties (page size, margins, headers); compare writes "
            "no section change",
        ))  # fmt: skip
    styles = part(old, REL_STYLES)
    default = _DEFAULT_STYLE(old.xml(styles)) if styles is not None else []
    return _Context(
        ids(old, REL_STYLES, _STYLE_IDS), ids(old, REL_NUMBERING, _NUM_IDS), unwritable,
        str(default[0]) if isinstance(default, list) and default else None,
    )  # fmt: skip


def _body_sect(pkg: Package) -> bytes | None:
    body = pkg.xml(pkg.main_part).find(_BODY)
    sect = body.find(w("sectPr")) if body is not None else None
    return None if sect is None else etree.tostring(sect, method="c14n")


def _depth_tag(p: Paragraph) -> str:
    """What a paragraph's text is aligned with besides its text: how deep in tables it lies
    (a paragraph NEW put into a table, or took out of one, is not the same paragraph)."""
    n = sum(1 for el in p.element.iterancestors(_TC))
    return "\x00" * n


def _plan(
    old: DocumentView, new: DocumentView, report: CompareReport, skip: set[tuple[int, int]], context: _Context
) -> _Plan:
    a_all = [old.paragraph_text(p) for p in old.paragraphs]
    b_all = [new.paragraph_text(p) for p in new.paragraphs]
    tables = diff_tables(old, new, context.styles, context.lists)
    out_old, out_new = tables.excluded_old, tables.excluded_new
    tag_a = [_depth_tag(p) for p in old.paragraphs]
    tag_b = [_depth_tag(p) for p in new.paragraphs]
    first = diff_opcodes(
        [tag_a[i] + t if i not in out_old else f"\x01{i}" for i, t in enumerate(a_all)],
        [tag_b[j] + t if j not in out_new else f"\x02{j}" for j, t in enumerate(b_all)],
    )
    moves = [] if (-1, -1) in skip else find_moves(
        old, new, [t if i not in out_old else "" for i, t in enumerate(a_all)],
        [t if j not in out_new else "" for j, t in enumerate(b_all)], first,
    )  # fmt: skip
    moves = [m for m in moves if m.key not in skip and _writable(old, new, m)]
    moved_old = {i for m in moves for i in m.olds} | out_old
    moved_new = {j for m in moves for j in m.news} | out_new
    keep_a = [i for i in range(len(a_all)) if i not in moved_old]
    keep_b = [j for j in range(len(b_all)) if j not in moved_new]
    a = [a_all[i] for i in keep_a]
    b_plain = [b_all[j] for j in keep_b]
    ta = [tag_a[i] + a_all[i] for i in keep_a]
    tb_plain = [tag_b[j] + b_all[j] for j in keep_b]
    # Where each move lands: a marker character (not in either text) added to the end of the
    # NEW paragraph before it, or the start of the one after; found in the tree once written.
    markers: dict[str, tuple[Move, bool]] = {}
    suffix: dict[int, str] = {}
    prefix: dict[int, str] = {}
    position = {j: k for k, j in enumerate(keep_b)}
    code = 0xF0000
    used = set(old.text) | set(new.text)
    unplaced: set[tuple[int, int]] = set()
    for m in sorted(moves, key=lambda m: m.news[0]):
        before, after = m.news[0] - 1, m.news[-1] + 1
        while before >= 0 and before in moved_new:
            before -= 1
        while after < len(b_all) and after in moved_new:
            after += 1
        while chr(code) in used:
            code += 1
        char = chr(code)
        code += 1
        if before >= 0 and _body_level(new, before):
            suffix[position[before]] = suffix.get(position[before], "") + char  # in NEW's order
            markers[char] = (m, True)
        elif after < len(b_all) and _body_level(new, after):
            prefix[position[after]] = prefix.get(position[after], "") + char
            markers[char] = (m, False)
        else:
            unplaced.add(m.key)
    if unplaced:  # nowhere to find where it lands: written as a deletion and an insertion
        return _plan(old, new, report, skip | unplaced, context)
    b = [prefix.get(k, "") + t + suffix.get(k, "") for k, t in enumerate(b_plain)]
    tb = [tag_b[j] + t for j, t in zip(keep_b, b, strict=True)]
    hunks: list[tuple[int, int, int, int]] = []  # kept OLD paragraphs [i1, i2], NEW [j1, j2], inclusive
    counts = {"inserted": 0, "deleted": 0, "changed": 0, "moved": sum(len(m.pairs) for m in moves)}
    deleted_texts: dict[str, int] = {}
    inserted_texts: dict[str, int] = {}
    for tag, i1, i2, j1, j2 in diff_opcodes(ta, tb_plain):
        for t in a[i1:i2] if tag != "equal" else ():
            deleted_texts[t] = deleted_texts.get(t, 0) + 1
        for t in b_plain[j1:j2] if tag != "equal" else ():
            inserted_texts[t] = inserted_texts.get(t, 0) + 1
        if tag == "replace":
            counts["changed"] += min(i2 - i1, j2 - j1)
            counts["inserted"] += max(0, (j2 - j1) - (i2 - i1))
            counts["deleted"] += max(0, (i2 - i1) - (j2 - j1))
        elif tag == "insert":
            counts["inserted"] += j2 - j1
        elif tag == "delete":
            counts["deleted"] += i2 - i1
    same: dict[int, int] = {}  # NEW view paragraph -> OLD's, where the alignment calls them equal
    for tag, i1, i2, j1, j2 in diff_opcodes(ta, tb):
        if tag == "equal":
            same.update((keep_b[j1 + k], keep_a[i1 + k]) for k in range(i2 - i1))
            continue
        if tag == "insert":
            if i1 > 0:
                hunks.append((i1 - 1, i1 - 1, j1 - 1, j2 - 1))  # after the paragraph before
            elif i1 < len(a):
                hunks.append((0, 0, j1, j2))  # before the first paragraph
            continue
        if tag == "delete":
            if i2 < len(a) and _container(old.paragraphs[keep_a[i2]]) == _container(
                old.paragraphs[keep_a[i1]]
            ):
                hunks.append((i1, i2, j1, j1))  # through the mark of the last, into the next
            elif i1 > 0:
                hunks.append((i1 - 1, i2 - 1, j1 - 1, j1 - 1))  # from the mark before
            else:
                hunks.append((i1, i2 - 1, j1, j1 - 1))  # everything goes: the text of each
            continue
        hunks.append((i1, i2 - 1, j1, j2 - 1))
    for i in out_old:  # rows and tables deleted or inserted whole
        deleted_texts[a_all[i]] = deleted_texts.get(a_all[i], 0) + 1
    for j in out_new:
        inserted_texts[b_all[j]] = inserted_texts.get(b_all[j], 0) + 1
    # paragraphs NEW moved that are not written as moves (a table cell's, say): reported
    moved = {t for t in deleted_texts if len(t.strip()) >= _MIN_MOVE and t in inserted_texts}
    counts["moved"] += sum(min(deleted_texts[t], inserted_texts[t]) for t in moved)
    report.paragraphs = counts
    planned: list[Planned] = []
    for m in moves:  # the report lists each move as one change
        src = [old.paragraphs[i] for i in m.olds]
        dst = [new.paragraphs[j] for j in m.news]
        para = src[0]
        change = Change(
            index=len(report.changes), kind="move", old="\n".join(a_all[i] for i in m.olds),
            new="\n".join(b_all[j] for j in m.news), start=para.start, end=src[-1].end + 1,
            paragraph=para.index, where=place(para.section, para.index, para.story, para.part),
            moved=True, to_paragraph=dst[0].index,
            to_where=place(dst[0].section, dst[0].index, dst[0].story, dst[0].part),
            paragraphs=len(m.pairs),
            inner=[
                {"kind": kind, "old": a_all[pair.old][s:e], "new": text, "paragraph": pair.old}
                for pair in m.pairs for kind, s, e, text in pair.ops
            ],
        )  # fmt: skip
        report.changes.append(change)
        # the source paragraphs change, and the one after them may take the destination: the
        # splice must know (these ranges write nothing)
        nxt = [old.paragraphs[m.olds[-1] + 1]] if m.olds[-1] + 1 < len(old.paragraphs) else []
        for p in src + nxt:
            planned.append(Planned(-1, p.start, p.start, "", exact=True))
    strip = _stripping(markers)
    shared: list[_Shared] = []
    lent = _Lent(keep_b, {k: len(t) for k, t in prefix.items()}, [len(t) for t in b_plain], shared)
    stretches: list[Stretch] = []
    for hunk in _merge(hunks):
        for i1, i2, j1, j2 in (s for h in _by_container(old, keep_a, hunk) for s in _bounded(h)):
            _plan_stretch(old, keep_a, a, b, (i1, i2, j1, j2), moved, report, planned, strip, lent)
            stretch = Stretch([keep_a[i] for i in range(i1, i2 + 1)], [keep_b[j] for j in range(j1, j2 + 1)])
            if stretch.olds and stretch.news:
                stretch.properties = stretch_differs(old, new, stretch)
                stretch.runs = runs_differ(old, new, stretch)
                if stretch.properties or stretch.runs:
                    stretches.append(stretch)
    plan = _Plan(planned, moves, markers)
    if stretches:
        plan.stretches = _Stretches(stretches, old, new, context, report)
        for stretch in stretches:  # the splice must know: the properties of each may change
            for i in stretch.olds if stretch.properties else ():
                para = old.paragraphs[i]
                planned.append(Planned(-1, para.start, para.start, "", exact=True))
                plan.parts.add(para.part)
    compared = _plan_structure(old, new, tables, same, context, report, plan)
    if plan.stretches is not None:
        plan.stretches.compared = compared
    # a row whose paragraph NEW took out of a table (or put into one): moved, as its other side is
    for rw in plan.rows:
        if rw.row is not None:
            texts = [[a_all[i] for i in rw.row.paras]]
        elif rw.insert is not None:
            texts = [[b_all[j] for j in rw.insert.row.paras]]
        else:
            texts = [[b_all[j] for j in row.paras] for row in rw.table.table.rows] if rw.table else []
        for change, row_texts in zip(rw.changes, texts, strict=False):
            if any(t in moved for t in row_texts):
                change.moved = True
    _plan_kept_words(old, new, shared, compared, context, report, plan)
    return plan


_Shared = tuple[int, int, int, int, int]  # OLD paragraph, NEW paragraph, offset in each, length


@dataclass
class _Lent:
    """What a stretch's word diff needs of NEW to say which text the two versions share:
    NEW's kept paragraphs, the length of the move markers before each and of its text, and
    where the shared stretches go."""

    keep_b: list[int]
    prefix: dict[int, int]
    lengths: list[int]
    shared: list[_Shared]


def _plan_kept_words(
    old: DocumentView,
    new: DocumentView,
    shared: list[_Shared],
    compared: set[int],
    context: _Context,
    report: CompareReport,
    plan: _Plan,
) -> None:
    """Formatting NEW changed on words a changed paragraph kept: run property changes beside
    the text's insertions and deletions (OLD paragraphs compared whole are left out)."""
    spans: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for i, j, at, bt, n in shared:
        if i not in compared:
            spans.setdefault((i, j), []).append((at, bt, n))
    for (i, j), pairs in spans.items():
        p, q = old.paragraphs[i], new.paragraphs[j]
        for fc in diff_kept_words(old, new, p, q, pairs, context.styles, context.lists):
            text = old.text[fc.start : fc.end]
            change = _change(
                report, old, fc.kind, i, old=text, new=text, start=fc.start, end=fc.end,
                properties=fc.properties,
            )  # fmt: skip
            if fc.reason is not None:
                change.status, change.reason = ChangeStatus.UNSUPPORTED, fc.reason
            plan.formats.append((change, fc))


def _change(report: CompareReport, view: DocumentView, kind: str, at: int, **kw: Any) -> Change:
    para = view.paragraphs[at] if view.paragraphs else None
    where = place(para.section, para.index, para.story, para.part) if para is not None else "the document"
    start = kw.pop("start", para.start if para is not None else 0)
    change = Change(index=len(report.changes), kind=kind, old=kw.pop("old", ""), new=kw.pop("new", ""),
                    start=start, end=kw.pop("end", start), paragraph=at, where=where, **kw)  # fmt: skip
    report.changes.append(change)
    return change


_MOVED_FORMAT = "NEW moved this text and changed its formatting; the move keeps OLD's"


def _plan_structure(
    old: DocumentView,
    new: DocumentView,
    tables: TableDiff,
    same: dict[int, int],
    context: _Context,
    report: CompareReport,
    plan: _Plan,
) -> set[int]:
    """Formatting NEW changed on the paragraphs it kept, rows and tables it inserted or
    deleted, and what compare cannot write: into the report and ``plan``.  Returns the OLD
    paragraphs whose formatting it compared whole."""
    compared: set[int] = set()
    unsupported = ChangeStatus.UNSUPPORTED
    touched: set[int] = set()  # OLD paragraphs the step changes (the splice must know)
    for what, reason in context.unwritable:
        _change(report, old, "part", 0, old=what, new=what, status=unsupported, reason=reason)
    # a paragraph the word diff of a stretch rewrites (lent as context, paired otherwise than the
    # alignment pairs it) is not compared: only zero-width insertions at its ends leave it whole
    cuts = sorted((pl.start, pl.end) for pl in plan.planned if pl.edit_index >= 0)
    starts = [c[0] for c in cuts]
    for j, i in sorted(same.items(), key=lambda ji: ji[1]):
        p, q = old.paragraphs[i], new.paragraphs[j]
        k = bisect.bisect_left(starts, p.start)
        while k > 0 and cuts[k - 1][1] > p.start:
            k -= 1
        near = cuts[k : bisect.bisect_right(starts, p.end)]
        if any(s < p.end and (e > p.start or s > p.start) for s, e in near):
            continue
        compared.add(i)
        for fc in diff_paragraph(old, new, p, q, context.styles, context.lists, context.default_style):
            text = old.text[fc.start : fc.end]
            change = _change(
                report, old, fc.kind, i, old=text, new=text, start=fc.start, end=fc.end,
                properties=fc.properties,
            )  # fmt: skip
            if fc.reason is not None:
                change.status, change.reason = unsupported, fc.reason
            else:
                touched.add(i)
            plan.formats.append((change, fc))
    for m in plan.moves:  # a move writes OLD's paragraphs at the destination: NEW's formatting is not
        for pair in m.pairs:
            if pair.ops:
                continue
            fcs = diff_paragraph(old, new, old.paragraphs[pair.old], new.paragraphs[pair.new], context.styles,
                                 context.lists)  # fmt: skip
            for fc in fcs:
                text = old.text[fc.start : fc.end]
                _change(report, old, fc.kind, pair.old, old=text, new=text, start=fc.start, end=fc.end,
                        properties=fc.properties, status=unsupported, moved=True,
                        reason=_MOVED_FORMAT)  # fmt: skip
    for row in tables.deleted:
        first, last = old.paragraphs[row.paras[0]], old.paragraphs[row.paras[-1]]
        change = _change(
            report, old, "row_delete", first.index, old=row.text, start=first.start, end=last.end
        )
        plan.rows.append(_RowWrite([change], row=row, parts={first.part}))
        touched.add(first.index)
    for ins in tables.inserted:
        change = _change(report, old, "row_insert", ins.at, new=ins.row.text)
        plan.rows.append(_RowWrite([change], insert=ins, parts={old.paragraphs[ins.at].part}))
        touched.add(ins.at)
    new_index = {p.element: p.index for p in new.paragraphs} if tables.tables else {}
    first_para: dict[etree._Element, int] = {}
    if tables.tables:
        for p in old.paragraphs:
            for tbl in p.element.iterancestors(_TBL):
                first_para.setdefault(tbl, p.index)
    inserted_tables = {t.table.element for t in tables.tables}
    for t in tables.tables:
        anchor: etree._Element | None = None
        after = True
        at = 0
        for block, after in ((t.before, True), (t.after, False)):
            if block is None:
                continue
            if block.tag == _P and new_index.get(block) in same:
                at = same[new_index[block]]
                anchor = old.paragraphs[at].element
            elif block.tag == _TBL and block in tables.paired:
                anchor = tables.paired[block]
                at = first_para.get(anchor, 0)
            elif block.tag == _TBL and block in inserted_tables and after:
                anchor = block  # after the copy of an inserted table written before it
            if anchor is not None:
                break
        changes = [
            _change(report, old, "row_insert", at, new=row.text,
                    **({} if anchor is not None else {"status": unsupported, "reason": (
                        "a table NEW added between paragraphs that also changed: where it goes in OLD is "
                        "not known")}))
            for row in t.table.rows
        ]  # fmt: skip
        if anchor is not None:
            plan.rows.append(_RowWrite(changes, table=t, anchor=anchor, after=after,
                                       parts={old.paragraphs[at].part}))  # fmt: skip
            touched.add(at)
    for u in tables.unwritable:
        at = u.old[0] if u.old else 0
        text_a = "\n".join(old.paragraph_text(old.paragraphs[i]) for i in u.old)
        text_b = "\n".join(new.paragraph_text(new.paragraphs[j]) for j in u.new)
        start = old.paragraphs[at].start if old.paragraphs else 0
        end = old.paragraphs[u.old[-1]].end if u.old else start
        _change(report, old, "table", at, old=text_a, new=text_b, start=start, end=end, status=unsupported,
                reason=u.reason)  # fmt: skip
    for i in sorted(touched):
        para = old.paragraphs[i]
        plan.planned.append(Planned(-1, para.start, para.start, "", exact=True))
        plan.parts.add(para.part)
    return compared


def _write_structure(plan: _Plan, writer: Writer) -> None:
    """The formatting changes and tracked rows of ``plan``, into the trees the writer wrote."""
    author, stamp = writer.options.author, writer.stamp

    def revision(tag: str) -> etree._Element:
        el = etree.Element(tag)
        el.set(w("id"), writer.new_id())
        el.set(w("author"), author)
        el.set(w("date"), stamp)
        return el

    by_format = {id(fc): change for change, fc in plan.formats}

    def not_written(fc: FormatChange, reason: str) -> None:
        change = by_format[id(fc)]
        change.status, change.reason = ChangeStatus.UNSUPPORTED, reason

    writable = [fc for change, fc in plan.formats if change.status is ChangeStatus.WRITTEN]
    write_format(writable, revision, not_written)
    if plan.stretches is not None:
        _write_kept(plan, plan.stretches, writer)
    after_anchor: dict[etree._Element, etree._Element] = {}
    copies: dict[etree._Element, etree._Element] = {}  # NEW's table -> its copy in OLD
    for rw in plan.rows:
        if rw.row is not None:
            mark_row_deleted(rw.row.element, revision)
            continue
        if rw.insert is not None:
            made = row_copy(rw.insert.row.element)
            mark_row_inserted(made, revision)
            _put(made, rw.insert.anchor, rw.insert.after, after_anchor)
            continue
        if rw.table is None or rw.anchor is None:
            continue
        made = row_copy(rw.table.table.element)
        for tr in made.iter(_TR):
            mark_row_inserted(tr, revision)
        anchor = copies.get(rw.anchor, rw.anchor)
        _put(made, anchor, rw.after, after_anchor)
        copies[rw.table.table.element] = made


def _put(
    el: etree._Element,
    anchor: etree._Element,
    after: bool,
    after_anchor: dict[etree._Element, etree._Element],
) -> None:
    """``el`` just after ``anchor`` (after what was put after it already) or just before it."""
    if after:
        last = after_anchor.get(anchor, anchor)
        last.addnext(el)
        after_anchor[anchor] = el
    else:
        anchor.addprevious(el)


def _writable(old: DocumentView, new: DocumentView, m: Move) -> bool:
    """Can the move be written as one: plain body paragraphs, adjacent in OLD's body?"""
    paras = [old.paragraphs[i] for i in m.olds]
    if any(movable(old, p) is None for p in paras):
        return False
    for p, q in itertools.pairwise(paras):
        nxt = p.element.getnext()
        while nxt is not None and nxt.tag in RANGE_MARKUP:
            nxt = nxt.getnext()
        if nxt is not q.element:
            return False
    return all(_body_level(new, j) for j in m.news)


def _body_level(view: DocumentView, index: int) -> bool:
    p = view.paragraphs[index]
    parent = p.element.getparent() if p.story == "body" else None
    return parent is not None and parent.tag == _BODY


def _merge(hunks: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Hunks that share an OLD paragraph (one lent as context to an insertion) become one."""
    out: list[tuple[int, int, int, int]] = []
    for h in sorted(hunks):
        if out and h[0] <= out[-1][1]:
            p = out[-1]
            out[-1] = (p[0], max(p[1], h[1]), min(p[2], h[2]), max(p[3], h[3]))
        else:
            out.append(h)
    return out


def _by_container(
    old: DocumentView, keep: list[int], hunk: tuple[int, int, int, int]
) -> list[tuple[int, int, int, int]]:
    """The hunk (in kept paragraphs) as stretches that each lie in one container: itself when
    it does; else its OLD paragraphs grouped by container, NEW's paragraphs shared out in order
    (one each, the rest to the last group)."""
    i1, i2, j1, j2 = hunk
    keys = [_container(old.paragraphs[keep[i]]) for i in range(i1, i2 + 1)]
    if all(k == keys[0] for k in keys):
        return [hunk]
    groups: list[list[int]] = []
    for offset, k in enumerate(keys):
        if groups and keys[groups[-1][0] - i1] == k:
            groups[-1].append(i1 + offset)
        else:
            groups.append([i1 + offset])
    out: list[tuple[int, int, int, int]] = []
    j = j1
    for n, g in enumerate(groups):
        last_group = n == len(groups) - 1
        take = (j2 - j + 1) if last_group else min(len(g), j2 - j + 1)
        out.append((g[0], g[-1], j, j + take - 1))
        j += take
    return out


_UNTOUCHABLE_REASON = (
    "inside a field's result or another author's tracked move, which the writer leaves as it is"
)
_JOINT = 50  # paragraphs: a longer stretch is diffed paragraph by paragraph


def _bounded(hunk: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    """A long stretch as stretches of one paragraph each (the k-th of OLD against the k-th of
    NEW), the last taking what is left: the word diff of one stretch costs up to the product
    of its two lengths, so a document whose every paragraph changed stays linear."""
    i1, i2, j1, j2 = hunk
    n, m = i2 - i1 + 1, j2 - j1 + 1
    if max(n, m) <= _JOINT or min(n, m) < 2:
        return [hunk]
    k = min(n, m) - 1
    return [(i1 + x, i1 + x, j1 + x, j1 + x) for x in range(k)] + [(i1 + k, i2, j1 + k, j2)]


def _plan_stretch(
    old: DocumentView,
    keep: list[int],
    a: list[str],
    b: list[str],
    hunk: tuple[int, int, int, int],
    moved: set[str],
    report: CompareReport,
    planned: list[Planned],
    strip: dict[int, None],
    lent: _Lent | None = None,
) -> None:
    """Word-diff kept OLD paragraphs ``[i1, i2]`` against NEW's ``[j1, j2]``.  Paragraphs moved
    away may lie between two kept ones: a change that spans one is cut in two there (the text
    up to the kept paragraph's mark, and from the next kept one's start).  The text the two
    share (the diff's equal stretches, paragraph by paragraph) goes to ``lent.shared``."""
    i1, i2, j1, j2 = hunk
    if i2 < i1:
        return
    paras = [old.paragraphs[keep[i]] for i in range(i1, i2 + 1)]
    at: list[int] = []  # where each kept paragraph starts in the stretch
    pos = 0
    for p in paras:
        at.append(pos)
        pos += p.end - p.start + 1
    stretch = "\n".join(a[i1 : i2 + 1])
    replacement = "\n".join(b[j1 : j2 + 1])
    ops = word_diff(stretch, replacement, literal=True)
    if lent is not None:
        _share(ops, a, b, hunk, keep, lent, len(stretch))
    for kind, s, e, text in ops:
        pieces = _pieces(paras, at, s, e)
        shown = text.translate(strip) if strip else text
        change: Change | None = None
        if shown or e > s:
            o0, o1 = pieces[0][0], pieces[-1][1]
            para = old.paragraph_at(o0)
            change = Change(
                index=len(report.changes), kind=kind, old=stretch[s:e], new=shown, start=o0, end=o1,
                paragraph=para.index, where=place(para.section, para.index, para.story, para.part),
            )  # fmt: skip
            if (e > s and any(t in moved for t in stretch[s:e].split("\n"))) or any(
                t in moved for t in shown.split("\n")
            ):
                change.moved = True
            if any(_touches_flagged(old, x, y) for x, y in pieces):
                change.status = ChangeStatus.UNSUPPORTED
                change.reason = _UNTOUCHABLE_REASON
            report.changes.append(change)
        elif any(_touches_flagged(old, x, y) for x, y in pieces):
            continue  # a marker alone where nothing can go: its move is not found, written otherwise
        if change is not None and change.status is not ChangeStatus.WRITTEN:
            continue
        index = change.index if change is not None else -1
        for n, (x, y) in enumerate(pieces):
            planned.append(Planned(index, x, y, text if n == len(pieces) - 1 else "", exact=True))


def _share(
    ops: list[tuple[str, int, int, str]],
    a: list[str],
    b: list[str],
    hunk: tuple[int, int, int, int],
    keep: list[int],
    lent: _Lent,
    size: int,
) -> None:
    """The stretches the word diff ``ops`` leaves equal, as (OLD paragraph, NEW paragraph,
    offset in each paragraph's text, length), move markers left out."""
    i1, i2, j1, j2 = hunk
    if i2 < i1 or j2 < j1:
        return
    a_at = list(itertools.accumulate((len(t) + 1 for t in a[i1:i2]), initial=0))
    b_at = list(itertools.accumulate((len(t) + 1 for t in b[j1:j2]), initial=0))
    equal: list[tuple[int, int, int]] = []
    prev = delta = 0
    for _kind, s, e, text in ops:
        if s > prev:
            equal.append((prev, prev + delta, s - prev))
        prev, delta = e, delta + len(text) - (e - s)
    if size > prev:
        equal.append((prev, prev + delta, size - prev))
    for lo, blo, n in equal:
        x, end = lo, lo + n
        while x < end:
            ka = bisect.bisect_right(a_at, x) - 1
            kb = bisect.bisect_right(b_at, blo + (x - lo)) - 1
            oa, ob = x - a_at[ka], blo + (x - lo) - b_at[kb]
            step = min(end - x, len(a[i1 + ka]) - oa, len(b[j1 + kb]) - ob)
            if step <= 0:
                x += 1  # a paragraph mark both share
                continue
            k = j1 + kb
            pre = lent.prefix.get(k, 0)
            t0, t1 = max(ob, pre), min(ob + step, pre + lent.lengths[k])
            if t0 < t1:
                lent.shared.append((keep[i1 + ka], lent.keep_b[k], oa + (t0 - ob), t0 - pre, t1 - t0))
            x += step


def _pieces(paras: list[Paragraph], at: list[int], s: int, e: int) -> list[tuple[int, int]]:
    """Stretch range ``[s, e)`` as OLD view ranges: one, or one per run of consecutive
    paragraphs where moved paragraphs lie between kept ones."""

    def where(x: int) -> tuple[int, int]:
        k = bisect.bisect_right(at, x) - 1
        return k, paras[k].start + (x - at[k])

    ks, os_ = where(s)
    if e == s:
        return [(os_, os_)]
    ke, oe = where(e)
    if e == at[ke] and ke > 0:  # the range ends with the mark before paragraph ke
        ke, oe = ke - 1, paras[ke - 1].end + 1
    out: list[tuple[int, int]] = []
    lo = os_
    for k in range(ks, ke):
        if paras[k + 1].start != paras[k].end + 1:  # a moved paragraph between
            out.append((lo, paras[k].end + 1))
            lo = paras[k + 1].start
    out.append((lo, oe))
    return out


def _stripping(markers: dict[str, Any]) -> dict[int, None]:
    """The translation table that takes the marker characters out of a text."""
    return dict.fromkeys(map(ord, markers))


def _touches_flagged(view: DocumentView, start: int, end: int) -> bool:
    """Does a change at ``[start, end)`` touch a flagged span (for an insertion: is it inside
    one, between two flagged characters)?"""
    if end > start:
        return bool(view.flags_between(start, end) & _UNTOUCHABLE)
    if start == 0 or start >= len(view.text):
        return False
    return bool(
        view.flags_between(start - 1, start) & _UNTOUCHABLE
        and view.flags_between(start, start + 1) & _UNTOUCHABLE
    )


# -------------------------------------------------------------------------------------------


class _MovesFailed(Exception):
    """The moves whose marker is not where it must be: none is written as a move then."""

    def __init__(self, moves: set[tuple[int, int]]) -> None:
        super().__init__(f"{len(moves)} moves could not be written as moves")
        self.moves = moves


def _write(package: Package, view: DocumentView, plan: _Plan, options: CompareOptions) -> Written | Refusal:
    """The output through the one write tail (:func:`redline.write.publish.write_and_check`:
    read back against the limits OLD was read with), the moves written once the writer is done;
    raises :class:`_MovesFailed` when a move cannot be written as one."""
    sources = {m.key: [copy.deepcopy(view.paragraphs[i].element) for i in m.olds] for m in plan.moves}

    def moves(writer: Writer, result: WriteResult) -> set[str]:
        parts: set[str] = set()
        if plan.stretches is not None:  # before the moves put paragraphs among them
            _write_stretches(plan.stretches, view, writer)
            parts |= plan.parts
        if plan.moves:
            failed = _write_moves(view, plan, sources, writer.new_id, writer.stamp, writer.options.author)
            if failed:
                raise _MovesFailed(failed)
            parts.add(view.paragraphs[plan.moves[0].olds[0]].part)
        if plan.formats or plan.rows:
            _write_structure(plan, writer)
            parts |= plan.parts
        if plan.rows and writer.splice is not None:
            # rows are not paragraphs the splice can place: the part is serialised whole
            for part in {old_part for rw in plan.rows for old_part in rw.parts}:
                writer.splice.whole(part)
        return parts

    return write_and_check(
        package, view, plan.planned, options.write_options(), limits=options.limits, labels=False,
        # (no step: the writer counts the tags it adds)
        step=moves if plan.moves or plan.formats or plan.rows or plan.stretches else None,
    )  # fmt: skip


def _write_stretches(work: _Stretches, view: DocumentView, writer: Writer) -> None:
    """NEW's paragraph and mark properties on the paragraphs the writer made of each changed
    stretch, reported as format changes (written, or unsupported and why)."""
    originals = {p.element for p in view.paragraphs}
    revision = stamped(writer.new_id, writer.options.author, writer.stamp)
    ctx = work.context
    report = work.report
    for stretch in work.stretches:
        made = write_stretch(
            view, work.new, stretch, originals, work.compared, ctx.styles, ctx.lists, revision, writer.made,
            ctx.default_style,
        )  # fmt: skip
        for sc in made:
            para, q = view.paragraphs[sc.paragraph], work.new.paragraphs[sc.new_paragraph]
            mark = sc.kind == "format"
            start = para.end if mark else para.start
            change = _change(
                report, view, sc.kind, sc.paragraph, old="" if mark else view.paragraph_text(para),
                new="" if mark else work.new.paragraph_text(q), start=start, end=para.end,
                properties=sc.properties,
            )  # fmt: skip
            if sc.reason is not None:
                change.status, change.reason = ChangeStatus.UNSUPPORTED, sc.reason
            work.changes.append((change, sc.new_paragraph))


def _write_kept(plan: _Plan, work: _Stretches, writer: Writer) -> None:
    """The kept words of changed paragraphs that :func:`write_format` could not place (the
    writer rewrote their runs), formatted as NEW's; a change it gave up on is written after
    all when its paragraph now reads as NEW's, every character formatted alike."""
    by_new = {j: el for stretch in work.stretches for el, j in stretch.paragraphs}
    failed: dict[int, list[Change]] = {}
    for change, fc in plan.formats:
        if fc.new_paragraph in by_new and change.reason == REWRITTEN and fc.kind == "format" and not fc.mark:
            failed.setdefault(fc.new_paragraph, []).append(change)
    revision = stamped(writer.new_id, writer.options.author, writer.stamp)
    ctx = work.context
    for j, changes in failed.items():
        if format_kept(
            by_new[j], work.new, work.new.paragraphs[j], writer.made, ctx.styles, ctx.lists, revision
        ):
            for change in changes:
                change.status, change.reason = ChangeStatus.WRITTEN, None


def _write_moves(
    view: DocumentView,
    plan: _Plan,
    sources: dict[tuple[int, int], list[etree._Element]],
    new_id: Callable[[], str],
    stamp: str,
    author: str,
) -> set[tuple[int, int]]:
    """Find where each move lands (its marker, in the text the writer inserted), take the
    markers out, and write the moves; the moves whose marker is not where it must be."""
    found: dict[str, etree._Element] = {}
    root = whole_root(view.paragraphs[plan.moves[0].olds[0]].element)
    chars = set(plan.markers)
    strip = _stripping(plan.markers)
    for t in root.iter(_T):
        text = t.text or ""
        if chars.isdisjoint(text):
            continue
        p: etree._Element | None = t
        while p is not None and p.tag != _P:
            p = p.getparent()
        for c in text:
            if c in chars and p is not None:
                found[c] = p
        t.text = text.translate(strip)
        _drop_empty(t)
    failed = {m.key for c, (m, _) in plan.markers.items() if c not in found or found[c].getparent() is None}
    if failed:
        return failed
    sources_in_tree = {view.paragraphs[i].element for m in plan.moves for i in m.olds}
    names = {el.get(w("name")) or "" for el in root.iter(w("moveFromRangeStart"), w("moveToRangeStart"))}
    ids = iter(lambda: new_id(), None)
    writer = MoveWriter(ids, author, stamp, names)
    after_anchor: dict[etree._Element, etree._Element] = {}  # insertion point -> last put after it
    for char in sorted(plan.markers, key=lambda c: (c not in found, ord(c))):
        m, after = plan.markers[char]
        p = found[char]
        body = p.getparent()
        if body is None or body.tag != _BODY:
            return {m.key}
        if after:  # after the paragraph whose mark ends the accepted paragraph holding the marker
            while _gone(p, sources_in_tree):
                nxt = p.getnext()
                while nxt is not None and nxt.tag in RANGE_MARKUP:
                    nxt = nxt.getnext()
                if nxt is None or nxt.tag != _P:
                    return {m.key}
                p = nxt
        name = writer.name()
        made = writer.destination(
            name, list(zip(sources[m.key], [pair.ops for pair in m.pairs], strict=True))
        )
        if after:
            anchor = after_anchor.get(p, p)
            for el in made:
                anchor.addnext(el)
                anchor = el
            after_anchor[p] = anchor
        else:
            for el in made:
                p.addprevious(el)
        writer.source(
            name, [(view.paragraphs[i].element, pair.ops) for i, pair in zip(m.olds, m.pairs, strict=True)]
        )
    return set()


def _gone(p: etree._Element, sources: set[etree._Element]) -> bool:
    """Does ``p``'s mark go once every revision is accepted (deleted, or about to be moved)?"""
    return p in sources or mark_deleted(p)


def _drop_empty(t: etree._Element) -> None:
    """A text element left empty goes, and the run and the insertion that held only it."""
    if t.text:
        return
    run = t.getparent()
    if run is None:
        return
    run.remove(t)
    if any(c.tag != w("rPr") for c in run):
        return
    holder = run.getparent()
    if holder is None:
        return
    holder.remove(run)
    outer = holder.getparent()
    if holder.tag == _INS and not len(holder) and outer is not None:
        outer.remove(holder)
