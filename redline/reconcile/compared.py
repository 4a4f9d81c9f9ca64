"""What of a document's reading is compared, story by story, and where the two differ.

A reader never sees the result of a field as typed text: ``PAGE``, ``NUMPAGES``, a date, a
cross-reference's number, a table of contents are computed, and a re-save or a print computes
them again (LibreOffice does, on every save).  What was typed is the field's *code*.  So the
text compared is each reading's text **without its computed fields' results** (:data:`COMPUTED`;
a ``HYPERLINK``'s text was typed and stays) -- taken out before the comparison, not filtered after it, so a
result rewritten beside typed text cannot shift what is compared.

Headers and footers are compared as a reader meets them, not as parts: each is the story a
section shows for a type (``default``, ``first``, ``even``: :func:`~redline.reconcile.shown.
shown_stories`), and SENT's story of a key is compared with RETURNED's story of the same key --
LibreOffice renumbers the parts and writes a header a section inherits as a part of its own, so
part names do not line up.  A part no section shows is not compared.  Everything else (the
body, footnotes, endnotes, comments' text) is one story, compared in order.

:func:`compared_differences` gives the word-level differences (:mod:`redline.reconcile.align`)
as offsets into the two readings, so the rest of reconcile places them as before.
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from ..opc.namespaces import w
from ..opc.package import Package
from ..read.roles import SpanFlag
from ..read.view import DocumentView
from .align import Difference, carried, differences
from .readings import Reading
from .shown import StoryKey, continuous_stories, shown_stories

__all__ = [
    "COMPUTED", "Carry", "Compared", "Computed", "compared_differences", "compared_texts",
    "field_code_changes", "normal_code",
]  # fmt: skip

_MAIN = "main"
_SIDE = frozenset(("header", "footer"))
COMPUTED = frozenset((
    "PAGE", "NUMPAGES", "SECTIONPAGES", "SECTION", "DATE", "TIME", "CREATEDATE", "SAVEDATE",
    "PRINTDATE", "EDITTIME", "REF", "PAGEREF", "NOTEREF", "SEQ", "TOC", "TOA", "INDEX", "STYLEREF",
    "DOCPROPERTY", "DOCVARIABLE", "FILENAME", "FILESIZE", "NUMWORDS", "NUMCHARS", "AUTHOR",
    "LASTSAVEDBY", "TITLE", "SUBJECT", "KEYWORDS", "COMMENTS", "REVNUM", "TEMPLATE", "USERNAME",
    "USERINITIALS", "USERADDRESS", "INFO", "LISTNUM", "AUTONUM", "AUTONUMLGL", "AUTONUMOUT",
    "BIDIOUTLINE", "=",
))  # fmt: skip
"""Fields whose result is computed (ECMA-376 Part 1, §17.16.5): their results are taken out.
Any other field's result (``HYPERLINK``'s text, a form field's) was typed and is compared."""
_FLD_CHAR, _INSTR, _SIMPLE, _P = w("fldChar"), w("instrText"), w("fldSimple"), w("p")


def _computed(code: str) -> bool:
    words = code.split()
    return bool(words) and (words[0].upper() in COMPUTED or words[0].startswith("="))


def _computed_results(root: etree._Element, tags: frozenset[str]) -> dict[int, etree._Element]:
    """``id`` of every element of ``root`` that stands in the result of a computed field
    (a complex field's, between its ``separate`` and ``end``, or a ``w:fldSimple``'s); only
    elements of ``tags`` (those the view's field-result spans are) are looked at."""
    out: dict[int, etree._Element] = {}  # (the element kept: an id names it only while it lives)
    stack: list[list[Any]] = []  # [code, separated]
    if next(root.iter(_FLD_CHAR, _SIMPLE), None) is None:
        return out
    for el in root.iter(_FLD_CHAR, _INSTR, _SIMPLE, *tags):
        tag = el.tag
        if tag == _FLD_CHAR:
            kind = el.get(w("fldCharType"))
            if kind == "begin":
                stack.append(["", False])
            elif kind == "separate" and stack:
                stack[-1][1] = True
            elif kind == "end" and stack:
                stack.pop()
            continue
        if tag == _INSTR and stack and not stack[-1][1]:
            stack[-1][0] += el.text or ""
            continue
        if tag == _SIMPLE and _computed(el.get(w("instr")) or ""):
            out.update((id(x), x) for x in el.iter())
            continue
        if stack and any(sep and _computed(code) for code, sep in stack):
            out[id(el)] = el
    return out


class Computed:
    """Is a view span the result of a computed field? (Each part's tree walked once.)"""

    def __init__(self, view: DocumentView) -> None:
        self.view = view
        self.roots: dict[int, dict[int, etree._Element]] = {}
        self.keep: list[etree._Element] = []
        self._tags: frozenset[str] | None = None

    def tags(self) -> frozenset[str]:
        """The tags of the nodes of the view's field-result spans."""
        if self._tags is None:
            found: set[str] = set()
            try:
                for i, f in enumerate(self.view.span_flags):
                    if f & SpanFlag.FIELD_RESULT:
                        node = self.view.span_nodes[i]
                        if isinstance(node, etree._Element) and isinstance(node.tag, str):
                            found.add(node.tag)
            except (TypeError, IndexError):
                found = set()
            self._tags = frozenset(found)
        return self._tags

    def __call__(self, span: int) -> bool:
        if not self.view.span_flags[span] & SpanFlag.FIELD_RESULT:
            return False
        try:
            node = self.view.span_nodes[span]
        except (TypeError, IndexError):
            return True  # (a view without trees: as the flag says)
        return self.node(node, self.view.span_flags[span])

    def covers(self, start: int, end: int) -> bool:
        """Is all of view ``[start, end)`` (non-empty) the result of computed fields?"""
        if end <= start:
            return False
        starts = self.view.span_starts
        i = max(0, bisect.bisect_right(starts, start) - 1)
        while i < len(starts) and starts[i] < end:
            if not self(i):
                return False
            i += 1
        return True

    def node(self, node: object, flags: int) -> bool:
        """Is ``node`` (of a span with ``flags``) in a computed field's result?"""
        if not flags & SpanFlag.FIELD_RESULT:
            return False
        if not isinstance(node, etree._Element):
            return True
        root = node.getroottree().getroot()
        found = self.roots.get(id(root))
        if found is None:
            found = self.roots[id(root)] = _computed_results(root, self.tags())
            self.keep.append(root)
        return id(node) in found


@dataclass
class Compared:
    """One story's compared text; ``pieces[k] = (at, origin, length)``: ``text[at:at+length]``
    is the reading's ``[origin, origin+length)``; ``end``: the reading offset after it."""

    text: str = ""
    pieces: list[tuple[int, int, int]] = field(default_factory=list)
    end: int = 0
    _parts: list[str] = field(default_factory=list, repr=False)
    _ats: list[int] = field(default_factory=list, repr=False)
    _length: int = 0

    def add(self, reading: str, start: int, end: int) -> None:
        if end <= start:
            return
        at = self._length
        self._length += end - start
        self.pieces.append((at, start, end - start))
        self._ats.append(at)
        self._parts.append(reading[start:end])
        self.end = end

    def close(self) -> None:
        self.text = "".join(self._parts)
        self._parts = []

    def origin(self, offset: int) -> int:
        """The reading offset of ``text[offset]`` (or, at the end, after the last piece)."""
        if offset >= len(self.text) or not self.pieces:
            return self.end
        k = bisect.bisect_right(self._ats, offset) - 1
        at, origin, _ = self.pieces[max(k, 0)]
        return origin + (offset - at)

    def origin_end(self, offset: int) -> int:
        """The reading offset just after ``text[offset - 1]``."""
        if offset <= 0:
            return self.origin(0)
        return self.origin(offset - 1) + 1


def _stories(view: DocumentView, package: Package) -> tuple[dict[str, list[StoryKey]], set[str]]:
    """Header and footer parts -> the keys they are shown under; every header/footer part."""
    keys: dict[str, list[StoryKey]] = {}
    for key, part in shown_stories(package).items():
        keys.setdefault(part, []).append(key)
    side = {p.part for p in view.paragraphs if p.story in _SIDE}
    return keys, side


class Carry:
    """Where a view offset of document B stands in document A's view, story by story: in a
    header or footer, in the story A shows under the same section and type
    (:func:`~redline.reconcile.shown.shown_stories`) past the differences of the two stories'
    texts; elsewhere past the differences of the whole texts (``back``: B's against A's).  A
    re-save writes a header a section inherits out once per section, so the whole texts
    do not line up there."""

    def __init__(
        self, a: tuple[DocumentView, Package], b: tuple[DocumentView, Package], back: list[Difference]
    ) -> None:
        self.a, self.b, self.back = a[0], b[0], back
        keys_a, self.side_a = _stories(*a)
        self.keys_b, self.side_b = _stories(*b)
        self.by_key_a = {k: p for p, ks in keys_a.items() for k in ks}
        self.ranges_a, self.ranges_b = _ranges(self.a), _ranges(self.b)
        self._diffs: dict[tuple[str, str], list[Difference]] = {}

    def __call__(self, offset: int) -> tuple[int, int]:
        b = self.b
        if not b.paragraphs or not self.side_b:
            return carried(self.back, offset)
        part = b.paragraph_at(min(offset, max(len(b.text) - 1, 0))).part
        keys = self.keys_b.get(part) if part in self.side_b else None
        pa = self.by_key_a.get(keys[0]) if keys else None
        if pa is None or pa not in self.ranges_a or part not in self.ranges_b:
            return carried(self.back, offset)
        a0, a1 = self.ranges_a[pa]
        b0, b1 = self.ranges_b[part]
        diffs = self._diffs.get((pa, part))
        if diffs is None:
            diffs = self._diffs[(pa, part)] = differences(b.text[b0:b1], self.a.text[a0:a1])
        lo, hi = carried(diffs, max(0, min(offset, b1) - b0))
        return lo + a0, hi + a0


def _ranges(view: DocumentView) -> dict[str, tuple[int, int]]:
    """Each part's range of the view's text (its first paragraph's start, its last's end)."""
    out: dict[str, tuple[int, int]] = {}
    for p in view.paragraphs:
        lo, _ = out.get(p.part, (p.start, p.end))
        out[p.part] = (lo, p.end)
    return out


def compared_texts(view: DocumentView, reading: Reading, package: Package) -> dict[str, Compared]:
    """``reading`` (of ``view``) split into the stories compared, field results taken out: the
    main story under ``"main"``, each header/footer part shown under its own name."""
    keys, side = _stories(view, package)
    # view ranges: (start, end, story) with field results cut out
    flags, starts = view.span_flags, view.span_starts
    computed = Computed(view)
    out: dict[str, Compared] = {}
    text = reading.text
    n = len(reading.starts)
    for k in range(n):
        r0 = reading.starts[k]
        r1 = reading.starts[k + 1] if k + 1 < n else len(text)
        origin = reading.origins[k]
        if not reading.kept[k]:
            name = _story(view, origin, side, keys)
            if name is not None:
                out.setdefault(name, Compared()).add(text, r0, r1)
            continue
        pos = r0
        while pos < r1:
            v = origin + (pos - r0)
            para = view.paragraph_at(v) if view.paragraphs else None
            limit = r1
            if para is not None:
                nxt = para.index + 1
                if nxt < len(view.paragraphs):
                    limit = min(limit, r0 + (view.paragraphs[nxt].start - origin))
            i = max(0, bisect.bisect_right(starts, v) - 1)
            span_end = starts[i + 1] if i + 1 < len(starts) else len(view.text)
            limit = max(pos + 1, min(limit, r0 + (span_end - origin)))
            is_field = computed(i) if i < len(flags) and starts else False
            name = _story(view, v, side, keys)
            if name is not None and not is_field:
                out.setdefault(name, Compared()).add(text, pos, limit)
            pos = limit
    for c in out.values():
        c.close()
    return out


def _story(view: DocumentView, offset: int, side: set[str], keys: dict[str, list[StoryKey]]) -> str | None:
    if not view.paragraphs:
        return _MAIN
    part = view.paragraph_at(min(offset, max(len(view.text) - 1, 0))).part
    if part not in side:
        return _MAIN
    return part if part in keys else None  # (a part no section shows: not compared)


def _clip(text: str, limit: int = 60) -> str:
    t = " ".join(text.split())
    return repr(t if len(t) <= limit else "\u2026" + t[-(limit - 1) :])


def compared_differences(
    a: tuple[DocumentView, Reading, Package],
    b: tuple[DocumentView, Reading, Package],
    notes: list[str] | None = None,
) -> list[Difference]:
    """The word-level differences between two readings as compared (above), as offsets into
    the readings' texts, in ``a``'s order.  A header or footer of a section that begins
    continuous (:func:`~redline.reconcile.shown.continuous_stories`) that differs is not a
    difference: which pages show it only layout tells, and a re-save may drop it -- said in
    ``notes`` instead."""
    ta, tb = compared_texts(*a), compared_texts(*b)
    keys_a, _ = _stories(a[0], a[2])
    keys_b, _ = _stories(b[0], b[2])
    by_key_a = {k: p for p, ks in keys_a.items() for k in ks}
    by_key_b = {k: p for p, ks in keys_b.items() for k in ks}
    loose = continuous_stories(a[2]) | continuous_stories(b[2])
    units: list[tuple[str | None, str | None]] = [(_MAIN, _MAIN)]
    layout: dict[tuple[str | None, str | None], StoryKey] = {}
    for key in sorted(set(by_key_a) | set(by_key_b)):
        unit = (by_key_a.get(key), by_key_b.get(key))
        if key in loose:
            layout.setdefault(unit, key)
        elif unit not in units:
            units.append(unit)
    for unit, key in layout.items():
        if unit in units:
            continue
        ca, cb = ta.get(unit[0] or "", Compared()), tb.get(unit[1] or "", Compared())
        if ca.text != cb.text and notes is not None:
            notes.append(
                f"the {key[2]} {key[1]} of section {key[0] + 1} (a section that begins on the page "
                f"before: which pages show it is layout) reads {_clip(ca.text)} in one and "
                f"{_clip(cb.text)} in the other; not reported as untracked"
            )
    out: list[Difference] = []
    seen: set[Difference] = set()
    for pa, pb in units:
        ca = ta.get(pa or "", Compared()) if pa else Compared()
        cb = tb.get(pb or "", Compared()) if pb else Compared()
        if not ca.text and not cb.text:
            continue
        for d in differences(ca.text, cb.text):
            a0, a1 = (
                ca.origin(d.a_start),
                (ca.origin_end(d.a_end) if d.a_end > d.a_start else ca.origin(d.a_start)),
            )
            b0, b1 = (
                cb.origin(d.b_start),
                (cb.origin_end(d.b_end) if d.b_end > d.b_start else cb.origin(d.b_start)),
            )
            got = Difference(a0, a1, b0, b1)
            if got not in seen:
                seen.add(got)
                out.append(got)
    out.sort(key=lambda d: (d.a_start, d.a_end))
    return out


_ARG = re.compile(r'"([^"]*)"|(\S+)')
_FORMAT_SWITCHES = ("\\@", "\\#", "\\*")
"""The switches that say how a result looks (a date's picture, a number's, ``MERGEFORMAT``):
its look is computed like the result, and a re-save writes them its own way (LibreOffice adds a
date's default picture, and quotes it anew)."""
_COUNTING_SWITCHES = {"SEQ": frozenset(("\\c", "\\h", "\\n", "\\r", "\\s"))}
"""Per field, the switches that say how its number is counted: a ``SEQ``'s repeat (``\\c``),
next (``\\n``), reset to a number (``\\r``) or at a heading level (``\\s``), hidden (``\\h``).
Which sequence it counts (its identifier, a bookmark) is what it asks; how it counts is its
result's computation -- a caption's number, computed as a page number is -- and a re-save
writes it its own way (LibreOffice drops ``\\s``)."""


def normal_code(code: str) -> str:
    """A field code as what it asks for: its name in capitals, its arguments in order, its
    switches with their arguments in a sorted order (a re-save reorders them: ``TOC \\o "1-3"
    \\h`` and ``TOC \\h \\o "1-3"`` ask the same), the format switches and a field's counting
    switches (:data:`_COUNTING_SWITCHES`) left out."""
    tokens = [m.group(1) if m.group(1) is not None else m.group(2) for m in _ARG.finditer(code)]
    if not tokens:
        return ""
    name, rest = tokens[0].upper(), tokens[1:]
    args: list[str] = []
    switches: list[list[str]] = []
    for tok in rest:
        if tok.startswith("\\") and len(tok) >= 2:
            switches.append([tok[:2].lower(), tok[2:]] if tok[2:] else [tok[:2].lower()])
        elif switches:
            switches[-1].append(tok)
        else:
            args.append(tok)
    dropped = {*_FORMAT_SWITCHES, *_COUNTING_SWITCHES.get(name, ())}
    kept = sorted(" ".join(x for x in sw if x) for sw in switches if sw[0] not in dropped)
    return " ".join([name, *args, *kept])


def _field_codes(view: DocumentView, reading: Reading) -> dict[str, list[tuple[str, int]]]:
    """Each part's computed fields, in order: (normal code, view offset of its result), of the
    fields whose result ``reading`` keeps (a field inside a revision rejected there is not)."""
    spans: dict[int, int] = {}
    alive: list[object] = []  # (kept: an id names its element only while it lives)
    for i, f in enumerate(view.span_flags):
        if f & SpanFlag.FIELD_RESULT:
            try:
                node = view.span_nodes[i]
            except (TypeError, IndexError):
                return {}
            spans.setdefault(id(node), view.span_starts[i])
            alive.append(node)
    roots: dict[str, etree._Element] = {}
    for p in view.paragraphs:
        if p.part in roots:
            continue
        try:
            roots[p.part] = p.element.getroottree().getroot()
        except (TypeError, AttributeError):
            return {}
    elements = [(p.ref, p.start) for p in view.paragraphs if isinstance(p.ref, etree._Element)]
    starts = {id(e): at for e, at in elements}
    out: dict[str, list[tuple[str, int]]] = {}
    tags = Computed(view).tags()
    for part, root in roots.items():
        found: list[tuple[str, int]] = []
        stack: list[list[Any]] = []  # [code, separated, offset]
        if next(root.iter(_FLD_CHAR, _SIMPLE), None) is None:
            continue
        for el in root.iter(_FLD_CHAR, _INSTR, _SIMPLE, *tags):
            if el.tag == _FLD_CHAR:
                kind = el.get(w("fldCharType"))
                if kind == "begin":
                    para = next((x for x in el.iterancestors(_P)), None)
                    stack.append(["", False, -1, starts.get(id(para), -1)])
                elif kind == "separate" and stack:
                    stack[-1][1] = True
                elif kind == "end" and stack:
                    code, _, at, para_at = stack.pop()
                    at = at if at >= 0 else para_at  # (an empty result: its paragraph)
                    if _computed(code) and at >= 0:
                        found.append((normal_code(code), at))
                continue
            if el.tag == _INSTR and stack and not stack[-1][1]:
                stack[-1][0] += el.text or ""
                continue
            if el.tag == _SIMPLE and _computed(el.get(w("instr")) or ""):
                at = next((spans[id(x)] for x in el.iter() if id(x) in spans), -1)
                if at < 0:
                    para = next((x for x in el.iterancestors(_P)), None)
                    at = starts.get(id(para), -1)
                if at >= 0:
                    found.append((normal_code(el.get(w("instr")) or ""), at))
                continue
            if stack and stack[-1][1] and stack[-1][2] < 0 and id(el) in spans:
                stack[-1][2] = spans[id(el)]
        kept = [(c, at) for c, at in found if reading.source(reading.at(at)) == at]
        out[part] = kept
    return out


def field_code_changes(
    a: tuple[DocumentView, Reading, Package], b: tuple[DocumentView, Reading, Package]
) -> list[tuple[list[str], list[str], int | None]]:
    """The computed fields whose *code* differs (what was typed: ``PAGE`` made ``NUMPAGES``, a
    ``REF`` pointed elsewhere), story by story as :func:`compared_differences` pairs them: (SENT's
    codes, RETURNED's, RETURNED's view offset of the place, or None)."""
    fa, fb = _field_codes(a[0], a[1]), _field_codes(b[0], b[1])
    keys_a, side_a = _stories(a[0], a[2])
    keys_b, side_b = _stories(b[0], b[2])
    by_key_a = {k: p for p, ks in keys_a.items() for k in ks}
    by_key_b = {k: p for p, ks in keys_b.items() for k in ks}
    loose = continuous_stories(a[2]) | continuous_stories(b[2])
    main_a = [x for p, xs in fa.items() if p not in side_a for x in xs]
    main_b = [x for p, xs in fb.items() if p not in side_b for x in xs]
    units: list[tuple[list[tuple[str, int]], list[tuple[str, int]]]] = [(main_a, main_b)]
    seen: set[tuple[str | None, str | None]] = set()
    for key in sorted(set(by_key_a) | set(by_key_b)):
        pair = (by_key_a.get(key), by_key_b.get(key))
        if key in loose or pair in seen:
            continue
        seen.add(pair)
        units.append((fa.get(pair[0] or "", []), fb.get(pair[1] or "", [])))
    out: list[tuple[list[str], list[str], int | None]] = []
    for xs, ys in units:
        ca, cb = [c for c, _ in xs], [c for c, _ in ys]
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ca, cb, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            at = ys[j1][1] if j1 < len(ys) else (ys[-1][1] if ys else None)
            out.append((ca[i1:i2], cb[j1:j2], at))
    return out
