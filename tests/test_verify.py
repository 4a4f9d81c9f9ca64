"""Batch verification: every rule and refusal of issue 4, on a small lease built as a real .docx.

The lease has Word-computed clause numbers (``numbering.xml``: ``1.`` headings, ``1.1`` clauses),
a header, two footnotes, a complex field and a simple field, and the typography of real
contracts (curly quotes, NBSPs, dashes, a soft hyphen, an ellipsis, a tab and a line break).
"""

from __future__ import annotations

import io
import itertools
import json
import random
import zipfile
from typing import Any
from xml.sax.saxutils import escape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redline.apply import ApplyOptions, apply_reply
from redline.match.hints import unique_extension
from redline.match.locate import Locator
from redline.match.verify import Verification, verify
from redline.opc.package import Package
from redline.read.build import build_view
from redline.read.view import DocumentView
from redline.text.normalize import normalize
from shared_schema import Edit, EditBatch, EditStatus, MatchKind, parse_edit_reply
from shared_schema.records import LocationRecord, ResultRecord

# -- a small lease as a real package ----------------------------------------------------------

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
CT = "application/vnd.openxmlformats-officedocument.wordprocessingml."
NS = f'xmlns:w="{W_NS}" xmlns:r="{R_NS}"'


def runs(text: str, size: int = 7) -> str:
    """``text`` as runs of about ``size`` characters (cut mid-word too, as Word does);
    ``\\t`` becomes ``w:tab``, ``\\n`` ``w:br`` and U+00AD ``w:softHyphen``."""
    out = []
    for i in range(0, len(text), size):
        parts = []
        for ch in text[i : i + size]:
            if ch in "\t\n\u00ad":
                parts.append({"\t": "<w:tab/>", "\n": "<w:br/>", "\u00ad": "<w:softHyphen/>"}[ch])
            elif parts and parts[-1].startswith("<w:t "):
                parts[-1] = parts[-1][: -len("</w:t>")] + escape(ch) + "</w:t>"
            else:
                parts.append(f'<w:t xml:space="preserve">{escape(ch)}</w:t>')
        out.append("<w:r>" + "".join(parts) + "</w:r>")
    return "".join(out)


def para(*items: str, level: int | None = None) -> str:
    """A paragraph; ``level`` 0 is a numbered heading ("2."), 1 a numbered clause ("2.1")."""
    ppr = ""
    if level is not None:
        style = '<w:pStyle w:val="Heading1"/>' if level == 0 else ""
        ppr = f'<w:pPr>{style}<w:numPr><w:ilvl w:val="{level}"/><w:numId w:val="1"/></w:numPr></w:pPr>'
    return f"<w:p>{ppr}{''.join(items)}</w:p>"


def field(instr: str, result: str) -> str:
    return (
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        f'<w:r><w:instrText xml:space="preserve"> {instr} </w:instrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        f"{runs(result)}"
        '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
    )


def simple_field(instr: str, result: str) -> str:
    return f'<w:fldSimple w:instr=" {instr} ">{runs(result)}</w:fldSimple>'


NUMBERING = (
    f"<w:numbering {NS}>"
    '<w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="multilevel"/>'
    '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="Heading1"/>'
    '<w:lvlText w:val="%1."/></w:lvl>'
    '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/></w:lvl>'
    '</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>'
)
STYLES = (
    f"<w:styles {NS}>"
    '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
    '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/>'
    '<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style></w:styles>'
)


def package(body: str, header: str | None = None, footnotes: list[str] | None = None) -> bytes:
    """A complete .docx: ``body`` paragraphs, an optional header and normal footnotes."""
    sect = '<w:sectPr><w:headerReference w:type="default" r:id="rIdHdr"/></w:sectPr>' if header else ""
    parts = {
        "word/document.xml": f"<w:document {NS}><w:body>{body}{sect}</w:body></w:document>",
        "word/styles.xml": STYLES,
        "word/numbering.xml": NUMBERING,
    }
    rels = {"rIdStyles": ("styles", "styles.xml"), "rIdNum": ("numbering", "numbering.xml")}
    if header is not None:
        parts["word/header1.xml"] = f"<w:hdr {NS}>{header}</w:hdr>"
        rels["rIdHdr"] = ("header", "header1.xml")
    if footnotes is not None:
        notes = "".join(f'<w:footnote w:id="{i + 1}">{n}</w:footnote>' for i, n in enumerate(footnotes))
        parts["word/footnotes.xml"] = (
            f'<w:footnotes {NS}><w:footnote w:type="separator" w:id="-1"><w:p/></w:footnote>'
            f"{notes}</w:footnotes>"
        )
        rels["rIdFn"] = ("footnotes", "footnotes.xml")
    kinds = {"document": "document.main", "styles": "styles", "numbering": "numbering",
             "header1": "header", "footnotes": "footnotes"}  # fmt: skip
    overrides = "".join(
        f'<Override PartName="/{name}" ContentType="{CT}{kinds[name[5:-4]]}+xml"/>' for name in parts
    )
    types = (
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        f'<Default Extension="xml" ContentType="application/xml"/>{overrides}</Types>'
    )
    rel_ns = "http://schemas.openxmlformats.org/package/2006/relationships"
    doc_rels = "".join(
        f'<Relationship Id="{rid}" Type="{REL}{kind}" Target="{target}"/>'
        for rid, (kind, target) in rels.items()
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", types)
        z.writestr(
            "_rels/.rels",
            f'<Relationships xmlns="{rel_ns}"><Relationship Id="rId1" Type="{REL}officeDocument" '
            'Target="word/document.xml"/></Relationships>',
        )
        z.writestr(
            "word/_rels/document.xml.rels", f'<Relationships xmlns="{rel_ns}">{doc_rels}</Relationships>'
        )
        for name, xml in parts.items():
            z.writestr(name, xml)
    return buf.getvalue()


LEASE_BODY = "".join(
    [
        para(runs("Definitions"), level=0),  # 0  "1."
        para(
            runs("\u201cPremises\u201d means the space on the fourth (4th) floor of the Building."), level=1
        ),
        para(
            runs(
                "\u201cOperating Expenses\u201d means all costs Landlord incurs in operating, maintaining "
                "and repairing the Building\u2026 excluding capital expenditures."
            ),
            level=1,
        ),
        para(runs("Rent"), level=0),  # 3  "2."
        para(
            runs(
                "Base Rent. Tenant shall pay Base Rent of $10,000 per month, in advance, on the first day "
                "of each month during the years 2025\u20132030."
            ),
            level=1,
        ),
        para(
            runs(
                "Operating Expenses. Tenant shall pay Tenant\u2019s Proportionate Share of Operating "
                "Expenses within thirty (30) days after receipt of Landlord\u2019s statement."
            ),
            level=1,
        ),
        para(
            runs(
                "Landlord\u2019s statement shall show the Operating Expenses for the prior year in "
                "reasonable "
                "detail,\tby category."
            )
        ),
        para(
            runs(
                "Late Charge. If any Rent is not paid within five (5) days after it is due, Tenant shall pay "
                "a late charge equal to five percent (5%) of the overdue amount."
            ),
            level=1,
        ),
        para(runs("Insurance"), level=0),  # 8  "3."
        para(
            runs(
                "Tenant\u2019s Insurance. Tenant shall maintain commercial general liability insurance of "
                "not less than $2,000,000 per occurrence \u2014 naming Landlord as an additional insured."
            ),
            level=1,
        ),
        para(runs("A certificate of the Tenant's Insurance shall be delivered before the Term begins.")),
        para(
            runs(
                "Waiver. Landlord and Tenant each waive all rights of recovery against the other for any "
                "loss covered by insurance; the pay\u00adment of any deductible is excluded."
            ),
            level=1,
        ),
        para(runs("Notices"), level=0),  # 12 "4."
        para(
            runs(
                "Notices. All notices must be in writing and are effective on receipt, as set out in Section "
            ),
            field("REF _Ref1 \\h", "2.2"),
            runs(" above."),
            level=1,
        ),
        para(runs("Dated "), simple_field("DATE", "March 1, 2025"), runs(" at Oakland,\nCalifornia.")),
        para(runs("Signature: ____________")),
        para(runs("Tenant:\u00a0Bluefin Analytics, Inc.")),  # 16, the last body paragraph
    ]
)
HEADER = para(runs("Harbor Point Lease \u2013 Confidential"))
FOOTNOTES = [
    para(runs("Rent is payable by wire transfer.")),
    para(runs("Interest accrues at the statutory rate.")),
]


@pytest.fixture(scope="module")
def lease_bytes() -> bytes:
    return package(LEASE_BODY, HEADER, FOOTNOTES)


@pytest.fixture(scope="module")
def view(lease_bytes: bytes) -> DocumentView:
    return build_view(Package.from_bytes(lease_bytes))


def run(view: DocumentView, *edits: Edit, revision: str | None = None, hints: bool = True) -> Verification:
    return verify(Locator(view), EditBatch(edits=list(edits), revision=revision), dry_run=True, hints=hints)


def one(view: DocumentView, anchor: str, replacement: str = "REPLACED", **kw: Any) -> ResultRecord:
    return run(view, Edit(anchor=anchor, replacement=replacement, **kw)).results[0]


def test_the_lease_view_has_labels_sections_header_and_footnotes(view: DocumentView) -> None:
    labels = [p.label for p in view.paragraphs if p.story == "body"]
    assert labels[:6] == ["1.", "1.1", "1.2", "2.", "2.1", "2.2"]
    assert view.paragraphs[6].section == "2.2 Operating Expenses"
    assert [p.story for p in view.paragraphs[-3:]] == ["header", "footnote", "footnote"]
    assert "REF" not in view.text and "Section 2.2 above." in view.text


# -- 1. exact ---------------------------------------------------------------------------------


def test_an_exact_anchor_is_located_with_its_paragraph_label_section_and_context(view: DocumentView) -> None:
    anchor = "Tenant shall pay Base Rent of $10,000 per month"
    verification = run(
        view, Edit(anchor=anchor, replacement="Tenant shall pay Base Rent of $12,000 per month")
    )
    result = verification.results[0]
    assert result.status == EditStatus.VERIFIED and result.error is None
    assert result.match == MatchKind.EXACT and result.tolerances == []
    (loc,) = result.locations
    assert view.text[loc.start : loc.end] == anchor
    assert (loc.paragraph, loc.label, loc.section, loc.part) == (
        4,
        "2.1",
        "2.1 Base Rent",
        "word/document.xml",
    )
    assert loc.context is not None and anchor in loc.context
    (plan,) = verification.planned
    assert (plan.start, plan.end, plan.exact) == (loc.start, loc.end, True)


# -- 2. tolerant --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "anchor, document, tolerances",
    [
        ("Tenant's Proportionate Share", "Tenant\u2019s Proportionate Share", ["quotes"]),
        ('"Premises" means the space', "\u201cPremises\u201d means the space", ["quotes"]),
        ("during the years 2025-2030", "during the years 2025\u20132030", ["dashes"]),
        ("$2,000,000 per occurrence - naming Landlord", "$2,000,000 per occurrence \u2014 naming Landlord",
         ["dashes"]),
        ("Tenant: Bluefin Analytics", "Tenant:\u00a0Bluefin Analytics", ["whitespace"]),
        ("in reasonable detail, by category", "in reasonable detail,\tby category", ["whitespace"]),
        ("at Oakland, California", "at Oakland,\nCalifornia", ["whitespace"]),
        ("Operating Expenses. Tenant shall pay   Tenant\u2019s",
         "Operating Expenses. Tenant shall pay Tenant\u2019s",
         ["whitespace"]),
        ("Landlord\u2019s statement. Landlord\u2019s statement shall show",
         "Landlord\u2019s statement.\nLandlord\u2019s statement shall show",  # a paragraph break
         ["whitespace"]),
        ("the payment of any deductible", "the pay\u00adment of any deductible", ["invisible"]),
        ("the pay\u200bment of any deduct\u00adible", "the pay\u00adment of any deductible", ["invisible"]),
        ("repairing the Building... excluding", "repairing the Building\u2026 excluding", ["ellipsis"]),
        ("Landlord's statement shall show the Operating Expenses for the prior year in reasonable detail, by",
         "Landlord\u2019s statement shall show the Operating Expenses for the prior year in reasonable "
         "detail,\tby",
         ["whitespace", "quotes"]),
    ],
)  # fmt: skip
def test_a_typographic_variant_is_located_as_normalized_naming_the_tolerances(
    view: DocumentView, anchor: str, document: str, tolerances: list[str]
) -> None:
    result = one(view, anchor)
    assert result.status == EditStatus.VERIFIED, result.error
    assert result.match == MatchKind.NORMALIZED
    assert result.tolerances == tolerances
    (loc,) = result.locations
    assert view.text[loc.start : loc.end] == document


def test_a_quote_found_verbatim_once_but_as_a_typographic_variant_elsewhere_is_ambiguous(
    view: DocumentView,
) -> None:
    # "Tenant’s Insurance" (curly) is in 3.1; "Tenant's Insurance" (straight) in the next paragraph.
    for anchor in ("Tenant\u2019s Insurance", "Tenant's Insurance"):
        result = one(view, anchor)
        assert result.status == EditStatus.AMBIGUOUS
        assert [loc.paragraph for loc in result.locations] == [9, 10]
        assert result.match == MatchKind.NORMALIZED


# -- not found: only typography is forgiven ----------------------------------------------------


@pytest.mark.parametrize(
    "anchor, difference, nearest",
    [
        ("Tenant shall pay all Base Rent of $10,000 per month", "your quote adds 'all'",
         "Tenant shall pay Base Rent of $10,000 per month"),
        ("Tenant shall pay Rent of $10,000 per month, in advance", "your quote is missing 'Base'",
         "Tenant shall pay Base Rent of $10,000 per month, in advance"),
        ("within thirty (30) days after receipt of Tenant\u2019s statement",
         "your quote has 'Tenant' where the document has 'Landlord'",
         "within thirty (30) days after receipt of Landlord\u2019s statement"),
        ("a late charge equal to five percent (5%) of the Overdue amount",
         "your quote has 'Overdue' where the document has 'overdue' (case differs)",
         "a late charge equal to five percent (5%) of the overdue amount"),
    ],
)  # fmt: skip
def test_a_word_added_dropped_changed_or_recased_is_not_found_with_the_nearest_passage(
    view: DocumentView, anchor: str, difference: str, nearest: str
) -> None:
    result = one(view, anchor)
    assert result.status == EditStatus.NOT_FOUND
    assert result.match is None and result.locations == []
    error = result.error
    assert error is not None and error.code == "not_found"
    assert error.nearest == nearest
    assert difference in error.message
    assert error.nearest_location is not None
    assert view.text[error.nearest_location.start : error.nearest_location.end] == nearest
    assert error.hint is not None and nearest in error.hint


def test_a_quote_like_nothing_in_the_document_is_not_found_without_a_passage(view: DocumentView) -> None:
    result = one(view, "The Purchaser shall indemnify the Vendor against all third-party claims")
    assert result.status == EditStatus.NOT_FOUND
    assert result.error is not None and result.error.nearest is None and result.error.hint


# -- 3. counting ------------------------------------------------------------------------------


def test_an_ambiguous_anchor_lists_every_candidate_and_a_unique_extension_for_each(
    view: DocumentView,
) -> None:
    result = one(view, "Tenant shall pay")
    assert result.status == EditStatus.AMBIGUOUS
    error = result.error
    assert error is not None and error.actual_matches == 3
    assert [(c.paragraph, c.label, c.section) for c in error.candidates] == [
        (4, "2.1", "2.1 Base Rent"),
        (5, "2.2", "2.2 Operating Expenses"),
        (7, "2.3", "2.3 Late Charge"),
    ]
    assert all(c.context and "Tenant shall pay" in c.context for c in error.candidates)
    assert error.candidates == result.locations
    assert error.hint is not None
    locator = Locator(view)
    for cand in error.candidates:
        ext = unique_extension(locator, "Tenant shall pay", cand.start, cand.end)
        assert ext is not None and f"\u201c{ext}\u201d" in error.hint
        assert cand.unique_quote == ext  # also as structured data
        assert "Tenant shall pay" in ext
        found = locator.find(ext)
        (only,) = found.ranges  # really unique ...
        assert only[0] <= cand.start and cand.end <= only[1]  # ... and it is this candidate
    assert "Base Rent. Tenant shall pay" in error.hint or "Tenant shall pay Base" in error.hint


def test_unique_extensions_are_the_shortest_and_may_grow_either_way(view: DocumentView) -> None:
    locator = Locator(view)
    text = view.text
    start = text.index("Tenant shall pay a late")
    assert unique_extension(locator, "Tenant shall pay", start, start + 16) == "Tenant shall pay a"
    start = text.index("Tenant shall pay Tenant\u2019s")
    ext = unique_extension(locator, "Tenant shall pay", start, start + 16)
    assert ext == "Tenant shall pay Tenant\u2019s"
    start = text.index("Landlord\u2019s statement shall")
    # "Landlord’s statement" occurs twice; one word to the left is shorter than to the right
    assert unique_extension(locator, "Landlord\u2019s statement", start, start + 20) == (
        "Landlord\u2019s statement shall"
    )


def test_expected_matches_equal_to_the_count_applies_to_every_occurrence(view: DocumentView) -> None:
    verification = run(
        view, Edit(anchor="Tenant shall pay", replacement="Tenant must pay", expected_matches=3)
    )
    result = verification.results[0]
    assert result.status == EditStatus.VERIFIED
    assert [loc.paragraph for loc in result.locations] == [4, 5, 7]
    assert [(p.start, p.end) for p in verification.planned] == [
        (loc.start, loc.end) for loc in result.locations
    ]


@pytest.mark.parametrize("expected", [1, 2, 4])
def test_expected_matches_unequal_to_the_count_is_a_count_mismatch(view: DocumentView, expected: int) -> None:
    verification = run(
        view, Edit(anchor="Tenant shall pay", replacement="Tenant must pay", expected_matches=expected)
    )
    result = verification.results[0]
    assert result.status == EditStatus.COUNT_MISMATCH
    assert result.error is not None and result.error.actual_matches == 3
    assert f"expected {expected}" in result.error.message and "has 3" in result.error.message
    assert [c.paragraph for c in result.error.candidates] == [4, 5, 7]
    assert verification.planned == []


def test_self_overlapping_occurrences_are_refused_not_handed_to_the_writer(view: DocumentView) -> None:
    # "______" occurs 7 times, overlapping, in "____________"
    verification = run(view, Edit(anchor="______", replacement="", expected_matches=7))
    result = verification.results[0]
    assert len(result.locations) == 7
    assert result.status == EditStatus.OVERLAP
    assert result.error is not None and "overlap one another" in result.error.message
    assert result.error.related == []
    assert verification.planned == []
    ranges = sorted((p.start, p.end) for p in verification.planned)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(ranges))


# -- 4. section scope ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "section", ["2.2", "Operating Expenses", "2.2 Operating Expenses", "Section 2.2", "2", "Rent"]
)
def test_an_anchor_inside_the_named_section_is_verified(view: DocumentView, section: str) -> None:
    result = one(view, "shall show the Operating Expenses for the prior year", section=section)
    assert result.status == EditStatus.VERIFIED, result.error


def test_an_anchor_outside_the_named_section_is_out_of_scope_naming_where_it_landed(
    view: DocumentView,
) -> None:
    result = one(view, "a late charge equal to five percent (5%)", section="2.2")
    assert result.status == EditStatus.OUT_OF_SCOPE
    error = result.error
    assert error is not None
    assert "not in section \u201c2.2 Operating Expenses\u201d" in error.message
    assert "it occurs in section \u201c2.3 Late Charge\u201d, paragraph 7" in error.message
    assert error.hint is not None and "set `section` to \u201c2.3\u201d" in error.hint
    assert [c.paragraph for c in error.candidates] == [7]
    result = one(view, "Landlord and Tenant each waive", section="Rent")
    assert result.status == EditStatus.OUT_OF_SCOPE
    assert result.error is not None and "section \u201c3.2 Waiver\u201d, paragraph 11" in result.error.message


def test_a_section_the_document_does_not_have_is_out_of_scope(view: DocumentView) -> None:
    result = one(view, "a late charge equal to five percent (5%)", section="9.9")
    assert result.status == EditStatus.OUT_OF_SCOPE
    assert result.error is not None and "no section named \u201c9.9\u201d" in result.error.message


# -- 6. batch checks -----------------------------------------------------------------------------

OVERLAPPING = [
    Edit(anchor="Tenant shall pay Base Rent", replacement="Tenant shall pay rent", id="a"),
    Edit(anchor="Base Rent of $10,000 per month", replacement="Base Rent of $12,000 per month", id="b"),
    Edit(anchor="five percent (5%) of the overdue amount",
         replacement="ten percent (10%) of the overdue amount",
         id="c"),
    Edit(anchor="thirty (30) days after receipt", replacement="forty-five (45) days after receipt", id="d"),
    Edit(anchor="days after receipt of Landlord\u2019s statement", replacement="days after a statement",
         id="e"),
    Edit(anchor="Tenant shall pay a late charge", replacement="Tenant shall pay a fee", id="f"),
]  # fmt: skip


def test_overlapping_edits_are_both_refused_naming_each_other(view: DocumentView) -> None:
    results = run(view, *OVERLAPPING).results
    by_id = {r.id: r for r in results}
    assert {i: r.status for i, r in by_id.items()} == {
        "a": EditStatus.OVERLAP, "b": EditStatus.OVERLAP, "c": EditStatus.VERIFIED,
        "d": EditStatus.OVERLAP, "e": EditStatus.OVERLAP, "f": EditStatus.VERIFIED,
    }  # fmt: skip
    a, b, d, e = by_id["a"], by_id["b"], by_id["d"], by_id["e"]
    assert a.error is not None and a.error.related == [1] and "edit 1" in a.error.message
    assert b.error is not None and b.error.related == [0] and "edit 0" in b.error.message
    assert d.error is not None and d.error.related == [4]
    assert e.error is not None and e.error.related == [3]


@settings(max_examples=30, deadline=None)
@given(st.permutations(OVERLAPPING))
def test_the_verdicts_do_not_depend_on_the_order_of_the_edits(view: DocumentView, edits: list[Edit]) -> None:
    results = run(view, *edits).results
    status = {r.id: r.status for r in results}
    assert status == {r.id: r.status for r in run(view, *OVERLAPPING).results}
    for r in results:  # each names the others by their index in this batch
        if r.error is not None:
            assert {results[j].id for j in r.error.related} == {
                "a": {"b"},
                "b": {"a"},
                "d": {"e"},
                "e": {"d"},
            }[r.id or ""]


@pytest.mark.parametrize(
    "anchor, replacement",
    [
        ("within thirty (30) days", "within thirty (30) days"),
        ("Tenant\u2019s Proportionate Share", "Tenant's Proportionate Share"),  # typography only
        ("in reasonable detail,\tby category", "in reasonable detail, by category"),
    ],
)
def test_a_replacement_equal_to_the_anchor_is_no_change(
    view: DocumentView, anchor: str, replacement: str
) -> None:
    result = one(view, anchor, replacement)
    assert result.status == EditStatus.NO_CHANGE
    assert result.error is not None and "change nothing" in result.error.message


def test_a_batch_written_against_another_revision_is_stale_every_edit(view: DocumentView) -> None:
    edits = [
        Edit(anchor="Tenant shall pay Base Rent", replacement="x"),
        Edit(anchor="no such text", replacement="y"),
    ]
    verification = run(view, *edits, revision="sha256:0000")
    assert [r.status for r in verification.results] == [EditStatus.STALE, EditStatus.STALE]
    for r in verification.results:
        assert r.error is not None and "re-read the document" in (r.error.hint or "").lower()
    assert verification.planned == []
    same = run(view, *edits, revision=view.revision)
    assert [r.status for r in same.results] == [EditStatus.VERIFIED, EditStatus.NOT_FOUND]


# -- 7. unsupported ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "anchor, reason",
    [
        ("Dated March 1, 2025 at Oakland", "field"),  # a w:fldSimple result (DATE): not typed over
        ("Tenant:\u00a0Bluefin Analytics, Inc.\nHarbor Point Lease", "one part of the document into another"),
        ("payable by wire transfer.\nInterest accrues", "one footnote into the next"),
    ],
)
def test_anchors_over_field_results_or_across_stories_are_unsupported(
    view: DocumentView, anchor: str, reason: str
) -> None:
    result = one(view, anchor)
    assert result.status == EditStatus.UNSUPPORTED
    assert result.error is not None and reason in result.error.message


@pytest.mark.parametrize("anchor", ["as set out in Section 2.2 above", "2.2 above."])
def test_typing_over_a_complex_fields_result_deletes_the_field_and_says_so(
    view: DocumentView, anchor: str
) -> None:
    result = one(view, anchor)  # the REF's result "2.2" becomes "REPLACED": the field goes
    assert result.status == EditStatus.VERIFIED, result.error
    assert len(result.notes) == 1 and "\u201c2.2\u201d is deleted" in result.notes[0]


def test_text_beside_a_field_and_inside_one_header_or_footnote_is_supported(view: DocumentView) -> None:
    for anchor, part in [
        ("All notices must be in writing", "word/document.xml"),
        ("at Oakland,\nCalifornia", "word/document.xml"),
        ("Harbor Point Lease", "word/header1.xml"),
        ("Interest accrues at the statutory rate", "word/footnotes.xml"),
    ]:
        result = one(view, anchor)
        assert result.status == EditStatus.VERIFIED, (anchor, result.error)
        assert result.locations[0].part == part


# -- hints are only hints -----------------------------------------------------------------------------


def test_without_hints_the_verdicts_candidates_and_counts_are_the_same(view: DocumentView) -> None:
    edits = [*OVERLAPPING, Edit(anchor="Tenant shall pay", replacement="x"),
             Edit(anchor="Tenant shall pay all Base Rent", replacement="y"),
             Edit(anchor="Tenant shall pay", replacement="z", expected_matches=2)]  # fmt: skip
    with_hints, without = run(view, *edits).results, run(view, *edits, hints=False).results

    def places(locs: list[LocationRecord]) -> list[LocationRecord]:  # hints add each candidate's unique quote
        return [LocationRecord(**{**loc.values(), "unique_quote": None}) for loc in locs]

    for a, b in zip(with_hints, without, strict=True):
        assert (a.status, a.match, places(a.locations)) == (b.status, b.match, b.locations)
        assert (a.error is None) == (b.error is None)
        if a.error is not None and b.error is not None:
            assert (a.error.code, places(a.error.candidates), a.error.actual_matches) == (
                b.error.code, b.error.candidates, b.error.actual_matches)  # fmt: skip
    assert without[-2].error is not None and without[-2].error.nearest is None


# -- the whole flow, dry run -------------------------------------------------------------------------


def test_a_dry_run_reports_every_edit_in_the_interface_shape(lease_bytes: bytes) -> None:
    reply = json.dumps(
        {"edits": [
            {"anchor": "Tenant shall pay Base Rent of $10,000",
             "replacement": "Tenant shall pay Base Rent of $9,000"},
            {"anchor": "Tenant's Proportionate Share", "replacement": "Tenant's share"},
            {"anchor": "Tenant shall pay", "replacement": "Tenant must pay"},
            {"anchor": "Tenant shall pay all Base Rent", "replacement": "x"},
        ]}
    )  # fmt: skip
    outcome = apply_reply(lease_bytes, reply, ApplyOptions(dry_run=True))
    assert outcome.output is None and outcome.exit_code == 1
    report = json.loads(outcome.report.model_dump_json())
    edits = report["edits"]
    assert [e["status"] for e in edits] == ["verified", "verified", "ambiguous", "not_found"]
    assert [e["match"] for e in edits] == ["exact", "normalized", "exact", None]
    loc = edits[0]["locations"][0]
    assert {"part", "paragraph", "start", "end", "label", "section"} <= set(loc)
    assert edits[0]["error"] is None
    assert len(edits[2]["locations"]) == 3 and edits[2]["error"]["code"] == "ambiguous"
    assert "your quote adds 'all'" in edits[3]["error"]["message"]
    assert {"code", "message", "hint"} <= set(edits[3]["error"])


def test_many_random_batches_never_plan_overlapping_ranges(view: DocumentView) -> None:
    rng = random.Random(7)
    words = view.text.split(" ")
    for _ in range(60):
        edits = []
        for _ in range(rng.randrange(1, 8)):
            k = rng.randrange(len(words) - 4)
            edits.append(Edit(anchor=" ".join(words[k : k + rng.randrange(1, 5)]) or "x", replacement="Z",
                              expected_matches=rng.choice([None, None, 1, 2, 3])))  # fmt: skip
        verification = run(view, *edits, hints=False)
        ranges = sorted((p.start, p.end) for p in verification.planned)
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(ranges))
        for r in verification.results:
            if r.status == EditStatus.VERIFIED:
                assert len(r.locations) in (1, edits[r.index].expected_matches)
                assert all(
                    normalize(view.text[loc.start : loc.end]) == normalize(r.anchor) for loc in r.locations
                )


def test_verifying_leaves_the_garbage_collector_as_it_found_it(view: DocumentView) -> None:
    import gc

    edits = [Edit(anchor="Tenant shall pay Base Rent", replacement="x")] * 12
    assert gc.isenabled()
    run(view, *edits)
    assert gc.isenabled()
    gc.disable()
    try:
        run(view, *edits)
        assert not gc.isenabled()
    finally:
        gc.enable()
    kept = [object()]  # an application that froze its own objects keeps them frozen
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        run(view, *edits)
        # Frozen objects that die on the way (a cache entry replaced) leave the permanent
        # generation, so the count may fall by a few; an unfreeze would empty it, a freeze
        # would grow it.
        after = gc.get_freeze_count()
        assert frozen - 1000 < after <= frozen and gc.isenabled()
    finally:
        gc.unfreeze()
    assert kept


def test_results_and_plans_carry_each_edits_place_in_the_reply() -> None:
    doc = package(para(runs("Tenant shall pay rent monthly.")) + para(runs("Landlord shall fix the roof.")))
    reply = json.dumps(
        [
            {"nonsense": 1},
            {"anchor": "pay rent monthly", "replacement": "pay rent quarterly"},
            "not an edit",
            {"anchor": "fix the roof", "replacement": "fix the roof promptly"},
        ]
    )
    outcome = apply_reply(doc, reply, ApplyOptions(date="2026-01-01T00:00:00Z"))
    assert [(e.index, e.status.value) for e in outcome.report.edits] == [
        (0, "invalid"), (1, "applied"), (2, "invalid"), (3, "applied"),
    ]  # fmt: skip
    batch = parse_edit_reply(reply)
    assert batch is not None
    planned = verify(Locator(build_view(Package.from_bytes(doc))), batch).planned
    assert sorted(p.edit_index for p in planned) == [1, 3]
    # an edit made in code has no place in a reply: it reports its place in the batch
    made = verify(Locator(build_view(Package.from_bytes(doc))), [Edit(anchor="the roof", replacement="it")])
    assert made.results[0].index == 0 and made.planned[0].edit_index == 0
