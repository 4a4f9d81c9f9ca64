"""A complex field's code, for typing over its result or deleting it whole (ECMA-376 Part 1,
§17.16.18, §17.16.19).

A complex field is a run of ``w:fldChar begin``, the runs of its instructions
(``w:instrText``), a run of ``w:fldChar separate``, the runs of its result, and a run of
``w:fldChar end``.  When an edit changes the result, Word deletes the field's code and keeps
the typed text as plain text: :func:`code_runs` finds the code runs around one run of the
result -- only when the whole field lies among the run's siblings (one paragraph, one
container) and nests no other field, so that deleting them is exactly the field and nothing
else.

When an edit deletes text that holds whole fields, :func:`whole_fields` finds them in the
paragraphs the deletion spans, however their runs stand (in another author's insertion, split
over containers, one nested in another's result, a ``w:fldSimple``): each field from its begin
to its end, code and result, to be deleted with the text.  A field only partly inside what is
deleted (its begin before it, its end after it), or one that runs on past the paragraphs, is
not whole, and the edit is refused as before.
"""

from __future__ import annotations

from lxml import etree

from ..opc.namespaces import w
from ..opc.working import whole_root

_R, _FLD_CHAR, _INSTR = w("r"), w("fldChar"), w("instrText")
_TYPE = w("fldCharType")
_INS = w("ins")
# range markup that may stand among the runs of a result without being any of its text
_QUIET = frozenset(
    w(n)
    for n in (
        "bookmarkStart",
        "bookmarkEnd",
        "commentRangeStart",
        "commentRangeEnd",
        "proofErr",
        "permStart",
        "permEnd",
    )
)


def _kind(run: etree._Element) -> str | None:
    """The fldCharType of a run's w:fldChar, if it holds one."""
    for child in run:
        if child.tag == _FLD_CHAR:
            return child.get(_TYPE)
    return None


def _inside_another(begin: etree._Element) -> bool:
    """Does the field starting at run ``begin`` lie inside another field that starts earlier in
    the part (a begin before it, in document order, with no end between; deleted and
    ``mc:Fallback`` runs aside)?  Deleting its code would change what that other field holds."""
    depth = 0
    root = whole_root(begin)
    for run in root.iter(_R):
        if run is begin:
            return depth > 0
        kind = _kind(run)
        if kind not in ("begin", "end") or _gone(run, root):
            continue
        depth = depth + 1 if kind == "begin" else max(0, depth - 1)
    return False


def code_runs(result_text: etree._Element) -> list[etree._Element] | None:
    """The runs of the field's code (begin, instructions, separate, end) around the result
    text element ``result_text`` (a ``w:t`` of its result), or None (see the module)."""
    run = result_text.getparent()
    if run is None or run.tag != _R:
        return None
    before: list[etree._Element] = []
    node = run.getprevious()
    separate_seen = False
    while node is not None:
        if node.tag == _R:
            kind = _kind(node)
            if kind == "end":
                return None  # another field inside this one's result: not ours to unpick
            if kind == "separate":
                if separate_seen:
                    return None
                separate_seen = True
                before.append(node)
            elif kind == "begin":
                if not separate_seen or _inside_another(node):
                    return None
                before.append(node)
                break
            elif separate_seen:
                if not any(child.tag == _INSTR for child in node) and any(
                    isinstance(child.tag, str) and child.tag != w("rPr") for child in node
                ):
                    return None  # text among the instructions: not a field we know
                before.append(node)
        elif any(_kind(r) for r in node.iter(_R)):
            return None  # field characters inside a container: the field is not flat
        node = node.getprevious()
    else:
        return None  # no begin among the siblings: the field starts elsewhere
    node = run.getnext()
    while node is not None:
        if node.tag == _R:
            kind = _kind(node)
            if kind == "end":
                return [*reversed(before), node]
            if kind is not None:
                return None  # a nested field in the result
        elif any(_kind(r) for r in node.iter(_R)):
            return None
        node = node.getnext()
    return None


def lift_typed_text(
    code: tuple[etree._Element, ...] | list[etree._Element], ours: set[etree._Element]
) -> None:
    """After the code runs ``code`` of fields typed over were deleted (each run in a ``w:del``
    of ours): move the new text (our ``w:ins``) that stands in a field's result to just after
    the field's deleted end, where Word puts text typed over a field -- when nothing of the
    old result is left alive there (all of it deleted by us).  Between a deleted separate
    and a deleted end, LibreOffice reads the new text as the deleted field's result and drops
    it when it accepts the changes."""
    separate: etree._Element | None = None
    for run in code:
        kind = _kind(run)
        if kind == "separate":
            separate = run
        elif kind == "end" and separate is not None:
            start, end = separate.getparent(), run.getparent()
            separate = None
            if start is None or end is None or start not in ours or end not in ours:
                continue
            between: list[etree._Element] = []
            node = start.getnext()
            while node is not None and node is not end:
                between.append(node)
                node = node.getnext()
            if node is None or not all(el in ours or el.tag in _QUIET for el in between):
                continue  # (not siblings, or some of the old result still stands there)
            anchor = end
            for el in between:
                if el.tag == _INS:
                    anchor.addnext(el)
                    anchor = el


_GONE = frozenset(
    (w("del"), w("moveFrom"), "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback")
)


def _gone(run: etree._Element, top: etree._Element) -> bool:
    """Is ``run`` deleted, moved away or an ``mc:Fallback`` copy (below ``top``)?"""
    node = run.getparent()
    while node is not None and node is not top:
        if node.tag in _GONE:
            return True
        node = node.getparent()
    return False


def open_at_end(p: etree._Element) -> bool:
    """Does a field begun in paragraph ``p`` (in its own runs, as read: not deleted, not an
    ``mc:Fallback``) run on past its end?  A paragraph put after it would be inside the field."""
    depth = 0
    for run in p.iter(_R):
        kind = _kind(run)
        if kind is None or _gone(run, p):
            continue
        if kind == "begin":
            depth += 1
        elif kind == "end" and depth:
            depth -= 1
    return depth > 0


# -------------------------------------------------------------------------------------------
# Whole fields inside deleted text

_SIMPLE = w("fldSimple")
# what a field's runs may hold besides text the view reads (their text is the writer's to delete)
_CODE_CHILDREN = frozenset((w("rPr"), _FLD_CHAR, _INSTR, w("lastRenderedPageBreak")))
_TEXT_CHILDREN = frozenset(
    w(n)
    for n in (
        "rPr", "t", "tab", "ptab", "br", "cr", "noBreakHyphen", "softHyphen", "sym",
        "lastRenderedPageBreak", "proofErr",
    )
)  # fmt: skip


class _Open:
    """A field being walked: where it began (the view offset before it) and its elements."""

    __slots__ = ("elements", "start")

    def __init__(self, start: int, first: etree._Element) -> None:
        self.start = start
        self.elements = [first]


def whole_fields(
    paragraphs: list[tuple[etree._Element, int]], ends: dict[etree._Element, int], lo: int, hi: int
) -> list[tuple[int, int, list[etree._Element]]] | None:
    """Every field of ``paragraphs`` (the ``w:p`` of a view range, in order, each with its view
    start) as (view offset where it begins, where it ends, its elements): a complex field's code
    runs (begin, instructions, separate, end -- a nested field's too; not its result's text
    runs), or a ``w:fldSimple`` element; ``ends``: the view offset just past each node that
    makes view text (the view's pieces).
    Only fields that begin at or after ``lo`` and end at or before ``hi`` are listed, outermost
    only; None when some field cannot be told whole -- one that begins before the first
    paragraph or runs on past the last, or whose runs hold what is neither code nor text the
    view reads (a drawing in a result, say)."""
    fields: list[tuple[int, int, list[etree._Element]]] = []
    stack: list[_Open] = []
    pos = lo
    for p, start in paragraphs:
        pos = max(pos, start)
        walk = etree.iterwalk(p, events=("start", "end"))
        for event, el in walk:
            tag = el.tag
            if event == "end":
                if tag == _SIMPLE and stack and stack[-1].elements[0] is el:
                    _close(stack, fields, pos, lo, hi)
                continue
            if tag in _GONE:
                walk.skip_subtree()  # deleted, moved away, a second copy: not the field's
                continue
            at = ends.get(el)
            if at is not None:
                pos = at
                continue
            if tag == _SIMPLE:
                opened = _Open(pos, el)
                if stack:
                    stack[-1].elements.append(el)
                stack.append(opened)
                continue
            if tag != _R:
                continue
            kind = _kind(el)
            code = kind is not None or any(c.tag == _INSTR for c in el)
            if not code:
                if stack and any(isinstance(c.tag, str) and c.tag not in _TEXT_CHILDREN for c in el):
                    return None  # a result holding more than text (a drawing, an object)
                continue
            if any(isinstance(c.tag, str) and c.tag not in _CODE_CHILDREN for c in el):
                return None  # a field character beside text: not a run of code alone
            if kind == "begin":
                stack.append(_Open(pos, el))
                continue
            if not stack or stack[-1].elements[0].tag == _SIMPLE:
                return None  # code of a field begun before the range (or inside a simple field)
            stack[-1].elements.append(el)
            if kind == "end":
                _close(stack, fields, pos, lo, hi)
    if stack:
        return None  # a field runs on past the range
    return fields


def _close(
    stack: list[_Open], fields: list[tuple[int, int, list[etree._Element]]], pos: int, lo: int, hi: int
) -> None:
    done = stack.pop()
    if stack:  # a nested field: its elements are its parent's
        stack[-1].elements.extend(e for e in done.elements if e not in stack[-1].elements)
    elif lo <= done.start and pos <= hi:
        fields.append((done.start, pos, done.elements))
