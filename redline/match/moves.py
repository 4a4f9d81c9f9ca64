"""Edits inside another author's tracked move (ECMA-376 Part 1, §17.13.5.22-.28).

Moved-to text (``w:moveTo``, between ``w:moveToRangeStart`` and ``w:moveToRangeEnd``) is text
as the document now reads, so an edit may change it.  The writer writes such an edit the way
Word does: a deletion is a ``w:del`` nested inside the ``w:moveTo`` (as Word itself writes a
moved-then-deleted run), new text is a ``w:ins`` beside it -- the ``w:moveTo`` split in two
around it, both halves inside the move's range, so the move stays one move.  (Not a ``w:ins``
nested inside the ``w:moveTo``: pandoc 2.17 drops such a run when it accepts the changes.)
Accepting every change gives the edited text at the move's destination; rejecting every change
gives the original: the text back at its source, nothing at the destination.

Moved-from text (``w:moveFrom``) is gone from the document as it reads; an anchor quoting it is
refused ``deleted_text`` (:meth:`redline.match.locate.Locator.in_deletion`).
"""

from __future__ import annotations

from ..opc.namespaces import w
from ..read.view import DocumentView, SpanFlag, SpanKind

_MOVE_TO = w("moveTo")
_AUTHOR = w("author")


def movers(view: DocumentView, start: int, end: int) -> list[str] | None:
    """The authors of the tracked moves whose moved-to text view range [start, end) covers
    (in order, once each; "another author" where a move names none), or None when it covers
    no moved-to text."""
    if not view.flags_between(start, end) & SpanFlag.MOVE_TO:
        return None
    found: list[str] = []
    try:
        for piece in view.pieces(start, end):
            if not piece.flags & SpanFlag.MOVE_TO or piece.kind is SpanKind.MARK:
                continue
            move = next(piece.node.iterancestors(_MOVE_TO), None)
            who = (move.get(_AUTHOR) if move is not None else None) or "another author"
            if who not in found:
                found.append(who)
    except TypeError:  # a verify-only view holds no trees
        pass
    return found or ["another author"]


def move_note(authors: list[str]) -> str:
    """The report note of an edit that changes moved-to text."""
    who = " and ".join(authors)
    return (
        f"The edit changes text {who} moved here (a tracked move): it is written inside the move, "
        "so rejecting every change puts the text back where it was moved from."
    )
