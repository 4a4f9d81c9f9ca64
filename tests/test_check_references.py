"""redline.proofread.references and .numbering: every typed reference form, the negatives, REF
fields without their bookmark, typed numbering gaps -- on generated documents."""

from __future__ import annotations

import pytest

from redline.proofread.check import check, totals
from redline.proofread.findings import Kind
from redline.proofread.numbering import numbering_gaps
from redline.proofread.references import broken_fields, dangling, references
from redline.read.load import load_view
from redline.read.view import DocumentView
from testing.docbuild import BmEnd, BmStart, Field, P, Table, docx
from testing.numbered import NUMBERING, numbered

# A contract with typed numbers: clauses 1-4 (2 with 2.1-2.3, 3 with (a)-(c)), Article IV-ish
# text, a Schedule 1 of two paragraphs, an Exhibit A.
BASE = [
    P("1. Definitions"),
    P("1.1 Words have the meanings given here."),
    P("2. Services"),
    P("2.1 The Supplier shall perform the Services."),
    P("2.2 The Supplier shall report monthly."),
    P("2.3 The Supplier shall keep records."),
    P("3. Payment"),
    P("(a) the Customer shall pay the fees;"),
    P("(b) the Customer shall pay the expenses; and"),
    P("(c) the Customer shall pay interest."),
    P("4. General"),
    P("4.1 Notices are in writing."),
    P("Schedule 1"),
    P("1. The first paragraph of the schedule."),
    P("2. The second paragraph of the schedule."),
    P("Exhibit A"),
    P("The form of notice."),
]


def view_with(*paragraphs: str) -> DocumentView:
    data = docx(*BASE, *[P(t) for t in paragraphs])
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    return loaded[1]


def cited(text: str) -> list[list[str]]:
    view = view_with(text)
    last = len(view.paragraphs) - 1
    return [[t.name for t in r.targets] for r in references(view) if r.paragraph == last]


def dangling_texts(text: str) -> list[str]:
    view = view_with(f"As agreed, {text}")  # (a paragraph that is only "Exhibit B" heads it)
    return [f.place.text for f in dangling(view)]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("as set out in Clause 2.2.", [["Clause 2.2"]]),
        ("subject to clause 3(b) above", [["Clause 3(b)"]]),
        ("under Section 2.1 and section 4.1", [["Clause 2.1"], ["Clause 4.1"]]),
        ("see paragraph 2 of Schedule 1", [["Clause 2 of Schedule 1"]]),
        ("the services in Schedule 1", [["Schedule 1"]]),
        ("as Article IV says", [["Article IV"]]),
        ("Clauses 2 to 4 apply", [["Clause 2", "Clause 3", "Clause 4"]]),
        ("Clauses 1, 2 and 4 apply", [["Clause 1", "Clause 2", "Clause 4"]]),
        ("clause 3(a) or (b)", [["Clause 3(a)", "Clause 3(b)"]]),
        ("Sections 2.1 through 2.3", [["Clause 2.1", "Clause 2.2", "Clause 2.3"]]),
        ("as \u00a7 2.2 states", [["Clause 2.2"]]),
        ("the form in Exhibit A", [["Exhibit A"]]),
    ],
)
def test_reference_forms(text: str, names: list[list[str]]) -> None:
    assert cited(text) == names


@pytest.mark.parametrize(
    "text",
    [
        "Section 4.2 of the Lease applies",  # another document
        "Section 409A of the Code",  # another document, and a number running into a letter
        "Article 28 of GDPR",
        "the clause on payment governs",  # "clause" in prose, no number
        "a fee of $5.2 million is due on 1 January 2024",  # amounts, dates
        "in 2024 and 2025 the rent rises by 3.5%",  # years, a percentage
        "under 48 C.F.R. section 12.212",  # a statute
        "in whole or in part 2 times",  # "part" in prose (lower case)
        "Treasury Regulation Section 1.409A-1(b)",
    ],
)
def test_not_references(text: str) -> None:
    assert cited(text) == []


def test_relative_sub_clause() -> None:
    data = docx(
        *BASE[:9], P("(c) the Customer shall pay interest, as sub-clause (b) and sub-clause (d) say.")
    )
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    view = loaded[1]
    found = [f.place.text for f in dangling(view)]
    assert found == ["sub-clause (d)"]


def test_singular_word_does_not_read_a_list() -> None:
    # "Section 2 and 6 months": clause 2 alone
    assert cited("under Section 2 and 6 months later") == [["Clause 2"]]


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("as set out in Clause 2.2.", []),
        ("as set out in Clause 2.7.", ["Clause 2.7"]),
        ("as set out in clause 9(b).", ["clause 9(b)"]),
        ("as set out in Section 3.1.4.", ["Section 3.1.4"]),
        ("see paragraph 2 of Schedule 1", []),
        ("see paragraph 5 of Schedule 1", ["paragraph 5 of Schedule 1"]),
        ("see Schedule 3", ["Schedule 3"]),
        ("Clauses 2 to 6", ["Clauses 2 to 6", "Clauses 2 to 6"]),  # 5 and 6
        ("Clauses 1, 4 and 8", ["Clauses 1, 4 and 8"]),
        ("clause 3(c)", []),
        ("clause 3(e)", ["clause 3(e)"]),
        ("Exhibit B", ["Exhibit B"]),
        ("Annex 2", []),  # the document has no annexes: an attachment outside it
        ("Section 4.2 of the Lease", []),
    ],
)
def test_dangling(text: str, missing: list[str]) -> None:
    assert dangling_texts(text) == missing


def test_own_typed_number_is_no_reference() -> None:
    data = docx(P("Clause 1 Definitions"), P("Clause 2 Services"), P("Clause 3 Payment subject to Clause 2."))
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    refs = references(loaded[1])
    assert [r.text for r in refs] == ["Clause 2"]


def test_references_to_automatic_numbers() -> None:
    data = docx(
        P("Heading", ppr=numbered(0)),
        P("First clause.", ppr=numbered(1)),
        P("Second clause, subject to Clause 1.1 and Clause 1.3.", ppr=numbered(1)),
        numbering=NUMBERING,
    )
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    assert [f.place.text for f in dangling(loaded[1])] == ["Clause 1.3"]


def _parts(data: bytes) -> tuple[DocumentView, dict[str, bytes]]:
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    package, view = loaded
    return view, {p: package.read(p) for p in {x.part for x in view.paragraphs}}


def test_broken_field_reference() -> None:
    data = docx(
        P("1. Target ", BmStart("_Ref100", 1), "text", BmEnd(1)),
        P(
            "2. See clause ",
            Field(" REF _Ref100 \\r \\h ", "1"),
            " and clause ",
            Field(" REF _Ref999 \\r \\h ", "7"),
            ".",
        ),
        P("3. Page ", Field(' PAGEREF "_Ref998" \\h ', "4"), "."),
    )
    view, parts = _parts(data)
    found = broken_fields(view, parts)
    assert [(f.kind, f.place.paragraph, f.place.text) for f in found] == [
        (Kind.BROKEN_FIELD_REFERENCE, 1, "7"),
        (Kind.BROKEN_FIELD_REFERENCE, 2, "4"),
    ]
    assert "_Ref999" in found[0].message


def test_no_ref_field_parses_nothing() -> None:
    view, parts = _parts(docx(*BASE))
    assert broken_fields(view, parts) == []


def gaps(*numbers: str) -> list[tuple[str, str | None]]:
    data = docx(*[P(f"{n} Clause text number {k}.") for k, n in enumerate(numbers)])
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    view = loaded[1]
    return [(f.place.text, f.fix["replacement"] if f.fix else None) for f in numbering_gaps(view)]


def test_numbering_in_sequence() -> None:
    assert gaps("1.", "2.", "3.") == []
    assert gaps("1.", "1.1", "1.2", "2.", "2.1") == []


def test_numbering_skip() -> None:
    assert gaps("1.", "2.", "4.", "5.") == [("4.", None)]


def test_numbering_one_out_of_line_has_a_fix() -> None:
    found = gaps("1.", "2.", "4.", "4.", "5.")
    assert len(found) == 1 and found[0][0] == "4."
    assert (found[0][1] or "").startswith("3. Clause text")


def test_numbering_repeat() -> None:
    assert gaps("1.", "2.", "2.", "3.", "4.") == [("2.", None)]


def test_numbering_sub_levels_and_letters() -> None:
    assert gaps("1.", "1.1", "1.3", "2.") == [("1.3", None)]
    data = docx(P("1. Payment"), P("(a) first;"), P("(b) second;"), P("(d) fourth."))
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    assert [f.place.text for f in numbering_gaps(loaded[1])] == ["(d)"]


def test_numbering_restart_and_steps_are_no_gap() -> None:
    assert gaps("1.", "2.", "1.", "2.") == []
    assert gaps("18.33.010", "18.33.020", "18.33.030") == []


def test_automatic_numbering_is_never_a_gap() -> None:
    data = docx(
        P("Heading", ppr=numbered(0)),
        P("First.", ppr=numbered(1)),
        P("Second.", ppr=numbered(1)),
        numbering=NUMBERING,
    )
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    assert numbering_gaps(loaded[1]) == []


def test_numbers_in_a_table_are_data() -> None:
    data = docx(P("1. Rates"), Table([["2.1", "ten"], ["2.5", "twenty"]]), P("2. Next"))
    loaded = load_view(data)
    assert isinstance(loaded, tuple)
    assert numbering_gaps(loaded[1]) == []


def test_check_sorts_and_counts() -> None:
    view = view_with("Clause 2.9 and Schedule 4 apply.")
    found = check(view)
    assert [f.place.paragraph for f in found] == sorted(f.place.paragraph for f in found)
    counts = totals(found)
    assert counts["dangling_reference"] == 2
    assert set(counts) == {str(k) for k in Kind}
