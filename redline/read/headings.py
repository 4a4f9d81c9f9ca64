"""Headings that are only formatted: a short line standing alone above its clause, set apart
from the body text after it by its look, with no heading style and no number.

Many contracts head their clauses so: "Governing Law and Jurisdiction" in bold (or all caps,
underlined, or in a larger font, directly or by its style) above the paragraphs it heads.  Such
a paragraph is a section named by its text when a reply cites it (:func:`sections_named`), and
only then: it is found when the outline names nothing, it never changes a label, and the
paragraphs under it keep the section the outline gives them (so reports, views and the golden
outputs read as before).

A paragraph is such a heading when

* it lies in the body, heads no section of the outline, and holds at most :data:`MAX_WORDS`
  words (:data:`MAX_CHARS` characters), a letter among them, with no sentence in it (it does not
  end in a full stop after a word of three letters or more, or a semicolon or comma);
* the next paragraph with text is body text, longer than it, and not itself such a line;
* every run of its text has one property the body text after it lacks in most of its text:
  bold, all caps (``w:caps``, or typed in capitals), underlined, or a larger font size.

Its section runs to the next paragraph that heads a section of the outline, or that is a heading
of the same look, whichever comes first.  The properties are read as Word resolves them, nearest
first: the run's own, its character style's chain, the paragraph style's chain, the document
defaults (§17.7.2; toggling through styles is not modelled: the nearest setting wins).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Final, NamedTuple

from lxml import etree

from ..errors import PackageError
from ..opc.namespaces import REL_STYLES, w
from .outline import Entry, Head
from .sections import MAX_REFERENCE, Kind, _key_text

if TYPE_CHECKING:
    from .view import DocumentView, Paragraph

MAX_WORDS: Final = 12
MAX_CHARS: Final = 100
SCAN: Final = 2000  # paragraphs looked through for where a formatted heading's section ends

_R, _T, _RPR, _PPR = w("r"), w("t"), w("rPr"), w("pPr")
_B, _CAPS, _U, _SZ, _VAL = w("b"), w("caps"), w("u"), w("sz"), w("val")
_RSTYLE, _PSTYLE, _BASED_ON, _STYLE_ID = w("rStyle"), w("pStyle"), w("basedOn"), w("styleId")
_DELETED = (w("del"), w("moveFrom"))
_SENTENCE_END = re.compile(r"(?:[^\W\d_]{3,}\.|[;,])\s*\Z")


class Look(NamedTuple):
    """What sets a run apart: each property over all of a paragraph's text runs."""

    bold: bool
    caps: bool
    underline: bool
    size: float  # the smallest size of its runs (half-points; 0 when unknown)


def sections_named(view: DocumentView, name: str) -> list[Head]:
    """Every section ``name`` names: the outline's (:meth:`~redline.read.outline.Outline.named`),
    else the formatted headings whose text it is (see the module's docstring)."""
    found = view.outline.named(name)
    if found or not isinstance(name, str) or not name.strip() or len(name) > MAX_REFERENCE:
        return found
    found = _formatted(view, name)
    if found:
        return found
    inner = _described(name)
    if inner is None:
        return []
    return view.outline.named(inner) or _formatted(view, inner)


@functools.cache
def _descriptions() -> tuple[re.Pattern[str], ...]:
    """A title a lawyer describes as a clause, named by the title inside ("the Governing Law
    clause", "the Payment Terms section", "the clause headed Notices"); compiled on first use:
    only a name no section answers to is read so."""
    return (
        re.compile(
            r"(?:the\s+)?(?P<name>.+?)\s+(?:clause|section|article|provision|paragraph|heading)s?",
            re.IGNORECASE,
        ),
        re.compile(
            r"(?:the\s+)?(?:clause|section|article|provision|paragraph)\s+(?:headed|entitled|titled|called|on)\s+"
            r"(?P<name>.+)",
            re.IGNORECASE,
        ),
    )


def _described(name: str) -> str | None:
    """The title inside a description of a clause ("the Governing Law clause": "Governing
    Law"), or None when ``name`` is none."""
    text = " ".join(name.split())
    for pattern in _descriptions():
        m = pattern.fullmatch(text)
        if m:
            inner = m.group("name").strip(" \"'\u201c\u201d\u2018\u2019")
            if inner and inner.casefold() != "the":
                return inner
    return None


def _formatted(view: DocumentView, name: str) -> list[Head]:
    key = _key_text(name)
    if not key:
        return []
    try:
        return formatted_headings(view, key)
    except (TypeError, PackageError):  # a verify-only view has no trees to read the look from
        return []


def formatted_headings(view: DocumentView, key: str) -> list[Head]:
    """The formatted headings whose text, as a key (:func:`~redline.read.sections._key_text`),
    is ``key``, each as a section of its own (not in the outline)."""
    paragraphs = view.paragraphs
    lines = view.outline.short_lines
    if lines is None:
        lines = {}
        for para in paragraphs:
            if para.story == "body" and not para.heads and para.end - para.start <= MAX_CHARS:
                lines.setdefault(_key_text(view.paragraph_text(para)), []).append(para.index)
        view.outline.short_lines = lines
    out: list[Head] = []
    looks = _Looks(view)
    for index in lines.get(key, ()):
        para = paragraphs[index]
        text = view.paragraph_text(para)
        look = _heading_look(view, para, looks)
        if look is None:
            continue
        out.append(_section(view, para, text, look, looks))
    return out


def _next_text(view: DocumentView, index: int) -> Paragraph | None:
    paragraphs = view.paragraphs
    for j in range(index + 1, min(len(paragraphs), index + 50)):
        para = paragraphs[j]
        if para.story != "body":
            return None
        if view.paragraph_text(para).strip():
            return para
    return None


def _is_line(text: str) -> bool:
    words = text.split()
    return (
        0 < len(words) <= MAX_WORDS
        and len(text) <= MAX_CHARS
        and any(c.isalpha() for c in text)
        and not _SENTENCE_END.search(text)
    )


def _heading_look(view: DocumentView, para: Paragraph, looks: _Looks) -> Look | None:
    """The look that sets ``para`` apart as a heading, or None when it is no formatted heading."""
    text = view.paragraph_text(para).strip()
    if not _is_line(text):
        return None
    body = _next_text(view, para.index)
    if body is None or len(view.paragraph_text(body).strip()) <= len(text):
        return None
    if para.cell and not body.cell:
        return None  # the last line of a table's cell heads no text after the table
    mine, theirs = looks.of(para), looks.of(body)
    if mine is None or theirs is None:
        return None
    apart = Look(
        mine.bold and not theirs.bold,
        mine.caps and not theirs.caps,
        mine.underline and not theirs.underline,
        mine.size if mine.size and theirs.size and mine.size > theirs.size else 0.0,
    )
    return apart if (apart.bold or apart.caps or apart.underline or apart.size) else None


def _same_look(a: Look, b: Look | None) -> bool:
    return b is not None and (
        (a.bold and b.bold)
        or (a.caps and b.caps)
        or (a.underline and b.underline)
        or (a.size > 0 and b.size >= a.size)
    )


def _section(view: DocumentView, para: Paragraph, text: str, look: Look, looks: _Looks) -> Head:
    paragraphs = view.paragraphs
    last = len(paragraphs) - 1
    body = _next_text(view, para.index)
    if body is not None and body.heads and body.node is not None:
        last = _clauses_end(view, para, body.node, look, looks)
    else:
        last = _end(view, para, look, looks)
    parent = para.node
    head = Head(
        para.index, None, None, False, True, (parent.rank + 0.5) if parent else 0.0, parent=parent, last=last
    )
    head.depth = parent.depth + 1 if parent is not None else 0
    head.entry = Entry("body", None, None, None, text)
    return head


def _plain_clause(head: Head) -> bool:
    """A numbered clause that is no heading and no container (article, part, schedule...)."""
    number = head.number
    return number is not None and not head.heading and number.kind is Kind.CLAUSE


def _clauses_end(view: DocumentView, para: Paragraph, first: Head, look: Look, looks: _Looks) -> int:
    """The last paragraph of a formatted heading's section when a numbered clause follows it:
    that clause and the clauses of its rank after it ("Payment" over "1." and "2."), up to a
    clause of another rank, a heading, a line of the heading's look, or the end of the
    table the heading is in."""
    paragraphs = view.paragraphs
    if not _plain_clause(first):
        return first.last
    current, last = first, first.last
    for j in range(first.index + 1, min(len(paragraphs), para.index + SCAN)):
        other = paragraphs[j]
        node = other.node
        if other.story != "body" or (para.cell and not other.cell) or node is None:
            return j - 1
        if other.heads and node.parent is first.parent and _plain_clause(node):
            current = node
        elif not node.within(current):
            return j - 1
        elif not other.heads:
            text = view.paragraph_text(other).strip()
            if _is_line(text) and _same_look(look, looks.of(other)) and _heading_look(view, other, looks):
                return j - 1
        last = j
    return last


def _end(view: DocumentView, para: Paragraph, look: Look, looks: _Looks) -> int:
    """The last paragraph of a formatted heading's section (not under a numbered clause)."""
    paragraphs = view.paragraphs
    last = len(paragraphs) - 1
    for j in range(para.index + 1, min(len(paragraphs), para.index + SCAN)):
        other = paragraphs[j]
        if other.story != "body" or other.heads or (para.cell and not other.cell):
            last = j - 1
            break
        other_text = view.paragraph_text(other).strip()
        if _is_line(other_text) and _same_look(look, looks.of(other)) and _heading_look(view, other, looks):
            last = j - 1
            break
    else:
        last = min(last, para.index + SCAN - 1)
    return last


class _Looks:
    """Each paragraph's look, read from its runs and the document's styles."""

    def __init__(self, view: DocumentView) -> None:
        self._view = view
        self._cache: dict[int, Look | None] = {}
        self._styles: _Styles | None = None

    def _style_table(self) -> _Styles:
        if self._styles is None:
            self._styles = _Styles.of_view(self._view)
        return self._styles

    def of(self, para: Paragraph) -> Look | None:
        """The paragraph's look over its text runs (None: it has no text run)."""
        if para.index in self._cache:
            return self._cache[para.index]
        look = self._read(para.element)
        self._cache[para.index] = look
        return look

    def _read(self, p: etree._Element) -> Look | None:
        styles = self._style_table()
        ppr = p.find(_PPR)
        pstyle = _val(ppr.find(_PSTYLE)) if ppr is not None else None
        bold = caps = underline = True
        size = 0.0
        any_run = False
        for r in p.iter(_R):
            if any(a.tag in _DELETED for a in r.iterancestors()):
                continue
            text = "".join(t.text or "" for t in r.iter(_T))
            if not text.strip():
                continue
            any_run = True
            rpr = r.find(_RPR)
            rstyle = _val(rpr.find(_RSTYLE)) if rpr is not None else None

            def get(
                tag: str, rpr: etree._Element | None = rpr, rstyle: str | None = rstyle
            ) -> etree._Element | None:
                own = rpr.find(tag) if rpr is not None else None
                return own if own is not None else styles.find(tag, rstyle, pstyle)

            bold = bold and _on(get(_B))
            letters = [c for c in text if c.isalpha()]
            caps = caps and (_on(get(_CAPS)) or (bool(letters) and all(c.isupper() for c in letters)))
            u = get(_U)
            underline = underline and u is not None and (_val(u) or "single") != "none"
            sz = get(_SZ)
            value = _number(_val(sz)) if sz is not None else styles.default_size
            size = value if size == 0.0 else min(size, value)
        if not any_run:
            return None
        return Look(bold, caps, underline, size)


class _Styles:
    """Run properties along the document's style chains (character, paragraph, defaults)."""

    def __init__(self, root: etree._Element | None) -> None:
        self._rpr: dict[str, etree._Element | None] = {}
        self._based: dict[str, str | None] = {}
        self._default_para: str | None = None
        self._defaults: etree._Element | None = None
        self.default_size = 20.0  # Word's 10 points when nothing says otherwise
        if root is None:
            return
        for st in root.iter(w("style")):
            sid = st.get(_STYLE_ID)
            if sid is None or sid in self._rpr:
                continue
            self._rpr[sid] = st.find(_RPR)
            self._based[sid] = _val(st.find(_BASED_ON))
            if st.get(w("type")) == "paragraph" and (st.get(w("default")) or "") in ("1", "true", "on"):
                self._default_para = sid
        defaults = root.find(f"{w('docDefaults')}/{w('rPrDefault')}/{_RPR}")
        self._defaults = defaults
        sz = defaults.find(_SZ) if defaults is not None else None
        if sz is not None:
            self.default_size = _number(_val(sz)) or self.default_size

    @classmethod
    def of_view(cls, view: DocumentView) -> _Styles:
        """The style chains of ``view``'s document (none when the view has no package)."""
        working = view.working
        root = None
        if working is not None:
            package = working.package
            parts = package.related(package.main_part, REL_STYLES)
            root = package.xml(parts[0]) if parts else None
        return cls(root)

    def _chain(self, style: str | None, tag: str) -> etree._Element | None:
        seen = 0
        while style is not None and seen < 64:
            rpr = self._rpr.get(style)
            if rpr is not None:
                found = rpr.find(tag)
                if found is not None:
                    return found
            style = self._based.get(style)
            seen += 1
        return None

    def find(self, tag: str, rstyle: str | None, pstyle: str | None) -> etree._Element | None:
        found = self._chain(rstyle, tag)
        if found is None:
            found = self._chain(pstyle if pstyle in self._rpr else self._default_para, tag)
        if found is None and self._defaults is not None:
            found = self._defaults.find(tag)
        return found


def _val(el: etree._Element | None) -> str | None:
    return None if el is None else el.get(_VAL)


def _on(el: etree._Element | None) -> bool:
    """A toggle property set on (§17.7.3: present with no value, or a true value)."""
    if el is None:
        return False
    value = el.get(_VAL)
    return value is None or value.strip().lower() in ("1", "true", "on")


def _number(value: str | None) -> float:
    try:
        return float(value) if value is not None else 0.0
    except ValueError:
        return 0.0
