"""Issue 35, finishing: typed numbers nest under typed, styled and formatted headings by rank,
and a table's paragraphs head nothing after the table (cover pages, tables among clauses).

Generated documents (``testing.docbuild``), each case judged by where an edit citing the
section lands (``verify``) and by the outline's parents; the three readers (tree walk, scanner,
stream) must find the same table cells, and a read-back after an edit in a cell the same as a
full read (``tests/test_readback.py``'s key).
"""

from __future__ import annotations

import json

import pytest

from redline.apply import ApplyOptions, apply_reply
from redline.match.locate import Locator
from redline.match.verify import verify
from redline.opc.package import Package
from redline.read.build import build_view, flatten, stories_of, verify_only_view
from redline.read.headings import sections_named
from redline.read.labels import numbering_of
from redline.read.outline import Head
from redline.read.view import DocumentView
from shared_schema import Edit, EditBatch, EditStatus
from shared_schema.records import ResultRecord
from testing.docbuild import B, P, Table, docx
from tests.support import view_of
from tests.test_readback import assert_same_as_full

HEADINGS = (
    '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/>'
    '<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:rPr><w:b/></w:rPr></w:style>'
    '<w:style w:type="paragraph" w:styleId="Heading3"><w:name w:val="heading 3"/>'
    '<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr><w:rPr><w:b/></w:rPr></w:style>'
)


def check(view: DocumentView, anchor: str, section: str) -> ResultRecord:
    edit = Edit(anchor=anchor, replacement=anchor + " (amended)", section=section)
    return verify(Locator(view), EditBatch(edits=[edit]), dry_run=True).results[0]


def lands(view: DocumentView, anchor: str, section: str) -> int | None:
    """The paragraph an edit quoting ``anchor`` and citing ``section`` is applied at, or None."""
    result = check(view, anchor, section)
    if result.status != EditStatus.VERIFIED:
        return None
    [loc] = result.locations
    return loc.paragraph


def heads(view: DocumentView) -> dict[str, Head]:
    """The sections by their citation (a heading's is its text)."""
    return {h.cite: h for h in view.outline.heads}


def index_of(view: DocumentView, start: str) -> int:
    return next(p.index for p in view.paragraphs if view.paragraph_text(p).startswith(start))


@pytest.mark.parametrize("level", [1, 2, 3])
def test_typed_numbers_nest_under_an_unnumbered_heading_of_any_level(level: int) -> None:
    style = f"Heading{level}"
    view = view_of(
        docx(
            P("Payment Terms", style=style),
            P("1. The Buyer pays the price. The price is fixed."),
            P("1.1 The price is due on delivery. The price is fixed."),
            P("(a) by wire transfer; The price is fixed."),
            P("Termination", style=style),
            P("2. Either party may end this Agreement. The price is fixed."),
            P("2.1 Notice is given in writing. The price is fixed."),
            styles=HEADINGS,
        )
    )
    by = heads(view)
    payment, termination = by["Payment Terms"], by["Termination"]
    assert [h.cite for h in payment.children] == ["1"]
    assert by["1"].children[0].cite == "1.1"
    assert by["1.1"].children[0].cite == "1.1(a)"
    assert [h.cite for h in termination.children] == ["2"]
    assert termination.parent is None and payment.last == 3
    # the heading's text names everything under it, and only that
    assert lands(view, "by wire transfer", "Payment Terms") == 3
    assert lands(view, "Notice is given in writing", "Termination") == 6
    assert check(view, "by wire transfer", "Termination").status == EditStatus.OUT_OF_SCOPE
    # "The price is fixed." is in every clause: the cite picks the one
    assert check(view, "The price is fixed", "1.1").status == EditStatus.AMBIGUOUS  # 1.1 and its (a)
    assert lands(view, "The price is fixed", "1.1(a)") == 3
    assert lands(view, "The price is fixed", "2.1") == 6


def test_headings_of_three_levels_over_typed_numbers_nest_by_rank() -> None:
    view = view_of(
        docx(
            P("General Terms", style="Heading1"),
            P("Payment", style="Heading2"),
            P("1. The Buyer pays monthly in arrears."),
            P("1.1 Late sums bear interest at four per cent."),
            P("Invoices", style="Heading3"),
            P("1.2 The Seller invoices on the first day of the month."),
            P("2. The Buyer pays the taxes on the price."),
            P("Termination", style="Heading2"),
            P("3. Either party may terminate on notice."),
            P("Other Terms", style="Heading1"),
            P("4. This Agreement is the whole agreement."),
            styles=HEADINGS,
        )
    )
    by = heads(view)
    general, payment, invoices = by["General Terms"], by["Payment"], by["Invoices"]
    assert payment.parent is general and invoices.parent is payment  # a heading ranks above "1."
    assert by["1.2"].parent is invoices
    assert by["2"].parent is invoices  # typed under the open heading
    assert by["Termination"].parent is general
    assert by["3"].parent is by["Termination"]
    assert by["4"].parent is by["Other Terms"]
    assert lands(view, "bear interest at four", "Payment") == 3
    assert lands(view, "terminate on notice", "General Terms") == 8
    assert check(view, "terminate on notice", "Payment").status == EditStatus.OUT_OF_SCOPE
    assert check(view, "whole agreement", "General Terms").status == EditStatus.OUT_OF_SCOPE


def test_a_typed_article_holds_its_typed_clauses_and_headings_between() -> None:
    view = view_of(
        docx(
            P("ARTICLE I DEFINITIONS"),
            P("1. Words have the meanings given in this Article."),
            P("2. Headings do not affect the meaning."),
            P("Article II Payment", style="Heading1"),
            P("Fees", style="Heading2"),
            P("1. The Buyer pays the fees monthly."),
            P("2. The fees exclude taxes."),
            P("ARTICLE III TERM"),
            P("1. The term is two years from signing."),
            styles=HEADINGS,
        )
    )
    by = heads(view)
    first, second = by["ARTICLE I"], by["Article II"]
    assert [h.cite for h in first.children] == ["1", "2"]
    assert [h.title for h in second.children] == ["Fees"]
    assert [h.cite for h in by["Fees"].children] == ["1", "2"]
    assert lands(view, "fees exclude taxes", "Article II, 2") == 6
    assert lands(view, "fees exclude taxes", "Article 2, clause 2") == 6
    assert lands(view, "Headings do not affect", "Article I, 2") == 2
    assert lands(view, "two years from signing", "Article III, clause 1") == 8
    assert check(view, "fees exclude taxes", "Article I, 2").status == EditStatus.OUT_OF_SCOPE


def test_a_table_among_clauses_lies_in_its_clause_and_owns_nothing_after_it() -> None:
    view = view_of(
        docx(
            P("1. Fees. The fees are set out below."),
            Table(
                [
                    [P("1. Setup"), P("The setup fee is one thousand.")],
                    [P("2. Monthly"), P("The fee is ten.")],
                ]
            ),
            P("The fees exclude value added tax at the current rate."),
            P("1.1 Fees are paid in advance each month."),
            P("2. Term. The term is two years."),
            Table([[P("Heading in a cell", style="Heading1"), P("A cell's text under it.")]]),
            P("The term renews for one year at a time."),
        )
    )
    by = heads(view)
    fees = next(h for h in view.outline.heads if h.title == "1 Fees")
    term = next(h for h in view.outline.heads if h.title == "2 Term")
    vat = index_of(view, "The fees exclude value")
    renews = index_of(view, "The term renews")
    assert view.paragraphs[vat].node is fees  # not the cell's "2."
    assert view.paragraphs[renews].node is term  # not the heading in the cell
    assert by["1.1"].parent is fees
    cell_heads = [h for h in view.outline.heads if view.paragraphs[h.index].cell]
    assert cell_heads and all(
        h.last < vat or (vat < h.index < renews and h.last < renews) for h in cell_heads
    )
    assert term.parent is None and fees.last == index_of(view, "2. Term") - 1
    assert lands(view, "exclude value added tax", "Clause 1") == vat
    assert lands(view, "renews for one year", "Section 2") == renews
    assert lands(view, "setup fee is one thousand", "1") is not None  # the table is clause 1's


def test_a_cover_page_table_heads_no_clause_and_no_preamble() -> None:
    view = view_of(
        docx(
            Table(
                [
                    [P("Subject of the Contract", style="Heading1"), P("Works on the security system.")],
                    [P("Price", style="Heading1"), P("39,921,700.00 roubles")],
                    [P("1. Code"), P("0410")],
                ]
            ),
            P("STATE CONTRACT No 0172"),
            P("The Committee, hereinafter the Customer, and the Contractor agree as follows."),
            P("1.\tSUBJECT OF THE CONTRACT"),
            P("1.1.\tThe Contractor performs the works on the Customer's order."),
            P("2.\tPRICE"),
            P("2.1.\tThe price is 39,921,700.00 roubles for all of the works."),
        )
    )
    preamble = index_of(view, "The Committee")
    assert view.paragraphs[preamble].node is None
    assert view.paragraphs[index_of(view, "STATE CONTRACT")].node is None
    subject = next(h for h in view.outline.heads if h.title == "1 SUBJECT OF THE CONTRACT")
    assert subject.parent is None and [h.cite for h in subject.children] == ["1.1"]
    assert lands(view, "performs the works", "Clause 1.1") == index_of(view, "1.1.")
    assert lands(view, "price is 39,921,700.00 roubles", "2.1") == index_of(view, "2.1.")
    # the preamble is in no clause: citing the cell's heading does not reach it
    assert check(view, "hereinafter the Customer", "Price").status == EditStatus.OUT_OF_SCOPE


def test_a_formatted_heading_holds_the_typed_clauses_under_it() -> None:
    view = view_of(
        docx(
            P("1. Definitions. Words mean what they say in this Agreement."),
            P(B("Payment")),
            P("2. The Buyer pays the price within thirty days of the invoice."),
            P("2.1 Late sums bear interest at four per cent a year."),
            P("3. The Buyer pays the taxes on the price as they fall due."),
            P(B("Termination")),
            P("4. Either party may terminate this Agreement on notice."),
            P("5. Termination does not affect rights already accrued."),
        )
    )
    assert lands(view, "taxes on the price", "Payment") == 4
    assert lands(view, "bear interest at four", "Payment") == 3
    assert lands(view, "rights already accrued", "Termination") == 7
    assert check(view, "terminate this Agreement on notice", "Payment").status == EditStatus.OUT_OF_SCOPE
    assert check(view, "Words mean what they say", "Payment").status == EditStatus.OUT_OF_SCOPE
    assert [h.cite for h in view.outline.heads] == ["1", "2", "2.1", "3", "4", "5"]  # the outline as before


def test_a_formatted_line_in_a_table_cell_heads_nothing_after_the_table() -> None:
    view = view_of(
        docx(
            Table([[[P(B("Parties")), P("The Customer and the Supplier named on the cover page.")]]]),
            P("This Agreement is made on the date of the last signature below, by the parties."),
        )
    )
    found = sections_named(view, "Parties")
    assert len(found) == 1 and found[0].last == index_of(view, "The Customer and")
    assert check(view, "last signature below", "Parties").status == EditStatus.OUT_OF_SCOPE


NESTED = docx(
    P("1. Scope. The scope is as follows."),
    Table(
        [[[P("2. Outer cell"), Table([[P("3. Inner cell"), P("inner text")]]), P("after the inner table")]]]
    ),
    P("Body text after the tables, of clause one."),
    P("2. Term. The term is two years."),
)


def test_every_reader_finds_the_same_table_cells() -> None:
    views = [
        build_view(Package.from_bytes(NESTED)),
        flatten(stories_of(Package.from_bytes(NESTED)), "", numbering_of(Package.from_bytes(NESTED))),
        verify_only_view(Package.from_bytes(NESTED, stream_main=True), piece=64),
    ]
    cells = [[(view.paragraph_text(p), p.cell) for p in view.paragraphs] for view in views]
    assert cells[0] == cells[1] == cells[2]
    assert dict(cells[0]) == {
        "1. Scope. The scope is as follows.": 0, "2. Outer cell": 1, "3. Inner cell": 2, "inner text": 2,
        "after the inner table": 1, "Body text after the tables, of clause one.": 0,
        "2. Term. The term is two years.": 0,
    }  # fmt: skip
    view = views[0]
    body = index_of(view, "Body text after")
    node = view.paragraphs[body].node
    assert node is not None and node.cite == "1"


@pytest.mark.parametrize("anchor", ["inner text", "Outer cell", "after the inner table", "Body text after"])
def test_an_edit_in_or_beside_a_table_reads_back_as_a_full_read(anchor: str) -> None:
    reply = json.dumps({"edits": [{"anchor": anchor, "replacement": anchor + " (amended)"}]})
    outcome = apply_reply(NESTED, reply, ApplyOptions(date="2026-01-01T00:00:00Z"))
    assert outcome.report.edits[0].status.value == "applied"
    assert_same_as_full(outcome)


# -- a cite that names the place: a repeated anchor, described clauses, run-in titles ---------

REPEATED = docx(
    P("1. Payment. The Buyer pays within thirty days of the invoice."),
    P("2. Delivery. The Seller delivers within thirty days of the order."),
    P("3. Notices. Notices are given within thirty days of the event."),
    P("(a) by post, within thirty days of the event;"),
    P("Governing Law", style="Heading1"),
    P("4. Law. This Agreement is governed by English law."),
)


@pytest.mark.parametrize(
    ("section", "paragraph"),
    [("2", 1), ("Clause 2", 1), ("Section 2", 1), ("\u00a7 2", 1), ("2. Delivery", 1), ("Delivery", 1),
     ("the Delivery clause", 1), ("1", 0), ("3(a)", 3)],
)  # fmt: skip
def test_a_repeated_anchor_is_applied_at_its_one_occurrence_in_the_cited_clause(
    section: str, paragraph: int
) -> None:
    view = view_of(REPEATED)
    anchor = "within thirty days of the" if paragraph != 3 else "within thirty days of the event"
    result = check(view, anchor, section)
    assert result.status == EditStatus.VERIFIED, (section, result.error)
    assert [loc.paragraph for loc in result.locations] == [paragraph]
    assert any("which `section` names" in note for note in result.notes)


def test_a_repeated_anchor_stays_ambiguous_unless_the_cite_picks_one() -> None:
    view = view_of(REPEATED)
    assert check(view, "within thirty days of the", "3").status == EditStatus.AMBIGUOUS  # 3 and 3(a)
    assert check(view, "within thirty days of the", "Governing Law").status == EditStatus.AMBIGUOUS  # none
    plain = Edit(anchor="within thirty days of the", replacement="x")
    assert verify(Locator(view), [plain], dry_run=True).results[0].status == EditStatus.AMBIGUOUS
    counted = Edit(anchor="within thirty days of the", replacement="x", section="2", expected_matches=4)
    assert verify(Locator(view), [counted], dry_run=True).results[0].status == EditStatus.OUT_OF_SCOPE


@pytest.mark.parametrize(
    "section",
    ["the Governing Law clause", "Governing Law clause", "the governing law section",
     "the clause headed Governing Law", "the \u201cGoverning Law\u201d provision"],
)  # fmt: skip
def test_a_clause_described_by_its_title_is_named(section: str) -> None:
    view = view_of(REPEATED)
    assert lands(view, "governed by English law", section) == 5, section
    assert check(view, "delivers within thirty days", section).status == EditStatus.OUT_OF_SCOPE


def test_a_heading_styled_clause_is_named_by_its_run_in_title() -> None:
    view = view_of(
        docx(
            P("1. Termination. Either party may terminate on notice.", style="Heading2"),
            P("2. Force Majeure: Neither party is liable for events beyond control.", style="Heading2"),
            styles=HEADINGS,
        )
    )
    assert lands(view, "terminate on notice", "Termination") == 0
    assert lands(view, "terminate on notice", "1 Termination") == 0
    assert lands(view, "events beyond control", "the Force Majeure clause") == 1
    assert view.paragraphs[0].section == "1 Termination. Either party may terminate on notice."  # as before


def test_a_number_in_a_table_yields_to_the_body_clause_of_that_number() -> None:
    view = view_of(
        docx(
            Table([[P("1. Code"), P("0410 budget code")]]),
            P("1. Subject. The Contractor performs the works."),
            P("2. Price. The price is fixed."),
        )
    )
    assert [h.index for h in view.outline.named("1")] == [2]
    assert lands(view, "performs the works", "Clause 1") == 2
    assert check(view, "0410 budget code", "1").status == EditStatus.OUT_OF_SCOPE
