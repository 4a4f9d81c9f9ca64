"""A clause move written as one native Word move (ECMA-376 Part 1, §17.13.5.21-.28).

The source paragraphs keep their runs where they stand, each group of them wrapped in
``w:moveFrom`` -- text stays ``w:t``, never ``w:delText``: Word refuses to open a file with
deleted text directly under a move source --, their marks ``w:pPr/w:rPr/w:moveFrom``, all of it
inside one ``w:moveFromRangeStart`` / ``w:moveFromRangeEnd`` pair.  The destination paragraphs
are copies of them -- paragraph properties (style, list numbering ``w:numPr``) and run
formatting kept, so automatic numbers renumber once the move is accepted -- with their runs in
``w:moveTo``, their marks ``w:moveTo``, inside one ``w:moveToRangeStart`` / ``w:moveToRangeEnd``
pair of the same ``w:name``.  Bookmarks stay at the source (a copy would duplicate the name),
proofing marks are not copied, and the copies get no ``w14:paraId`` (Word gives them fresh ones).
Accepting the move removes the source and keeps the copy; rejecting it does the reverse.

Untracked (``--no-track``), the paragraphs themselves go to the destination.

The pieces are pure functions of elements (:func:`source_side`, :func:`destination_side`), so a
comparison could write its moves with them too; :func:`write_move` is the writer's step.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from lxml import etree

from ..match.moves_plan import MovePlan
from ..opc.namespaces import w
from ..opc.working import values_in
from ..read.view import DocumentView
from .renumber import Renumbering

__all__ = ["MoveWritten", "comment_inside", "destination_side", "move_name", "source_side", "write_move"]

_P, _R, _PPR, _RPR = w("p"), w("r"), w("pPr"), w("rPr")
_HYPERLINK = w("hyperlink")
_MOVE_FROM, _MOVE_TO = w("moveFrom"), w("moveTo")
_ID, _NAME = w("id"), w("name")
_NOT_COPIED = (w("bookmarkStart"), w("bookmarkEnd"), w("proofErr"))
_W14 = "http://schemas.microsoft.com/office/word/2010/wordml"
_PARA_IDS = (f"{{{_W14}}}paraId", f"{{{_W14}}}textId")
_RANGE_STARTS = (w("moveFromRangeStart"), w("moveToRangeStart"))

Revision = Callable[[str], etree._Element]
"""Makes a revision element of a tag with a new ``w:id``, our author and date (the writer's)."""


@dataclass
class MoveWritten:
    """What :func:`write_move` made: the move's name, the destination paragraphs, and the first
    and last of their run wrappers (where a rationale's comment goes; None when they hold no text)."""

    name: str
    paragraphs: list[etree._Element]
    first: etree._Element | None
    last: etree._Element | None


def move_name(root: etree._Element, ident: str) -> str:
    """A ``w:name`` no move range of ``root``'s part uses yet: ``move<ident>`` (a fresh id)."""
    used = values_in(root, _RANGE_STARTS, _NAME)  # (a tree parsed in part: redline.read.partial)
    name, n = f"move{ident}", 0
    while name in used:
        n += 1
        name = f"move{ident}_{n}"
    return name


def _wrap_runs(p: etree._Element, tag: str, revision: Revision) -> list[etree._Element]:
    """Wrap every group of consecutive runs of ``p`` (and of its hyperlinks) in a new ``tag``
    revision, the runs themselves kept; the wrappers, in document order."""
    made: list[etree._Element] = []
    for holder in [p, *(c for c in p if c.tag == _HYPERLINK)]:
        group: etree._Element | None = None
        for child in list(holder):
            if child.tag != _R:
                group = None
                continue
            if group is None:
                group = revision(tag)
                child.addprevious(group)
                made.append(group)
            group.append(child)
    made.sort(key=lambda el: _order(p, el))
    return made


def _order(p: etree._Element, el: etree._Element) -> int:
    node = el
    while node.getparent() is not p:
        parent = node.getparent()
        assert parent is not None
        node = parent
    return p.index(node)


def _mark(p: etree._Element, tag: str, revision: Revision) -> None:
    """Record ``p``'s mark as moved (``w:pPr/w:rPr/w:moveFrom`` or ``moveTo``): first in the mark's
    properties, where CT_ParaRPr puts the revision of a mark (a movable paragraph has none yet)."""
    ppr = p.find(_PPR)
    if ppr is None:
        ppr = p.makeelement(_PPR)
        p.insert(0, ppr)
    rpr = ppr.find(_RPR)
    if rpr is None:
        rpr = ppr.makeelement(_RPR)
        # w:rPr comes after every paragraph property but w:sectPr and w:pPrChange (none in a block)
        ppr.append(rpr)
    rpr.insert(0, revision(tag))


def _range(kind: str, name: str, revision: Revision) -> tuple[etree._Element, etree._Element]:
    start = revision(w(f"{kind}RangeStart"))
    start.set(_NAME, name)
    end = start.makeelement(w(f"{kind}RangeEnd"))
    end.set(_ID, start.get(_ID) or "")
    return start, end


def _after_ppr(p: etree._Element) -> int:
    return 1 if len(p) and p[0].tag == _PPR else 0


def destination_side(sources: list[etree._Element], name: str, revision: Revision) -> tuple[
    list[etree._Element], list[etree._Element]
]:  # fmt: skip
    """The destination of a move of the (pristine) paragraphs ``sources``: their copies, runs in
    ``w:moveTo``, marks ``w:moveTo``, the range start in the first and its end after the last --
    the elements to insert, in order -- and the run wrappers made."""
    made: list[etree._Element] = []
    wrappers: list[etree._Element] = []
    start, end = _range("moveTo", name, revision)
    for n, src in enumerate(sources):
        p = copy.deepcopy(src)
        for key in _PARA_IDS:
            if key in p.attrib:
                del p.attrib[key]
        for el in list(p.iter(*_NOT_COPIED)):
            parent = el.getparent()
            assert parent is not None
            parent.remove(el)
        _mark(p, _MOVE_TO, revision)
        wrappers += _wrap_runs(p, _MOVE_TO, revision)
        if n == 0:
            p.insert(_after_ppr(p), start)
        made.append(p)
    made.append(end)
    return made, wrappers


def source_side(
    paragraphs: list[etree._Element], last: etree._Element, name: str, revision: Revision
) -> None:
    """Mark the paragraphs ``paragraphs`` (in the tree) moved away: runs in ``w:moveFrom`` where
    they stand (their text ``w:t``), marks ``w:moveFrom``, the range start in the first and its
    end after ``last`` (the block's last element)."""
    start, end = _range("moveFrom", name, revision)
    for n, p in enumerate(paragraphs):
        _mark(p, _MOVE_FROM, revision)
        _wrap_runs(p, _MOVE_FROM, revision)
        if n == 0:
            p.insert(_after_ppr(p), start)
    last.addnext(end)


def write_move(
    view: DocumentView,
    edit_index: int,
    plan: MovePlan,
    revision: Revision | None,
    new_id: Callable[[], str],
    numbering: Renumbering,
) -> MoveWritten:
    """Carry out ``plan`` in the view's trees: tracked with ``revision`` (None: untracked, the
    paragraphs themselves moved), the numbering prediction told what became of them."""
    paras = view.paragraphs
    olds = list(range(plan.first, plan.last + 1))
    elements = [paras[k].element for k in olds]
    parent = elements[0].getparent()
    assert parent is not None
    block: list[etree._Element] = []  # the block's siblings: its paragraphs and range markup between
    node: etree._Element | None = elements[0]
    while node is not None:
        block.append(node)
        if node is elements[-1]:
            break
        node = node.getnext()
    paragraphs = [el for el in block if el.tag == _P]
    beside, after = _beside(view, plan, parent)
    numbering.start_range(olds)
    if revision is None:
        made = list(paragraphs)
        name = ""
        wrappers: list[etree._Element] = []
    else:
        name = move_name(parent.getroottree().getroot(), new_id())
        made, wrappers = destination_side(paragraphs, name, revision)
        source_side(paragraphs, block[-1], name, revision)
    if after:
        anchor = beside
        for el in made:
            anchor.addnext(el)
            anchor = el
    else:
        for el in made:
            beside.addprevious(el)
    new = [el for el in made if el.tag == _P]
    k = plan.after if after else plan.before
    assert k is not None
    next_to = paras[k].element is beside  # (not beside a table holding it)
    numbering.moved(olds, new, k if next_to else None, beside, after)
    numbering.end_range(edit_index)
    return MoveWritten(name, new, wrappers[0] if wrappers else None, wrappers[-1] if wrappers else None)


def _beside(view: DocumentView, plan: MovePlan, parent: etree._Element) -> tuple[etree._Element, bool]:
    """The element the moved paragraphs go after (True) or before (False): the destination's
    neighbour paragraph, or the table (or other block) holding it, among ``parent``'s children."""
    paras = view.paragraphs
    k, after = (plan.after, True) if plan.after is not None else (plan.before, False)
    assert k is not None
    node = paras[k].element
    while node.getparent() is not parent:
        up = node.getparent()
        assert up is not None  # (the plan checked it lies in the block's container)
        node = up
    return node, after


def comment_inside(wrapper: etree._Element, cid: str) -> None:
    """Anchor comment ``cid`` on the text of ``wrapper`` (the first run wrapper of the moved-to
    text), its range and reference run inside it: the comment goes with the moved text, and
    LibreOffice rejects the move cleanly (a comment reaching into the move's other paragraphs,
    or whose reference stands outside it, leaves a paragraph behind or joins the next one)."""
    start = wrapper.makeelement(w("commentRangeStart"))
    start.set(_ID, cid)
    wrapper.insert(0, start)
    end = wrapper.makeelement(w("commentRangeEnd"))
    end.set(_ID, cid)
    wrapper.append(end)
    ref = wrapper.makeelement(_R)
    etree.SubElement(etree.SubElement(ref, _RPR), w("rStyle")).set(w("val"), "CommentReference")
    etree.SubElement(ref, w("commentReference")).set(_ID, cid)
    wrapper.append(ref)
