"""Building the document view: a package's stories read, by the scanner or the tree walk, into a
:class:`~redline.read.view.DocumentView`.

:func:`build_view` is the usual entry (scanned when every story part allows it, else walked as
trees); :func:`verify_only_view` is the streamed read that never holds the main part whole;
:func:`story_parts` and :func:`stories_of` find the stories, once for every reader;
:class:`ViewBuilder` appends what the readers assemble, story by story.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from itertools import repeat
from operator import add
from typing import TYPE_CHECKING, Any

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
from ..opc.xmlparse import PackageError
from . import scan
from .labels import _label, numbering_of
from .numbering import Numbering
from .paragraphs import MAX_TEXT, SEPARATOR, StoryText, text_limit, too_much_text
from .roles import ParagraphProps, SpanKind, unrecognised
from .view import DocumentView, NodeMap, Paragraph, Scanned, Story, _NoNodes
from .walk import read_story

if TYPE_CHECKING:
    from ..opc.package import Package

_NS = {"w": W_NS}

MAX_PARAGRAPHS = 100_000
"""Six times the largest real contract we have (15,944); each costs the view microseconds."""


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
            self.span_starts.extend(map(add, scanned.offsets, repeat(base)) if base else scanned.offsets)
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
        for k, depth in scanned.cells:
            self.paragraphs[first + k].cell = depth

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


def build_view(package: Package, *, trees: bool = False, labels: bool = True) -> DocumentView:
    """Load every story of ``package`` into one offset-mapped view: scanned from the XML text
    when every story part allows it (the usual case), else walked as trees.

    ``trees``: the view will be written from (kept for the callers; a scanned view's main part
    is parsed only where a write asks, :mod:`redline.read.partial`, so nothing is parsed ahead
    for it: the second core reads the styles and numbering ahead, as for any view).  ``labels=False``: the
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


def scanned_view(
    package: Package, working: WorkingCopy | None = None, *, trees: bool = False, labels: bool = True
) -> DocumentView | None:
    """The view read by :mod:`redline.read.scan`, or None when a story part needs the tree walk
    (:func:`build_view` then walks the trees; the tests hold the two readings equal); its
    elements are found in ``working`` (a working copy of its own when None); ``trees`` and
    ``labels`` as :func:`build_view` takes them."""
    main = package.main_part
    data = package.read(main)
    counted = package.counts(main)
    body_src = scan.prepare(data, main, check=False, xmlns=counted[1] if counted is not None else None)
    body = body_src.body() if body_src is not None else None
    if body_src is None or body is None:
        return None
    if working is None:
        working = WorkingCopy(package)
    # the styles and numbering (a view to be written from parses of the main part only the
    # paragraphs a write asks for: redline.read.partial)
    then = functools.partial(_read_ahead, package)
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
    counted = package.counts(part)
    src = scan.prepare(package.read(part), part, xmlns=counted[1] if counted is not None else None)
    if src is None:
        return None
    scanner = scan.Scanner(src)
    whole = [(src.root_end, len(src.text), True)]
    ranges = scan.notes(src) if kind in ("footnote", "endnote") else whole
    for start, end, real in ranges:
        if real:
            builder.add(scanner.story(start, end), Story(part, kind, None))
    return scanner
