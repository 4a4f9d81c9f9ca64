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
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING

from lxml import etree

from .numbering import Numbering
from .ooxml import (
    MC_NS,
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
from .xmlparse import PackageError

if TYPE_CHECKING:
    from .package import Package

_P = w("p")
_R = w("r")
_T = w("t")
_TAB = w("tab")
_PTAB = w("ptab")
_BR = w("br")
_CR = w("cr")
_NBH = w("noBreakHyphen")
_SOFT = w("softHyphen")
_SYM = w("sym")
_DEL = w("del")
_MOVE_FROM = w("moveFrom")
_MOVE_TO = w("moveTo")
_FLD_CHAR = w("fldChar")
_FLD_SIMPLE = w("fldSimple")
_FALLBACK = f"{{{MC_NS}}}Fallback"
_RPR = w("rPr")
_PPR = w("pPr")

_WALK_TAGS = [
    _P, _T, _TAB, _PTAB, _BR, _CR, _NBH, _SOFT, _SYM, _DEL, _MOVE_FROM, _FLD_CHAR, _FLD_SIMPLE,
    _FALLBACK,
]  # fmt: skip
_NS = {"w": W_NS}
_FLAT_TAGS = [_P, _T, _TAB, _PTAB, _BR, _CR, _NBH, _SOFT, _SYM, _DEL, _FLD_CHAR]
_FLD_CHAR_TYPE = w("fldCharType")
_CHAR_OF = {_TAB: "\t", _PTAB: "\t", _BR: "\n", _CR: "\n", _NBH: "\u2011", _SOFT: "\u00ad"}

# Symbol-font private-use code points (U+F0xx) that have a Unicode meaning.
_SYMBOL_FONT = {
    0xB7: "\u2022", 0xD3: "\u00a9", 0xD2: "\u00ae", 0xD4: "\u2122", 0xB0: "\u00b0",
    0xB1: "\u00b1", 0xB4: "\u00d7", 0xB8: "\u00f7", 0xAE: "\u2192", 0xA3: "\u2264",
    0xB3: "\u2265", 0xB9: "\u2260", 0xA7: "\u00a7", 0xBC: "\u2026",
}  # fmt: skip

SEPARATOR = "\n"
MAX_PARAGRAPHS = 100_000
"""Six times the largest real contract we have (15,944); each costs the view microseconds."""


class SpanKind(IntEnum):
    TEXT = 0  # a w:t: the span covers node.text
    CHAR = 1  # a one-character element (w:tab, w:br, w:sym, ...)
    MARK = 2  # the paragraph separator; node is the w:p whose mark it is


class SpanFlag(IntEnum):
    FIELD_RESULT = 1  # inside the result of a field (w:fldSimple or fldChar separate..end)
    MOVE_TO = 2  # inside someone's tracked move


@dataclass(frozen=True, slots=True)
class Story:
    """One flow of text: a part and the element whose paragraphs belong to it."""

    part: str
    kind: str  # body | header | footer | footnote | endnote
    root: etree._Element
    # True when the part has no text boxes, no mc:AlternateContent and no tracked moves-from:
    # then no paragraph nests in another and nothing needs skipping by subtree, and a flat
    # single pass (``root.iter``) gives the same view as the event walk, at half the cost.
    flat: bool = False
    # True when the part may hold deletions, simple fields or moves: the flat pass then looks
    # at each text run's container.
    checks: bool = True


@dataclass(slots=True)
class Paragraph:
    index: int
    part: str
    story: str
    start: int
    end: int
    element: etree._Element
    label: str | None = None
    section: str | None = None
    level: int | None = None  # outline level when the paragraph heads a section
    title: str | None = None  # the section title it heads ("4.2 Operating Expenses")


@dataclass(frozen=True, slots=True)
class Piece:
    """The part of one span that a view range covers."""

    kind: SpanKind
    node: etree._Element
    start: int  # offset inside the node's text (0 for CHAR and MARK)
    end: int
    view_start: int
    flags: int


@dataclass
class DocumentView:
    text: str
    paragraphs: list[Paragraph]
    revision: str
    span_starts: list[int]
    span_nodes: list[etree._Element]
    span_kinds: bytearray
    span_flags: bytearray
    para_starts: list[int] = field(default_factory=list)
    _sections: dict[str, list[tuple[Paragraph, int]]] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.para_starts:
            self.para_starts = [p.start for p in self.paragraphs]

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

    def flags_between(self, start: int, end: int) -> int:
        """The union of the flags of every span the range [start, end) touches."""
        i = max(0, bisect.bisect_right(self.span_starts, start) - 1)
        j = bisect.bisect_left(self.span_starts, end)
        out = 0
        for f in self.span_flags[i : max(j, i + 1)]:
            out |= f
        return out

    def sections_named(self, name: str) -> list[tuple[Paragraph, int]]:
        """Every section whose label or heading matches ``name``, as (head, end offset)."""
        if self._sections is None:
            self._sections = self._index_sections()
        return list(self._sections.get(_section_key(name), ()))

    def _index_sections(self) -> dict[str, list[tuple[Paragraph, int]]]:
        """One pass: each head's section runs until the next head of its level or above, or
        the end of its story; indexed by every name it answers to."""
        ends: dict[int, int] = {}
        open_heads: list[Paragraph] = []
        for p in self.paragraphs:
            if open_heads and p.story != open_heads[-1].story:
                for h in open_heads:
                    ends[h.index] = p.start
                open_heads = []
            if p.title is None:
                continue
            level = p.level if p.level is not None else 0
            while open_heads and (open_heads[-1].level or 0) >= level:
                ends[open_heads.pop().index] = p.start
            open_heads.append(p)
        for h in open_heads:
            ends[h.index] = len(self.text)
        index: dict[str, list[tuple[Paragraph, int]]] = {}
        for p in self.paragraphs:
            if p.title is None:
                continue
            label = p.label or ""
            keys = {
                _section_key(label),
                _section_key(p.title),
                _section_key(self.paragraph_text(p)),
                _section_key(p.title[len(label) :]),
            }
            for key in keys:
                index.setdefault(key, []).append((p, ends[p.index]))
        return index


def _section_key(name: str) -> str:
    key = " ".join(name.replace("\u00a7", " ").split()).casefold()
    for prefix in ("section ", "clause ", "article "):
        if key.startswith(prefix):
            key = key[len(prefix) :]
    return key.strip().rstrip(".:")


# -------------------------------------------------------------------------------------------
# Flattening


class _Frame:
    """One paragraph being collected: its text pieces and (offset, node, kind, flags) spans."""

    __slots__ = ("deleted_mark", "element", "pieces", "size", "spans")

    def __init__(self, element: etree._Element) -> None:
        self.element = element
        self.pieces: list[str] = []
        self.spans: list[tuple[int, etree._Element, int, int]] = []
        self.size = 0
        self.deleted_mark = False

    def add(self, text: str, node: etree._Element, kind: SpanKind, flags: int) -> None:
        self.spans.append((self.size, node, kind, flags))
        self.pieces.append(text)
        self.size += len(text)


class _Builder:
    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.size = 0
        self.paragraphs: list[Paragraph] = []
        self.span_starts: list[int] = []
        self.span_nodes: list[etree._Element] = []
        self.span_kinds = bytearray()
        self.span_flags = bytearray()
        self._join_next: Story | None = None  # the story whose last paragraph's mark was deleted

    def emit(self, frame: _Frame, story: Story) -> None:
        if frame.deleted_mark and frame.size == 0:
            return
        joined = self._join_next is story
        self._join_next = story if frame.deleted_mark else None
        if self.paragraphs and not joined:  # a deleted mark joins its paragraph to the next
            last = self.paragraphs[-1]
            self.span_starts.append(self.size)
            self.span_nodes.append(last.element)
            self.span_kinds.append(SpanKind.MARK)
            self.span_flags.append(0)
            self.chunks.append(SEPARATOR)
            self.size += 1
        start = self.size
        if frame.spans:
            offsets, nodes, kinds, flags = zip(*frame.spans, strict=True)
            self.span_starts.extend([start + o for o in offsets])
            self.span_nodes.extend(nodes)
            self.span_kinds.extend(kinds)
            self.span_flags.extend(flags)
        self.chunks.extend(frame.pieces)
        self.size += frame.size
        if len(self.paragraphs) >= MAX_PARAGRAPHS:
            raise PackageError(
                "too_complex",
                f"The document has more than {MAX_PARAGRAPHS:,} paragraphs; no real contract comes "
                "close, and a file like this is built to cost time and memory, so it is refused.",
                story.part,
            )
        self.paragraphs.append(
            Paragraph(len(self.paragraphs), story.part, story.kind, start, self.size, frame.element)
        )

    def walk(self, story: Story) -> None:
        if story.flat:
            self._walk_flat(story)
        else:
            self._walk_nested(story)

    def _walk_flat(self, story: Story) -> None:
        """One ``iter`` over the story; every paragraph ends where the next begins."""
        frame: _Frame | None = None
        field_stack: list[bool] = []
        field_result, move_to = int(SpanFlag.FIELD_RESULT), int(SpanFlag.MOVE_TO)
        checks = story.checks
        for node in story.root.iter(_FLAT_TAGS):
            tag = node.tag
            if tag == _T:
                text = node.text
                if not text or frame is None or (field_stack and not field_stack[-1]):
                    continue
                flags = field_result if field_stack else 0
                if checks:
                    container = node.getparent().getparent()  # type: ignore[union-attr]
                    ctag = container.tag if container is not None else None
                    if ctag == _DEL:
                        continue
                    if ctag == _FLD_SIMPLE:
                        flags |= field_result
                    elif ctag == _MOVE_TO:
                        flags |= move_to
                frame.spans.append((frame.size, node, 0, flags))
                frame.pieces.append(text)
                frame.size += len(text)
            elif tag in _CHAR_OF or tag == _SYM:
                if frame is None or (field_stack and not field_stack[-1]):
                    continue
                run = node.getparent()
                if run is None or run.tag != _R:
                    continue  # e.g. w:tabs/w:tab in paragraph properties
                if any(True for _ in node.iterancestors(_DEL)):
                    continue
                container = run.getparent()
                ctag = container.tag if container is not None else None
                flags = field_result if (field_stack or ctag == _FLD_SIMPLE) else 0
                if ctag == _MOVE_TO:
                    flags |= move_to
                text = _symbol(node) if tag == _SYM else _CHAR_OF[tag]
                frame.spans.append((frame.size, node, 1, flags))
                frame.pieces.append(text)
                frame.size += len(text)
            elif tag == _P:
                if frame is not None:
                    self.emit(frame, story)
                frame = _Frame(node)
            elif tag == _FLD_CHAR:
                run = node.getparent()
                container = run.getparent() if run is not None else None
                if container is None or container.tag != _DEL:
                    _track_field(field_stack, node)
            elif tag == _DEL and frame is not None and _marks_paragraph(node):
                frame.deleted_mark = True
        if frame is not None:
            self.emit(frame, story)

    def _walk_nested(self, story: Story) -> None:
        stack: list[_Frame] = []
        field_stack: list[bool] = []  # per open complex field: past its separator?
        in_simple = 0
        walker = etree.iterwalk(story.root, events=("start", "end"), tag=_WALK_TAGS)
        for event, node in walker:
            tag = node.tag
            if event == "end":
                if tag == _P:
                    frame = stack.pop()
                    self.emit(frame, story)
                elif tag == _FLD_SIMPLE:
                    in_simple -= 1
                continue
            if tag == _P:
                stack.append(_Frame(node))
                continue
            if tag == _FLD_SIMPLE:
                in_simple += 1
                continue
            if tag == _DEL:
                if stack and _marks_paragraph(node):
                    stack[-1].deleted_mark = True
                walker.skip_subtree()
                continue
            if tag in (_MOVE_FROM, _FALLBACK):
                walker.skip_subtree()
                continue
            if tag == _FLD_CHAR:
                _track_field(field_stack, node)
                continue
            if not stack:
                continue
            if field_stack and not field_stack[-1]:
                continue  # inside a field's instructions: not text
            flags = SpanFlag.FIELD_RESULT if (in_simple or field_stack) else 0
            frame = stack[-1]
            if tag == _T:
                text = node.text
                if text:
                    frame.add(text, node, SpanKind.TEXT, flags)
                continue
            parent = node.getparent()
            if parent is None or parent.tag != _R:
                continue  # e.g. w:tabs/w:tab in paragraph properties
            if tag == _SYM:
                frame.add(_symbol(node), node, SpanKind.CHAR, flags)
            else:
                frame.add(_CHAR_OF[tag], node, SpanKind.CHAR, flags)

    def finish(self, revision: str) -> DocumentView:
        return DocumentView(
            "".join(self.chunks),
            self.paragraphs,
            revision,
            self.span_starts,
            self.span_nodes,
            self.span_kinds,
            self.span_flags,
        )


def _track_field(field_stack: list[bool], fld_char: etree._Element) -> None:
    """Follow a complex field (§17.16.18): begin opens it, separate ends its instructions
    (what follows is its result), end closes it.  ``field_stack[-1]``: past the separator?"""
    kind = fld_char.get(_FLD_CHAR_TYPE)
    if kind == "begin":
        field_stack.append(False)
    elif kind == "separate" and field_stack:
        field_stack[-1] = True
    elif kind == "end" and field_stack:
        field_stack.pop()


def _marks_paragraph(deletion: etree._Element) -> bool:
    """Is this ``w:del`` the deleted-paragraph-mark marker (``w:pPr/w:rPr/w:del``)?"""
    parent = deletion.getparent()
    grand = parent.getparent() if parent is not None and parent.tag == _RPR else None
    return grand is not None and grand.tag == _PPR


def _symbol(node: etree._Element) -> str:
    raw = node.get(w("char")) or ""
    try:
        code = int(raw, 16)
    except ValueError:
        return "\ufffc"
    if 0xF000 <= code <= 0xF0FF:
        return _SYMBOL_FONT.get(code - 0xF000, chr(code))
    if 0x20 <= code < 0xD800 or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF:
        return chr(code)
    return "\ufffc"  # out of range, a surrogate or a non-character: chr() would raise or lie


def flatten(stories: list[Story], revision: str = "", numbering: Numbering | None = None) -> DocumentView:
    """Flatten ``stories`` into one view; label body paragraphs with ``numbering``."""
    builder = _Builder()
    for story in stories:
        builder.walk(story)
    view = builder.finish(revision)
    _label(view, numbering or Numbering.empty())
    return view


def _label(view: DocumentView, numbering: Numbering) -> None:
    """Give each body paragraph its displayed label and every paragraph its enclosing section."""
    open_heads: list[Paragraph] = []
    story = None
    for para in view.paragraphs:
        if para.story != story:
            open_heads = []
            story = para.story
        if para.story == "body":
            number = numbering.number(para.element)  # one read of the paragraph's properties
            para.label = number.label if number is not None else None
            outline = numbering.outline_level(para.element)
            if outline is not None or para.label:
                level = outline if outline is not None else (number.ilvl if number else None)
                para.level = level if level is not None else 0
                para.title = _title(para.label, view.paragraph_text(para), outline is not None)
                while open_heads and (open_heads[-1].level or 0) >= para.level:
                    open_heads.pop()
                open_heads.append(para)
        para.section = open_heads[-1].title if open_heads else None


def _title(label: str | None, text: str, is_heading: bool) -> str:
    text = " ".join(text[:240].split())
    if is_heading:
        head = text if len(text) <= 80 else text[:79].rstrip() + "…"
    else:
        cut = min((i for i in (text.find(". "), text.find(": ")) if i > 0), default=-1)
        if 0 < cut <= 60:
            head = text[:cut]
        else:
            words = text.split(" ")
            head = " ".join(words[:8]) + ("…" if len(words) > 8 else "")
    return f"{label} {head}".strip() if label else head


# -------------------------------------------------------------------------------------------
# From a package


_NESTING_MARKERS = (b"txbxContent", b"AlternateContent", b"moveFrom")
_CONTAINER_MARKERS = (b"del ", b"del>", b"fldSimple", b"moveTo")


def _story(package: Package, part: str, kind: str, root: etree._Element) -> Story:
    data = package.read(part)
    flat = not any(marker in data for marker in _NESTING_MARKERS)
    checks = any(marker in data for marker in _CONTAINER_MARKERS)
    return Story(part, kind, root, flat, checks)


def stories_of(package: Package) -> list[Story]:
    """The package's stories in view order."""
    main = package.main_part
    root = package.xml(main)
    body = root.find(w("body"))
    stories = [_story(package, main, "body", body if body is not None else root)]
    rels = {rel.id: rel for rel in package.rels(main)}
    seen: set[str] = {main}  # a header or footer that is the main part would be read twice
    refs: dict[str, list[str]] = {"header": [], "footer": []}
    sect_tags = (w("headerReference"), w("footerReference"))
    # section properties sit at the end of the body and in paragraph properties: look only there
    found = body.xpath("w:sectPr | w:p/w:pPr/w:sectPr", namespaces=_NS) if body is not None else []
    sections = [el for el in found if isinstance(el, etree._Element)] if isinstance(found, list) else []
    for ref in (r for sect in sections for r in sect.iterchildren(*sect_tags)):
        kind = "header" if ref.tag == sect_tags[0] else "footer"
        rel = rels.get(ref.get(f"{{{R_NS}}}id") or "")
        wanted = REL_HEADER if kind == "header" else REL_FOOTER
        if rel is None or rel.type != wanted or rel.external or rel.target in seen:
            continue
        seen.add(rel.target)
        if rel.target in package:
            refs[kind].append(rel.target)
    for kind in ("header", "footer"):
        for target in refs[kind]:
            stories.append(_story(package, target, kind, package.xml(target)))
    for kind, rel_type, note_tag in (
        ("footnote", REL_FOOTNOTES, "footnote"),
        ("endnote", REL_ENDNOTES, "endnote"),
    ):
        for part in package.related(main, rel_type):
            if part == main:
                continue
            template = _story(package, part, kind, package.xml(part))
            for note in template.root.iterchildren(w(note_tag)):
                if note.get(w("type")) in (None, "normal"):
                    stories.append(Story(part, kind, note, template.flat, template.checks))
    return stories


def numbering_of(package: Package) -> Numbering:
    main = package.main_part
    numbering = package.related(main, REL_NUMBERING)
    styles = package.related(main, REL_STYLES)
    return Numbering.from_parts(
        package.xml(numbering[0]) if numbering else None,
        package.xml(styles[0]) if styles else None,
    )


def build_view(package: Package) -> DocumentView:
    """Load every story of ``package`` into one offset-mapped view."""
    return flatten(stories_of(package), package.revision, numbering_of(package))
