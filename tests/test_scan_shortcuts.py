"""The scanner's shortcuts read exactly what the long way reads.

Each shortcut the scanner takes for speed -- a count the package's load made reused instead of a
search of the part -- is held here to the long way, on parts built to put the case the shortcut
skips (a prefix or namespace bound again below the root) where it can be.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from redline.opc.namespaces import MC_NS, R_NS, W_NS
from redline.read import scan

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
