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
:class:`redline.read.paragraphs.Assembler`, and the builder here appends what it assembles, story by
story (:func:`story_parts` finds the stories, once for both).  :func:`build_view` tries the
scanner first; before anything is written from a scanned view,
:meth:`DocumentView.check_tree` parses its parts and checks them against the scan.
"""

from __future__ import annotations

import bisect
import functools
import io
import threading
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from lxml import etree

from shared_schema import Code

from ..collector import paused
from ..opc.namespaces import (
    R_NS,
    REL_ENDNOTES,
    REL_FOOTER,
    REL_FOOTNOTES,
    REL_HEADER,
    REL_NUMBERING,
    REL_STYLES,
    W_NS,
    w,
)
from ..opc.working import WorkingCopy
from ..opc.xmlparse import PackageError, syntax_refusal
from . import scan
from .numbering import Numbering
from .paragraphs import MAX_TEXT, SEPARATOR, StoryText, text_limit, too_much_text
from .roles import NODE_TAGS, ParagraphProps, unrecognised
from .roles import SpanFlag as SpanFlag  # re-exported: the view's spans carry them
from .roles import SpanKind as SpanKind
from .sections import TYPED_SPAN, Entry, Head, Outline, build_outline, is_number
from .walk import read_story

if TYPE_CHECKING:
    from ..opc.package import Package

_NS = {"w": W_NS}

MAX_PARAGRAPHS = 100_000
"""Six times the largest real contract we have (15,944); each costs the view microseconds."""


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
    """What :func:`build_view`'s scanner found besides the view: each paragraph's properties
    (what labels are made from), and the header and footer references of the body's section
    properties with where they stand in the main part's text (what picks the stories after
    the body)."""

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
        """Every section ``name`` names (see :mod:`redline.read.sections`), as (head, end offset):
        one when the name is unambiguous, none when no section answers to it."""
        return [(self.paragraphs[h.index], self.section_end(h)) for h in self.outline.named(name)]

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


# -------------------------------------------------------------------------------------------
# Flattening


class ViewBuilder:
    def __init__(self, lean: bool = False) -> None:
        # lean: for a verify-only view -- no map back to the XML, flags kept as runs
        # (span_starts: where the flags change), each stretch's text joined as it comes.
        self.lean = lean
        self.chunks: list[str] = []
        self._text = ""  # lean: the text so far, grown in place
        self.size = 0
        self.paragraphs: list[Paragraph] = []
        self.props: list[ParagraphProps] = []  # per paragraph of scanned stories (add_scanned)
        self.span_starts: list[int] = []
        self.span_nodes: list[Any] = []
        self.span_kinds = bytearray()
        self.span_flags = bytearray()
        # Scanned stories: (first span index, part) wherever the part of the spans changes.
        self.runs: list[tuple[int, str]] = []
        self._story: Story | None = None
        self._story_no = -1  # stories begun so far, less one

    def _part_of_next_spans(self, part: str) -> None:
        if not self.runs or self.runs[-1][1] != part:
            self.runs.append((len(self.span_starts), part))

    def _number_story(self, story: Story) -> int:
        if story is not self._story:
            self._story, self._story_no = story, self._story_no + 1
        return self._story_no

    def add(self, scanned: StoryText, story: Story, continued: bool = False) -> None:
        """Append a story's text as a reader gave it, or (``continued``) the next stretch of the
        story last added: its paragraphs come separated from each other and from those before
        already."""
        if not scanned.paragraphs:
            return
        if self.paragraphs and not continued:
            self._separate()
        base = self.size
        if self.lean:
            self._grow("".join(scanned.pieces))
            if not scanned.flags:
                pass
            elif scanned.flags.count(0) == len(scanned.flags):
                self._flag_run(base, 0)
            else:
                for offset, flag in zip(scanned.offsets, scanned.flags, strict=True):
                    self._flag_run(base + offset, flag)
        else:
            self._part_of_next_spans(story.part)
            self.span_starts.extend(map(base.__add__, scanned.offsets) if base else scanned.offsets)
            self.span_nodes.extend(scanned.nodes)
            self.span_kinds.extend(scanned.kinds)
            self.span_flags.extend(scanned.flags)
            self.chunks.extend(scanned.pieces)
        self.size += scanned.size
        if self.size > MAX_TEXT.get():
            raise too_much_text(MAX_TEXT.get(), story.part)
        if len(self.paragraphs) + len(scanned.paragraphs) > MAX_PARAGRAPHS:
            raise _too_many(story.part)
        part, kind, index, number = story.part, story.kind, len(self.paragraphs), self._number_story(story)
        append, props = self.paragraphs.append, self.props.append
        first = index
        for start, end, ref, own in scanned.paragraphs:
            append(Paragraph(index, part, kind, base + start, base + end, ref, story_no=number))
            props(own)
            index += 1
        for k in scanned.field_code:
            self.paragraphs[first + k].field_code = True

    def _separate(self) -> None:
        """The separator after the last paragraph: a MARK span whose node is that paragraph."""
        last = self.paragraphs[-1]
        if self.lean:
            self._flag_run(self.size, 0)
            self._grow(SEPARATOR)
        else:
            self._part_of_next_spans(last.part)  # (read only for a scanned view: NodeMap)
            self.span_starts.append(self.size)
            self.span_nodes.append(last.ref)
            self.span_kinds.append(SpanKind.MARK)
            self.span_flags.append(0)
            self.chunks.append(SEPARATOR)
        self.size += 1

    def _grow(self, more: str) -> None:
        # With the only reference in a local, CPython extends the string in place (realloc)
        # rather than copying it: the text is never held twice, as a final join would.
        text, self._text = self._text, ""
        text += more
        self._text = text

    def _flag_run(self, at: int, flag: int) -> None:
        if (self.span_flags[-1] if self.span_flags else 0) != flag or not self.span_starts:
            self.span_starts.append(at)
            self.span_flags.append(flag)
            self.span_kinds.append(SpanKind.TEXT)

    def finish(self, revision: str, nodes: NodeMap | None = None) -> DocumentView:
        if nodes is not None:
            for para in self.paragraphs:
                para.nodes = nodes
        text = self._text if self.lean else "".join(self.chunks)
        self.chunks, self._text = [], ""
        return DocumentView(
            text,
            self.paragraphs,
            revision,
            self.span_starts,
            _NoNodes() if self.lean else self.span_nodes if nodes is None else nodes,
            self.span_kinds,
            self.span_flags,
        )


def _too_many(part: str) -> PackageError:
    return PackageError(
        Code.TOO_COMPLEX,
        f"The document has more than {MAX_PARAGRAPHS:,} paragraphs; no real contract comes "
        "close, and a file like this is built to cost time and memory, so it is refused.",
        part,
    )


def flatten(stories: list[Story], revision: str = "", numbering: Numbering | None = None) -> DocumentView:
    """Flatten ``stories`` into one view; label body paragraphs with ``numbering``."""
    with paused():  # as build_view: see redline.collector
        builder = ViewBuilder()
        for story in stories:
            assert story.root is not None
            builder.add(read_story(story.root), story)
        view = builder.finish(revision)
        _label(view, numbering or Numbering.empty(), builder.props)
        return view


def _label(view: DocumentView, numbering: Numbering, props: list[ParagraphProps]) -> None:
    """Give each body paragraph its displayed label and every paragraph its section
    (:mod:`redline.read.sections`), from the properties ``props`` the reader found for each."""
    entries: list[Entry] = []
    text = view.text
    for para in view.paragraphs:
        label = ilvl = outline = None
        snippet = ""  # what a typed number needs (a head's title is read from the text when named)
        if para.story == "body":
            own = props[para.index]
            number = numbering.number_of(own)
            outline = numbering.outline_level_of(own)
            if number is not None:
                label, ilvl = number.label, number.ilvl
            para.label, para.ilvl = label, ilvl
            if not is_number(label):
                start = para.start
                snippet = text[start : min(para.end, start + TYPED_SPAN)]
        entries.append(Entry(para.story, label, ilvl, outline, snippet))
    paras = view.paragraphs
    where = functools.partial(
        _title_text, text, array("q", [p.start for p in paras]), array("q", [p.end for p in paras])
    )
    view.outline = build_outline(entries, where)
    for para, node in zip(view.paragraphs, view.outline.head_of, strict=True):
        para.node = node
    for head in view.outline.heads:
        view.paragraphs[head.index].level = head.depth


def _title_text(text: str, starts: array[int], ends: array[int], i: int) -> str:
    """The start of paragraph ``i``'s text, as its section's title is made from it (the view's
    text and where its paragraphs are: no paragraph, so no cycle through the heads)."""
    start = starts[i]
    return text[start : min(ends[i], start + 240)]


# -------------------------------------------------------------------------------------------
# From a package


def story_parts(package: Package, refs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The parts of the stories after the body, in view order, as (part, kind): the headers,
    then the footers, that the body's section properties reference (``refs``: (kind,
    relationship id) in document order; each part once, never the main part), then the
    footnotes and endnotes parts.  Every reader finds its stories here."""
    main = package.main_part
    rels = {rel.id: rel for rel in package.rels(main)}
    seen: set[str] = {main}  # a header or footer that is the main part would be read twice
    found: dict[str, list[str]] = {"header": [], "footer": []}
    wanted = {"header": REL_HEADER, "footer": REL_FOOTER}
    for kind, rid in refs:
        rel = rels.get(rid)
        if rel is None or rel.type != wanted[kind] or rel.external or rel.target in seen:
            continue
        seen.add(rel.target)
        if rel.target in package:
            found[kind].append(rel.target)
    plan = [(target, kind) for kind in ("header", "footer") for target in found[kind]]
    for kind, rel_type in (("footnote", REL_FOOTNOTES), ("endnote", REL_ENDNOTES)):
        plan.extend((part, kind) for part in package.related(main, rel_type) if part != main)
    return plan


_NOTE_KINDS = (None, "normal")  # a separator or continuation notice is no note a reader reads


def stories_of(package: Package, working: WorkingCopy | None = None) -> list[Story]:
    """The package's stories in view order, as trees: those of ``working`` (a working copy of
    their own when None)."""
    trees = working if working is not None else WorkingCopy(package)
    main = package.main_part
    root = trees.xml(main)
    body = root.find(w("body"))
    stories = [Story(main, "body", body if body is not None else root)]
    sect_tags = (w("headerReference"), w("footerReference"))
    # section properties sit at the end of the body and in paragraph properties: look only there
    found = body.xpath("w:sectPr | w:p/w:pPr/w:sectPr", namespaces=_NS) if body is not None else []
    sections = [el for el in found if isinstance(el, etree._Element)] if isinstance(found, list) else []
    refs = [
        ("header" if ref.tag == sect_tags[0] else "footer", ref.get(f"{{{R_NS}}}id") or "")
        for sect in sections
        for ref in sect.iterchildren(*sect_tags)
    ]
    for part, kind in story_parts(package, refs):
        tree = trees.xml(part)
        if kind in ("header", "footer"):
            stories.append(Story(part, kind, tree))
        else:
            notes = tree.iterchildren(w(kind))
            stories.extend(Story(part, kind, note) for note in notes if note.get(w("type")) in _NOTE_KINDS)
    return stories


def unread(package: Package) -> dict[str, Counter[str]]:
    """Per story part, what its stories hold that the view does not read as a rule says
    (:func:`redline.read.roles.unrecognised`: elements no rule names, content Word shows and the
    view leaves out).  Reads the parts as trees: call it when asked, not on every load."""
    found: dict[str, Counter[str]] = {}
    for story in stories_of(package):
        assert story.root is not None
        counts = unrecognised(story.root)
        if counts:
            found.setdefault(story.part, Counter()).update(counts)
    return found


def numbering_of(package: Package, lean: bool = False) -> Numbering:
    """The document's numbering definitions.  ``lean``: read ``styles.xml`` keeping only its
    paragraph styles (a 350 KB styles part is a 3-4 MB tree, mostly latent styles), and keep
    no tree in the package's cache."""
    main = package.main_part
    numbering = package.related(main, REL_NUMBERING)
    styles = package.related(main, REL_STYLES)
    if not lean:
        found = Numbering.from_parts(
            package.xml(numbering[0]) if numbering else None,
            package.xml(styles[0]) if styles else None,
        )
    else:
        found = Numbering.from_parts(
            package.fresh_xml(numbering[0]) if numbering else None,
            _paragraph_styles(package, styles[0]) if styles else None,
        )
    cycle = found.style_cycle()
    if cycle is not None:
        shown = " \u2192 ".join([*cycle[:6], cycle[0]] if len(cycle) <= 6 else [*cycle[:6], "\u2026"])
        raise PackageError(
            Code.TOO_COMPLEX,
            f"The paragraph styles are based on each other in a circle ({shown}); no word "
            "processor writes that, and their numbering cannot be read, so the document is refused.",
            styles[0] if styles else main,
        )
    return found


def _paragraph_styles(package: Package, part: str) -> etree._Element | None:
    """``part``'s root with only its paragraph and numbering ``w:style`` children, read as a stream."""
    wanted = w("style")
    try:
        events = etree.iterparse(
            io.BytesIO(package.read(part)), events=("start", "end"), resolve_entities=False,
            no_network=True, load_dtd=False, huge_tree=False,
        )  # fmt: skip
        root: etree._Element | None = None
        for event, el in events:
            if event == "start":
                if root is None:
                    root = el
                continue
            if root is None or el.getparent() is not root:
                continue
            if el.tag != wanted or el.get(w("type"), "paragraph") not in ("paragraph", "numbering"):
                el.clear()
                root.remove(el)
        return root
    except etree.XMLSyntaxError as exc:
        raise syntax_refusal(exc, part) from None


def build_view(package: Package, *, trees: bool = False, labels: bool = True) -> DocumentView:
    """Load every story of ``package`` into one offset-mapped view: scanned from the XML text
    when every story part allows it (the usual case), else walked as trees.

    ``trees``: the view will be written from, so the main part's tree (which a scanned view
    otherwise parses when something is first written, :meth:`DocumentView.check_tree`) is
    parsed now, on the second core while the scanner reads -- the same parse, moved earlier; a
    part that fails it fails it again, with its code, when it is needed.  ``labels=False``: the
    paragraphs' labels and sections (a pure function of what was read, which refuses nothing)
    are given when :meth:`DocumentView.finish_labels` is called -- for a view read only to
    check that it can be read (an output read back); numbering is read all the same."""
    working = WorkingCopy(package)
    with paused(), text_limit(package.limits.max_text_chars):  # paused: see redline.collector
        view = scanned_view(package, working, trees=trees, labels=labels)
        if view is None:
            view = flatten(stories_of(package, working), package.revision, numbering_of(package))
            view.working = working
    return view


# -------------------------------------------------------------------------------------------
# The fast path: scanned stories, elements found on demand


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
        self._elements: dict[str, list[etree._Element]] = {}
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
        return self._nodes_of(part)[ordinal]

    def layout(self, part: str) -> scan.Layout | None:
        """Where ``part``'s outermost paragraphs lie in its XML text (None: not known)."""
        return self._layouts.get(part)

    def _nodes_of(self, part: str) -> list[etree._Element]:
        found = self._elements.get(part)
        if found is None:
            with self._lock:
                found = self._elements.get(part)
                if found is None:
                    found = self._elements[part] = self._list(part)
        return found

    def _list(self, part: str) -> list[etree._Element]:
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


def scanned_view(
    package: Package, working: WorkingCopy | None = None, *, trees: bool = False, labels: bool = True
) -> DocumentView | None:
    """The view read by :mod:`redline.read.scan`, or None when a story part needs the tree walk
    (:func:`build_view` then walks the trees; the tests hold the two readings equal); its
    elements are found in ``working`` (a working copy of its own when None); ``trees`` and
    ``labels`` as :func:`build_view` takes them."""
    main = package.main_part
    data = package.read(main)
    body_src = scan.prepare(data, main, check=False)
    body = body_src.body() if body_src is not None else None
    if body_src is None or body is None:
        return None
    if working is None:
        working = WorkingCopy(package)
    # for a view to be written from, the main part's tree; else the styles and numbering
    then = functools.partial(working.xml, main) if trees else functools.partial(_read_ahead, package)
    check = scan.Check(data, then)  # on another core while the body is scanned
    builder = ViewBuilder()
    totals: dict[str, int] = {}
    layouts: dict[str, scan.Layout | None] = {}
    try:
        scanner = scan.Scanner(body_src)
        builder.add(scanner.story(*body), Story(main, "body", None))
        totals[main] = scanner.total()
        layouts[main] = scanner.layout()
        placed = scanner.placed_references()
        refs = [(kind, rid) for _, kind, rid in placed]
        if not check.passed() or not _scan_other_stories(package, builder, refs, totals, layouts):
            return None
    except scan.Unscannable:
        return None
    finally:
        check.passed()  # never leave the check running
    nodes = NodeMap(working, builder.span_nodes, builder.runs, totals, layouts)
    view = builder.finish(package.revision, nodes)
    view.working = working
    view.scanned = Scanned(builder.props, placed)
    numbering = numbering_of(package)  # read (and checked) now, labelled or not
    if labels:
        _label(view, numbering, builder.props)
    else:
        view.unlabelled = (numbering, builder.props)
    return view


def _read_ahead(package: Package) -> None:
    """The trees the view needs next, parsed on the check's thread while the body is scanned
    (lxml lets go of the GIL while it parses): the styles and numbering parts, into the
    package's cache numbering_of reads them from (a 2.5 MB styles.xml is 70 ms).  Not for a
    view to be written from: that thread parses the main part's tree then, which takes longer
    than the scan, so the view waits for it (and a part parsed there would only add to the
    wait).  A part that fails is parsed again, and refused, where it is needed."""
    main = package.main_part
    for rel_type in (REL_STYLES, REL_NUMBERING):
        found = package.related(main, rel_type)
        if found:
            package.xml(found[0])


def verify_only_view(package: Package, piece: int = 64 * 1024) -> DocumentView:
    """A view to verify quotes against, with no map back to the XML (nothing can be written
    from it), read without ever holding the main part whole: load the package with
    ``Package.from_bytes(data, stream_main=True)`` and the body is inflated, checked and
    scanned a stretch at a time (:class:`redline.read.scan.BodyStream`).  Its text, paragraphs,
    labels, sections and field/move flags are those :func:`build_view` gives.  A document
    the stream cannot read plainly (see the scanner's conditions) is read by
    :func:`build_view` instead.  ``piece``: bytes inflated at a time.
    """
    with text_limit(package.limits.max_text_chars):
        return _verify_only_view(package, piece)


def _verify_only_view(package: Package, piece: int) -> DocumentView:
    main = package.main_part
    builder = ViewBuilder(lean=True)
    body = Story(main, "body", None)
    refs: list[tuple[str, str]] = []
    stream = scan.BodyStream(main, package.stream(main, piece), package.limits.max_markup)
    scanner: scan.Scanner | None = None
    try:
        for stretch in stream.stretches():
            continued = scanner is not None
            if scanner is None:
                scanner = scan.Scanner(stretch)
            else:
                scanner.feed(stretch)
            builder.add(scanner.story(0, len(stretch.text), continued), body, continued)
            refs.extend(scanner.references())
        if not _scan_other_stories(package, builder, refs, {}):
            return build_view(package)
    except (scan.NotPlain, scan.Unscannable):
        return build_view(package)
    view = builder.finish(package.revision)
    _label(view, numbering_of(package, lean=True), builder.props)
    return view


def _scan_other_stories(
    package: Package,
    builder: ViewBuilder,
    refs: list[tuple[str, str]],
    totals: dict[str, int],
    layouts: dict[str, scan.Layout | None] | None = None,
) -> bool:
    """Scan the stories after the body (:func:`story_parts`) into ``builder`` (False when one
    of their parts needs the tree walk); each part's node count goes into ``totals``, and its
    paragraphs' places into ``layouts`` if given."""
    for part, kind in story_parts(package, refs):
        scanner = scan_story_part(package, part, kind, builder)
        if scanner is None:
            return False
        totals[part] = scanner.total()
        if layouts is not None:
            layouts[part] = scanner.layout()
    return True


def scan_story_part(package: Package, part: str, kind: str, builder: ViewBuilder) -> scan.Scanner | None:
    """Scan the stories of one part after the body (a header's or footer's one, a notes
    part's every real note) into ``builder``; the scanner that read them (its node count and
    layout), or None when the part needs the tree walk."""
    src = scan.prepare(package.read(part), part)
    if src is None:
        return None
    scanner = scan.Scanner(src)
    whole = [(src.root_end, len(src.text), True)]
    ranges = scan.notes(src) if kind in ("footnote", "endnote") else whole
    for start, end, real in ranges:
        if real:
            builder.add(scanner.story(start, end), Story(part, kind, None))
    return scanner
