"""Read a story's text straight from its part's XML, with no tree: the view's fast path.

Parsing ``word/document.xml`` into an lxml tree and walking it costs about three times the bare
parse, and the view needs neither to read a document.  For a part written the way word
processors write them -- UTF-8, the WordprocessingML prefix declared once on the root element
and never redeclared, no comments, CDATA sections or processing instructions inside -- the text
can be read with a few regular expressions that run in C, built from the element names each
role of :mod:`redline.read.roles`'s table has: the structural tokens one at a time
(paragraphs, paragraph properties, one-character elements, deletions, moves, simple and complex
fields, ``mc:Fallback``), the ``w:t`` runs between them in bulk.  Text boxes (a paragraph inside
another) come out before the paragraph that anchors them, as the tree walk puts them.  What the
scanner reads is exactly what the tree walk in :mod:`redline.read.walk` reads (property and corpus
tests hold the two equal, node for node); a part the scanner cannot vouch for is left to the
tree walk (:func:`prepare` returns None, or :class:`Unscannable` is raised).

:class:`BodyStream` reads a main part's body from its inflated pieces instead, for the
verify-only view that never holds the part whole.

Every text-producing node is named by its *ordinal*: its index among the part's elements whose
tag is in :data:`NODE_TAGS`, in document order -- the order ``root.iter(*NODE_TAGS)`` yields -- so
the view turns ordinals into elements only when the writer asks, from one parse.

The part is still checked for well-formedness by libxml2 (lxml with a parser target that wants no
events: a third of a tree parse's cost) and a DOCTYPE is refused, as with the tree: a malformed
part falls back to the tree walk, whose parser refuses it with the usual typed error.
"""

from __future__ import annotations

import codecs
import contextlib
import re
import threading
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lxml import etree

from shared_schema import Code

from ..errors import too_deep
from ..opc.namespaces import MC_NS, R_NS, W_NS
from ..opc.xmlparse import PackageError, dtd_refusal, find_doctype, make_parser, one_deeper, syntax_refusal
from .paragraphs import Assembler, StoryText, too_much_text
from .roles import (
    CHAR_OF,
    NODE_ROLES,
    PROPERTY_VALUES,
    RULES,
    ParagraphProps,
    Role,
    names,
    props_from,
    symbol,
    track_field,
)

_W_PREFIX = len(W_NS) + 2
_ROLE = {tag[_W_PREFIX:]: rule.role for tag, rule in RULES.items() if tag.startswith(f"{{{W_NS}}}")}
"""The role of each main-namespace element, by local name (what the scanner's tokens give)."""
_CHAR_OF = {tag[_W_PREFIX:]: char for tag, char in CHAR_OF.items()}
_FLAG_OF = {name: RULES[f"{{{W_NS}}}{name}"].flag for name in names(Role.FLAGGED)}
_PARAGRAPH, _PROPERTIES, _CHARACTER, _SYMBOL = Role.PARAGRAPH, Role.PROPERTIES, Role.CHARACTER, Role.SYMBOL
_FIELD_CHAR, _DELETED = Role.FIELD_CHAR, Role.DELETED


# -------------------------------------------------------------------------------------------
# Preparing a part

_ATTRS = r"""(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*"""
_ATTR = re.compile(r"""([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_PROLOG = re.compile(r"(?:[ \t\r\n]+|<\?.*?\?>)*", re.DOTALL)
_ROOT = re.compile(rf"<([^\s/>]+)({_ATTRS})(/?)>")
_ENCODING = re.compile(r"""<\?xml[^>]*?encoding\s*=\s*["']([^"']*)["']""")
_ENTITY = re.compile(r"&(?:#[xX]([0-9a-fA-F]+)|#([0-9]+)|(amp|lt|gt|quot|apos));")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


def _entity(m: re.Match[str]) -> str:
    hexa, dec, name = m.groups()
    if name:
        return _NAMED[name]
    try:
        return chr(int(hexa, 16) if hexa else int(dec))
    except (ValueError, OverflowError):
        return "\ufffd"  # pragma: no cover - the parser has refused such a reference already


def unescape(text: str) -> str:
    return _ENTITY.sub(_entity, text) if "&" in text else text


def attributes(raw: str) -> dict[str, str]:
    """The attributes of a start tag's attribute text, values unescaped and normalised."""
    out: dict[str, str] = {}
    for name, dq, sq in _ATTR.findall(raw):
        value = dq or sq
        if "\t" in value or "\n" in value:
            value = value.replace("\t", " ").replace("\n", " ")
        out[name] = unescape(value)
    return out


@dataclass(frozen=True, slots=True)
class Source:
    """One XML part, decoded, that the scanner can read."""

    part: str
    text: str
    w: str  # the prefix bound to WordprocessingML
    r: str | None  # the prefix bound to relationships, if any
    root: str  # the root element's qualified name
    root_end: int  # where the root's start tag ends
    patterns: Patterns
    has_entities: bool
    # Where the root's start tag ends in the part's bytes, when everything after it in
    # ``text`` is the part's own text (no line end was normalised there); else -1.
    root_bytes: int = -1

    def body(self) -> tuple[int, int] | None:
        """The content range of the document's ``w:body`` (there is one)."""
        m = re.compile(rf"<{re.escape(self.w)}:body(?=[\s/>]){_ATTRS}(/?)>").search(self.text, self.root_end)
        if m is None:
            return None
        if m.group(1):
            return m.end(), m.end()
        close = self.text.rfind(f"</{self.w}:body")
        return (m.end(), close) if close >= m.end() else None


def prepare(data: bytes, part: str, check: bool = True, xmlns: int | None = None) -> Source | None:
    """``data`` as a :class:`Source`, or None when the part needs the tree walk.

    Raises ``dtd_forbidden`` as the parser would; every other oddity (another encoding,
    prefixes redeclared below the root, comments or CDATA, a malformed part) returns None so
    that the tree walk decides, and refuses with its own typed errors.  ``check=False`` leaves
    the parser's check (well-formed, no comment or processing instruction) to the caller:
    :class:`Check`, which can run while the part is scanned.  ``xmlns``: how many times
    ``xmlns`` occurs in ``data``, when known (:meth:`redline.opc.package.Package.counts`).
    """
    if find_doctype(data):
        raise dtd_refusal(part)
    if _other_encoding(data[:200].decode("latin-1")):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    head = plain_root(data, text, xmlns)
    if head is None or data.find(b"CDATA[", head.root_end) >= 0:
        return None
    root, (w, r, mc), root_end = head.root, head.prefixes, head.root_end
    if check and not Check(data).passed():
        return None
    root_at, root_bytes = root.end(), root_end
    # What every XML parser does to line ends before anything else; only what follows the
    # root's start tag is ever read, so a line end in the prolog (Word writes a CRLF after the
    # declaration) changes nothing, and the text stays the part's own.
    if text.find("\r", root_at) >= 0:
        root_bytes = -1  # the text after the root will not be the part's own
        root_at -= text.count("\r\n", 0, root_at)  # (a lone CR becomes a LF: same length)
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    patterns = _patterns(w, mc)
    # (markup inside a w:t, which the tree walk refuses, is found as the part is scanned:
    # Unscannable, from the scanner's regular expressions that read the text anyway)
    return Source(part, text, w, r, root.group(1), root_at, patterns, "&" in text, root_bytes)


_OWN_NAMESPACES = (W_NS, R_NS, MC_NS)
_XMLNS = re.compile(rb"""xmlns(?::([^\s=/>]+))?\s*=\s*(?:"([^"]*)"|'([^']*)')""")


@dataclass(frozen=True, slots=True)
class Head:
    """A part's root start tag as the scanner reads it: the match (its name, attributes),
    the prefixes it declares for WordprocessingML, relationships and markup compatibility,
    and the byte where the tag ends."""

    root: re.Match[str]
    prefixes: tuple[str, str | None, str | None]
    root_end: int


def plain_root(data: bytes, text: str, xmlns: int | None = None) -> Head | None:
    """The root of the part ``data`` whose text from its start (the root's start tag at
    least) is ``text``, or None when the scanner cannot read the part plainly: another
    encoding declared, no root start tag it reads (:func:`_prefixes`), or one of its prefixes
    (or namespaces) bound again below the root.  ``xmlns``: how many times ``xmlns`` occurs
    in ``data``, when known: all of them in the root's start tag, nothing below it is looked
    at (a search of the whole part saved)."""
    if _other_encoding(text[:200]):
        return None
    root = _root(text)
    found = _prefixes(root) if root is not None else None
    if root is None or found is None:
        return None
    root_end = len(text[: root.end()].encode("utf-8"))  # in bytes (a BOM is in the text too)
    below = xmlns is None or data.count(b"xmlns", 0, root_end) != xmlns  # declarations after the root's tag
    if below and _redeclares(data, root_end, _own(found)):
        return None
    return Head(root, found, root_end)


def patterns(w: str, mc: str | None) -> Patterns:
    """The scanner's regular expressions for a part whose prefixes are ``w`` and ``mc``."""
    return _patterns(w, mc)


def _other_encoding(head: str) -> bool:
    """Does the XML declaration at the start of ``head`` name an encoding other than UTF-8?"""
    declared = _ENCODING.match(head)
    name = declared.group(1).strip().lower().replace("_", "-") if declared else "utf-8"
    return name not in ("utf-8", "utf8")


def _root(text: str) -> re.Match[str] | None:
    """The root element's start tag after the prolog (None while it is not all there)."""
    skip = 1 if text.startswith("\ufeff") else 0
    prolog = _PROLOG.match(text, skip)
    return _ROOT.match(text, prolog.end() if prolog else skip)


def _prefixes(root: re.Match[str]) -> tuple[str, str | None, str | None] | None:
    """The prefixes the root declares for WordprocessingML (exactly one), relationships and
    markup compatibility; None for a root the scanner does not read (empty, or WordprocessingML
    twice or as the default namespace)."""
    names = attributes(root.group(2))
    prefixes = {k[6:]: v for k, v in names.items() if k.startswith("xmlns:")}
    w = [p for p, uri in prefixes.items() if uri == W_NS]
    if len(w) != 1 or names.get("xmlns") in _OWN_NAMESPACES or root.group(3):
        return None
    r = next((p for p, uri in prefixes.items() if uri == R_NS), None)
    mc = next((p for p, uri in prefixes.items() if uri == MC_NS), None)
    return w[0], r, mc


def _own(prefixes: tuple[str, str | None, str | None]) -> set[bytes]:
    return {p.encode() for p in prefixes if p}


def _redeclares(data: bytes, start: int, own: set[bytes]) -> bool:
    """Does ``data`` from ``start`` rebind one of the ``own`` prefixes, or bind one of the
    namespaces the scanner reads by prefix to another?"""
    at = data.find(b"xmlns", start)
    while at >= 0:
        decl = _XMLNS.match(data, at)
        if decl is not None:
            uri = (decl.group(2) or decl.group(3) or b"").decode("utf-8", "replace")
            if decl.group(1) in own or uri in _OWN_NAMESPACES:
                return True
        at = data.find(b"xmlns", at + 5)
    return False


class Check:
    """libxml2's verdict on a part -- well-formed, within the parser's limits, no comment or
    processing instruction -- reached without building a tree (a parser target that wants
    only those two events), on a thread of its own for a large part; ``then``, once the part
    has passed, on that same thread (its result and its errors are the caller's to find again:
    a view to be written parses its tree there, see :func:`redline.read.build.build_view`).

    lxml lets go of the GIL while libxml2 parses, so the check of a 6 MB part (a quarter of a
    tree parse) runs on a second core while the scanner reads the same part on the first.
    The thread is started and joined within one view's making: nothing is left running, and
    a process that forks later inherits no thread.
    """

    THREADED = 1 << 20  # below this the check is run inline: a thread costs more than it saves

    def __init__(self, data: bytes, then: Callable[[], object] | None = None) -> None:
        self._data = data
        self._then = then
        self._passed: bool | None = None
        self._thread: threading.Thread | None = None
        if len(data) >= self.THREADED:
            self._thread = threading.Thread(target=self._run, name="redline-xml-check", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        found = OddNodes()
        try:
            # one level deeper, the tree limit (redline.opc.xmlparse.one_deeper), but that copies
            # the part: a part over PROBED_BYTES is checked as it is, its 257th level let
            # through here as libxml2 lets it through without a tree (a write refuses it)
            deeper = one_deeper(self._data) if len(self._data) <= PROBED_BYTES else self._data
            if deeper is None:  # the tree walk decides
                raise ValueError("no root element to wrap")
            etree.fromstring(deeper, make_parser(found))
            self._passed = not found.odd
        except Exception:  # malformed, or anything else: the tree walk decides and says why
            self._passed = False
        if self._passed and self._then is not None and self._thread is not None:
            # work the caller needs next, on this core while the scanner reads on the other;
            # never a verdict: on an error the caller does the same work again and says why
            with contextlib.suppress(Exception):
                self._then()

    def passed(self) -> bool:
        if self._thread is not None:
            self._thread.join()
        elif self._passed is None:
            self._run()
        return bool(self._passed)


PROBED_BYTES = 16 << 20
"""The longest main part checked one level deeper by copying it (:class:`Check`)."""


class OddNodes:
    """A parser target that only notices comments and processing instructions (anywhere: one
    before the root sends the part to the tree walk too, which costs time, nothing else).
    With no element or text callbacks lxml parses at full speed and builds nothing."""

    def __init__(self) -> None:
        self.odd = False

    def comment(self, text: str) -> None:
        self.odd = True

    def pi(self, target: str, data: str | None = None) -> None:
        self.odd = True

    def close(self) -> None:
        return None


class DeepNodes(OddNodes):
    """:class:`OddNodes` that also counts the depth, for a part fed to libxml2 a piece at a
    time: a push parser with a target applies no depth limit of its own, so this one refuses
    the part (``too_deep``) past the 256 levels a tree parse allows, as the loader does."""

    MAX_DEPTH = 256

    def __init__(self, part: str) -> None:
        super().__init__()
        self.part = part
        self.depth = 0

    def start(self, tag: str, attrib: object) -> None:
        self.depth += 1
        if self.depth > self.MAX_DEPTH:
            raise too_deep(self.part)

    def end(self, tag: str) -> None:
        self.depth -= 1


class Patterns:
    """The regular expressions for one WordprocessingML prefix (and markup-compatibility one)."""

    def __init__(self, w: str, mc: str | None) -> None:
        W, A = re.escape(w), _ATTRS
        self.w = w
        # The tags that matter, found by name only (a few per paragraph, ~20 ms over 6 MB);
        # the rest of a start tag (attributes, its end) is read only where needed.
        # Groups: a w: end tag; an mc: end tag; a paragraph's start tag (whole: "/" when
        # empty), and the paragraph properties' start tag without attributes that follows it
        # straight away (most paragraphs: one match for both); paragraph properties without
        # attributes (whole: "", their content is found by its end tag, ppr_end: a lazy ".*?"
        # up to it cost a third of the scan); another w: start tag (its name: the rest is read
        # where needed); an mc: start tag.
        M = re.escape(mc) if mc else None
        alt = "|".join(names(Role.SKIPPED, namespace=MC_NS))  # mc:Fallback
        fallback = (rf"|{M}:({alt})\s*>", rf"|{M}:({alt})(?=[\s/>])") if M else ("|()(?!)", "|()(?!)")
        closing = "|".join(names(Role.PARAGRAPH, Role.DELETED, Role.FLAGGED))
        opening = "|".join(
            names(Role.PROPERTIES, Role.CHARACTER, Role.SYMBOL, Role.DELETED, Role.FLAGGED, Role.FIELD_CHAR)
        )
        (p,), (ppr,), (t,) = names(Role.PARAGRAPH), names(Role.PROPERTIES), names(Role.TEXT)
        assert ppr.startswith(p)
        # The alternatives that begin alike share their beginning ("/", "w:", "w:p"): the
        # same alternatives in the same order, so the same matches, but a "<" that starts none
        # of them (most of a part's tags) is given up after a few steps.
        self.token = re.compile(
            rf"<(?:/(?:{W}:({closing})\s*>{fallback[0]})"
            rf"|{W}:(?:{p}(?:(?=[\s/>]){A}(/?)>(?:(?<!/>)(<{W}:{ppr}>))?"
            rf"|{ppr[len(p) :]}>())"
            rf"|({opening})(?=[\s/>])){fallback[1]})",
            re.DOTALL,
        )
        self.tag_end = re.compile(rf"({A})(/?)>")
        # The text of each w:t; one that holds an element gives its text up to the element
        # and the "<" that begins it -- no other text holds a "<" -- so reading the text finds
        # markup inside a w:t (markup_in_text, which the tree walk refuses) at no extra cost.
        # Searched up to and including the "<" after the range read (the tag that ends it).
        # The start and end tags as Word writes them ("<w:t>", '<w:t xml:space="preserve">',
        # "</w:t>") are tried first, as plain literals: the general forms they are cases of
        # (any attributes, any spacing) cost a third of the search more.
        end_tag = rf"</{W}:{t}>|</{W}:{t}\s*>"
        text = rf"([^<]*(?:(?=</{W}:{t}>)|(?=</{W}:{t}\s*>)|<))(?:{end_tag})?"
        self.texts = re.compile(
            rf'<{W}:{t}(?:(?:>| xml:space="preserve">|(?=[\s/]){A}>){text}|(?=[\s/]){A}/>)'
        )
        # a w:t whose text is followed by anything but its end tag: an element inside it
        self.markup_in_text = re.compile(rf"<{W}:{t}(?=[\s>]){A}>[^<]*<(?!/{W}:{t}\s*>)")
        self.nodes = re.compile(rf"<{W}:(?:{'|'.join(names(*NODE_ROLES))})(?=[\s/>])")
        self.ppr_items = re.compile(rf"<{W}:({'|'.join(PROPERTY_VALUES)})(?=[\s/>])({A})/?>")
        self.rpr = re.compile(rf"<{W}:rPr(?=[\s/>]){A}>(.*?)</{W}:rPr\s*>", re.DOTALL)
        self.deleted = re.compile(rf"<{W}:({'|'.join(names(Role.DELETED))})(?=[\s/>])")
        self.joins = frozenset(n for n in names(Role.DELETED) if RULES[f"{{{W_NS}}}{n}"].joins)
        visible = [n for n in names(*Role) if RULES[f"{{{W_NS}}}{n}"].visible and n != t]
        self.content = re.compile(rf"<{W}:(?:{'|'.join(visible)})(?=[\s/>])|<{W}:{t}(?=[\s/>]){A}>[^<]")
        self.refs = re.compile(rf"<{W}:(headerReference|footerReference)(?=[\s/>])({A})/?>")
        self.notes = re.compile(rf"<{W}:(footnote|endnote)(?=[\s/>])({A})(/?)>")
        # node elements that may also stand in paragraph properties (w:tabs/w:tab), where they
        # are no character but are still counted
        self.property_nodes = tuple(
            f"<{w}:{n}" for n in names(*NODE_ROLES) if RULES[f"{{{W_NS}}}{n}"].in_properties
        )
        # table cells' start and end tags (a paragraph's place in a table: its cells)
        self.tc = re.compile(rf"<(/?){W}:tc(?=[\s/>]){A}(/?)>")
        # in every cell's start and end tag ("<w:tc", "</w:tc"): one search for both (what else
        # holds it -- "<w:tcPr", text -- only costs the exact count, which finds no cell there)
        self.tc_name = f"{w}:tc"
        self.ppr_end = re.compile(rf"</{W}:{ppr}\s*>")
        self.ppr_open = re.compile(rf"<{W}:{ppr}(?=[\s/>]){A}(/?)>")
        self.ppr_change = f"<{w}:pPrChange"
        self.sect = re.compile(rf"<{W}:sectPr(?=[\s/>])")
        self.sect_open = f"<{w}:sectPr"
        self.val = f"{w}:val"
        self.char = f"{w}:char"
        self.fld_type = f"{w}:fldCharType"


@lru_cache(maxsize=16)
def _patterns(w: str, mc: str | None) -> Patterns:
    return Patterns(w, mc)


# -------------------------------------------------------------------------------------------
# Scanning


class Unscannable(Exception):
    """The part holds markup the scanner leaves to the tree walk (a paragraph end with no
    start, a paragraph left open at the story's end, an element inside a ``w:t``)."""


@dataclass(frozen=True, slots=True)
class Layout:
    """Where each outermost paragraph (one in no other paragraph) of a part lies in its XML.

    Unit ``i`` is the paragraph of ordinal ``ordinals[i]``, at characters ``starts[i]`` (its
    start tag) to ``ends[i]`` (after its end tag) of the decoded part; the paragraphs inside it
    (text boxes) have the ordinals up to the next unit's.  From the root's start tag on, which
    ends at character ``root_end`` and at byte ``root_bytes``, every character is the part's
    own (no line end was normalised there), so a character offset maps onto the part's UTF-8
    bytes.  What lets a writer splice the paragraphs it changed into the part's own bytes
    (:mod:`redline.write.splice`).
    """

    root_end: int
    root_bytes: int
    ordinals: array[int]
    starts: array[int]
    ends: array[int]
    # The units at whose start tag the scanner was inside a complex field, a flagged element
    # (w:fldSimple, w:moveTo) or a table cell: a reader may resume a scan at any other unit
    # with a fresh state (see :mod:`redline.write.readback`).
    entered: frozenset[int] = frozenset()


class Scanner:
    """Reads the stories of one :class:`Source`, in document order, keeping the ordinal count."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.pos = 0  # everything before has been counted
        self.ordinal = 0  # NODE_TAGS elements before ``pos``
        self._props: dict[str, tuple[ParagraphProps, bool]] = {}
        # per w:pPr text: _shape's count and flag, and _read_ppr's reading once asked for
        self._blobs: dict[str, tuple[int, bool, tuple[ParagraphProps, bool] | None]] = {}
        # Where section properties may be: paragraph properties holding a w:sectPr, and what
        # follows a story's last paragraph (the body's own w:sectPr).
        self._sections: list[tuple[int, int]] = []
        self._carry: tuple[Any, bool] = (None, False)  # see story(continued=): the last paragraph, joined?
        self._fields: list[bool] = []
        # see layout(): only for a part read whole (a stream's stretches are not the part's text)
        self._units = (array("q"), array("q"), array("q"))
        self._entered: list[int] = []  # see Layout.entered
        self._cells = 0  # the table cells open at character _cell_at of the source's text
        self._cell_at = 0
        self._placing = source.root_bytes >= 0

    def layout(self) -> Layout | None:
        """The outermost paragraphs read so far in this source (None when its text is not the
        part's own, see :attr:`Source.root_bytes`)."""
        src = self.source
        if src.root_bytes < 0:
            return None
        return Layout(src.root_end, src.root_bytes, *self._units, frozenset(self._entered))

    def feed(self, source: Source) -> None:
        """Read on in ``source``: the next stretch of the same part (see story(continued=))."""
        self.source, self.pos, self._cell_at = source, 0, 0

    def skip_to(self, pos: int) -> None:
        """Count the nodes up to ``pos`` without reading them (raises :class:`Unscannable` on
        markup inside a ``w:t`` there, as :meth:`story` does where it reads)."""
        if pos > self.pos:
            pt, x = self.source.patterns, self.source.text
            if pt.markup_in_text.search(x, self.pos, pos + 1) is not None:
                raise Unscannable("markup inside a text element")
            self.ordinal += len(pt.nodes.findall(x, self.pos, pos))
            self.pos = pos

    def total(self) -> int:
        """The number of NODE_TAGS elements in the whole part."""
        self.skip_to(len(self.source.text))
        return self.ordinal

    def story(self, start: int, end: int, continued: bool = False) -> StoryText:
        """Read the paragraphs of ``text[start:end]`` (raises :class:`Unscannable`).

        ``continued``: the text goes on the story the previous call read (from the previous
        source given to :meth:`feed`), cut between two paragraphs: open fields carry over,
        and the first paragraph is separated from the last one read.
        """
        self.skip_to(start)
        src, pt = self.source, self.source.patterns
        x, texts_in, tag_end, ppr_end = src.text, pt.texts.findall, pt.tag_end.match, pt.ppr_end.search
        amp = src.has_entities
        # (the spans' offsets are left to the assembler's finish: their pieces' running lengths)
        asm = Assembler(*self._carry, offsets=False) if continued else Assembler(offsets=False)
        inside = False  # a paragraph is open (asm.ref is not None), kept in a local for the hot loop
        out = asm.out
        pieces, nodes, kinds, flags = out.pieces, out.nodes, out.kinds, out.flags
        ordinal = self.ordinal
        fields: list[bool] = self._fields if continued else []  # per open complex field: past its separator?
        skip = 0  # depth in elements not read (deletions, moves away, fallbacks)
        depth = dict.fromkeys(_FLAG_OF.values(), 0)  # depth in FLAGGED elements, per flag
        flagged = 0  # the union of the flags of the FLAGGED elements we are in
        close_at = 0  # where the paragraph that ends now has its end tag
        roles, flag_of, blobs, ppr_change = _ROLE, _FLAG_OF, self._blobs, pt.ppr_change
        u_ordinals, u_starts, u_ends = self._units
        u_start, placing = 0, self._placing  # where the open outermost paragraph's start tag is
        u_entered = False  # it began inside a complex field or a flagged element
        lone = False  # it holds no paragraph read so far (see _cells_before)
        pos = start
        for m in pt.token.finditer(x, start, end):
            at = m.start()
            if at < pos:
                continue  # inside paragraph properties already read
            if at > pos:
                texts = texts_in(x, pos, at + 1)
                if texts:
                    joined = "".join(texts)
                    if "<" in joined:
                        raise Unscannable("markup inside a text element")
                    if inside and not skip and not (fields and not fields[-1]):
                        if amp and "&" in joined:  # (what the texts hold: shorter than the markup)
                            texts = [unescape(t) for t in texts]
                            joined = "".join(texts)
                        bits = flagged | (1 if fields else 0)
                        size = asm.size + len(joined)
                        if "" in texts:  # an empty w:t is a node but no span
                            for i, text in enumerate(texts):
                                if text:
                                    nodes.append(ordinal + i)
                                    kinds.append(0)
                                    flags.append(bits)
                                    pieces.append(text)
                        else:
                            n = len(texts)
                            nodes.extend(range(ordinal, ordinal + n))
                            zeros = bytes(n)
                            kinds.extend(zeros)
                            flags.extend(bytes((bits,)) * n if bits else zeros)
                            pieces.extend(texts)
                        asm.size = size
                        if size > asm.max_size:
                            raise too_much_text(asm.max_size, self.source.part)
                    ordinal += len(texts)
            closing, mc_closing, p_empty, p_ppr, blob, name, mc_name = m.groups()
            if mc_closing is not None:  # </mc:Fallback>
                pos = m.end()
                skip -= 1
                continue
            if closing is not None:
                pos = m.end()
                role = roles[closing]
                if role is _PARAGRAPH:
                    if skip:
                        continue  # a paragraph inside something skipped (a fallback, a deletion)
                    if not inside:
                        raise Unscannable("an unmatched paragraph end")
                    close_at = at
                elif role is _DELETED:
                    skip -= 1
                    continue
                elif skip:
                    continue
                else:  # FLAGGED
                    flag = flag_of[closing]
                    depth[flag] -= 1
                    if not depth[flag]:
                        flagged &= ~flag
                    continue
            else:
                attrs = ""
                if p_empty is not None:
                    name, empty, pos = "p", p_empty, m.end()
                elif blob is not None:  # "<w:pPr>", no attributes
                    name, empty, pos = "pPr", "", m.end()
                else:
                    tail = tag_end(x, m.end())
                    if tail is None:  # pragma: no cover - libxml2 vouched for well-formedness
                        raise Unscannable("a broken start tag")
                    pos = tail.end()
                    attrs, empty = tail.groups()
                if mc_name is not None:  # <mc:Fallback>: Word's copy for older readers
                    if not empty:
                        skip += 1
                    continue
                role = roles[name]
                if role is _PARAGRAPH:
                    if skip:
                        ordinal += 1
                    else:
                        cell = self._cells_before(at) if at > self._cell_at else self._cells
                        if not inside:
                            u_start, u_entered, lone = at, bool(fields or flagged or cell), True
                        else:
                            lone = False  # the cells were asked for inside the outermost paragraph
                        # extra: where its content starts (its properties' start tag included)
                        asm.begin(ordinal, bool(fields) and not fields[-1], pos - len(p_ppr or ""), cell)
                        inside = True
                        ordinal += 1
                    if empty:
                        close_at = pos
                    elif p_ppr is None:
                        continue
                    else:  # its properties' start tag, matched with it: read them now
                        role = _PROPERTIES
                if role is _PARAGRAPH:
                    if skip:
                        continue  # an empty paragraph inside something skipped
                elif role is _PROPERTIES:
                    if empty:
                        continue
                    blob_at = pos
                    shut = ppr_end(x, pos)
                    if shut is None:  # pragma: no cover - libxml2 vouched for well-formedness
                        raise Unscannable("unclosed paragraph properties")
                    shut_at = shut.start()
                    if x.find(ppr_change, pos, shut_at) >= 0:
                        shut = self._ppr_end(x, pos)  # a change's own w:pPr may have closed first
                        shut_at = shut.start()
                    blob = x[pos:shut_at]
                    pos = shut.end()
                    shape = blobs.get(blob)
                    if shape is None:
                        shape = blobs[blob] = (*self._shape(blob), None)
                    ordinal += shape[0]
                    if shape[1]:
                        self._sections.append((blob_at, pos))
                    if inside and not skip:
                        read = shape[2]
                        if read is None:  # (read when a paragraph first has them: one lookup after)
                            read = self._read_ppr(blob)
                            blobs[blob] = (shape[0], shape[1], read)
                        asm.props, asm.deleted = read
                    continue
                elif role is _CHARACTER or role is _SYMBOL:
                    if inside and not skip and not (fields and not fields[-1]):
                        char = symbol(attributes(attrs).get(pt.char)) if role is _SYMBOL else _CHAR_OF[name]
                        nodes.append(ordinal)
                        kinds.append(1)
                        flags.append(flagged | (1 if fields else 0))
                        pieces.append(char)
                        asm.size += 1
                    ordinal += 1
                    continue
                elif role is _FIELD_CHAR:
                    if not skip:
                        track_field(fields, attributes(attrs).get(pt.fld_type))
                    continue
                elif empty:
                    continue  # an empty container holds nothing
                elif role is _DELETED:
                    skip += 1
                    continue
                elif skip:
                    continue
                else:  # FLAGGED
                    flag = flag_of[name]
                    depth[flag] += 1
                    flagged |= flag
                    continue
            # the paragraph ends
            props = asm.props
            if props.section_break and not pt.content.search(x, asm.extra, close_at):
                asm.props = props._replace(empty=True)
            outermost, ended = asm.outermost, asm.ref
            asm.end()
            inside = asm.ref is not None  # back in the paragraph that holds a text box
            if outermost and lone and self._cell_at == u_start:
                # No cells asked for since its start tag: what it holds is a whole element's
                # content, every cell it may hold (a text box's table) closed in it, so the
                # cells open after it are those open before it -- the search for cells reads on
                # from its end tag rather than through its text.
                self._cell_at = pos
            if placing and outermost:
                if u_entered:
                    self._entered.append(len(u_ordinals))
                u_ordinals.append(ended)
                u_starts.append(u_start)
                u_ends.append(pos)
        if pos < end:
            texts = texts_in(x, pos, end + 1)
            if "<" in "".join(texts):
                raise Unscannable("markup inside a text element")
            ordinal += len(texts)
            self._sections.append((pos, end))
        if inside:
            raise Unscannable("an unclosed paragraph")
        self._cells_before(end)  # the cells' tags after the last paragraph (a stretch read on)
        self.pos, self.ordinal = end, ordinal
        self._carry, self._fields = (asm.last, asm.joined), fields
        return asm.finish()

    def references(self) -> list[tuple[str, str]]:
        """The header and footer references of the stories read since the last call (in the
        current source), as (kind, relationship id), in document order (they live in section
        properties)."""
        return [(kind, rid) for _, kind, rid in self.placed_references()]

    def placed_references(self) -> list[tuple[int, str, str]]:
        """:meth:`references`, each with where the section properties holding it begin in the
        source's text: (offset, kind, relationship id)."""
        src, sections = self.source, self._sections
        self._sections = []
        if src.r is None:
            return []
        rid = f"{src.r}:id"
        out: list[tuple[int, str, str]] = []
        for start, end in sections:
            for name, raw in src.patterns.refs.findall(src.text, start, end):
                value = attributes(raw).get(rid)
                if value is not None:
                    out.append((start, "header" if name == "headerReference" else "footer", value))
        return out

    def _cells_before(self, at: int) -> int:
        """The table cells open at character ``at`` of the source's text (read on from the
        last place asked: a search for a cell's tag between paragraphs, most find none)."""
        start = self._cell_at
        if at > start:
            pt, x = self.source.patterns, self.source.text
            if x.find(pt.tc_name, start, at) >= 0:
                depth = self._cells
                for close, empty in pt.tc.findall(x, start, at):
                    if close:
                        if depth:  # (never below none)
                            depth -= 1
                    elif not empty:
                        depth += 1
                self._cells = depth
            self._cell_at = at
        return self._cells

    def _ppr_end(self, x: str, pos: int) -> re.Match[str]:
        """The end tag of the paragraph properties whose content starts at ``pos`` and holds a
        property change (``w:pPrChange``): the old properties it holds are a ``w:pPr`` of their
        own, empty (``<w:pPr/>``) or not, so the end tags are counted against the start tags."""
        pt = self.source.patterns
        depth, at = 1, pos
        while True:
            shut = pt.ppr_end.search(x, at)
            if shut is None:  # pragma: no cover - libxml2 vouched for well-formedness
                raise Unscannable("unclosed paragraph properties")
            depth += sum(1 for empty in pt.ppr_open.findall(x, at, shut.start()) if not empty) - 1
            if not depth:
                return shut
            at = shut.end()

    def _shape(self, blob: str) -> tuple[int, bool]:
        """Of a paragraph's ``w:pPr`` text: how many node elements it holds (``w:tabs/w:tab``:
        no character, but counted), and whether it holds section properties (cached as
        _read_ppr is: most paragraphs share their properties with many others)."""
        pt = self.source.patterns
        if pt.markup_in_text.search(blob) is not None:
            raise Unscannable("markup inside a text element")
        count = len(pt.nodes.findall(blob)) if any(node in blob for node in pt.property_nodes) else 0
        return count, pt.sect_open in blob

    def _read_ppr(self, blob: str) -> tuple[ParagraphProps, bool]:
        """A paragraph's properties from its ``w:pPr`` text, and whether its mark is deleted
        (joins the next paragraph); cached, since most paragraphs share their properties with
        many others."""
        found = self._props.get(blob)
        if found is not None:
            return found
        pt = self.source.patterns
        own = blob.split(pt.ppr_change, 1)[0]
        values = [(name, attributes(raw).get(pt.val)) for name, raw in pt.ppr_items.findall(own)]
        rpr = pt.rpr.search(own)
        marks = pt.deleted.findall(rpr.group(1)) if rpr is not None else []
        props = props_from(values, marks, pt.sect.search(own) is not None)
        found = self._props[blob] = (props, any(mark in pt.joins for mark in marks))
        return found


# -------------------------------------------------------------------------------------------
# Streaming


class NotPlain(Exception):
    """The streamed part turned out to need the tree walk (found only partway through)."""


class BodyStream:
    """The body of a main part, read from its inflated pieces in stretches of whole paragraphs.

    For the verify-only view: neither the part's bytes, nor its decoded text, nor a tree is
    ever held whole -- a stretch of about one piece at a time.  The checks :func:`prepare` and
    the package's loader make on a part as a whole are made piece by piece: DOCTYPE refused,
    libxml2 fed every byte (a malformed part is refused with the parser's own code), the tag
    count bounded, comments, CDATA, processing instructions and redeclared prefixes send the
    document to the other readers (:class:`NotPlain`, raised when met), as markup inside a
    ``w:t`` does wherever it is scanned (:class:`Unscannable`).
    """

    def __init__(self, part: str, pieces: Iterator[bytes], max_markup: int) -> None:
        self.part = part
        self._pieces = pieces
        self._max_markup = max_markup
        self._tags = 0
        self._odd = DeepNodes(part)  # (a push parser with a target counts no depth itself)
        self._parser = make_parser(self._odd)
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._own: set[bytes] = set()
        self._tail = b""
        self.head: Source | None = None  # the prolog and root start tag, as a Source

    def _next(self) -> str | None:
        """The next piece, checked and decoded (None at the end)."""
        piece = next(self._pieces, None)
        if piece is None:
            text = self._decoder.decode(b"", final=True)
            try:
                self._parser.close()
            except etree.XMLSyntaxError as exc:
                raise syntax_refusal(exc, self.part) from None
            return text or None
        self._tags += piece.count(b"<")
        if self._tags > self._max_markup:
            raise PackageError(
                Code.TOO_COMPLEX,
                f"The document's XML holds more than {self._max_markup:,} tags (at the part {self.part}); "
                "no real contract comes close, and a file like this is built to cost time and memory, "
                "so it is refused.",
                self.part,
            )
        try:
            self._parser.feed(piece)
        except etree.XMLSyntaxError as exc:
            raise syntax_refusal(exc, self.part) from None
        if self._odd.odd:
            raise NotPlain("a comment or processing instruction")
        seam = self._tail + piece
        self._tail = piece[-32:]
        if seam.find(b"CDATA[") >= 0:
            raise NotPlain("a CDATA section")
        if self._own and _redeclares(seam, 0, self._own):
            raise NotPlain("a redeclared prefix")
        try:
            text = self._decoder.decode(piece)
        except UnicodeDecodeError:
            raise NotPlain("not UTF-8") from None
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text

    def stretches(self) -> Iterator[Source]:
        """The body's text in stretches that end between two top-level paragraphs, each a
        :class:`Source` whose whole text is body content (raises NotPlain, PackageError)."""
        buf = ""
        while True:  # the prolog and the root's start tag
            text = self._next()
            if text is None:
                raise NotPlain("no root element")
            buf += text
            if find_doctype(buf.encode("utf-8")):
                raise dtd_refusal(self.part)
            if _other_encoding(buf):
                raise NotPlain("another encoding")
            root = _root(buf)
            if root is not None:
                break
            if len(buf) > 1 << 20:
                raise NotPlain("no root start tag in the first MiB")
        found = _prefixes(root)
        if found is None:
            raise NotPlain("an unusual root element")
        w, r, mc = found
        self._own = _own(found)
        if _redeclares(buf[root.end() :].encode("utf-8"), 0, self._own):
            raise NotPlain("a redeclared prefix")
        pt = _patterns(w, mc)
        self.head = Source(self.part, buf[: root.end()], w, r, root.group(1), root.end(), pt, False)
        opener = re.compile(rf"<{re.escape(w)}:body(?=[\s/>]){_ATTRS}(/?)>")
        closer, para_end = f"</{w}:body", f"</{w}:p>"
        pairs = [(f"<{w}:txbxContent", f"</{w}:txbxContent")]
        if mc:
            pairs.append((f"<{mc}:Fallback", f"</{mc}:Fallback"))
        buf = buf[root.end() :]
        body = None
        while body is None:
            body = opener.search(buf)
            if body is None:
                text = self._next()
                if text is None:
                    raise NotPlain("no body")
                buf += text
        if body.group(1):  # an empty body
            for _ in iter(self._next, None):
                pass
            return
        buf = buf[body.end() :]
        ended = False
        while not ended:
            close = buf.find(closer)
            if close >= 0:
                cut, ended = close, True
            else:
                cut = buf.rfind(para_end)
                if cut >= 0:
                    cut += len(para_end)
                    stretch = buf[:cut]
                    if any(stretch.count(a) != stretch.count(b) for a, b in pairs):
                        cut = -1  # inside a text box: read on
            if cut > 0:
                stretch, buf = buf[:cut], buf[cut:]
                yield Source(self.part, stretch, w, r, root.group(1), 0, pt, "&" in stretch)
            if not ended:
                text = self._next()
                if text is None:
                    raise NotPlain("the body does not end")
                buf += text
        for _ in iter(self._next, None):  # the rest, for the parser's and the zip's checks
            pass


def notes(source: Source) -> list[tuple[int, int, bool]]:
    """The footnotes or endnotes of a notes part, in order, as (start, end, is a real note);
    separator and continuation notices are not real notes."""
    out: list[tuple[int, int, bool]] = []
    pt, x = source.patterns, source.text
    for m in pt.notes.finditer(x, source.root_end):
        if m.group(3):
            continue
        close = x.find(f"</{source.w}:{m.group(1)}", m.end())
        if close < 0:  # pragma: no cover - libxml2 vouched for well-formedness
            break
        kind = attributes(m.group(2)).get(f"{source.w}:type")
        out.append((m.end(), close, kind in (None, "normal")))
    return out
