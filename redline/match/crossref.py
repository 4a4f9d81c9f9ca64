"""Typing a new clause number over a cross-reference: a new ``REF`` field to that clause.

When an edit changes the result of a ``REF`` field (ECMA-376 Part 1, §17.16.5.52) and the new
text in its place names exactly one other numbered clause of the document ("Section 4.2" ->
"Section 5.1", where Word numbers a paragraph 5.1), the old field is deleted as when typing
over any field (:mod:`redline.match.fields`), and instead of plain text the new number is written as
a complex field ``REF _RefNNN \\r \\h`` (§17.16.18: begin, instructions, separate, result,
end, as inserted runs) to a bookmark around that clause's paragraph, so it keeps following the
clause when the document renumbers.  The bookmark is the paragraph's own hidden ``_Ref…``
bookmark when it has one, else a new one (``w:bookmarkStart`` after the paragraph properties,
``w:bookmarkEnd`` at its end, a fresh ``w:id`` and an unused name), as Word creates one when
you insert a cross-reference.

Only a clause Word numbers (a label from ``numbering.xml``, not a number typed as text) can be
referred to this way: ``\\r`` when the new text is its label and that is a full number ("5.1"),
``\\w`` when the new text is its full citation ("4.2(b)" for an item labelled "(b)").  Anything
else -- no number in the new text, two of them, a number no clause or several clauses have, a
relative label alone ("(b)", which Word shows differently from where it is cited) -- stays
plain text.

Between verify and the writer, the new number stands in the replacement as one private
character (a Unicode noncharacter, never in a document's text), which the writer's word diff
treats as one changed token; :func:`place_fields` turns it into the field's runs.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lxml import etree

from ..opc.namespaces import XML_SPACE, w
from ..opc.working import whole_root
from ..read.sections import label_key
from ..read.view import DocumentView
from ..text.worddiff import word_diff

_R, _T, _RPR, _PPR = w("r"), w("t"), w("rPr"), w("pPr")
_FLD_CHAR, _INSTR, _TYPE = w("fldChar"), w("instrText"), w("fldCharType")
_BM_START, _BM_END, _NAME, _ID = w("bookmarkStart"), w("bookmarkEnd"), w("name"), w("id")
MARK_BASE = 0xFDD0  # the noncharacters U+FDD0..U+FDEF stand for new fields in a replacement
MARK_COUNT = 32
_MARKS = re.compile("[\ufdd0-\ufdef]")
# A clause number as written in running text: "5.1", "12", "4.2(b)", "(b)"
_NUMBER = re.compile(
    r"(?<![\w.(])(?:\d{1,3}(?:\.\d{1,3})*(?:\s?\((?:[A-Za-z]{1,4}|\d{1,3})\))*|\((?:[A-Za-z]{1,4}|\d{1,3})\))(?![\w(])"
)


@dataclass(frozen=True)
class CrossRef:
    """A new REF field: it stands as ``mark`` in the plan's replacement, shows ``label`` and
    refers to view paragraph ``target`` (``switch``: ``\\r`` its number as displayed, ``\\w``
    its full number)."""

    mark: str
    label: str
    target: int
    switch: str
    old: str  # the result of the field it replaces, as shown


def is_ref(code: Sequence[etree._Element]) -> bool:
    """Is the field whose code runs these are a ``REF`` (a cross-reference to a bookmark)?"""
    instr = "".join(t.text or "" for run in code for t in run.iter(_INSTR)).split()
    return bool(instr) and instr[0].upper() == "REF"


def _new_span(old: str, new: str, ops: list[tuple[str, int, int, str]], fs: int, fe: int) -> tuple[int, int]:
    """Where old text [fs, fe) stands in ``new``, the changes ``ops`` made (a position inside
    a change maps to that change's edge)."""
    delta = 0
    ns = ne = None
    for _kind, a, b, text in ops:
        if ns is None and fs < a:
            ns = fs + delta
        if ns is None and a <= fs <= b and not (fs == b and b > a):
            ns = a + delta
        if ne is None and fe <= a:
            ne = fe + delta
        if ne is None and a < fe <= b:
            ne = a + delta + len(text)
        delta += len(text) - (b - a)
    ns = fs + delta if ns is None else ns
    ne = fe + delta if ne is None else ne
    return ns, max(ns, ne)


def retarget(
    view: DocumentView,
    s: int,
    e: int,
    replacement: str,
    exact: bool,
    fields: Iterable[tuple[int, int, list[etree._Element]]],
) -> tuple[str, list[CrossRef]]:
    """``replacement`` of view range [s, e) with each typed-over ``REF`` field (view result
    range, code runs) whose new text names one numbered clause marked for a new field, and
    those fields (see the module); the replacement as it was and none when there are none."""
    if _MARKS.search(replacement):
        return replacement, []
    old = view.text[s:e]
    ops = word_diff(old, replacement, old_breaks=exact or "\n" in replacement)
    found: list[tuple[int, int, CrossRef]] = []
    for fs, fe, code in fields:
        if len(found) >= MARK_COUNT or not is_ref(code):
            continue
        ns, ne = _new_span(old, replacement, ops, fs - s, fe - s)
        numbers = list(_NUMBER.finditer(replacement, ns, ne))
        if len(numbers) != 1:
            continue
        m = numbers[0]
        hit = _clause(view, m.group(0))
        if hit is None:
            continue
        target, switch = hit
        mark = chr(MARK_BASE + len(found))
        old_text = " ".join(view.text[fs:fe].split())
        found.append((m.start(), m.end(), CrossRef(mark, m.group(0), target, switch, old_text)))
    if not found:
        return replacement, []
    found.sort(key=lambda f: f[0])
    for a, b, ref in reversed(found):
        if any(a < b2 and a2 < b for a2, b2, other in found if other is not ref):
            return replacement, []  # two fields' new text is one number: leave it plain
        replacement = replacement[:a] + ref.mark + replacement[b:]
    return replacement, [ref for _, _, ref in found]


def _clause(view: DocumentView, number: str) -> tuple[int, str] | None:
    """The one body paragraph Word numbers ``number`` (its index) and the REF switch that
    shows that number, or None."""
    heads = [h for h in view.outline.named(number) if h.number is not None and not h.typed]
    if len(heads) != 1:
        return None
    head = heads[0]
    para = view.paragraphs[head.index]
    if para.story != "body" or not para.label or para.field_code:
        return None
    key = label_key(number)
    if key == label_key(para.label) and "(" not in para.label:  # a full number, as displayed
        return head.index, "\\r"
    if key == label_key(head.cite):
        return head.index, "\\w"
    return None


def ref_note(view: DocumentView, ref: CrossRef) -> str:
    """The report note of a cross-reference typed over with another clause's number."""
    para = view.paragraphs[ref.target]
    return (
        f"The cross-reference showing \u201c{ref.old}\u201d is deleted with the text typed over it, "
        f"as Word does, and \u201c{ref.label}\u201d is a new cross-reference (a REF field) to "
        f"clause {para.label}, bookmarked as Word bookmarks it, so it follows that clause's number."
    )


def bookmark(view: DocumentView, target: int, new_id: object) -> str:
    """The name of a ``_Ref`` bookmark around view paragraph ``target``: its own (the first
    starting in it), or a new one added around its content."""
    p = view.paragraphs[target].element
    for start in p.iter(_BM_START):
        name = start.get(_NAME) or ""
        if name.startswith("_Ref"):
            return name
    root = whole_root(p)
    taken = {el.get(_NAME) for el in root.iter(_BM_START)}
    bid = str(new_id() if callable(new_id) else new_id)
    number = 100000000 + int(bid) % 800000000
    while f"_Ref{number}" in taken:
        number += 1
    name = f"_Ref{number}"
    start = p.makeelement(_BM_START)
    start.set(_ID, bid)
    start.set(_NAME, name)
    end = p.makeelement(_BM_END)
    end.set(_ID, bid)
    at = 1 if len(p) and p[0].tag == _PPR else 0
    p.insert(at, start)
    p.append(end)
    return name


def place_fields(made: Iterable[etree._Element], refs: Sequence[CrossRef], names: dict[int, str]) -> None:
    """Turn each ref's mark in the new runs ``made`` (runs, or the w:ins holding them) into
    the runs of its REF field, with the formatting of the run it stood in."""
    wanted = {ref.mark: ref for ref in refs}
    texts = [t for el in made for t in el.iter(_T) if t.text and _MARKS.search(t.text)]
    for t in texts:
        run = t.getparent()
        if run is None:
            continue
        _expand(run, t, wanted, names)


def _expand(
    run: etree._Element, t: etree._Element, wanted: dict[str, CrossRef], names: dict[int, str]
) -> None:
    rpr = run.find(_RPR)
    text = t.text or ""
    pieces = re.split("([\ufdd0-\ufdef])", text)
    out: list[etree._Element] = []

    def new_run() -> etree._Element:
        r = run.makeelement(_R)
        if rpr is not None:
            r.append(copy.deepcopy(rpr))
        return r

    for k, piece in enumerate(pieces):
        if not piece:
            continue
        ref = wanted.get(piece) if k % 2 else None
        if ref is None:
            r = new_run()
            el = etree.SubElement(r, _T)
            el.text = piece
            if piece != piece.strip() or "  " in piece:
                el.set(XML_SPACE, "preserve")
            out.append(r)
            continue
        instr = f" REF {names[ref.target]} {ref.switch} \\h "
        for kind, body in (
            ("begin", None),
            (None, instr),
            ("separate", None),
            (None, ref.label),
            ("end", None),
        ):
            r = new_run()
            if kind is not None:
                etree.SubElement(r, _FLD_CHAR).set(_TYPE, kind)
            elif body == instr:
                el = etree.SubElement(r, _INSTR)
                el.text = body
                el.set(XML_SPACE, "preserve")
            else:
                etree.SubElement(r, _T).text = body
            out.append(r)
    # what came before and after the mark in the same run keeps its place
    before = [c for c in run if c is not t and c.tag != _RPR and run.index(c) < run.index(t)]
    after = [c for c in run if c is not t and c.tag != _RPR and run.index(c) > run.index(t)]
    anchor = run
    if before:
        keep = new_run()
        keep.extend(before)
        out.insert(0, keep)
    if after:
        tail = new_run()
        tail.extend(after)
        out.append(tail)
    # the run itself stays (holding the first of them: whoever holds it still finds it)
    for child in [c for c in run if c.tag != _RPR]:
        run.remove(child)
    first = out.pop(0)
    run.extend([c for c in first if c.tag != _RPR])
    for r in out:
        anchor.addnext(r)
        anchor = r
