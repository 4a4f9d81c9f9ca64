"""Word comments that carry an edit's rationale (ECMA-376 Part 1, §17.13.4).

Adds ``w:comment`` entries to the comments part of a write's working copy, creating the part,
its relationship from the main document and its content-type override when the document has
none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lxml import etree

from shared_schema import Code

from ..errors import PackageError
from ..opc.namespaces import (
    CT_COMMENTS,
    CT_NS,
    PKG_REL_NS,
    REL_COMMENTS,
    W15_NAMESPACES,
    W15_NS,
    W_NS,
    XML_SPACE,
    w,
)
from ..opc.package import Package
from ..opc.parts import rels_part_for
from ..opc.working import WorkingCopy
from ..opc.xmlparse import parse_xml, serialize
from ..read.ids import hex_key, same_id
from .options import Comment, WriteOptions

if TYPE_CHECKING:  # (a run with no thread to write never imports redline.match.decisions)
    from ..match.decisions import Thread

COMMENTS_PART = "word/comments.xml"


def _comment_element(comment: Comment, options: WriteOptions, stamp: str) -> etree._Element:
    el = etree.Element(w("comment"))
    el.set(w("id"), str(comment.id))
    el.set(w("author"), options.author)
    el.set(w("date"), stamp)
    initials = "".join(part[0] for part in options.author.split() if part)[:4]
    if initials:
        el.set(w("initials"), initials)
    for i, line in enumerate(comment.text.splitlines() or [""]):
        p = etree.SubElement(el, w("p"))
        if i == 0:
            ref = etree.SubElement(p, w("r"))
            etree.SubElement(ref, w("annotationRef"))
        r = etree.SubElement(p, w("r"))
        t = etree.SubElement(r, w("t"))
        t.text = line
        if line != line.strip() or "  " in line:
            t.set(XML_SPACE, "preserve")
    return el


def relate(rels: etree._Element, main: str, part: str, rel_type: str) -> None:
    """Add to ``rels`` (the main part's relationships) one of ``rel_type`` from ``main`` to
    ``part``, under an id no relationship there has."""
    ids = {rel.get("Id") for rel in rels}
    k = 1
    while f"rIdRedline{k}" in ids:
        k += 1
    rel = etree.SubElement(rels, f"{{{PKG_REL_NS}}}Relationship")
    rel.set("Id", f"rIdRedline{k}")
    rel.set("Type", rel_type)
    main_dir = main.rsplit("/", 1)[0] + "/" if "/" in main else ""
    rel.set("Target", part[len(main_dir) :] if part.startswith(main_dir) else "/" + part)


def add_comments(
    working: WorkingCopy, comments: list[Comment], options: WriteOptions, stamp: str
) -> tuple[dict[str, bytes], list[tuple[str, bytes]]]:
    """The changed and added parts that put ``comments`` into the document ``working`` is a
    working copy of (its trees are changed: the comments part, the main part's relationships,
    the content types)."""
    package = working.package
    main = package.main_part
    existing = package.related(main, REL_COMMENTS)
    changed: dict[str, bytes] = {}
    added: list[tuple[str, bytes]] = []
    if existing:
        part = existing[0]
        root = working.xml(part)
        if part == main or root.tag != w("comments"):
            raise PackageError(
                Code.WRONG_PART_KIND,
                f"The document's comments relationship points at {part}, which is not a comments "
                "part; the file is refused rather than written wrong.",
                part,
            )
        for c in comments:
            root.append(_comment_element(c, options, stamp))
        changed[part] = serialize(root)
        return changed, added

    root = etree.Element(w("comments"), nsmap={"w": W_NS})
    for c in comments:
        root.append(_comment_element(c, options, stamp))
    part = COMMENTS_PART
    n = 1
    while part in package:
        part = f"word/comments{n}.xml"
        n += 1
    added.append((part, serialize(root)))

    rels_name = rels_part_for(main)
    if rels_name in package:
        rels = working.xml(rels_name)
    else:
        rels = parse_xml(f'<Relationships xmlns="{PKG_REL_NS}"/>'.encode(), rels_name)
    relate(rels, main, part, REL_COMMENTS)
    if rels_name in package:
        changed[rels_name] = serialize(rels)
    else:
        added.append((rels_name, serialize(rels)))

    types = working.xml("[Content_Types].xml")
    override = etree.SubElement(types, f"{{{CT_NS}}}Override")
    override.set("PartName", "/" + part)
    override.set("ContentType", CT_COMMENTS)
    changed["[Content_Types].xml"] = serialize(types)
    return changed, added


# -------------------------------------------------------------------------------------------
# Threads: replies and resolved comments (word/commentsExtended.xml, commentsIds, people)

W14_NS = "http://schemas.microsoft.com/office/word/2010/wordml"
W16CID_NS = "http://schemas.microsoft.com/office/word/2016/wordml/cid"
W16CEX_NS = "http://schemas.microsoft.com/office/word/2018/wordml/cex"
REL_COMMENTS_EXTENDED = "http://schemas.microsoft.com/office/2011/relationships/commentsExtended"
REL_COMMENTS_IDS = "http://schemas.microsoft.com/office/2016/09/relationships/commentsIds"
REL_COMMENTS_EXTENSIBLE = "http://schemas.microsoft.com/office/2018/08/relationships/commentsExtensible"
REL_PEOPLE = "http://schemas.microsoft.com/office/2011/relationships/people"
_CT_WML = "application/vnd.openxmlformats-officedocument.wordprocessingml."
_PARA_ID = f"{{{W14_NS}}}paraId"
_TEXT_ID = f"{{{W14_NS}}}textId"
_CID, _CID_PARA, _CID_DURABLE = (
    f"{{{W16CID_NS}}}commentId", f"{{{W16CID_NS}}}paraId", f"{{{W16CID_NS}}}durableId",
)  # fmt: skip
_CEX, _CEX_DURABLE, _CEX_DATE = (
    f"{{{W16CEX_NS}}}commentExtensible", f"{{{W16CEX_NS}}}durableId", f"{{{W16CEX_NS}}}dateUtc",
)  # fmt: skip
_HEX_ID = re.compile(rb"""(?:paraId|durableId)\s*=\s*["'][ \t\r\n]*([0-9A-Fa-f]+)[ \t\r\n]*["']""")
_MARKS = (w("commentRangeStart"), w("commentRangeEnd"), w("commentReference"))


@dataclass
class _Parts:
    """The thread parts of one write: existing ones (their trees) and new ones."""

    working: WorkingCopy
    changed: dict[str, bytes]
    added: list[tuple[str, bytes]]
    new: dict[str, etree._Element] = field(default_factory=dict)
    touched: dict[str, etree._Element] = field(default_factory=dict)

    def existing(self, rel_type: str, root_tags: tuple[str, ...]) -> etree._Element | None:
        """The document's own part of ``rel_type`` (its tree), None when it has none; a part
        whose root is none of ``root_tags`` refuses the document, saying what it holds."""
        package = self.working.package
        main = package.main_part
        found = package.related(main, rel_type)
        if not found:
            return None
        part = found[0]
        root = self.working.xml(part)
        if part == main or root.tag not in root_tags:
            kind = rel_type.rsplit("/", 1)[-1]
            held = etree.QName(root)
            wanted = etree.QName(root_tags[0]).localname
            spaces = " or ".join(sorted({str(etree.QName(t).namespace) for t in root_tags}))
            raise PackageError(
                Code.WRONG_PART_KIND,
                f"The document's {kind} relationship points at {part}, whose root element is "
                f"{held.localname!r} in the namespace {held.namespace or '(none)'}; a {kind} part "
                f"is a {wanted!r} in {spaces}. The file is refused rather than written wrong.",
                part,
            )
        self.touched[part] = root
        return root

    def get(self, rel_type: str, name: str, ct: str, root_tag: str, nsmap: dict[str, str],
            create: bool = True, also: tuple[str, ...] = ()) -> etree._Element | None:  # fmt: skip
        """The part of ``rel_type``: the document's own (its root ``root_tag`` or one of
        ``also``), one this write made, or (``create``) a new one with root ``root_tag``."""
        package = self.working.package
        root = self.existing(rel_type, (root_tag, *also))
        if root is not None:
            return root
        for made in self.new.values():
            if made.tag in (root_tag, *also):
                return made
        if not create:
            return None
        part = f"word/{name}.xml"
        n = 1
        while part in package or part in self.new:
            part = f"word/{name}{n}.xml"
            n += 1
        root = etree.Element(root_tag, nsmap=nsmap)
        self.new[part] = root
        self._relate(part, rel_type, ct)
        return root

    def _relate(self, part: str, rel_type: str, ct: str) -> None:
        package = self.working.package
        main = package.main_part
        rels_name = rels_part_for(main)
        rels = self.working.xml(rels_name) if rels_name in package else self.new.setdefault(
            rels_name, parse_xml(f'<Relationships xmlns="{PKG_REL_NS}"/>'.encode(), rels_name)
        )  # fmt: skip
        relate(rels, main, part, rel_type)
        if rels_name in package:
            self.touched[rels_name] = rels
        types = self.working.xml("[Content_Types].xml")
        override = etree.SubElement(types, f"{{{CT_NS}}}Override")
        override.set("PartName", "/" + part)
        override.set("ContentType", ct)
        self.touched["[Content_Types].xml"] = types

    def finish(self) -> None:
        for part, root in self.touched.items():
            self.changed[part] = serialize(root)
        for part, root in self.new.items():
            self.added.append((part, serialize(root)))


class _Ids:
    """New w14:paraId / w16cid:durableId values: 8 hex digits below 0x80000000, unique in the
    package (every value any part holds is avoided), the same for the same document."""

    def __init__(self, package: Package) -> None:
        self.used: set[int] = set()
        for name in package.names:
            if name.endswith(".xml"):
                self.used.update(int(m, 16) for m in _HEX_ID.findall(package.read(name)))
        self.next = 0x52450000  # "RE"

    def new(self) -> str:
        while self.next in self.used:
            self.next += 1
        self.used.add(self.next)
        return f"{self.next:08X}"


def _last_paragraph_id(comment: etree._Element, ids: _Ids) -> str:
    """The w14:paraId of ``comment``'s last paragraph (its key in commentsExtended), given
    one when it has none."""
    paras = list(comment.iter(w("p")))
    if not paras:
        paras = [etree.SubElement(comment, w("p"))]
    last = paras[-1]
    pid = last.get(_PARA_ID)
    if not pid:
        pid = ids.new()
        last.set(_PARA_ID, pid)
        if last.get(_TEXT_ID) is None:
            last.set(_TEXT_ID, "77777777")
    return pid


def write_threads(
    working: WorkingCopy,
    threads: list[Thread],
    roots: dict[str, etree._Element],
    options: WriteOptions,
    stamp: str,
    new_id: Callable[[], str],
) -> tuple[dict[str, bytes], list[tuple[str, bytes]]]:
    """Write each reply (a new ``w:comment`` on its parent's range, threaded under it in
    commentsExtended, with a durable id in commentsIds and its author in people) and each
    resolved thread (``w15:done="1"`` on its comments' commentEx), creating the parts Word
    expects when the document has none; the parts it changed (their bytes, a part
    :func:`add_comments` changed too given again, as it is now) and the parts it added."""
    changed: dict[str, bytes] = {}
    added: list[tuple[str, bytes]] = []
    package = working.package
    main = package.main_part
    comments_part = package.related(main, REL_COMMENTS)[0]
    comments_root = working.xml(comments_part)
    parts = _Parts(working, changed, added)
    ids = _Ids(package)
    ns = _thread_namespace(parts)
    extended = parts.get(
        REL_COMMENTS_EXTENDED, "commentsExtended", _CT_WML + "commentsExtended+xml",
        f"{{{ns}}}commentsEx", {"w15": ns}, also=_roots("commentsEx"),
    )  # fmt: skip
    assert extended is not None
    ex_ns = etree.QName(extended).namespace or ns  # entries in their part's own namespace
    ex_tag, ex_para, ex_parent, ex_done = (
        f"{{{ex_ns}}}{n}" for n in ("commentEx", "paraId", "paraIdParent", "done")
    )
    ex_of = {hex_key(ex.get(ex_para)): ex for ex in extended.iter(ex_tag)}  # (hex numbers)

    def ex_for(pid: str, parent: str | None) -> etree._Element:
        ex = ex_of.get(hex_key(pid))
        if ex is None:
            ex = etree.SubElement(extended, ex_tag)
            ex.set(ex_para, pid)
            if parent is not None:
                ex.set(ex_parent, parent)
            ex.set(ex_done, "0")
            ex_of[hex_key(pid)] = ex
        return ex

    after: dict[str, etree._Element] = {}  # parent id -> the last thing a reply put after it
    marks_of: dict[str, dict[str, etree._Element]] = {}  # parent id -> its marks, found once
    new_comments: list[tuple[str, str]] = []  # (paraId, date) of each reply
    for thread in threads:
        root_el = thread.root.element
        assert root_el is not None
        root_pid = _last_paragraph_id(root_el, ids)
        ex_for(root_pid, None)
        if thread.text is None:  # resolve: the whole thread
            for c in [thread.root, *thread.replies]:
                if c.element is None:
                    continue
                pid = _last_paragraph_id(c.element, ids)
                ex = ex_for(pid, None if c is thread.root else root_pid)
                ex.set(ex_done, "1")
            continue
        cid = new_id()
        el = _comment_element(Comment(int(cid), thread.text), options, stamp)
        pid = _last_paragraph_id(el, ids)
        # in the comments part, after the thread's last comment (found once a thread)
        last_el = after.get("c:" + thread.root.id)
        if last_el is None:
            thread_els = [c.element for c in [thread.root, *thread.replies] if c.element is not None]
            thread_els = [e for e in thread_els if e.getparent() is comments_root]
            if thread_els:
                last_el = max(thread_els, key=comments_root.index)
        if last_el is not None:
            last_el.addnext(el)
        else:
            comments_root.append(el)
        after["c:" + thread.root.id] = el
        ex_for(pid, root_pid)
        new_comments.append((pid, stamp))
        _anchor_reply(roots, thread.root.id, cid, after, marks_of)
    if new_comments:
        _durable_ids(parts, ids, new_comments)
        _person(parts, options.author, ns)
    changed[comments_part] = serialize(comments_root)
    parts.finish()
    return changed, added


def _anchor_reply(
    roots: dict[str, etree._Element],
    parent: str,
    cid: str,
    after: dict[str, etree._Element],
    marks_of: dict[str, dict[str, etree._Element]] | None = None,
) -> None:
    """commentRangeStart / End and a commentReference for comment ``cid`` beside those of
    comment ``parent`` (``marks_of``: the marks of each parent found so far, so that a
    thousand replies to one comment search the stories once, not once a reply)."""
    cache = {} if marks_of is None else marks_of
    marks = cache.get(parent)
    if marks is None:
        marks = cache[parent] = {}
        for root in roots.values():
            for el in root.iter(*_MARKS):
                if el.tag not in marks and same_id(el.get(w("id")), parent):
                    marks[el.tag] = el
            if marks:
                break
    start, end, ref = (marks.get(t) for t in _MARKS)
    new_start = etree.Element(w("commentRangeStart"))
    new_start.set(w("id"), cid)
    new_end = etree.Element(w("commentRangeEnd"))
    new_end.set(w("id"), cid)
    run = etree.Element(w("r"))
    etree.SubElement(etree.SubElement(run, w("rPr")), w("rStyle")).set(w("val"), "CommentReference")
    etree.SubElement(run, w("commentReference")).set(w("id"), cid)
    ref_run = ref.getparent() if ref is not None and ref.getparent() is not None else None
    if ref_run is not None and ref_run.tag != w("r"):
        ref_run = None
    if start is not None:  # the reply's start beside the parent's (after earlier replies')
        after.get("s:" + parent, start).addnext(new_start)
        after["s:" + parent] = new_start
    if end is not None:
        after.get("e:" + parent, end).addnext(new_end)
        after["e:" + parent] = new_end
    if ref_run is not None:
        after.get("r:" + parent, ref_run).addnext(run)
        after["r:" + parent] = run
        if end is None:
            run.addprevious(new_end)
    elif end is not None:
        new_end.addnext(run)
    else:
        # a bug of ours (the thread was found with a range or a reference), never a refusal:
        # the boundaries report it internal_error, exit 70, with its traceback
        raise AssertionError(f"comment {parent} has no place in the text")
    if start is None:  # a comment with a reference only: the reply's range is empty there
        new_end.addprevious(new_start)


def _durable_ids(parts: _Parts, ids: _Ids, new: list[tuple[str, str]]) -> None:
    cid_root = parts.get(
        REL_COMMENTS_IDS, "commentsIds", _CT_WML + "commentsIds+xml", f"{{{W16CID_NS}}}commentsIds",
        {"w16cid": W16CID_NS},
    )  # fmt: skip
    cex_root = parts.get(
        REL_COMMENTS_EXTENSIBLE, "commentsExtensible", _CT_WML + "commentsExtensible+xml",
        f"{{{W16CEX_NS}}}commentsExtensible", {"w16cex": W16CEX_NS}, create=False,
    )  # fmt: skip
    assert cid_root is not None
    for pid, date in new:
        durable = ids.new()
        entry = etree.SubElement(cid_root, _CID)
        entry.set(_CID_PARA, pid)
        entry.set(_CID_DURABLE, durable)
        if cex_root is not None:
            ext = etree.SubElement(cex_root, _CEX)
            ext.set(_CEX_DURABLE, durable)
            ext.set(_CEX_DATE, date)


def _thread_namespace(parts: _Parts) -> str:
    """The namespace of the w15 names this write uses in parts it creates: the one the
    document's commentsExtended (else people) part is written in -- 2012, or the 2010/11 of
    Word 2013's pre-release -- so a document's thread parts never mix the two; 2012 when it has
    neither.  A document part of the wrong kind is refused here, before anything is written."""
    extended = parts.existing(REL_COMMENTS_EXTENDED, _roots("commentsEx"))
    people = parts.existing(REL_PEOPLE, _roots("people"))
    for root in (extended, people):
        if root is not None:
            return etree.QName(root).namespace or W15_NS
    return W15_NS


def _roots(name: str) -> tuple[str, ...]:
    return tuple(f"{{{ns}}}{name}" for ns in W15_NAMESPACES)


def _person(parts: _Parts, author: str, ns: str) -> None:
    people = parts.get(
        REL_PEOPLE, "people", _CT_WML + "people+xml", f"{{{ns}}}people", {"w15": ns},
        also=_roots("people"),
    )  # fmt: skip
    assert people is not None
    own = etree.QName(people).namespace or ns  # a person in the people part's own namespace
    tag, author_attr = f"{{{own}}}person", f"{{{own}}}author"
    if any(p.get(author_attr) == author for p in people.iter(tag)):
        return
    person = etree.SubElement(people, tag)
    person.set(author_attr, author)
    info = etree.SubElement(person, f"{{{own}}}presenceInfo")
    info.set(f"{{{own}}}providerId", "None")
    info.set(f"{{{own}}}userId", author)
