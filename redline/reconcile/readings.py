"""A document's text read with some of its tracked changes rejected, mapped back to its view.

The view (:mod:`redline.read.view`) reads every revision accepted, and each revision of
:mod:`redline.read.annotations` knows its place in it: an insertion covers view ``[start,
end)``, a deletion stood at ``start`` (``start == end``) with its ``text``; a paragraph mark
inserted is the view's ``"\\n"`` at its paragraph's end, a mark deleted is a ``"\\n"`` that
stood there.  So the text with a set of revisions *rejected* is the view's text with their
insertions taken out and their deletions put back -- no tree is changed and no view rebuilt.
A deletion placed inside an insertion that is itself rejected goes with it (Word: removing an
element removes the changes it holds); at one place, text put back comes before a mark put
back (a paragraph's content, then its mark: the order Word keeps them in).

A paragraph mark inserted on the **last paragraph of its container** (the body's, a table
cell's, a text box's, or one before a table: no paragraph follows it to join) stays when
rejected: its content goes, the paragraph stays, empty -- as Word, LibreOffice and our own
decisions (:func:`redline.write.tree.join_into_next`) leave it.  Cutting that mark would read
one paragraph fewer than any tool's rejection leaves, and a rejected new last clause would read
as changed.

Revisions that change no text (formatting, rows' and cells' records, numbering) change nothing
here: a row's text is marked by its runs' and marks' own revisions.

:class:`Reading` keeps, for every stretch of its text, where it came from: view text kept, or
a rejected deletion's text put back at a view offset (:meth:`Reading.source`), and where each
rejected revision ended up (:meth:`Reading.placed`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..read.annotations import Revision
from ..read.roles import RevisionKind
from ..read.view import DocumentView
from ..write.tree import next_paragraph

__all__ = ["TEXT_KINDS", "Reading", "read_rejected"]

_PRESENT = frozenset((RevisionKind.INSERT, RevisionKind.MOVE_TO))
_GONE = frozenset((RevisionKind.DELETE, RevisionKind.MOVE_FROM))
TEXT_KINDS = frozenset((*_PRESENT, *_GONE, RevisionKind.PARAGRAPH_INSERT, RevisionKind.PARAGRAPH_DELETE))
"""The kinds of revision whose rejection changes the text."""


@dataclass
class Reading:
    """``text`` and its map: ``starts[k]`` is where stretch ``k`` begins in ``text``;
    ``origins[k]`` the view offset it came from; ``kept[k]`` whether it is the view's own text
    (else a deletion put back, all of it standing at ``origins[k]``)."""

    text: str
    starts: list[int] = field(default_factory=list)
    origins: list[int] = field(default_factory=list)
    kept: list[bool] = field(default_factory=list)
    places: dict[int, tuple[int, int]] = field(default_factory=dict)  # id(revision) -> [s, e) here
    _kept_origins: tuple[list[int], list[int]] | None = field(default=None, repr=False)

    def source(self, offset: int) -> int:
        """The view offset that ``text[offset]`` (or the end of the text) came from."""
        k = bisect.bisect_right(self.starts, offset) - 1
        if k < 0:
            return 0
        if self.kept[k]:
            return self.origins[k] + (offset - self.starts[k])
        return self.origins[k]

    def put_back(self, start: int, end: int) -> bool:
        """Is all of ``text[start:end]`` (non-empty) text put back rather than the view's?"""
        if end <= start:
            return False
        k = bisect.bisect_right(self.starts, start) - 1
        while k < len(self.starts) and self.starts[k] < end:
            if k >= 0 and self.kept[k]:
                return False
            k += 1
        return True

    def placed(self, rev: Revision) -> tuple[int, int] | None:
        """Where a rejected revision's place is in ``text``: its text put back ``[s, e)``, or
        where its insertion was taken out (``s == e``)."""
        return self.places.get(id(rev))

    def at(self, view_offset: int) -> int:
        """The offset in ``text`` of view offset ``view_offset`` (a kept character's, or where
        a removed one stood)."""
        if self._kept_origins is None:
            ks = [k for k in range(len(self.starts)) if self.kept[k]]
            self._kept_origins = ([self.origins[k] for k in ks], [self.starts[k] for k in ks])
        origins, starts = self._kept_origins
        k = bisect.bisect_right(origins, view_offset) - 1
        if k < 0:
            return 0
        return starts[k] + min(view_offset - origins[k], self._length(starts[k]))

    def _length(self, start: int) -> int:
        """The length of the stretch that begins at ``start`` in ``text``."""
        j = bisect.bisect_right(self.starts, start)
        end = self.starts[j] if j < len(self.starts) else len(self.text)
        return end - start


def _joins_next(view: DocumentView, rev: Revision) -> bool:
    """Does rejecting ``rev``'s inserted mark join its paragraph to a next one (a paragraph
    follows it in its container)?  A view without trees (verify-only): taken to."""
    if rev.paragraph is None or not 0 <= rev.paragraph < len(view.paragraphs):
        return True
    try:
        element = view.paragraphs[rev.paragraph].element
    except TypeError:
        return True
    return next_paragraph(element) is not None


def read_rejected(view: DocumentView, reject: Iterable[Revision]) -> Reading:
    """``view``'s text with the revisions ``reject`` rejected (the others stay accepted)."""
    text = view.text
    cuts: list[tuple[int, int, Revision]] = []  # view ranges taken out
    backs: list[tuple[int, int, int, Revision]] = []  # (offset, mark?, order, revision) put back
    for order, rev in enumerate(reject):
        if rev.kind in _PRESENT and rev.end > rev.start:
            cuts.append((rev.start, rev.end, rev))
        elif rev.kind is RevisionKind.PARAGRAPH_INSERT:
            if rev.start < len(text) and text[rev.start] == "\n" and _joins_next(view, rev):
                cuts.append((rev.start, rev.start + 1, rev))
        elif rev.kind in _GONE and rev.text:
            backs.append((rev.start, 0, order, rev))
        elif rev.kind is RevisionKind.PARAGRAPH_DELETE:
            backs.append((rev.start, 1, order, rev))
    merged: list[list[int]] = []
    for s, e, _ in sorted(cuts, key=lambda c: (c[0], c[1])):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    cut_starts = [m[0] for m in merged]

    def inside_cut(offset: int) -> bool:
        k = bisect.bisect_right(cut_starts, offset) - 1
        return k >= 0 and merged[k][0] < offset < merged[k][1]

    backs = [b for b in backs if not inside_cut(b[0])]
    backs.sort(key=lambda b: (b[0], b[1], b[2]))
    out: list[str] = []
    reading = Reading("")
    length = 0

    def keep(a: int, b: int) -> None:
        nonlocal length
        if b > a:
            reading.starts.append(length)
            reading.origins.append(a)
            reading.kept.append(True)
            out.append(text[a:b])
            length += b - a

    # at one offset: text put back first (a replacement's deletion stood before its insertion)
    events = sorted(
        [(b[0], 0, k) for k, b in enumerate(backs)] + [(m[0], 1, k) for k, m in enumerate(merged)]
    )
    members: dict[int, list[Revision]] = {}
    for s, _, rev in cuts:
        members.setdefault(bisect.bisect_right(cut_starts, s) - 1, []).append(rev)
    pos = 0
    for point, is_cut, k in events:
        keep(pos, point)
        pos = max(pos, point)
        if is_cut:
            for rev in members.get(k, ()):
                reading.places[id(rev)] = (length, length)
            pos = merged[k][1]
            continue
        _, is_mark, _, rev = backs[k]
        piece = "\n" if is_mark else rev.text
        reading.starts.append(length)
        reading.origins.append(pos)
        reading.kept.append(False)
        reading.places[id(rev)] = (length, length + len(piece))
        out.append(piece)
        length += len(piece)
    keep(pos, len(text))
    reading.text = "".join(out)
    return reading
