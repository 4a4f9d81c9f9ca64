"""Deleting text that holds whole fields deletes the fields as tracked changes (issue 30):
begin through end, every run of the field's code in a ``w:del`` (``w:instrText`` as
``w:delInstrText``), its result deleted with the text around it -- for a cross-reference in a
clause, a field whose runs stand in another author's insertion, a nested field and a
``w:fldSimple`` (written first as the complex field it stands for: a deletion holds runs only).
A field only partly inside what is deleted stays ``unsupported``.

Judged by an lxml reading (no field character or instruction left outside a deletion; none at
all once accepted), by pandoc (accepted: the field's text gone; rejected: back) and by
LibreOffice over UNO (accepted: the clause and its field gone; rejected: both back, the field a
field again).
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any
from xml.sax.saxutils import escape

import pytest
from lxml import etree

from redline.apply import ApplyOptions, Outcome, apply_reply
from testing.docbuild import BmEnd, BmStart, Field, Ins, P, Raw, docx
from tests.oracles import pandoc_spaced, probe
from tests.support import view_of

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = {"w": W}
CLAUSE = "The Tenant pays rent as set out in Section 1 of this Lease, monthly."


def run(doc: bytes, anchor: str, replacement: str = "", **options: Any) -> Outcome:
    edit = {"anchor": anchor, "replacement": replacement, "rationale": "Not needed."}
    opts = ApplyOptions(author="Us", date="2024-05-01T00:00:00Z", **options)
    return apply_reply(doc, json.dumps({"edits": [edit]}), opts)


def codes(out: Outcome) -> list[str]:
    return [e.error.code.value if e.error else e.status.value for e in out.report.edits]


def body(data: bytes) -> etree._Element:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return etree.fromstring(z.read("word/document.xml"))


def live_code(root: etree._Element) -> list[str]:
    """Field characters, instructions and simple fields not inside a deletion."""
    found = root.xpath(
        "//w:fldChar[not(ancestor::w:del)] | //w:instrText[not(ancestor::w:del)] | //w:fldSimple",
        namespaces=NS,
    )
    assert isinstance(found, list)
    return [etree.QName(el).localname for el in found if isinstance(el, etree._Element)]


def simple(instr: str, result: str) -> str:
    return f'<w:fldSimple w:instr="{escape(instr)}"><w:r><w:t>{escape(result)}</w:t></w:r></w:fldSimple>'


def heading() -> Any:
    return P(BmStart("_Ref1", 1), "Definitions", BmEnd(1))


DOCS = {
    "complex": lambda: docx(
        heading(),
        P(
            "The Tenant pays rent as set out in Section ",
            Field(" REF _Ref1 \\r \\h ", "1"),
            " of this Lease, monthly.",
        ),
        P("Next clause."),
    ),
    "simple": lambda: docx(
        heading(),
        P(
            "The Tenant pays rent as set out in Section ",
            Raw(simple(" REF _Ref1 \\r \\h ", "1")),
            " of this Lease, monthly.",
        ),
        P("Next clause."),
    ),
    # the field's runs in another author's insertion (as Word writes a field typed with tracking on)
    "inserted": lambda: docx(
        heading(),
        P(
            "The Tenant pays rent as set out in Section ",
            Ins(Raw(Field(" REF _Ref1 \\r \\h ", "1")), author="Opp"),
            " of this Lease, monthly.",
        ),
        P("Next clause."),
    ),
    # split over containers: begin and code in an insertion, the rest outside it
    "split": lambda: docx(
        heading(),
        P(
            "The Tenant pays rent as set out in Section ",
            Raw(
                '<w:ins w:id="71" w:author="Opp" w:date="2020-01-01T00:00:00Z">'
                '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
                '<w:r><w:instrText xml:space="preserve"> REF _Ref1 \\r \\h </w:instrText></w:r></w:ins>'
                '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>1</w:t></w:r>'
                '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
            ),
            " of this Lease, monthly.",
        ),
        P("Next clause."),
    ),
    # a REF nested in a HYPERLINK's result (as a table of contents nests its page numbers): both go
    "nested": lambda: docx(
        heading(),
        P(
            "The Tenant pays rent as set out in Section ",
            Raw(
                '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
                '<w:r><w:instrText xml:space="preserve"> HYPERLINK \\l "_Ref1" </w:instrText></w:r>'
                '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
                + Field(" REF _Ref1 \\r \\h ", "1")
                + '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
            ),
            " of this Lease, monthly.",
        ),
        P("Next clause."),
    ),
}
SHAPES = pytest.mark.parametrize("shape", sorted(DOCS))


@SHAPES
def test_deleting_a_clause_deletes_its_field_begin_through_end(shape: str) -> None:
    doc = DOCS[shape]()
    assert view_of(doc).text.split("\n")[1] == CLAUSE
    out = run(doc, CLAUSE)
    assert codes(out) == ["applied"], out.report.edits[0].error
    assert out.output is not None
    root = body(out.output)
    assert live_code(root) == []  # every field character and instruction deleted
    assert root.xpath("//w:delInstrText", namespaces=NS)
    assert any("deleted with the text around it" in n for n in out.report.edits[0].notes)
    # our reading: accepted, the clause is gone
    assert CLAUSE not in view_of(out.output).text


@SHAPES
def test_pandoc_reads_the_field_gone_accepted_and_back_rejected(shape: str) -> None:
    out = run(DOCS[shape](), CLAUSE)
    assert out.output is not None
    accepted, rejected = pandoc_spaced(out.output, "accept"), pandoc_spaced(out.output, "reject")
    assert "Section" not in accepted and "Next clause." in accepted
    # rejected: the clause back (a field another author inserted goes with their insertion)
    expected = (
        "as set out in Section of this Lease"
        if shape == "inserted"
        else "as set out in Section 1 of this Lease"
    )
    assert expected in rejected


def test_deleting_words_around_a_whole_field_inside_one_sentence() -> None:
    out = run(DOCS["simple"](), " as set out in Section 1 of this Lease")
    assert codes(out) == ["applied"]
    assert out.output is not None
    assert live_code(body(out.output)) == []
    assert "The Tenant pays rent, monthly." in view_of(out.output).text


def test_untracked_the_field_is_removed() -> None:
    for shape in ("simple", "split", "nested"):
        out = run(DOCS[shape](), CLAUSE, track=False)
        assert codes(out) == ["applied"], shape
        assert out.output is not None
        root = body(out.output)
        assert root.xpath("//w:fldChar | //w:instrText | //w:fldSimple | //w:del", namespaces=NS) == []
        assert CLAUSE not in view_of(out.output).text


PARTIAL = {
    "complex": lambda: Field(" REF _Ref1 \\r \\h ", "1.2(a)"),
    "simple": lambda: Raw(simple(" REF _Ref1 \\r \\h ", "1.2(a)")),
    "split": lambda: Raw(
        '<w:ins w:id="71" w:author="Opp" w:date="2020-01-01T00:00:00Z">'
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        '<w:r><w:instrText xml:space="preserve"> REF _Ref1 \\r \\h </w:instrText></w:r></w:ins>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>1.2(a)</w:t></w:r>'
        '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
    ),
}


@pytest.mark.parametrize("shape", ["simple", "split"])
@pytest.mark.parametrize("anchor", ["as set out in Section 1.2(", "(a) of this Lease"])
def test_a_field_only_partly_inside_stays_unsupported(shape: str, anchor: str) -> None:
    doc = docx(
        heading(), P("The Tenant pays rent as set out in Section ", PARTIAL[shape](), " of this Lease.")
    )
    out = run(doc, anchor)
    assert codes(out) == ["unsupported"], anchor
    assert "result of a field" in (out.report.edits[0].error.message if out.report.edits[0].error else "")


def test_a_partly_deleted_flat_field_is_typed_over_as_before() -> None:
    """(A field whose code stands beside its result, in one container: deleting part of its
    result is typing over it -- Word deletes the field, the rest of its text stays plain.)"""
    doc = docx(
        heading(), P("The Tenant pays rent as set out in Section ", PARTIAL["complex"](), " of this Lease.")
    )
    out = run(doc, "(a) of this Lease")
    assert codes(out) == ["applied"]
    assert any("typed over" in n for n in out.report.edits[0].notes)


def test_a_field_running_on_past_the_deleted_paragraph_stays_unsupported() -> None:
    doc = docx(
        P(
            "Intro ",
            Raw('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> TOC </w:instrText></w:r>'
                '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>Entry one</w:t></w:r>'),
        ),
        P(Raw('<w:r><w:t>Entry two</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>')),
    )  # fmt: skip
    out = run(doc, "Intro Entry one")
    assert codes(out) == ["unsupported"]


@pytest.mark.slow
def test_libreoffice_accepts_the_field_away_and_rejects_it_back(soffice: str) -> None:
    outputs = {}
    for shape in sorted(DOCS):
        out = run(DOCS[shape](), CLAUSE)
        assert out.output is not None
        outputs[f"{shape}.docx"] = out.output
        outputs[f"{shape}-input.docx"] = DOCS[shape]()
    try:
        found = probe(outputs, soffice)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    for shape in sorted(DOCS):
        got, before = found[f"{shape}.docx"], found[f"{shape}-input.docx"]
        assert got["loaded"], (shape, got.get("error"))
        assert "Section" not in got["accepted"] and "Next clause." in got["accepted"], shape
        assert got["accepted_fields"] == 0, shape
        # rejected: as LibreOffice reads the input, its fields recomputed alike (another author's
        # inserted field goes with their insertion)
        assert "as set out in Section" in got["rejected"] and "of this Lease" in got["rejected"], shape
        if shape != "inserted":  # (LibreOffice recomputes the REF as it rejects: its text may differ)
            assert got["rejected_fields"] == before["stored_fields"] >= 1, shape
        assert got["left_after_accept"] == 0 and got["left_after_reject"] == 0, shape
