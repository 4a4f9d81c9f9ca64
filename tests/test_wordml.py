"""The reading rules of :mod:`redline.read.roles`, read by every reader the same way.

Each test here is driven by the table itself: a rule added to :data:`redline.read.roles.RULES` is
exercised through both readers (the tree walk and the scanner) without a test of its own
having to name it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from redline.opc.namespaces import M_NS, W_NS
from redline.opc.package import Package
from redline.read import roles as wordml
from redline.read.build import build_view, flatten, scanned_view, stories_of
from redline.read.labels import numbering_of
from redline.read.roles import RULES, Role, SpanFlag
from redline.read.view import DocumentView
from testing.docbuild import P, Raw, docx

_W = f"{{{W_NS}}}"


def _local(tag: str) -> str:
    return tag.split("}", 1)[1]


def _both(*blocks: object) -> tuple[DocumentView, DocumentView]:
    """The document's view as the tree walk reads it and as the scanner does (which must accept it)."""
    package = Package.from_bytes(docx(*blocks))
    tree = flatten(stories_of(package), package.revision, numbering_of(package))
    scanned = scanned_view(package)
    assert scanned is not None, "the scanner declined a plain document"
    return tree, scanned


def _main(role: Role) -> list[str]:
    return [_local(tag) for tag, rule in RULES.items() if rule.role is role and tag.startswith(_W)]


@pytest.mark.parametrize("name", _main(Role.CHARACTER))
def test_every_character_rule_reads_as_its_character_in_both_readers(name: str) -> None:
    char = RULES[_W + name].char
    assert char is not None and len(char) == 1
    for view in _both(P(Raw(f"<w:r><w:t>a</w:t><w:{name}/><w:t>b</w:t></w:r>"))):
        assert view.text == f"a{char}b"
        assert bytes(view.span_kinds) == bytes([0, 1, 0])


@pytest.mark.parametrize("name", _main(Role.CHARACTER))
def test_a_character_element_outside_a_run_is_no_character(name: str) -> None:
    # w:pPr/w:tabs/w:tab is a tab stop; any character element not in a run reads as nothing
    ppr = f"<w:tabs><w:{name}/></w:tabs>" if RULES[_W + name].in_properties else ""
    for view in _both(P(Raw(f"<w:pPr>{ppr}</w:pPr><w:r><w:t>ab</w:t></w:r>"))):
        assert view.text == "ab"


@pytest.mark.parametrize("name", _main(Role.DELETED))
def test_what_a_deleted_rule_holds_is_not_read(name: str) -> None:
    inner = "<w:r><w:delText>gone</w:delText><w:t>gone too</w:t></w:r>"
    attrs = 'w:id="7" w:author="A"'
    deletion = f"<w:{name} {attrs}>{inner}</w:{name}>"
    for view in _both(P(Raw(f"<w:r><w:t>kept </w:t></w:r>{deletion}<w:r><w:t>end</w:t></w:r>"))):
        assert view.text == "kept end"


@pytest.mark.parametrize("name", _main(Role.DELETED))
def test_a_deleted_rule_on_the_mark_joins_the_paragraph_only_if_it_joins(name: str) -> None:
    joins = RULES[_W + name].joins
    mark = f'<w:pPr><w:rPr><w:{name} w:id="3" w:author="A"/></w:rPr></w:pPr>'
    for view in _both(P(Raw(f"{mark}<w:r><w:t>one</w:t></w:r>")), P("two")):
        assert view.text == ("onetwo" if joins else "one\ntwo")
        assert view.paragraphs[0].element is not None


@pytest.mark.parametrize("name", _main(Role.FLAGGED))
def test_what_a_flagged_rule_holds_is_read_with_its_flag(name: str) -> None:
    flag = RULES[_W + name].flag
    attrs = ' w:instr=" PAGE "' if name == "fldSimple" else ' w:id="5" w:author="A"'
    for view in _both(P(Raw(f"<w:r><w:t>a</w:t></w:r><w:{name}{attrs}><w:r><w:t>b</w:t></w:r></w:{name}>"))):
        assert view.text == "ab"
        assert list(view.span_flags) == [0, flag]


def test_the_fallback_copy_is_skipped_and_the_choice_read() -> None:
    assert [_local(t) for t, r in RULES.items() if r.role is Role.SKIPPED] == ["Fallback"]
    box = (
        '<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent>'
        "<w:p><w:r><w:t>boxed</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice>"
        "<mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>boxed</w:t></w:r></w:p></w:txbxContent>"
        "</w:pict></mc:Fallback></mc:AlternateContent></w:r>"
    )
    for view in _both(P(Raw(f"<w:r><w:t>anchor</w:t></w:r>{box}"))):
        assert view.text == "boxed\nanchor"  # a text box's paragraph comes before its anchor, once


def test_a_fields_instructions_are_not_text_and_its_result_is_flagged() -> None:
    field = (
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> REF x </w:instrText></w:r>'
        '<w:r><w:t>code?</w:t></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        '<w:r><w:t>27.9</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>'
    )
    for view in _both(P(Raw(f"<w:r><w:t>see </w:t></w:r>{field}"))):
        assert view.text == "see 27.9"
        assert list(view.span_flags) == [0, SpanFlag.FIELD_RESULT]


def test_the_readers_take_their_names_from_the_table() -> None:
    from redline.read import scan, walk

    patterns = scan.Patterns("w", "mc")
    for tag, rule in RULES.items():
        if rule.role in (Role.TEXT, Role.CHARACTER, Role.SYMBOL, Role.PARAGRAPH):
            assert tag in wordml.NODE_TAGS
            if tag.startswith(_W):
                assert patterns.nodes.match(f"<w:{_local(tag)}/>"), tag
        if rule.role in (Role.CHARACTER, Role.SYMBOL, Role.DELETED, Role.FLAGGED, Role.FIELD_CHAR):
            assert patterns.token.match(f"<w:{_local(tag)} w:x='1'/>"), tag
            assert tag in walk.WALK_TAGS
        if rule.role in (Role.CONTAINER, Role.NO_TEXT, Role.NOT_SHOWN) and tag.startswith(_W):
            assert not patterns.token.match(f"<w:{_local(tag)}/>"), tag
            assert tag not in walk.WALK_TAGS


def test_an_element_no_rule_names_is_reported_not_silently_read() -> None:
    body = etree.fromstring(
        f'<w:body xmlns:w="{W_NS}" xmlns:m="{M_NS}"><w:p><w:r><w:t>x</w:t>'
        "<w:frobnicate/></w:r><w:r><w:rPr><w:unheardOf/></w:rPr><w:pgNum/></w:r>"
        "<m:oMath><m:r><m:t>E=mc2</m:t></m:r></m:oMath></w:p></w:body>"
    )
    found = wordml.unrecognised(body)
    # an unknown element, an element Word shows that the view leaves out, and an equation; what
    # run properties hold is not looked into
    assert found == {_W + "frobnicate": 1, _W + "pgNum": 1, f"{{{M_NS}}}oMath": 1}
    lines = sorted(wordml.describe(tag) for tag in found)
    assert lines == [
        "m:oMath: an equation; the view does not show it",
        "w:frobnicate: no reading rule names it; text inside it is read as ordinary text",
        "w:pgNum: the page number; the view does not show it",
    ]


def test_paragraph_properties_read_the_same_from_a_tree_and_from_the_scanner() -> None:
    ppr = (
        '<w:pPr><w:pStyle w:val="Heading2"/><w:numPr><w:ilvl w:val="1"/><w:numId w:val="4"/></w:numPr>'
        '<w:outlineLvl w:val="3"/><w:rPr><w:moveFrom w:id="1" w:author="A"/></w:rPr></w:pPr>'
    )
    xml = f'<w:p xmlns:w="{W_NS}">{ppr}<w:r><w:t>x</w:t></w:r></w:p>'
    from_tree = wordml.read_ppr(etree.fromstring(xml))
    from redline.read import scan

    part = Package.from_bytes(docx(P(Raw(ppr + "<w:r><w:t>x</w:t></w:r>")))).read("word/document.xml")
    source = scan.prepare(part, "word/document.xml")
    assert source is not None
    blob = ppr[len("<w:pPr>") : -len("</w:pPr>")]
    from_scan, joins = scan.Scanner(source)._read_ppr(blob)
    assert from_tree == from_scan == wordml.ParagraphProps("Heading2", 4, 1, True, 3, True, False)
    # a mark moved away (§17.13.5.21) is gone once accepted, as a deleted one is: the paragraph
    # joins the next (LibreOffice's and pandoc's accept-all agree; tests/test_compare_moves.py)
    assert joins is True


def test_build_view_reads_every_rule_the_same_as_the_tree_walk() -> None:
    runs = "".join(f"<w:r><w:t>{n}</w:t><w:{n}/></w:r>" for n in _main(Role.CHARACTER))
    tree, scanned = _both(P(Raw(runs)), P("after"))
    assert build_view(Package.from_bytes(docx(P(Raw(runs)), P("after")))).text == tree.text == scanned.text


@pytest.mark.corpus
def test_every_element_of_the_real_documents_has_a_rule(corpus_dir: Path) -> None:
    """The table is complete on reality: no main-namespace element of any corpus document is
    one no rule names (what Word shows and the view leaves out is named, and reported)."""
    from redline.opc.package import PackageError
    from redline.read.build import unread

    unnamed: dict[str, list[str]] = {}
    for path in sorted(corpus_dir.glob("*.docx")):
        try:
            package = Package.open(path)
        except PackageError:
            continue
        for counts in unread(package).values():
            names = [tag for tag in counts if tag not in RULES]
            if names:
                unnamed.setdefault(path.name, []).extend(names)
    assert unnamed == {}


def test_redline_view_unread_lists_what_the_view_leaves_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from redline_cli.redline import main

    doc = tmp_path / "d.docx"
    doc.write_bytes(docx(P(Raw("<w:r><w:t>page </w:t><w:pgNum/></w:r>")), P("plain")))
    assert main(["view", str(doc)]) == 0
    assert capsys.readouterr().err == ""  # nothing unless asked
    assert main(["view", str(doc), "--unread"]) == 0
    out = capsys.readouterr()
    assert out.out == "page \nplain\n"
    line = "word/document.xml: w:pgNum: the page number; the view does not show it (1×)"
    assert out.err == f"redline view: unread: {line}\n"
    assert main(["view", str(doc), "--json", "--unread"]) == 0
    assert json.loads(capsys.readouterr().out)["unread"] == [line]
