"""The document view: every story of a .docx flattened into one text, with a map back to the XML.

Everything downstream (matching, reports, the writer) speaks in offsets of :attr:`DocumentView.text`.
The map is span-level: one entry per text-producing node (a ``w:t``, a ``w:tab``, a paragraph
separator, ...), found with :func:`bisect.bisect_right` -- never a per-character array.

What the view contains (the documented choices):

* Stories, in this order: the body (tables, nested tables, content controls, smart tags, custom
  XML, hyperlinks and simple fields included), then headers and footers in the order the
  section properties reference them, then footnotes, then endnotes (separator notes skipped).
* Text boxes once: Word stores a text box twice (``mc:Choice`` and ``mc:Fallback``); the
  fallback is skipped.  A text box's paragraphs become paragraphs of their own, placed just
  before the paragraph that anchors them.
* Characters: ``w:t`` as written; ``w:tab``/``w:ptab`` -> TAB; ``w:br``/``w:cr`` -> LF;
  ``w:noBreakHyphen`` -> U+2011; ``w:softHyphen`` -> U+00AD; ``w:sym`` -> its character.
  Field codes (``w:instrText``) are not text; field results are.  Paragraphs are separated by LF.
* Existing revisions read as accepted: inserted and moved-to text is present, deleted and
  moved-from text is absent; a paragraph whose mark was deleted and that has no text left is
  dropped.
* Hidden text (``w:vanish``) is kept: it is part of the document a lawyer signs, and a quote of
  it must verify.  Labels computed from numbering are metadata, never part of the text.

How each element reads is stated once, in :mod:`redline.read.roles`'s table of roles, and two
readers apply it: :mod:`redline.read.scan` reads each story part's XML text without building a tree
(about a third of the cost), naming nodes by ordinal, resolved to elements of the view's working
copy only when the writer asks (:class:`NodeMap`); :mod:`redline.read.walk` reads a tree -- the reference
(the scanner's oracle in the tests), and the reader of a part the scanner cannot vouch for
(unusual prefixes, comments inside, ...).  Both emit the same paragraph events into
:class:`redline.read.paragraphs.Assembler`, and :mod:`redline.read.build`'s builder appends what it
assembles, story by story.  :func:`~redline.read.build.build_view` tries the scanner first;
before anything is written from a scanned view, :meth:`DocumentView.check_tree` parses its parts
and checks them against the scan -- the main part only as a skeleton, its paragraphs parsed
and checked as a write reaches them (:mod:`redline.read.partial`).

This module holds the model the readers build (:class:`Story`, :class:`Paragraph`,
:class:`Piece`, :class:`Scanned`, :class:`DocumentView`, :class:`NodeMap`); reading a package
into it is :mod:`redline.read.build`, the labels and sections :mod:`redline.read.labels`.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from lxml import etree

from shared_schema import Code

from ..compat import forwarded
from ..opc.working import WorkingCopy
from ..opc.xmlparse import PackageError
from . import scan
from .labels import _label
from .numbering import Numbering
from .outline import Head, Outline
from .partial import Partial, partial_tree
from .roles import NODE_TAGS, ParagraphProps
from .roles import SpanFlag as SpanFlag  # re-exported: the view's spans carry them
from .roles import SpanKind as SpanKind

if TYPE_CHECKING:  # the names that moved (see __getattr__ at the end), for the type checker
    from .build import MAX_PARAGRAPHS as MAX_PARAGRAPHS
    from .build import ViewBuilder as ViewBuilder
    from .build import build_view as build_view
    from .build import flatten as flatten
    from .build import scan_story_part as scan_story_part
    from .build import scanned_view as scanned_view
    from .build import stories_of as stories_of
    from .build import story_parts as story_parts
    from .build import unread as unread
    from .build import verify_only_view as verify_only_view
    from .labels import numbering_of as numbering_of


@dataclass(frozen=True, slots=True)
class Story:
    """One flow of text: a part and the element whose paragraphs belong to it."""

    part: str
    kind: str  # body | header | footer | footnote | endnote
    root: etree._Element | None  # None for a scanned story


@dataclass(slots=True)
class Paragraph:
    index: int
    part: str
    story: str
    start: int
    end: int
    ref: etree._Element | int  # the w:p, or its ordinal in a scanned part
    label: str | None = None  # the number Word displays for it ("4.2", "(a)"), else None
    level: int | None = None  # its depth in the outline (0: top) when it heads a section
    ilvl: int | None = None  # its list level (w:ilvl, direct or from its style), if in a list
    # It begins inside a complex field's instructions (a field whose code runs on across
    # paragraphs): text put at its start would be code, which no reader shows.
    field_code: bool = False
    cell: int = 0  # the table cells it lies in (0: none; 2: a table in a table's cell)
    nodes: NodeMap | None = field(default=None, repr=False, compare=False)
    story_no: int = field(default=0, compare=False)  # which story of the view (each note is one)
    # Set by the labelling pass: the section the paragraph lies in (the one it heads, if any).
    node: Head | None = field(default=None, repr=False, compare=False)

    @property
    def heads(self) -> bool:
        """Whether the paragraph heads a section (a numbered clause or a heading)."""
        return self.node is not None and self.node.index == self.index

    @property
    def title(self) -> str | None:
        """The section title the paragraph heads ("4.2 Operating Expenses"), else None."""
        return self.node.title if self.heads and self.node is not None else None

    @property
    def section(self) -> str | None:
        """The title of the section the paragraph is in (its own, when it heads one)."""
        return None if self.node is None else self.node.title

    @property
    def element(self) -> etree._Element:
        """The paragraph's ``w:p`` (a scanned view parses its part on first use)."""
        ref = self.ref
        if isinstance(ref, int):
            if self.nodes is None:
                raise TypeError(_VERIFY_ONLY)
            return self.nodes.element(self.part, ref)
        return ref


@dataclass(frozen=True, slots=True)
class Piece:
    """The part of one span that a view range covers."""

    kind: SpanKind
    node: etree._Element
    start: int  # offset inside the node's text (0 for CHAR and MARK)
    end: int
    view_start: int
    flags: int


@dataclass(frozen=True, slots=True)
class Scanned:
    """What :func:`~redline.read.build.build_view`'s scanner found besides the view: each
    paragraph's properties (what labels are made from), and the header and footer references
    of the body's section properties with where they stand in the main part's text (what
    picks the stories after the body)."""

    props: list[ParagraphProps]
    refs: list[tuple[int, str, str]]


@dataclass
class DocumentView:
    text: str
    paragraphs: list[Paragraph]
    revision: str
    span_starts: list[int]
    span_nodes: Sequence[etree._Element]
    span_kinds: bytearray
    span_flags: bytearray
    para_starts: list[int] = field(default_factory=list)
    # The trees the spans point into, which a write from this view changes (None: a
    # verify-only view, or one flattened from stories whose trees are the caller's).
    working: WorkingCopy | None = field(default=None, repr=False, compare=False)
    outline: Outline = field(default_factory=lambda: Outline([], []), repr=False, compare=False)
    # What the labelling pass still to run needs (the numbering, each paragraph's properties),
    # for a view read with labels=False (see build_view); never the view itself: no cycle.
    unlabelled: tuple[Numbering, list[ParagraphProps]] | None = field(default=None, repr=False, compare=False)
    # What a scanned view's reading found beyond the view itself, for reading its document
    # again after a write (:mod:`redline.write.readback`); None for any other view.
    scanned: Scanned | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.para_starts:
            self.para_starts = [p.start for p in self.paragraphs]

    def finish_labels(self) -> DocumentView:
        """Run the labelling pass a view read with ``labels=False`` left out (its paragraphs'
        labels, levels and sections); nothing for any other view.  Returns the view."""
        pending, self.unlabelled = self.unlabelled, None
        if pending is not None:
            _label(self, *pending)
        return self

    # -- lookups ---------------------------------------------------------------------------
    def paragraph_at(self, offset: int) -> Paragraph:
        """The paragraph containing view ``offset`` (a separator belongs to the paragraph before)."""
        i = bisect.bisect_right(self.para_starts, offset) - 1
        return self.paragraphs[max(i, 0)]

    def paragraphs_between(self, start: int, end: int) -> list[Paragraph]:
        """Every paragraph that the view range [start, end) touches."""
        first = self.paragraph_at(start).index
        last = self.paragraph_at(max(start, end - 1)).index
        return self.paragraphs[first : last + 1]

    def paragraph_text(self, para: Paragraph) -> str:
        return self.text[para.start : para.end]

    def pieces(self, start: int, end: int) -> Iterator[Piece]:
        """The spans a view range covers, each clipped to the range, in order."""
        i = bisect.bisect_right(self.span_starts, start) - 1
        i = max(i, 0)
        n = len(self.span_starts)
        while i < n:
            s = self.span_starts[i]
            if s >= end:
                break
            e = self.span_starts[i + 1] if i + 1 < n else len(self.text)
            if e > start:
                lo, hi = max(s, start), min(e, end)
                yield Piece(
                    SpanKind(self.span_kinds[i]),
                    self.span_nodes[i],
                    lo - s,
                    hi - s,
                    lo,
                    self.span_flags[i],
                )
            i += 1

    def check_tree(self) -> None:
        """Make sure the XML trees behind the view parse and agree with it, before anything is
        written from them (a scanned view reads the XML text without building trees)."""
        if isinstance(self.span_nodes, NodeMap):
            self.span_nodes.check()
        elif isinstance(self.span_nodes, _NoNodes):
            raise TypeError(_VERIFY_ONLY)

    def flags_between(self, start: int, end: int) -> int:
        """The union of the flags of every span the range [start, end) touches."""
        i = max(0, bisect.bisect_right(self.span_starts, start) - 1)
        j = bisect.bisect_left(self.span_starts, end)
        out = 0
        for f in self.span_flags[i : max(j, i + 1)]:
            out |= f
        return out

    def sections_named(self, name: str) -> list[tuple[Paragraph, int]]:
        """Every section ``name`` names (see :mod:`redline.read.sections`; a heading that is only
        formatted too, :mod:`redline.read.headings`), as (head, end offset): one when the name is
        unambiguous, none when no section answers to it."""
        from .headings import sections_named  # (it reads views: imported when first asked)

        return [(self.paragraphs[h.index], self.section_end(h)) for h in sections_named(self, name)]

    def section_end(self, head: Head) -> int:
        """The view offset where ``head``'s section ends (where the next one begins)."""
        nxt = head.last + 1
        return self.paragraphs[nxt].start if nxt < len(self.paragraphs) else len(self.text)

    def labelled(self, first: int = 0, last: int | None = None) -> str:
        """The text of paragraphs ``first``..``last`` as a reader of the page sees it: each
        paragraph's displayed label before its text ("4.2 Tenant shall..."); the labels are
        not the document's text and are never quoted back (``text`` keeps none)."""
        paras = self.paragraphs[first : (len(self.paragraphs) if last is None else last + 1)]
        if not paras:
            return ""
        out: list[str] = []
        at = paras[0].start
        for p in paras:
            out.append(self.text[at : p.start])
            if p.label:
                out.append(p.label + " ")
            out.append(self.text[p.start : p.end])
            at = p.end
        return "".join(out)


_VERIFY_ONLY = "a verify-only view has no map back to the XML: build the view with build_view() to write"


class _NoNodes(Sequence[etree._Element]):
    """The span nodes of a verify-only view: there are none to give."""

    def __len__(self) -> int:
        return 0

    @overload
    def __getitem__(self, i: int) -> etree._Element: ...
    @overload
    def __getitem__(self, i: slice) -> list[etree._Element]: ...
    def __getitem__(self, i: int | slice) -> etree._Element | list[etree._Element]:
        raise TypeError(_VERIFY_ONLY)


class NodeMap(Sequence[etree._Element]):
    """The elements of a scanned view's spans, found when first asked for.

    A scanned span names its node by part and ordinal (see :mod:`redline.read.scan`); the first
    request for a part parses it (into the view's working copy: the tree the writer changes) and
    lists its ``NODE_TAGS`` elements in document order, once.  A tree that does not have the
    number of such elements the scanner counted is refused: the view and the tree would
    disagree about which node a character came from.
    """

    def __init__(
        self,
        working: WorkingCopy,
        ordinals: list[int],
        runs: list[tuple[int, str]],
        totals: dict[str, int],
        layouts: dict[str, scan.Layout | None] | None = None,
    ) -> None:
        self._working = working
        self._layouts = layouts or {}
        self._ordinals = ordinals
        self._run_starts = [start for start, _ in runs]
        self._run_parts = [part for _, part in runs]
        self._totals = totals
        self._elements: dict[str, list[etree._Element] | Partial] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._ordinals)

    @overload
    def __getitem__(self, i: int) -> etree._Element: ...
    @overload
    def __getitem__(self, i: slice) -> list[etree._Element]: ...
    def __getitem__(self, i: int | slice) -> etree._Element | list[etree._Element]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        ordinal = self._ordinals[i]  # raises IndexError past the end, as a sequence must
        if i < 0:
            i += len(self._ordinals)
        part = self._run_parts[bisect.bisect_right(self._run_starts, i) - 1]
        return self.element(part, ordinal)

    def check(self) -> None:
        """Parse every scanned part now and check it against the scan (raises PackageError:
        a part the tree parser refuses, or one that reads differently as a tree)."""
        for part in self._totals:
            self._nodes_of(part)

    def element(self, part: str, ordinal: int) -> etree._Element:
        """Element number ``ordinal`` of ``part`` (in ``NODE_TAGS`` document order)."""
        found = self._nodes_of(part)
        return found.element(ordinal) if isinstance(found, Partial) else found[ordinal]

    def layout(self, part: str) -> scan.Layout | None:
        """Where ``part``'s outermost paragraphs lie in its XML text (None: not known)."""
        return self._layouts.get(part)

    def _nodes_of(self, part: str) -> list[etree._Element] | Partial:
        found = self._elements.get(part)
        if found is None:
            with self._lock:
                found = self._elements.get(part)
                if found is None:
                    found = self._elements[part] = self._list(part)
        return found

    def partial(self, part: str) -> Partial | None:
        """``part``'s tree while it is parsed only in part (:mod:`redline.read.partial`)."""
        found = self._working.partial(part)
        return found if isinstance(found, Partial) else None

    def _list(self, part: str) -> list[etree._Element] | Partial:
        working = self._working
        if part == working.package.main_part and working.partial(part) is None and not working.has(part):
            # the main part: parsed only where a write asks (its other trees stay unparsed)
            data, layout = working.package.read(part), self._layouts.get(part)
            counts = working.package.counts(part)  # (its "xmlns" counted at the load)
            xmlns = counts[1] if counts is not None else None
            partial = partial_tree(data, part, layout, self._totals.get(part, -1), xmlns)
            if partial is not None:
                working.adopt(part, partial)
                return partial
        found = list(self._working.xml(part).iter(*NODE_TAGS))
        if len(found) != self._totals.get(part, -1):
            raise PackageError(
                Code.MALFORMED_XML,
                f"The part {part} reads differently as text and as an XML tree (an element "
                "where Word allows none, such as markup inside w:t), so edits cannot be placed "
                "in it safely.",
                part,
            )
        return found


# -------------------------------------------------------------------------------------------
# Names that lived here before the builder and the labels had modules of their own

_MOVED = {
    **dict.fromkeys(
        (
            "MAX_PARAGRAPHS", "ViewBuilder", "flatten", "story_parts", "stories_of", "unread",
            "build_view", "scanned_view", "verify_only_view", "scan_story_part",
        ),
        "redline.read.build",
    ),
    "numbering_of": "redline.read.labels",
}  # fmt: skip


def __getattr__(name: str) -> Any:
    """``from redline.read.view import build_view`` (and the old ``redline.view``) keeps working:
    a name that moved is fetched from its module when first asked for -- lazily, so that the
    builder, which imports this module, is no import cycle and no import cost here."""
    return forwarded(__name__, name, _MOVED)
