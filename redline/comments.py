"""Word comments that carry an edit's rationale (ECMA-376 Part 1, §17.13.4).

Adds ``w:comment`` entries to the comments part of a write's working copy, creating the part,
its relationship from the main document and its content-type override when the document has
none.
"""

from __future__ import annotations

from lxml import etree

from shared_schema import Code

from .boundary import PackageError
from .ooxml import CT_COMMENTS, CT_NS, PKG_REL_NS, REL_COMMENTS, W_NS, XML_SPACE, w
from .opc import rels_part_for
from .working import WorkingCopy
from .writer import Comment, WriteOptions
from .xmlparse import parse_xml, serialize

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
    ids = {rel.get("Id") for rel in rels}
    k = 1
    while f"rIdRedline{k}" in ids:
        k += 1
    rel = etree.SubElement(rels, f"{{{PKG_REL_NS}}}Relationship")
    rel.set("Id", f"rIdRedline{k}")
    rel.set("Type", REL_COMMENTS)
    main_dir = main.rsplit("/", 1)[0] + "/" if "/" in main else ""
    rel.set("Target", part[len(main_dir) :] if part.startswith(main_dir) else "/" + part)
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
