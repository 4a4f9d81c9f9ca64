"""The tree reader: a story's text from its lxml tree, element by element, by the rules of
:mod:`redline.read.roles`.

The reference reader (the scanner's oracle in the tests) and the write path: its spans name
the very elements the writer changes.  It meets every element the table gives a role that
matters to the text (:data:`WALK_TAGS`), takes its decision from that role, and emits the
paragraph events of :mod:`redline.read.paragraphs`.  A story with nothing to skip, flag or nest
(no deletion, move, simple field, fallback or text box: most parts) is read in one pass over the
elements that make text; any other follows every element's start and end.
"""

from __future__ import annotations

from lxml import etree

from shared_schema import Code

from ..errors import PackageError
from ..opc.namespaces import w
from .paragraphs import Assembler, StoryText, too_much_text
from .roles import CHAR_OF, RULES, Role, SpanFlag, SpanKind, read_ppr, symbol, tags, track_field

WALK_TAGS = tags(
    Role.PARAGRAPH, Role.TEXT, Role.CHARACTER, Role.SYMBOL, Role.FIELD_CHAR, Role.FLAGGED, Role.DELETED,
    Role.SKIPPED,
)  # fmt: skip
_ROLE = {tag: RULES[tag].role for tag in WALK_TAGS}
_FLAG = {tag: RULES[tag].flag for tag in WALK_TAGS}
_R, _RPR, _PPR, _CHAR, _FLD_CHAR_TYPE = w("r"), w("rPr"), w("pPr"), w("char"), w("fldCharType")
_TC = w("tc")
_JOINS = frozenset(tag for tag in WALK_TAGS if RULES[tag].joins)
_PARAGRAPH, _TEXT, _CHARACTER, _SYMBOL = Role.PARAGRAPH, Role.TEXT, Role.CHARACTER, Role.SYMBOL
_FIELD_CHAR, _FLAGGED, _DELETED = Role.FIELD_CHAR, Role.FLAGGED, Role.DELETED


NESTS = (*tags(Role.FLAGGED, Role.DELETED, Role.SKIPPED), w("txbxContent"))
_FLAT_TAGS = tags(Role.PARAGRAPH, Role.TEXT, Role.CHARACTER, Role.SYMBOL, Role.FIELD_CHAR)


def read_story(root: etree._Element) -> StoryText:
    """The text of the story under ``root`` (a ``w:body``, ``w:hdr``, ``w:footnote``, ...)."""
    if next(root.iter(*NESTS), None) is None:
        return _read_flat(root)
    return read_nested(root)


def read_nested(root: etree._Element) -> StoryText:
    """Every element's start and end, followed: what a story with deletions, moves, fields,
    fallbacks or text boxes needs."""
    asm = Assembler()
    fields: list[bool] = []  # per open complex field: past its separator?
    depth = dict.fromkeys(_FLAG.values(), 0)  # how deep in FLAGGED elements of each flag
    flagged = 0  # the union of the flags of the FLAGGED elements we are in
    out = asm.out  # its lists stay the same objects: text is appended to them here, in the hot loop
    pieces, offsets, nodes, kinds, spans = out.pieces, out.offsets, out.nodes, out.kinds, out.flags
    limit = asm.max_size
    walker = etree.iterwalk(root, events=("start", "end"), tag=WALK_TAGS)
    for event, node in walker:
        tag = node.tag
        role = _ROLE[tag]
        if role is _TEXT:  # the most frequent: first
            if event == "start" and len(node):
                raise markup_in_text(node)
            if event == "start" and asm.ref is not None and not (fields and not fields[-1]):
                text = node.text
                if text:
                    offsets.append(asm.size)
                    nodes.append(node)
                    kinds.append(SpanKind.TEXT)
                    spans.append(flagged | (SpanFlag.FIELD_RESULT if fields else 0))
                    pieces.append(text)
                    asm.size += len(text)
                    if asm.size > limit:
                        raise too_much_text(limit)
            continue
        if event == "end":
            if role is _PARAGRAPH:
                asm.props = read_ppr(node)
                asm.end()
            elif role is _FLAGGED:
                flag = _FLAG[tag]
                depth[flag] -= 1
                if not depth[flag]:
                    flagged &= ~flag
            continue
        if role is _PARAGRAPH:
            asm.begin(node, bool(fields) and not fields[-1], None, cells(node))
            continue
        if role is _FLAGGED:
            flag = _FLAG[tag]
            depth[flag] += 1
            flagged |= flag
            continue
        if role is _DELETED:
            if tag in _JOINS and asm.ref is not None and _marks_paragraph(node):
                asm.deleted = True
            walker.skip_subtree()
            continue
        if role is Role.SKIPPED:
            walker.skip_subtree()
            continue
        if role is _FIELD_CHAR:
            track_field(fields, node.get(_FLD_CHAR_TYPE))
            continue
        if asm.ref is None or (fields and not fields[-1]):
            continue  # outside any paragraph, or inside a field's instructions: not text
        flags = flagged | (SpanFlag.FIELD_RESULT if fields else 0)
        parent = node.getparent()
        if parent is None or parent.tag != _R:
            continue  # a character only inside a run (w:tabs/w:tab in paragraph properties is none)
        if role is _SYMBOL:
            asm.add(symbol(node.get(_CHAR)), node, SpanKind.CHAR, flags)
        else:
            asm.add(CHAR_OF[tag], node, SpanKind.CHAR, flags)
    return asm.finish()


def markup_in_text(node: etree._Element) -> PackageError:
    """The refusal for a text element holding a child node: its text would be read only up to
    that child (lxml's ``.text``), and an edit before it would move or lose the rest."""
    child = node[0]
    what = (
        "a comment" if isinstance(child, etree._Comment)
        else "a processing instruction" if isinstance(child, etree._ProcessingInstruction)
        else "an element"
    )  # fmt: skip
    tag = etree.QName(node).localname
    return PackageError(
        Code.MARKUP_IN_TEXT,
        f"A text element (w:{tag}) of the document holds {what} inside its text, which Word never "
        "writes; its text could not be read and edited faithfully, so the file is refused.",
    )


def _marks_paragraph(deletion: etree._Element) -> bool:
    """Is this deletion the paragraph mark's (``w:pPr/w:rPr/w:del``, §17.13.5.15)?"""
    parent = deletion.getparent()
    grand = parent.getparent() if parent is not None and parent.tag == _RPR else None
    return grand is not None and grand.tag == _PPR


def _read_flat(root: etree._Element) -> StoryText:
    """:func:`read_story` for a story with nothing to skip or flag and no paragraph in another
    (most parts): one pass over the elements that make text, in which a paragraph ends where
    the next begins -- about a fifth cheaper than following every element's start and end."""
    asm = Assembler()
    fields: list[bool] = []
    out = asm.out
    pieces, offsets, nodes, kinds, spans = out.pieces, out.offsets, out.nodes, out.kinds, out.flags
    limit = asm.max_size
    for node in root.iter(*_FLAT_TAGS):
        tag = node.tag
        role = _ROLE[tag]
        if role is _TEXT:
            if len(node):
                raise markup_in_text(node)
            if asm.ref is not None and not (fields and not fields[-1]):
                text = node.text
                if text:
                    offsets.append(asm.size)
                    nodes.append(node)
                    kinds.append(SpanKind.TEXT)
                    spans.append(SpanFlag.FIELD_RESULT if fields else 0)
                    pieces.append(text)
                    asm.size += len(text)
                    if asm.size > limit:
                        raise too_much_text(limit)
        elif role is _PARAGRAPH:
            if asm.ref is not None:
                asm.props = read_ppr(asm.ref)
                asm.end()
            asm.begin(node, bool(fields) and not fields[-1], None, cells(node))
        elif role is _FIELD_CHAR:
            track_field(fields, node.get(_FLD_CHAR_TYPE))
        elif asm.ref is not None and not (fields and not fields[-1]):
            parent = node.getparent()
            if parent is not None and parent.tag == _R:
                char = symbol(node.get(_CHAR)) if role is _SYMBOL else CHAR_OF[tag]
                asm.add(char, node, SpanKind.CHAR, SpanFlag.FIELD_RESULT if fields else 0)
    if asm.ref is not None:
        asm.props = read_ppr(asm.ref)
        asm.end()
    return asm.finish()


def cells(p: etree._Element) -> int:
    """How many table cells (``w:tc``) paragraph ``p`` lies in."""
    return sum(1 for _ in p.iterancestors(_TC))


def ancestor(el: etree._Element, tag: str) -> etree._Element | None:
    """The nearest element above ``el`` with the Clark name ``tag``, or None when none is."""
    node = el.getparent()
    while node is not None and node.tag != tag:
        node = node.getparent()
    return node
