"""The written document's paragraph numbering, predicted: which paragraphs of the output each
edit touched (``WriteResult.touched_paragraphs``), without reading the output again.

The writer (:mod:`redline.write.writer`) creates one :class:`Renumbering` per write and tells
it, as it goes, what it does to paragraph structure: a range begun and ended, a change's
end, text deleted, new runs, a paragraph split off, inserted or joined, a mark deleted.
:meth:`Renumbering.touched_paragraphs` then numbers every range's paragraphs as the written document's
view will number them.
"""

from __future__ import annotations

import bisect

from lxml import etree

from ..opc.namespaces import w
from ..read.view import DocumentView, Paragraph
from .runs import mark_deleted
from .tree import ancestor

__all__ = ["Renumbering"]

_P = w("p")


class Renumbering:
    """What the writer changed in the paragraphs' structure, and the numbering it leads to."""

    def __init__(self, view: DocumentView) -> None:
        self.view = view
        # What touched_paragraphs() needs to number the written document's paragraphs without reading it:
        # for each view paragraph whose structure changed, the paragraph elements it has become
        # (itself and those split off it, in order; one joined into the paragraph before is no
        # longer in the tree), and for each of those the view paragraph it came from; the view
        # offset of the last break put into each; the marks deleted (tracked); the view ranges
        # deleted; every new run; and per range, its edit, its view paragraphs and the new runs
        # it put into another paragraph.
        self._pieces: dict[int, list[etree._Element]] = {}
        self._origin: dict[etree._Element, int] = {}
        self._split_at: dict[int, int] = {}
        self._marks_deleted: set[int] = set()  # view paragraphs whose element's mark is now deleted
        self._deleted: list[tuple[int, int]] = []
        self._inserted: list[etree._Element] = []
        self._ranges: list[tuple[int, list[int], list[etree._Element]]] = []
        self._olds: list[int] = []  # the view paragraphs of the range being written
        self._holders: list[etree._Element] = []  # its new runs put into another paragraph
        self._op_end = 0  # the end of the change being written (view offset)
        self._at_edge = False  # it starts at the edge of the range's paragraphs
        self._moved_away: set[int] = set()  # view paragraphs a move took away (redline.write.moves)

    # -- what the writer tells it ----------------------------------------------------------
    def start_range(self, olds: list[int]) -> None:
        """A range over the view paragraphs ``olds`` is being written."""
        self._olds = olds
        self._holders = []

    def end_range(self, edit_index: int) -> None:
        """The range begun last is written, for edit ``edit_index``."""
        self._ranges.append((edit_index, self._olds, self._holders))

    def commented(self, edit_index: int, olds: list[int]) -> None:
        """Edit ``edit_index`` commented on the view paragraphs ``olds`` (their text unchanged)."""
        self._ranges.append((edit_index, olds, []))

    def change(self, end: int, at_edge: bool) -> None:
        """A change of the range ends at view offset ``end``; ``at_edge``: it starts at the edge
        of the range's paragraphs (its new text may go into the paragraph before or after)."""
        self._op_end = end
        self._at_edge = at_edge

    def deleted(self, a: int, b: int) -> None:
        """View [a, b) was deleted."""
        self._deleted.append((a, b))

    def inserted(self, holder: etree._Element) -> None:
        """``holder`` (new runs) went into a new paragraph."""
        self._inserted.append(holder)

    def inserted_text(self, holder: etree._Element) -> None:
        """``holder`` (new runs) went in at the current change: into another paragraph than
        the range's, when the change is at its edge."""
        self._inserted.append(holder)
        if self._at_edge:
            into = ancestor(holder, _P)
            if into is not None and not self._in_range(into):
                self._origin_of(into)  # (new text starting the paragraph after, say)
                self._holders.append(holder)

    def follow(self, para: Paragraph) -> None:
        """Paragraphs will be inserted beside ``para``."""
        self._own(para)

    def paragraph_added(self, old: int, new: etree._Element, beside: etree._Element, after: bool) -> None:
        """``new`` was inserted after (or before) ``beside``, a piece of view paragraph ``old``."""
        self.paragraphs_added(old, [new], beside, after)

    def paragraphs_added(
        self, old: int, new: list[etree._Element], beside: etree._Element, after: bool
    ) -> None:
        """``new`` (in document order) was inserted after (or before) ``beside``, a piece of
        view paragraph ``old``: one search for ``beside``, however many lines an insertion has
        (one search a line made a 100,000-line insert_after quadratic)."""
        pieces = self._pieces[old]
        at = pieces.index(beside) + (1 if after else 0)
        pieces[at:at] = new
        for el in new:
            self._origin[el] = old

    def moved(
        self, olds: list[int], new: list[etree._Element], old: int | None, beside: etree._Element, after: bool
    ) -> None:
        """The view paragraphs ``olds`` moved away (the written view has them no more where they
        were); ``new`` -- their copies, or untracked the paragraphs themselves -- put after (or
        before) ``beside``, a piece of view paragraph ``old`` (None: beside no paragraph, a table
        say; then they are not followed)."""
        for k in olds:
            self._own(self.view.paragraphs[k])
            self._moved_away.add(k)
        if old is not None:
            self._own(self.view.paragraphs[old])
            self.paragraphs_added(old, new, beside, after)
        self._holders.extend(p[0] for p in new if len(p))  # (their paragraphs are the range's)

    def deleted_mark(self, p: etree._Element) -> None:
        """The mark of paragraph ``p`` is now a tracked deletion (ours, or another author's
        that a join made ``p``'s)."""
        origin = self._origin_of(p)
        if origin is not None:
            self._marks_deleted.add(origin)

    def _own(self, para: Paragraph) -> int:
        """Follow what becomes of the view paragraph ``para`` (its structure changes); its index."""
        if para.index not in self._pieces:
            element = para.element
            self._pieces[para.index] = [element]
            self._origin[element] = para.index
        return para.index

    def _origin_of(self, p: etree._Element) -> int | None:
        """The view paragraph the paragraph element ``p`` is (or was split off from): one of the
        range's own, or the one before or after them."""
        found = self._origin.get(p)
        if found is None and self._olds:
            paragraphs = self.view.paragraphs
            first, last = self._olds[0], self._olds[-1]
            part = paragraphs[first].part
            for at in (*self._olds, last + 1, first - 1):
                near = paragraphs[at] if 0 <= at < len(paragraphs) else None
                if near is not None and near.part == part and near.element is p:
                    return self._own(near)
        return found

    def _in_range(self, p: etree._Element) -> bool:
        """Is ``p`` one of the range's view paragraphs, or split off one?"""
        origin = self._origin.get(p)
        if origin is not None:
            return origin in self._olds
        paragraphs = self.view.paragraphs
        return any(paragraphs[old].element is p for old in self._olds)

    def split(self, p: etree._Element, p2: etree._Element) -> None:
        """``p2`` was just split off ``p`` (and follows it) by a break at the end of the change
        being written."""
        origin = self._origin_of(p)
        if origin is None:
            return
        pieces = self._pieces[origin]
        pieces.insert(pieces.index(p) + 1, p2)
        self._origin[p2] = origin
        para = self.view.paragraphs[origin]
        at = min(max(self._op_end, para.start), para.end)
        self._split_at[origin] = max(self._split_at.get(origin, at), at)

    def joining(self, p: etree._Element, nxt: etree._Element) -> None:
        """``nxt``, the paragraph after ``p``, is about to be joined into it (untracked): what
        came from ``nxt``'s view paragraph is in ``p`` from now on."""
        origin = self._origin_of(p)
        if origin is None:
            return
        after = self._origin.get(nxt)
        paragraphs = self.view.paragraphs
        if after is None and origin + 1 < len(paragraphs):
            candidate = paragraphs[origin + 1]
            if candidate.part == paragraphs[origin].part and candidate.element is nxt:
                after = self._own(candidate)
        if after is not None:
            self._pieces[after] = [p if q is nxt else q for q in self._pieces[after]]

    def touched_paragraphs(self) -> dict[int, list[int]]:
        """Every range's paragraphs, numbered as the written document's view will number them.

        The view has one paragraph per paragraph element, save one whose mark is deleted and
        that holds no text (a deleted mark alone joins, but does not remove, a paragraph).
        So a view paragraph whose structure no edit changed is one paragraph still; one that
        was split is followed by what was split off it (a line break in new text); one joined
        into the one before (an untracked mark deletion) is gone, and so is the last piece of
        one whose mark is deleted and whose text all went; every later index moves by as many.
        Only the paragraphs whose structure changed are followed as elements (:attr:`_pieces`).
        """
        paragraphs = self.view.paragraphs
        for _, olds, _ in self._ranges:  # text all deleted from a paragraph whose mark was
            for old in olds:  # deleted before (the view joined it to the next): it may go
                if old not in self._pieces and self._mark_was_deleted(old):
                    self._own(paragraphs[old])
        new_index: dict[etree._Element, int] = {}
        followed = sorted(self._pieces)
        ends: list[int] = []  # how many are numbered once each followed paragraph's pieces are
        count = 0  # the written document's paragraphs numbered so far
        before = -1  # the last followed view paragraph
        for old in followed:
            count += old - before - 1  # those in between: one each, as they were
            before = old
            pieces = self._pieces[old]
            last = pieces[-1]
            for q in pieces:
                if q in new_index or q.getparent() is None or old in self._moved_away:
                    continue  # joined into a paragraph numbered already, or joined (moved) away
                if q is last and self._vanishes(old, q):
                    continue
                new_index[q] = count
                count += 1
            ends.append(count)

        def numbered(old: int) -> list[int]:
            k = bisect.bisect_left(followed, old)
            if k < len(followed) and followed[k] == old:
                return [new_index[q] for q in self._pieces[old] if q in new_index]
            # not followed: one paragraph, after those of the followed one before it
            return [old - followed[k - 1] - 1 + ends[k - 1] if k else old]

        out: dict[int, list[int]] = {}
        for edit_index, olds, holders in self._ranges:
            found = out.setdefault(edit_index, [])
            for old in olds:
                found += numbered(old)
            for holder in holders:
                into = ancestor(holder, _P)
                if into in new_index:
                    found.append(new_index[into])
        return {edit_index: sorted(set(found)) for edit_index, found in out.items()}

    def _mark_was_deleted(self, old: int) -> bool:
        """Might view paragraph ``old``'s mark have been deleted before our edits? The view
        joined it to the next paragraph of its story, or it ends its story (where a deleted
        mark joins nothing)."""
        paragraphs = self.view.paragraphs
        para = paragraphs[old]
        after = paragraphs[old + 1] if old + 1 < len(paragraphs) else None
        return after is None or after.story_no != para.story_no or after.start == para.end

    def _vanishes(self, old: int, last: etree._Element) -> bool:
        """Does the view drop ``last``, the last piece of view paragraph ``old`` (the piece that
        holds its mark): a deleted mark, and none of its text nor any new text left in it?"""
        if old not in self._marks_deleted and not self._mark_was_deleted(old):
            return False
        if not mark_deleted(last):
            return False
        para = self.view.paragraphs[old]
        start = self._split_at.get(old, para.start)
        gone = sum(max(0, min(b, para.end) - max(a, start)) for a, b in self._deleted)
        if gone < para.end - start:
            return False
        return not any(ancestor(h, _P) is last for h in self._inserted)
