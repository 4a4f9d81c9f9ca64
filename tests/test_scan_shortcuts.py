"""The scanner's shortcuts read exactly what the long way reads.

Each shortcut the scanner takes for speed is held here to the long way, on parts built to put the
case the shortcut skips where it can be: a count the package's load made, reused instead of a
search of the part (a prefix or namespace bound again below the root), and the search for table
cells read on from the end of a paragraph that held no paragraph (a text box's table).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from redline.opc.namespaces import MC_NS, R_NS, W_NS
from redline.opc.package import Package
from redline.opc.working import WorkingCopy
from redline.read import scan
from redline.read.build import flatten, scanned_view, stories_of
from redline.read.labels import numbering_of
from redline.read.paragraphs import Assembler, StoryText
from testing.hostile_docs import Entry, document, docx_parts, raw_zip

_ROOT = f'<w:document xmlns:w="{W_NS}" xmlns:r="{R_NS}" xmlns:mc="{MC_NS}"{{extra}}>'
_DECLS = [
    "",
    ' xmlns:v="urn:schemas-microsoft-com:vml"',
    f' xmlns:w="{W_NS}"',  # the same prefix bound again (the same namespace)
    ' xmlns:w="urn:other"',  # the scanner's prefix bound to another namespace
    f' xmlns:x="{W_NS}"',  # the scanner's namespace under another prefix
    f' xmlns="{R_NS}"',
    ' xmlns:mc="urn:other"',
]


@st.composite
def _part(draw: st.DrawFn) -> bytes:
    root = _ROOT.format(extra=draw(st.sampled_from(_DECLS)))
    paragraphs = []
    for _ in range(draw(st.integers(0, 4))):
        decl = draw(st.sampled_from(_DECLS))
        text = draw(st.sampled_from(["a", "xmlns", "b xmlns c", ""]))
        paragraphs.append(f"<w:p{decl}><w:r><w:t>{text}</w:t></w:r></w:p>")
    prolog = draw(st.sampled_from(["", '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n']))
    return f"{prolog}{root}<w:body>{''.join(paragraphs)}</w:body></w:document>".encode()


@settings(max_examples=300, deadline=None)
@given(_part())
def test_the_loaded_xmlns_count_gives_what_the_search_for_redeclarations_gives(data: bytes) -> None:
    long_way = scan.prepare(data, "word/document.xml")
    counted = scan.prepare(data, "word/document.xml", xmlns=data.count(b"xmlns"))
    assert counted == long_way
    head = scan.plain_root(data, data.decode())
    counted_head = scan.plain_root(data, data.decode(), data.count(b"xmlns"))
    assert (counted_head is None) == (head is None)
    if head is not None and counted_head is not None:
        assert (counted_head.prefixes, counted_head.root_end) == (head.prefixes, head.root_end)


def test_a_redeclared_prefix_below_the_root_still_sends_the_part_to_the_tree_walk() -> None:
    data = (_ROOT.format(extra="") + '<w:body><w:p xmlns:w="urn:other"/></w:body></w:document>').encode()
    assert scan.prepare(data, "word/document.xml", xmlns=data.count(b"xmlns")) is None
    plain = (_ROOT.format(extra="") + "<w:body><w:p/></w:body></w:document>").encode()
    assert scan.prepare(plain, "word/document.xml", xmlns=plain.count(b"xmlns")) is not None


# -- the table cells a paragraph lies in -------------------------------------------------------
# (the search for cells' tags reads on from the end of a paragraph that held no paragraph)


def _cell(content: str, kind: str) -> str:
    cells = {"full": f"<w:tc><w:tcPr/>{content}</w:tc>", "bare": "<w:tc><w:tcPr/></w:tc>", "empty": "<w:tc/>"}
    return cells[kind]


@st.composite
def _block(draw: st.DrawFn, depth: int = 0) -> str:
    """A paragraph (maybe holding a text box, whose content may hold a table) or a table."""
    text = draw(st.sampled_from(["a", "b c", ""]))
    if depth < 2 and draw(st.booleans()):
        inner = "".join(draw(st.lists(_block(depth + 1), min_size=1, max_size=2)))
        kinds = draw(st.lists(st.sampled_from(["full", "full", "bare", "empty"]), min_size=1, max_size=3))
        table = f"<w:tbl><w:tblPr/><w:tr>{''.join(_cell(inner, k) for k in kinds)}</w:tr></w:tbl>"
        if draw(st.booleans()):
            return table
        box = f"<w:txbxContent>{table}<w:p><w:r><w:t>box</w:t></w:r></w:p></w:txbxContent>"
        if draw(st.booleans()):
            box = f"<w:txbxContent>{table}</w:txbxContent>"  # (a box that ends with a table)
        runs = f"<w:r><w:t>{text}</w:t></w:r><w:r><w:pict>{box}</w:pict></w:r><w:r><w:t>z</w:t></w:r>"
        return f"<w:p>{runs}</w:p>"
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


@settings(max_examples=200, deadline=None)
@given(st.lists(_block(), min_size=1, max_size=4))
def test_paragraphs_lie_in_the_cells_the_tree_walk_finds_them_in(blocks: list[str]) -> None:
    body = "".join(blocks) + "<w:sectPr/>"
    data = raw_zip([Entry(n, d) for n, d in docx_parts({"word/document.xml": document(body)})])
    package = Package.from_bytes(data)
    working = WorkingCopy(package)
    tree = flatten(stories_of(package, working), package.revision, numbering_of(package))
    scanned = scanned_view(package, working)
    assert scanned is not None
    assert scanned.text == tree.text
    assert [p.cell for p in scanned.paragraphs] == [p.cell for p in tree.paragraphs]


# -- the w:t texts: the literal forms Word writes, tried first ----------------------------------

_A = r"""(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*"""
_GENERAL = re.compile(rf"<w:t(?=[\s/>]){_A}(?:/>|>([^<]*(?:(?=</w:t\s*>)|<))(?:</w:t\s*>)?)")
"""The texts' expression in its general form only (any attributes, any spacing)."""

_PIECES = [
    "<w:t>", '<w:t xml:space="preserve">', "<w:t xml:space='preserve'>", '<w:t  xml:space="preserve">',
    '<w:t xml:space="preserve" w14:x="1">', '<w:t xml:space="preserve"/>', "<w:t/>", "<w:t />", "<w:t\n>",
    "</w:t>", "</w:t >", "</w:t\n>", "<w:tab/>", "<w:tbl>", "<w:r>", "</w:r>", "<w:b/>", "<w:br/>",
    "a", "b c", "&amp;", " ", '"', ">", "/",
]  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14), st.integers(0, 20), st.integers(0, 20))
def test_the_texts_read_with_the_literal_forms_first_are_the_general_forms_texts(
    pieces: list[str], cut_a: int, cut_b: int
) -> None:
    x = "".join(pieces)
    start, end = min(cut_a, len(x)), max(min(cut_b, len(x)), min(cut_a, len(x)))
    texts = scan.patterns("w", "mc").texts
    assert texts.findall(x, start, end) == _GENERAL.findall(x, start, end)
    assert texts.findall(x) == _GENERAL.findall(x)


# -- offsets made at the end: the pieces' running lengths ---------------------------------------

_Para = tuple[bool, list["str | _Para"]]  # (its mark deleted, its texts and text boxes)


@st.composite
def _para(draw: st.DrawFn, depth: int = 0) -> _Para:
    items: list[str | _Para] = []
    for _ in range(draw(st.integers(0, 4))):
        if depth < 2 and draw(st.integers(0, 4)) == 0:
            items.append(draw(_para(depth + 1)))
        else:
            items.append(draw(st.text(alphabet="ab\u201c", min_size=1, max_size=4)))
    return draw(st.booleans()), items


def _assemble(paras: list[_Para], offsets: bool) -> StoryText:
    asm = Assembler(offsets=offsets)
    refs = iter(range(10_000))

    def read(para: _Para) -> None:
        deleted, items = para
        asm.begin(next(refs), False)
        for item in items:
            if isinstance(item, str):
                asm.add(item, next(refs), 0, 0)
            else:
                read(item)
        asm.deleted = deleted
        asm.end()

    for para in paras:
        read(para)
    return asm.finish()


@settings(max_examples=300, deadline=None)
@given(st.lists(_para(), max_size=5))
def test_offsets_made_at_the_end_are_those_kept_as_the_spans_come(paras: list[_Para]) -> None:
    kept, made = _assemble(paras, True), _assemble(paras, False)
    assert made == kept
    assert made.offsets == [sum(map(len, made.pieces[:i])) for i in range(len(made.pieces))]
