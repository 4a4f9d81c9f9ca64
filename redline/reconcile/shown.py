"""The headers and footers a document never shows, whose text is no change of it.

A section shows its ``default`` header and footer; its ``first`` ones only when it has a title
page (``w:titlePg``); its ``even`` ones only when the settings say even and odd pages differ
(``w:evenAndOddHeaders``) -- ECMA-376 Part 1, §17.10; a section without a reference of a type
inherits the previous section's.  A header or footer part that no section
shows is text no reader sees, and LibreOffice drops it on a re-save (measured: the Common Paper
documents' ``first`` headers, in sections without a title page), so what differs wholly in
such a part is not an untracked change (:mod:`redline.reconcile.untracked`).
"""

from __future__ import annotations

import weakref

from lxml import etree

from ..opc.namespaces import R_NS, REL_BASE, W_NS, w
from ..opc.package import Package

__all__ = ["StoryKey", "continuous_stories", "shown_stories", "unshown_parts"]

StoryKey = tuple[int, str, str]
"""A header or footer as a reader meets it: (section index, ``header`` | ``footer``, type)."""

_OFF = frozenset(("0", "false", "off"))


def _on(el: etree._Element | None) -> bool:
    if el is None:
        return False
    val = el.get(w("val"))
    return val is None or val.lower() not in _OFF


_SHOWN: weakref.WeakKeyDictionary[Package, dict[StoryKey, str]] = weakref.WeakKeyDictionary()


def shown_stories(package: Package) -> dict[StoryKey, str]:
    """Every header and footer a section shows, by (section, tag, type) -> its part: what a
    reader sees on that section's pages, whatever the part is named.  A section without a
    reference of a type inherits the previous section's part (LibreOffice writes the inherited
    one out as a part of its own, and renumbers the parts: pairing by key, not by part name,
    reads both the same).  (Read once per package: a package never changes.)"""
    found = _SHOWN.get(package)
    if found is None:
        found = _SHOWN[package] = _shown_stories(package)
    return dict(found)


def _shown_stories(package: Package) -> dict[StoryKey, str]:
    main = package.main_part
    root = package.xml(main)
    body = root.find(w("body"))
    if body is None:
        return {}
    settings = package.related(main, REL_BASE + "settings")
    even = bool(settings) and _on(package.xml(settings[0]).find(w("evenAndOddHeaders")))
    rels = {rel.id: rel.target for rel in package.rels(main) if not rel.external}
    out: dict[StoryKey, str] = {}
    current: dict[tuple[str, str], str] = {}  # (tag, type) -> part: a section inherits the last
    sections = body.xpath("w:sectPr | w:p/w:pPr/w:sectPr", namespaces={"w": W_NS})
    for index, sect in enumerate(sections if isinstance(sections, list) else []):
        if not isinstance(sect, etree._Element):
            continue
        for ref in sect.iterchildren(w("headerReference"), w("footerReference")):
            target = rels.get(ref.get(f"{{{R_NS}}}id") or "")
            if target is not None:
                tag = "header" if ref.tag == w("headerReference") else "footer"
                current[(tag, ref.get(w("type")) or "default")] = target
        title = _on(sect.find(w("titlePg")))
        for (tag, kind), target in current.items():
            if kind == "default" or (kind == "first" and title) or (kind == "even" and even):
                out[(index, tag, kind)] = target
    return out


def continuous_stories(package: Package) -> set[StoryKey]:
    """The keys of headers and footers a section that begins *continuous* (on the page before
    it, ``w:type`` ``continuous``) states for itself: which pages show them is a matter of
    layout, and LibreOffice, which starts a page style only at a page, drops them (measured:
    d2p-checked-boxes' second footer)."""
    main = package.main_part
    body = package.xml(main).find(w("body"))
    if body is None:
        return set()
    out: set[StoryKey] = set()
    sections = body.xpath("w:sectPr | w:p/w:pPr/w:sectPr", namespaces={"w": W_NS})
    for index, sect in enumerate(sections if isinstance(sections, list) else []):
        if not isinstance(sect, etree._Element) or index == 0:
            continue
        kind = sect.find(w("type"))
        if kind is None or kind.get(w("val")) != "continuous":
            continue
        for ref in sect.iterchildren(w("headerReference"), w("footerReference")):
            tag = "header" if ref.tag == w("headerReference") else "footer"
            out.add((index, tag, ref.get(w("type")) or "default"))
    return out


def _referenced(package: Package) -> set[str]:
    main = package.main_part
    root = package.xml(main)
    body = root.find(w("body"))
    if body is None:
        return set()
    rels = {rel.id: rel.target for rel in package.rels(main) if not rel.external}
    found: set[str] = set()
    for ref in body.iter(w("headerReference"), w("footerReference")):
        target = rels.get(ref.get(f"{{{R_NS}}}id") or "")
        if target is not None:
            found.add(target)
    return found


def unshown_parts(package: Package) -> frozenset[str]:
    """The header and footer parts the body's sections reference but never show."""
    return frozenset(_referenced(package) - set(shown_stories(package).values()))
