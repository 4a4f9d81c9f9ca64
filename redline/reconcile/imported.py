"""Content a document imports (``w:altChunk``): SENT's own text, though its view does not read it.

An ``w:altChunk`` stands in the body for a whole other file -- another ``.docx``, HTML, RTF,
plain text -- that Word merges into the document when it opens it; the view reads none of it
(:mod:`redline.read.roles`: not shown).  Word and LibreOffice write that content out as ordinary
paragraphs when they save (LibreOffice does on every re-save: measured, CA009), so a RETURNED
re-saved untouched reads text at the chunk's place that SENT's view never held.  That text was
sent: the other side saw it when they opened SENT.  So it is compared like the rest:

* a chunk that is a ``.docx`` (or plain text) is **read** -- the text of its body's paragraphs,
  computed fields' results left out as everywhere (:mod:`redline.reconcile.compared`) -- and
  put into the reading compared at the chunk's place (:func:`with_imports`): expanded
  untouched it is no change, and a word they changed in it is an untracked change like any
  other; its comments are SENT's comments (expanded, they are not theirs);
* a chunk in a format reconcile does not read (HTML, RTF, MHT) is **not** compared: text that
  stands at its place in RETURNED alone is not reported as untracked but said, in a warning
  that names the chunk, to be compared by eye -- never passed as checked.

A chunk inside a chunk is not expanded (Word merges one level; none was measured deeper).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from ..opc.namespaces import R_NS, REL_BASE, w
from ..opc.package import Limits, Package
from ..read.annotations import DocComment, read_annotations
from ..read.load import load_view
from ..read.view import DocumentView, SpanKind
from .compared import Computed
from .readings import Reading

__all__ = ["Chunk", "imported", "with_imports"]

_ALT_CHUNK, _P = w("altChunk"), w("p")
_REL = REL_BASE + "aFChunk"
_DOCX = frozenset((
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.ms-word.document.macroEnabled.main+xml",
))  # fmt: skip
_TEXT = frozenset(("text/plain",))


@dataclass
class Chunk:
    """One imported file: ``part`` its name, ``kind`` its content type; ``place`` the view
    offset it stands at (the start of the paragraph after it, or the body's end: ``at_end``);
    ``text`` what it reads (paragraphs joined by ``"\\n"``), None when it is not read."""

    part: str
    kind: str
    place: int
    at_end: bool
    text: str | None
    comments: list[DocComment] = field(default_factory=list)

    @property
    def put(self) -> str:
        """The text put in at its place (with the paragraph break that separates it)."""
        if not self.text:
            return ""
        return "\n" + self.text if self.at_end else self.text + "\n"


def imported(package: Package, view: DocumentView, limits: Limits | None = None) -> list[Chunk]:
    """Every ``w:altChunk`` of the body of ``view`` (of ``package``), in order, with what it reads."""
    main = package.main_part
    rels = {rel.id: rel.target for rel in package.rels(main) if not rel.external and rel.type == _REL}
    if not rels:  # (no file imported: the body is not walked)
        return []
    body = [p for p in view.paragraphs if p.part == main and p.story == "body"]
    if not body:
        return []
    try:
        root = body[0].element.getroottree().getroot()
    except TypeError:  # (a view without trees)
        return []
    if next(root.iter(_ALT_CHUNK), None) is None:
        return []
    starts = {id(p.element): p.start for p in body}
    out: list[Chunk] = []
    for el in root.iter(_ALT_CHUNK):
        target = rels.get(el.get(f"{{{R_NS}}}id") or "")
        part = package.find(target) if target else None
        if part is None:
            continue
        place, at_end = _place(el, starts, body[-1].end)
        kind = (package.content_type(part) or "").split(";")[0].strip().lower()
        chunk = Chunk(part, kind, place, at_end, None)
        _read(chunk, package.read(part), limits)
        out.append(chunk)
    return out


def _place(el: etree._Element, starts: dict[int, int], end: int) -> tuple[int, bool]:
    """The view offset of the first paragraph after ``el`` in document order (its
    siblings', then its ancestors' siblings'), or the body's ``end``."""
    at: etree._Element | None = el
    while at is not None:
        for sibling in at.itersiblings():
            for p in sibling.iter(_P):
                if id(p) in starts:
                    return starts[id(p)], False
        at = at.getparent()
    return end, True


def _read(chunk: Chunk, data: bytes, limits: Limits | None) -> None:
    if chunk.kind in _TEXT:
        text = data.decode("utf-8-sig", errors="replace")
        chunk.text = "\n".join(line.rstrip("\r") for line in text.split("\n")).strip("\n")
        return
    if chunk.kind not in _DOCX and not data.startswith(b"PK"):
        return
    loaded = load_view(data, limits, trees=True)
    if not isinstance(loaded, tuple):
        return  # (a chunk that cannot be read: not compared, as one of a format not read)
    package, view = loaded
    computed = Computed(view)
    lines: list[str] = []
    for p in view.paragraphs:
        if p.part != package.main_part or p.story != "body":
            continue
        kept: list[str] = []
        for piece in view.pieces(p.start, p.end):
            if piece.kind == SpanKind.MARK or computed.node(piece.node, piece.flags):
                continue
            length = piece.end - piece.start if piece.kind != SpanKind.CHAR else 1
            kept.append(view.text[piece.view_start : piece.view_start + length])
        lines.append("".join(kept))
    chunk.text = "\n".join(lines)
    chunk.comments = list(read_annotations(package, view).comments)


def with_imports(reading: Reading, chunks: list[Chunk]) -> Reading:
    """``reading`` with each read chunk's text put in at its place, as text that is not the
    view's own (:meth:`Reading.put_back` is true of it, :meth:`Reading.source` gives its place)."""
    points = sorted((reading.at(c.place), c.place, c.put) for c in chunks if c.put)
    if not points:
        return reading
    text = reading.text
    ends = [*reading.starts[1:], len(text)]
    out = Reading("")
    pieces: list[str] = []
    length = 0

    def emit(piece: str, origin: int, kept: bool) -> None:
        nonlocal length
        out.starts.append(length)
        out.origins.append(origin)
        out.kept.append(kept)
        pieces.append(piece)
        length += len(piece)

    added: list[tuple[int, int]] = []  # (reading offset, length put in there)
    k = 0
    for s, origin, kept, e in zip(reading.starts, reading.origins, reading.kept, ends, strict=True):
        cur = s
        while k < len(points) and cur <= points[k][0] < e:
            at, place, put = points[k]
            if at > cur:
                emit(text[cur:at], origin + (cur - s) if kept else origin, kept)
                cur = at
            emit(put, place, False)
            added.append((at, len(put)))
            k += 1
        if e > cur:
            emit(text[cur:e], origin + (cur - s) if kept else origin, kept)
    for at, place, put in points[k:]:
        emit(put, place, False)
        added.append((at, len(put)))
    out.text = "".join(pieces)

    def moved(x: int) -> int:
        return x + sum(n for at, n in added if at <= x)

    out.places = {key: (moved(s), moved(s) + (e - s)) for key, (s, e) in reading.places.items()}
    return out
