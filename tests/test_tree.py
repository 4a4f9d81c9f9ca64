"""The element surgery of redline.write.tree: the two ways of joining a paragraph to the next
stay two (the writer's untracked mark deletion, a decision on a paragraph mark), because they
write different bytes; these tests pin each, so a merge that changed either shows here."""

from __future__ import annotations

from lxml import etree

from redline.opc.namespaces import W_NS
from redline.write.tree import join_into_next, pull_next, remove

_BODY = (
    f'<w:body xmlns:w="{W_NS}">'
    '<w:p w:rsidR="AA"><w:pPr><w:pStyle w:val="H1"/><w:sectPr><w:pgSz w:w="1"/></w:sectPr></w:pPr>'
    "<w:r><w:t>one</w:t></w:r></w:p>"
    '<w:proofErr w:type="spellStart"/>'
    '<w:p w:rsidR="BB"><w:pPr><w:pStyle w:val="Body"/></w:pPr><w:r><w:t>two</w:t></w:r></w:p>'
    "</w:body>"
)


def _xml(root: etree._Element) -> str:
    return etree.tostring(root, encoding="unicode").replace(f' xmlns:w="{W_NS}"', "")


def test_the_writers_join_keeps_the_first_element_and_the_later_properties_only() -> None:
    root = etree.fromstring(_BODY)
    told = []
    assert pull_next(root[0], lambda p, nxt: told.append((p, nxt)))
    assert len(told) == 1
    assert _xml(root) == (
        '<w:body><w:p w:rsidR="AA"><w:pPr><w:pStyle w:val="Body"/></w:pPr><w:r><w:t>one</w:t></w:r>'
        '<w:proofErr w:type="spellStart"/><w:r><w:t>two</w:t></w:r></w:p></w:body>'
    )


def test_a_decisions_join_keeps_the_next_element_and_carries_the_section_break() -> None:
    root = etree.fromstring(_BODY)
    join_into_next(root[0])
    assert _xml(root) == (
        '<w:body><w:p w:rsidR="BB"><w:pPr><w:pStyle w:val="Body"/><w:sectPr><w:pgSz w:w="1"/></w:sectPr>'
        '</w:pPr><w:r><w:t>one</w:t></w:r><w:proofErr w:type="spellStart"/><w:r><w:t>two</w:t></w:r></w:p>'
        "</w:body>"
    )


def test_a_last_paragraph_keeps_its_mark_in_both_joins() -> None:
    xml = f'<w:tc xmlns:w="{W_NS}"><w:p><w:r><w:t>x</w:t></w:r></w:p><w:tbl/></w:tc>'
    for join in (lambda p: pull_next(p, lambda a, b: None), join_into_next):
        root = etree.fromstring(xml)
        join(root[0])
        assert _xml(root) == "<w:tc><w:p><w:r><w:t>x</w:t></w:r></w:p><w:tbl/></w:tc>"


def test_removing_keeps_a_tail_only_when_asked_and_only_when_not_blank() -> None:
    for keep, tail, want in (
        (False, "kept?", "<a>x<b/></a>"),
        (True, "kept", "<a>x<b/>kept</a>"),
        (True, "  ", "<a>x<b/></a>"),
    ):
        root = etree.fromstring("<a>x<b/><c/></a>")
        root[1].tail = tail
        remove(root[1], keep_tail=keep)
        assert etree.tostring(root, encoding="unicode") == want
