"""The view as JSON: the shapes ``redline view --json`` prints and the tools return.

One place for each shape, so the command line and the tools cannot drift apart (they had two
copies of the paragraph).  Key order is part of the shape: the outputs are compared byte for
byte (the golden check).

* :func:`view_document` -- ``redline view --json``: the text, every paragraph (with its part),
  the revisions and comments;
* :func:`region_paragraph`, :func:`outline_entry`, :func:`story_ranges` -- what ``read_region``
  returns for a paragraph, an outline head and each story's run of paragraphs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .annotations import Annotations
    from .outline import Head
    from .view import DocumentView, Paragraph

__all__ = ["outline_entry", "paragraph_range", "region_paragraph", "story_ranges", "view_document"]


def view_document(
    view: DocumentView, annotations: Annotations | None, unread: list[str] | None = None
) -> dict[str, Any]:
    """``redline view --json``: ``paragraphs[i].text == text[start:end]``; ``unread`` (what no
    reading rule names) only when asked for."""
    doc: dict[str, Any] = {
        "revision": view.revision,
        "text": view.text,
        "paragraphs": [
            {
                "index": p.index,
                "part": p.part,
                "story": p.story,
                "start": p.start,
                "end": p.end,
                "text": view.paragraph_text(p),
                "label": p.label,
                "section": p.section,
            }
            for p in view.paragraphs
        ],
        "revisions": [r.to_dict() for r in annotations.revisions] if annotations is not None else [],
        "comments": [c.to_dict() for c in annotations.comments] if annotations is not None else [],
    }
    if unread is not None:
        doc["unread"] = unread
    return doc


def paragraph_range(first: int, last: int) -> str:
    """Paragraph indexes as the tools take and give them: ``"12-20"``, inclusive."""
    return f"{first}-{last}"


def region_paragraph(view: DocumentView, p: Paragraph) -> dict[str, Any]:
    """One paragraph of a region ``read_region`` returns (or ``apply_edits`` after an edit)."""
    return {
        "index": p.index,
        "label": p.label,
        "section": p.section,
        "story": p.story,
        "start": p.start,
        "end": p.end,
        "text": view.paragraph_text(p),
    }


def outline_entry(view: DocumentView, head: Head) -> dict[str, Any]:
    """One outline entry: a heading or numbered clause and the paragraphs it governs."""
    return {
        "label": view.paragraphs[head.index].label,
        "cite": head.cite,
        "title": head.title,
        "level": head.depth,
        "paragraphs": paragraph_range(head.index, head.last),
        "within": None if head.parent is None else head.parent.title,
    }


def story_ranges(view: DocumentView) -> list[dict[str, Any]]:
    """Each story's run of paragraphs (the body, then each header, footnote, ...), in order."""
    out: list[dict[str, Any]] = []
    for p in view.paragraphs:
        if out and out[-1]["story"] == p.story and out[-1]["part"] == p.part:
            out[-1]["last"] = p.index
        else:
            out.append({"story": p.story, "part": p.part, "first": p.index, "last": p.index})
    return [
        {"story": s["story"], "part": s["part"], "paragraphs": paragraph_range(s["first"], s["last"])}
        for s in out
    ]
