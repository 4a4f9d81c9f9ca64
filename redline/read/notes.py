"""A footnote's or endnote's reference mark in the body: where a comment on the note goes.

LibreOffice cannot load a document with a comment inside a footnote or endnote (its loader
fails on ``w:commentRangeStart`` / ``w:commentReference`` in the notes part: every such output
tried), and Word shows a comment on a note's reference mark beside the text that cites the
note.  So a rationale comment for an edit in a note, and a ``comment`` entry quoting note text,
stand on the note's reference mark in the body: the ``w:r`` holding the
``w:footnoteReference`` / ``w:endnoteReference`` whose ``w:id`` is the note's (ECMA-376 Part 1,
§17.11.14, §17.11.7).  A note with no such mark in a body paragraph of the view has none
(:func:`reference_of` returns None): its rationale is said in the report instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from ..opc.namespaces import w
from .ids import same_id
from .view import DocumentView, Paragraph
from .walk import ancestor

__all__ = ["NOTE_STORIES", "NoteReference", "reference_of"]

NOTE_STORIES = frozenset(("footnote", "endnote"))
_P, _R, _ID = w("p"), w("r"), w("id")
_NOTE = {
    "footnote": (w("footnote"), w("footnoteReference")),
    "endnote": (w("endnote"), w("endnoteReference")),
}


@dataclass(frozen=True)
class NoteReference:
    """The reference mark of a note: its run (in the view's working copy) and the view
    paragraph of the body that holds it."""

    run: etree._Element
    paragraph: int


def reference_of(view: DocumentView, para: Paragraph) -> NoteReference | None:
    """The reference mark, in a body paragraph of ``view``, of the note ``para`` belongs to;
    None when ``para`` is not in a note, the view has no trees (a verify-only view), or no body
    paragraph holds a reference to that note (or several do: which one is meant cannot be
    told)."""
    kinds = _NOTE.get(para.story)
    if kinds is None or view.working is None:
        return None
    note_tag, ref_tag = kinds
    note = ancestor(para.element, note_tag)
    if note is None:
        return None
    nid = note.get(_ID)
    if nid is None:
        return None
    body = [p for p in view.paragraphs if p.story == "body"]
    if not body:
        return None
    by_element = {id(p.element): p.index for p in body}
    found: list[NoteReference] = []
    for part in dict.fromkeys(p.part for p in body):
        for ref in view.working.xml(part).iter(ref_tag):
            if not same_id(ref.get(_ID), nid):
                continue
            run = ref.getparent()
            holder = ancestor(ref, _P)
            if run is None or run.tag != _R or holder is None or id(holder) not in by_element:
                continue
            found.append(NoteReference(run, by_element[id(holder)]))
    return found[0] if len(found) == 1 else None
