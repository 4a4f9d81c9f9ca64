"""How WordprocessingML reads: the one table of element roles that every reader consults.

A story's text is what Word shows of it with every tracked change accepted.  Which elements
make that text, which end a paragraph, which hold text that is gone, which are a second copy of
something, which only carry properties -- each is one entry of :data:`RULES`, and every reader
takes its decisions from here:

* the tree walk (:mod:`redline.read.walk`, the reference reader and the write path) looks up the
  role of each element it meets;
* the scanner (:mod:`redline.read.scan`, the fast read path, and its streaming mode) builds its
  regular expressions from the names each role has (:class:`Names`, :func:`names`);
* both emit the same paragraph events into :class:`redline.read.paragraphs.Assembler`.

Adding a rule is one entry here (say ``w:ptab``, a positional tab: ``Rule(Role.CHARACTER,
"\\t")``) plus one test; nothing else changes.  An element of the main namespace that no rule
names is reported by :func:`unrecognised` (as mammoth warns of an "unrecognised element"),
never silently read as if it were known.

Paragraph properties are read in one place too: :data:`PROPERTY_VALUES` names what numbering
needs, :func:`read_ppr` reads them from a tree and :func:`props_from` from what the scanner
found, into the same :class:`ParagraphProps`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from enum import Enum, IntEnum, StrEnum
from types import MappingProxyType
from typing import Final, NamedTuple

from lxml import etree

from ..opc.namespaces import M_NS, MC_NS, W_NS, W_STRICT_NS


class SpanKind(IntEnum):
    """What a span of the view's text stands for."""

    TEXT = 0  # a w:t: the span covers node.text
    CHAR = 1  # a one-character element (w:tab, w:br, w:sym, ...)
    MARK = 2  # the paragraph separator; node is the w:p whose mark it is


class SpanFlag(IntEnum):
    """What a span lies inside (a bit set: the view keeps the union per span)."""

    FIELD_RESULT = 1  # inside the result of a field (w:fldSimple or fldChar separate..end)
    MOVE_TO = 2  # inside someone's tracked move


class Role(Enum):
    """What an element means to a reader of the text."""

    PARAGRAPH = "paragraph"  # a paragraph: its text, then its mark (the separator after it)
    PROPERTIES = "properties"  # the paragraph's properties: PROPERTY_VALUES, mark revisions, sectPr
    TEXT = "text"  # its text content is text
    CHARACTER = "character"  # one character (Rule.char), inside a run only
    SYMBOL = "symbol"  # the character its w:char names (see symbol())
    FIELD_CHAR = "field_char"  # begin / separate / end of a complex field (see track_field())
    FLAGGED = "flagged"  # read through; what it holds carries Rule.flag
    DELETED = "deleted"  # someone's deletion: gone once accepted (not read); in pPr/rPr: the mark
    SKIPPED = "skipped"  # a second copy of what a sibling holds: not read
    CONTAINER = "container"  # read through: what it holds is read by these same rules
    NO_TEXT = "no_text"  # holds nothing a reader sees as text: not read
    NOT_SHOWN = "not_shown"  # holds what Word shows, but the view does not: reported, not read


class Rule(NamedTuple):
    """How a reader reads one element (a named tuple, as the other values read once at import:
    a frozen dataclass costs a process half a millisecond to define)."""

    role: Role
    char: str | None = None  # CHARACTER: the character it reads as
    flag: int = 0  # FLAGGED: the SpanFlag of what it holds
    visible: bool = False  # counts as visible content (a section break's paragraph is empty without)
    in_properties: bool = False  # may also occur inside w:pPr, where it is no character (w:tabs/w:tab)
    joins: bool = False  # DELETED, as w:pPr/w:rPr/<this>: the paragraph joins the next once accepted
    range_markup: bool = False  # may stand between two paragraphs without being one
    note: str = ""


def _w(name: str) -> str:
    return f"{{{W_NS}}}{name}"


_READ_THROUGH = (
    "document", "body", "hdr", "ftr", "footnotes", "footnote", "endnotes", "endnote", "r",
    "hyperlink", "smartTag", "customXml", "sdt", "sdtContent", "ins", "tbl", "tr", "tc",
    "txbxContent", "dir", "bdo", "ruby", "rt", "rubyBase", "comments", "comment",
)  # fmt: skip
_RANGE_MARKUP = (
    "bookmarkStart", "bookmarkEnd", "commentRangeStart", "commentRangeEnd", "permStart", "permEnd",
    "proofErr", "moveFromRangeStart", "moveFromRangeEnd", "moveToRangeStart", "moveToRangeEnd",
    "customXmlInsRangeStart", "customXmlInsRangeEnd", "customXmlDelRangeStart", "customXmlDelRangeEnd",
)  # fmt: skip
_NO_TEXT = (
    "rPr", "sectPr", "tblPr", "tblGrid", "trPr", "tcPr", "tblPrEx", "sdtPr", "sdtEndPr",
    "rubyPr", "customXmlMoveFromRangeStart", "customXmlMoveFromRangeEnd",
    "customXmlMoveToRangeStart", "customXmlMoveToRangeEnd", "customXmlPr", "smartTagPr",
    "lastRenderedPageBreak", "instrText", "delText", "delInstrText", "commentReference",
    "annotationRef", "footnoteRef", "endnoteRef", "separator", "continuationSeparator",
    "contentPart", "background", "ffData", "fldData", "control", "objectEmbed", "objectLink", "binData",
    "movie",
)  # fmt: skip
_DATES = (
    "dayShort", "dayLong", "monthShort", "monthLong", "yearShort", "yearLong",
)  # fmt: skip

_C, _N = Role.CONTAINER, Role.NO_TEXT

RULES: Final[Mapping[str, Rule]] = MappingProxyType(
    {
        # -- what makes the text ---------------------------------------------------------------
        _w("p"): Rule(Role.PARAGRAPH),
        _w("pPr"): Rule(Role.PROPERTIES),
        _w("t"): Rule(Role.TEXT, visible=True),
        _w("tab"): Rule(Role.CHARACTER, "\t", visible=True, in_properties=True),
        _w("ptab"): Rule(Role.CHARACTER, "\t", visible=True, note="a positional tab"),
        _w("br"): Rule(Role.CHARACTER, "\n", visible=True),
        _w("cr"): Rule(Role.CHARACTER, "\n", visible=True),
        _w("noBreakHyphen"): Rule(Role.CHARACTER, "\u2011"),
        _w("softHyphen"): Rule(Role.CHARACTER, "\u00ad"),
        _w("sym"): Rule(Role.SYMBOL, visible=True),
        # -- fields, revisions, alternatives ---------------------------------------------------
        _w("fldChar"): Rule(Role.FIELD_CHAR, note="§17.16.18: the code until separate, then the result"),
        _w("fldSimple"): Rule(Role.FLAGGED, flag=SpanFlag.FIELD_RESULT, note="§17.16.19: its result"),
        _w("moveTo"): Rule(Role.FLAGGED, flag=SpanFlag.MOVE_TO, note="moved here: present once accepted"),
        _w("del"): Rule(Role.DELETED, joins=True, note="gone once accepted; in w:pPr/w:rPr: the mark"),
        _w("moveFrom"): Rule(
            Role.DELETED, joins=True, note="moved away: gone once accepted; in w:pPr/w:rPr: the mark"
        ),
        f"{{{MC_NS}}}Fallback": Rule(Role.SKIPPED, note="the copy for readers without mc:Choice"),
        # -- read through ----------------------------------------------------------------------
        **{_w(n): Rule(_C) for n in _READ_THROUGH},
        _w("drawing"): Rule(_C, visible=True, note="an image, or a text box (wps:txbx/w:txbxContent)"),
        _w("pict"): Rule(_C, visible=True, note="VML: may hold a text box (v:textbox/w:txbxContent)"),
        _w("object"): Rule(_C, visible=True, note="an embedded object (VML inside)"),
        f"{{{MC_NS}}}AlternateContent": Rule(_C),
        f"{{{MC_NS}}}Choice": Rule(_C),
        # -- nothing a reader sees as text -----------------------------------------------------
        **{_w(n): Rule(_N) for n in _NO_TEXT},
        **{_w(n): Rule(_N, range_markup=True) for n in _RANGE_MARKUP},
        # -- shown by Word, not by the view ----------------------------------------------------
        _w("footnoteReference"): Rule(Role.NOT_SHOWN, note="a note's number (the note is its own story)"),
        _w("endnoteReference"): Rule(Role.NOT_SHOWN, note="a note's number (the note is its own story)"),
        _w("pgNum"): Rule(Role.NOT_SHOWN, note="the page number"),
        **{_w(n): Rule(Role.NOT_SHOWN, note="a date Word fills in") for n in _DATES},
        _w("altChunk"): Rule(Role.NOT_SHOWN, note="imported content (HTML, RTF, another .docx)"),
        _w("subDoc"): Rule(Role.NOT_SHOWN, note="a linked subdocument"),
        f"{{{M_NS}}}oMathPara": Rule(Role.NOT_SHOWN, note="an equation"),
        f"{{{M_NS}}}oMath": Rule(Role.NOT_SHOWN, note="an equation"),
    }
)
"""Every element a reader knows, by Clark name, with its role (ECMA-376 Part 1 §17)."""


# -------------------------------------------------------------------------------------------
# Names by role, for the scanner (prefixed names) and the tree walk (Clark names)


def names(*roles: Role, namespace: str = W_NS) -> tuple[str, ...]:
    """The local names of ``namespace``'s elements with one of ``roles``, in table order."""
    prefix = f"{{{namespace}}}"
    return tuple(
        tag[len(prefix) :] for tag, rule in RULES.items() if rule.role in roles and tag.startswith(prefix)
    )


def tags(*roles: Role) -> tuple[str, ...]:
    """The Clark names of every element with one of ``roles``, in table order."""
    return tuple(tag for tag, rule in RULES.items() if rule.role in roles)


NODE_ROLES: Final = (Role.PARAGRAPH, Role.TEXT, Role.CHARACTER, Role.SYMBOL)
"""The elements that become spans (and a scanned view's ordinals count)."""

NODE_TAGS: Final[tuple[str, ...]] = tags(*NODE_ROLES)
"""The elements a scanned view's ordinals count, in Clark notation."""

CHAR_OF: Final[Mapping[str, str]] = MappingProxyType(
    {tag: rule.char for tag, rule in RULES.items() if rule.char is not None}
)
"""A CHARACTER element's character, by Clark name."""

RANGE_MARKUP: Final = frozenset(tag for tag, rule in RULES.items() if rule.range_markup)
"""What may stand between two paragraphs without being one (bookmarks, comment ranges, ...)."""

PROPERTY_VALUES: Final = ("pStyle", "numId", "ilvl", "outlineLvl")
"""The paragraph properties numbering reads (each by its ``w:val``): ``w:pPr/w:pStyle``,
``w:pPr/w:numPr/w:numId``, ``w:pPr/w:numPr/w:ilvl``, ``w:pPr/w:outlineLvl``."""


# Symbol-font private-use code points (U+F0xx) that have a Unicode meaning.
_SYMBOL_FONT = {
    0xB7: "\u2022", 0xD3: "\u00a9", 0xD2: "\u00ae", 0xD4: "\u2122", 0xB0: "\u00b0",
    0xB1: "\u00b1", 0xB4: "\u00d7", 0xB8: "\u00f7", 0xAE: "\u2192", 0xA3: "\u2264",
    0xB3: "\u2265", 0xB9: "\u2260", 0xA7: "\u00a7", 0xBC: "\u2026",
}  # fmt: skip


def symbol(raw: str | None) -> str:
    """The character a ``w:sym`` with ``w:char`` = ``raw`` shows (U+FFFC when it shows none)."""
    try:
        code = int(raw or "", 16)
    except ValueError:
        return "\ufffc"
    if 0xF000 <= code <= 0xF0FF:
        return _SYMBOL_FONT.get(code - 0xF000, chr(code))
    if 0x20 <= code < 0xD800 or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF:
        return chr(code)
    return "\ufffc"  # out of range, a surrogate or a non-character: chr() would raise or lie


def track_field(fields: list[bool], kind: str | None) -> None:
    """Follow a complex field (§17.16.18) through its ``w:fldChar`` of ``kind``: begin opens
    it, separate ends its instructions (what follows is its result), end closes it.
    ``fields[-1]``: is the innermost open field past its separator?"""
    if kind == "begin":
        fields.append(False)
    elif kind == "separate" and fields:
        fields[-1] = True
    elif kind == "end" and fields:
        fields.pop()


# -------------------------------------------------------------------------------------------
# Revisions: what each tracked change is, by the element and where it stands (ECMA-376 §17.13.5)


class RevisionKind(StrEnum):
    """What one tracked change does (the ``kind`` of :mod:`redline.read.annotations`); public strings."""

    INSERT = "insert"  # w:ins around runs: text present once accepted
    DELETE = "delete"  # w:del around runs: text gone once accepted
    MOVE_FROM = "move_from"  # w:moveFrom: moved away (gone once accepted)
    MOVE_TO = "move_to"  # w:moveTo: moved here (present once accepted)
    PARAGRAPH_INSERT = "paragraph_insert"  # w:pPr/w:rPr/w:ins: a paragraph mark inserted
    PARAGRAPH_DELETE = "paragraph_delete"  # w:pPr/w:rPr/w:del: a paragraph mark deleted (joins)
    FORMAT = "format"  # w:rPrChange: a run's (or a mark's) formatting changed
    PARAGRAPH_FORMAT = "paragraph_format"  # w:pPr/w:pPrChange: a paragraph's properties changed
    ROW_INSERT = "row_insert"  # w:trPr/w:ins: a table row inserted
    ROW_DELETE = "row_delete"  # w:trPr/w:del: a table row deleted
    # records that change no text (issue 30): listed and decided like the others
    SECTION_FORMAT = "section_format"  # w:sectPrChange: a section's properties changed
    TABLE_FORMAT = "table_format"  # w:tblPrChange, w:tblGridChange, w:tblPrExChange: a table's
    ROW_FORMAT = "row_format"  # w:trPrChange: a table row's properties changed
    CELL_FORMAT = "cell_format"  # w:tcPrChange: a table cell's properties changed
    CELL_INSERT = "cell_insert"  # w:tcPr/w:cellIns: a table cell inserted
    CELL_DELETE = "cell_delete"  # w:tcPr/w:cellDel: a table cell deleted
    CELL_MERGE = "cell_merge"  # w:tcPr/w:cellMerge: table cells merged (vertically)
    NUMBERING = "numbering"  # w:numberingChange, w:numPr/w:ins: a paragraph's numbering changed
    CUSTOM_XML_INSERT = "custom_xml_insert"  # w:customXmlInsRangeStart (or ...MoveTo...): markup added
    CUSTOM_XML_DELETE = "custom_xml_delete"  # w:customXmlDelRangeStart (or ...MoveFrom...): markup gone


class RevisionPlace(Enum):
    """Where a revision element stands, which decides what it is."""

    CONTENT = "content"  # among runs (a paragraph's content, or a container in it)
    MARK = "mark"  # w:pPr/w:rPr: the paragraph mark's run properties
    RUN = "run"  # w:r/w:rPr: a run's properties
    PARAGRAPH = "paragraph"  # w:pPr
    ROW = "row"  # w:trPr


_PLACE_OF_PARENT = {"rPr": None, "pPr": RevisionPlace.PARAGRAPH, "trPr": RevisionPlace.ROW}

REVISIONS: Final[Mapping[tuple[str, RevisionPlace], RevisionKind]] = MappingProxyType(
    {
        (_w("ins"), RevisionPlace.CONTENT): RevisionKind.INSERT,
        (_w("del"), RevisionPlace.CONTENT): RevisionKind.DELETE,
        (_w("moveFrom"), RevisionPlace.CONTENT): RevisionKind.MOVE_FROM,
        (_w("moveTo"), RevisionPlace.CONTENT): RevisionKind.MOVE_TO,
        (_w("ins"), RevisionPlace.MARK): RevisionKind.PARAGRAPH_INSERT,
        (_w("del"), RevisionPlace.MARK): RevisionKind.PARAGRAPH_DELETE,
        (_w("moveFrom"), RevisionPlace.MARK): RevisionKind.MOVE_FROM,
        (_w("moveTo"), RevisionPlace.MARK): RevisionKind.MOVE_TO,
        (_w("rPrChange"), RevisionPlace.RUN): RevisionKind.FORMAT,
        (_w("rPrChange"), RevisionPlace.MARK): RevisionKind.FORMAT,
        (_w("pPrChange"), RevisionPlace.PARAGRAPH): RevisionKind.PARAGRAPH_FORMAT,
        (_w("ins"), RevisionPlace.ROW): RevisionKind.ROW_INSERT,
        (_w("del"), RevisionPlace.ROW): RevisionKind.ROW_DELETE,
    }
)
"""Every tracked change that holds text (or a paragraph mark), by (Clark name, place).  Other
revision records (w:sectPrChange, w:tblPrChange, w:tcPrChange, w:trPrChange, w:numberingChange,
w:cellIns/w:cellDel, custom XML ranges) change no text and are not listed."""

REVISION_TAGS: Final = frozenset(tag for tag, _ in REVISIONS)

RECORDS: Final[Mapping[str, RevisionKind]] = MappingProxyType(
    {
        _w("sectPrChange"): RevisionKind.SECTION_FORMAT,
        _w("tblPrChange"): RevisionKind.TABLE_FORMAT,
        _w("tblGridChange"): RevisionKind.TABLE_FORMAT,
        _w("tblPrExChange"): RevisionKind.TABLE_FORMAT,
        _w("trPrChange"): RevisionKind.ROW_FORMAT,
        _w("tcPrChange"): RevisionKind.CELL_FORMAT,
        _w("cellIns"): RevisionKind.CELL_INSERT,
        _w("cellDel"): RevisionKind.CELL_DELETE,
        _w("cellMerge"): RevisionKind.CELL_MERGE,
        _w("numberingChange"): RevisionKind.NUMBERING,
        _w("customXmlInsRangeStart"): RevisionKind.CUSTOM_XML_INSERT,
        _w("customXmlMoveToRangeStart"): RevisionKind.CUSTOM_XML_INSERT,
        _w("customXmlDelRangeStart"): RevisionKind.CUSTOM_XML_DELETE,
        _w("customXmlMoveFromRangeStart"): RevisionKind.CUSTOM_XML_DELETE,
    }
)
"""The revision records that change no text (issue 30), by Clark name; ``w:ins`` inside
``w:numPr`` (numbering properties inserted) is :attr:`RevisionKind.NUMBERING` too
(:func:`record_kind`)."""


def record_kind(el: etree._Element) -> RevisionKind | None:
    """What the revision record ``el`` that changes no text is (None: not one)."""
    kind = RECORDS.get(el.tag) if isinstance(el.tag, str) else None
    if kind is not None:
        return kind
    if el.tag == _w("ins"):
        parent = el.getparent()
        if parent is not None and parent.tag == _w("numPr"):
            return RevisionKind.NUMBERING
    return None


def revision_kind(el: etree._Element) -> RevisionKind | None:
    """What the tracked change ``el`` is, by :data:`REVISIONS` (None: not one that holds text)."""
    tag = el.tag
    if tag not in REVISION_TAGS:
        return None
    parent = el.getparent()
    if parent is not None and parent.tag == _w("numPr"):
        return None  # numbering properties inserted: a record (record_kind)
    local = parent.tag.rpartition("}")[2] if parent is not None and isinstance(parent.tag, str) else ""
    if local not in _PLACE_OF_PARENT:
        place = RevisionPlace.CONTENT
    elif local == "rPr":
        grand = parent.getparent() if parent is not None else None
        glocal = grand.tag.rpartition("}")[2] if grand is not None and isinstance(grand.tag, str) else ""
        place = RevisionPlace.MARK if glocal == "pPr" else RevisionPlace.RUN
    else:
        place = _PLACE_OF_PARENT[local] or RevisionPlace.CONTENT
    return REVISIONS.get((tag, place))


# -------------------------------------------------------------------------------------------
# Paragraph properties


def int_value(value: str | None) -> int | None:
    """An integer attribute value, or None when absent or malformed."""
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


class ParagraphProps(NamedTuple):
    """What numbering reads from a paragraph's own ``w:pPr`` (never ``w:pPrChange``), parsed."""

    style_id: str | None = None
    num_id: int | None = None  # w:numPr/w:numId (None when absent or malformed)
    ilvl: int | None = None  # w:numPr/w:ilvl
    outline_set: bool = False  # a w:outlineLvl is present ...
    outline: int | None = None  # ... with this value (None when malformed)
    mark_deleted: bool = False  # w:pPr/w:rPr/w:del or w:moveFrom
    section_break: bool = False  # w:pPr/w:sectPr
    empty: bool = False  # no visible content (only computed for section breaks)


PLAIN = ParagraphProps()


def props_from(
    values: Iterable[tuple[str, str | None]], marks: Iterable[str], section: bool
) -> ParagraphProps:
    """:class:`ParagraphProps` from what a reader found in one ``w:pPr``: ``values`` as
    (local name of a :data:`PROPERTY_VALUES` element, its ``w:val``), ``marks`` the local names
    of the revisions in its ``w:rPr`` (the paragraph mark's), ``section`` whether it holds a
    ``w:sectPr``."""
    style: str | None = None
    num_id = ilvl = outline = None
    outline_set = False
    for name, value in values:
        if name == "pStyle":
            style = value
        elif name == "numId":
            num_id = int_value(value)
        elif name == "ilvl":
            ilvl = int_value(value)
        else:
            outline_set, outline = True, int_value(value)
    return ParagraphProps(style, num_id, ilvl, outline_set, outline, any(True for _ in marks), section)


class Names(NamedTuple):
    """Qualified names for one WordprocessingML namespace (transitional or strict)."""

    ns: str
    p: str
    pPr: str
    rPr: str
    pStyle: str
    numPr: str
    numId: str
    ilvl: str
    outlineLvl: str
    del_: str
    moveFrom: str
    sectPr: str
    val: str
    content: frozenset[str]  # visible content (Rule.visible)
    content_t: str

    @classmethod
    def of(cls, ns: str) -> Names:
        def q(tag: str) -> str:
            return f"{{{ns}}}{tag}"

        visible = [name for name in names(*Role) if RULES[_w(name)].visible]
        return cls(
            ns=ns, p=q("p"), pPr=q("pPr"), rPr=q("rPr"), pStyle=q("pStyle"), numPr=q("numPr"),
            numId=q("numId"), ilvl=q("ilvl"), outlineLvl=q("outlineLvl"), del_=q("del"),
            moveFrom=q("moveFrom"), sectPr=q("sectPr"), val=q("val"),
            content=frozenset(q(tag) for tag in visible), content_t=q("t"),
        )  # fmt: skip


TRANSITIONAL = Names.of(W_NS)
STRICT = Names.of(W_STRICT_NS)


def names_for(root: etree._Element | None) -> Names:
    if root is not None and isinstance(root.tag, str) and root.tag.startswith(f"{{{W_STRICT_NS}}}"):
        return STRICT
    return TRANSITIONAL


_LOCAL = {f"{{{ns}}}{name}": name for ns in (W_NS, W_STRICT_NS) for name in ("del", "moveFrom")}


def read_ppr(p: etree._Element) -> ParagraphProps:
    """A paragraph's properties, read from its tree.

    One pass over ``w:pPr``, which the schema puts first in ``w:p`` (§17.3.1.22).  This runs
    for every paragraph, so it touches as few elements as it can: each child lxml hands to
    Python costs about as much as the rest of the work.
    """
    n = TRANSITIONAL if p.tag == TRANSITIONAL.p else names_for(p)
    values: list[tuple[str, str | None]] = []
    marks: list[str] = []
    section = False
    ppr_tag, pstyle_tag, numpr_tag, rpr_tag = n.pPr, n.pStyle, n.numPr, n.rPr
    for ppr in p:
        if ppr.tag != ppr_tag:
            if isinstance(ppr.tag, str):  # anything but a comment or PI: there is no pPr
                break
            continue
        for child in ppr:
            tag = child.tag
            if tag == pstyle_tag:
                values.append(("pStyle", child.get(n.val)))
            elif tag == numpr_tag:
                for item in child:
                    if item.tag == n.numId:
                        values.append(("numId", item.get(n.val)))
                    elif item.tag == n.ilvl:
                        values.append(("ilvl", item.get(n.val)))
            elif tag == rpr_tag:
                marks.extend(_LOCAL[m.tag] for m in child if m.tag == n.del_ or m.tag == n.moveFrom)
            elif tag == n.sectPr:
                section = True
            elif tag == n.outlineLvl:
                values.append(("outlineLvl", child.get(n.val)))
        break
    props = props_from(values, marks, section)
    if section and _is_empty(p, n):
        props = props._replace(empty=True)
    return props


def _is_empty(p: etree._Element, n: Names) -> bool:
    """No visible content: no text, tab, symbol, break or drawing (ignoring deleted text)."""
    return not any(el.tag in n.content and (el.tag != n.content_t or el.text) for el in p.iter())


# -------------------------------------------------------------------------------------------
# What no rule reads


def unrecognised(root: etree._Element) -> Counter[str]:
    """The elements under ``root`` that the view does not read as a rule says, by Clark name:
    main-namespace elements no rule names (what they hold is read through, as a container's
    would be), and those whose content Word shows but the view leaves out (NOT_SHOWN).
    Subtrees no reader enters (properties, deletions, fallbacks) are not looked into; other
    namespaces (drawings, VML) only where a rule names them."""
    found: Counter[str] = Counter()
    closed = (Role.NO_TEXT, Role.DELETED, Role.SKIPPED, Role.NOT_SHOWN, Role.PROPERTIES)
    main = f"{{{W_NS}}}"
    walker = etree.iterwalk(root, events=("start",))
    for _event, el in walker:
        tag = el.tag
        if not isinstance(tag, str):
            continue
        rule = RULES.get(tag)
        if rule is None:
            if tag.startswith(main):
                found[tag] += 1
            continue
        if rule.role is Role.NOT_SHOWN:
            found[tag] += 1
        if rule.role in closed:
            walker.skip_subtree()
    return found


_PREFIXES = {W_NS: "w", MC_NS: "mc", M_NS: "m"}


def describe(tag: str) -> str:
    """One line on an element :func:`unrecognised` found: its name and what the view does with it."""
    ns, _, local = tag[1:].partition("}")
    name = f"{_PREFIXES.get(ns, ns)}:{local}"
    rule = RULES.get(tag)
    if rule is None:
        return f"{name}: no reading rule names it; text inside it is read as ordinary text"
    return f"{name}: {rule.note or 'not read'}; the view does not show it"
