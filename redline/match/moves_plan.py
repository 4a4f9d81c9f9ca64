"""Clause moves planned: where a ``move_after`` / ``move_before`` entry's clause lies, where it
goes, and why it cannot move (issue 29, "Say what lawyers say").

The **block** is the clause whose first words ``anchor`` quotes, with its sub-clauses: the
section the anchor's paragraph heads, as :mod:`redline.read.outline` computes it (a paragraph
that heads none moves alone).  The **destination** is a clause named by ``target`` -- the same
resolver a ``section`` goes through, :meth:`redline.read.outline.Outline.named` -- or the clause
of the paragraph(s) ``target_anchor`` quotes: ``move_after`` puts the block after that
clause's last sub-clause, ``move_before`` before its first paragraph.

Refused, each with a reason and a hint: a target no clause answers to (``not_found``) or that
names several (``ambiguous``); a destination inside the block (``unsupported``); the block
already there (``no_change``); and (``unsupported``) a block holding what a move cannot carry
whole -- fields, comments, footnote or endnote references, drawings or text boxes, section
breaks, tables, content controls, tracked changes (anyone's: decide them first), a bookmark
that crosses its edges or that something refers to -- or one that crosses containers (body and
a table cell, one story and another), or ends its container (the last paragraph of the body or
a cell carries what Word needs there).  Typed clause numbers ("7. Audit") do not renumber:
every one that a move leaves out of sequence is listed in the result's notes.

:func:`plan_move` gives the :class:`MovePlan` the writer (:mod:`redline.write.moves`) carries out.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from shared_schema import EditStatus
from shared_schema.records import EditRecord, RefusalRecord, ResultRecord

from ..opc.namespaces import M_NS, MC_NS, w
from ..opc.working import whole_root
from ..read.headings import sections_named
from ..read.outline import Head
from ..read.view import DocumentView, Paragraph
from .hints import not_found
from .locate import Found, Locator

__all__ = ["MovePlan", "plan_move", "typed_out_of_sequence"]


@dataclass(frozen=True)
class MovePlan:
    """A clause move, in view terms: view paragraphs ``first``..``last`` (the block) go before
    view paragraph ``before`` -- or, when ``before`` is None, after ``after`` (the end of its
    story); ``after`` is None when they go to the start of the story.  ``spans``: the view ranges
    writing it changes (the block, and the destination as an empty range)."""

    first: int
    last: int
    after: int | None
    before: int | None
    spans: tuple[tuple[int, int], ...]

    @property
    def at(self) -> int:
        """The destination's view offset (what orders the move among the batch's writes)."""
        return self.spans[-1][0]


_P, _R, _PPR, _RPR = w("p"), w("r"), w("pPr"), w("rPr")
_BM_START, _BM_END = w("bookmarkStart"), w("bookmarkEnd")
_HYPERLINK, _PROOF = w("hyperlink"), w("proofErr")
_ID, _NAME, _AUTHOR = w("id"), w("name"), w("author")
# What a run of a movable paragraph may hold: its properties, text and what reads as text.
_RUN_CHILDREN = frozenset(
    w(n) for n in ("rPr", "t", "tab", "br", "cr", "lastRenderedPageBreak", "noBreakHyphen",
                   "softHyphen", "sym", "ptab")
)  # fmt: skip
_REVISIONS = frozenset(
    w(n) for n in ("ins", "del", "moveFrom", "moveTo", "rPrChange", "pPrChange", "numberingChange",
                   "moveFromRangeStart", "moveFromRangeEnd", "moveToRangeStart", "moveToRangeEnd",
                   "delText", "delInstrText", "customXmlInsRangeStart", "customXmlDelRangeStart")
)  # fmt: skip
# What a block may not hold, each with the words the refusal uses.
_CANNOT = {
    **dict.fromkeys((w("fldChar"), w("instrText"), w("fldSimple")), "a field"),
    **dict.fromkeys((w("commentRangeStart"), w("commentRangeEnd"), w("commentReference")), "a comment"),
    **dict.fromkeys((w("footnoteReference"), w("endnoteReference")), "a footnote or endnote reference"),
    **dict.fromkeys(
        (w("drawing"), w("pict"), w("object"), w("txbxContent"), f"{{{MC_NS}}}AlternateContent"),
        "a drawing or text box",
    ),
    w("sectPr"): "a section break",
    w("tbl"): "a table",
    w("sdt"): "a content control",
    **dict.fromkeys((f"{{{M_NS}}}oMath", f"{{{M_NS}}}oMathPara"), "an equation"),
}
_HINT = "Move a clause of plain paragraphs, or make the change as a deletion and an insertion."


def plan_move(locator: Locator, edit: EditRecord, result: ResultRecord, found: Found) -> MovePlan | None:
    """The move ``edit`` asks for (its anchor located once, at ``found``), or None with
    ``result`` refused."""
    view = locator.view
    s, e = found.ranges[0]
    para = view.paragraph_at(s)
    first, last = _unit(view, para)
    if view.paragraph_at(max(s, e - 1)).index > last:
        _refused(
            result, EditStatus.UNSUPPORTED,
            "The anchor runs past the end of the clause it begins: a move takes one clause (with its "
            "sub-clauses).",
            "Quote the first words of the clause to move, within its first paragraph.",
        )  # fmt: skip
        return None
    unit = _target(locator, edit, result, para)
    if unit is None:
        return None
    lo, hi = unit
    if first <= lo and hi <= last:
        _refused(
            result, EditStatus.UNSUPPORTED,
            "The target lies inside the clause being moved: a clause cannot move beside itself or "
            "its own sub-clauses.",
            "Name a target outside the clause (its sub-clauses move with it).",
        )  # fmt: skip
        return None
    dest = hi + 1 if edit.action == "move_after" else lo
    if first < dest <= last:
        _refused(
            result, EditStatus.UNSUPPORTED,
            "The destination lies inside the clause being moved.",
            "Name a target outside the clause (its sub-clauses move with it).",
        )  # fmt: skip
        return None
    if dest in (first, last + 1):
        where = "after" if dest == first else "before"
        _refused(
            result, EditStatus.NO_CHANGE,
            f"The clause already stands there: it comes right {where} the target.",
            "Drop the entry, or name another target.",
        )  # fmt: skip
        return None
    reason = _obstacle(view, first, last, dest)
    if reason is not None:
        _refused(result, EditStatus.UNSUPPORTED, reason, _HINT)
        return None
    paras = view.paragraphs
    story = paras[first].story_no
    after = dest - 1 if dest - 1 >= 0 and paras[dest - 1].story_no == story else None
    before = dest if dest < len(paras) and paras[dest].story_no == story else None
    at = paras[before].start if before is not None else paras[after].end if after is not None else 0
    spans = ((paras[first].start, paras[last].end), (at, at))
    plan = MovePlan(first, last, after, before, spans)
    result.notes.append(_moved_note(view, plan))
    typed = typed_out_of_sequence(view, first, last, dest)
    if typed:
        result.notes.append(
            "Typed clause numbers do not renumber, and after this move these are out of sequence: "
            + "; ".join(typed)
            + ". Renumber them in another edit if they should follow on."
        )
    return plan


HEADING_CHARS = 100
"""A clause's first paragraph at most this long is a heading (its body follows it)."""


def _unit(view: DocumentView, para: Paragraph) -> tuple[int, int]:
    """The view paragraphs of the clause ``para`` heads (its sub-clauses included), or ``para``
    alone when it heads none."""
    head = para.node
    if head is None or head.index != para.index or head.last < para.index:
        return para.index, para.index
    paras = view.paragraphs
    last = head.last
    if head.number is not None and (last + 1 >= len(paras) or paras[last + 1].story_no != para.story_no):
        # the story's last numbered clause: the unnumbered paragraphs after its last numbered
        # paragraph close the document (signatures, a closing line), they are not the clause's
        trimmed = last
        while trimmed > para.index and not _numbered_head(paras[trimmed]):
            trimmed -= 1
        # (but a top-level heading whose body is all unnumbered -- a schedule's -- keeps its
        # body: the heading alone is not the clause; a sub-clause, or a clause that is one
        # paragraph of text, is its own paragraph)
        heading = head.depth == 0 and len(view.paragraph_text(para).strip()) <= HEADING_CHARS
        last = last if trimmed == para.index and heading else trimmed
    return para.index, last


def _numbered_head(para: Paragraph) -> bool:
    return para.heads and para.node is not None and para.node.number is not None


def _target(
    locator: Locator, edit: EditRecord, result: ResultRecord, para: Paragraph
) -> tuple[int, int] | None:
    """The view paragraphs of the destination clause, or None with ``result`` refused."""
    view = locator.view
    if edit.target is not None:
        heads = sections_named(view, edit.target)  # as `section` is resolved (formatted headings too)
        if not heads:
            near = ", ".join(f"\u201c{h.title}\u201d" for h in view.outline.near(para.node))
            _refused(
                result, EditStatus.NOT_FOUND,
                f"The document has no clause named \u201c{edit.target}\u201d (the move's target).",
                "Name the target as the document numbers it, or quote its words in target_anchor."
                + (f" Clauses near the anchor: {near}." if near else ""),
            )  # fmt: skip
            return None
        if len(heads) > 1:
            both = "; ".join(f"\u201c{_cite(h)}\u201d ({locator.where(view.paragraphs[h.index].start)})"
                             for h in heads[:5])  # fmt: skip
            _refused(
                result, EditStatus.AMBIGUOUS,
                f"The target \u201c{edit.target}\u201d names {len(heads)} clauses: {both}.",
                f"Name one of them in full (e.g. \u201c{_cite(heads[-1])}\u201d), or quote it in "
                "target_anchor.",
                actual_matches=len(heads),
            )  # fmt: skip
            return None
        head = heads[0]
        if view.paragraphs[head.index].node is not head:  # a formatted heading: its own extent
            return head.index, max(head.index, head.last)
        return _unit(view, view.paragraphs[head.index])
    quote = edit.target_anchor or ""
    where = locator.find(quote)
    if not where.ranges:
        refusal = locator.in_deletion(quote) or not_found(
            locator, quote, noun="target_anchor",
            hint="Copy the target_anchor character for character from the destination clause.",
        )  # fmt: skip
        result.status = EditStatus.NOT_FOUND
        result.error = refusal.copy(message=refusal.message + " (the move's target_anchor)")
        return None
    if len(where.ranges) > 1:
        places = "; ".join(locator.where(s) for s, _ in where.ranges[:5])
        _refused(
            result, EditStatus.AMBIGUOUS,
            f"The target_anchor occurs {len(where.ranges)} times: {places}.",
            "Quote enough of the destination clause to name one place.",
            actual_matches=len(where.ranges),
        )  # fmt: skip
        return None
    s, e = where.ranges[0]
    return _unit(view, view.paragraph_at(s))[0], _unit(view, view.paragraph_at(max(s, e - 1)))[1]


def _cite(head: Head) -> str:
    if head.namespace is not None and head.namespace is not head:
        return f"{head.namespace.cite}, {head.cite}"
    return head.cite


def _refused(result: ResultRecord, status: EditStatus, message: str, hint: str, **extra: object) -> None:
    result.status = status
    result.error = RefusalRecord.of_values(
        {
            "code": status.code,
            "message": message,
            "hint": hint,
            "tolerances": list(result.tolerances),
            **extra,
        }
    )


def _moved_note(view: DocumentView, plan: MovePlan) -> str:
    paras = view.paragraphs
    head = paras[plan.first]
    what = f"\u201c{head.title}\u201d" if head.title else f"paragraph {plan.first}"
    if plan.last > plan.first:
        what += f" with the {plan.last - plan.first} paragraph(s) of its clause"
    if plan.before is not None:
        other = paras[plan.before]
        where = f"before \u201c{other.title}\u201d" if other.title else f"before paragraph {plan.before}"
    else:
        assert plan.after is not None
        other = paras[plan.after]
        where = f"after paragraph {plan.after}" + (
            f" (in \u201c{other.section}\u201d)" if other.section else ""
        )
    return f"Moved {what} {where}, as one tracked move (paragraphs {plan.first}-{plan.last})."


# -- what the block holds ---------------------------------------------------------------------
def _obstacle(view: DocumentView, first: int, last: int, dest: int) -> str | None:
    """Why view paragraphs ``first``..``last`` cannot move before view paragraph ``dest``, or None."""
    paras = view.paragraphs
    story = paras[first].story_no
    if any(paras[k].story_no != story for k in range(first, last + 1)):
        return "The clause runs from one part of the document into another."
    if any(p.field_code for p in paras[first : last + 1]):
        return "The clause lies inside a field's instructions."
    near = [k for k in (dest - 1, dest) if 0 <= k < len(paras)]
    if not any(paras[k].story_no == story for k in near):
        return (
            "The destination is in another part of the document (a header, footer or note) than the clause."
        )
    if dest >= len(paras) or paras[dest].story_no != story:
        # measured: LibreOffice keeps the body's last paragraph, so rejecting a move to the very
        # end leaves an empty (numbered) paragraph behind
        return (
            "The destination is the very end of the document: a move there cannot be rejected "
            "cleanly (the last paragraph of a document stays). Move the clause before the "
            "document's last paragraph instead."
        )
    try:
        elements = [paras[k].element for k in range(first, last + 1)]
    except TypeError:  # a verify-only view (apply --dry-run --stream) holds no trees
        return None
    parent = elements[0].getparent()
    if parent is None or any(el.getparent() is not parent for el in elements):
        return "The clause crosses containers (it holds or lies in a table, text box or content control)."
    # joined paragraphs: another author's deleted mark joins a paragraph to the next
    for a, b in ((first - 1, first), (last, last + 1), (dest - 1, dest)):
        same = a >= 0 and b < len(paras) and paras[a].story_no == paras[b].story_no == story
        if same and paras[a].end == paras[b].start:
            return (
                "A paragraph mark at the clause's edge or at the destination is a tracked deletion: "
                "decide it first."
            )
    siblings: list[etree._Element] = []
    node: etree._Element | None = elements[0]
    while node is not None:
        siblings.append(node)
        if node is elements[-1]:
            break
        node = node.getnext()
    if node is None:
        return "The clause's paragraphs are not in document order."
    nxt = elements[-1].getnext()
    while nxt is not None and nxt.tag in (_BM_START, _BM_END, _PROOF):
        nxt = nxt.getnext()
    if nxt is None or nxt.tag == w("sectPr"):
        return (
            "The clause ends its container (the body's or a table cell's last paragraph, which Word "
            "needs where it is): it cannot move away."
        )
    for el in siblings:
        reason = _cannot_hold(el)
        if reason is not None:
            return reason
    reason = _bookmarks(siblings)
    if reason is not None:
        return reason
    # the destination's neighbours must be in the block's container
    for k in near:
        if paras[k].story_no != story:
            continue
        if _outermost(paras[k].element, parent) is None:
            return (
                "The destination lies in another container (a table cell, text box or content "
                "control) than the clause."
            )
    return None


def _cannot_hold(el: etree._Element) -> str | None:
    """Why the sibling ``el`` of a block cannot move, or None."""
    if el.tag in (_BM_START, _BM_END, _PROOF):
        return None
    if el.tag != _P:
        what = _CANNOT.get(el.tag) or f"a {etree.QName(el).localname} element"
        return f"The clause holds {what}, which a move cannot carry."
    revised = [d for d in el.iter() if d.tag in _REVISIONS]
    if revised:
        who = sorted({d.get(_AUTHOR) or "" for d in revised} - {""})
        by = f" by {', '.join(who)}" if who else ""
        return (
            f"The clause holds tracked changes{by}: moving it would change what they proposed. "
            "Decide them first (accept or reject), then move the clause."
        )
    for d in el.iter():
        held = _CANNOT.get(d.tag)
        if held is not None:
            return f"The clause holds {held}, which a move cannot carry whole."
    for child in el:
        if child.tag in (_PPR, _R, _BM_START, _BM_END, _PROOF):
            inner = [child] if child.tag == _R else []
        elif child.tag == _HYPERLINK:
            inner = [c for c in child if c.tag == _R]
            if any(c.tag not in (_R, _BM_START, _BM_END, _PROOF) for c in child):
                return "The clause holds a hyperlink with content a move cannot carry."
        else:
            return f"The clause holds a {etree.QName(child).localname} element, which a move cannot carry."
        for run in inner:
            for item in run:
                if item.tag not in _RUN_CHILDREN:
                    name = etree.QName(item).localname
                    return f"The clause holds a {name} element, which a move cannot carry."
    return None


def _bookmarks(siblings: list[etree._Element]) -> str | None:
    """Why the block's bookmarks stop it: one crossing its edges, or one a field or hyperlink
    refers to (its copy would duplicate the name: only one would remain)."""
    starts: dict[str, str] = {}
    ends: set[str] = set()
    for el in siblings:
        for d in el.iter(_BM_START, _BM_END):
            ident = d.get(_ID) or ""
            if d.tag == _BM_START:
                starts[ident] = d.get(_NAME) or ""
            else:
                ends.add(ident)
    if set(starts) != ends:
        return "A bookmark crosses the clause's edge (it begins inside and ends outside, or the other way)."
    names = {n for n in starts.values() if n and n != "_GoBack"}
    if not names:
        return None
    root = whole_root(siblings[0])
    for d in root.iter(w("instrText"), w("fldSimple"), _HYPERLINK):
        said = (d.text or "") if d.tag == w("instrText") else (d.get(w("instr")) or d.get(w("anchor")) or "")
        if any(name in said for name in names):
            return (
                "The clause holds a bookmark a cross-reference, table of contents or link refers "
                "to: moving it would leave that reference pointing at one of two places."
            )
    return None


def _outermost(el: etree._Element, parent: etree._Element) -> etree._Element | None:
    """``el`` or its ancestor that is a child of ``parent`` (None: none is)."""
    node: etree._Element | None = el
    while node is not None and node.getparent() is not parent:
        node = node.getparent()
    return node


# -- typed numbers ----------------------------------------------------------------------------
def typed_out_of_sequence(view: DocumentView, first: int, last: int, dest: int) -> list[str]:
    """The typed clause numbers the move of view paragraphs ``first``..``last`` before ``dest``
    leaves out of sequence, as phrases ("“8.” follows “6.”"): each pair of consecutive typed
    numbers of one kind and depth that does not count on, and did not before the move."""
    heads = [h for h in view.outline.heads if h.typed and h.number is not None and h.shown]
    if not any(first <= h.index <= last for h in heads):
        return []
    if dest < first:
        order = [
            *range(dest),
            *range(first, last + 1),
            *range(dest, first),
            *range(last + 1, len(view.paragraphs)),
        ]
    else:
        order = [
            *range(first),
            *range(last + 1, dest),
            *range(first, last + 1),
            *range(dest, len(view.paragraphs)),
        ]
    position = {k: n for n, k in enumerate(order)}
    old = _breaks(sorted(heads, key=lambda h: h.index))
    new = _breaks(sorted(heads, key=lambda h: position[h.index]))
    out = []
    for a, b in new:
        if (a, b) not in old:
            out.append(f"\u201c{b.shown}\u201d follows \u201c{a.shown}\u201d")
    return out


def _breaks(heads: list[Head]) -> set[tuple[Head, Head]]:
    """The pairs of consecutive typed numbers (of one kind, depth and style) that do not count on."""
    last: dict[tuple[object, ...], Head] = {}
    out: set[tuple[Head, Head]] = set()
    for h in heads:
        n = h.number
        assert n is not None
        key = (n.kind, n.parenthesised, len(n.path), h.style.lower())
        before = last.get(key)
        if before is not None:
            a, b = _value(before), _value(h)
            if a is not None and b is not None and b != a + 1:
                out.add((before, h))
        last[key] = h
    return out


def _value(head: Head) -> int | None:
    assert head.number is not None
    part = head.number.path[-1]
    if part.isdigit():
        return int(part)
    if head.style.lower() == "i":
        total, prev = 0, 0
        for ch in reversed(part.casefold()):
            v = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}.get(ch)
            if v is None:
                return None
            total = total - v if v < prev else total + v
            prev = max(prev, v)
        return total
    if len(part) == 1 and part.isalpha():
        return ord(part.casefold()) - ord("a") + 1
    return None
