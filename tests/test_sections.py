"""Clauses as lawyers cite them: typed numbers, sections and their nesting, the names a
`section` may take, labels shown to the model and the label tolerance."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redline.apply import ApplyOptions, apply_reply
from redline.match.locate import Locator
from redline.match.verify import verify
from redline.read.load import load_view
from redline.read.outline import Entry, build_outline
from redline.read.sections import Kind, parse_reference, read_number, typed_number
from redline.read.view import DocumentView
from shared_schema import Code, Edit, EditBatch, EditStatus, parse_edit_reply
from shared_schema.records import RefusalRecord, ResultRecord
from testing.docbuild import B, Link, P, R, Raw, docx
from tests.support import view_of

ROOT = Path(__file__).resolve().parent.parent
LEASE = ROOT / "sample_contracts" / "commercial-lease.docx"


def check(
    view: DocumentView, anchor: str, replacement: str = "REPLACED", section: str | None = None
) -> ResultRecord:
    edit = Edit(anchor=anchor, replacement=replacement, section=section)
    return verify(Locator(view), EditBatch(edits=[edit]), dry_run=True).results[0]


def why(result: ResultRecord) -> RefusalRecord:
    assert result.error is not None, result
    return result.error


# -- typed numbers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("5.1. The Supplier shall", "5.1."),
        ("5.1 The Supplier shall", "5.1"),
        ("\n2.2 Standard of Care", "2.2"),  # after a line break
        ("12. Notices", "12."),
        ("3.2\tFees", "3.2"),
        ("(a) the Supplier", "(a)"),
        ("(iv) any other", "(iv)"),
        ("(A) Recitals", "(A)"),
        ("a) first", "a)"),
        ("Clause 17 Governing Law", "Clause 17"),
        ("Section 4.2 Operating Expenses", "Section 4.2"),
        ("\u00a7 2 Verg\u00fctung", "\u00a7 2"),
        ("\u00a72.1 Dauer", "\u00a72.1"),
        ("ARTICLE IV", "ARTICLE IV"),
        ("Article IV \u2013 Definitions", "Article IV"),
        ("SCHEDULE 2 - SERVICES", "SCHEDULE 2"),
        ("Schedule\u00a01", "Schedule\u00a01"),
        ("Annex I", "Annex I"),
        ("Part A", "Part A"),
        ("Exhibit B: Form of Notice", "Exhibit B"),
    ],
)
def test_a_number_typed_at_the_start_of_a_paragraph_is_read(text: str, number: str) -> None:
    assert typed_number(text) == number


@pytest.mark.parametrize(
    "text",
    [
        "Section 4.2 of the Lease applies.",  # a citation in a sentence
        "Clause 17 shall survive termination.",
        "1.5 million shares",
        "2024 was a year",
        "5 Business Days after notice",  # a lone number needs its dot or bracket
        "12.05.2024 is the date",
        "Part of the consideration",
        "The parties agree",
        "",
    ],
)
def test_text_that_only_begins_with_a_number_is_no_clause(text: str) -> None:
    assert typed_number(text) is None


@pytest.mark.parametrize(
    ("name", "kind", "path"),
    [
        ("4.2", Kind.CLAUSE, ("4", "2")),
        ("4.2.", Kind.CLAUSE, ("4", "2")),
        ("Clause 4.2", Kind.CLAUSE, ("4", "2")),
        ("clause 4.2(b)", Kind.CLAUSE, ("4", "2", "b")),
        ("CLAUSE 4.2 (b)", Kind.CLAUSE, ("4", "2", "b")),
        ("Section 4.2", Kind.CLAUSE, ("4", "2")),
        ("\u00a7 4", Kind.CLAUSE, ("4",)),
        ("\u00a74.2", Kind.CLAUSE, ("4", "2")),
        ("Art. 4", Kind.ARTICLE, ("4",)),
        ("Article IV", Kind.ARTICLE, ("4",)),
        ("article iv.", Kind.ARTICLE, ("4",)),
        ("18(b)", Kind.CLAUSE, ("18", "b")),
        ("18(b)(iii)", Kind.CLAUSE, ("18", "b", "iii")),
        ("Schedule 2", Kind.SCHEDULE, ("2",)),
        ("Annex I", Kind.ANNEX, ("1",)),
        ("Exhibit B", Kind.EXHIBIT, ("b",)),
        ("\u201c4.2\u201d", Kind.CLAUSE, ("4", "2")),
        ('"Section\u00a04.2."', Kind.CLAUSE, ("4", "2")),
    ],
)
def test_a_reference_is_read_as_lawyers_write_it(name: str, kind: Kind, path: tuple[str, ...]) -> None:
    ref = parse_reference(name)
    assert ref.target == (kind, path)
    assert ref.within == ()


def test_a_reference_inside_a_schedule_names_its_container() -> None:
    for name in ("Schedule 2, paragraph 1", "paragraph 1 of Schedule 2", "Schedule 2 paragraph 1"):
        ref = parse_reference(name)
        assert ref.within == ((Kind.SCHEDULE, ("2",)),), name
        assert ref.target == (Kind.CLAUSE, ("1",)), name
    assert parse_reference("Confidentiality").target is None


@given(
    st.lists(st.integers(0, 999), min_size=1, max_size=4),
    st.sampled_from(["", "Clause ", "Section ", "\u00a7"]),
)
@settings(max_examples=200, deadline=None)
def test_every_decimal_reference_reads_back_its_numbers(numbers: list[int], word: str) -> None:
    text = word + ".".join(map(str, numbers))
    number = read_number(text)
    assert number is not None and number.path == tuple(map(str, numbers))


# -- the outline ---------------------------------------------------------------------------------


def entries(*rows: tuple[str | None, int | None, int | None, str]) -> list[Entry]:
    return [Entry("body", label, ilvl, outline, text) for label, ilvl, outline, text in rows]


def test_a_bullet_or_body_paragraph_never_heads_a_section() -> None:
    outline = build_outline(
        entries(
            ("1.", 0, None, "Employment. The Employee is employed."),
            (None, None, None, "A body paragraph."),
            ("\u2022", 0, None, "a bullet"),  # a bullet level with a decimal format: no letter or digit
            ("", 1, None, "a level whose format is none"),
            (None, None, None, "Another body paragraph of clause 1."),
            ("2.", 0, None, "Duties. The Employee shall"),
        )
    )
    assert [h.cite for h in outline.heads] == ["1", "2"]
    assert [h.cite if h else None for h in outline.head_of] == ["1", "1", "1", "1", "1", "2"]


def test_typed_numbers_nest_by_depth_and_items_by_style() -> None:
    outline = build_outline(
        entries(
            (None, None, 0, "ARTICLE IV"),
            (None, None, None, "Section 4.1 Payment. The Buyer shall pay:"),
            (None, None, None, "(a) the price;"),
            (None, None, None, "(i) in cash; or"),
            (None, None, None, "(ii) by wire;"),
            (None, None, None, "(b) the taxes; and"),
            (None, None, None, "(h) ... ;"),
            (None, None, None, "(i) the eighth letter comes after h, not roman one"),
            (None, None, None, "4.2 Interest. Late sums bear interest."),
            (None, None, 0, "SCHEDULE 2"),
            (None, None, None, "1. Services. The Supplier provides"),
        )
    )
    cites = [h.cite for h in outline.heads]
    assert cites == [
        "ARTICLE IV", "Section 4.1", "Section 4.1(a)", "Section 4.1(a)(i)", "Section 4.1(a)(ii)",
        "Section 4.1(b)", "Section 4.1(h)", "Section 4.1(i)", "4.2", "SCHEDULE 2", "1",
    ]  # fmt: skip
    by_cite = {h.cite: h for h in outline.heads}
    assert by_cite["Section 4.1(i)"].parent is by_cite["Section 4.1"]  # (i) after (h): a letter
    assert by_cite["Section 4.1(a)(ii)"].parent is by_cite["Section 4.1(a)"]
    assert by_cite["4.2"].parent is by_cite["ARTICLE IV"]
    assert by_cite["1"].parent is by_cite["SCHEDULE 2"]
    assert by_cite["1"].title == "SCHEDULE 2 \u203a 1 Services"
    assert [h.cite for h in outline.named("Art. 4")] == ["ARTICLE IV"]
    assert [h.cite for h in outline.named("4.1(a)(ii)")] == ["Section 4.1(a)(ii)"]
    assert [h.cite for h in outline.named("clause 4.1(b)")] == ["Section 4.1(b)"]
    assert [h.cite for h in outline.named("Schedule 2, paragraph 1")] == ["1"]
    assert [h.cite for h in outline.named("1")] == ["1"]  # only one clause 1: the schedule's
    assert outline.named("") == [] and outline.named("x" * 500) == []


def test_an_unnumbered_heading_holds_the_numbered_clauses_after_it() -> None:
    outline = build_outline(
        entries(
            (None, None, 0, "Definitions"),
            ("1.", 0, None, "In this Agreement:"),
            ("2.", 0, None, "Headings do not affect interpretation."),
            (None, None, 0, "Payment"),
            ("3.", 0, None, "The Buyer shall pay."),
        )
    )
    heads = {h.cite: h for h in outline.heads}
    assert heads["1"].parent is heads["Definitions"] and heads["2"].parent is heads["Definitions"]
    assert heads["3"].parent is heads["Payment"]
    assert heads["Definitions"].last == 2


def test_a_clause_number_in_a_schedule_does_not_shadow_the_main_body() -> None:
    outline = build_outline(
        entries(
            ("1.", 0, None, "Definitions. Words mean"),
            ("2.", 0, None, "Services. The Supplier"),
            (None, None, 0, "Schedule 1"),
            ("1.", 0, None, "Scope. The scope"),
        )
    )
    [main] = outline.named("1")
    assert main.index == 0
    [inner] = outline.named("Schedule 1, clause 1")
    assert inner.index == 3


# -- documents: names, scope, labels -------------------------------------------------------------


TYPED = docx(
    P("SERVICES AGREEMENT"),
    P("Clause 1 Definitions"),
    P("1.1 \u201cServices\u201d means the services described in Schedule 2."),
    P("1.2 \u201cFees\u201d means the fees set out in Schedule 2."),
    P("Clause 2 Services"),
    P("2.1 The Supplier shall provide the Services with reasonable skill and care."),
    P("2.2 The Supplier shall:"),
    P("(a) comply with the Customer\u2019s site rules;"),
    P("(b) keep the Customer informed of progress every week;"),
    P("The Supplier shall bear its own costs of doing so."),
    P("\u00a7 3 Fees"),
    P("The Customer shall pay the Fees within thirty days of invoice."),
    P("SCHEDULE 2"),
    P("1. Scope. The Services comprise the maintenance of the Customer\u2019s systems."),
)


@pytest.fixture(scope="module")
def typed() -> DocumentView:
    return view_of(TYPED)


@pytest.mark.parametrize(
    "section",
    [
        "2.2(b)",
        "clause 2.2(b)",
        "Clause 2.2 (b)",
        "Section 2.2(b).",
        "2.2",
        "Clause 2",
        "\u00a7 2",
        "2",
        "Services",
    ],
)
def test_a_typed_clause_is_a_section_in_every_form(typed: DocumentView, section: str) -> None:
    result = check(typed, "keep the Customer informed of progress", section=section)
    assert result.status == EditStatus.VERIFIED, (section, result.error)


def test_a_neighbouring_clause_is_out_of_scope_with_the_right_names(typed: DocumentView) -> None:
    result = check(typed, "keep the Customer informed of progress", section="2.2(a)")
    assert result.status == EditStatus.OUT_OF_SCOPE
    error = why(result)
    assert "\u201c2.2(a) comply with the Customer\u2019s site rules;\u201d" in error.message
    assert "section \u201c2.2(b) keep the Customer" in error.message
    assert "set `section` to \u201c2.2(b)\u201d" in (error.hint or "")


def test_a_body_paragraph_after_items_lies_in_the_clause_of_the_items(typed: DocumentView) -> None:
    body = next(p for p in typed.paragraphs if typed.paragraph_text(p).startswith("The Supplier shall bear"))
    assert body.section is not None and body.section.startswith("2.2(b)")
    fees = next(p for p in typed.paragraphs if typed.paragraph_text(p).startswith("The Customer shall pay"))
    assert fees.section == "\u00a7 3 Fees"
    assert check(typed, "within thirty days of invoice", section="\u00a73").status == EditStatus.VERIFIED


def test_a_section_name_that_matches_two_places_is_refused_with_both(typed: DocumentView) -> None:
    result = check(typed, "maintenance of the Customer", section="1")  # "1" is Clause 1
    assert result.status == EditStatus.OUT_OF_SCOPE
    assert "set `section` to \u201cSCHEDULE 2, 1\u201d" in (why(result).hint or "")
    result = check(typed, "maintenance of the Customer", section="Schedule 2, paragraph 1")
    assert result.status == EditStatus.VERIFIED
    result = check(typed, "comply with the Customer", section="(a)")
    assert result.status == EditStatus.VERIFIED  # one (a) in the document


def test_an_ambiguous_name_lists_every_section_it_names() -> None:
    view = view_of(
        docx(
            P("1. Fees. The fees are due."),
            P("(a) monthly;"),
            P("2. Costs. Costs are due."),
            P("(a) yearly;"),
        )
    )
    result = check(view, "yearly", section="(a)")
    assert result.status == EditStatus.OUT_OF_SCOPE
    message = why(result).message
    assert "names 2 sections" in message
    assert "\u201c1(a) monthly;\u201d" in message and "\u201c2(a) yearly;\u201d" in message


@pytest.mark.parametrize("section", ["9.9", "Clause 7", "Schedule 4"])
def test_a_section_the_document_lacks_is_refused_naming_where_the_anchor_is(
    typed: DocumentView, section: str
) -> None:
    result = check(typed, "keep the Customer informed of progress", section=section)
    assert result.status == EditStatus.OUT_OF_SCOPE
    error = why(result)
    assert f"no section named \u201c{section}\u201d" in error.message
    assert "set `section` to \u201c2.2(b)\u201d" in (error.hint or "")


@pytest.mark.parametrize("section", ["", "   ", "x" * 201])
def test_an_empty_or_absurd_section_is_an_invalid_entry(section: str) -> None:
    batch = parse_edit_reply(
        json.dumps(
            [{"anchor": "a", "replacement": "b", "section": section}, {"anchor": "c", "replacement": "d"}]
        )
    )
    assert batch is not None and len(batch.edits) == 1 and len(batch.invalid) == 1
    assert "section" in batch.invalid[0].reason


@pytest.mark.parametrize("section", [[1], {"n": 1}, True, 4.1])
def test_a_section_that_is_not_text_is_an_invalid_entry(section: object) -> None:
    batch = parse_edit_reply(json.dumps([{"anchor": "a", "replacement": "b", "section": section}]))
    assert batch is not None and batch.edits == [] and len(batch.invalid) == 1


# -- labels shown, and the label tolerance --------------------------------------------------------


@pytest.fixture(scope="module")
def lease() -> DocumentView:
    return view_of(LEASE)


def test_the_plain_view_shows_each_label_before_its_text(lease: DocumentView) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "redline", "view", str(LEASE)], capture_output=True, text=True, check=True
    ).stdout
    assert "\n2.2 Renewal Option. Provided no Event of Default" in out
    assert "\n3.3(a)" not in out and "\n(a) use or store any hazardous" in out  # as displayed
    doc = json.loads(
        subprocess.run(
            [sys.executable, "-m", "redline", "view", str(LEASE), "--json"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    para = next(p for p in doc["paragraphs"] if p["label"] == "2.2")
    assert para["text"].startswith("Renewal Option.")  # the document's own text, the label beside it
    assert doc["text"][para["start"] : para["end"]] == para["text"]
    assert para["section"] == "2.2 Renewal Option"


def test_an_anchor_that_begins_with_its_label_is_found_without_it(lease: DocumentView) -> None:
    result = check(lease, "2.2 Renewal Option. Provided no Event of Default exists", section="2.2")
    assert result.status == EditStatus.VERIFIED, result.error
    assert "label" in result.tolerances
    [loc] = result.locations
    assert lease.text[loc.start : loc.end] == "Renewal Option. Provided no Event of Default exists"


def test_an_anchor_with_another_label_is_not_found_and_names_the_right_one(lease: DocumentView) -> None:
    result = check(lease, "2.3 Renewal Option. Provided no Event of Default exists")
    assert result.status == EditStatus.NOT_FOUND
    error = why(result)
    assert "\u201c2.3\u201d" in error.message and "labelled \u201c2.2\u201d" in error.message
    assert "\u201c2.2\u201d" in (error.hint or "")


def test_a_replacement_that_repeats_the_label_does_not_write_it(tmp_path: Path) -> None:
    reply = json.dumps(
        [{"anchor": "2.2 Renewal Option. Provided no Event of Default exists",
          "replacement": "2.2 Renewal Option. Provided no Event of Default or breach exists"}]
    )  # fmt: skip
    outcome = apply_reply(LEASE.read_bytes(), reply, ApplyOptions())
    [edit] = outcome.report.edits
    assert edit.status == EditStatus.APPLIED and "label" in edit.tolerances
    assert outcome.output is not None
    out = tmp_path / "out.docx"
    out.write_bytes(outcome.output)
    accepted = subprocess.run(
        ["pandoc", "--track-changes=accept", "-t", "plain", "--wrap=none", str(out)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "Renewal Option. Provided no Event of Default or breach exists" in accepted
    assert "2.2 Renewal Option" not in accepted  # pandoc shows no automatic numbers: none typed


def test_a_summary_quote_that_begins_with_its_label_is_verified() -> None:
    from summarize.check import check_reply

    quote = "2.2 Renewal Option. Provided no Event of Default exists"
    reply = json.dumps({"summary": "s", "points": [{"title": "Renewal", "text": "t", "quotes": [quote]}]})
    report = check_reply(LEASE.read_bytes(), reply)
    assert report.totals.verified == 1, report


def test_cyclic_paragraph_styles_are_refused_too_complex() -> None:
    data = docx(P("The Tenant shall pay rent.", style="A"))
    import io
    import zipfile

    src = zipfile.ZipFile(io.BytesIO(data))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for item in src.infolist():
            body = src.read(item.filename)
            if item.filename == "word/styles.xml":
                body = (
                    b'<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="http://schemas.'
                    b'openxmlformats.org/wordprocessingml/2006/main">'
                    b'<w:style w:type="paragraph" w:styleId="A"><w:basedOn w:val="B"/></w:style>'
                    b'<w:style w:type="paragraph" w:styleId="B"><w:basedOn w:val="A"/></w:style></w:styles>'
                )
            z.writestr(item, body)
    loaded = load_view(buf.getvalue())
    assert not isinstance(loaded, tuple) and loaded.code == Code.TOO_COMPLEX
    assert "circle" in loaded.message


# -- the short ways, against the long ones ---------------------------------------------------

_NUMBERISH = st.text(alphabet="0123456789.() \t:-§aAbiIvVxXArticleSchdu\u00a0\u2013\u0661\uff11", max_size=48)


@settings(max_examples=600, deadline=None)
@given(st.one_of(_NUMBERISH, st.from_regex(r"[0-9]{1,8}(\.[0-9]{0,8}){0,12}\.{0,2}", fullmatch=True)))
def test_a_number_reads_the_same_the_short_way(text: str) -> None:
    from redline.read.sections import read_number_fully

    assert read_number(text) == read_number_fully(text)


@settings(max_examples=600, deadline=None)
@given(st.one_of(_NUMBERISH, st.text(max_size=80)), st.text(max_size=30))
def test_typed_numbers_are_found_as_pattern_by_pattern(head: str, tail: str) -> None:
    from redline.read.sections import LEADING_SPACE, TYPED_PATTERNS

    def one_by_one(text: str) -> str | None:  # what typed_number did before its one regex
        at = LEADING_SPACE.match(text, 0, 40)
        pos = at.end() if at else 0
        for pattern in TYPED_PATTERNS:
            m = pattern.match(text[pos : pos + 60])
            if m:
                return m.group(0).strip()
        return None

    for text in (head, head + " " + tail, "(" + head, head + ") " + tail):
        assert typed_number(text) == one_by_one(text)


@given(st.one_of(st.none(), st.text(max_size=6)))
def test_a_label_is_a_number_when_it_holds_a_letter_or_digit(label: str | None) -> None:
    from redline.read.sections import is_number

    assert is_number(label) == (bool(label) and any(c.isalnum() for c in label or ""))


# -- issue 35: contents pages, cite forms, exact labels, formatted headings, ambiguity ------------

TOC_STYLES = (
    '<w:style w:type="paragraph" w:styleId="TOC1"><w:name w:val="toc 1"/><w:basedOn w:val="Normal"/>'
    "</w:style>"
    '<w:style w:type="paragraph" w:styleId="Inhalt2"><w:name w:val="Inhalt 2"/><w:basedOn w:val="TOC1"/>'
    "</w:style>"
    '<w:style w:type="paragraph" w:styleId="Title1"><w:name w:val="Clause Title"/>'
    "<w:rPr><w:b/><w:caps/></w:rPr></w:style>"
)
CONTENTS = docx(
    P("CONTENTS"),
    P("Article 4\t366"),  # a tab and a page number
    P("Article 5 Payment ........ 12"),  # a dotted leader typed out
    P("Article 6 Termination", style="TOC1"),  # a contents style, no page number
    P("Article 7 Notices", style="Inhalt2"),  # based on one
    P(Link("Article 8 Law\t9")),  # a hyperlinked entry
    P("This Agreement is made between the parties named below, on the date written."),
    P("Article 4 Definitions"),
    P("Words have the meanings given to them in this Article."),
    P("Article 5 Payment"),
    P("The Buyer shall pay the price within thirty days of each invoice."),
    styles=TOC_STYLES,
)


def test_contents_lines_are_never_sections_nor_own_the_preamble() -> None:
    view = view_of(CONTENTS)
    cites = [h.cite for h in view.outline.heads]
    assert cites == ["Article 4", "Article 5"], cites
    preamble = next(p for p in view.paragraphs if view.paragraph_text(p).startswith("This Agreement is made"))
    assert preamble.section is None
    assert [h.index for h in view.outline.named("Article 4")] == [7]
    assert check(view, "within thirty days", section="Article 5").status == EditStatus.VERIFIED
    assert check(view, "made between the parties", section="Article 4").status == EditStatus.OUT_OF_SCOPE


def test_a_contents_fields_hyperlinked_entries_are_no_sections() -> None:
    # a TOC field whose entries are hyperlinks with no page number and no contents style: its
    # result repeats a later heading word for word, so the whole result is the contents
    begin = Raw(
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> TOC \\o "1-3" '
        '\\h </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'
    )
    end = Raw('<w:r><w:fldChar w:fldCharType="end"/></w:r>')
    view = view_of(
        docx(
            P(begin, Link("Article 4 Definitions")),
            P(Link("Article 5 Payment")),
            P(Link("Article 6 Law"), end),
            P("This Agreement is made between the parties named below, on the date written."),
            P("Article 4 Definitions"),
            P("Words have the meanings given to them in this Article."),
            P("Article 5 Payment"),
            P("The Buyer shall pay the price within thirty days of each invoice."),
        )
    )
    assert [h.index for h in view.outline.heads] == [4, 6]
    assert view.paragraphs[3].section is None
    assert check(view, "within thirty days", section="Article 5").status == EditStatus.VERIFIED


def test_a_clause_in_a_fields_result_stays_a_clause() -> None:
    # an IF field's result holding a clause no heading repeats (document assembly) is no contents
    begin = Raw(
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> IF 1 = 1 '
        '</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'
    )
    end = Raw('<w:r><w:fldChar w:fldCharType="end"/></w:r>')
    view = view_of(docx(P("1. Term. Two years."), P(begin, "2. Renewal. One more year.", end)))
    assert [h.cite for h in view.outline.heads] == ["1", "2"]


@pytest.mark.corpus
def test_a_contents_line_on_the_corpus_is_no_section(corpus_docs: list[Path]) -> None:
    """On every corpus document: no section's paragraph ends in a tab and a page number."""
    from redline.read.contents import TAIL, ends_in_page_number

    seen = 0
    for path in corpus_docs:
        loaded = load_view(path)
        if not isinstance(loaded, tuple):  # a document the loader refuses has no outline to check
            continue
        view = loaded[1]
        for head in view.outline.heads:
            p = view.paragraphs[head.index]
            text = view.text[p.start : p.end]
            assert not ends_in_page_number(text[-TAIL:], len(text)), (path.name, text)
            seen += 1
    assert seen > 100


@pytest.mark.parametrize(
    "section",
    ["3. Payment Terms", "3 Payment Terms", "3 Payment", "3. payment", "Clause 3 \u2013 Payment Terms",
     "Clause 3: Payment", "Section 3 - Payment Terms", "\u201c3. Payment Terms\u201d"],
)  # fmt: skip
def test_a_label_with_its_title_or_the_start_of_it_names_the_clause(section: str) -> None:
    view = view_of(
        docx(
            P("1. Definitions. Words mean what they say."),
            P("3. Payment Terms"),
            P("The Buyer shall pay the price within thirty days."),
            P("4. Payments Made Late. Interest runs on late sums."),
        )
    )
    assert [h.cite for h in view.outline.named(section)] == ["3"], section
    assert check(view, "within thirty days", section=section).status == EditStatus.VERIFIED
    assert view.outline.named("3 Pay") == []  # the start of a title ends where a word does
    assert view.outline.named("3 Termination") == []


NUMBERED = '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>'


def test_an_exact_label_wins_over_a_numeric_equivalent() -> None:
    roman = (
        '<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="2"/>'
        '<w:numFmt w:val="upperRoman"/><w:lvlText w:val="%1"/></w:lvl></w:abstractNum>'
        '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>'
    )
    view = view_of(
        docx(
            P("Bounty and Point Eligibility. Points are earned as follows.", ppr=NUMBERED),
            P("1. Definition one applies."),
            P("2. Definition two applies."),
            P("\u00a7 2 Fees. The fees are due monthly."),
            P("2 \u2013 Other matters are settled here."),
            numbering=roman,
        )
    )
    names = ("II", "\u00a7 2", "\u00a72", "2", "Article II")
    named = {n: [h.cite for h in view.outline.named(n)] for n in names}
    assert named["II"] == ["II"]
    assert named["\u00a7 2"] == named["\u00a72"] == ["\u00a7 2"]
    assert named["2"] == ["2"]  # "2." as written; "§ 2" and "II" are only equivalents
    result = check(view, "fees are due monthly", section="\u00a7 2")
    assert result.status == EditStatus.VERIFIED, result.error


def test_equally_good_matches_are_ambiguous_section_with_a_citation_of_their_own() -> None:
    view = view_of(
        docx(
            P("1. Fees. The fees are due."),
            P("(a) monthly in arrears;"),
            P("2. Costs. Costs are due."),
            P("(a) yearly in advance;"),
        )
    )
    result = check(view, "yearly in advance", section="(a)")
    assert result.status == EditStatus.OUT_OF_SCOPE
    error = why(result)
    assert error.code == Code.AMBIGUOUS_SECTION
    hint = error.hint or ""
    assert "\u201c1(a)\u201d for paragraph 1" in hint and "\u201c2(a)\u201d for paragraph 3" in hint
    assert "\u201c(a)\u201d" not in hint  # never the name that was refused
    for cite in ("1(a)", "2(a)"):
        assert len(view.outline.named(cite)) == 1
    assert check(view, "yearly in advance", section="2(a)").status == EditStatus.VERIFIED


def test_same_numbers_in_two_schedules_are_cited_with_their_schedule() -> None:
    view = view_of(
        docx(
            P("1. Main. The main clause."),
            P("SCHEDULE 1"),
            P("1. Scope. The first schedule's scope."),
            P("SCHEDULE 2"),
            P("1. Scope. The second schedule's scope."),
        )
    )
    result = check(view, "second schedule's scope", section="Scope")
    error = why(result)
    assert error.code == Code.AMBIGUOUS_SECTION
    assert "\u201cSCHEDULE 1, 1\u201d for paragraph 2" in (error.hint or "")
    assert "\u201cSCHEDULE 2, 1\u201d for paragraph 4" in (error.hint or "")


FORMATTED = docx(
    P("1. Definitions. Words mean what they say in this Agreement."),
    P(B("Governing Law and Jurisdiction")),
    P("This Agreement is governed by the laws of England and Wales in every respect."),
    P("Each party submits to the courts of London for every dispute arising."),
    P("Notices", style="Title1"),  # bold and capitals by its style
    P("Notices must be given in writing and delivered by hand or by post."),
    P(R("Confidentiality", rpr='<w:sz w:val="32"/>')),  # a larger font
    P("Each party keeps the other party's information confidential at all times."),
    P(B("Bold start"), " then plain words make this one body paragraph, not a heading."),
    P(B("A bold sentence that is a whole paragraph ends with a full stop.")),
    P("Another plain paragraph follows the bold sentence here."),
    styles=TOC_STYLES,
)


@pytest.mark.parametrize(
    ("section", "anchor"),
    [
        ("Governing Law and Jurisdiction", "submits to the courts of London"),
        ("governing law and jurisdiction", "laws of England and Wales"),
        ("Notices", "delivered by hand or by post"),
        ("Confidentiality", "information confidential at all times"),
    ],
)
def test_a_formatted_heading_is_a_section_named_by_its_text(section: str, anchor: str) -> None:
    view = view_of(FORMATTED)
    assert check(view, anchor, section=section).status == EditStatus.VERIFIED, section


def test_a_formatted_heading_changes_no_label_and_scopes_only_its_own_text() -> None:
    view = view_of(FORMATTED)
    assert [h.cite for h in view.outline.heads] == ["1"]  # the outline as before
    assert all(p.section in (None, "1 Definitions") for p in view.paragraphs)
    result = check(view, "delivered by hand or by post", section="Governing Law and Jurisdiction")
    assert result.status == EditStatus.OUT_OF_SCOPE
    for name in ("Bold start", "A bold sentence that is a whole paragraph ends with a full stop"):
        assert view.sections_named(name) == [], name


def test_a_typed_number_after_spaces_tabs_or_no_break_spaces_is_read() -> None:
    view = view_of(
        docx(
            P("2. Term. The term is two years."),
            P(" 2.2. Either party may terminate on notice."),
            P("\u00a0\u00a02.3 Notice periods are thirty days."),
            P("\t2.4 Termination is in writing."),
        )
    )
    assert [h.cite for h in view.outline.heads] == ["2", "2.2", "2.3", "2.4"]
    assert all(h.parent is view.outline.heads[0] for h in view.outline.heads[1:])
    assert check(view, "terminate on notice", section="2.2").status == EditStatus.VERIFIED


def test_typed_clauses_nest_under_a_typed_or_styled_article() -> None:
    view = view_of(
        docx(
            P("Article 2 Payment", style="Heading1"),
            P("1. The Buyer pays the price on delivery."),
            P("2. The Seller invoices monthly in arrears."),
            P("ARTICLE 3 TERM"),
            P("1. The term is two years from signing."),
        )
    )
    heads = {h.title: h for h in view.outline.heads}
    article = heads["Article 2 Payment"]
    assert [h.cite for h in article.children] == ["1", "2"]
    assert check(view, "invoices monthly", section="Article 2, 2").status == EditStatus.VERIFIED
    assert check(view, "two years from signing", section="Article 3, clause 1").status == EditStatus.VERIFIED


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127)) | st.text())
def test_a_names_key_is_its_nfkc_normalised_casefolded_text_on_ascii_too(name: str) -> None:
    """A name's key (the ASCII shortcut included) is NFKC, the tolerant normalisation, single
    spaces and casefolding, its outer quotes and a trailing dot left off."""
    import unicodedata

    from redline.text.normalize import normalize

    full = " ".join(normalize(unicodedata.normalize("NFKC", name)).split()).casefold()
    assert parse_reference(name).text == full.strip(" \"'").rstrip(".:;,").strip(" \"'")
