"""Other authors' tracked changes and comments, read and tied to the view (issue 19, "See them").

Every tracked change that holds text -- an insertion, a deletion, a move (each side), a
paragraph mark inserted or deleted, a formatting change of a run, a mark or a paragraph, a
table row inserted or deleted (what each element is: :data:`redline.read.roles.REVISIONS`) -- and
every comment of the comments part, with its thread (``w15:paraIdParent``) and resolved state
(``w15:done``) from ``commentsExtended.xml`` when the document has one.

Each is named by the document's own id (``w:id`` of the revision, ``w:id`` of the
``w:comment``), so a later decision (accept, reject, reply, resolve) finds it again; each keeps
the element it was read from (:attr:`Revision.element`, :attr:`DocComment.element`, in the
view's working copy: the trees a write changes) and its place in the view: the paragraph it
lies in (an index of ``view.paragraphs``) and view offsets.  The view reads the document with
every revision accepted, so an insertion covers view text ``[start, end)``, while a deletion
has none: ``start == end`` is where its text stood.  A paragraph the view drops (its mark
deleted, no text left) lends what it holds to the paragraph it joins (the next one).

The stories are re-read here with the tree walk (:func:`redline.read.walk.read_story`), whose
spans name the very elements met on the way, and each story's text is checked against the
view's before anything is placed by it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml import etree

from ..opc.namespaces import (
    REL_COMMENTS,
    REL_COMMENTS_EXTENDED,
    REL_ENDNOTES,
    REL_FOOTER,
    REL_FOOTNOTES,
    REL_HEADER,
    W14_NS,
    W15_NAMESPACES,
    w,
)
from ..opc.package import Package
from .build import stories_of
from .ids import hex_key, id_key, id_number, same_id
from .paragraphs import StoryText
from .roles import CHAR_OF, RevisionKind, record_kind, revision_kind, symbol, track_field
from .view import DocumentView, SpanKind
from .walk import ancestor, read_story

__all__ = ["Annotations", "DocComment", "Revision", "read_annotations"]

_P, _R, _TR, _TC, _TBL = w("p"), w("r"), w("tr"), w("tc"), w("tbl")
_SDT, _SDT_CONTENT, _TBL_PR_EX_CHANGE = w("sdt"), w("sdtContent"), w("tblPrExChange")
_ID, _AUTHOR, _DATE, _INITIALS, _NAME = w("id"), w("author"), w("date"), w("initials"), w("name")
_T, _DEL_TEXT, _SYM, _CHAR, _FLD_CHAR, _FLD_TYPE = (
    w("t"), w("delText"), w("sym"), w("char"), w("fldChar"), w("fldCharType"),
)  # fmt: skip
_C_START, _C_END, _C_REF = w("commentRangeStart"), w("commentRangeEnd"), w("commentReference")
_MOVE_STARTS = (w("moveFromRangeStart"), w("moveToRangeStart"))
_MOVE_ENDS = (w("moveFromRangeEnd"), w("moveToRangeEnd"))
_COMMENT = w("comment")
_PARA_ID = f"{{{W14_NS}}}paraId"
_EX_TAGS = tuple(f"{{{ns}}}commentEx" for ns in W15_NAMESPACES)
_TRUE = frozenset(("1", "true", "on"))
_GONE = frozenset((RevisionKind.DELETE, RevisionKind.MOVE_FROM))
_MARK = "\n"  # the text of a paragraph mark (as the view reads one)


@dataclass(frozen=True)
class Revision:
    """One tracked change: ``id`` is the document's ``w:id`` (a string, as written)."""

    id: str
    kind: RevisionKind
    author: str | None
    date: str | None
    text: str  # inserted text as read accepted; deleted text as it was; "\n" for a mark
    paragraph: int | None  # the view paragraph it lies in (None: the story has no paragraph)
    part: str
    start: int  # view offsets: the text it covers (insertions), or where it stood (start == end)
    end: int
    move: str | None = None  # a move's name (w:moveFromRangeStart/w:moveToRangeStart w:name)
    element: etree._Element | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.id, "kind": self.kind.value, "author": self.author, "date": self.date,
            "text": self.text, "paragraph": self.paragraph, "part": self.part,
            "start": self.start, "end": self.end,
        }  # fmt: skip
        if self.move is not None:
            out["move"] = self.move
        return out


@dataclass(frozen=True)
class DocComment:
    """One ``w:comment``: ``id`` its ``w:id``; ``quote`` the view text its range covers."""

    id: str
    author: str | None
    date: str | None
    initials: str | None
    text: str
    paragraph: int | None  # where its range starts (or its reference stands); None: not anchored
    part: str | None  # the story part it is anchored in
    start: int
    end: int
    quote: str
    parent: str | None  # the comment it replies to (commentsExtended w15:paraIdParent)
    resolved: bool  # w15:done on it, or on the comment it replies to
    para_id: str | None = None  # its last paragraph's w14:paraId (its key in commentsExtended)
    element: etree._Element | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id, "author": self.author, "date": self.date, "text": self.text,
            "quote": self.quote, "paragraph": self.paragraph, "part": self.part,
            "start": self.start, "end": self.end, "parent": self.parent, "resolved": self.resolved,
        }  # fmt: skip


@dataclass
class Annotations:
    """Every revision and comment of a document, in document order (view order)."""

    revisions: list[Revision] = field(default_factory=list)
    comments: list[DocComment] = field(default_factory=list)
    empty: list[Revision] = field(default_factory=list)  # w:ins / w:del holding nothing: not listed
    comments_part: str | None = None
    threads: bool = False  # the document has a commentsExtended part

    def revision(self, rid: str) -> list[Revision]:
        """Every revision with id ``rid`` (one in a well-formed document)."""
        return [r for r in self.revisions if same_id(r.id, rid)]

    def comment(self, cid: str) -> list[DocComment]:
        return [c for c in self.comments if same_id(c.id, cid)]

    def __bool__(self) -> bool:
        return bool(self.revisions or self.comments)


# -------------------------------------------------------------------------------------------


def read_annotations(package: Package, view: DocumentView) -> Annotations:
    """Every revision and comment of ``package``, placed in ``view`` (built by
    :func:`redline.read.build.build_view`: its working copy's trees are read)."""
    if view.working is None:
        raise TypeError("the view has no working copy: build it with build_view()")
    found = Annotations()
    if not package.related(package.main_part, REL_COMMENTS) and not any(
        _MAY_HOLD.search(package.read(p)) for p in _story_part_names(package)
    ):
        return found  # nothing to read: no tree walked
    anchors: dict[str, tuple[int | None, str, int, int | None]] = {}  # comment id -> place
    next_para = 0
    for story in stories_of(package, view.working):
        assert story.root is not None
        read = read_story(story.root)
        if not read.paragraphs:
            continue
        first = next_para
        next_para += len(read.paragraphs)
        walker = _StoryWalk(view, read, first, story.part, found, anchors)
        walker.run(story.root)
    _read_comments(package, view, found, anchors)
    return found


_MAY_HOLD = re.compile(
    rb"<(?:\w+:)?(?:ins|del|moveFrom|moveTo|rPrChange|pPrChange|sectPrChange|tblPrChange|trPrChange"
    rb"|tcPrChange|tblGridChange|tblPrExChange|cellIns|cellDel|cellMerge|numberingChange"
    rb"|customXml(?:Ins|Del|MoveFrom|MoveTo)RangeStart)[\s/>]"
)


def _story_part_names(package: Package) -> list[str]:
    main = package.main_part
    names = [main]
    for rel in package.rels(main):
        story = rel.type in (REL_HEADER, REL_FOOTER, REL_FOOTNOTES, REL_ENDNOTES)
        if story and not rel.external and rel.target in package and rel.target != main:
            names.append(rel.target)
    return names


@dataclass
class _Open:
    """A paragraph being walked: its view index (None: one the view dropped) and where the
    walk stands in it (the view offset after the last text met)."""

    element: etree._Element
    index: int | None
    pos: int


class _StoryWalk:
    def __init__(
        self,
        view: DocumentView,
        read: StoryText,
        first: int,
        part: str,
        found: Annotations,
        anchors: dict[str, tuple[int | None, str, int, int | None]],
    ) -> None:
        self.view, self.part, self.found, self.anchors = view, part, found, anchors
        paras = view.paragraphs
        s0 = read.paragraphs[0][0]
        self.base = paras[first].start - s0
        text = "".join(read.pieces)
        last = first + len(read.paragraphs) - 1
        if (
            last >= len(paras)
            or view.text[paras[first].start : paras[last].end] != text[s0 : read.paragraphs[-1][1]]
        ):
            raise RuntimeError(f"the tree walk of {part} disagrees with the view")
        self.index = {ref: first + j for j, (_, _, ref, _) in enumerate(read.paragraphs)}
        self.first, self.last = first, last
        # every text-making node -> (view offset, length)
        self.at: dict[etree._Element, tuple[int, int]] = {}
        base = self.base
        offsets, pieces, kinds, nodes = read.offsets, read.pieces, read.kinds, read.nodes
        for i, node in enumerate(nodes):
            if kinds[i] != SpanKind.MARK:
                self.at[node] = (base + offsets[i], len(pieces[i]))
        self.stack: list[_Open] = []
        self.orphans: list[tuple[str, Revision | tuple[str, bool]]] = []
        self.last_end = paras[first].start  # where the last paragraph closed
        self.moves: dict[str, str] = {}  # open move range id -> name

    # -- where the walk stands -------------------------------------------------------------
    def _here(self) -> tuple[int | None, int] | None:
        """(paragraph, offset) of the walk now; None inside a dropped paragraph or between
        paragraphs before the first one (placed when the next paragraph begins)."""
        if self.stack:
            top = self.stack[-1]
            return (top.index, top.pos) if top.index is not None else None
        return None

    def run(self, root: etree._Element) -> None:
        deleted = 0  # depth inside deleted content (text there is not the view's)
        gone: list[etree._Element] = []
        for event, el in etree.iterwalk(root, events=("start", "end")):
            tag = el.tag
            if not isinstance(tag, str):
                continue
            if event == "end":
                if tag == _P:
                    self._end_paragraph()
                elif gone and gone[-1] is el:
                    gone.pop()
                    deleted -= 1
                continue
            if tag == _P:
                self._begin_paragraph(el)
                continue
            spot = self.at.get(el)
            if spot is not None and self.stack:
                self.stack[-1].pos = spot[0] + spot[1]
                continue
            if tag in _MOVE_STARTS:
                self.moves[id_key(el.get(_ID))] = el.get(_NAME) or ""
                continue
            if tag in _MOVE_ENDS:
                self.moves.pop(id_key(el.get(_ID)), None)
                continue
            if tag in (_C_START, _C_END, _C_REF):
                self._comment_mark(el)
                continue
            record = record_kind(el)
            if record is not None:
                self._record(el, record)
                continue
            kind = revision_kind(el)
            if kind is None:
                continue
            if kind in _CONTENT_KINDS and not any(isinstance(c.tag, str) for c in el) and _at_content(el):
                # an insertion or deletion that holds nothing changes nothing: not listed (Word
                # shows none); a decision on its author's changes removes it with them
                here = self._here()
                para, at = here if here is not None else (None, 0)
                self.found.empty.append(
                    Revision(el.get(_ID) or "", kind, el.get(_AUTHOR), el.get(_DATE), "", para, self.part,
                             at, at, None, el)
                )  # fmt: skip
                continue
            self._revision(el, kind, deleted > 0)
            if kind in _GONE:
                gone.append(el)
                deleted += 1
        self._flush(self.view.paragraphs[self.last].index, self.view.paragraphs[self.last].end)

    def _begin_paragraph(self, el: etree._Element) -> None:
        index = self.index.get(el)
        pos = self.view.paragraphs[index].start if index is not None else 0
        self.stack.append(_Open(el, index, pos))
        if index is not None:
            self._flush(index, pos)

    def _end_paragraph(self) -> None:
        top = self.stack.pop()
        if top.index is not None:
            self.last_end = self.view.paragraphs[top.index].end

    # -- revisions -------------------------------------------------------------------------
    def _revision(self, el: etree._Element, kind: RevisionKind, in_deleted: bool) -> None:
        rid, author, date = el.get(_ID) or "", el.get(_AUTHOR), el.get(_DATE)
        move = None
        if kind in (RevisionKind.MOVE_FROM, RevisionKind.MOVE_TO):
            move = self._move_name(el)
        here = self._here()
        top = self.stack[-1] if self.stack else None
        index = here[0] if here else None
        view = self.view
        if kind in (RevisionKind.PARAGRAPH_INSERT, RevisionKind.PARAGRAPH_DELETE) or (
            kind in (RevisionKind.MOVE_FROM, RevisionKind.MOVE_TO, RevisionKind.FORMAT) and _in_mark(el)
        ):
            # the mark: where the paragraph ends (a dropped paragraph's: where the next begins)
            if top is not None and top.index is not None:
                end = view.paragraphs[top.index].end
                self._add(Revision(rid, kind, author, date, _MARK, top.index, self.part, end, end, move, el))
            else:
                self._orphan(Revision(rid, kind, author, date, _MARK, None, self.part, 0, 0, move, el))
            return
        if kind is RevisionKind.PARAGRAPH_FORMAT:
            if top is not None and top.index is not None:
                p = view.paragraphs[top.index]
                rev = Revision(
                    rid,
                    kind,
                    author,
                    date,
                    view.paragraph_text(p),
                    p.index,
                    self.part,
                    p.start,
                    p.end,
                    None,
                    el,
                )
                self._add(rev)
            else:
                self._orphan(Revision(rid, kind, author, date, "", None, self.part, 0, 0, None, el))
            return
        if kind in (RevisionKind.ROW_INSERT, RevisionKind.ROW_DELETE):
            row = ancestor(el, _TR)
            inside = [self.index[p] for p in row.iter(_P) if p in self.index] if row is not None else []
            if inside:
                a, b = view.paragraphs[min(inside)], view.paragraphs[max(inside)]
                text = view.text[a.start : b.end]
                self._add(
                    Revision(rid, kind, author, date, text, a.index, self.part, a.start, b.end, None, el)
                )
            else:
                self._orphan(Revision(rid, kind, author, date, "", None, self.part, 0, 0, None, el))
            return
        # content: what it holds (a run's, for a run's formatting change; a content
        # control's, for the formatting of its runs in w:sdtPr / w:sdtEndPr)
        holder = el if kind is not RevisionKind.FORMAT else ancestor(el, _R)
        if holder is None:
            sdt = ancestor(el, _SDT)
            holder = sdt.find(_SDT_CONTENT) if sdt is not None else None
        if holder is None:
            if here is None:
                self._orphan(Revision(rid, kind, author, date, "", None, self.part, 0, 0, move, el))
            else:
                self._add(Revision(rid, kind, author, date, "", index, self.part, here[1], here[1], move, el))
            return
        if kind in _GONE or in_deleted:
            text = _xml_text(holder)
            if here is None:
                self._orphan(Revision(rid, kind, author, date, text, None, self.part, 0, 0, move, el))
            else:
                self._add(
                    Revision(rid, kind, author, date, text, index, self.part, here[1], here[1], move, el)
                )
            return
        spots = [self.at[n] for n in holder.iter() if n in self.at]
        if spots:
            start, end = spots[0][0], spots[-1][0] + spots[-1][1]
            text = "".join(view.text[s : s + n] for s, n in spots)
            para = view.paragraph_at(start).index
            self._add(Revision(rid, kind, author, date, text, para, self.part, start, end, move, el))
        elif here is None:
            self._orphan(Revision(rid, kind, author, date, "", None, self.part, 0, 0, move, el))
        else:
            self._add(Revision(rid, kind, author, date, "", index, self.part, here[1], here[1], move, el))

    def _record(self, el: etree._Element, kind: RevisionKind) -> None:
        """A revision record that changes no text (issue 30): placed on what it changes -- a
        paragraph (its numbering, its section break), a table, a row or a cell (their
        paragraphs' text); a section's at the last paragraph."""
        rid, author, date = el.get(_ID) or "", el.get(_AUTHOR), el.get(_DATE)
        view = self.view
        holder: etree._Element | None = None
        if kind in (RevisionKind.TABLE_FORMAT,):
            holder = ancestor(el, _TBL)
            if el.tag == _TBL_PR_EX_CHANGE:
                holder = ancestor(el, _TR)
        elif kind is RevisionKind.ROW_FORMAT:
            holder = ancestor(el, _TR)
        elif kind in (
            RevisionKind.CELL_FORMAT, RevisionKind.CELL_INSERT, RevisionKind.CELL_DELETE,
            RevisionKind.CELL_MERGE,
        ):  # fmt: skip
            holder = ancestor(el, _TC)
        elif kind in (RevisionKind.CUSTOM_XML_INSERT, RevisionKind.CUSTOM_XML_DELETE):
            parent = el.getparent()  # the custom XML element whose markup it marks (or its place)
            holder = parent if parent is not None and parent.tag == w("customXml") else ancestor(el, _P)
        else:  # numbering, a section break: the paragraph whose properties hold it
            holder = ancestor(el, _P)
        inside = [self.index[p] for p in holder.iter(_P) if p in self.index] if holder is not None else []
        if not inside:  # (markup inside a paragraph: that paragraph)
            around = ancestor(el, _P)
            inside = [self.index[around]] if around is not None and around in self.index else []
        if inside:
            a, b = view.paragraphs[min(inside)], view.paragraphs[max(inside)]
            self._add(
                Revision(rid, kind, author, date, view.text[a.start : b.end], a.index, self.part,
                         a.start, b.end, None, el)
            )  # fmt: skip
        else:
            self._orphan(Revision(rid, kind, author, date, "", None, self.part, 0, 0, None, el))

    def _move_name(self, el: etree._Element) -> str | None:
        """The move ``el`` belongs to: the innermost move range open (the last opened)."""
        return list(self.moves.values())[-1] if self.moves else None

    def _add(self, rev: Revision) -> None:
        self.found.revisions.append(rev)

    def _orphan(self, rev: Revision) -> None:
        self.found.revisions.append(rev)
        self.orphans.append(("revision", rev))

    # -- comment anchors -------------------------------------------------------------------
    def _comment_mark(self, el: etree._Element) -> None:
        cid = id_key(el.get(_ID))  # the anchors are keyed by number, as Word pairs them
        here = self._here()
        if el.tag == _C_START:
            if here is None:
                self.orphans.append(("start", (cid, True)))
            else:
                self._anchor_start(cid, here[0], here[1])
        elif el.tag == _C_END:
            if here is not None:
                self._anchor_end(cid, here[1])
            elif not self.stack:
                self._anchor_end(cid, self.last_end)
            else:
                self.orphans.append(("end", (cid, True)))
        else:  # a reference: the place of a comment without a range
            if cid not in self.anchors:
                if here is None:
                    self.orphans.append(("start", (cid, False)))
                    self.orphans.append(("end", (cid, False)))
                else:
                    self._anchor_start(cid, here[0], here[1])
                    self._anchor_end(cid, here[1])

    def _anchor_start(self, cid: str, index: int | None, pos: int) -> None:
        if cid not in self.anchors:
            self.anchors[cid] = (index, self.part, pos, None)

    def _anchor_end(self, cid: str, pos: int) -> None:
        found = self.anchors.get(cid)
        if found is not None and found[3] is None and found[1] == self.part:
            self.anchors[cid] = (found[0], found[1], found[2], max(pos, found[2]))

    def _flush(self, index: int, pos: int) -> None:
        """Place what a dropped paragraph (or the space before a paragraph) held at ``pos``,
        in paragraph ``index``."""
        if not self.orphans:
            return
        orphans, self.orphans = self.orphans, []
        revisions = self.found.revisions
        for what, item in orphans:
            if isinstance(item, Revision):
                k = next(i for i in range(len(revisions) - 1, -1, -1) if revisions[i] is item)
                revisions[k] = Revision(
                    item.id, item.kind, item.author, item.date, item.text, index, item.part, pos, pos,
                    item.move, item.element,
                )  # fmt: skip
            elif what == "start":
                self._anchor_start(item[0], index, pos)
            else:
                self._anchor_end(item[0], pos)


_CONTENT_KINDS = frozenset(
    (RevisionKind.INSERT, RevisionKind.DELETE, RevisionKind.MOVE_FROM, RevisionKind.MOVE_TO)
)


def _at_content(el: etree._Element) -> bool:
    parent = el.getparent()
    return parent is not None and parent.tag not in (w("rPr"), w("trPr"), w("numPr"))


def _in_mark(el: etree._Element) -> bool:
    parent = el.getparent()
    grand = parent.getparent() if parent is not None else None
    return parent is not None and parent.tag == w("rPr") and grand is not None and grand.tag == w("pPr")


def _xml_text(holder: etree._Element) -> str:
    """The text ``holder`` holds as written (deleted text included): w:t, w:delText, the
    one-character elements inside runs and symbols, never a field's instructions."""
    out: list[str] = []
    fields: list[bool] = []
    for node in holder.iter():
        tag = node.tag
        if tag == _FLD_CHAR:
            track_field(fields, node.get(_FLD_TYPE))
            continue
        if fields and not fields[-1]:
            continue
        if tag in (_T, _DEL_TEXT):
            out.append(node.text or "")
        elif tag == _SYM:
            out.append(symbol(node.get(_CHAR)))
        elif isinstance(tag, str) and tag in CHAR_OF:
            parent = node.getparent()
            if parent is not None and parent.tag == _R:
                out.append(CHAR_OF[tag])
    return "".join(out)


def _paragraphs_text(el: etree._Element) -> str:
    return "\n".join(_xml_text(p) for p in el.iter(_P))


# -------------------------------------------------------------------------------------------
# The comments part and its threads


def _read_comments(
    package: Package,
    view: DocumentView,
    found: Annotations,
    anchors: dict[str, tuple[int | None, str, int, int | None]],
) -> None:
    main = package.main_part
    parts = package.related(main, REL_COMMENTS)
    if not parts:
        return
    part = parts[0]
    root = view.working.xml(part) if view.working is not None else package.xml(part)
    if root.tag != _COMMENT.replace("comment", "comments"):
        return
    found.comments_part = part
    thread: dict[str, tuple[str | None, bool]] = {}  # paraId -> (parent paraId, done)
    extended = package.related(main, REL_COMMENTS_EXTENDED)
    if extended:
        found.threads = True
        for ex in _iter_ex(package, extended[0]):
            ns = etree.QName(ex).namespace  # the entry's own: 2012, or Word 2013's pre-release
            pid = ex.get(f"{{{ns}}}paraId")
            if pid:  # (paraIds are hex numbers: "0000000a" is "A", redline.read.ids.hex_key)
                parent_ex = ex.get(f"{{{ns}}}paraIdParent")
                thread[hex_key(pid)] = (
                    hex_key(parent_ex) if parent_ex else None,
                    (ex.get(f"{{{ns}}}done") or "").lower() in _TRUE,
                )
    by_para: dict[str, str] = {}
    raw: list[tuple[etree._Element, str, str | None]] = []
    for el in root.iterchildren(_COMMENT):
        cid = el.get(_ID) or ""
        paras = list(el.iter(_P))
        pid = paras[-1].get(_PARA_ID) if paras else None
        if pid:
            by_para.setdefault(hex_key(pid), cid)
        raw.append((el, cid, pid))
    for el, cid, pid in raw:
        parent_pid, done = thread.get(hex_key(pid) if pid else "", (None, False))
        parent = by_para.get(parent_pid) if parent_pid else None
        if parent is not None and not done:
            done = thread.get(parent_pid or "", (None, False))[1]
        anchor = anchors.get(id_key(cid))
        if anchor is None:
            index, where, start, end = None, None, 0, 0
        else:
            index, where, start, stop = anchor
            end = start if stop is None else stop
        found.comments.append(
            DocComment(
                cid, el.get(_AUTHOR), el.get(_DATE), el.get(_INITIALS), _paragraphs_text(el), index,
                where, start, end, view.text[start:end], parent, done, pid, el,
            )
        )  # fmt: skip
    found.comments.sort(key=lambda c: (c.paragraph is None, c.start, _order(c.id)))


def _order(cid: str) -> tuple[int, str]:
    number = id_number(cid)
    return (number, "") if number is not None else (1 << 62, cid)


def _iter_ex(package: Package, part: str) -> Iterator[etree._Element]:
    """Every ``w15:commentEx`` of the commentsExtended part, in either namespace Word has
    written it in (2012, or the 2010/11 of Word 2013's pre-release)."""
    root = package.xml(part)
    yield from root.iter(*_EX_TAGS)
