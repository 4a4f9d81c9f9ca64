"""Paragraphs NEW moved, found and written as native Word moves (ECMA-376 Part 1, §17.13.5).

:func:`find_moves` pairs paragraphs the paragraph alignment deleted in one place with
paragraphs it inserted in another -- identical, or nearly (rapidfuzz ratio >= 90 for a
paragraph of at least :data:`MIN_NEAR_WORDS` words) -- and joins pairs consecutive on both
sides into one move.  A move must hold at least :data:`MIN_WORDS` words: a "1." or a blank
line that changed place is not called moved.

:class:`MoveWriter` writes one as Word does: the source paragraphs' runs in ``w:moveFrom``
(§17.13.5.22) and their marks ``w:pPr/w:rPr/w:moveFrom`` (§17.13.5.21) inside a
``w:moveFromRangeStart`` / ``w:moveFromRangeEnd`` pair (§17.13.5.23-24), the destination
paragraphs -- copies of the source ones, formatting and paragraph properties kept -- with their
runs in ``w:moveTo`` (§17.13.5.25) and marks ``w:moveTo`` (§17.13.5.26) inside a
``w:moveToRangeStart`` / ``w:moveToRangeEnd`` pair (§17.13.5.27-28) of the same ``w:name``.
A nearly identical move carries its inner word diff flat, never nested: words NEW dropped are
``w:del`` at the source, words NEW added are ``w:ins`` at the destination -- so rejecting every
revision restores the source and removes the destination, accepting every one removes the
source and keeps NEW's text at the destination.

Only plain body paragraphs move this way (runs of text and tabs, no field, comment, note
reference, drawing, break or existing revision, another paragraph after them in the body):
anything else NEW moved is written as a deletion and an insertion, as before.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from lxml import etree
from rapidfuzz import fuzz, process

from ..opc.namespaces import XML_SPACE, w
from ..read.roles import RANGE_MARKUP
from ..read.view import DocumentView, Paragraph
from ..text.worddiff import word_diff
from ..write.runs import fresh_ids

__all__ = ["MIN_NEAR_WORDS", "MIN_WORDS", "NEAR", "Move", "MovePair", "MoveWriter", "find_moves", "movable"]

MIN_WORDS = 5  # a move holds at least this many words (in all its paragraphs)
MIN_NEAR_WORDS = 5  # a paragraph paired by similarity (not identity) has at least this many
NEAR = 90.0  # rapidfuzz ratio (0-100) at or above which two paragraphs are "nearly identical"
_NEAR_PAIRS = 100_000  # candidate pairs above which only identical paragraphs are paired (bounded time)

_P, _R, _T, _PPR, _RPR = w("p"), w("r"), w("t"), w("pPr"), w("rPr")
_TAB, _BODY = w("tab"), w("body")
_INS, _DEL, _DEL_TEXT = w("ins"), w("del"), w("delText")
_MOVE_FROM, _MOVE_TO = w("moveFrom"), w("moveTo")
_ID, _AUTHOR, _DATE, _NAME = w("id"), w("author"), w("date"), w("name")
_W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
_PARA_IDS = (f"{{{_W14}}}paraId", f"{{{_W14}}}textId")
_REVISIONS = frozenset(w(n) for n in ("ins", "del", "moveFrom", "moveTo", "rPrChange", "pPrChange", "sectPr"))
_PARA_CHILDREN = frozenset((_PPR, _R, w("proofErr"), w("bookmarkStart"), w("bookmarkEnd")))
_RUN_CHILDREN = frozenset((_RPR, _T, _TAB, w("lastRenderedPageBreak")))


@dataclass
class MovePair:
    """OLD view paragraph ``old`` is NEW view paragraph ``new``; ``ops``: the word diff from
    OLD's text to NEW's (:func:`redline.text.worddiff.word_diff`, literal), empty when identical."""

    old: int
    new: int
    ops: list[tuple[str, int, int, str]] = field(default_factory=list)


@dataclass
class Move:
    pairs: list[MovePair]  # consecutive on both sides

    @property
    def key(self) -> tuple[int, int]:
        return self.pairs[0].old, self.pairs[0].new

    @property
    def olds(self) -> list[int]:
        return [p.old for p in self.pairs]

    @property
    def news(self) -> list[int]:
        return [p.new for p in self.pairs]


def movable(view: DocumentView, para: Paragraph) -> list[tuple[etree._Element, int, int]] | None:
    """The runs of a paragraph that can be written as a move, each with its text's offsets in
    the paragraph; None when it cannot (not a plain body paragraph, or its runs do not read as
    the view reads it)."""
    if para.story != "body" or para.field_code:
        return None
    p = para.element
    if p.getparent() is None or p.getparent().tag != _BODY:  # type: ignore[union-attr]
        return None
    nxt = p.getnext()
    while nxt is not None and nxt.tag in RANGE_MARKUP:
        nxt = nxt.getnext()
    if nxt is None or nxt.tag != _P:
        return None  # its mark must be able to join the paragraph after it
    runs: list[tuple[etree._Element, int, int]] = []
    pos = 0
    for child in p:
        if child.tag not in _PARA_CHILDREN:
            return None
        if child.tag == _PPR:
            if any(el.tag in _REVISIONS for el in child.iter()):
                return None
            continue
        if child.tag != _R:
            continue
        size = 0
        for el in child:
            if el.tag not in _RUN_CHILDREN:
                return None
            if el.tag == _T:
                size += len(el.text or "")
            elif el.tag == _TAB:
                size += 1
        runs.append((child, pos, pos + size))
        pos += size
    if "".join(_run_text(r) for r, _, _ in runs) != view.paragraph_text(para):
        return None
    return runs


def find_moves(
    old: DocumentView,
    new: DocumentView,
    a: list[str],
    b: list[str],
    opcodes: list[tuple[str, int, int, int, int]],
) -> list[Move]:
    """The moves in an alignment of OLD's paragraph texts ``a`` with NEW's ``b``."""
    hunk_of_old: dict[int, int] = {}
    hunk_of_new: dict[int, int] = {}
    for n, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            continue
        for i in range(i1, i2):
            if a[i].strip():
                hunk_of_old[i] = n
        for j in range(j1, j2):
            if b[j].strip():
                hunk_of_new[j] = n
    # A paragraph changed in place (its hunk holds a nearly identical one on the other side)
    # is an edit, not a move: those pairs are out of play first.
    for tag, i1, i2, j1, j2 in opcodes:
        if tag != "replace" or (i2 - i1) * (j2 - j1) > _NEAR_PAIRS:
            continue
        local = {j: b[j] for j in range(j1, j2) if j in hunk_of_new}
        for i in range(i1, i2):
            if i not in hunk_of_old or not local:
                continue
            found = process.extractOne(a[i], local, scorer=fuzz.ratio, score_cutoff=NEAR)
            if found is not None:
                del hunk_of_old[i], hunk_of_new[found[2]]
                del local[found[2]]
    if not hunk_of_old or not hunk_of_new:
        return []
    free_new: dict[str, list[int]] = {}
    for j in hunk_of_new:
        free_new.setdefault(b[j], []).append(j)
    pairs: dict[int, MovePair] = {}
    taken: set[int] = set()
    for i in sorted(hunk_of_old):  # identical first
        for j in free_new.get(a[i], ()):
            if j not in taken and hunk_of_new[j] != hunk_of_old[i]:
                pairs[i] = MovePair(i, j)
                taken.add(j)
                break
    rest_old = [i for i in sorted(hunk_of_old) if i not in pairs and len(a[i].split()) >= MIN_NEAR_WORDS]
    rest_new = [j for j in sorted(hunk_of_new) if j not in taken and len(b[j].split()) >= MIN_NEAR_WORDS]
    if rest_old and rest_new and len(rest_old) * len(rest_new) <= _NEAR_PAIRS:
        for i in rest_old:
            choices = {j: b[j] for j in rest_new if j not in taken and hunk_of_new[j] != hunk_of_old[i]}
            found = process.extractOne(a[i], choices, scorer=fuzz.ratio, score_cutoff=NEAR)
            if found is not None:
                j = found[2]
                pairs[i] = MovePair(i, j, word_diff(a[i], b[j], literal=True))
                taken.add(j)
    moves: list[Move] = []
    for i in sorted(pairs):
        pair = pairs[i]
        if moves and moves[-1].pairs[-1].old == i - 1 and moves[-1].pairs[-1].new == pair.new - 1:
            moves[-1].pairs.append(pair)
        else:
            moves.append(Move([pair]))
    return [m for m in moves if sum(len(a[i].split()) for i in m.olds) >= MIN_WORDS]


# -------------------------------------------------------------------------------------------
# Writing


class MoveWriter:
    """Writes moves into a tree the writer has written (ids from ``new_id``, one stamp)."""

    def __init__(self, new_id: Iterator[str], author: str, date: str, names: set[str]) -> None:
        self._ids = new_id
        self.author = author
        self.date = date
        self._names = names  # move names the document uses already
        self._serial = 0

    def name(self) -> str:
        while True:
            self._serial += 1
            name = f"move{100000000 + self._serial}"
            if name not in self._names:
                self._names.add(name)
                return name

    def _new_id(self) -> str:
        return next(self._ids)

    def _copy(self, el: etree._Element) -> etree._Element:
        """A copy of ``el`` whose revision records (another author's pending changes) take ids
        of their own (:func:`redline.write.runs.fresh_ids`)."""
        out = copy.deepcopy(el)
        fresh_ids(out, self._new_id)
        return out

    def _revision(self, tag: str) -> etree._Element:
        el = etree.Element(tag)
        el.set(_ID, next(self._ids))
        el.set(_AUTHOR, self.author)
        el.set(_DATE, self.date)
        return el

    def _range(self, kind: str, name: str) -> tuple[etree._Element, etree._Element]:
        start = self._revision(w(f"{kind}RangeStart"))
        start.set(_NAME, name)
        end = etree.Element(w(f"{kind}RangeEnd"))
        end.set(_ID, start.get(_ID) or "")
        return start, end

    def destination(
        self, name: str, sources: list[tuple[etree._Element, list[tuple[str, int, int, str]]]]
    ) -> list[etree._Element]:
        """The destination of a move: for each (pristine copy of a source paragraph, its inner
        word diff) a new paragraph; the range end follows the last one."""
        made: list[etree._Element] = []
        start, end = self._range("moveTo", name)
        for n, (src, ops) in enumerate(sources):
            p = src.makeelement(_P)
            for key, value in src.attrib.items():
                if key not in _PARA_IDS:
                    p.set(key, value)
            ppr = src.find(_PPR)
            p.append(self._copy(ppr) if ppr is not None else etree.Element(_PPR))
            _mark_rpr(p).insert(0, self._revision(_MOVE_TO))
            if n == 0:
                p.append(start)
            pieces = _pieces(src, ops, self._new_id)
            inserts = sorted((s, text) for kind, s, _e, text in ops if text)
            k = 0
            group: etree._Element | None = None
            last_run: etree._Element | None = None
            for _origin, run, s, _e, dropped in pieces:
                while k < len(inserts) and inserts[k][0] <= s:
                    p.append(self._inserted(inserts[k][1], last_run if last_run is not None else run))
                    group = None
                    k += 1
                last_run = run
                if dropped:
                    continue
                if group is None:
                    group = self._revision(_MOVE_TO)
                    p.append(group)
                group.append(self._copy(run))
            for _, text in inserts[k:]:
                p.append(self._inserted(text, last_run))
            made.append(p)
        made.append(end)
        return made

    def _inserted(self, text: str, fmt: etree._Element | None) -> etree._Element:
        wrapper = self._revision(_INS)
        run = etree.SubElement(wrapper, _R)
        rpr = fmt.find(_RPR) if fmt is not None else None
        if rpr is not None:
            run.append(self._copy(rpr))
        for k, part in enumerate(text.split("\t")):
            if k:
                etree.SubElement(run, _TAB)
            if part:
                t = etree.SubElement(run, _T)
                t.text = part
                if part != part.strip() or "  " in part:
                    t.set(XML_SPACE, "preserve")
        return wrapper

    def source(self, name: str, paras: list[tuple[etree._Element, list[tuple[str, int, int, str]]]]) -> None:
        """Mark the source paragraphs (in the tree) moved away, words NEW dropped deleted; every
        run is replaced where it stands (bookmarks and proofing marks stay between them)."""
        start, end = self._range("moveFrom", name)
        for n, (p, ops) in enumerate(paras):
            by_run: dict[etree._Element, list[tuple[etree._Element, bool]]] = {}
            for origin, run, _s, _e, dropped in _pieces(p, ops, self._new_id):
                by_run.setdefault(origin, []).append((run, dropped))
            group: etree._Element | None = None
            group_dropped = False
            for child in [c for c in p if c.tag == _R]:
                for run, dropped in by_run.get(child, []):
                    if group is None or group_dropped != dropped or group.getnext() is not child:
                        group = self._revision(_DEL if dropped else _MOVE_FROM)
                        group_dropped = dropped
                        child.addprevious(group)
                    if dropped:
                        for t in run.iter(_T):
                            t.tag = _DEL_TEXT
                    group.append(run)
                p.remove(child)
            ppr = p.find(_PPR)
            if n == 0:
                p.insert(1 if ppr is not None else 0, start)
            _mark_rpr(p).insert(0, self._revision(_MOVE_FROM))
        paras[-1][0].addnext(end)


def _pieces(
    p: etree._Element, ops: list[tuple[str, int, int, str]], ids: Callable[[], str]
) -> list[tuple[etree._Element, etree._Element, int, int, bool]]:
    """The runs of ``p`` (a movable paragraph) cut at the inner diff's boundaries, as new run
    elements (``p`` is not changed), each with its offsets and whether NEW dropped it; a run's
    first piece keeps the ids of the revision records its properties hold, the others take
    new ones from ``ids``."""
    cuts = sorted({x for _, s, e, _ in ops for x in (s, e)})
    dropped = [(s, e) for _, s, e, _ in ops if e > s]
    out: list[tuple[etree._Element, etree._Element, int, int, bool]] = []
    pos = 0
    for run in p.iter(_R):
        rpr = run.find(_RPR)
        current: etree._Element | None = None
        for el in run:
            if el.tag == _RPR:
                continue
            text = (el.text or "") if el.tag == _T else ("\t" if el.tag == _TAB else "")
            if el.tag not in (_T, _TAB):
                continue
            k = 0
            while k < len(text) or (not text and k == 0):
                if current is None or pos in cuts:
                    current = run.makeelement(_R)
                    for key, value in run.attrib.items():
                        current.set(key, value)
                    if rpr is not None:
                        copied = copy.deepcopy(rpr)
                        if out and out[-1][0] is run:
                            fresh_ids(copied, ids)
                        current.append(copied)
                    is_dropped = any(s <= pos < e for s, e in dropped)
                    out.append((run, current, pos, pos, is_dropped))
                if not text:
                    break
                nxt = min([c for c in cuts if c > pos] + [pos + len(text) - k])
                take = nxt - pos
                chunk = text[k : k + take]
                if el.tag == _TAB:
                    etree.SubElement(current, _TAB)
                else:
                    t = etree.SubElement(current, _T)
                    t.text = chunk
                    if chunk != chunk.strip() or "  " in chunk:
                        t.set(XML_SPACE, "preserve")
                k += take
                pos += take
                o, r, s0, _, d = out[-1]
                out[-1] = (o, r, s0, pos, d)
    return [piece for piece in out if piece[3] > piece[2]]


def _run_text(run: etree._Element) -> str:
    return "".join((el.text or "") if el.tag == _T else "\t" for el in run if el.tag in (_T, _TAB))


def _mark_rpr(p: etree._Element) -> etree._Element:
    ppr = p.find(_PPR)
    if ppr is None:
        ppr = p.makeelement(_PPR)
        p.insert(0, ppr)
    rpr = ppr.find(_RPR)
    if rpr is None:
        rpr = ppr.makeelement(_RPR)
        ppr.append(rpr)  # (no w:sectPr or w:pPrChange in a movable paragraph's properties)
    return rpr


def mark_deleted(p: etree._Element) -> bool:
    """Is ``p``'s mark a tracked deletion or move away?"""
    ppr = p.find(_PPR)
    rpr = ppr.find(_RPR) if ppr is not None else None
    return rpr is not None and (rpr.find(_DEL) is not None or rpr.find(_MOVE_FROM) is not None)
